"""Issue 12, item 8: the spark-locality runners read every key that
``../shared/conformance/README.md`` lists for the family.

The case files under ``spark_vocabulary/`` are our own (not copies of shared cases): each uses
keys that no shared case uses, and must PASS; each mutation below changes one of those keys'
values and must FAIL, so the key is really compared. A last test reads the README's
vocabulary tables and checks that every taskset op and expectation key has a reader.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.outcome import CaseVerdict
from yarnspec.checks.conformance.spark_taskset_case import INPUT_KEYS
from yarnspec.checks.conformance.spark_taskset_expectations import EXPECTATIONS
from yarnspec.checks.conformance.spark_taskset_replay import OPS

from ..conftest import CONFORMANCE_DIR

CASES = Path(__file__).parent / "spark_vocabulary"
CASE_FILES = sorted(CASES.glob("*.json"))


@pytest.mark.parametrize("path", CASE_FILES, ids=[p.stem for p in CASE_FILES])
def test_vocabulary_case_passes(path: Path) -> None:
    outcome = runner.run_one(path)
    assert outcome.verdict is CaseVerdict.PASS, outcome.detail


def _load(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _run(case: dict[str, Any], tmp_path: Path) -> tuple[CaseVerdict, str]:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    outcome = runner.run_one(path)
    return outcome.verdict, outcome.detail


Mutation = Callable[[dict[str, Any]], None]


def _set(step: int, key: str, value: Any, where: str = "expect") -> Mutation:
    def mutate(case: dict[str, Any]) -> None:
        case["steps"][step][where][key] = value

    return mutate


def _top(key: str, value: Any) -> Mutation:
    def mutate(case: dict[str, Any]) -> None:
        case["expect"][key] = value

    return mutate


RACKS = "taskset-rack-calls-and-current-level"
FAIR = "taskset-fair-default-pool-levels-of"
PARSE = "taskset-parse-locations"
ALLOC = "allocator-late-launch-and-validity"

MUTATIONS: list[tuple[str, str, Mutation, str]] = [
    (RACKS, "batch calls", _set(0, "rack_resolution_batch_calls", 2), "rack_resolution_batch_calls"),
    (RACKS, "single calls", _set(1, "rack_resolution_single_calls", 0), "rack_resolution_single_calls"),
    (RACKS, "current level", _set(0, "current_locality_level", "ANY"), "current_locality_level"),
    (
        RACKS,
        "live executors exactly",
        _set(0, "executors_alive_on_host", {"host0": ["exec0", "exec4"]}),
        "executors_alive_on_host",
    ),
    (
        RACKS,
        "no executors is null",
        _set(0, "executors_alive_on_host", {"host9": ["exec0"]}),
        "executors_alive_on_host",
    ),
    (RACKS, "task stage of an offer", _set(1, "task_stage", "3.0"), "task_stage"),
    (RACKS, "no task, no stage", _set(5, "task_stage", "3.1"), "task_stage"),
    (FAIR, "task stage of a round", _set(3, "task_stage", "2.0"), "task_stage"),
    (
        FAIR,
        "levels of a set",
        _set(4, "locality_levels_of", {"stage": 2, "levels_as_set": ["ANY"]}),
        "locality_levels_of",
    ),
    (
        FAIR,
        "levels of a set by attempt",
        _set(3, "locality_levels_of", [{"stage": "2.0", "levels_as_set": ["NODE_LOCAL", "ANY"]}]),
        "locality_levels_of",
    ),
    (PARSE, "parsed locations", _top("parsed", [{"kind": "host", "host": "host1"}]), "parsed"),
    (ALLOC, "containers not allocated", _set(4, "containers_not_allocated", ["c1"]), "containers_not_allocated"),
    (ALLOC, "hosts not allocated", _set(3, "hosts_not_allocated", ["host2"]), "hosts_not_allocated"),
    (ALLOC, "failures validity", _set(6, "num_executors_failed", 1), "num_executors_failed"),
]


@pytest.mark.parametrize(("name", "what", "mutate", "key"), MUTATIONS, ids=[m[1] for m in MUTATIONS])
def test_a_wrong_value_fails_naming_its_key(name: str, what: str, mutate: Mutation, key: str, tmp_path: Path) -> None:
    case = copy.deepcopy(_load(name))
    mutate(case)
    verdict, detail = _run(case, tmp_path)
    assert verdict is CaseVerdict.FAIL and key in detail, detail


def test_late_launch_naming_two_different_launches_is_a_case_fault(tmp_path: Path) -> None:
    case = _load(ALLOC)
    case["steps"][2]["args"] = {"container": "c2", "executor_id": "1"}
    verdict, detail = _run(case, tmp_path)
    assert verdict is CaseVerdict.FAIL and "malformed case" in detail and "not 'c2'" in detail


def test_late_launch_needs_a_container_or_an_executor(tmp_path: Path) -> None:
    case = _load(ALLOC)
    case["steps"][2]["args"] = {}
    verdict, detail = _run(case, tmp_path)
    assert verdict is CaseVerdict.FAIL and "give 'container', 'executor_id' or both" in detail


def test_validity_interval_must_agree_with_the_conf_key(tmp_path: Path) -> None:
    case = _load(ALLOC)
    case["input"]["conf"] = {"spark.executor.failuresValidityInterval": "2s"}
    verdict, detail = _run(case, tmp_path)
    assert verdict is CaseVerdict.FAIL and "failures_validity_interval_ms" in detail


def test_an_unknown_scheduling_mode_is_a_case_fault(tmp_path: Path) -> None:
    case = _load(FAIR)
    case["input"]["scheduling_mode"] = "LIFO"
    verdict, detail = _run(case, tmp_path)
    assert verdict is CaseVerdict.FAIL and "input.scheduling_mode" in detail


def _vocabulary_row(kind: str, header: str) -> str:
    """The README's row for ``kind`` in the table whose header names ``header``."""
    text = (CONFORMANCE_DIR / "README.md").read_text(encoding="utf-8")
    table = text[text.index(f"| kind | {header}") :]
    row = re.search(rf"^\| `{kind}` \| (.*) \|$", table, re.MULTILINE)
    assert row is not None, f"no {kind} row under {header!r}"
    return row.group(1)


def test_every_documented_taskset_op_and_expectation_has_a_reader() -> None:
    ops = re.findall(r"`([a-z_]+) \{", _vocabulary_row("taskset", "step ops"))
    assert len(ops) >= 15
    assert set(ops) <= set(OPS)
    keys = [
        k.split(" ")[0]
        for k in re.findall(r"`([a-z_]+(?: \{[^}]*\})?)`", _vocabulary_row("taskset", "expectation keys"))
    ]
    assert len(keys) >= 25
    assert set(keys) - {"stage", "levels_as_set"} <= set(EXPECTATIONS)
    inputs = re.findall(r"`([a-z_]+)`", _vocabulary_row("taskset", "keys under `input`"))
    for key in inputs:
        if key not in ("kind", "host", "executor", "expect", "parsed"):
            assert key in INPUT_KEYS, key
