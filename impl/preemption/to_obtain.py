"""What a selector actually tries to take from each leaf, per partition (Hadoop
``PreemptableResourceCalculator.calculateResToObtainByPartitionForLeafQueues`` and
``CapacitySchedulerPreemptionUtils.deductPreemptableResourcesBasedSelectedCandidates``;
semantics A.7, A.9).

Two dampers stand between the target and the amount taken: the dead zone (a leaf that uses at
most ``guaranteed x (1 + max_ignored_over_capacity)`` gives nothing) and natural termination
(only ``natural_termination_factor`` of the target is taken per round, expecting containers to
finish on their own). Selectors after the first then deduct what earlier selectors already
chose.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import Container
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.ideal import IdealMode
from yarnspec.impl.preemption.temp_queue import PartitionTree
from yarnspec.impl.resources import ZERO, Resource


def compute_to_obtain(
    trees: Sequence[PartitionTree],
    leaves: Iterable[str],
    calc: ResourceCalculator,
    cluster: Resource,
    config: PreemptionConfig,
    mode: IdealMode,
) -> None:
    """Set ``to_obtain`` on every leaf record (A.7; comparisons relative to the cluster).

    Leaves whose preemption is disabled are skipped (their amount stays 0). Outside the dead
    zone ``to_obtain = to_be_preempted``, times the natural-termination factor rounded up
    (Hadoop 3, not in reserved mode) or truncated (2.7.3, always).
    """
    zero = ZERO.padded(len(cluster))
    by_partition = [tree.queues for tree in trees]
    factor = config.natural_termination_factor
    for leaf in leaves:
        for queues in by_partition:
            record = queues[leaf]
            record.to_obtain = zero
            if record.preemption_disabled:
                continue
            threshold = record.guaranteed.multiply_truncate(1.0 + config.max_ignored_over_capacity)
            if not calc.greater(cluster, record.used, threshold):
                continue
            amount = record.to_be_preempted
            if not mode.rules.natural_termination_rounds_up:
                amount = amount.multiply_truncate(factor)
            elif not mode.reserved and calc.greater(cluster, amount, zero):
                amount = calc.multiply_round_up(amount, factor).padded(len(cluster))
            record.to_obtain = amount


def deduct_selected(
    trees: Mapping[str, PartitionTree],
    earlier: Iterable[Container],
    queue_of: Mapping[int, str],
    node_partition: Mapping[str, str],
    calc: ResourceCalculator,
) -> None:
    """Take the containers earlier selectors chose off the amounts to obtain (A.9).

    For the container's leaf and node partition: ``to_obtain -= size`` only if ``to_obtain``
    is strictly larger than the container (partition resource as reference), then
    ``to_obtain = max(to_obtain, 0)``. The strict test means a remainder equal to one
    container is never deducted (``testPreemptionToBalanceWithVcoreResource``).
    """
    for container in earlier:
        tree = trees[node_partition[container.node]]
        record = tree.queues[queue_of[container.app_id]]
        reference = record.partition_resource
        size = container.resource
        if calc.greater(reference, record.to_obtain, size):
            record.to_obtain = record.to_obtain - size
        record.to_obtain = calc.max(reference, record.to_obtain, ZERO.padded(len(reference)))


def obtain_map(
    trees: Sequence[PartitionTree], leaf: str, calc: ResourceCalculator, cluster: Resource
) -> dict[str, Resource]:
    """The partition -> amount map a selector works from for one leaf: partitions whose
    ``to_obtain`` is > 0 (cluster as reference), in partition order (Hadoop
    ``getResToObtainByPartitionForLeafQueue``)."""
    zero = ZERO.padded(len(cluster))
    found: dict[str, Resource] = {}
    for tree in trees:
        record = tree.queues[leaf]
        if not record.preemption_disabled and calc.greater(cluster, record.to_obtain, zero):
            found[tree.partition.name] = record.to_obtain
    return found
