"""Hypothesis over random op sequences: the allocator predicates of ``spec/spark/allocator.py``
hold after every step, and each predicate catches a broken state (a must-fail test each)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.spark.allocator import (
    ABORTED,
    INVALID,
    KILLED_EXCEEDED_PMEM,
    PREEMPTED,
    SUCCESS,
    AllocatorConfig,
    AllocatorVariant,
    ContainerFate,
    ExclusionConfig,
    Executor,
    Fate,
    YarnAllocator,
)
from yarnspec.impl.spark.hints import PlacementHints
from yarnspec.impl.spark.placement import ContainerLocalityPreferences, PlacementInput
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.resource_manager import AllocatedContainer, ContainerStatus
from yarnspec.spec.spark.allocator import (
    STATE_PREDICATES,
    allocator_counts_consistent,
    allocator_violations,
    containers_accounted_once,
    executor_ids_never_reused,
    no_executor_on_completed_container,
    pending_requests_fill_target,
    placement_output_valid,
)

HOSTS = ["h1", "h2", "h3", "h4", "far"]
RESOLVER = RackResolver.from_mapping({"h3": "/rack2", "far": "/rack9", "*": "/rack1"})
EXITS = [SUCCESS, PREEMPTED, KILLED_EXCEEDED_PMEM, ABORTED, INVALID, -1, 1]


@st.composite
def allocators(draw: st.DrawFn, variant: AllocatorVariant = AllocatorVariant()) -> YarnAllocator:
    config = AllocatorConfig(
        executor_cores=draw(st.integers(1, 4)),
        rack_resolver=RESOLVER,
        launch_containers=draw(st.booleans()),
        exclusion=ExclusionConfig(
            enabled=draw(st.booleans()), max_failures_per_node=draw(st.integers(0, 2)), timeout_ms=1000
        ),
        failures_validity_interval_ms=draw(st.sampled_from([None, 500])),
        variant=variant,
    )
    return YarnAllocator.create(config, draw(st.integers(0, 4)))


def hints_strategy() -> st.SearchStrategy[PlacementHints]:
    pairs = st.lists(st.tuples(st.sampled_from(HOSTS[:4]), st.integers(0, 8)), max_size=4, unique_by=lambda p: p[0])
    return st.builds(lambda tasks, counts: PlacementHints(tasks, tuple(counts)), st.integers(0, 12), pairs)


def step(allocator: YarnAllocator, data: st.DataObject) -> tuple[YarnAllocator, str]:
    """Apply one randomly chosen op; return the new allocator and the op's name."""
    op = data.draw(
        st.sampled_from(["request", "update", "update", "allocate", "kill", "complete", "finish", "tick", "shutdown"])
    )
    if op == "request":
        total = data.draw(st.one_of(st.none(), st.integers(0, 5)))
        excluded = data.draw(st.lists(st.sampled_from(HOSTS), max_size=2))
        allocator, _ = allocator.request_total_executors(total, data.draw(hints_strategy()), excluded)
    elif op == "update":
        allocator = allocator.update_resource_requests()
    elif op == "allocate":
        hosts = data.draw(st.lists(st.sampled_from(HOSTS), max_size=3))
        first = len(allocator.fates)
        size = allocator.config.request_capability
        allocator = allocator.handle_allocated_containers(
            [AllocatedContainer(f"c{first + i}", host, size) for i, host in enumerate(hosts)]
        )
    elif op == "kill":
        allocator = allocator.kill_executor(str(data.draw(st.integers(1, allocator.last_executor_number + 1))))
    elif op == "complete" and allocator.fates:
        ids = data.draw(st.lists(st.sampled_from([f.container_id for f in allocator.fates]), min_size=1, max_size=3))
        allocator = allocator.process_completed_containers(
            [ContainerStatus(cid, data.draw(st.sampled_from(EXITS))) for cid in ids]
        )
    elif op == "finish" and allocator.launches:
        launch = data.draw(st.sampled_from(allocator.launches))
        allocator = allocator.launch_finished(launch.container_id, data.draw(st.booleans()))
    elif op == "tick":
        allocator = allocator.advance_clock(data.draw(st.integers(0, 800)))
    elif op == "shutdown":
        allocator = allocator.set_shutdown(data.draw(st.booleans()))
    return allocator, op


@settings(max_examples=120, deadline=None)
@given(allocators(), st.data())
def test_state_predicates_hold_after_every_step(allocator: YarnAllocator, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 25))):
        allocator, op = step(allocator, data)
        assert allocator_violations(allocator) == [], op
        if op == "update":
            assert pending_requests_fill_target(allocator) == []


@settings(max_examples=60, deadline=None)
@given(allocators(AllocatorVariant.oldest()), st.data())
def test_bookkeeping_predicates_hold_under_the_oldest_variant(allocator: YarnAllocator, data: st.DataObject) -> None:
    for _ in range(data.draw(st.integers(1, 25))):
        allocator, op = step(allocator, data)
        for check in (allocator_counts_consistent, containers_accounted_once, executor_ids_never_reused):
            assert check(allocator) == [], op


@settings(max_examples=60, deadline=None)
@given(allocators(), st.data())
def test_running_never_exceeds_a_target_that_never_dropped(allocator: YarnAllocator, data: st.DataObject) -> None:
    """Without a lower target or kills, executors never outnumber the target in test mode."""
    allocator = replace(allocator, config=replace(allocator.config, launch_containers=False))
    for _ in range(data.draw(st.integers(1, 15))):
        hosts = data.draw(st.lists(st.sampled_from(HOSTS), max_size=3))
        first = len(allocator.fates)
        size = allocator.config.request_capability
        allocator = allocator.update_resource_requests().handle_allocated_containers(
            [AllocatedContainer(f"c{first + i}", host, size) for i, host in enumerate(hosts)]
        )
        assert allocator.num_executors_running <= allocator.target


