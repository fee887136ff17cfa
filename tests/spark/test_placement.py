"""The container placement strategy (semantics 3): arithmetic order, ordering, racks, variants,
validation, and a property check against a literal transcription of Spark's loop."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.placement import (
    ContainerLocalityPreferences,
    ExecutorsForTasks,
    PlacementInput,
    executors_for_aware_tasks,
    locality_of_requested_containers,
    pending_host_share,
    plan_placement,
    scaled_ratios,
)
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.spec.spark.allocator import PlacementStrategy, placement_output_valid


def test_ceiling_is_taken_after_subtracting_a_fractional_pending_share() -> None:
    # E = ceil(9 / 4) = 3; a: 3 * 3 / 8 = 1.125 expected; existing 1 + 0.5 pending share.
    # ceil(1.125 - 1.5) -> 0, whereas ceil(1.125) - 1.5 would leave a positive need.
    inp = PlacementInput.of(
        num_containers=2,
        num_locality_aware_tasks=9,
        host_to_local_task_count={"a": 3, "b": 5},
        allocated_host_to_container_count={"a": 1},
        locality_matched_pending=[("a", "x")],
        executor_cores=4,
    )
    plan = plan_placement(inp)
    assert dict(plan.pending_share) == {"a": 0.5, "x": 0.5}
    assert dict(plan.need) == {"a": 0, "b": 2}
    assert [p.nodes for p in plan.preferences] == [("b",), ("b",)]


def test_pending_share_spreads_each_request_over_its_nodes() -> None:
    share = pending_host_share([("a", "b"), ("a",), ("c", "a", "b")])
    # 6 slots, 3 requests: a has 3 slots -> 1.5, b 2 -> 1.0, c 1 -> 0.5.
    assert share == {"a": 1.5, "b": 1.0, "c": 0.5}
    assert pending_host_share([]) == {}


def test_scaling_multiplies_before_dividing() -> None:
    # 9 * 77 / 11 is exactly 63; 9 / 11 * 77 is 63.00000000000001 and would round up to 64.
    assert math.ceil(9 / 11 * 77) == 64
    assert dict(scaled_ratios([("a", 11), ("b", 9)], 77)) == {"a": 77, "b": 63}


def test_locality_free_requests_come_first_and_lists_nest() -> None:
    inp = PlacementInput.of(6, 4, {"a": 4, "b": 2}, executor_cores=1)
    prefs = locality_of_requested_containers(inp)
    # need a = ceil(4*4/6) = 3, b = ceil(4*2/6) = 2: 1 free, 5 aware, ratios 5 and ceil(10/3) = 4.
    assert [p.nodes for p in prefs] == [None, ("a", "b"), ("a", "b"), ("a", "b"), ("a", "b"), ("a",)]
    assert placement_output_valid(inp, prefs) == []


def test_host_order_is_the_hint_order_not_sorted() -> None:
    inp = PlacementInput.of(2, 4, [("zeta", 2), ("alpha", 2)], executor_cores=1)
    assert [p.nodes for p in locality_of_requested_containers(inp)] == [("zeta", "alpha")] * 2


def test_hint_counts_summing_to_zero_give_no_locality() -> None:
    # Spark divides 0 by 0 here (NaN) and ends with need 0 everywhere.
    inp = PlacementInput.of(3, 5, {"a": 0, "b": 0}, executor_cores=1)
    plan = plan_placement(inp)
    assert dict(plan.need) == {"a": 0, "b": 0}
    assert [p.nodes for p in plan.preferences] == [None, None, None]


def test_no_containers_asked_gives_an_empty_answer() -> None:
    assert locality_of_requested_containers(PlacementInput.of(0, 8, {"a": 8}, executor_cores=2)) == []


def test_racks_are_distinct_in_host_order_and_unknown_hosts_are_skipped() -> None:
    resolver = RackResolver.from_mapping({"a": "/r2", "b": "/r1", "c": "/r2"})
    inp = PlacementInput.of(1, 3, {"a": 1, "b": 1, "c": 1, "d": 1}, executor_cores=1, rack_resolver=resolver)
    (only,) = locality_of_requested_containers(inp)
    assert only == ContainerLocalityPreferences(("a", "b", "c", "d"), ("/r2", "/r1"))


def test_default_rack_from_the_star_key() -> None:
    resolver = RackResolver.from_mapping({"host3": "/rack2", "*": "/rack1"})
    assert resolver.resolve("host3") == "/rack2"
    assert resolver.resolve("anything") == "/rack1"
    assert RackResolver().resolve("anything") is None


def test_executors_for_aware_tasks_variants_differ_when_cores_do_not_divide() -> None:
    # 5 cores, 2 cpus per task: current Spark fits 2 tasks per executor, the old formula 2.5.
    assert executors_for_aware_tasks(10, 5, 2, ExecutorsForTasks.TASKS_PER_EXECUTOR) == 5
    assert executors_for_aware_tasks(10, 5, 2, ExecutorsForTasks.CORES_CEILING) == 4
    # They agree whenever cores divide evenly (every tested configuration).
    assert executors_for_aware_tasks(11, 4, 2, ExecutorsForTasks.TASKS_PER_EXECUTOR) == 6
    assert executors_for_aware_tasks(11, 4, 2, ExecutorsForTasks.CORES_CEILING) == 6


@pytest.mark.parametrize(
    ("kwargs", "place"),
    [
        ({"num_containers": -1}, "num_containers"),
        ({"num_locality_aware_tasks": -2}, "num_locality_aware_tasks"),
        ({"executor_cores": 0}, "executor_cores"),
        ({"task_cpus": 0}, "task_cpus"),
        ({"executor_cores": 1, "task_cpus": 2}, "executor_cores"),
        ({"host_to_local_task_count": (("a", 1), ("a", 2))}, "host_to_local_task_count"),
        ({"host_to_local_task_count": (("a", -1),)}, "host_to_local_task_count[a]"),
        ({"allocated_host_to_container_count": (("a", -1),)}, "allocated_host_to_container_count[a]"),
        ({"locality_matched_pending": ((),)}, "locality_matched_pending[0]"),
    ],
)
def test_bad_input_is_refused_with_its_place(kwargs: dict[str, object], place: str) -> None:
    base: dict[str, object] = {
        "num_containers": 1,
        "num_locality_aware_tasks": 1,
        "host_to_local_task_count": (("a", 1),),
    }
    base.update(kwargs)
    with pytest.raises(InputError) as caught:
        PlacementInput(**base)  # type: ignore[arg-type]
    assert caught.value.place == place


# --- property checks ------------------------------------------------------------------------


def spark_loop(inp: PlacementInput) -> list[ContainerLocalityPreferences]:
    """Spark's steps 4-7 transcribed literally (one pass over every host per request), from the
    need computed by the model: an oracle for the shortcut in ``expand_requests``."""
    plan = plan_placement(inp)
    need = dict(plan.need)
    free = max(0, inp.num_containers - sum(need.values()))
    aware = inp.num_containers - free
    result = [ContainerLocalityPreferences(None, None)] * free
    if aware > 0:
        largest = max(need.values())
        ratio = {host: math.ceil(count * aware / largest) for host, count in need.items()}
        for _ in range(aware):
            hosts = tuple(host for host, value in ratio.items() if value > 0)
            racks: list[str] = []
            for host in hosts:
                rack = inp.rack_resolver.resolve(host)
                if rack is not None and rack not in racks:
                    racks.append(rack)
            result.append(ContainerLocalityPreferences(hosts, tuple(racks)))
            ratio = {host: value - 1 for host, value in ratio.items()}
    return result


HOSTS = [f"h{i}" for i in range(6)]


@st.composite
def placement_inputs(draw: st.DrawFn) -> PlacementInput:
    hosts = draw(st.lists(st.sampled_from(HOSTS), min_size=0, max_size=6, unique=True))
    counts = [(host, draw(st.integers(0, 40))) for host in hosts]
    allocated = [(host, draw(st.integers(0, 4))) for host in draw(st.lists(st.sampled_from(HOSTS), unique=True))]
    pending = draw(st.lists(st.lists(st.sampled_from(HOSTS), min_size=1, max_size=3, unique=True), max_size=4))
    cores = draw(st.integers(1, 8))
    resolver = RackResolver.from_mapping(
        {"h0": "/r0", "h3": "/r1", "*": "/r9"} if draw(st.booleans()) else {"h1": "/r1"}
    )
    return PlacementInput.of(
        num_containers=draw(st.integers(0, 30)),
        num_locality_aware_tasks=draw(st.integers(0, 60)),
        host_to_local_task_count=counts,
        allocated_host_to_container_count=allocated,
        locality_matched_pending=pending,
        executor_cores=cores,
        task_cpus=draw(st.integers(1, cores)),
        rack_resolver=resolver,
    )


REFERENCE: PlacementStrategy = locality_of_requested_containers  # mypy checks the contract


@settings(max_examples=150, deadline=None)
@given(placement_inputs())
def test_output_shape_holds_for_any_input(inp: PlacementInput) -> None:
    assert placement_output_valid(inp, REFERENCE(inp)) == []


@settings(max_examples=150, deadline=None)
@given(placement_inputs())
def test_grouped_expansion_equals_sparks_decrement_loop(inp: PlacementInput) -> None:
    assert locality_of_requested_containers(inp) == spark_loop(inp)


@settings(max_examples=100, deadline=None)
@given(placement_inputs())
def test_largest_need_host_is_in_every_locality_aware_request(inp: PlacementInput) -> None:
    plan = plan_placement(inp)
    aware = [p for p in plan.preferences if p.nodes is not None]
    assert len(aware) == plan.locality_aware_count
    if aware:
        top = max(plan.need, key=lambda pair: pair[1])[0]
        assert all(top in (p.nodes or ()) for p in aware)


def test_ten_thousand_containers_over_two_hundred_hosts() -> None:
    hints = [(f"host{i}", 1 + (i * 37) % 50) for i in range(200)]
    inp = PlacementInput.of(10_000, 50_000, hints, executor_cores=1)
    prefs = locality_of_requested_containers(inp)
    assert len(prefs) == 10_000
    assert placement_output_valid(inp, prefs) == []
