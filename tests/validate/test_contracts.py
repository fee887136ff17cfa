"""The contracts: every reference adapter satisfies its Protocol; the comparisons treat exact,
as-set and optional fields as documented; the invariants catch what they name and hold on the
reference's own answers."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings

from yarnspec.checks.conformance.runner import find_case_files, load_case
from yarnspec.checks.validate.engine import reference_adapter, replay
from yarnspec.checks.validate.families import family_of
from yarnspec.checks.validate.reference import (
    ALL_REFERENCE_ADAPTERS,
    CandidateSelector,
    NodeSorting,
    Placement,
    RefusedInput,
    Scheduler,
)
from yarnspec.checks.validate.reference import PreemptionRound as PreemptionRoundAdapter
from yarnspec.spec.contracts import CONTRACTS
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.preemption_round import invariants as round_invariants
from yarnspec.spec.contracts.spark_dispatch import compare as compare_dispatch
from yarnspec.spec.contracts.spark_dispatch import invariants as dispatch_invariants
from yarnspec.spec.contracts.spark_placement import ContainerPlacementStrategy
from yarnspec.spec.contracts.spark_placement import compare as compare_placement
from yarnspec.spec.contracts.spark_placement import invariants as placement_invariants
from yarnspec.spec.worlds.world_builders import model

from ..conftest import CONFORMANCE_DIR


def test_every_contract_has_a_reference_adapter_that_satisfies_it() -> None:
    assert sorted(ALL_REFERENCE_ADAPTERS) == sorted(CONTRACTS)
    for name, adapter in ALL_REFERENCE_ADAPTERS.items():
        assert isinstance(adapter(), CONTRACTS[name].protocol), name


def test_the_scheduler_adapter_replays_enabled_actions_and_refuses_others() -> None:
    adapter = Scheduler()
    adapter.reset({"world": "two-queues"})
    labels = []
    checker = model("two-queues")
    state = checker.initial_states()[0]
    for _ in range(6):
        # heartbeats where enabled (they allocate), else the first action (a submit)
        successors = list(checker.successors(state))
        action, state = next(
            (pair for pair in successors if checker.action_label(pair[0]).startswith("heartbeat")), successors[0]
        )
        labels.append(checker.action_label(action))
        observed = adapter.step({"action": labels[-1]})
        node_used = sum(node["used"][0] for node in observed["nodes"].values())
        queue_used = sum(
            sum(used[0] for used in q.values()) for path, q in observed["queues"].items() if path.count(".") == 1
        )
        assert node_used == queue_used, labels
    assert sum(observed["apps"].values()) > 0
    with pytest.raises(RefusedInput, match="is not enabled"):
        adapter.step({"action": "no such action"})


def test_the_selector_adapter_reports_the_fifo_selection_of_a_round() -> None:
    case = load_case(CONFORMANCE_DIR / "hadoop-preemption/TestProportionalCapacityPreemptionPolicy/testDeadzone.json")
    setup = {key: case[key] for key in ("notation", "resource_calculator", "conf", "input")}
    answer = CandidateSelector().select_candidates({**setup, "selector": "fifo"})
    round_answer = PreemptionRoundAdapter()
    round_answer.reset(setup)
    marked = {e["container"] for e in round_answer.edit_schedule({"clock_ms": 0})["events"]}
    assert set(answer["selected"]) == marked
    with pytest.raises(RefusedInput, match="does not run"):
        CandidateSelector().select_candidates({**setup, "selector": "reserved"})


def test_the_node_sorting_adapter_puts_the_least_allocated_first() -> None:
    nodes = [
        {"node_id": "a", "allocated_memory": 4, "allocated_vcores": 1},
        {"node_id": "b", "allocated_memory": 2, "allocated_vcores": 9},
        {"node_id": "c", "allocated_memory": 2, "allocated_vcores": 1},
    ]
    assert NodeSorting().sort_nodes({"nodes": nodes}) == {"order": ["c", "b", "a"]}


def test_the_protocol_check_refuses_an_object_without_the_method() -> None:
    assert not isinstance(object(), ContainerPlacementStrategy)


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_every_contract_names_its_upstream_class_and_what_is_observable(name: str) -> None:
    contract = CONTRACTS[name]
    module = importlib.import_module(contract.protocol.__module__)
    upstream_class = contract.upstream.split(".")[0].split(" ")[0]
    assert upstream_class in (module.__doc__ or "") + (contract.protocol.__doc__ or "")
    assert "Observable" in (contract.protocol.__doc__ or "")


PLACEMENT_CALL = Call("locality_of_requested_containers", {})


def test_placement_nodes_are_compared_exactly_and_racks_are_optional() -> None:
    reference = {"nodes": [["h1", "h2"]], "racks": [["r1"]]}
    assert compare_placement(PLACEMENT_CALL, reference, {"nodes": [["h1", "h2"]]}) == []
    assert compare_placement(PLACEMENT_CALL, reference, {"nodes": [["h2", "h1"]]}) != []
    assert compare_placement(PLACEMENT_CALL, reference, {"nodes": [["h1", "h2"]], "racks": [["r2"]]}) != []
    assert compare_placement(PLACEMENT_CALL, reference, {"racks": [["r1"]]}) == ["nodes: missing (required)"]


def _task(
    task_id: int, executor: str = "e1", host: str = "h1", index: int = 0, speculative: bool = False
) -> dict[str, object]:
    return {
        "task_id": task_id,
        "stage": "0.0",
        "index": index,
        "executor_id": executor,
        "host": host,
        "locality": "ANY",
        "speculative": speculative,
    }


def test_dispatch_running_ids_are_a_set_and_launched_is_ordered() -> None:
    call = Call("observe", {})
    ours = {
        "launched": [_task(0), _task(1)],
        "task_sets": [{"stage": "0.0", "running_task_ids": [0, 1], "zombie": False}],
    }
    assert (
        compare_dispatch(
            call, ours, {"launched": [_task(0), _task(1)], "task_sets": [{"stage": "0.0", "running_task_ids": [1, 0]}]}
        )
        == []
    )
    assert compare_dispatch(call, ours, {"launched": [_task(1), _task(0)], "task_sets": [{"stage": "0.0"}]}) != []
    assert (
        compare_dispatch(
            call, ours, {"launched": [_task(0), _task(1)], "task_sets": [{"stage": "0.0", "zombie": True}]}
        )
        != []
    )
    assert compare_dispatch(call, ours, {"launched": [_task(0), _task(1)], "task_sets": []}) != []


def test_placement_invariants_catch_a_missing_entry() -> None:
    call = Call(
        "locality_of_requested_containers",
        {"num_containers": 2, "num_locality_aware_tasks": 2, "host_to_local_task_count": [["h1", 2]]},
    )
    assert placement_invariants([call], [Answer(output={"nodes": [["h1"]]})]) == ["call 0: 1 entries for 2 containers"]
    assert placement_invariants([call], [Answer(output={"nodes": [None, ["h1"]]})]) == []


def test_dispatch_invariants_catch_repeated_ids_wrong_hosts_and_zombie_launches() -> None:
    calls = [Call("reset", {"executors": [["e1", "h1"]]}), Call("observe", {}), Call("observe", {})]
    answers = [
        Answer(output={}),
        Answer(
            output={"launched": [_task(3)], "task_sets": [{"stage": "0.0", "zombie": True, "running_task_ids": [3]}]}
        ),
        Answer(output={"launched": [_task(3, host="h2")], "task_sets": [{"stage": "0.0", "running_task_ids": [9]}]}),
    ]
    found = dispatch_invariants(calls, answers)
    assert any("not above the previous one" in v for v in found)
    assert any("executor e1 is on h1" in v for v in found)
    assert any("zombie" in v for v in found)
    assert any("never launched: [9]" in v for v in found)


def test_round_invariants_catch_a_kill_without_a_mark_and_events_in_observe_only_mode() -> None:
    killable = {"event": "MARK_CONTAINER_FOR_KILLABLE", "container": "container_1_1", "queue": "root.a"}
    calls = [
        Call("reset", {"conf": {"yarn.resourcemanager.monitor.capacity.preemption.observe_only": True}}),
        Call("edit_schedule", {"clock_ms": 0}),
    ]
    found = round_invariants(calls, [Answer(output={}), Answer(output={"events": [killable]})])
    assert any("observe-only" in v for v in found) and any("without an earlier mark" in v for v in found)


@pytest.mark.parametrize("name", ["spark-placement", "spark-dispatch", "preemption-round"])
def test_the_invariants_hold_on_the_references_answers(name: str) -> None:
    contract = CONTRACTS[name]

    @settings(max_examples=25)
    @given(family_of(name).inputs())
    def check(calls: list[Call]) -> None:
        answers = replay(reference_adapter(contract), calls)
        assert answers.fault is None
        assert contract.invariants is not None
        assert contract.invariants(calls, answers.answers) == []

    check()


def test_the_reference_placement_meets_every_upstream_node_list() -> None:
    family = family_of("spark-placement")
    checked = 0
    for path in find_case_files([CONFORMANCE_DIR / "spark-locality"]):
        case = load_case(path)
        calls = family.case_calls(case) if family.owns(case) else "other"
        if isinstance(calls, str) or "nodes" not in case.get("expect", {}):
            continue
        answer = Answer(output=Placement().locality_of_requested_containers(calls[0].input))
        assert family.case_expectations(case, [answer]) == []
        wrong = Answer(output={"nodes": list(reversed(answer.output["nodes"])) + [None]})  # type: ignore[index]
        assert family.case_expectations(case, [wrong]) != []
        checked += 1
    assert checked >= 2


def _placement_call(hints: int) -> Call:
    from yarnspec.spec.contracts.call import Call

    return Call(
        "locality_of_requested_containers",
        {"host_to_local_task_count": [[f"host{i}", 1] for i in range(hints)], "num_containers": 1},
    )


def test_placement_node_order_counts_up_to_four_hint_hosts() -> None:
    from yarnspec.spec.contracts.spark_placement import compare

    ours, theirs = {"nodes": [["host0", "host1"]]}, {"nodes": [["host1", "host0"]]}
    assert compare(_placement_call(4), ours, theirs)
    assert compare(_placement_call(2), ours, ours) == []


def test_placement_node_order_is_a_set_above_four_hint_hosts() -> None:
    """Scala's immutable Map is a hash trie above four entries: the order inside a list is
    Spark's hash order, so only the sets are compared; other differences still count."""
    from yarnspec.spec.contracts.spark_placement import compare

    ours, theirs = {"nodes": [["host0", "host1"]]}, {"nodes": [["host1", "host0"]]}
    assert compare(_placement_call(5), ours, theirs) == []
    assert compare(_placement_call(5), ours, {"nodes": [["host0"]]})
    assert compare(_placement_call(5), ours, {"nodes": [["host0", "host1"], None]})
