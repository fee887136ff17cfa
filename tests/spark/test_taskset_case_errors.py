"""The ``kind: taskset`` runner: malformed cases FAIL naming the place, unknown ops and fields
are UNSUPPORTED, expectations are really compared (order, derived keys, every offer order)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.outcome import CaseFormatError, CaseVerdict, ExpectationMismatch, Unsupported
from yarnspec.checks.conformance.spark_taskset import run_case

MANAGER_CASE: dict[str, Any] = {
    "id": "TaskSetManagerSuite.sample",
    "kind": "taskset",
    "input": {
        "scheduler": "FakeTaskScheduler",
        "executors": [["exec1", "host1"], ["exec2", "host2"]],
        "host_rack": {},
        "task_set": {
            "stage_id": 0,
            "stage_attempt_id": 0,
            "priority": 0,
            "tasks": [[{"kind": "host", "host": "host1"}], [], ["host2"]],
        },
        "conf": {"spark.locality.wait": "3s"},
        "max_task_failures": 4,
        "clock_start_ms": 0,
    },
    "steps": [
        {"op": "check", "args": {}, "expect": {"my_locality_levels": ["NODE_LOCAL", "NO_PREF", "ANY"]}},
        {
            "op": "resource_offer",
            "args": {"exec_id": "exec1", "host": "host1", "max_locality": "ANY"},
            "expect": {"task_index": 0, "derived": {"task_locality": "NODE_LOCAL"}},
        },
        {
            "op": "resource_offer",
            "args": {"exec_id": "exec1", "host": "host1", "max_locality": "NO_PREF"},
            "expect": {"task_index": 1, "task_locality": "PROCESS_LOCAL"},
        },
        {"op": "check", "args": {}, "expect": {"started_task_indices": [0, 1]}},
    ],
    "expect": {},
    "order_sensitive": True,
}

SCHEDULER_CASE: dict[str, Any] = {
    "id": "TaskSchedulerImplSuite.sample",
    "kind": "taskset",
    "input": {
        "scheduler": "TaskSchedulerImpl",
        "scheduling_mode": "FIFO",
        "conf": {"spark.locality.wait": "0"},
        "clock_start_ms": 0,
        "host_rack": {},
    },
    "steps": [
        {"op": "submit_task_set", "args": {"stage_id": 0, "stage_attempt_id": 0, "priority": 0, "tasks": [[], []]}},
        {
            "op": "scheduler_resource_offers",
            "args": {
                "offers": [{"exec_id": "e1", "host": "h1", "cores": 1}, {"exec_id": "e2", "host": "h2", "cores": 1}],
                "is_all_free_resources": True,
                "shuffle": "none",
            },
            "expect": {"num_tasks": 2, "executor_ids": ["e1", "e2"]},
        },
    ],
    "expect": {},
    "order_sensitive": True,
}


def edited(base: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``base`` with the value at a dotted path (list indices as numbers)
    replaced; the value ``DELETE`` removes the key."""
    case = copy.deepcopy(base)
    *parents, last = path.split(".")
    node: Any = case
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    key: Any = int(last) if isinstance(node, list) else last
    if value is DELETE:
        del node[key]
    else:
        node[key] = value
    return case


DELETE = object()


def test_the_sample_cases_pass() -> None:
    assert run_case(MANAGER_CASE) == []
    assert run_case(SCHEDULER_CASE) == []


