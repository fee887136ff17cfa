"""Issue 12, item 1: the answers that depend on the order in which Spark walks its Scala hash
maps (``PendingTasksByLocality``, ``taskInfos``, ``runningTasksSet``). Each example is run in
the Scala 2.13 order of the ``spark-4.0`` variant, where it gives Spark 4.0.1's answer, and in
the canonical insertion order, where it gives the answer the model gave before."""

from __future__ import annotations

from dataclasses import replace

import pytest

from yarnspec.impl.spark.collection_order import CollectionOrder
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf
from yarnspec.impl.spark.taskset.dispatch_variant import VARIANTS
from yarnspec.impl.spark.taskset.tasks import ExecutorLoss, ExecutorLossReason, TaskSet

PROCESS, NODE, NO_PREF, RACK, ANY = list(TaskLocality)
SCALA = VARIANTS["spark-4.0"]
INSERTION = replace(SCALA, collection_order=CollectionOrder.INSERTION)
#: Spark 4.0's rules walked as a Scala 2.12 build walks (the orders below were printed by
#: scala-library 2.12.18's HashMap and HashSet for the same keys).
SCALA_2_12 = replace(SCALA, collection_order=CollectionOrder.SCALA_2_12)


def _sched(variant: object, wait: str, **racks: str) -> TaskSchedulerImpl:
    conf = DispatchConf.from_spark_conf({"spark.locality.wait": wait}, variant)  # type: ignore[arg-type]
    return TaskSchedulerImpl(conf, RackResolver.from_mapping(racks), shuffle_offers=False)


def test_spark_4_0_walks_scala_2_13_order_and_insertion_stays_canonical() -> None:
    assert SCALA.collection_order is CollectionOrder.SCALA_2_13
    assert DispatchConf().variant.collection_order is CollectionOrder.INSERTION


@pytest.mark.parametrize(("variant", "expected"), [(SCALA, (1, RACK)), (SCALA_2_12, (1, RACK)), (INSERTION, (0, RACK))])
def test_rack_lists_follow_the_host_map_order(variant: object, expected: tuple[int, TaskLocality]) -> None:
    # Tasks prefer host1 and host2, every host on one rack, no wait; one executor on host3.
    # addPendingTasks builds the rack list by walking forHost: Scala walks host1 then host2,
    # so the list is [0, 1] and Spark launches task 1; insertion order walks host2 first.
    sched = _sched(variant, "0", host1="r1", host2="r1", host3="r1")
    manager = sched.submit_tasks(TaskSet.of(["host1"], ["host2"]), 0)
    launched = sched.resource_offers([WorkerOffer("e3", "host3", 1)], 0).launched
    assert [(t.index, t.locality) for t in launched] == [expected]
    assert manager.levels == (RACK, ANY)


@pytest.mark.parametrize(
    ("variant", "levels", "launched"),
    [(SCALA, (ANY,), [(1, ANY)]), (SCALA_2_12, (ANY,), [(1, ANY)]), (INSERTION, (NODE, ANY), [])],
)
def test_exhausted_host_keys_are_cleaned_in_map_order(
    variant: object, levels: tuple[TaskLocality, ...], launched: list[tuple[int, TaskLocality]]
) -> None:
    # Tasks prefer host1 and hostZ, wait 3 s. e1@host1 (2 cores) takes task 0; its second core
    # asks getAllowedLocalityLevel, whose moreTasksToRunIn walks forHost: Scala meets host1
    # first, finds it exhausted and removes it, then stops at hostZ. When e2@host3 joins, the
    # levels are recomputed without host1 and NODE_LOCAL is gone.
    sched = _sched(variant, "3s")
    manager = sched.submit_tasks(TaskSet.of(["host1"], ["hostZ"]), 0)
    first = sched.resource_offers([WorkerOffer("e1", "host1", 2)], 0).launched
    assert [(t.index, t.locality) for t in first] == [(0, NODE)]
    second = sched.resource_offers([WorkerOffer("e2", "host3", 1)], 0).launched
    assert manager.levels == levels
    assert [(t.index, t.locality) for t in second] == launched


_LOST_ORDER = {
    id(SCALA): [16, 17, 18, 19, 14, 15],
    id(SCALA_2_12): [17, 14, 16, 19, 18, 15],
    id(INSERTION): list(range(14, 20)),
}


@pytest.mark.parametrize(("variant", "first_again"), [(SCALA, [1, 0]), (SCALA_2_12, [1, 4]), (INSERTION, [5, 4])])
def test_executor_lost_requeues_in_task_info_order(variant: object, first_again: list[int]) -> None:
    # A first set uses task ids 0..13; the second set's six tasks get ids 14..19 on e1. In a
    # 16-bucket Scala map those ids walk 16, 17, 18, 19, 14, 15, so executorLost fails (and
    # queues again) indices 2, 3, 4, 5, 0, 1: index 1 ends on top of the stack.
    sched = _sched(variant, "0")
    first_set = sched.submit_tasks(TaskSet.of(*[[]] * 14, stage_id=0), 0)
    for task in sched.resource_offers([WorkerOffer("e0", "h0", 14)], 0).launched:
        sched.task_succeeded(task.task_id, 0)
    assert first_set.is_zombie
    second = sched.submit_tasks(TaskSet.of(*[[]] * 6, stage_id=1), 0)
    ids = [t.task_id for t in sched.resource_offers([WorkerOffer("e1", "h1", 6)], 0).launched]
    assert ids == list(range(14, 20))
    sched.executor_lost("e1", ExecutorLossReason(ExecutorLoss.KILLED), 1)
    assert [end.task_id for end in sched.log.ended[-6:]] == _LOST_ORDER[id(variant)]
    again = sched.resource_offers([WorkerOffer("e2", "h2", 2)], 1).launched
    assert [t.index for t in again] == first_again
    assert second.copies_running == [1 if i in first_again else 0 for i in range(6)]


@pytest.mark.parametrize(
    ("variant", "marked"),
    [(SCALA, [2, 3, 4, 5, 0, 1]), (SCALA_2_12, [1, 5, 2, 3, 4, 0]), (INSERTION, [0, 1, 2, 3, 4, 5])],
)
def test_speculation_marks_running_tasks_in_running_set_order(variant: object, marked: list[int]) -> None:
    # checkSpeculatableTasks walks runningTasksSet (a HashSet[Long]) holding ids 14..19; 2.13
    # walks 16, 17, 18, 19, 14, 15 (16 buckets), 2.12's flat table 15, 19, 16, 17, 18, 14.
    conf = DispatchConf.from_spark_conf(
        {"spark.speculation": "true", "spark.speculation.quantile": "0.01", "spark.locality.wait": "0"},
        variant,  # type: ignore[arg-type]
    )
    sched = TaskSchedulerImpl(conf, shuffle_offers=False)
    sched.submit_tasks(TaskSet.of(*[[]] * 14, stage_id=0), 0)
    for task in sched.resource_offers([WorkerOffer("e0", "h0", 14)], 0).launched:
        sched.task_succeeded(task.task_id, 0)
    second = sched.submit_tasks(TaskSet.of(*[[]] * 7, stage_id=1), 0)
    launched = sched.resource_offers([WorkerOffer("e1", "h1", 7)], 0).launched
    sched.task_succeeded(launched[-1].task_id, 10)  # id 20, index 6: one success, 10 ms
    assert second.check_speculatable_tasks(None, 1000)
    assert [index for _, index in sched.log.speculative] == marked
