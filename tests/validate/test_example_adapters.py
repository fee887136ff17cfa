"""The adapters the docs ship in other languages compile and agree with the spec, through the
same command as a Python adapter: Java (node-sorting), Go (spark-placement). JavaScript's is
run by the guide's console block (docs/validating.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .helpers import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _tool(name: str) -> str:
    found = shutil.which(name)
    assert found is not None, f"{name} is not installed (the README's test command installs it)"
    return found


def _agrees(contract: str, impl: str, examples: int, tmp_path: Path) -> str:
    status, out, err = cli(
        "validate", contract, "--impl", impl, "--examples", str(examples), "--out", str(tmp_path / "out")
    )
    assert (status, err) == (0, ""), out
    assert "RESULT: agrees with the spec" in out
    return out


def test_the_java_node_sorting_adapter_compiles_and_agrees(tmp_path: Path) -> None:
    subprocess.run(
        [_tool("javac"), "-d", str(tmp_path), str(EXAMPLES / "NodeSortingAdapter.java")], check=True, timeout=300
    )
    out = _agrees("node-sorting", f"process:{_tool('java')} -cp {tmp_path} NodeSortingAdapter", 200, tmp_path)
    assert "differential  200 examples: agree" in out


def test_the_go_placement_adapter_builds_and_agrees(tmp_path: Path) -> None:
    binary = tmp_path / "placement-adapter"
    env = {**os.environ, "GOCACHE": str(tmp_path / "go-cache"), "GOPATH": str(tmp_path / "go-path")}
    subprocess.run(
        [_tool("go"), "build", "-o", str(binary), str(EXAMPLES / "placement_adapter.go")],
        check=True,
        timeout=600,
        env=env,
    )
    out = _agrees("spark-placement", f"process:{binary}", 300, tmp_path)
    assert "differential  300 examples: agree" in out


def test_a_broken_java_adapter_is_caught(tmp_path: Path) -> None:
    """The test above could not pass with an adapter that sorts wrongly: the same source with
    the port compared as text disagrees."""
    source = (EXAMPLES / "NodeSortingAdapter.java").read_text(encoding="utf-8")
    broken = source.replace(".thenComparingLong(Node::port)", ".thenComparing(n -> String.valueOf(n.port()))")
    assert broken != source
    (tmp_path / "NodeSortingAdapter.java").write_text(broken, encoding="utf-8")
    subprocess.run(
        [_tool("javac"), "-d", str(tmp_path), str(tmp_path / "NodeSortingAdapter.java")], check=True, timeout=300
    )
    status, out, _ = cli(
        "validate",
        "node-sorting",
        "--impl",
        f"process:{_tool('java')} -cp {tmp_path} NodeSortingAdapter",
        "--examples",
        "200",
        "--out",
        str(tmp_path / "out"),
    )
    assert status == 1 and "DISAGREEMENT [differential]" in out