@pytest.mark.parametrize(
    ("path", "value", "place", "fault"),
    [
        ("input.scheduler", "MyScheduler", "input.scheduler", "unknown scheduler"),
        ("input.scheduler", DELETE, "input.scheduler", "missing required field"),
        ("input.executors", [["exec1"]], "input.executors[0]", "expected [executor id, host]"),
        ("input.task_set.tasks.0.0.kind", "rack", "input.task_set.tasks[0][0].kind", "unknown location kind"),
        ("input.task_set.tasks.2.0", "executor_host2", "input.task_set.tasks[2][0]", "illegal executor location"),
        ("input.task_set.tasks", {}, "input.task_set.tasks", "expected a list"),
        ("input.conf", {"spark.locality.wait": "3 seconds"}, 'input.conf["spark.locality.wait"]', "cannot read"),
        ("input.max_task_failures", 0, "input.max_task_failures", ">= 1"),
        ("input.variant", "spark-9", "input.variant", "unknown variant"),
        ("steps.1.args.max_locality", "NEAR", "steps[1].args.max_locality", "unknown locality level 'NEAR'"),
        ("steps.1.args.exec_id", DELETE, "steps[1].args.exec_id", "missing required field"),
        ("steps.1.expect.task_index", "zero", "steps[1].expect.task_index", "expected an integer"),
        (
            "steps.0.expect.my_locality_levels",
            ["ANY", "FAR"],
            "steps[0].expect.my_locality_levels[1]",
            "unknown locality level",
        ),
        ("steps.1.op", 7, "steps[1].op", "expected a string"),
        ("steps.3.op", "handle_successful_task", "steps[3].args.task_id", "missing required field"),
        ("steps", {}, "steps", "expected a list"),
    ],
)
def test_malformed_manager_cases_name_the_place(path: str, value: Any, place: str, fault: str) -> None:
    with pytest.raises(CaseFormatError) as caught:
        run_case(edited(MANAGER_CASE, path, value))
    assert caught.value.place == place
    assert fault in caught.value.fault


def test_an_unknown_task_id_is_a_format_error() -> None:
    case = edited(MANAGER_CASE, "steps.3", {"op": "handle_successful_task", "args": {"task_id": 9}})
    with pytest.raises(CaseFormatError, match=r"steps\[3\]\.args\.task_id: no task with id 9"):
        run_case(case)


@pytest.mark.parametrize(
    ("path", "value", "place"),
    [
        ("steps.1.op", "teleport", "steps[1].op"),
        ("steps.1.args.cores", 2, "steps[1].args.cores"),
        ("steps.1.expect.colour", "blue", "steps[1].expect.colour"),
        ("steps.1.conditions", {"host_on_fire": True}, "steps[1].conditions.host_on_fire"),
        ("steps.1.flavour", "x", "steps[1].flavour"),
        ("input.conf", {"spark.dynamicAllocation.enabled": "true"}, 'input.conf["spark.dynamicAllocation.enabled"]'),
        ("input.task_set.weight", 2, "input.task_set.weight"),
    ],
)
def test_what_the_runner_cannot_read_is_unsupported(path: str, value: Any, place: str) -> None:
    with pytest.raises(Unsupported) as caught:
        run_case(edited(MANAGER_CASE, path, value))
    assert str(caught.value).startswith(place)


def test_failures_under_exclude_on_failure_are_unsupported() -> None:
    case = edited(MANAGER_CASE, "input.conf", {"spark.excludeOnFailure.enabled": True})
    case["steps"].append({"op": "handle_failed_task", "args": {"task_id": 0, "reason": {"type": "TaskResultLost"}}})
    with pytest.raises(Unsupported, match="excludeOnFailure"):
        run_case(case)


def test_a_wrong_expectation_fails_at_its_place() -> None:
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(edited(MANAGER_CASE, "steps.1.expect.task_index", 2))
    assert caught.value.place == "steps[1].expect.task_index"
    assert (caught.value.expected, caught.value.actual) == (2, 0)
    with pytest.raises(ExpectationMismatch, match=r"steps\[0\]\.expect\.my_locality_levels"):
        run_case(edited(MANAGER_CASE, "steps.0.expect.my_locality_levels", ["NODE_LOCAL", "ANY"]))


