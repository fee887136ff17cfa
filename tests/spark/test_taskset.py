"""TaskSetManager (semantics 5): configuration, pending lists, valid levels, delay scheduling,
the dequeue order, both reset rules, completion, executor loss and speculation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf, LocalityWaits, SpeculationConf, parse_time_ms
from yarnspec.impl.spark.taskset.dispatch_variant import VARIANTS, DispatchVariant
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import (
    EndReason,
    ExecutorLoss,
    ExecutorLossReason,
    TaskEndReason,
    TaskSet,
    TaskState,
)

PROCESS, NODE, NO_PREF, RACK, ANY = list(TaskLocality)
RESULT_LOST = TaskEndReason(EndReason.TASK_RESULT_LOST)
KILLED = TaskEndReason(EndReason.TASK_KILLED)


def setup(
    *tasks: Sequence[str],
    executors: Sequence[tuple[str, str]] = (("exec1", "host1"),),
    racks: Mapping[str, str] | None = None,
    conf: DispatchConf | None = None,
    now: int = 0,
    **task_set_fields: bool,
) -> tuple[TaskSchedulerImpl, TaskSetManager]:
    """Spark's TaskSetManagerSuite set-up: a test scheduler with these executors, and a
    manager (not in the pool) built at ``now``."""
    sched = TaskSchedulerImpl(conf, RackResolver.from_mapping(racks or {}), test_liveness=True, shuffle_offers=False)
    for executor_id, host in executors:
        sched.add_executor(executor_id, host)
    return sched, sched.create_manager(TaskSet.of(*tasks, **task_set_fields), now)


def offer(manager: TaskSetManager, executor_id: str, host: str, cap: TaskLocality, now: int = 0) -> int | None:
    """Offer and return the launched task's index (None if nothing)."""
    task = manager.resource_offer(executor_id, host, cap, now).task
    return None if task is None else task.index


# ---- configuration ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("3s", 3000),
        ("500ms", 500),
        ("0", 0),
        ("250", 250),
        (250, 250),
        ("1min", 60_000),
        ("2m", 120_000),
        ("1h", 3_600_000),
        ("1d", 86_400_000),
        ("1500us", 1),
        ("-1500us", -1),
        (" 3S ", 3000),
        ("-1s", -1000),
    ],
)
def test_spark_time_strings(text: str | int, ms: int) -> None:
    assert parse_time_ms(text, "k") == ms


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("3 s", "cannot read"),
        ("3x", "invalid time suffix 'x'"),
        ("abc", "cannot read"),
        ("1.5s", "cannot read"),
        (True, "expected a time"),
    ],
)
def test_bad_time_strings_name_the_key(text: object, fault: str) -> None:
    with pytest.raises(InputError, match=fault) as caught:
        parse_time_ms(text, "spark.locality.wait.node")
    assert caught.value.place == "spark.locality.wait.node"


def test_per_level_waits_fall_back_to_the_base_wait() -> None:
    assert LocalityWaits.from_conf({}) == LocalityWaits(3000, 3000, 3000)
    waits = LocalityWaits.from_conf({"spark.locality.wait": "1s", "spark.locality.wait.node": "0"})
    assert waits == LocalityWaits(process_ms=1000, node_ms=0, rack_ms=1000)
    assert [waits.wait_ms(level) for level in TaskLocality] == [1000, 0, 0, 1000, 0]


def test_spark_conf_reads_legacy_flag_failures_and_cpus() -> None:
    conf = DispatchConf.from_spark_conf(
        {"spark.locality.wait.legacyResetOnTaskLaunch": "TRUE", "spark.task.maxFailures": "2", "spark.task.cpus": 2}
    )
    assert conf.variant.legacy_reset_on_task_launch and conf.max_task_failures == 2 and conf.task_cpus == 2
    assert not DispatchConf.from_spark_conf({}).variant.legacy_reset_on_task_launch
    legacy_release = DispatchConf.from_spark_conf({}, VARIANTS["spark-3.0"])
    assert legacy_release.variant.legacy_reset_on_task_launch


