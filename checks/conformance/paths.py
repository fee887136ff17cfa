"""Where yarnspec finds its conformance cases: the shared ones it does not ship, and the
ones it ships as package data (``yarnspec conform --builtin``)."""

from __future__ import annotations

import os
from pathlib import Path

#: The project's root folder (the one holding ``pyproject.toml``) when run from a checkout.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def default_conformance_dir() -> Path | None:
    """The conformance folder to use when none is given on the command line.

    In order: ``$YARNSPEC_CONFORMANCE``; ``../shared/conformance`` beside the current folder;
    ``../shared/conformance`` beside the project checkout. ``None`` when none exists.
    """
    env = os.environ.get("YARNSPEC_CONFORMANCE")
    candidates = [Path(env)] if env else []
    candidates += [Path.cwd().parent / "shared" / "conformance", PROJECT_ROOT.parent / "shared" / "conformance"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


#: Cases shipped with the package (Hadoop's intra-queue preemption tests, transcribed), laid
#: out as the shared folder is: ``<family>/<TestClass>/<testMethod>.json``.
BUILTIN_CASES = Path(__file__).resolve().parent / "cases"
