"""The ApplicationMaster's allocator (semantics 4), operation by operation, with the variants."""

from __future__ import annotations

from dataclasses import replace

import pytest

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.allocator import (
    ABORTED,
    DISKS_FAILED,
    INVALID,
    KILLED_AFTER_APP_COMPLETION,
    KILLED_BY_APPMASTER,
    KILLED_BY_RESOURCEMANAGER,
    KILLED_EXCEEDED_PMEM,
    KILLED_EXCEEDED_VMEM,
    PREEMPTED,
    SUCCESS,
    AllocatorConfig,
    AllocatorVariant,
    CancelOrder,
    ExclusionConfig,
    ExecutorExit,
    Fate,
    MatchCapability,
    RequestUpdateRule,
    YarnAllocator,
)
from yarnspec.impl.spark.hints import PlacementHints
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.resource_manager import AllocatedContainer, Capability, ContainerStatus, ExclusionUpdate

RESOLVER = RackResolver.from_mapping({"host3": "/rack2", "*": "/rack1"})
NO_HINTS = PlacementHints()


def make(target: int, **config: object) -> YarnAllocator:
    base = AllocatorConfig(executor_cores=5, executor_memory_mb=2048, rack_resolver=RESOLVER)
    return YarnAllocator.create(replace(base, **config), target)  # type: ignore[arg-type]


def container(cid: str, host: str, allocator: YarnAllocator, memory_mb: int | None = None) -> AllocatedContainer:
    size = allocator.config.request_capability
    return AllocatedContainer(
        cid, host, Capability(memory_mb or size.memory_mb, size.vcores), allocator.config.priority
    )


def allocate(allocator: YarnAllocator, *hosts: str, prefix: str = "c") -> YarnAllocator:
    start = len(allocator.fates)
    batch = [container(f"{prefix}{start + i + 1}", host, allocator) for i, host in enumerate(hosts)]
    return allocator.handle_allocated_containers(batch)


def complete(allocator: YarnAllocator, cid: str, exit_status: int = SUCCESS) -> YarnAllocator:
    return allocator.process_completed_containers([ContainerStatus(cid, exit_status)])


def with_hints(allocator: YarnAllocator, total: int, hints: dict[str, int], tasks: int) -> YarnAllocator:
    new, _ = allocator.request_total_executors(total, PlacementHints(tasks, tuple(hints.items())))
    return new


def nodes_of(allocator: YarnAllocator) -> list[tuple[str, ...] | None]:
    return [request.nodes for request in allocator.pending_requests]


# --- capability ------------------------------------------------------------------------------


def test_request_size_adds_the_default_overhead() -> None:
    assert AllocatorConfig(executor_cores=5, executor_memory_mb=2048).request_capability == Capability(2432, 5)
    assert AllocatorConfig(executor_memory_mb=8192).request_capability == Capability(8192 + 819, 1)
    assert AllocatorConfig(executor_memory_mb=1000, memory_overhead_mb=10).request_capability == Capability(1010, 1)


# --- 4.3 updateResourceRequests ------------------------------------------------------------


def test_without_hints_every_missing_container_is_a_free_request() -> None:
    allocator = make(3).update_resource_requests()
    assert nodes_of(allocator) == [None, None, None]


def test_hints_shape_new_requests() -> None:
    allocator = with_hints(make(0), 2, {"a": 5, "b": 5}, tasks=10).update_resource_requests()
    # E = ceil(10 / 5) = 2; need 1 and 1; both requests local to a and b.
    assert nodes_of(allocator) == [("a", "b"), ("a", "b")]
    assert [r.racks for r in allocator.pending_requests] == [("/rack1",), ("/rack1",)]


def test_free_requests_are_replaced_by_local_ones_not_duplicated() -> None:
    allocator = make(2).update_resource_requests()
    allocator = with_hints(allocator, 3, {"a": 10}, tasks=10).update_resource_requests()
    # missing 1, potential 1 + 2 free = 3; need for a = 2 -> 2 local requests, one free cancelled.
    assert sorted(nodes_of(allocator), key=repr) == sorted([None, ("a",), ("a",)], key=repr)
    assert allocator.num_containers_pending_allocate == 3


