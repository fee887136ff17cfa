"""TaskSchedulerImpl.resourceOffers (semantics 6): offer order as an input, round-robin passes,
level-by-level offering, FIFO order, barrier sets, the SPARK-18886 reset rule, executors."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf, LocalityWaits
from yarnspec.impl.spark.taskset.dispatch_variant import DispatchVariant
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import ExecutorLoss, ExecutorLossReason, TaskDescription, TaskSet

PROCESS, NODE, NO_PREF, RACK, ANY = list(TaskLocality)
ZERO_WAIT = DispatchConf(waits=LocalityWaits(0, 0, 0))


def scheduler(
    conf: DispatchConf | None = None, shuffle: bool = False, seed: int = 0, **racks: str
) -> TaskSchedulerImpl:
    """A scheduler that keeps the given offer order unless ``shuffle``."""
    return TaskSchedulerImpl(conf, RackResolver.from_mapping(racks), shuffle_offers=shuffle, seed=seed)


def offers(*specs: str, cores: int = 1) -> list[WorkerOffer]:
    """``"exec1@host1"`` -> an offer of ``cores`` cores."""
    return [WorkerOffer(spec.split("@")[0], spec.split("@")[1], cores) for spec in specs]


def placed(round_tasks: Sequence[Sequence[TaskDescription]]) -> list[list[int]]:
    """The task indices launched on each offer."""
    return [[task.index for task in per_offer] for per_offer in round_tasks]


def test_tasks_spread_round_robin_over_offers() -> None:
    sched = scheduler()
    sched.submit_tasks(TaskSet.of([], [], [], []), 0)
    result = sched.resource_offers(offers("e1@h1", "e2@h2", cores=2), 0)
    assert placed(result.tasks) == [[0, 2], [1, 3]]
    assert [t.task_id for t in result.launched] == [0, 2, 1, 3]  # ids in launch order


def test_local_offer_wins_even_with_zero_waits_in_either_order() -> None:
    for order in ([0, 1], [1, 0]):
        sched = scheduler(ZERO_WAIT)
        sched.submit_tasks(TaskSet.of(["executor_h1_e1"], ["h2"]), 0)
        result = sched.resource_offers(offers("e1@h1", "e2@h2"), 0, order=order)
        by_exec = {t.executor_id: (t.index, t.locality) for t in result.launched}
        assert by_exec == {"e1": (0, PROCESS), "e2": (1, NODE)}


def test_offer_order_is_an_input() -> None:
    launched_on = []
    for order in ([0, 1, 2], [2, 0, 1]):
        sched = scheduler()
        sched.submit_tasks(TaskSet.of([]), 0)
        result = sched.resource_offers(offers("a@h", "b@h", "c@h"), 0, order=order)
        assert [o.executor_id for o in result.offers] == [["a", "b", "c"][i] for i in order]
        launched_on.append(result.launched[0].executor_id)
    assert launched_on == ["a", "c"]
    with pytest.raises(InputError, match="order: \\[0, 0\\] is not a permutation"):
        scheduler().resource_offers(offers("a@h", "b@h"), 0, order=[0, 0])


def test_the_default_shuffle_is_seeded() -> None:
    def first_orders(seed: int) -> list[list[str]]:
        sched = scheduler(shuffle=True, seed=seed)
        return [
            [o.executor_id for o in sched.resource_offers(offers("a@h", "b@h", "c@h", "d@h"), t).offers]
            for t in range(5)
        ]

    assert first_orders(1) == first_orders(1)
    assert first_orders(1) != first_orders(2)
    assert len({tuple(order) for order in first_orders(3)}) > 1


def test_task_sets_go_fifo_by_priority_then_stage_then_submission() -> None:
    sched = scheduler()
    sched.submit_tasks(TaskSet.of([], stage_id=5, priority=1), 0)
    sched.submit_tasks(TaskSet.of([], stage_id=9, priority=0), 0)
    sched.submit_tasks(TaskSet.of([], stage_id=3, priority=0), 0)
    result = sched.resource_offers(offers("e@h", cores=3), 0)
    assert [t.task_set for t in result.launched] == ["3.0", "9.0", "5.0"]


def test_resubmitting_a_stage_makes_the_older_attempt_a_zombie() -> None:
    sched = scheduler()
    old = sched.submit_tasks(TaskSet.of([], stage_id=1, stage_attempt_id=0), 0)
    new = sched.submit_tasks(TaskSet.of([], stage_id=1, stage_attempt_id=1), 0)
    assert old.is_zombie and not new.is_zombie
    assert sched.sorted_task_sets() == [new]


def test_excluded_nodes_and_executors_get_no_offer() -> None:
    sched = scheduler()
    sched.excluded_nodes.add("h1")
    sched.excluded_executors.add("e2")
    sched.submit_tasks(TaskSet.of([], [], []), 0)
    result = sched.resource_offers(offers("e1@h1", "e2@h2", "e3@h3"), 0)
    assert [o.executor_id for o in result.offers] == ["e3"]
    assert [t.executor_id for t in result.launched] == ["e3"]


def test_cores_per_task_limit_the_launches_per_offer() -> None:
    sched = scheduler(DispatchConf(task_cpus=2))
    sched.submit_tasks(TaskSet.of([], [], [], []), 0)
    result = sched.resource_offers([WorkerOffer("e1", "h1", 5), WorkerOffer("e2", "h2", 1)], 0)
    assert placed(result.tasks) == [[0, 1], []]


def test_a_new_executor_makes_every_set_recompute_before_offers() -> None:
    sched = scheduler()
    manager = sched.submit_tasks(TaskSet.of(["executor_h1_e1"]), 0)
    assert manager.levels == (ANY,)
    result = sched.resource_offers(offers("e1@h1"), 0)
    assert manager.levels == (PROCESS, NODE, ANY)
    assert [(t.index, t.locality) for t in result.launched] == [(0, PROCESS)]


def test_a_barrier_set_is_skipped_without_enough_slots() -> None:
    sched = scheduler()
    barrier = sched.submit_tasks(TaskSet.of([], [], barrier=True), 0)
    result = sched.resource_offers(offers("e1@h1"), 0)
    assert result.launched == () and barrier.pending.no_prefs == [1, 0]


def test_a_partial_barrier_round_is_handed_back_and_its_cores_reused() -> None:
    sched = scheduler()
    barrier = sched.submit_tasks(TaskSet.of(["executor_h1_e1"], ["executor_h1_e1"], barrier=True, stage_id=0), 0)
    sched.submit_tasks(TaskSet.of([], stage_id=1), 0)
    result = sched.resource_offers(offers("e1@h1", "e2@h2"), 0)
    # e1 took one barrier task at PROCESS_LOCAL, the other could not launch: both go back and
    # the next set uses the first free core.
    assert [(t.task_set, t.executor_id) for t in result.launched] == [("1.0", "e1")]
    assert not barrier.barrier_pending and barrier.copies_running == [0, 0]
    assert sorted(barrier.pending.for_executor["e1"])[-1] == 1 and 0 in barrier.pending.all


def test_a_full_barrier_round_launches_everything_together() -> None:
    sched = scheduler()
    barrier = sched.submit_tasks(TaskSet.of([], [], barrier=True), 0)
    result = sched.resource_offers(offers("e1@h1", "e2@h2"), 0)
    assert sorted(t.index for t in result.launched) == [0, 1]
    assert barrier.copies_running == [1, 1]


def test_legacy_mode_aborts_a_partial_barrier_round() -> None:
    # Legacy barrier sets wait 0, so only an offer the set refuses (its node is excluded for
    # the set) leaves a task without a slot although the slots add up.
    for legacy in (False, True):
        sched = scheduler(DispatchConf(variant=DispatchVariant(legacy_reset_on_task_launch=legacy)))
        barrier = sched.submit_tasks(TaskSet.of([], [], barrier=True), 0)
        barrier.excluded_nodes.add("h2")
        result = sched.resource_offers(offers("e1@h1", "e2@h2"), 0)
        assert result.launched == ()
        assert barrier.is_zombie is legacy
        assert [name for name, _ in sched.log.failed_task_sets] == (["0.0"] if legacy else [])


def _prefers_e1(conf: DispatchConf | None = None) -> tuple[TaskSchedulerImpl, TaskSetManager]:
    """Spark's setupTaskSchedulerForLocalityTests: e1 is known, then six tasks that prefer it."""
    sched = scheduler(conf)
    sched.resource_offers(offers("e1@h1"), 0)
    manager = sched.submit_tasks(TaskSet.of(*[["executor_h1_e1"]] * 6), 0)
    return sched, manager


