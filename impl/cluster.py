"""The cluster as the preemption policy sees it: one immutable snapshot.

Partitions (node labels) with their resource; nodes with partition and capacity; the queue tree
with, per partition, the queue's guaranteed, maximum, used, pending and reserved resources;
applications in leaf queues; containers (live and reserved). The policy reads a snapshot and
returns decisions; it never mutates one (semantics A.2). The configuration reader and the
case-notation parsers build snapshots; later the scheduler model derives them from its state.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

from yarnspec.impl.resources import ZERO, Resource, ResourceTypes

DEFAULT_PARTITION = ""
ROOT = "root"


@dataclass(frozen=True)
class Partition:
    """A node partition (node label); ``""`` is the default partition.

    ``exclusive``: only queues asking for the label get its nodes. A non-exclusive partition
    lends idle resource to requests without a label (those containers then "ignore
    exclusivity").
    """

    name: str
    resource: Resource
    exclusive: bool = True


@dataclass(frozen=True)
class Node:
    """A node: its partition, its total resource, and its rack (for placement)."""

    node_id: str
    partition: str = DEFAULT_PARTITION
    total: Resource = ZERO
    rack: str = "/default-rack"


@dataclass(frozen=True, order=True)
class ContainerId:
    """Hadoop's container identity and order: by application, then the app's container number."""

    app_id: int
    number: int

    def __str__(self) -> str:
        return f"container_{self.app_id}_{self.number}"


@dataclass(frozen=True)
class Container:
    """A live or reserved container.

    ``label`` is the partition the request asked for; a container whose ``label`` differs from
    its node's partition runs there by ignoring exclusivity (non-exclusive sharing).
    ``priority`` is the container's request priority: a larger number is less important.
    ``started_ms``: when it was allocated (logical clock; only the node-cost selector reads it).
    """

    container_id: ContainerId
    queue: str
    node: str
    resource: Resource
    priority: int = 1
    is_am: bool = False
    reserved: bool = False
    label: str = DEFAULT_PARTITION
    killable: bool = False
    started_ms: int = 0

    @property
    def app_id(self) -> int:
        """The application owning this container."""
        return self.container_id.app_id


@dataclass(frozen=True)
class Application:
    """An application (attempt) in a leaf queue. ``priority``: YARN application priority.

    ``pending``: what its outstanding requests ask for, per partition, as ``(partition,
    resource)`` pairs (Hadoop ``getTotalPendingRequestsPerPartition``); only the intra-queue
    selector reads it. ``request_size``: one container of its largest outstanding request
    (``ZERO`` if none; only the node-cost selector reads it). ``schedulable``: among its leaf's
    ordering policy's schedulable entities (Hadoop: activated; an application the AM limit
    holds back is not); only the ``fair-share`` intra-queue rule reads it.
    """

    app_id: int
    queue: str
    priority: int = 0
    user: str = "user"
    pending: tuple[tuple[str, Resource], ...] = ()
    request_size: Resource = ZERO
    schedulable: bool = True

    def pending_at(self, partition: str) -> Resource:
        """What the application asks for in ``partition`` (``ZERO`` if nothing)."""
        for name, amount in self.pending:
            if name == partition:
                return amount
        return ZERO


@dataclass(frozen=True)
class QueuePartition:
    """A queue's figures in one partition (absolute resources).

    ``guaranteed`` and ``maximum`` are the effective min and max resource; ``pending`` counts
    user limits; ``user_limits`` is each user's limit in this partition (intra-queue only); ``pending_net_reserved`` is the same less the queue's reserved resource (the
    harnesses differ on clamping it at 0, so it is given, not derived).
    """

    guaranteed: Resource = ZERO
    maximum: Resource = ZERO
    used: Resource = ZERO
    pending: Resource = ZERO
    pending_net_reserved: Resource = ZERO
    reserved: Resource = ZERO
    killable: Resource = ZERO
    user_limits: Mapping[str, Resource] = field(default_factory=dict)


@dataclass(frozen=True)
class Queue:
    """A queue: its path, tree position and per-partition figures.

    ``leaf`` is explicit: a parent without children that may create children dynamically is
    not a leaf (semantics A.2, ``testLeafQueueNameExtraction``).

    What only the intra-queue selector reads: ``intra_queue_preemption_disabled``
    (``<queue>.intra-queue-preemption.disable_preemption``; Hadoop's
    ``getIntraQueuePreemptionDisabled`` is that or ``preemption_disabled``), the leaf's
    application ``ordering_policy`` (``fifo`` or ``fair``), the scheduler's
    ``minimum_allocation``, and per partition each user's limit (``user_limits``, Hadoop
    ``getResourceLimitForAllUsers``).
    """

    path: str
    parent: str | None
    children: tuple[str, ...] = ()
    leaf: bool = True
    partitions: Mapping[str, QueuePartition] = field(default_factory=dict)
    preemption_disabled: bool = False
    priority: int = 0
    max_am_percent: float = 0.0
    intra_queue_preemption_disabled: bool = False
    ordering_policy: str = "fifo"
    minimum_allocation: Resource = Resource.of(1024, 1)
    #: ``minimum-user-limit-percent`` (``LeafQueue.getUserLimit``); only the fair-share rule of
    #: intra-queue preemption reads it (:class:`~.preemption.config.FairOrderingRule`).
    minimum_user_limit_percent: float = 100.0

    @property
    def name(self) -> str:
        """The last component of the path."""
        return self.path.rsplit(".", 1)[-1]

    def at(self, partition: str) -> QueuePartition:
        """The queue's figures in ``partition`` (all zero where it has none)."""
        return self.partitions.get(partition, _EMPTY_QUEUE_PARTITION)


