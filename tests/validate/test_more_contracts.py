"""The candidate-selector, node-sorting and scheduler contracts: their reference adapters, their
invariants (each shown to catch a wrong answer), the scheduler's world descriptions, walks and
explorer trace, and ``validate-trace`` on a scheduler log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yarnspec.checks.validate.engine import reference_adapter, replay
from yarnspec.checks.validate.families.scheduler import leak_trace, simulate
from yarnspec.checks.validate.reference import NodeSorting, RefusedInput, Scheduler
from yarnspec.spec.contracts import candidate_selector, contract_named, node_sorting, scheduler
from yarnspec.spec.contracts.call import Answer, Call

from .helpers import cli


def _node(node_id: str, memory: int = 0, vcores: int = 0) -> dict[str, object]:
    return {"node_id": node_id, "allocated_memory": memory, "allocated_vcores": vcores}


def test_node_sorting_breaks_ties_as_hadoops_node_id_does() -> None:
    """Least allocated first; ties by host (case-sensitive, as Java compares strings), then
    the port as a number (9 before 10)."""
    nodes = [_node("host1:10"), _node("host1:9"), _node("Host3:9"), _node("a:1", 1024)]
    assert NodeSorting().sort_nodes({"nodes": nodes}) == {"order": ["Host3:9", "host1:9", "host1:10", "a:1"]}


def test_node_sorting_refuses_duplicate_ids() -> None:
    with pytest.raises(RefusedInput, match="not unique"):
        NodeSorting().sort_nodes({"nodes": [_node("h:1"), _node("h:1", 5)]})


def test_node_sorting_invariants_catch_a_lost_node_and_a_wrong_order() -> None:
    call = Call(node_sorting.OP, {"nodes": [_node("a:1", 2048), _node("b:1", 1024)]})
    assert node_sorting.invariants([call], [Answer({"order": ["b:1", "a:1"]})]) == []
    assert "not a permutation" in node_sorting.invariants([call], [Answer({"order": ["b:1"]})])[0]
    assert (
        "comes after a node with more allocated"
        in node_sorting.invariants([call], [Answer({"order": ["a:1", "b:1"]})])[0]
    )


def test_selector_invariants_catch_a_container_twice_and_a_malformed_id() -> None:
    call = Call(candidate_selector.OP, {})
    assert candidate_selector.invariants([call], [Answer({"selected": ["container_1_2"]})]) == []
    found = candidate_selector.invariants([call], [Answer({"selected": ["container_1_2", "container_1_2", "c3"]})])
    assert [line.split(":")[1].strip() for line in found] == ["chosen twice", "not container ids"]


def _observation(
    used: list[int], free: list[int], root: list[int], a: list[int], reserved: int = -1
) -> dict[str, object]:
    return {
        "nodes": {"n0": {"used": used, "free": free, "reserved": reserved}},
        "queues": {"root": {"": root}, "root.a": {"": a}},
        "apps": {"app0": 1},
    }


def test_scheduler_invariants_catch_each_broken_observation() -> None:
    calls = [
        Call(scheduler.RESET, {"world": "reserved-starvation"}),
        Call(scheduler.STEP, {"action": "x"}),
        Call(scheduler.STEP, {"action": "y"}),
    ]
    good = _observation([1024, 1], [3072, 3], [1024, 1], [1024, 1])
    assert scheduler.invariants(calls, [Answer({}), Answer(good), Answer(good)]) == []
    broken = {
        "used + free is": _observation([2048, 1], [3072, 3], [2048, 1], [2048, 1]),
        "not the sum of its children": _observation([1024, 1], [3072, 3], [2048, 1], [1024, 1]),
        "negative used": _observation([5120, 1], [-1024, 3], [5120, 1], [5120, 1]),
    }
    for message, second in broken.items():
        found = scheduler.invariants(calls, [Answer({}), Answer(good), Answer(second)])
        assert any(message in line for line in found), (message, found)
    twice = {
        "nodes": {
            "n0": {"used": [0, 0], "free": [1, 1], "reserved": 7},
            "n1": {"used": [0, 0], "free": [1, 1], "reserved": 7},
        }
    }
    assert "reserved on n0 and n1" in scheduler.invariants(calls[:2], [Answer({}), Answer(twice)])[0]


@pytest.mark.parametrize("seed", range(6))
def test_the_references_observations_keep_the_scheduler_invariants(seed: int) -> None:
    calls = simulate(seed, 40)
    answers = replay(reference_adapter(contract_named("scheduler")), calls).answers
    assert all(answer.error is None for answer in answers)
    assert scheduler.invariants(calls, answers) == []


def test_a_malformed_world_description_is_refused_in_one_line() -> None:
    with pytest.raises(RefusedInput, match="KeyError: 'nodes'"):
        Scheduler().reset({"world": {"properties": {}, "apps": []}})


def test_the_explorer_trace_takes_the_yarn_8127_world_to_two_commits_from_one_reservation() -> None:
    labels = leak_trace()
    assert labels[-2:] == ("commit(allocate app1/r1 on n0 from c3)",) * 2
    calls = simulate(1, 60)  # the first shipped-world trace: async-double-commit under yarn-8127
    assert calls[0].input == {"world": "async-double-commit", "parameters": {"commit": "yarn-8127"}}
    assert tuple(call.input["action"] for call in calls[1 : len(labels) + 1]) == labels


def test_validate_trace_explains_a_scheduler_log_and_names_a_tampered_step(tmp_path: Path) -> None:
    calls = simulate(1, 25)
    answers = replay(reference_adapter(contract_named("scheduler")), calls).answers
    lines = [{**call.to_json(), **answer.to_json()} for call, answer in zip(calls, answers)]
    log = tmp_path / "scheduler.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status, out, _ = cli("validate-trace", "scheduler", str(log))
    assert (status, out.strip()) == (0, f"explained: all {len(calls)} steps are a behaviour the spec allows")
    lines[12]["output"]["apps"] = {name: count + 1 for name, count in lines[12]["output"]["apps"].items()}
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status, out, _ = cli("validate-trace", "scheduler", str(log))
    assert status == 1 and out.startswith("not explained: step 12 (line 13)") and "apps (exact)" in out
