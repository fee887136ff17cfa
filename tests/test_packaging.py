"""Every sub-package under impl/, spec/ and checks/ is listed in pyproject.toml, so a
non-editable install ships it too."""

from __future__ import annotations

import tomllib

from .conftest import PROJECT_ROOT


def test_every_subpackage_is_listed() -> None:
    config = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    mapping = config["tool"]["setuptools"]["package-dir"]
    on_disk = set()
    for package, folder in mapping.items():
        root = PROJECT_ROOT / folder
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root).parts
            on_disk.add(".".join((package, *relative)))
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages"