_EMPTY_QUEUE_PARTITION = QueuePartition()


@dataclass(frozen=True)
class ClusterSnapshot:
    """Everything one preemption round reads. Build with :meth:`create` to validate links."""

    partitions: Mapping[str, Partition]
    nodes: Mapping[str, Node]
    queues: Mapping[str, Queue]
    apps: Mapping[int, Application]
    containers: tuple[Container, ...]
    resource_types: ResourceTypes = ResourceTypes()

    @staticmethod
    def create(
        partitions: list[Partition],
        nodes: list[Node],
        queues: list[Queue],
        apps: list[Application],
        containers: list[Container],
        resource_types: ResourceTypes = ResourceTypes(),
    ) -> ClusterSnapshot:
        """A snapshot from lists, checked for dangling references (``ValueError``)."""
        snapshot = ClusterSnapshot(
            partitions=MappingProxyType({p.name: p for p in partitions}),
            nodes=MappingProxyType({n.node_id: n for n in nodes}),
            queues=MappingProxyType({q.path: q for q in queues}),
            apps=MappingProxyType({a.app_id: a for a in apps}),
            containers=tuple(containers),
            resource_types=resource_types,
        )
        snapshot.check_references()
        return snapshot

    def check_references(self) -> None:
        """Raise ``ValueError`` naming the first dangling reference."""
        if ROOT not in self.queues:
            raise ValueError("no root queue")
        for queue in self.queues.values():
            for child in queue.children:
                if child not in self.queues:
                    raise ValueError(f"queue {queue.path}: unknown child {child}")
        for node in self.nodes.values():
            if node.partition not in self.partitions:
                raise ValueError(f"node {node.node_id}: unknown partition {node.partition!r}")
        for app in self.apps.values():
            if app.queue not in self.queues:
                raise ValueError(f"application {app.app_id}: unknown queue {app.queue}")
        seen: set[ContainerId] = set()
        for container in self.containers:
            if container.container_id in seen:
                raise ValueError(f"{container.container_id}: duplicate container id")
            seen.add(container.container_id)
            if container.node not in self.nodes:
                raise ValueError(f"{container.container_id}: unknown node {container.node}")
            if container.app_id not in self.apps:
                raise ValueError(f"{container.container_id}: unknown application {container.app_id}")

    @cached_property
    def cluster_resource(self) -> Resource:
        """The sum of all partitions' resources."""
        result = ZERO
        for partition in self.partitions.values():
            result = result + partition.resource
        return result

    @cached_property
    def leaves(self) -> tuple[str, ...]:
        """Leaf queue paths in tree pre-order."""
        return tuple(path for path in self.preorder() if self.queues[path].leaf)

    def preorder(self) -> Iterator[str]:
        """Queue paths in depth-first pre-order from root."""
        stack = [ROOT]
        while stack:
            path = stack.pop()
            yield path
            stack.extend(reversed(self.queues[path].children))

    def postorder(self) -> list[str]:
        """Queue paths, children before parents."""
        return list(reversed(list(self._reverse_postorder())))

    def _reverse_postorder(self) -> Iterator[str]:
        stack = [ROOT]
        while stack:
            path = stack.pop()
            yield path
            stack.extend(self.queues[path].children)

    @cached_property
    def containers_by_app(self) -> Mapping[int, tuple[Container, ...]]:
        """Containers grouped by application, in id order."""
        grouped: dict[int, list[Container]] = {}
        for container in sorted(self.containers, key=lambda c: c.container_id):
            grouped.setdefault(container.app_id, []).append(container)
        return MappingProxyType({app: tuple(items) for app, items in grouped.items()})

    @cached_property
    def apps_by_queue(self) -> Mapping[str, tuple[Application, ...]]:
        """Applications grouped by leaf queue, in id order."""
        grouped: dict[str, list[Application]] = {}
        for app in sorted(self.apps.values(), key=lambda a: a.app_id):
            grouped.setdefault(app.queue, []).append(app)
        return MappingProxyType({queue: tuple(items) for queue, items in grouped.items()})

    def node_partition(self, container: Container) -> str:
        """The partition of the node a container is on."""
        return self.nodes[container.node].partition