@pytest.mark.parametrize(
    ("conf", "key"),
    [
        ({"spark.task.maxFailures": "0"}, "spark.task.maxFailures"),
        ({"spark.speculation": "yes"}, "spark.speculation"),
        ({"spark.locality.wait": "soon"}, "spark.locality.wait"),
        ({"spark.task.cpus": True}, "spark.task.cpus"),
    ],
)
def test_bad_spark_conf_names_the_key(conf: dict[str, object], key: str) -> None:
    with pytest.raises(InputError) as caught:
        DispatchConf.from_spark_conf(conf)
    assert caught.value.place == key


# ---- pending lists and valid levels ------------------------------------------------------


def test_lists_are_stacks_filled_from_the_highest_index() -> None:
    _, manager = setup(["host1"], ["host1"], [], ["executor_host1_exec1"])
    assert manager.pending.for_host["host1"] == [3, 1, 0]
    assert manager.pending.all == [3, 2, 1, 0]
    assert manager.pending.no_prefs == [2]
    assert manager.pending.for_executor == {"exec1": [3]}


def test_racks_are_resolved_in_one_batch_per_host() -> None:
    _, manager = setup(["host1"], ["host2"], ["host1"], racks={"host1": "r1", "host2": "r1"})
    # Host lists are appended to the rack list host by host (SPARK-13704), not task by task.
    assert manager.pending.for_host == {"host1": [2, 0], "host2": [1]}
    assert manager.pending.for_rack == {"r1": [2, 0, 1]}


def test_valid_levels_need_live_candidates() -> None:
    _, manager = setup(["executor_host1_dead"], [], executors=[("exec1", "host1")])
    assert manager.levels == (NODE, NO_PREF, ANY)
    _, manager = setup(["host9"], executors=[("exec1", "host1")], racks={"host9": "r1", "host1": "r1"})
    assert manager.levels == (RACK, ANY)
    _, manager = setup(["host9"], executors=[("exec1", "host1")], racks={"host9": "r2", "host1": "r1"})
    assert manager.levels == (ANY,)


def test_hdfs_cached_location_reaches_only_executors_alive_when_queued() -> None:
    sched, manager = setup(["hdfs_cache_host1"], executors=[("exec1", "host1")])
    assert manager.pending.for_executor == {"exec1": [0]}
    sched.add_executor("exec2", "host1")
    manager.executor_added()
    assert manager.pending.for_executor == {"exec1": [0]}
    # exec2 is on the cached host but not on the executor list: the task is only node-local
    # there, so exec2 gets it once the process-local wait has passed.
    assert manager.resource_offer("exec2", "host1", ANY, 0).task is None
    result = manager.resource_offer("exec2", "host1", ANY, 3000)
    assert result.task is not None and result.task.locality is NODE


# ---- delay scheduling ----------------------------------------------------------------------


def test_an_expired_wait_advances_the_timer_by_exactly_the_wait() -> None:
    _, manager = setup(
        ["executor_host1_exec1"], ["executor_host1_exec1"], executors=[("exec1", "host1"), ("exec2", "host2")]
    )
    assert manager.levels == (PROCESS, NODE, ANY)
    assert manager.allowed_locality(4000) is NODE
    assert manager.last_reset == 3000  # not 4000
    assert manager.allowed_locality(5999) is NODE
    assert manager.allowed_locality(6000) is ANY


def test_several_levels_pass_in_one_call_after_a_long_idle_time() -> None:
    _, manager = setup(["executor_host1_exec1"], executors=[("exec1", "host1")], racks={"host1": "r"})
    assert manager.levels == (PROCESS, NODE, RACK, ANY)
    assert manager.allowed_locality(9000) is ANY
    assert manager.last_reset == 9000


def test_a_level_without_tasks_is_passed_at_once_spark_4939() -> None:
    _, manager = setup(["executor_host1_exec1"], ["host2"], executors=[("exec1", "host1"), ("exec2", "host2")])
    assert offer(manager, "exec1", "host1", PROCESS, now=100) == 0
    assert manager.allowed_locality(200) is NODE
    assert manager.last_reset == 200


