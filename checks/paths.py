"""Where yarnspec finds the data it does not ship: the shared conformance cases."""

from __future__ import annotations

import os
from pathlib import Path

#: The project's root folder (the one holding ``pyproject.toml``) when run from a checkout.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


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