def test_a_full_offer_that_launches_without_reject_resets_the_timer() -> None:
    sched, manager = _prefers_e1()
    sched.resource_offers(offers("e2@h1"), 0)  # reject recorded
    result = sched.resource_offers(offers("e1@h1"), 3500, is_all_free_resources=True)
    assert [t.locality for t in result.launched] == [PROCESS]
    assert manager.last_reset == 3500 and manager.levels[manager.current_index] is PROCESS


def test_a_partial_offer_after_a_reject_does_not_reset() -> None:
    sched, manager = _prefers_e1()
    sched.resource_offers(offers("e2@h1"), 0)
    sched.resource_offers(offers("e1@h1"), 3500, is_all_free_resources=False)
    assert manager.last_reset == 3000 and manager.levels[manager.current_index] is NODE
    result = sched.resource_offers(offers("e2@h1"), 3500, is_all_free_resources=False)
    assert [t.locality for t in result.launched] == [NODE]


def test_legacy_mode_leaves_the_reset_to_the_manager() -> None:
    sched, manager = _prefers_e1(DispatchConf(variant=DispatchVariant(legacy_reset_on_task_launch=True)))
    sched.resource_offers(offers("e1@h1"), 3500)
    assert manager.last_reset == 3500 and manager.current_index == 0