def test_before_spark_4939_an_empty_level_is_waited_out() -> None:
    conf = DispatchConf(variant=VARIANTS["spark-1.2"])
    _, manager = setup(
        ["executor_host1_exec1"], ["host2"], executors=[("exec1", "host1"), ("exec2", "host2")], conf=conf
    )
    assert offer(manager, "exec1", "host1", PROCESS, now=100) == 0  # legacy reset: timer at 100
    assert manager.allowed_locality(200) is PROCESS
    assert manager.allowed_locality(3100) is NODE


def test_no_pref_is_never_a_level_one_stops_at() -> None:
    _, manager = setup([], [])
    assert manager.levels == (NO_PREF, ANY)
    assert manager.allowed_locality(0) is ANY


def test_the_executor_list_is_searched_whatever_the_cap_and_no_pref_cap_skips_delay() -> None:
    _, manager = setup(["executor_host1_exec1"], ["host1"], [], executors=[("exec1", "host1")])
    assert offer(manager, "exec1", "host1", PROCESS) == 0
    index_before, reset_before = manager.current_index, manager.last_reset
    assert offer(manager, "exec1", "host1", NO_PREF, now=99_000) == 1  # host list, cap NO_PREF
    assert (manager.current_index, manager.last_reset) == (index_before, reset_before)


def test_no_pref_tasks_come_after_host_tasks_and_before_rack_tasks_reported_process_local() -> None:
    _, manager = setup(
        [], ["host1"], ["host2"], executors=[("exec1", "host1"), ("exec2", "host2")], racks={"host1": "r", "host2": "r"}
    )
    first = manager.resource_offer("exec1", "host1", NO_PREF, 0).task
    second = manager.resource_offer("exec1", "host1", NO_PREF, 0).task
    assert first is not None and (first.index, first.locality) == (1, NODE)
    assert second is not None and (second.index, second.locality) == (0, PROCESS)
    manager.allowed_locality(10_000)
    third = manager.resource_offer("exec1", "host1", RACK, 10_000).task
    assert third is not None and (third.index, third.locality) == (2, RACK)


def test_delay_reject_flag() -> None:
    _, manager = setup(["host2"], executors=[("exec1", "host1"), ("exec2", "host2")])
    assert manager.resource_offer("exec1", "host1", NODE, 0).delay_reject is False  # cap is not ANY
    assert manager.resource_offer("exec1", "host1", ANY, 0).delay_reject is True
    manager.excluded_nodes.add("host1")
    assert manager.resource_offer("exec1", "host1", ANY, 0).delay_reject is False
    manager.excluded_nodes.clear()
    manager.is_zombie = True
    assert manager.resource_offer("exec1", "host1", ANY, 0).delay_reject is False
    manager.is_zombie = False
    assert offer(manager, "exec2", "host2", ANY) == 0
    assert manager.resource_offer("exec1", "host1", ANY, 0).delay_reject is False  # nothing pending


def test_legacy_mode_resets_on_launch_current_mode_does_not() -> None:
    tasks = (["host1"], ["host1"], ["host2"])
    executors = [("exec1", "host1"), ("exec2", "host2")]
    for legacy in (True, False):
        conf = DispatchConf(variant=DispatchVariant(legacy_reset_on_task_launch=legacy))
        _, manager = setup(*tasks, executors=executors, conf=conf)
        assert manager.allowed_locality(3000) is ANY
        assert offer(manager, "exec1", "host1", ANY, now=3500) == 0  # NODE_LOCAL launch
        if legacy:
            assert (manager.levels[manager.current_index], manager.last_reset) == (NODE, 3500)
        else:
            assert (manager.levels[manager.current_index], manager.last_reset) == (ANY, 3000)


