"""Hypothesis's on-disk storage kept out of the user's folder while ``validate`` runs.

``validate`` turns Hypothesis's example database off, but Hypothesis still caches the
constants it collects from local source files under its storage directory, by default
``./.hypothesis/constants/`` in the current folder. A validation must not leave files where
the user runs it, so for the length of a run the storage directory is a temporary folder,
removed afterwards; the previous setting (``HYPOTHESIS_STORAGE_DIRECTORY``, or a test suite's
own) is put back.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis.configuration import set_hypothesis_home_dir, storage_directory


@contextmanager
def private_storage() -> Iterator[None]:
    """Point Hypothesis's storage at a temporary folder until the block ends."""
    previous = storage_directory(intent_to_write=False).home_directory
    with tempfile.TemporaryDirectory(prefix="yarnspec-hypothesis-") as folder:
        set_hypothesis_home_dir(folder)
        try:
            yield
        finally:
            set_hypothesis_home_dir(previous)