def test_executor_loss_reaches_every_set_in_the_pool() -> None:
    sched = scheduler()
    manager = sched.submit_tasks(TaskSet.of(["executor_h1_e1"], []), 0)
    launched = sched.resource_offers(offers("e1@h1", cores=2), 0).launched
    assert len(launched) == 2
    sched.executor_lost("e1", ExecutorLossReason(ExecutorLoss.EXITED, caused_by_app=False), 10)
    assert manager.copies_running == [0, 0] and manager.num_failures == [0, 0]
    assert manager.levels == (NO_PREF, ANY)
    assert not sched.is_executor_alive("e1") and not sched.has_executors_alive_on_host("h1")


def test_task_ids_count_across_task_sets_and_status_updates_are_routed() -> None:
    sched = scheduler()
    first = sched.submit_tasks(TaskSet.of([], stage_id=0), 0)
    second = sched.submit_tasks(TaskSet.of([], stage_id=1), 0)
    result = sched.resource_offers(offers("e@h", cores=2), 0)
    assert [(t.task_set, t.task_id) for t in result.launched] == [("0.0", 0), ("1.0", 1)]
    sched.task_succeeded(1, 5)
    assert second.successful == [True] and first.successful == [False]
    assert sched.is_finished(second) and second not in sched.pool


def test_real_liveness_versus_the_test_schedulers() -> None:
    for test_liveness, host_alive in ((False, True), (True, False)):
        sched = TaskSchedulerImpl(test_liveness=test_liveness)
        sched.add_executor("e0", "h0")
        sched.add_executor("e1", "h0")
        sched.executor_decommission("e1", "h0")
        # e0 is still alive; only the test scheduler hides a host named by a decommission.
        assert sched.is_executor_alive("e0") and not sched.is_executor_alive("e1")
        assert sched.has_executors_alive_on_host("h0") is host_alive
        assert sched.executors_alive_on_host("h0") == ["e0"]


def test_rack_liveness_follows_hosts_with_executors() -> None:
    sched = scheduler(h1="r1", h2="r1")
    sched.add_executor("e1", "h1")
    sched.add_executor("e2", "h2")
    assert sched.has_host_alive_on_rack("r1")
    sched.executor_decommission("e1", "h1")
    assert sched.has_host_alive_on_rack("r1")
    sched.executor_decommission("e2", "h2")
    assert not sched.has_host_alive_on_rack("r1")
    sched.remove_executor("e1")
    sched.remove_executor("e2")
    assert not sched.registry.rack_hosts