def test_legacy_mode_no_pref_capped_launch_does_not_reset() -> None:
    conf = DispatchConf(variant=DispatchVariant(legacy_reset_on_task_launch=True))
    _, manager = setup(["host1"], [], executors=[("exec1", "host1")], conf=conf)
    manager.allowed_locality(5000)
    before = (manager.current_index, manager.last_reset)
    assert offer(manager, "exec1", "host1", NO_PREF, now=5000) == 0
    assert (manager.current_index, manager.last_reset) == before


def test_legacy_barrier_sets_never_wait() -> None:
    conf = DispatchConf(variant=DispatchVariant(legacy_reset_on_task_launch=True))
    _, barrier = setup(["host1"], conf=conf, barrier=True)
    assert barrier.waits == (0, 0)
    _, current = setup(["host1"], barrier=True)
    assert current.waits == (3000, 0)


# ---- recomputation after executor changes --------------------------------------------------


def test_recompute_jumps_to_a_newly_added_better_level_spark_31837() -> None:
    for jump, expected in ((True, PROCESS), (False, ANY)):
        conf = DispatchConf(variant=DispatchVariant(jump_to_new_best_level=jump))
        sched, manager = setup(["executor_host1_execA"], executors=[], conf=conf)
        assert manager.levels == (ANY,)
        sched.add_executor("execA", "host1")
        manager.executor_added()
        assert manager.levels == (PROCESS, NODE, ANY)
        assert manager.levels[manager.current_index] is expected


def test_current_index_stays_inside_shrunken_levels_spark_2931() -> None:
    sched, manager = setup(["executor_host1_execA"], executors=[("execA", "host1")])
    assert manager.allowed_locality(10_000) is ANY and manager.current_index == 2
    sched.remove_executor("execA")
    manager.executor_lost("execA", "host1", ExecutorLossReason(ExecutorLoss.PROCESS_LOST), 10_000)
    assert manager.levels == (ANY,) and manager.current_index == 0


def test_decommission_liveness_is_a_variant() -> None:
    for variant, levels in (("spark-4.0", (ANY,)), ("spark-3.0", (PROCESS, NODE, ANY))):
        conf = DispatchConf(variant=VARIANTS[variant])
        sched = TaskSchedulerImpl(conf, test_liveness=True, shuffle_offers=False)
        sched.add_executor("exec0", "host0")
        manager = sched.submit_tasks(TaskSet.of(["executor_host0_exec0"]), 0)
        sched.executor_decommission("exec0", None)
        assert manager.levels == levels


# ---- completion and failures ---------------------------------------------------------------


def test_success_marks_done_and_the_last_success_finishes_the_set() -> None:
    sched, manager = setup([], [])
    a = manager.resource_offer("exec1", "host1", ANY, 0).task
    b = manager.resource_offer("exec1", "host1", ANY, 0).task
    assert a is not None and b is not None
    manager.handle_successful_task(a.task_id, 1)
    assert manager.successful == [True, False] and not manager.is_zombie
    manager.handle_successful_task(b.task_id, 2)
    assert manager.is_zombie and sched.is_finished(manager)
    assert [end.reason.kind for end in sched.log.ended] == [EndReason.SUCCESS, EndReason.SUCCESS]


def test_counted_failures_abort_at_max_task_failures() -> None:
    sched, manager = setup([], conf=DispatchConf(max_task_failures=2))
    first = manager.resource_offer("exec1", "host1", ANY, 0).task
    assert first is not None
    manager.handle_failed_task(first.task_id, TaskState.FAILED, KILLED, 1)  # not counted
    second = manager.resource_offer("exec1", "host1", ANY, 1).task
    assert second is not None and second.attempt_number == 1
    manager.handle_failed_task(second.task_id, TaskState.FAILED, RESULT_LOST, 2)
    assert not sched.log.failed_task_sets and manager.num_failures == [1]
    third = manager.resource_offer("exec1", "host1", ANY, 2).task
    assert third is not None
    manager.handle_failed_task(third.task_id, TaskState.FAILED, RESULT_LOST, 3)
    assert [name for name, _ in sched.log.failed_task_sets] == ["0.0"] and manager.is_zombie


