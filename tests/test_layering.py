"""The dependency direction is one way: checks -> spec -> impl (docs/architecture.md).

``impl`` imports neither ``spec`` nor ``checks``; ``spec`` does not import ``checks``. Checked
by reading every module's imports (absolute ``yarnspec.*`` and relative ones resolved).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import PROJECT_ROOT

FORBIDDEN = {"impl": ("spec", "checks"), "spec": ("checks",)}


def _imported_layers(path: Path, layer_root: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    depth_in_layer = len(path.relative_to(layer_root).parts) - 1
    found: set[str] = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                names = [node.module]
            elif node.level > depth_in_layer + 1:
                # a relative import climbing out of the layer: ``from ..x`` from impl/a.py
                names = ["yarnspec." + (node.module or "")]
        for name in names:
            parts = name.split(".")
            if parts[0] == "yarnspec" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_downwards(layer: str) -> None:
    offenders = []
    for path in sorted((PROJECT_ROOT / layer).rglob("*.py")):
        bad = _imported_layers(path, PROJECT_ROOT / layer) & set(FORBIDDEN[layer])
        if bad:
            offenders.append(f"{path.relative_to(PROJECT_ROOT)} imports {sorted(bad)}")
    assert offenders == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    """The test above can fail: absolute and climbing relative imports are both seen."""
    layer = tmp_path / "impl"
    (layer / "sub").mkdir(parents=True)
    absolute = layer / "a.py"
    absolute.write_text("from yarnspec.checks import cli\n", encoding="utf-8")
    climbing = layer / "sub" / "b.py"
    climbing.write_text("from ...spec import thing\nfrom ..resources import Resource\n", encoding="utf-8")
    assert _imported_layers(absolute, layer) == {"checks"}
    assert _imported_layers(climbing, layer) == {"spec"}
