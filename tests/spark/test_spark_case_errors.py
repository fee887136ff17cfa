"""Malformed placement/allocator cases FAIL naming the place; unknown ops or fields are
UNSUPPORTED with a reason; explanatory keys only warn."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance.outcome import CaseVerdict
from yarnspec.checks.conformance.runner import run_one

ALLOCATOR: dict[str, Any] = {
    "id": "allocator-sample",
    "kind": "allocator",
    "input": {
        "initial_target_executors": 2,
        "executor_cores": 5,
        "executor_memory_mb": 2048,
        "container_resource_from_yarn": {"memory_mb": 3072, "vcores": 6},
        "rack_resolver": {"host3": "/rack2", "*": "/rack1"},
        "launch_containers": False,
    },
    "steps": [
        {"op": "update_resource_requests", "args": {}, "expect": {"num_containers_pending_allocate": 2}},
        {
            "op": "handle_allocated_containers",
            "args": {"containers": [{"id": "c1", "host": "host1"}]},
            "expect": {"num_executors_running": 1, "allocated_container_to_host": {"c1": "host1"}},
        },
        {
            "op": "process_completed_containers",
            "args": {"statuses": [{"container": "c1", "state": "COMPLETE", "exit_status": -1}]},
            "expect": {"num_executors_failed": 1, "derived": {"num_executors_running": 0}},
        },
    ],
    "expect": {},
    "order_sensitive": False,
}

PLACEMENT: dict[str, Any] = {
    "id": "placement-sample",
    "kind": "placement",
    "input": {
        "num_containers": 2,
        "num_locality_aware_tasks": 10,
        "host_to_local_task_count": [["a", 5], ["b", 5]],
        "allocated_host_to_container_count": {},
        "locality_matched_pending_requests": [],
        "executor_cores": 5,
        "task_cpus": 1,
        "rack_resolver": {"*": "/rack1"},
    },
    "steps": [],
    "expect": {"nodes": [["a", "b"], ["a", "b"]], "derived": {"locality_free_count": 0}},
    "order_sensitive": True,
}

HINTS: dict[str, Any] = {
    "id": "hints-sample",
    "kind": "placement",
    "input": {"stages": {"1": [[{"kind": "host", "host": "a"}], []]}},
    "steps": [
        {"op": "stage_submitted", "args": {"stage_id": 1}, "expect": {"num_locality_aware_tasks": 1}},
    ],
    "expect": {},
    "order_sensitive": False,
}


def run(tmp_path: Path, case: dict[str, Any]) -> tuple[CaseVerdict, str, tuple[str, ...]]:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    outcome = run_one(path)
    return outcome.verdict, outcome.detail, outcome.warnings


def edited(base: dict[str, Any], path: list[str | int], value: Any, delete: bool = False) -> dict[str, Any]:
    case = copy.deepcopy(base)
    target: Any = case
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return case


@pytest.mark.parametrize("base", [ALLOCATOR, PLACEMENT, HINTS], ids=["allocator", "placement", "hints"])
def test_the_samples_pass(tmp_path: Path, base: dict[str, Any]) -> None:
    verdict, detail, _ = run(tmp_path, base)
    assert verdict is CaseVerdict.PASS, detail


@pytest.mark.parametrize(
    ("base", "path", "value", "delete", "place"),
    [
        (ALLOCATOR, ["input", "initial_target_executors"], -1, False, "input.initial_target_executors: must be >= 0"),
        (
            ALLOCATOR,
            ["input", "initial_target_executors"],
            None,
            True,
            "input: missing required field 'initial_target_executors'",
        ),
        (
            ALLOCATOR,
            ["steps", 1, "args", "containers", 0, "host"],
            None,
            True,
            "steps[1].args.containers[0]: missing required field 'host'",
        ),
        (ALLOCATOR, ["steps", 1, "args", "containers"], "c1", False, "steps[1].args.containers: expected an array"),
        (
            ALLOCATOR,
            ["steps", 2, "args", "statuses", 0, "exit_status"],
            "-1",
            False,
            "steps[2].args.statuses[0].exit_status: expected an integer",
        ),
        (
            ALLOCATOR,
            ["steps", 2, "args", "statuses", 0, "exit_status_name"],
            "SUCCESS",
            False,
            "steps[2].args.statuses[0].exit_status_name",
        ),
        (
            ALLOCATOR,
            ["input", "conf"],
            {"spark.excludeOnFailure.timeout": "soon"},
            False,
            "input.conf.spark.excludeOnFailure.timeout",
        ),
        (
            ALLOCATOR,
            ["input", "conf"],
            {"spark.yarn.executor.launch.excludeOnFailure.enabled": "yes"},
            False,
            "excludeOnFailure.enabled: expected true or false",
        ),
        (ALLOCATOR, ["input", "exit_status_names"], {"PREEMPTED": -1}, False, "input.exit_status_names.PREEMPTED"),
        (ALLOCATOR, ["input", "executor_cores"], 0, False, "input.executor_cores: must be >= 1"),
        (ALLOCATOR, ["steps", 0, "op"], 7, False, "steps[0].op: expected a string"),
        (ALLOCATOR, ["steps"], [], False, "steps: an allocator case needs at least one step"),
        (PLACEMENT, ["input", "num_containers"], "2", False, "input.num_containers: expected an integer"),
        (
            PLACEMENT,
            ["input", "host_to_local_task_count", 1],
            ["b"],
            False,
            "input.host_to_local_task_count[1]: expected a [host, count] pair",
        ),
        (
            PLACEMENT,
            ["input", "host_to_local_task_count", 1],
            ["a", 3],
            False,
            "input.host_to_local_task_count[1][0]: host 'a' appears twice",
        ),
        (PLACEMENT, ["input", "task_cpus"], 9, False, "input.executor_cores"),
        (
            PLACEMENT,
            ["input", "locality_matched_pending_requests"],
            [{"nodes": []}],
            False,
            "locality_matched_pending_requests[0].nodes",
        ),
        (HINTS, ["steps", 0, "args", "stage_id"], 3, False, "steps[0].args.stage_id: stage 3 is not listed"),
        (HINTS, ["input", "stages", "1", 0, 0, "kind"], "rack", False, "input.stages.1[0][0]: 'kind' must be one of"),
    ],
)
def test_malformed_cases_fail_naming_the_place(
    tmp_path: Path, base: dict[str, Any], path: list[str | int], value: Any, delete: bool, place: str
) -> None:
    verdict, detail, _ = run(tmp_path, edited(base, path, value, delete))
    assert verdict is CaseVerdict.FAIL
    assert detail.startswith("malformed case:"), detail
    assert place in detail, detail
    assert "Traceback" not in detail


def test_a_launch_callback_for_a_container_not_launching_fails_with_its_place(tmp_path: Path) -> None:
    case = copy.deepcopy(ALLOCATOR)
    case["steps"].append({"op": "late_launch_callback", "args": {"container": "c9"}})
    verdict, detail, _ = run(tmp_path, case)
    assert verdict is CaseVerdict.FAIL and "steps[3].args" in detail and "no executor launch" in detail


@pytest.mark.parametrize(
    ("base", "path", "value", "reason"),
    [
        (ALLOCATOR, ["steps", 0, "op"], "allocate_everything", "op 'allocate_everything' is not interpreted"),
        (ALLOCATOR, ["steps", 0, "expect"], {"num_widgets": 3}, "field 'num_widgets' is not interpreted"),
        (
            ALLOCATOR,
            ["input", "conf"],
            {"spark.dynamicAllocation.enabled": "true"},
            "'spark.dynamicAllocation.enabled'",
        ),
        (ALLOCATOR, ["steps", 2, "args", "statuses", 0, "state"], "RUNNING", "only COMPLETE statuses"),
        (PLACEMENT, ["input", "gpu_per_task"], 1, "'gpu_per_task' is not interpreted"),
        (PLACEMENT, ["expect"], {}, "nothing to check: expect has no 'nodes'"),
        (HINTS, ["steps", 0, "op"], "task_end", "op 'task_end' is not interpreted"),
    ],
)
def test_uninterpretable_cases_are_unsupported(
    tmp_path: Path, base: dict[str, Any], path: list[str | int], value: Any, reason: str
) -> None:
    verdict, detail, _ = run(tmp_path, edited(base, path, value))
    assert verdict is CaseVerdict.UNSUPPORTED
    assert reason in detail, detail


def test_an_upstream_mismatch_fails_at_the_first_differing_place(tmp_path: Path) -> None:
    verdict, detail, _ = run(tmp_path, edited(PLACEMENT, ["expect", "nodes", 1], ["b", "a"]))
    assert verdict is CaseVerdict.FAIL and detail.startswith("expect.nodes[1]")
    verdict, detail, _ = run(tmp_path, edited(ALLOCATOR, ["steps", 2, "expect", "num_executors_failed"], 0))
    assert verdict is CaseVerdict.FAIL and detail.startswith("steps[2].expect.num_executors_failed")


def test_order_insensitive_cases_compare_lists_as_multisets(tmp_path: Path) -> None:
    case = edited(PLACEMENT, ["expect", "nodes"], [["b", "a"], ["a", "b"]])
    assert run(tmp_path, case)[0] is CaseVerdict.FAIL
    case["order_sensitive"] = False
    assert run(tmp_path, case)[0] is CaseVerdict.PASS


def test_a_derived_mismatch_only_warns(tmp_path: Path) -> None:
    verdict, _, warnings = run(tmp_path, edited(PLACEMENT, ["expect", "derived", "locality_free_count"], 5))
    assert verdict is CaseVerdict.PASS
    assert any("expect.derived.locality_free_count" in w for w in warnings)
    verdict, _, warnings = run(
        tmp_path, edited(ALLOCATOR, ["steps", 2, "expect", "derived"], {"num_executors_running": 4})
    )
    assert verdict is CaseVerdict.PASS and any("num_executors_running" in w for w in warnings)


def test_notes_and_comments_are_ignored(tmp_path: Path) -> None:
    case = edited(ALLOCATOR, ["steps", 0, "expect", "count_note"], "anything")
    case["input"]["comment"] = "also ignored"
    assert run(tmp_path, case)[0] is CaseVerdict.PASS


def test_an_allocator_setup_that_disagrees_with_the_map_warns(tmp_path: Path) -> None:
    setup = {"initial_target_executors": 2, "allocated_container_hosts": ["a", "a"]}
    case = edited(PLACEMENT, ["input", "allocator_setup"], setup)
    verdict, _, warnings = run(tmp_path, case)
    assert verdict is CaseVerdict.PASS and any("replaying the setup" in w for w in warnings)
    case["input"]["allocated_host_to_container_count"] = {"a": 2}
    case["expect"] = {"result_length": 2}
    assert run(tmp_path, case)[2] == ()


def test_the_cli_prints_one_line_without_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(edited(ALLOCATOR, ["input", "executor_cores"], "five")), encoding="utf-8")
    cli = Path(sys.executable).with_name("yarnspec")
    result = subprocess.run([str(cli), "conform", str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr
    assert "input.executor_cores: expected an integer" in result.stdout


def test_the_whole_host_map_can_be_asserted(tmp_path: Path) -> None:
    case = edited(ALLOCATOR, ["steps", 1, "expect", "allocated_host_to_containers"], {"host1": ["c1"]})
    assert run(tmp_path, case)[0] is CaseVerdict.PASS
    case = edited(ALLOCATOR, ["steps", 1, "expect", "allocated_host_to_containers"], {"host1": ["c1"], "host4": []})
    verdict, detail, _ = run(tmp_path, case)
    assert verdict is CaseVerdict.FAIL and detail.startswith("steps[1].expect.allocated_host_to_containers")
