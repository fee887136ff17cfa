"""The built wheel stands alone: built from a copy of the sources, installed into a fresh
virtual environment, ``yarnspec`` runs from an unrelated folder. ``check`` runs every suite it
can (a few examples each, to stay quick) and reports the conformance families, whose cases the
wheel does not ship, as not run with how to point it at cases; ``--version`` answers; the
package carries ``py.typed`` and the viewer's script; ``show --html`` works from the wheel.

The fresh environment gets yarnspec's dependencies from the test environment (a ``.pth`` line
naming its site-packages, which does not run that folder's own ``.pth`` files, so the editable
install of the checkout stays out), so the test needs no network; it checks that ``yarnspec``
is imported from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "impl", "spec", "checks")


def _run(command: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("YARNSPEC_CONFORMANCE", "PYTHONPATH")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The fresh environment's ``bin`` folder and an unrelated working folder."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    source.mkdir()
    for name in SOURCES:
        item = PROJECT_ROOT / name
        if item.is_dir():
            shutil.copytree(item, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(item, source / name)
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"), str(source)], root)
    assert built.returncode == 0, built.stderr
    (wheel,) = (root / "dist").glob("yarnspec-*.whl")
    venv = root / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], root)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    put = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        root,
    )
    assert put.returncode == 0, put.stderr
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root).stdout.strip()
    (Path(site) / "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return venv / "bin", elsewhere


def test_yarnspec_comes_from_the_wheel_with_its_types_and_viewer(installed: tuple[Path, Path]) -> None:
    bin_dir, elsewhere = installed
    code = "import yarnspec.checks, yarnspec.impl, yarnspec.spec, yarnspec.checks.render as r; print(yarnspec.checks.__file__); print(r.__file__)"
    found = _run([str(bin_dir / "python"), "-c", code], elsewhere)
    assert found.returncode == 0, found.stderr
    checks_init, render_init = (Path(line) for line in found.stdout.split())
    assert str(bin_dir.parent) in str(checks_init)
    for package in ("impl", "spec", "checks"):
        assert (checks_init.parent.parent / package / "py.typed").is_file()
    assert (render_init.parent / "viewer.js").is_file() and (render_init.parent / "viewer.css").is_file()
    version = _run([str(bin_dir / "yarnspec"), "--version"], elsewhere)
    assert version.returncode == 0 and version.stdout.strip() == "yarnspec 0.1.0"


def test_show_writes_the_viewer_from_the_wheel(installed: tuple[Path, Path]) -> None:
    bin_dir, elsewhere = installed
    yarnspec = str(bin_dir / "yarnspec")
    explored = _run(
        [yarnspec, "explore", "big-container-reserved", "--trace-out", "t.json", "--html", "t.html"], elsewhere
    )
    assert explored.returncode == 0, explored.stderr
    page = (elsewhere / "t.html").read_text(encoding="utf-8")
    assert 'id="trace-data"' in page and "function drawNodes" in page


def test_check_runs_every_suite_it_can_from_an_unrelated_folder(installed: tuple[Path, Path]) -> None:
    bin_dir, elsewhere = installed
    result = _run([str(bin_dir / "yarnspec"), "check", "--examples", "1", "--json"], elsewhere)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    families = ["conformance/hadoop-preemption", "conformance/spark-locality"]
    assert document["not_run"] == families and document["failed"] == 0
    rows = {row["suite"]: row for row in document["suites"]}
    for family in families:
        assert rows[family]["not_run"] and "--conformance PATH" in rows[family]["note"]
    ran = [row for row in rows.values() if not row["not_run"]]
    assert {row["suite"].split("/")[0] for row in ran} == {"conformance", "properties", "scenario", "proofs"}
    # the intra-queue cases ship inside the wheel, so they run from any folder
    for family in ("hadoop-preemption", "hadoop-preemption-fair-share"):
        shipped = rows[f"conformance/{family} (shipped)"]
        assert shipped["passed"] == shipped["total"] > 0
    # the lazy-preemption MockRM cases run on the scheduler model: three pass, three are
    # UNSUPPORTED by design (locality the model lacks, a method upstream ignores)
    lazy = rows["conformance/hadoop-lazy-preemption (shipped)"]
    assert (lazy["total"], lazy["passed"], lazy["failed"], lazy["unsupported"]) == (6, 3, 0, 3)
    assert all(row["total"] > 0 and row["passed"] > 0 for row in ran)


def test_the_shipped_world_files_print_and_run_as_copies(installed: tuple[Path, Path]) -> None:
    """The built-in scenarios are world files inside the wheel: listed with where they are,
    printed, and a printed copy explores like the built-in."""
    bin_dir, elsewhere = installed
    yarnspec = str(bin_dir / "yarnspec")
    listed = _run([yarnspec, "explore", "--list", "no-leak"], elsewhere)
    assert listed.returncode == 0 and "  from: yarnspec/spec/worlds/no-leak.toml" in listed.stdout, listed.stderr
    printed = _run([yarnspec, "explore", "big-container-livelock", "--print-world"], elsewhere)
    assert printed.returncode == 0 and printed.stdout.startswith("# A built-in scenario of yarnspec"), printed.stderr
    (elsewhere / "copy.toml").write_text(printed.stdout, encoding="utf-8")
    copied = _run([yarnspec, "explore", "--world", "copy.toml", "--variant", "pre-4280", "--json"], elsewhere)
    assert copied.returncode == 0, copied.stderr
    assert json.loads(copied.stdout)["distinct_states"] == 610