def test_stale_requests_stay_while_nothing_is_missing() -> None:
    allocator = with_hints(make(0), 1, {"a": 5}, tasks=5).update_resource_requests()
    assert nodes_of(allocator) == [("a",)]
    allocator = with_hints(allocator, 1, {"b": 5}, tasks=5).update_resource_requests()
    assert nodes_of(allocator) == [("a",)]  # missing == 0: the stale request is kept


def test_stale_requests_are_cancelled_when_more_are_needed() -> None:
    allocator = with_hints(make(0), 1, {"a": 5}, tasks=5).update_resource_requests()
    allocator = with_hints(allocator, 2, {"b": 10}, tasks=10).update_resource_requests()
    assert nodes_of(allocator) == [("b",), ("b",)]


def test_lowering_the_target_cancels_stale_then_free_then_matched() -> None:
    allocator = with_hints(make(0), 1, {"a": 5}, tasks=5).update_resource_requests()  # [a]
    allocator = with_hints(allocator, 3, {"b": 5}, tasks=5).update_resource_requests()
    # the stale [a] went; b needs 1 -> [b] plus 2 free.
    assert sorted(nodes_of(allocator), key=repr) == sorted([("b",), None, None], key=repr)
    assert nodes_of(with_hints(allocator, 1, {"b": 5}, tasks=5).update_resource_requests()) == [("b",)]
    assert nodes_of(with_hints(allocator, 2, {"b": 5}, tasks=5).update_resource_requests()).count(None) == 1


@pytest.mark.parametrize(
    ("order", "survivor"),
    [(CancelOrder.STALE_FREE_MATCHED, None), (CancelOrder.CLIENT_ORDER, ("a",))],
)
def test_which_request_goes_when_the_target_drops(order: CancelOrder, survivor: tuple[str, ...] | None) -> None:
    allocator = make(1, variant=AllocatorVariant(cancel_order=order)).update_resource_requests()
    allocator = with_hints(allocator, 2, {"a": 5}, tasks=5).update_resource_requests()
    assert nodes_of(allocator) == [None, ("a",)]
    # Hints move to b: [a] is stale. One request must go.
    allocator = with_hints(allocator, 1, {"b": 5}, tasks=5).update_resource_requests()
    assert nodes_of(allocator) == [survivor]


def test_lowering_the_target_never_kills_running_executors() -> None:
    allocator = allocate(make(2).update_resource_requests(), "a", "b")
    allocator, changed = allocator.request_total_executors(0, NO_HINTS)
    allocator = allocator.update_resource_requests()
    assert changed and allocator.num_executors_running == 2 and allocator.num_containers_pending_allocate == 0
    assert allocator.client.releases == ()


def test_spark_1_6_cancels_every_free_request_and_replans() -> None:
    variant = AllocatorVariant(request_update=RequestUpdateRule.CANCEL_STALE_AND_FREE)
    allocator = make(2, variant=variant).update_resource_requests()
    first_ids = {r.request_id for r in allocator.pending_requests}
    allocator = with_hints(allocator, 3, {"a": 5}, tasks=5).update_resource_requests()
    # 1 missing + 2 free cancelled = 3 planned: need a = 1 -> 2 free then [a].
    assert nodes_of(allocator) == [None, None, ("a",)]
    assert first_ids.isdisjoint(r.request_id for r in allocator.pending_requests)
    current = with_hints(make(2).update_resource_requests(), 3, {"a": 5}, tasks=5).update_resource_requests()
    # Current Spark keeps both free requests: the one new local request fits in ``available``.
    assert first_ids <= {r.request_id for r in current.pending_requests}


def test_missing_counts_starting_executors_unless_the_old_formula_is_chosen() -> None:
    current = allocate(make(2, launch_containers=True).update_resource_requests(), "a", "b")
    assert current.num_executors_starting == 2
    assert current.update_resource_requests().num_containers_pending_allocate == 0
    old = AllocatorVariant(missing_counts_starting=False)
    legacy = allocate(make(2, launch_containers=True, variant=old).update_resource_requests(), "a", "b")
    assert legacy.update_resource_requests().num_containers_pending_allocate == 2


# --- 4.5 handleAllocatedContainers ---------------------------------------------------------


