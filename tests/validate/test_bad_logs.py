"""Issue 31: ``validate-trace`` logs that cannot have been checked are refused (never
"explained: all 0 steps"), and malformed ones are one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import cli

PLACEMENT_CALL = {
    "op": "locality_of_requested_containers",
    "input": {
        "num_containers": 1,
        "num_locality_aware_tasks": 1,
        "host_to_local_task_count": [["host1", 1]],
        "allocated_host_to_container_count": {},
        "locality_matched_pending_requests": [],
        "executor_cores": 1,
        "task_cpus": 1,
        "rack_resolver": {"*": "/default"},
    },
}


def _disagreement(calls: object) -> str:
    return json.dumps({"format": "yarnspec-disagreement/1", "contract": "spark-placement", "calls": calls})


@pytest.mark.parametrize(
    "contract, text, fault",
    [
        ("spark-placement", "", "the log has no decisions with an implementation's answer: nothing to check"),
        ("spark-placement", "\n\n", "the log has no decisions with an implementation's answer: nothing to check"),
        (
            "spark-dispatch",
            '{"op": "reset", "input": {}, "output": {}}\n',
            "the log has only session set-up (reset), whose answers are not compared: nothing to check",
        ),
        (
            "spark-placement",
            _disagreement([{**PLACEMENT_CALL, "reference": None, "implementation": None}]),
            "the log has no decisions with an implementation's answer: nothing to check",
        ),
        (
            "spark-placement",
            _disagreement([]),
            "the log has no decisions with an implementation's answer: nothing to check",
        ),
        ("spark-placement", _disagreement([1, 2]), "calls[0]: expected an object, found a JSON int"),
        ("spark-placement", _disagreement("x"), "calls: expected a list of calls"),
        (
            "spark-placement",
            _disagreement([{**PLACEMENT_CALL, "implementation": "x"}]),
            "calls[0].implementation: expected an object, found a JSON str",
        ),
        (
            "spark-placement",
            "1\n",
            "line 1: expected an object with 'op' (string) and 'input' (object), found a JSON int",
        ),
        (
            "spark-placement",
            '[{"op": "x"}]\n',
            "line 1: expected an object with 'op' (string) and 'input' (object), found a JSON list",
        ),
        (
            "spark-placement",
            json.dumps({**PLACEMENT_CALL, "output": {"nodes": [None], "n": 10**19}}) + "\n",
            "line 1.output: the output is refused: ['n']: an integer of 20 digits is beyond the model's range",
        ),
        (
            "spark-placement",
            json.dumps({**PLACEMENT_CALL, "output": {"nodes": "x"}}) + "\n",
            "line 1.output: the output breaks the protocol schema (placement_output) at ['nodes']",
        ),
        ("spark-placement", "[" * 5000 + "]" * 5000 + "\n", "line 1: JSON nested deeper than 100 levels"),
        (
            "spark-placement",
            '{"op": "x", "input": {}, "output": {"a": NaN}}\n',
            "line 1: not accepted as JSON input: NaN is not a JSON number",
        ),
    ],
)
def test_a_log_that_checks_nothing_or_is_malformed_is_refused_in_one_line(
    contract: str, text: str, fault: str, tmp_path: Path
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(text)
    status, out, err = cli("validate-trace", contract, str(path))
    assert (status, out) == (2, "")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"yarnspec: error: {path}: "), err
    assert fault in lines[0]


def test_a_fifo_as_the_log_is_refused_at_once(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "log.jsonl")
    status, _, err = cli("validate-trace", "spark-placement", str(tmp_path / "log.jsonl"))
    assert status == 2 and "is not a regular file (a named pipe)" in err


def test_a_log_with_one_real_decision_is_still_checked(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({**PLACEMENT_CALL, "output": {"nodes": [["host1"]]}}) + "\n")
    status, out, _ = cli("validate-trace", "spark-placement", str(path))
    assert (status, out.strip()) == (0, "explained: all 1 steps are a behaviour the spec allows")
