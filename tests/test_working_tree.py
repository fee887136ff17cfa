"""The test run leaves the working tree as it found it (tests/conftest.py checks it at the end of
every run); here, that the check sees what it must, and that the root holds only what belongs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import PROJECT_ROOT, tree_changes, tree_snapshot

#: The files and folders meant to be in the repository's root.
ROOT_ENTRIES = {
    ".ci",
    ".gitignore",
    ".typecheck",
    "README.md",
    "pyproject.toml",
    "benchmarks",
    "checks",
    "docs",
    "impl",
    "spec",
    "tests",
}


def test_the_snapshot_sees_a_file_added_changed_or_removed(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("a")
    (tmp_path / "gone.txt").write_text("b")
    (tmp_path / "__pycache__").mkdir()
    before = tree_snapshot(tmp_path)
    (tmp_path / "kept.txt").write_text("a longer text")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "new.json").write_text("{}")
    (tmp_path / "__pycache__" / "m.pyc").write_bytes(b"")
    assert tree_changes(before, tree_snapshot(tmp_path)) == [
        "removed gone.txt",
        "changed kept.txt",
        "added out/new.json",
    ]


def test_the_repository_root_holds_only_what_belongs_there() -> None:
    """What git tracks at the top (what a run leaves untracked and ignored, such as
    ``validate-out/``, is the user's)."""
    if shutil.which("git") is None or not (PROJECT_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    extra = {path.split("/")[0] for path in listed} - ROOT_ENTRIES
    assert not extra, f"files in the repository's root that do not belong there: {sorted(extra)}"