def test_host_pass_runs_before_any_pass_over_all_containers() -> None:
    allocator = make(1).update_resource_requests()  # free request first (oldest)
    allocator = with_hints(allocator, 2, {"host1": 5}, tasks=5).update_resource_requests()
    assert nodes_of(allocator) == [None, ("host1",)]
    allocator = allocate(allocator, "host2", "host1")
    # host1's container took the local request in the host pass; host2 got the free one.
    assert allocator.num_containers_pending_allocate == 0
    assert allocator.allocated_container_to_host == {"c1": "host2", "c2": "host1"}


def test_rack_pass_matches_a_request_on_the_same_rack() -> None:
    allocator = with_hints(make(0), 1, {"host3": 5}, tasks=5).update_resource_requests()
    assert allocator.pending_requests[0].racks == ("/rack2",)
    allocator = allocate(allocator, "host9")  # /rack1: no match anywhere but '*'
    assert allocator.num_executors_running == 1  # matched at '*'
    allocator = with_hints(make(0), 1, {"host3": 5}, tasks=5).update_resource_requests()
    rack_mate = RackResolver.from_mapping({"host3": "/rack2", "host7": "/rack2", "*": "/rack1"})
    allocator = replace(allocator, config=replace(allocator.config, rack_resolver=rack_mate))
    request = allocator.pending_requests[0]
    assert allocator.client.matching_requests(0, "/rack2", allocator.config.request_capability) == (request,)


def test_unmatched_containers_are_released_and_launch_nothing() -> None:
    allocator = allocate(make(1).update_resource_requests(), "h1", "h2")
    assert allocator.client.releases == ("c2",)
    assert allocator.released == frozenset({"c2"})
    assert [f.fate for f in allocator.fates] == [Fate.RELEASED, Fate.LAUNCHED]


def test_a_matched_container_beyond_the_target_is_skipped_not_released() -> None:
    allocator = make(2).update_resource_requests()
    allocator, _ = allocator.request_total_executors(1, NO_HINTS)  # requests still outstanding
    allocator = allocate(allocator, "h1", "h2")
    assert allocator.num_executors_running == 1
    assert [f.fate for f in allocator.fates] == [Fate.LAUNCHED, Fate.SKIPPED]
    assert allocator.client.releases == ()
    assert allocator.last_executor_number == 2  # the skipped container still consumed an id


def test_executor_ids_continue_from_the_drivers_last_id() -> None:
    allocator = YarnAllocator.create(AllocatorConfig(), 2, executor_id_start=7).update_resource_requests()
    allocator = allocate(allocator, "a", "b")
    assert allocator.running_executor_ids == ("8", "9")


def test_container_memory_variant_refuses_a_too_small_container() -> None:
    variant = AllocatorVariant(match_capability=MatchCapability.CONTAINER_MEMORY)
    allocator = make(1, variant=variant).update_resource_requests()
    small = allocator.handle_allocated_containers([container("c1", "h", allocator, memory_mb=1024)])
    assert small.client.releases == ("c1",)
    current = make(1).update_resource_requests()
    with pytest.raises(InputError, match="less than"):
        current.handle_allocated_containers([container("c1", "h", current, memory_mb=1024)])


def test_the_same_container_cannot_be_allocated_twice() -> None:
    allocator = allocate(make(2).update_resource_requests(), "a")
    with pytest.raises(InputError, match="already allocated"):
        allocator.handle_allocated_containers([container("c1", "a", allocator)])


# --- launches (4.5, SPARK-43510) -----------------------------------------------------------


def test_launch_in_progress_until_it_finishes() -> None:
    allocator = allocate(make(1, launch_containers=True).update_resource_requests(), "a")
    assert (allocator.num_executors_starting, allocator.num_executors_running) == (1, 0)
    allocator = allocator.launch_finished("c1")
    assert (allocator.num_executors_starting, allocator.num_executors_running) == (0, 1)
    assert allocator.allocated_host_to_containers == {"a": ("c1",)}


def test_a_launch_finishing_after_its_container_completed_does_not_run() -> None:
    allocator = allocate(make(1, launch_containers=True).update_resource_requests(), "a")
    allocator = complete(allocator, "c1", -1).launch_finished("c1")
    assert (allocator.num_executors_starting, allocator.num_executors_running) == (0, 0)
    old = allocate(
        make(1, launch_containers=True, variant=AllocatorVariant(late_launch_guard=False)).update_resource_requests(),
        "a",
    )
    old = complete(old, "c1", -1).launch_finished("c1")
    assert old.num_executors_running == 1  # the pre-SPARK-43510 bug


