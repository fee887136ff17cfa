"""One property type for every invariant: the scheduler model's invariants, the preemption
round's properties and Spark's allocator and dispatch invariants are all values of
``spec.property.Property``, and each record's ``check`` is its predicate's verdict."""

from __future__ import annotations

from typing import Any

import pytest

from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl
from yarnspec.impl.spark.taskset.tasks import OfferResult, TaskDescription, TaskSet
from yarnspec.spec.preemption.invariants import PROPERTIES, RoundProperty
from yarnspec.spec.property import Property, docstring_parts
from yarnspec.spec.scheduler.invariants import INVARIANTS
from yarnspec.spec.spark import allocator as spark_allocator
from yarnspec.spec.spark import dispatch as spark_dispatch

ANY, NODE = TaskLocality.ANY, TaskLocality.NODE_LOCAL

CATALOGUES: dict[str, tuple[Property[Any, Any], ...]] = {
    "scheduler": INVARIANTS,
    "preemption": tuple(PROPERTIES.values()),
    "spark-allocator": (
        *spark_allocator.ALLOCATOR_INVARIANTS,
        spark_allocator.REQUESTS_FILL_TARGET,
        spark_allocator.PLACEMENT_OUTPUT_VALID,
    ),
    "spark-dispatch": (
        *spark_dispatch.TASK_SET_INVARIANTS,
        spark_dispatch.LEVELS_ARE_LIVE,
        *spark_dispatch.OFFER_PROPERTIES,
    ),
}


@pytest.mark.parametrize("family", CATALOGUES)
def test_every_invariant_is_a_property(family: str) -> None:
    """Every catalogue holds values of the one type, each named, summarised and sourced once."""
    catalogue = CATALOGUES[family]
    assert catalogue and all(isinstance(p, Property) for p in catalogue)
    assert all(p.name and p.summary and p.source for p in catalogue)
    assert len({p.name for p in catalogue}) == len(catalogue)


def test_docstring_parts_split_summary_and_source() -> None:
    def predicate() -> None:
        """Holds   when it
        holds. Source: semantics A.1."""

    assert docstring_parts(predicate) == ("Holds when it holds.", "semantics A.1")


def test_a_round_property_is_promised_by_the_rules_it_needs() -> None:
    """A preemption property names the policy rules it needs; a misspelt rule is refused."""
    budget = PROPERTIES["within_round_budget"]
    assert budget.needs == ("budgeted_container_rule",)
    assert budget.promised(PreemptionConfig()) and not budget.promised(PreemptionConfig(variant="hadoop-2.7.3"))
    assert PROPERTIES["selected_once"].promised(PreemptionConfig(variant="hadoop-2.7.3"))
    with pytest.raises(ValueError, match="no policy rule 'budget'"):
        RoundProperty("x", "s", "src", lambda rnd: [], ("budget",))


def test_the_spark_dispatch_records_report_what_their_predicates_report() -> None:
    """The records judge a task set, a task set in its cluster and an offer, and catch a broken
    one with the predicate's own messages."""
    sched = TaskSchedulerImpl(shuffle_offers=False)
    sched.add_executor("e1", "h1")
    sched.add_executor("e2", "h2")
    manager = sched.submit_tasks(TaskSet.of(["h1"]), 0)
    expected = spark_dispatch.expect_offer(manager, "e2", "h2", ANY, 0)
    too_loose = OfferResult(task=TaskDescription(7, 0, 1, "e2", "h2", ANY, False, "0.0"))
    offer = spark_dispatch.Offer(manager, sched, too_loose, ANY, expected, 0)
    launch, delay = spark_dispatch.OFFER_PROPERTIES
    assert launch.check(offer) == [
        "task 0 of stage 0.0 launched ANY on e2 but only NODE_LOCAL was allowed (cap ANY, delay level NODE_LOCAL)"
    ]
    assert delay.check(offer) == []
    assert spark_dispatch.LEVELS_ARE_LIVE.check(spark_dispatch.TaskSetInCluster(manager, sched)) == []
    manager.levels = (ANY, NODE)
    assert spark_dispatch.LEVELS_ARE_LIVE.check(spark_dispatch.TaskSetInCluster(manager, sched))
    assert any("do not end with ANY" in v for v in spark_dispatch.TASK_SET_INVARIANTS[1].check(manager))
