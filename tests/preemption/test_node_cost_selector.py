"""Seed 002's remedy, the node-cost selector: preemption concentrated on the one node where
making room for the starved request costs least (the sum of the victims' running times)."""

from __future__ import annotations

from yarnspec.impl.calculator import calculator
from yarnspec.impl.cluster import (
    Application,
    ClusterSnapshot,
    Container,
    ContainerId,
    Node,
    Partition,
    Queue,
    QueuePartition,
)
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.resources import Resource

GB = Resource.of(1024, 1)
CONFIG = PreemptionConfig(total_preemption_per_round=1.0, natural_termination_factor=1.0, max_wait_before_kill_ms=1000)


def gb(n: int) -> Resource:
    return Resource.of(1024 * n, n)


def snapshot(starts: dict[str, list[int]]) -> ClusterSnapshot:
    """Lender A (leaf root.a, guaranteed 3 GB) fills three 2 GB nodes; borrower B (root.b,
    3 GB guaranteed) runs its 1 GB AM elsewhere and asks for one 2 GB container."""
    containers = [Container(ContainerId(1, 1), "root.a", "n0", gb(1), is_am=True, started_ms=0)]
    number = 2
    for node, times in starts.items():
        for start in times:
            containers.append(Container(ContainerId(1, number), "root.a", node, GB, started_ms=start))
            number += 1
    containers.append(Container(ContainerId(2, 1), "root.b", "n0", GB, is_am=True, started_ms=50))
    used_a = sum((c.resource for c in containers if c.app_id == 1), Resource.of(0, 0))
    queues = [
        Queue(
            "root",
            None,
            ("root.a", "root.b"),
            leaf=False,
            partitions={"": QueuePartition(gb(6), gb(6), gb(6), gb(2), gb(2))},
        ),
        Queue("root.a", "root", partitions={"": QueuePartition(gb(3), gb(6), used_a)}),
        Queue("root.b", "root", partitions={"": QueuePartition(gb(3), gb(6), gb(1), gb(2), gb(2))}),
    ]
    apps = [Application(1, "root.a"), Application(2, "root.b", pending=(("", gb(2)),), request_size=gb(2))]
    nodes = [Node(n, "", gb(2)) for n in ("n0", "n1", "n2")]
    return ClusterSnapshot.create([Partition("", gb(6))], nodes, queues, apps, containers)


def test_the_cheapest_node_is_freed_and_nothing_elsewhere() -> None:
    snap = snapshot({"n1": [10, 20], "n2": [90, 95]})
    result = edit_schedule(snap, CONFIG.replace(node_cost_selector=True), calculator("default"), 100)
    node_cost = result.selectors[0]
    assert node_cost.name == "node-cost"
    assert {c.node for c in node_cost.selected} == {"n2"} and len(node_cost.selected) == 2
    older = edit_schedule(
        snapshot({"n1": [90, 95], "n2": [10, 20]}), CONFIG.replace(node_cost_selector=True), calculator("default"), 100
    )
    assert {c.node for c in older.selectors[0].selected} == {"n1"}


def test_without_the_selector_the_fifo_selector_picks_by_age_across_nodes() -> None:
    snap = snapshot({"n1": [10, 20], "n2": [90, 95]})
    result = edit_schedule(snap, CONFIG, calculator("default"), 100)
    assert [s.name for s in result.selectors] == ["fifo"]


def test_nothing_is_taken_when_the_request_already_fits() -> None:
    snap = snapshot({"n1": [10], "n2": [90, 95]})  # n1 has 1 GB free: the 2 GB request still does not fit
    fits = snapshot({"n2": [90, 95]})  # n1 empty: the request fits there
    assert (
        edit_schedule(fits, CONFIG.replace(node_cost_selector=True), calculator("default"), 100).selectors[0].selected
        == ()
    )
    chosen = (
        edit_schedule(snap, CONFIG.replace(node_cost_selector=True), calculator("default"), 100).selectors[0].selected
    )
    assert [c.node for c in chosen] == ["n1"]  # one young container on n1 makes room: cheaper than two on n2
