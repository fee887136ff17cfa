"""Queues of a policy snapshot from a configuration and partitions (semantics A.2)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from yarnspec.impl.cluster import ClusterSnapshot, Node, Partition, Queue
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.hadoop_xml import HadoopConfiguration
from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.config.keys import MONITOR_ENABLE
from yarnspec.impl.config.scheduler import SchedulerConfiguration, scheduler_configuration
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource

MONITOR_ON = {MONITOR_ENABLE: "true"}


def configure(props: Mapping[str, str], extra: Mapping[str, str] = MONITOR_ON) -> SchedulerConfiguration:
    full = {PREFIX + k: v for k, v in props.items()}
    return scheduler_configuration(HadoopConfiguration.of({**full, **extra}, source="cs.xml"))


def build(props: Mapping[str, str], *partitions: Partition, extra: Mapping[str, str] = MONITOR_ON) -> dict[str, Queue]:
    return {q.path: q for q in queues_for_snapshot(configure(props, extra), list(partitions))}


DEFAULT = Partition("", Resource.of(102400, 96))
TWO = {"root.queues": "a,b", "root.a.capacity": "70", "root.b.capacity": "30"}


def test_guaranteed_is_the_partition_times_the_float_share_truncated() -> None:
    queues = build({**TWO, "root.a.queues": "x", "root.a.x.capacity": "100", "root.b.maximum-capacity": "80"}, DEFAULT)
    assert queues["root"].at("").guaranteed == Resource.of(102400, 96)
    # 0.7 as a Java float is 0.699999988...: 102400 x that = 71679.998..., truncated.
    assert queues["root.a"].at("").guaranteed == Resource.of(71679, 67)
    assert queues["root.a.x"].at("").guaranteed == Resource.of(71679, 67)
    # 0.3f = 0.300000011...: 30720.001... and 28.800001...
    assert queues["root.b"].at("").guaranteed == Resource.of(30720, 28)
    assert queues["root.b"].at("").maximum == Resource.of(81920, 76)  # 0.8f x 96 = 76.8000011...
    assert queues["root.a"].at("").maximum == Resource.of(102400, 96)
    assert queues["root.a"].at("").used == Resource.of(0, 0)


LABELLED = {
    "root.queues": "a,b,c,d",
    "root.a.capacity": "40",
    "root.b.capacity": "30",
    "root.c.capacity": "30",
    "root.d.capacity": "0",
    "root.accessible-node-labels.x.capacity": "100",
    "root.a.accessible-node-labels.x.capacity": "40",
    "root.a.accessible-node-labels.x.maximum-capacity": "50",
    "root.b.accessible-node-labels.x.capacity": "60",
    "root.c.accessible-node-labels.x.capacity": "0",
    "root.c.accessible-node-labels.x.maximum-capacity": "0",
}


@pytest.mark.parametrize("exclusive", [True, False])
def test_maximum_in_a_label_falls_back_to_the_whole_partition_only_when_non_exclusive(exclusive: bool) -> None:
    x = Partition("x", Resource.of(1000, 10), exclusive=exclusive)
    queues = build(LABELLED, DEFAULT, x)
    assert queues["root.a"].at("x").guaranteed == Resource.of(400, 4)
    assert queues["root.a"].at("x").maximum == Resource.of(500, 5)  # an effective maximum wins
    whole = Resource.of(1000, 10) if not exclusive else Resource.of(0, 0)
    assert queues["root.c"].at("x").maximum == whole  # configured max 0
    assert queues["root.d"].at("x").maximum == whole  # no settings for x at all
    assert queues["root.d"].at("x").guaranteed == Resource.of(0, 0)
    assert queues["root.b"].at("x").maximum == Resource.of(1000, 10)  # default 100 either way


def test_root_has_the_whole_partition_even_without_a_label_capacity() -> None:
    queues = build(
        {**TWO, "root.a.accessible-node-labels.x.capacity": "100"}, DEFAULT, Partition("x", Resource.of(1000, 10))
    )
    assert queues["root"].at("x").guaranteed == Resource.of(1000, 10)
    assert queues["root.a"].at("x").guaranteed == Resource.of(0, 0)  # root's own x capacity is 0


def test_labels_must_be_partitions_of_the_cluster() -> None:
    conf = configure({**TWO, "root.a.accessible-node-labels": "gpu"})
    with pytest.raises(
        InputError,
        match=r"^cs.xml:4: yarn.scheduler.capacity.root.a.accessible-node-labels: label 'gpu' is not a node label of the cluster \(its labels: none\)$",
    ):
        queues_for_snapshot(conf, [DEFAULT])


def test_partitions_are_checked() -> None:
    conf = configure(TWO)
    with pytest.raises(InputError, match="default partition '' is missing"):
        queues_for_snapshot(conf, [Partition("x", Resource.of(1, 1))])
    with pytest.raises(InputError, match="partition given twice"):
        queues_for_snapshot(conf, [DEFAULT, DEFAULT])


def test_preemption_is_disabled_everywhere_while_the_monitor_is_off() -> None:
    props = {**TWO, "root.a.disable_preemption": "true", "root.a.queues": "x", "root.a.x.capacity": "100"}
    on = build(props, DEFAULT)
    assert {p: q.preemption_disabled for p, q in on.items()} == {
        "root": False,
        "root.a": True,
        "root.a.x": True,
        "root.b": False,
    }
    off = build(props, DEFAULT, extra={})
    assert all(q.preemption_disabled for q in off.values())


def test_priority_counts_only_under_priority_utilization() -> None:
    props = {**TWO, "root.a.priority": "3", "root.a.queues": "x", "root.a.x.capacity": "100", "root.a.x.priority": "5"}
    plain = build(props, DEFAULT)
    assert (plain["root.a"].priority, plain["root.a.x"].priority) == (0, 0)
    ordered = build({**props, "root.ordering-policy": "priority-utilization"}, DEFAULT)
    assert (ordered["root.a"].priority, ordered["root.a.x"].priority) == (3, 5)  # root.a inherits the policy


def test_leaf_flags_am_share_and_a_valid_snapshot() -> None:
    props = {**TWO, "root.a.auto-create-child-queue.enabled": "true", "root.b.maximum-am-resource-percent": "0.5"}
    queues = queues_for_snapshot(configure(props), [DEFAULT])
    by_path = {q.path: q for q in queues}
    assert (by_path["root.a"].leaf, by_path["root.b"].leaf, by_path["root.b"].max_am_percent) == (False, True, 0.5)
    snapshot = ClusterSnapshot.create([DEFAULT], [Node("n1", "", DEFAULT.resource)], queues, [], [])
    assert list(snapshot.preorder()) == ["root", "root.a", "root.b"]


ABSOLUTE = {
    "root.queues": "a,b",
    "root.a.capacity": "[memory=40000,vcores=40]",
    "root.a.maximum-capacity": "[memory=50000,vcores=80]",
    "root.b.capacity": "[memory=20000,vcores=20]",
    "root.a.queues": "x,y",
    "root.a.x.capacity": "[memory=10000,vcores=10]",
    "root.a.y.capacity": "[memory=30000,vcores=30]",
}


def test_absolute_resources_are_the_guarantee_when_the_cluster_is_big_enough() -> None:
    queues = build(ABSOLUTE, Partition("", Resource.of(100000, 100)))
    assert queues["root.a"].at("").guaranteed == Resource.of(40000, 40)
    assert queues["root.a"].at("").maximum == Resource.of(50000, 80)
    assert queues["root.b"].at("").maximum == Resource.of(100000, 100)  # none configured: the parent's
    assert queues["root.a.x"].at("").guaranteed == Resource.of(10000, 10)
    assert queues["root.a.x"].at("").maximum == Resource.of(50000, 80)


def test_absolute_resources_shrink_with_a_small_cluster() -> None:
    queues = build(ABSOLUTE, Partition("", Resource.of(30000, 30)))
    assert queues["root.a"].at("").guaranteed == Resource.of(20000, 20)  # x 30000/60000 and 30/60
    assert queues["root.b"].at("").guaranteed == Resource.of(10000, 10)
    assert queues["root.a.x"].at("").guaranteed == Resource.of(5000, 5)  # a has 20000, its children ask 40000
    assert queues["root.a.y"].at("").guaranteed == Resource.of(15000, 15)
    assert queues["root.a"].at("").maximum == Resource.of(30000, 30)  # capped by the partition
