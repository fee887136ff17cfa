"""Bad input never crashes, hangs or passes silently (issue 16).

A seeded campaign of mutated inputs per family (``fuzz.py``) runs through the real entry point
in-process; every outcome must be an answer or one named error line. Then each class of input
the issue lists is checked on its own, with the words of its message, and a few runs go
through a real process (a FIFO, strict UTF-8 output, ``conform /``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.outcome import CaseVerdict
from yarnspec.impl.input_files import shown_name

from .fuzz import EXAMPLES, GOOD, PROJECT_ROOT, case_seeds, generate, run_cli

SEED = 16
#: Inputs per family in CI (``python tests/bad_input/fuzz.py N`` runs bigger campaigns).
COUNTS = {"config": 100, "case": 150, "trace": 80, "argv": 100}
CLI = [sys.executable, "-c", "import sys; from yarnspec.checks.cli import main; sys.exit(main())"]


@pytest.mark.parametrize("family", sorted(COUNTS))
def test_every_mutated_input_is_an_answer_or_one_named_error(tmp_path: Path, family: str) -> None:
    refused = 0
    bad = []
    for argv, names in generate(family, COUNTS[family], SEED, tmp_path):
        outcome = run_cli(argv, names)
        refused += outcome.kind == "error" or outcome.detail.endswith("malformed case")
        if outcome.kind not in GOOD:
            bad.append(outcome)
    assert not bad, bad[:3]
    assert refused >= COUNTS[family] // 10  # the mutations do reach the checks


def _error(argv: list[str], path: Path | str) -> str:
    """The one error line of a run that must fail on ``path``."""
    outcome = run_cli(argv, (shown_name(path),))
    assert outcome.kind == "error", outcome
    return outcome.detail


def _conform_detail(path: Path) -> str:
    outcome = runner.run_one(path)
    assert outcome.verdict is CaseVerdict.FAIL and outcome.detail.startswith("malformed case:"), outcome
    return outcome.detail


@pytest.mark.parametrize("command", ["config", "replay", "conform"])
def test_paths_that_are_not_regular_files_say_what_they_are(tmp_path: Path, command: str) -> None:
    fifo, folder, dangling = tmp_path / "pipe.json", tmp_path / "dir.json", tmp_path / "gone.json"
    os.mkfifo(fifo)
    folder.mkdir()
    (folder / "x.txt").write_text("")
    dangling.symlink_to(tmp_path / "nowhere")
    for path, words in ((fifo, "is not a regular file (a named pipe)"), (dangling, "is a dangling link")):
        assert f"{path}: {words}" in _error([command, str(path)], path)
    if command != "conform":  # conform reads a folder as a folder of cases
        assert f"{folder}: is a directory, not a file" in _error([command, str(folder)], folder)
    long_name = tmp_path / ("x" * 5000)
    assert "the path is too long" in _error([command, str(long_name)], long_name)


def test_text_that_is_not_utf8_or_json_within_limits_is_a_malformed_case(tmp_path: Path) -> None:
    inputs = {
        "utf16.json": ('{"kind": 1}'.encode("utf-16"), "is UTF-16 text"),
        "bytes.json": (b'{"kind": "\xff"}', "is not UTF-8 text: byte 0xff at offset 10"),
        "deep.json": (b"[" * 100_000 + b"]" * 100_000, "JSON nested deeper than 100 levels"),
        "long.json": (b'{"n": ' + b"9" * 5000 + b"}", "an integer of 5,000 digits"),
        "nan.json": (b'{"n": NaN}', "NaN is not a JSON number"),
        "huge.json": (b'{"n": 1e999}', "too large for a double"),
    }
    for name, (content, words) in inputs.items():
        path = tmp_path / name
        path.write_bytes(content)
        assert words in _conform_detail(path), name
        assert words in _error(["replay", str(path)], path), name


def test_names_are_quoted_so_an_error_stays_one_line(tmp_path: Path) -> None:
    path = tmp_path / "two\nlines.xml"
    path.write_text("<configuration>")
    line = _error(["config", str(path)], path)
    assert "'" + str(tmp_path) in line and "two\\nlines.xml" in line


def test_an_unknown_xml_encoding_is_named(tmp_path: Path) -> None:
    path = tmp_path / "c.xml"
    path.write_text('<?xml version="1.0" encoding="klingon"?><configuration/>')
    assert "names an encoding Python does not know" in _error(["config", str(path)], path)


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["prove", "--bound", "\u0661,\u0662"], "--bound"),
        (["prove", "--bound", "\u00b2,2"], "--bound"),
        (["prove", "--timeout", "9" * 30], "--timeout"),
        (
            ["config", str(EXAMPLES / "capacity-scheduler.xml"), "--partition", "gpu=" + "9" * 5000 + ":1"],
            "--partition",
        ),
        (["explore", "async-double-commit", "--max-states", "\u0665"], "--max-states"),
        (["explore", "async-double-commit", "--simulate", "--seed", "1_0"], "--seed"),
    ],
)
def test_numbers_on_the_command_line_are_ascii_and_bounded(argv: list[str], option: str) -> None:
    assert f": {option}: expected " in _error(argv, option)


def _case(tmp_path: Path, name: str, case: dict[str, object]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return path


def _seed(kind_or_notation: str) -> dict[str, object]:
    return next(case for case in case_seeds() if kind_or_notation in (case.get("kind"), case.get("notation")))


def test_wrong_types_and_sizes_in_cases_are_malformed_not_unsupported(tmp_path: Path) -> None:
    qdata = _seed("qdata")
    rows = qdata["input"]["rows"]  # type: ignore[index]
    placement = _seed("placement")
    edits = {
        "kind-number": ({**placement, "kind": 3}, "kind: expected a name (a string), found an integer 3"),
        "notation-null": ({**qdata, "notation": None}, "notation: expected a name (a string), found null"),
        "apps-x": (_with(qdata, ("input", "rows", "apps", 0), "x"), "input.rows.apps[0]: expected an integer"),
        "apps-negative": (
            _with(qdata, ("input", "rows", "apps", 0), -5),
            "input.rows.apps[0]: expected an integer >= 0",
        ),
        "subqueues-huge": (
            _with(qdata, ("input", "rows", "subqueues", 0), 2**62),
            "input.rows.subqueues[0]: expected an integer <= ",
        ),
        "tasks-1e308": (
            _with(placement, ("input", "num_locality_aware_tasks"), 1e308),
            "expected an integer (a Java long)",
        ),
        "containers-2e31": (
            _with(placement, ("input", "num_containers"), 2**31),
            "must be 0..100,000 (the model's limit)",
        ),
    }
    assert len(rows["apps"]) > 1
    for name, (case, words) in edits.items():
        result = runner.run_one(_case(tmp_path, name, case))
        assert result.verdict is CaseVerdict.FAIL, (name, result)
        assert result.detail.startswith("malformed case:") and words in result.detail, (name, result.detail)


def _with(case: dict[str, object], path: tuple[object, ...], value: object) -> dict[str, object]:
    copy = json.loads(json.dumps(case))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return copy  # type: ignore[no-any-return]


def test_a_trace_with_absurd_sizes_is_refused_before_building(tmp_path: Path) -> None:
    trace = {
        "format": "yarnspec-trace",
        "version": 1,
        "model": "toy-allocate-release",
        "parameters": {"nodes": 1, "apps": 1_000_000, "capacity": 1},
        "variant": "correct",
        "kind": "invariant",
        "property": "p",
        "message": "m",
        "steps": [{"action": None, "state": 0}],
        "loop_start": None,
    }
    path = _case(tmp_path, "huge", trace)
    assert "parameters.apps: must be an integer <= 64 (the model's limit)" in _error(["replay", str(path)], path)


def _process(argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *argv], capture_output=True, text=True, timeout=120, cwd=PROJECT_ROOT, env={**os.environ, **env}
    )


def test_in_a_real_process_a_fifo_does_not_block_and_strict_utf8_output_does_not_crash(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)
    result = _process(["config", str(fifo)])
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "named pipe" in result.stderr
    raw = os.fsencode(tmp_path) + b"/caf\xe9.json"
    with open(raw, "wb") as stream:
        stream.write(b"{}")
    name = os.fsdecode(raw)
    for argv in (["replay", name], ["config", name]):
        result = _process(argv, PYTHONIOENCODING="utf-8:strict")
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert "caf\\udce9.json" in result.stderr


def test_conform_of_the_root_folder_stops_with_one_line() -> None:
    result = _process(["conform", "/"])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[-500:]
    assert "entries under this folder" in result.stderr or "no *.json case file" in result.stderr
