"""The ``yarnspec`` command: argument errors are one line and exit 2; ``check`` prints a table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yarnspec.checks.cli import main
from yarnspec.spec.worlds.catalogue import SCENARIOS

from .conftest import CONFORMANCE_DIR, PROJECT_ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "yarnspec.checks.cli", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    "args, fragment",
    [
        ((), "required: command"),
        (("frobnicate",), "invalid choice"),
        (("conform",), "give case files or folders"),
        (("conform", "/no/such/place"), "/no/such/place: no such file"),
        (("check", "--conformance"), "expected one argument"),
        (("check", "--examples", "0"), "argument --examples: expected a whole number >= 1, got 0"),
        (("check", "--examples", "many"), "argument --examples: expected a whole number, got 'many'"),
        # a sub-command whose module is imported only when it is named
        (("explore", "--bogus"), "unrecognized arguments: --bogus"),
        (("explore", "no-leak", "--max-depth", "x"), "--max-depth: expected a whole number, got 'x'"),
        (("prove", "--bound", "x"), "prove: --bound: expected two whole numbers"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: tuple[str, ...], fragment: str) -> None:
    result = _run(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("yarnspec: error:")
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr


def test_check_with_missing_conformance_folder_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["check", "--conformance", str(tmp_path / "nowhere")])
    assert status == 2
    assert "conformance folder not found" in capsys.readouterr().err


def test_check_prints_one_row_per_suite_and_a_closing_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check", "--conformance", str(CONFORMANCE_DIR), "--examples", "30"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["suite", "kind", "total", "passed"]
    suites = [line.split()[0] for line in out[2:] if line.startswith(("conformance/", "properties/"))]
    assert "conformance/hadoop-preemption" in suites
    assert "conformance/spark-locality" in suites
    closing = out[-1].split()
    assert closing[1:] == ["passed,", closing[2], "failed,", closing[4], "unsupported"]
    assert status == (1 if int(closing[2]) else 0)
    # every scenario variant has its own line: scenario, variant, property, expected, verdict
    start = out.index("scenario variants (fast bounds):")
    assert out[start + 1].split()[:5] == ["scenario", "variant", "property", "expected", "verdict"]
    listed = {tuple(line.split()[:2]) for line in out[start + 3 : -1] if line.strip()}
    assert listed == {(s.name, v.name) for s in SCENARIOS.values() for v in s.variants}


def test_check_json_is_one_document(capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", "--conformance", str(CONFORMANCE_DIR), "--examples", "30", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert {row["suite"] for row in document["suites"]} >= {
        "conformance/hadoop-preemption",
        "conformance/spark-locality",
    }
    for row in document["suites"]:
        assert row["passed"] + row["failed"] + row["unsupported"] == row["total"]
        if row["suite"].startswith("scenario/"):
            assert len(row["variants"]) == row["total"]
            assert {v["variant"] for v in row["variants"]} == {v.name for v in SCENARIOS[row["suite"][9:]].variants}


def test_a_closed_pipe_is_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """``yarnspec ... | head -1`` stops quietly with 141 (regression: it raised BrokenPipeError)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    closed_pipe = open(write_end, "w", buffering=1)
    monkeypatch.setattr(sys, "stdout", closed_pipe)
    try:
        assert main(["conform", str(CONFORMANCE_DIR)]) == 141
    finally:
        monkeypatch.undo()
        closed_pipe.close()


def test_a_property_row_counts_violated_as_failed_and_unchecked_as_unsupported() -> None:
    from yarnspec.checks.commands.check import PropertyTally, _property_suite

    tallies = [
        PropertyTally("holds", checked=5, violated=0),
        PropertyTally("broken", checked=5, violated=2, counterexample="scenario_at(0, 3)\nmore"),
        PropertyTally("vacuous", checked=0, violated=0),
    ]
    row = _property_suite("properties/x", lambda args: tallies).run(None)  # type: ignore[arg-type]
    assert (row.total, row.passed, row.failed, row.unsupported) == (3, 1, 1, 1)
    assert "broken violated: scenario_at(0, 3)" in row.note
    assert "vacuous never checked" in row.note


@pytest.mark.parametrize(
    "args",
    [
        ("conform", "docs/examples/cases"),
        ("config", "docs/examples/capacity-scheduler.xml", "docs/examples/yarn-site.xml"),
        ("explore", "--list"),
        ("replay", "docs/examples/traces/async-double-commit-pre-8127.json"),
        ("show", "docs/examples/traces/async-double-commit-pre-8127.json"),
        ("prove", "--list"),
    ],
)
def test_every_json_output_is_one_document(args: tuple[str, ...]) -> None:
    result = _run(*(str(PROJECT_ROOT / a) if a.startswith("docs/") else a for a in args), "--json")
    assert result.returncode in (0, 1), result.stderr  # the example cases include failing ones
    decoder = json.JSONDecoder()
    document, end = decoder.raw_decode(result.stdout)
    assert isinstance(document, dict) and result.stdout[end:].strip() == ""
