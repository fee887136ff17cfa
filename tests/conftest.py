"""Shared test configuration: Hypothesis profiles and its storage outside the tree, the location
of the shared cases, and the check that the test run leaves the working tree as it found it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

#: ``../shared/conformance`` relative to the project root (the folder holding pyproject.toml).
PROJECT_ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE_DIR = Path(os.environ.get("YARNSPEC_CONFORMANCE", PROJECT_ROOT.parent / "shared" / "conformance"))

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Hypothesis keeps its example database and caches in ``.hypothesis/`` under the current folder
# unless told otherwise: keep them in the system's temporary folder (the same one run after run,
# so failing examples are still replayed first), or where $HYPOTHESIS_STORAGE_DIRECTORY says. The
# variable is set for the processes the tests start too (``yarnspec`` run from the project root).
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(Path(tempfile.gettempdir()) / "yarnspec-hypothesis"))
set_hypothesis_home_dir(os.environ["HYPOTHESIS_STORAGE_DIRECTORY"])

#: What a test run may write inside the project: the environment, Python's bytecode, the tools'
#: caches and the editable install's metadata. Everything else is the tree a test must leave as
#: it found it: tests write into ``tmp_path``. (Not ``git status``: it hides what .gitignore
#: names, such as ``validate-out/``, and needs git.)
TOOL_FOLDERS = frozenset({".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache"})


def tree_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` outside :data:`TOOL_FOLDERS` and ``*.egg-info``, by its path
    relative to ``root``: its modification time (ns) and size. Links are not followed."""
    snapshot: dict[str, tuple[int, int]] = {}
    for folder, names, files in os.walk(root):
        names[:] = [name for name in names if name not in TOOL_FOLDERS and not name.endswith(".egg-info")]
        for name in files:
            path = Path(folder, name)
            status = path.lstat()
            snapshot[path.relative_to(root).as_posix()] = (status.st_mtime_ns, status.st_size)
    return snapshot


def tree_changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """The files added, removed or changed between two snapshots, one line each, sorted."""
    added = [f"added {path}" for path in after.keys() - before.keys()]
    removed = [f"removed {path}" for path in before.keys() - after.keys()]
    changed = [f"changed {path}" for path in before.keys() & after.keys() if before[path] != after[path]]
    return sorted(added + removed + changed, key=lambda line: line.split(" ", 1)[1])


@pytest.fixture(scope="session", autouse=True)
def working_tree_unchanged() -> Iterator[None]:
    """Fails the run (an error at the last test's teardown) when a test wrote into the project."""
    before = tree_snapshot(PROJECT_ROOT)
    yield
    changes = tree_changes(before, tree_snapshot(PROJECT_ROOT))
    assert not changes, "the tests changed the working tree (write into tmp_path instead):\n" + "\n".join(changes)