def test_a_failed_launch_hands_the_container_back() -> None:
    allocator = allocate(make(1, launch_containers=True).update_resource_requests(), "a")
    allocator = allocator.launch_finished("c1", succeeded=False)
    assert allocator.client.releases == ("c1",)
    assert allocator.released == frozenset()  # Spark does not mark it as released by us
    assert (allocator.num_executors_starting, allocator.num_executors_running) == (0, 0)


def test_finishing_an_unknown_launch_is_an_error() -> None:
    with pytest.raises(InputError, match="no executor launch"):
        make(1).launch_finished("nope")


# --- 4.6 killExecutor -----------------------------------------------------------------------


def test_kill_releases_once_and_ignores_repeats_and_unknown_executors() -> None:
    allocator = allocate(make(2).update_resource_requests(), "a", "b")
    killed = allocator.kill_executor("1")
    assert killed.num_executors_running == 1 and killed.client.releases == ("c1",)
    assert killed.kill_executor("1") == killed
    assert killed.kill_executor("99") == killed


def test_a_starting_executor_cannot_be_killed() -> None:
    allocator = allocate(make(1, launch_containers=True).update_resource_requests(), "a")
    assert allocator.kill_executor("1") == allocator


# --- 4.7 processCompletedContainers --------------------------------------------------------


@pytest.mark.parametrize(
    ("exit_status", "failure", "by_app"),
    [
        (SUCCESS, False, False),
        (PREEMPTED, False, False),
        (KILLED_EXCEEDED_VMEM, False, True),
        (KILLED_EXCEEDED_PMEM, False, True),
        (KILLED_BY_RESOURCEMANAGER, False, False),
        (KILLED_BY_APPMASTER, False, False),
        (KILLED_AFTER_APP_COMPLETION, False, False),
        (ABORTED, False, False),
        (DISKS_FAILED, False, False),
        (INVALID, True, True),
        (-1, True, True),
        (1, True, True),
    ],
)
def test_exit_classification(exit_status: int, failure: bool, by_app: bool) -> None:
    allocator = complete(allocate(make(1).update_resource_requests(), "a"), "c1", exit_status)
    assert allocator.num_executors_failed == int(failure)
    assert allocator.driver_messages == (ExecutorExit("1", exit_status, by_app),)
    assert allocator.unexpected_releases == 1
    assert allocator.num_executors_running == 0 and allocator.allocated_host_to_containers == {}


@pytest.mark.parametrize("exit_status", [ABORTED, DISKS_FAILED, KILLED_BY_RESOURCEMANAGER])
def test_before_spark_26269_yarn_side_exits_counted_as_failures(exit_status: int) -> None:
    variant = AllocatorVariant(yarn_side_exits_not_failures=False)
    allocator = complete(allocate(make(1, variant=variant).update_resource_requests(), "a"), "c1", exit_status)
    assert allocator.num_executors_failed == 1


def test_completion_of_a_released_container_is_expected() -> None:
    allocator = allocate(make(1).update_resource_requests(), "a").kill_executor("1")
    allocator = complete(allocator, "c1", -1)
    assert allocator.num_executors_failed == 0
    assert allocator.unexpected_releases == 0 and allocator.driver_messages == ()
    assert allocator.released == frozenset() and allocator.executors == ()


def test_duplicate_completions_count_once() -> None:
    allocator = allocate(make(2).update_resource_requests(), "a", "b")
    allocator = allocator.process_completed_containers([ContainerStatus("c1", 0)] * 3)
    assert allocator.num_executors_running == 1 and allocator.unexpected_releases == 1


def test_no_failures_counted_during_shutdown_unless_old_variant() -> None:
    allocator = allocate(make(1).update_resource_requests(), "a").set_shutdown()
    assert complete(allocator, "c1", -1).num_executors_failed == 0
    old = AllocatorVariant(no_failures_after_shutdown=False)
    legacy = allocate(make(1, variant=old).update_resource_requests(), "a").set_shutdown()
    assert complete(legacy, "c1", -1).num_executors_failed == 1


# --- 4.8 failures and exclusion --------------------------------------------------------------


