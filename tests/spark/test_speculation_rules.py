"""Issue 12, items 2 and 3: the median each release reads from the successful durations, and
the speculation defaults each release ships."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf
from yarnspec.impl.spark.taskset.dispatch_variant import VARIANTS, SpeculationMedian
from yarnspec.impl.spark.taskset.tasks import TaskSet

UPPER, AVERAGE, ROUNDED = (
    SpeculationMedian.UPPER_MIDDLE,
    SpeculationMedian.AVERAGE_OF_MIDDLE,
    SpeculationMedian.SORTED_ROUNDED_HALF,
)


def test_each_rule_on_known_durations() -> None:
    assert [rule.of([1000, 0]) for rule in (UPPER, AVERAGE, ROUNDED)] == [1000.0, 500.0, 1000.0]
    assert [rule.of([3, 1, 2]) for rule in (UPPER, AVERAGE, ROUNDED)] == [2.0, 2.0, 3.0]  # round(1.5) = 2
    assert [rule.of([7]) for rule in (UPPER, AVERAGE, ROUNDED)] == [7.0, 7.0, 7.0]
    assert [rule.of([4, 1, 3, 2]) for rule in (UPPER, AVERAGE, ROUNDED)] == [3.0, 2.5, 3.0]


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=40))
def test_upper_middle_is_the_percentile_heap_answer(durations: list[int]) -> None:
    # PercentileHeap(0.5).percentile: sorted((n * 0.5).toInt), computed here by counting.
    n = len(durations)
    k = int(n * 0.5)
    answer = UPPER.of(durations)
    assert sum(1 for d in durations if d < answer) <= k < sum(1 for d in durations if d <= answer)
    lower, upper = sorted(durations)[(n - 1) // 2], sorted(durations)[n // 2]
    assert AVERAGE.of(durations) == (lower + upper) / 2


def _threshold_case(variant_name: str) -> bool:
    """Four tasks, quantile 0.5, multiplier 1.5: tasks 0 and 1 succeed after 0 ms and 1000 ms;
    task 2 has run 1200 ms. Whether ``checkSpeculatableTasks`` marks it."""
    conf = DispatchConf.from_spark_conf(
        {
            "spark.speculation": "true",
            "spark.speculation.quantile": "0.5",
            "spark.speculation.multiplier": "1.5",
            "spark.locality.wait": "0",
        },
        VARIANTS[variant_name],
    )
    sched = TaskSchedulerImpl(conf, shuffle_offers=False)
    manager = sched.submit_tasks(TaskSet.of([], [], [], []), 0)
    launched = sched.resource_offers([WorkerOffer("e1", "h1", 4)], 0).launched
    sched.task_succeeded(launched[0].task_id, 0)
    sched.task_succeeded(launched[1].task_id, 1000)
    return manager.check_speculatable_tasks(None, 1201)


def test_spark_4_and_3_5_read_the_upper_middle_and_do_not_speculate() -> None:
    # median 1000 -> threshold 1500 > 1201
    assert not _threshold_case("spark-4.0")
    assert not _threshold_case("spark-3.5")


def test_spark_3_4_and_older_average_and_speculate() -> None:
    # median 500 -> threshold 750 < 1201
    assert _threshold_case("spark-3.4")
    assert _threshold_case("spark-2.2-2.4")
    assert not _threshold_case("spark-2.0-2.1")  # d[round(1.0)] = 1000


@pytest.mark.parametrize(
    ("name", "multiplier", "quantile"),
    [("spark-4.0", 3.0, 0.9), ("spark-3.5", 1.5, 0.75), ("spark-3.4", 1.5, 0.75), ("spark-1.2", 1.5, 0.75)],
)
def test_defaults_follow_the_release(name: str, multiplier: float, quantile: float) -> None:
    speculation = DispatchConf.from_spark_conf({}, VARIANTS[name]).speculation
    assert (speculation.multiplier, speculation.quantile, speculation.min_task_runtime_ms) == (
        multiplier,
        quantile,
        100,
    )


def test_explicit_keys_override_the_release_defaults() -> None:
    conf = {
        "spark.speculation.multiplier": "2",
        "spark.speculation.quantile": "0.5",
        "spark.speculation.minTaskRuntime": "2s",
    }
    speculation = DispatchConf.from_spark_conf(conf, VARIANTS["spark-4.0"]).speculation
    assert (speculation.multiplier, speculation.quantile, speculation.min_task_runtime_ms) == (2.0, 0.5, 2000)


def test_min_task_runtime_is_the_floor_of_the_threshold() -> None:
    conf = DispatchConf.from_spark_conf(
        {"spark.speculation": "true", "spark.speculation.quantile": "0.5", "spark.speculation.minTaskRuntime": "5s"},
        VARIANTS["spark-4.0"],
    )
    sched = TaskSchedulerImpl(conf, shuffle_offers=False)
    manager = sched.submit_tasks(TaskSet.of([], []), 0)
    launched = sched.resource_offers([WorkerOffer("e1", "h1", 2)], 0).launched
    sched.task_succeeded(launched[0].task_id, 10)
    assert not manager.check_speculatable_tasks(None, 4999)
    assert manager.check_speculatable_tasks(None, 5001)
    assert math.isclose(conf.speculation.multiplier, 3.0)


def test_a_bad_min_task_runtime_names_the_key() -> None:
    with pytest.raises(InputError, match="spark.speculation.minTaskRuntime"):
        DispatchConf.from_spark_conf({"spark.speculation.minTaskRuntime": "soon"})


def test_executor_lost_does_not_resubmit_a_copy_killed_by_another_attempt() -> None:
    # SPARK-22074: task 0 runs on e1, its speculative copy succeeds on e2 and the original is
    # killed; losing e1 must not undo the success (the model once queued task 0 again).
    from yarnspec.impl.spark.taskset.tasks import EndReason, ExecutorLoss, ExecutorLossReason, TaskEndReason, TaskState

    conf = DispatchConf.from_spark_conf(
        {"spark.speculation": "true", "spark.locality.wait": "0"}, VARIANTS["spark-4.0"]
    )
    sched = TaskSchedulerImpl(conf, shuffle_offers=False)
    manager = sched.submit_tasks(TaskSet.of([], [], shuffle_map=True), 0)
    original, other = sched.resource_offers([WorkerOffer("e1", "h1", 2)], 0).launched
    manager.mark_speculatable(original.index)
    (copy,) = sched.resource_offers([WorkerOffer("e2", "h2", 1)], 0).launched
    assert copy.speculative and copy.index == original.index
    sched.task_succeeded(copy.task_id, 5)
    sched.task_failed(original.task_id, TaskState.KILLED, TaskEndReason(EndReason.TASK_KILLED), 6)
    sched.executor_lost("e1", ExecutorLossReason(ExecutorLoss.KILLED), 7)
    assert manager.successful[original.index]
    assert [end.reason.kind for end in sched.log.ended if end.index == original.index] == [
        EndReason.SUCCESS,
        EndReason.TASK_KILLED,
    ]
    assert other.index != original.index
