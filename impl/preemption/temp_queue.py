"""The per-partition temporary queue records one round computes on (semantics A.2).

Hadoop clones every queue once per partition at the start of a round
(``TempQueuePerPartition``) and every selector then recomputes the ideal allocation on those
same records. The records are the one mutable structure of the policy: the fixpoint changes
``ideal`` step by step, and a few figures deliberately carry over from one selector to the
next exactly as in Hadoop (the ideal of a zero-guarantee queue that a pass does not
re-initialise, A.5 step 3). They never leave the policy: each selector publishes frozen
:class:`~yarnspec.impl.preemption.result.QueueTarget` copies.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yarnspec.impl.cluster import DEFAULT_PARTITION, ROOT, ClusterSnapshot, Partition
from yarnspec.impl.preemption.variants import GuaranteeRuleName, guarantee_rule
from yarnspec.impl.resources import ZERO, Resource, java_float_div


class TempQueue:
    """One queue in one partition, with the figures the policy reads and the ones it computes.

    Read from the snapshot (all vectors padded to the registered resource types):
    ``guaranteed``, ``maximum``, ``used``, ``pending``, ``pending_net_reserved``, ``reserved``,
    ``killable``, ``preemption_disabled``, ``priority``; ``absolute_capacity`` under the
    guarantee rules that read capacities (0.0 otherwise). A parent's ``pending`` and
    ``pending_net_reserved`` are the sums over its children.

    Computed: ``untouchable`` / ``preemptable`` (A.4), ``ideal`` (A.5), ``to_be_preempted``
    (A.6) with ``budget_cut``, what the round's budget scaled off it (zero when its level's
    need fits the budget), ``to_obtain`` (A.7, A.9).
    """

    __slots__ = (
        "path",
        "partition",
        "partition_resource",
        "parent",
        "children",
        "order",
        "leaf",
        "guaranteed",
        "maximum",
        "used",
        "pending",
        "pending_net_reserved",
        "reserved",
        "killable",
        "preemption_disabled",
        "priority",
        "absolute_capacity",
        "untouchable",
        "preemptable",
        "ideal",
        "to_be_preempted",
        "budget_cut",
        "to_obtain",
    )

    def __init__(self, path: str, partition: str, partition_resource: Resource, order: int) -> None:
        zero = ZERO.padded(len(partition_resource))
        self.path = path
        self.partition = partition
        self.partition_resource = partition_resource
        self.parent: TempQueue | None = None
        self.children: list[TempQueue] = []
        self.order = order
        self.leaf = True
        self.guaranteed = zero
        self.maximum = zero
        self.used = zero
        self.pending = zero
        self.pending_net_reserved = zero
        self.reserved = zero
        self.killable = zero
        self.preemption_disabled = False
        self.priority = 0
        self.absolute_capacity = 0.0
        self.untouchable = zero
        self.preemptable = zero
        self.ideal = zero
        self.to_be_preempted = zero
        self.budget_cut = zero
        self.to_obtain = zero

    def __repr__(self) -> str:
        return f"TempQueue({self.path!r}, {self.partition!r}, used={self.used}, ideal={self.ideal})"


@dataclass(frozen=True)
class PartitionTree:
    """The records of one partition: the root and every queue by path; ``underserved`` the
    queues the round's fixpoints found under-served, in the order Hadoop records them
    (``addPartitionToUnderServedQueues``; read by the intra-queue selector)."""

    partition: Partition
    root: TempQueue
    queues: dict[str, TempQueue]
    underserved: dict[str, None] = field(default_factory=dict)


def partitions_of(snapshot: ClusterSnapshot) -> list[Partition]:
    """Every partition the policy looks at: the cluster's labels plus the default partition
    (added with no resource if the snapshot does not list it), in snapshot order."""
    found = list(snapshot.partitions.values())
    if DEFAULT_PARTITION not in snapshot.partitions:
        found.insert(0, Partition(DEFAULT_PARTITION, ZERO, True))
    return found


def tiny_queue_guarantee(guaranteed: Resource, partition: Resource) -> Resource:
    """A queue's guarantee read as a percentage of its partition, as Hadoop before 3.4.0 gets
    it for a percentage-configured queue: the absolute capacity is a ``float`` (here the
    queue's memory share of the partition) and the guarantee is ``partition x capacity``,
    truncated per resource type (``Resources.multiply``, used by the scheduler's effective
    minimum resource and by ``TempQueuePerPartition.getGuaranteed``).

    YARN-11073: on a cluster of <168 GB, 48 vcores> a queue of 1% is guaranteed
    <1720 MB, 0 vcores>, the 0.48 vcores truncated to 0. The preemption policy then gives the
    queue a share of 0 vcores (``AbstractPreemptableResourceCalculator.resetCapacity`` divides
    each type's guarantee by the asking queues' total), DRF rounds its vcore offers to 0, its
    ideal assignment keeps the truncated 0 vcores, and its running containers are preempted
    round after round even on an otherwise idle cluster. The fix (Hadoop 3.4.0) leaves the
    truncation alone and changes ``resetCapacity``: for a resource type in which some asking
    queue's guarantee is 0, every asking queue's share of that type is taken from the absolute
    capacities instead (:func:`yarnspec.impl.preemption.ideal.capacity_share_types`). The ``tiny-queue`` rule keeps the pre-3.4.0
    shares; the ``yarn-11073`` rule applies the fix (``IdealMode.capacity_shares``).
    """
    return partition.multiply_truncate(absolute_capacity(guaranteed, partition))


def absolute_capacity(guaranteed: Resource, partition: Resource) -> float:
    """The queue's absolute capacity as a Java ``float``: its memory share of the partition
    (0 for an empty partition)."""
    return java_float_div(guaranteed.memory, partition.memory) if partition.memory else 0.0


def build_tree(
    snapshot: ClusterSnapshot, partition: Partition, width: int, guarantees: GuaranteeRuleName = "effective"
) -> PartitionTree:
    """The records of every queue in ``partition`` (semantics A.2).

    ``guaranteed`` is the queue's effective minimum resource (or, with the ``tiny-queue``
    rule, :func:`tiny_queue_guarantee` of it); ``maximum`` its effective maximum, except that
    a zero maximum in a NON-exclusive partition stands for the whole partition (Hadoop takes
    the absolute maximum capacity as 1.0 there). Zero guarantees and zero maxima otherwise stay
    zero: the snapshot already holds effective (absolute) figures.
    """
    rule = guarantee_rule(guarantees)  # NotModelled for an unknown name
    resource = partition.resource.padded(width)
    records: dict[str, TempQueue] = {}
    order = 0
    for path in snapshot.preorder():
        queue = snapshot.queues[path]
        figures = queue.at(partition.name)
        record = TempQueue(path, partition.name, resource, order)
        order += 1
        record.leaf = queue.leaf
        record.guaranteed = figures.guaranteed.padded(width)
        if rule.capacity_guarantees:
            record.absolute_capacity = absolute_capacity(record.guaranteed, resource)
            record.guaranteed = tiny_queue_guarantee(record.guaranteed, resource)
        maximum = figures.maximum
        if maximum.is_zero() and not partition.exclusive:
            maximum = partition.resource
        record.maximum = maximum.padded(width)
        record.used = figures.used.padded(width)
        record.reserved = figures.reserved.padded(width)
        record.killable = figures.killable.padded(width)
        record.preemption_disabled = queue.preemption_disabled
        record.priority = queue.priority
        if queue.leaf:  # a parent's pending is summed from its children below
            record.pending = figures.pending.padded(width)
            record.pending_net_reserved = figures.pending_net_reserved.padded(width)
        if queue.parent is not None and queue.parent in records:
            parent = records[queue.parent]
            record.parent = parent
            parent.children.append(record)
        records[path] = record
    # A parent's pending is the sum of its children's (Hadoop TempQueuePerPartition.addChild).
    for path in reversed(list(records)):
        record = records[path]
        for child in record.children:
            record.pending = record.pending + child.pending
            record.pending_net_reserved = record.pending_net_reserved + child.pending_net_reserved
    return PartitionTree(partition, records[ROOT], records)
