"""Everything one round's selectors share, built once at the start of the round (Hadoop
``CapacitySchedulerPreemptionContext``; semantics A.2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import ClusterSnapshot, Container
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.container_index import ContainerIndex
from yarnspec.impl.preemption.ideal import IdealMode, compute_ideal_allocation
from yarnspec.impl.preemption.result import QueueTarget, SelectorResult
from yarnspec.impl.preemption.selection import Selection
from yarnspec.impl.preemption.temp_queue import PartitionTree, build_tree, partitions_of
from yarnspec.impl.preemption.to_obtain import compute_to_obtain, deduct_selected
from yarnspec.impl.resources import Resource, f32


@dataclass(frozen=True)
class SelectorRun:
    """One selector's published result plus the reserved containers it visited, for which
    the round sends ``KILL_RESERVED_CONTAINER`` events (A.8 step 2a)."""

    result: SelectorResult
    kill_reserved: tuple[Container, ...] = ()


@dataclass(frozen=True)
class RoundContext:
    """The inputs of a round and the state its selectors share: the per-partition records
    (recomputed by every selector), the container index and the selection with the budget."""

    snapshot: ClusterSnapshot
    config: PreemptionConfig
    calc: ResourceCalculator
    cluster: Resource
    trees: tuple[PartitionTree, ...]
    leaves: tuple[str, ...]
    index: ContainerIndex
    selection: Selection
    trees_by_partition: Mapping[str, PartitionTree]

    @staticmethod
    def create(snapshot: ClusterSnapshot, config: PreemptionConfig, calc: ResourceCalculator) -> RoundContext:
        """Records for every partition, cluster resource and budget (cluster x
        ``total_preemption_per_round``, truncated; Hadoop reads that setting as a ``float``),
        all vectors padded to the registered resource types."""
        width = max(2, len(snapshot.resource_types.names))
        cluster = snapshot.cluster_resource.padded(width)
        trees = tuple(build_tree(snapshot, p, width, config.guarantees) for p in partitions_of(snapshot))
        budget = cluster.multiply_truncate(f32(config.total_preemption_per_round))
        selection = Selection(budget, calc, cluster, config.variant)
        by_partition = {tree.partition.name: tree for tree in trees}
        index = ContainerIndex(snapshot)
        return RoundContext(snapshot, config, calc, cluster, trees, snapshot.leaves, index, selection, by_partition)

    def compute_targets(self, mode: IdealMode, earlier: tuple[Container, ...]) -> None:
        """A selector's first steps: ideal allocation with the budget as it stands (A.5, A.6),
        amounts to obtain (A.7), then deduction of what earlier selectors chose (A.9)."""
        compute_ideal_allocation(self.trees, self.calc, self.selection.budget, mode)
        compute_to_obtain(self.trees, self.leaves, self.calc, self.cluster, self.config, mode)
        if earlier:
            deduct_selected(self.trees_by_partition, earlier, self.index.queue_of, self.index.node_partition, self.calc)

    def targets(self) -> dict[tuple[str, str], QueueTarget]:
        """Frozen copies of every record's figures, keyed by (queue path, partition)."""
        found: dict[tuple[str, str], QueueTarget] = {}
        for tree in self.trees:
            for record in tree.queues.values():
                found[(record.path, record.partition)] = QueueTarget(
                    queue=record.path,
                    partition=record.partition,
                    guaranteed=record.guaranteed,
                    used=record.used,
                    ideal=record.ideal,
                    untouchable=record.untouchable,
                    preemptable=record.preemptable,
                    to_be_preempted=record.to_be_preempted,
                    to_obtain=record.to_obtain,
                    maximum=record.maximum,
                    pending=record.pending,
                    budget_cut=record.budget_cut,
                )
        return found