# --- must-fail: each predicate catches a broken state ----------------------------------------


def running_pair() -> YarnAllocator:
    allocator = YarnAllocator.create(AllocatorConfig(), 2).update_resource_requests()
    size = allocator.config.request_capability
    return allocator.handle_allocated_containers(
        [AllocatedContainer("c1", "a", size), AllocatedContainer("c2", "b", size)]
    )


def test_clean_state_has_no_violations() -> None:
    assert allocator_violations(running_pair()) == []
    assert set(STATE_PREDICATES) == {
        "allocator_counts_consistent",
        "containers_accounted_once",
        "executor_ids_never_reused",
        "no_executor_on_completed_container",
    }


def test_counts_predicate_catches_a_running_executor_in_a_released_container() -> None:
    broken = replace(running_pair(), released=frozenset({"c1"}))
    assert any("released container c1" in v for v in allocator_counts_consistent(broken))


def test_counts_predicate_catches_a_duplicated_executor_record() -> None:
    allocator = running_pair()
    broken = replace(allocator, executors=allocator.executors + (allocator.executors[0],))
    assert any("recorded 2 times" in v for v in allocator_counts_consistent(broken))


def test_counts_predicate_catches_a_launching_container_without_launch() -> None:
    broken = replace(running_pair(), launching=frozenset({"ghost"}))
    assert any("ghost" in v for v in allocator_counts_consistent(broken))


def test_accounting_predicate_catches_a_container_handled_twice() -> None:
    allocator = running_pair()
    broken = replace(allocator, fates=allocator.fates + (ContainerFate("c1", "a", Fate.RELEASED, None),))
    assert any("handled 2 times" in v for v in containers_accounted_once(broken))


def test_accounting_predicate_catches_a_double_release() -> None:
    allocator = running_pair()
    broken = replace(allocator, client=allocator.client.release("c1").release("c1"))
    assert any("handed back to YARN 2 times" in v for v in containers_accounted_once(broken))


def test_accounting_predicate_catches_an_executor_in_a_released_container() -> None:
    allocator = running_pair()
    broken = replace(allocator, executors=allocator.executors + (Executor("9", "c9", "z"),))
    assert any("c9" in v for v in containers_accounted_once(broken))


def test_id_predicate_catches_a_reused_id() -> None:
    allocator = running_pair()
    broken = replace(allocator, fates=allocator.fates + (ContainerFate("c3", "a", Fate.SKIPPED, "1"),))
    assert any("consumed after" in v for v in executor_ids_never_reused(broken))


def test_id_predicate_catches_an_id_beyond_the_counter() -> None:
    broken = replace(running_pair(), last_executor_number=1)
    assert any("beyond the counter" in v for v in executor_ids_never_reused(broken))


def test_completed_container_predicate_catches_the_pre_spark_43510_bug() -> None:
    def late_launch(variant: AllocatorVariant) -> YarnAllocator:
        config = AllocatorConfig(launch_containers=True, variant=variant)
        allocator = YarnAllocator.create(config, 1).update_resource_requests()
        allocator = allocator.handle_allocated_containers([AllocatedContainer("c1", "a", config.request_capability)])
        return allocator.process_completed_containers([ContainerStatus("c1", -1)]).launch_finished("c1")

    assert no_executor_on_completed_container(late_launch(AllocatorVariant())) == []
    assert no_executor_on_completed_container(late_launch(AllocatorVariant(late_launch_guard=False))) != []


def test_fill_target_predicate_catches_the_old_missing_formula() -> None:
    def after_update(variant: AllocatorVariant) -> YarnAllocator:
        config = AllocatorConfig(launch_containers=True, variant=variant)
        allocator = YarnAllocator.create(config, 2).update_resource_requests()
        allocator = allocator.handle_allocated_containers([AllocatedContainer("c1", "a", config.request_capability)])
        return allocator.update_resource_requests()

    assert pending_requests_fill_target(after_update(AllocatorVariant())) == []
    broken = pending_requests_fill_target(after_update(AllocatorVariant(missing_counts_starting=False)))
    assert broken and "asks for 1" in broken[0]


PLACEMENT = PlacementInput.of(3, 4, {"a": 2, "b": 2}, executor_cores=1)
AB = ContainerLocalityPreferences(("a", "b"), ())
A = ContainerLocalityPreferences(("a",), ())
FREE = ContainerLocalityPreferences(None, None)


def test_placement_predicate_accepts_a_valid_answer() -> None:
    assert placement_output_valid(PLACEMENT, [FREE, AB, A]) == []


def test_placement_predicate_catches_a_wrong_length() -> None:
    assert any("entries for 3" in v for v in placement_output_valid(PLACEMENT, [AB, A]))


def test_placement_predicate_catches_a_free_request_after_a_local_one() -> None:
    assert any("follows a locality-aware" in v for v in placement_output_valid(PLACEMENT, [AB, FREE, A]))


def test_placement_predicate_catches_lists_that_do_not_nest() -> None:
    b = ContainerLocalityPreferences(("b",), ())
    assert any("not a subset" in v for v in placement_output_valid(PLACEMENT, [FREE, A, b]))


def test_placement_predicate_catches_a_host_without_tasks_and_wrong_racks() -> None:
    stray = ContainerLocalityPreferences(("a", "zz"), ())
    racked = ContainerLocalityPreferences(("a",), ("/nowhere",))
    problems = placement_output_valid(PLACEMENT, [FREE, stray, racked])
    assert any("without locality-aware tasks" in v for v in problems)
    assert any("not the racks" in v for v in problems)