def test_failure_window_keeps_timestamps_not_older_than_the_interval() -> None:
    allocator = allocate(make(3, failures_validity_interval_ms=100).update_resource_requests(), "a", "b", "c")
    allocator = complete(allocator.advance_clock(100), "c1", -1)  # failure at t=100
    assert allocator.advance_clock(100).num_executors_failed == 1  # t=200: 100 >= 200 - 100
    assert allocator.advance_clock(101).num_executors_failed == 0
    no_window = allocate(make(1).update_resource_requests(), "a")
    assert complete(no_window, "c1", -1).advance_clock(10**9).num_executors_failed == 1


def test_the_clock_never_goes_back() -> None:
    with pytest.raises(InputError):
        make(1).advance_clock(-1)


EXCLUDE = ExclusionConfig(enabled=True, max_failures_per_node=1, timeout_ms=1000)


def test_a_host_is_excluded_once_its_failures_exceed_the_limit() -> None:
    allocator = allocate(make(4, exclusion=EXCLUDE).update_resource_requests(), "a", "a", "a")
    allocator = complete(allocator, "c1", -1)
    assert allocator.client.exclusion_calls == ()  # 1 failure, not > 1
    allocator = complete(allocator, "c2", -1)
    assert allocator.client.exclusion_calls == (ExclusionUpdate(("a",), ()),)
    allocator = complete(allocator, "c3", -1)  # failure on an excluded host: ignored entirely
    assert allocator.num_executors_failed == 2
    assert len(allocator.client.exclusion_calls) == 1


def test_expired_exclusions_are_removed_at_the_next_refresh() -> None:
    allocator = allocate(make(4, exclusion=replace(EXCLUDE, max_failures_per_node=0)).update_resource_requests(), "a")
    allocator = complete(allocator, "c1", -1)
    assert allocator.client.exclusion_calls[-1] == ExclusionUpdate(("a",), ())
    allocator = allocator.advance_clock(1000)
    assert len(allocator.client.exclusion_calls) == 1  # nothing is sent on a tick
    allocator, _ = allocator.request_total_executors(5, NO_HINTS, ["z"])
    assert allocator.client.exclusion_calls[-1] == ExclusionUpdate(("z",), ("a",))


def test_without_the_switch_a_failure_only_counts_globally() -> None:
    allocator = allocate(make(1, exclusion=ExclusionConfig(max_failures_per_node=0)).update_resource_requests(), "a")
    allocator = complete(allocator, "c1", -1)
    assert allocator.num_executors_failed == 1
    assert allocator.failures.host_times == () and allocator.client.exclusion_calls == ()


def test_only_the_difference_is_sent_sorted_and_configured_nodes_always() -> None:
    allocator = make(1, exclusion=ExclusionConfig(always_excluded=frozenset({"fixed"})))
    allocator, _ = allocator.request_total_executors(2, NO_HINTS, ["y", "x"])
    allocator, _ = allocator.request_total_executors(3, NO_HINTS, ["y", "x"])
    allocator, _ = allocator.request_total_executors(4, NO_HINTS, ["w"])
    assert allocator.client.exclusion_calls == (
        ExclusionUpdate(("fixed", "x", "y"), ()),
        ExclusionUpdate(("w",), ("x", "y")),
    )
    assert allocator.client.excluded == frozenset({"fixed", "w"})


# --- 4.2 requestTotalExecutors ---------------------------------------------------------------


def test_an_unchanged_total_stores_hints_but_forwards_no_exclusions() -> None:
    allocator, changed = make(2).request_total_executors(2, PlacementHints(1, (("a", 1),)), ["bad"])
    assert not changed
    assert allocator.hints.as_dict() == {"a": 1}
    assert allocator.client.exclusion_calls == ()


def test_an_empty_total_map_sets_the_target_to_zero() -> None:
    allocator, changed = make(0).request_total_executors(None, NO_HINTS, ["bad"])
    assert changed and allocator.target == 0
    assert allocator.client.exclusion_calls == (ExclusionUpdate(("bad",), ()),)


def test_whole_round_allocate_resources() -> None:
    allocator = make(2).allocate_resources()
    allocator = allocator.allocate_resources([container("c1", "a", allocator)])
    allocator = allocator.allocate_resources(completed=[ContainerStatus("c1", SUCCESS)])
    assert allocator.num_executors_running == 0 and allocator.num_containers_pending_allocate == 1
    assert allocator.update_resource_requests().num_containers_pending_allocate == 2
