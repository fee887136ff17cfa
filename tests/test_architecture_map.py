"""docs/architecture.md's module map matches the tree: every package folder under ``impl/``,
``spec/`` and ``checks/`` has its row naming each of its modules, and every path the page names
exists."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import PROJECT_ROOT

PAGE = PROJECT_ROOT / "docs" / "architecture.md"
LAYERS = ("impl", "spec", "checks")
#: a backticked token that names a file or a folder (``impl/cluster.py``, ``jvm/*.scala``, ``cases/``)
PATHLIKE = re.compile(r"`([\w*./-]+(?:\.(?:py|json|toml|js|css|scala|md)|/))`")
#: one row of a module-map table: ``| `folder/` | modules |``
ROW = re.compile(r"^\| `((?:impl|spec|checks)/[\w/]*)` \| (.*) \|$", re.M)


def _map_rows() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Module map") :]
    section = section[: section.index("\n## ", 1)]
    rows: dict[str, str] = {}
    for folder, modules in ROW.findall(section):
        assert folder not in rows, f"{folder} has two rows in the module map"
        rows[folder] = modules
    return rows


def _exists(base: Path, name: str) -> bool:
    return any(base.glob(name.rstrip("/"))) if "*" in name else (base / name).exists()


def _packages() -> list[Path]:
    return sorted(init.parent for layer in LAYERS for init in (PROJECT_ROOT / layer).rglob("__init__.py"))


def test_every_package_folder_has_a_row() -> None:
    rows = _map_rows()
    missing = [p.relative_to(PROJECT_ROOT).as_posix() + "/" for p in _packages()]
    missing = [folder for folder in missing if folder not in rows]
    assert not missing, f"package folders missing from docs/architecture.md's module map: {missing}"


def test_every_module_is_named_in_its_folders_row() -> None:
    rows = _map_rows()
    unnamed = []
    for package in _packages():
        row = rows.get(package.relative_to(PROJECT_ROOT).as_posix() + "/", "")
        named = set(PATHLIKE.findall(row))
        unnamed += [
            module.relative_to(PROJECT_ROOT).as_posix()
            for module in sorted(package.glob("*.py"))
            if module.name != "__init__.py" and module.name not in named
        ]
    assert not unnamed, f"modules docs/architecture.md's module map does not name in their folder's row: {unnamed}"


def test_every_path_in_a_row_exists() -> None:
    wrong = [
        f"{folder}{name}"
        for folder, modules in _map_rows().items()
        for name in PATHLIKE.findall(modules)
        if not _exists(PROJECT_ROOT / folder, name)
    ]
    assert not (missing := [f for f in _map_rows() if not (PROJECT_ROOT / f).is_dir()]), f"no such folders: {missing}"
    assert not wrong, f"the module map names paths that do not exist: {wrong}"


def test_every_path_the_page_names_from_the_root_exists() -> None:
    named = PATHLIKE.findall(PAGE.read_text(encoding="utf-8"))
    roots = (*LAYERS, "tests", "docs", "benchmarks")
    wrong = [name for name in named if name.split("/")[0] in roots and not _exists(PROJECT_ROOT, name)]
    assert not wrong, f"docs/architecture.md names paths that do not exist: {wrong}"