def test_a_failed_task_goes_back_on_top_of_its_lists() -> None:
    _, manager = setup(["host1"], ["host1"], ["host1"])
    first = manager.resource_offer("exec1", "host1", ANY, 0).task
    assert first is not None and first.index == 0
    manager.handle_failed_task(first.task_id, TaskState.FAILED, RESULT_LOST, 1)
    assert manager.pending.for_host["host1"][-1] == 0
    assert offer(manager, "exec1", "host1", ANY, now=1) == 0


def test_fetch_failure_makes_a_zombie_without_counting() -> None:
    _, manager = setup([], [])
    task = manager.resource_offer("exec1", "host1", ANY, 0).task
    assert task is not None
    manager.handle_failed_task(task.task_id, TaskState.FAILED, TaskEndReason(EndReason.FETCH_FAILED), 1)
    assert manager.is_zombie and manager.successful[0] and manager.num_failures == [0, 0]


def test_any_failure_of_a_barrier_task_makes_a_zombie() -> None:
    _, manager = setup([], barrier=True)
    held = manager.resource_offer("exec1", "host1", ANY, 0).barrier_pending
    assert held is not None and manager.resource_offer("exec1", "host1", ANY, 0).barrier_pending is None
    (task,) = manager.launch_barrier_tasks(0)
    manager.handle_failed_task(task.task_id, TaskState.KILLED, KILLED, 1)
    assert manager.is_zombie


def _loss(kind: ExecutorLoss, caused_by_app: bool = True) -> ExecutorLossReason:
    return ExecutorLossReason(kind, caused_by_app=caused_by_app)


@pytest.mark.parametrize(
    ("reason", "launched", "variant", "counted"),
    [
        (_loss(ExecutorLoss.EXITED, False), True, "spark-4.0", False),
        (_loss(ExecutorLoss.EXITED, True), True, "spark-4.0", True),
        (_loss(ExecutorLoss.KILLED), True, "spark-4.0", False),
        (_loss(ExecutorLoss.DECOMMISSION), True, "spark-4.0", False),
        (_loss(ExecutorLoss.PROCESS_LOST), True, "spark-4.0", True),
        (_loss(ExecutorLoss.PROCESS_LOST, False), True, "spark-4.0", False),
        (_loss(ExecutorLoss.PROCESS_LOST), False, "spark-4.0", False),  # SPARK-39955
        (_loss(ExecutorLoss.PROCESS_LOST), False, "spark-3.1-3.3", True),
    ],
)
def test_executor_loss_counts_only_when_the_app_is_to_blame(
    reason: ExecutorLossReason, launched: bool, variant: str, counted: bool
) -> None:
    sched, manager = setup([], conf=DispatchConf(variant=VARIANTS[variant]))
    task = manager.resource_offer("exec1", "host1", ANY, 0).task
    assert task is not None
    if launched:
        manager.task_running(task.task_id)
    sched.remove_executor("exec1")
    manager.executor_lost("exec1", "host1", reason, 5)
    assert manager.num_failures == [1 if counted else 0]
    assert manager.copies_running == [0] and manager.pending.all[-1] == 0


@pytest.mark.parametrize(
    ("shuffle_service", "kind", "resubmitted"),
    [
        (False, ExecutorLoss.PROCESS_LOST, True),
        (True, ExecutorLoss.PROCESS_LOST, False),
        (True, ExecutorLoss.DECOMMISSION, True),
    ],
)
def test_finished_map_output_on_a_lost_executor_is_resubmitted(
    shuffle_service: bool, kind: ExecutorLoss, resubmitted: bool
) -> None:
    conf = DispatchConf(external_shuffle_service=shuffle_service)
    sched, manager = setup([], [], executors=[("exec1", "host1"), ("exec2", "host2")], conf=conf, shuffle_map=True)
    a = manager.resource_offer("exec1", "host1", ANY, 0).task
    b = manager.resource_offer("exec2", "host2", ANY, 0).task
    assert a is not None and b is not None
    manager.handle_successful_task(a.task_id, 1)
    manager.executor_lost("exec1", "host1", ExecutorLossReason(kind), 2)
    assert manager.successful[0] is (not resubmitted)
    assert (sched.log.ended[-1].reason.kind is EndReason.RESUBMITTED) is resubmitted
    assert manager.tasks_successful == (0 if resubmitted else 1)


