"""Small snapshot builders for the policy's own tests (independent of the case-notation parsers).

A :class:`ClusterBuilder` takes partitions, nodes, queues by path (parents first; the parent
is the path's prefix), applications and containers, and builds a validated
:class:`ClusterSnapshot`. Numbers stand for ``<n, n>`` as in Hadoop's qData harness; tuples
give every component. A leaf's ``used`` defaults to its containers on that partition's
nodes and a parent's to the sum of its children, so most tests only state guarantees,
maxima, pending and containers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

from yarnspec.impl.calculator import DefaultCalculator, DominantCalculator, ResourceCalculator
from yarnspec.impl.cluster import (
    DEFAULT_PARTITION,
    ROOT,
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
from yarnspec.impl.preemption.result import EventType, PolicyState, RoundResult
from yarnspec.impl.resources import ZERO, Resource, ResourceTypes

Amount: TypeAlias = int | tuple[int, ...] | Resource

DEFAULT = DefaultCalculator()
DRF = DominantCalculator()

#: The settings both Hadoop harnesses use (semantics A.1): whole budget, no damping, 10 s wait.
HARNESS = PreemptionConfig(
    max_wait_before_kill_ms=10000, total_preemption_per_round=1.0, natural_termination_factor=1.0
)


def res(amount: Amount) -> Resource:
    """``n`` -> ``<n, n>``; a tuple -> its components; a resource unchanged."""
    if isinstance(amount, Resource):
        return amount
    if isinstance(amount, int):
        return Resource.of(amount, amount)
    return Resource.of(*amount)


@dataclass(frozen=True)
class _Figures:
    guaranteed: Amount
    maximum: Amount | None
    used: Amount | None
    pending: Amount
    reserved: Amount
    pending_net_reserved: Amount | None
    killable: Amount


@dataclass
class _QueueSpec:
    path: str
    figures: dict[str, _Figures] = field(default_factory=dict)
    disabled: bool = False
    priority: int = 0
    am_percent: float = 0.0
    leaf: bool | None = None


class ClusterBuilder:
    """Collects a cluster description and builds the snapshot."""

    def __init__(
        self,
        partitions: dict[str, Amount] | None = None,
        non_exclusive: Sequence[str] = (),
        resource_types: Sequence[str] = (),
    ) -> None:
        self.partitions = {name: res(r) for name, r in (partitions or {DEFAULT_PARTITION: 100}).items()}
        self.non_exclusive = set(non_exclusive)
        self.resource_types = ResourceTypes(tuple(resource_types))
        self.nodes: dict[str, Node] = {}
        self.queues: dict[str, _QueueSpec] = {}
        self.apps: dict[int, Application] = {}
        self.containers: list[Container] = []
        self._next_number: dict[int, int] = {}

    def node(self, node_id: str, partition: str = DEFAULT_PARTITION, total: Amount = 0) -> ClusterBuilder:
        """A node of ``partition`` with capacity ``total``."""
        self.nodes[node_id] = Node(node_id, partition, res(total))
        return self

    def queue(
        self,
        path: str,
        guaranteed: Amount = 0,
        maximum: Amount | None = None,
        used: Amount | None = None,
        pending: Amount = 0,
        reserved: Amount = 0,
        pending_net_reserved: Amount | None = None,
        killable: Amount = 0,
        partition: str = DEFAULT_PARTITION,
        disabled: bool = False,
        priority: int = 0,
        am_percent: float = 0.0,
        leaf: bool | None = None,
    ) -> ClusterBuilder:
        """A queue's figures in one partition (call again for another partition). ``maximum``
        defaults to the partition; ``pending_net_reserved`` to ``max(pending - reserved, 0)``."""
        spec = self.queues.setdefault(path, _QueueSpec(path))
        spec.figures[partition] = _Figures(guaranteed, maximum, used, pending, reserved, pending_net_reserved, killable)
        spec.disabled = spec.disabled or disabled
        spec.priority = priority or spec.priority
        spec.am_percent = am_percent or spec.am_percent
        if leaf is not None:
            spec.leaf = leaf
        return self

    def app(self, queue: str, app_id: int | None = None, priority: int = 0) -> int:
        """Submit an application to a leaf; returns its id (1, 2, ... by default)."""
        app_id = app_id if app_id is not None else len(self.apps) + 1
        self.apps[app_id] = Application(app_id, queue, priority)
        return app_id

    def run(
        self,
        app_id: int,
        count: int,
        size: Amount = 1,
        node: str = "n1",
        priority: int = 1,
        am: bool = False,
        reserved: bool = False,
        label: str | None = None,
        killable: bool = False,
    ) -> list[Container]:
        """``count`` containers of ``size`` for the application on ``node``; numbers continue
        per application from 1. ``am`` makes the first of them the AM (priority 0). ``label``
        defaults to the node's partition."""
        made = []
        queue = self.apps[app_id].queue
        partition = self.nodes[node].partition if node in self.nodes else DEFAULT_PARTITION
        for i in range(count):
            number = self._next_number.get(app_id, 0) + 1
            self._next_number[app_id] = number
            is_am = am and i == 0
            container = Container(
                ContainerId(app_id, number),
                queue,
                node,
                res(size),
                priority=0 if is_am else priority,
                is_am=is_am,
                reserved=reserved,
                label=partition if label is None else label,
                killable=killable,
            )
            made.append(container)
        self.containers.extend(made)
        return made

    def build(self) -> ClusterSnapshot:
        """The validated snapshot."""
        for container in self.containers:
            if container.node not in self.nodes:
                self.node(container.node, DEFAULT_PARTITION, 0)
        if not self.nodes:
            self.node("n1")
        children: dict[str, list[str]] = {path: [] for path in self.queues}
        for path in self.queues:
            if path != ROOT:
                children[path.rsplit(".", 1)[0]].append(path)
        used_by_leaf: dict[tuple[str, str], Resource] = {}
        for container in self.containers:
            key = (container.queue, self.nodes[container.node].partition)
            used_by_leaf[key] = used_by_leaf.get(key, ZERO) + container.resource
        queues = []
        computed: dict[tuple[str, str], Resource] = {}
        for path in sorted(self.queues, key=lambda p: -p.count(".")):
            spec = self.queues[path]
            figures = {}
            for partition, raw in spec.figures.items():
                if raw.used is not None:
                    used = res(raw.used)
                elif children[path]:
                    used = ZERO
                    for child in children[path]:
                        used = used + computed.get((child, partition), ZERO)
                else:
                    used = used_by_leaf.get((path, partition), ZERO)
                computed[(path, partition)] = used
                pending = res(raw.pending)
                reserved = res(raw.reserved)
                net = raw.pending_net_reserved
                figures[partition] = QueuePartition(
                    guaranteed=res(raw.guaranteed),
                    maximum=self.partitions[partition] if raw.maximum is None else res(raw.maximum),
                    used=used,
                    pending=pending,
                    pending_net_reserved=(pending - reserved).clamp_min_zero() if net is None else res(net),
                    reserved=reserved,
                    killable=res(raw.killable),
                )
            parent = None if path == ROOT else path.rsplit(".", 1)[0]
            leaf = spec.leaf if spec.leaf is not None else not children[path]
            queues.append(
                Queue(
                    path,
                    parent,
                    tuple(children[path]),
                    leaf,
                    figures,
                    preemption_disabled=spec.disabled,
                    priority=spec.priority,
                    max_am_percent=spec.am_percent,
                )
            )
        partitions = [Partition(n, r, n not in self.non_exclusive) for n, r in self.partitions.items()]
        return ClusterSnapshot.create(
            partitions,
            list(self.nodes.values()),
            queues,
            list(self.apps.values()),
            self.containers,
            self.resource_types,
        )


