"""The test run leaves the working tree as it found it (tests/conftest.py checks it at the end of
every run); here, that the check sees what it must, and that the root holds only what belongs."""

from __future__ import annotations

import os
from pathlib import Path

from .conftest import PROJECT_ROOT, tree_changes, tree_snapshot

#: The files and folders meant to be in the project root (tools' caches and the environment aside).
ROOT_ENTRIES = {
    ".ci", ".git", ".gitignore", ".typecheck", "README.md", "pyproject.toml",
    "benchmarks", "checks", "docs", "impl", "spec", "tests",
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
    assert tree_changes(before, tree_snapshot(tmp_path)) == ["removed gone.txt", "changed kept.txt", "added out/new.json"]


def test_the_root_holds_only_what_belongs_there() -> None:
    cached = {".venv", ".pytest_cache", ".mypy_cache", ".hypothesis", "__pycache__"}
    extra = {
        name for name in os.listdir(PROJECT_ROOT) if name not in ROOT_ENTRIES | cached and not name.endswith(".egg-info")
    }
    assert not extra, f"files in the project root that do not belong there: {sorted(extra)}"