def test_result_stage_output_is_not_resubmitted() -> None:
    _, manager = setup([])
    task = manager.resource_offer("exec1", "host1", ANY, 0).task
    assert task is not None
    manager.handle_successful_task(task.task_id, 1)
    manager.executor_lost("exec1", "host1", ExecutorLossReason(ExecutorLoss.PROCESS_LOST), 2)
    assert manager.successful == [True]


# ---- speculation ---------------------------------------------------------------------------


def _speculating(**conf_fields: object) -> tuple[TaskSchedulerImpl, TaskSetManager]:
    conf = DispatchConf(speculation=SpeculationConf(enabled=True, multiplier=0.0, quantile=0.5))
    conf = replace(conf, **conf_fields)  # type: ignore[arg-type]
    sched, manager = setup([], [], [], [], executors=[("exec1", "host1"), ("exec2", "host2")], conf=conf)
    for executor_id, host in (("exec1", "host1"), ("exec1", "host1"), ("exec2", "host2"), ("exec2", "host2")):
        assert manager.resource_offer(executor_id, host, NO_PREF, 0).task is not None
    return sched, manager


def test_check_speculatable_tasks_needs_the_quantile_and_a_long_enough_run() -> None:
    sched, manager = _speculating()
    assert not manager.check_speculatable_tasks(0, 2)  # nothing succeeded yet
    manager.handle_successful_task(0, 1)
    assert not manager.check_speculatable_tasks(0, 2)  # 1 of 4 < quantile 0.5
    manager.handle_successful_task(2, 1)
    assert not manager.check_speculatable_tasks(5, 2)  # ran 2 ms, not longer than 5
    assert manager.check_speculatable_tasks(0, 2)
    assert sorted(i for _, i in sched.log.speculative) == [1, 3]
    assert not manager.check_speculatable_tasks(0, 3)  # already marked


def test_a_speculative_copy_avoids_hosts_with_an_attempt_and_runs_once() -> None:
    sched, manager = _speculating()
    manager.handle_successful_task(0, 1)
    manager.handle_successful_task(2, 1)
    manager.check_speculatable_tasks(0, 2)
    copy3 = manager.resource_offer("exec1", "host1", NO_PREF, 3).task  # task 3 ran on host2
    copy1 = manager.resource_offer("exec2", "host2", NO_PREF, 3).task  # task 1 ran on host1
    assert copy3 is not None and (copy3.index, copy3.speculative, copy3.attempt_number) == (3, True, 1)
    assert copy1 is not None and copy1.index == 1
    assert manager.resource_offer("exec1", "host1", ANY, 3).task is None
    assert manager.copies_running[1] == 2 and manager.copies_running[3] == 2
    # The copy wins: the original is asked to stop, and its late success counts as a kill.
    manager.handle_successful_task(copy3.task_id, 4)
    assert sched.log.kills == [(3, "exec2", "another attempt succeeded")]
    manager.handle_successful_task(3, 5)
    assert sched.log.ended[-1].reason.kind is EndReason.TASK_KILLED


def test_single_set_speculation_before_spark_26755() -> None:
    sched, manager = _speculating(variant=VARIANTS["spark-2.2-2.4"])
    manager.mark_speculatable(1)
    assert manager.speculative_pending.all == []
    assert manager.resource_offer("exec1", "host1", NO_PREF, 1).task is None  # task 1 ran on host1
    copy = manager.resource_offer("exec2", "host2", NO_PREF, 1).task
    assert copy is not None and (copy.index, copy.locality, copy.speculative) == (1, PROCESS, True)
    assert not manager.speculatable