def test_order_sensitive_decides_how_lists_compare() -> None:
    swapped = edited(SCHEDULER_CASE, "steps.1.expect.executor_ids", ["e2", "e1"])
    with pytest.raises(ExpectationMismatch, match="executor_ids"):
        run_case(swapped)
    assert run_case(edited(swapped, "order_sensitive", False)) == []
    with pytest.raises(ExpectationMismatch, match="executor_ids"):
        run_case(edited(edited(swapped, "order_sensitive", False), "steps.1.expect.executor_ids", ["e1", "e1"]))


def test_derived_and_note_keys_only_warn() -> None:
    case = edited(MANAGER_CASE, "steps.1.expect.derived", {"task_locality": "ANY", "mystery": 1})
    case["steps"][1]["assertion_note"] = "prose"
    warnings = run_case(case)
    assert len(warnings) == 2
    assert "steps[1].expect.derived.task_locality" in warnings[0] and "explanatory" in warnings[0]
    assert "steps[1].expect.derived.mystery" in warnings[1]


def test_task_defined_only_asks_for_some_task() -> None:
    case = edited(MANAGER_CASE, "steps.1.expect", {"task_defined": True})
    assert run_case(case) == []
    with pytest.raises(ExpectationMismatch, match="task_defined"):
        run_case(edited(MANAGER_CASE, "steps.1.expect", {"task_defined": False}))


def test_a_random_shuffle_expectation_must_hold_for_every_offer_order() -> None:
    random_order = edited(SCHEDULER_CASE, "steps.1.args.shuffle", "random")
    # Two no-preference tasks on two one-core offers: the executors are always e1 and e2, but
    # which task index lands where depends on the order.
    assert run_case(edited(random_order, "order_sensitive", False)) == []
    with pytest.raises(ExpectationMismatch, match=r"offer order \['e2', 'e1'\]"):
        run_case(random_order)


def test_the_runner_reports_a_malformed_file_with_its_name(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(edited(MANAGER_CASE, "steps.1.args.max_locality", "NEAR")), encoding="utf-8")
    outcome = runner.run_one(path)
    assert outcome.verdict is CaseVerdict.FAIL
    assert str(path) in outcome.detail and "steps[1].args.max_locality" in outcome.detail
    path.write_text(json.dumps(edited(MANAGER_CASE, "steps.1.op", "teleport")), encoding="utf-8")
    outcome = runner.run_one(path)
    assert outcome.verdict is CaseVerdict.UNSUPPORTED and "unknown op 'teleport'" in outcome.detail


def test_task_location_strings_can_be_checked_on_their_own() -> None:
    def parse_case(location: str, expect: dict[str, Any]) -> dict[str, Any]:
        return {
            "kind": "taskset",
            "input": {"scheduler": "FakeTaskScheduler"},
            "steps": [{"op": "parse_task_location", "args": {"location": location}, "expect": expect}],
        }

    expect = {"kind": "executor", "host": "some.host1", "executor": "executor_task_3"}
    assert run_case(parse_case("executor_some.host1_executor_task_3", expect)) == []
    assert run_case(parse_case("hdfs_cache_host1", {"kind": "hdfs_cache", "host": "host1", "executor": None})) == []
    with pytest.raises(ExpectationMismatch, match=r"steps\[0\]\.expect\.host"):
        run_case(parse_case("executor_host1_3", {"kind": "executor", "host": "host3"}))
    with pytest.raises(CaseFormatError, match=r"steps\[0\]\.args\.location: 'executor_host1': illegal"):
        run_case(parse_case("executor_host1", {}))


def test_stage_names_of_launched_tasks() -> None:
    assert run_case(edited(SCHEDULER_CASE, "steps.1.expect", {"stage": "0.0", "stages": ["0.0", "0.0"]})) == []
    with pytest.raises(ExpectationMismatch, match="stage"):
        run_case(edited(SCHEDULER_CASE, "steps.1.expect", {"stage": "1.1"}))
    with pytest.raises(CaseFormatError, match="only a scheduler_resource_offers step"):
        run_case(edited(SCHEDULER_CASE, "steps.0.expect", {"stage": "0.0"}))