def one_round(
    snapshot: ClusterSnapshot,
    config: PreemptionConfig = HARNESS,
    calc: ResourceCalculator = DEFAULT,
    now_ms: int = 0,
    state: PolicyState | None = None,
) -> RoundResult:
    """One ``edit_schedule`` round."""
    return edit_schedule(snapshot, config, calc, now_ms, state)


def marked_per_app(result: RoundResult) -> dict[int, int]:
    """Number of ``MARK_CONTAINER_FOR_PREEMPTION`` events per application."""
    counts: dict[int, int] = {}
    for event in result.events:
        if event.kind is EventType.MARK_CONTAINER_FOR_PREEMPTION:
            counts[event.container.app_id] = counts.get(event.container.app_id, 0) + 1
    return counts


def selected_ids(result: RoundResult) -> list[tuple[int, int]]:
    """(application, container number) of every selected container, in selection order."""
    return [(c.container_id.app_id, c.container_id.number) for c in result.selected]


def two_leaves(
    guaranteed: tuple[int, int] = (50, 50),
    used: tuple[int, int] = (100, 0),
    pending: tuple[int, int] = (0, 50),
    apps_in_a: int = 1,
    am: bool = False,
) -> ClusterBuilder:
    """root(100) with leaves a and b; a's use spread evenly over ``apps_in_a`` applications
    of size-1 containers on n1 (the first of each an AM if ``am``)."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100, pending=0)
    builder.queue("root.a", guaranteed[0], 100, pending=pending[0])
    builder.queue("root.b", guaranteed[1], 100, pending=pending[1])
    per_app = used[0] // apps_in_a
    for _ in range(apps_in_a):
        builder.run(builder.app("root.a"), per_app, am=am)
    if used[1]:
        builder.run(builder.app("root.b"), used[1])
    return builder
