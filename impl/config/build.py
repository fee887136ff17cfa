"""From a configuration and the cluster's partitions to the queues of a policy snapshot.

The preemption policy reads, per queue and partition, a guaranteed and a maximum resource
(semantics A.2): the queue's effective minimum resource if non-zero, otherwise
``partition x absoluteCapacity`` (per resource, truncated); the effective maximum if non-zero,
otherwise ``partition x absoluteMaximumCapacity``, where a NON-exclusive partition counts
the absolute maximum as 1.0. For percentage and weight queues the effective resources are those
same truncated products of the partition (Hadoop's ``ParentQueue`` sets them so). Root's
effective resources are the partition itself.

For absolute-resource queues (``[memory=...,vcores=...]``) the effective minimum is the
configured resource; when a parent's effective minimum (root's: the partition) is smaller, by
the calculator, than the sum its children ask for, every child's resource of each type is
scaled by ``parent / sum`` of that type (Hadoop's "effective min ratio", a float, product
truncated). The effective maximum is the calculator's smaller of the configured maximum and
the parent's effective maximum (the parent's when none is configured).

Usage, pending and reserved are zero: the caller adds applications and containers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from yarnspec.impl.calculator import calculator as make_calculator
from yarnspec.impl.cluster import Partition, Queue, QueuePartition
from yarnspec.impl.config.capacity import NO_LABEL, ROOT, QueueConfig, check_known_labels
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import ZERO, Resource, f32, java_float_div


@dataclass(frozen=True)
class _Effective:
    """A queue's effective minimum and maximum resource in one partition."""

    minimum: Resource
    maximum: Resource


def queues_for_snapshot(conf: SchedulerConfiguration, partitions: Sequence[Partition]) -> list[Queue]:
    """Every configured queue (pre-order) with its guaranteed and maximum resource in every
    partition, and zero usage. ``partitions`` must include the default partition ``""``; a
    label the configuration names but the partitions lack is an :class:`InputError` at the
    property naming it."""
    by_name = _partitions_by_name(partitions)
    check_known_labels(conf.queues, conf.properties, by_name)
    cluster = ZERO
    for partition in by_name.values():
        cluster = cluster + partition.resource
    effective = {name: _effective_resources(conf, partition, cluster) for name, partition in by_name.items()}
    queues: list[Queue] = []
    for queue in conf.queues:
        figures = {name: _figures(queue, partition, effective[name][queue.path]) for name, partition in by_name.items()}
        queues.append(
            Queue(
                path=queue.path,
                parent=queue.parent,
                children=queue.children,
                leaf=queue.leaf,
                partitions=figures,
                preemption_disabled=conf.preemption_disabled(queue.path),
                priority=conf.relative_priority(queue.path),
                max_am_percent=queue.max_am_percent,
                intra_queue_preemption_disabled=conf.intra_queue_preemption_disabled(queue.path),
                ordering_policy=queue.ordering_policy,
                minimum_allocation=conf.allocation.minimum,
                minimum_user_limit_percent=queue.minimum_user_limit_percent,
            )
        )
    return queues


def _partitions_by_name(partitions: Sequence[Partition]) -> Mapping[str, Partition]:
    by_name: dict[str, Partition] = {}
    for partition in partitions:
        if partition.name in by_name:
            raise InputError("<partitions>", repr(partition.name), "partition given twice")
        by_name[partition.name] = partition
    if NO_LABEL not in by_name:
        raise InputError("<partitions>", "", "the default partition '' is missing")
    return by_name


def _figures(queue: QueueConfig, partition: Partition, effective: _Effective) -> QueuePartition:
    """Guaranteed and maximum as the policy derives them (semantics A.2)."""
    capacity = queue.at(partition.name)
    guaranteed = effective.minimum
    if guaranteed.is_zero():
        guaranteed = partition.resource.multiply_truncate(capacity.absolute or 0.0)
    maximum = effective.maximum
    if maximum.is_zero():
        share = 1.0 if not partition.exclusive else (capacity.absolute_maximum or 0.0)
        maximum = partition.resource.multiply_truncate(share)
    return QueuePartition(guaranteed=guaranteed, maximum=maximum)


def _effective_resources(
    conf: SchedulerConfiguration, partition: Partition, cluster: Resource
) -> dict[str, _Effective]:
    """Every queue's effective resources in ``partition``, top-down."""
    calc = make_calculator(conf.calculator)
    label = partition.name
    result = {ROOT: _Effective(partition.resource, partition.resource)}
    for parent in conf.queues:
        if not parent.children:
            continue
        children = [conf.queues[path] for path in parent.children]
        ratios = _min_ratios(conf, parent, children, result[parent.path], partition, cluster)
        for child in children:
            capacity = child.at(label)
            if child.mode != "absolute":
                result[child.path] = _Effective(
                    partition.resource.multiply_truncate(capacity.absolute or 0.0),
                    partition.resource.multiply_truncate(capacity.absolute_maximum or 0.0),
                )
                continue
            minimum = capacity.capacity.resource or ZERO
            if ratios:
                minimum = _scaled(minimum, ratios)
            parent_max = result[parent.path].maximum
            configured_max = capacity.maximum.resource or parent_max
            result[child.path] = _Effective(minimum, calc.min(partition.resource, configured_max, parent_max))
    return result


def _min_ratios(
    conf: SchedulerConfiguration,
    parent: QueueConfig,
    children: Sequence[QueueConfig],
    parent_effective: _Effective,
    partition: Partition,
    cluster: Resource,
) -> dict[int, float]:
    """Per resource index, ``parent's effective minimum / children's configured sum`` as a
    float, when the parent is smaller than the sum (root: only for a non-empty partition)."""
    asked = ZERO
    for child in children:
        if child.mode == "absolute":
            asked = asked + (child.at(partition.name).capacity.resource or ZERO)
    available = parent_effective.minimum
    if parent.parent is None and available.is_zero():
        return {}
    if not make_calculator(conf.calculator).less(cluster, available, asked):
        return {}
    return {i: java_float_div(available.get(i), total) for i, total in enumerate(asked.values) if total != 0}


def _scaled(resource: Resource, ratios: Mapping[int, float]) -> Resource:
    """Each component times its ratio as Java computes ``(long) (value * ratio)`` with a
    ``float`` ratio: in single precision, truncated."""
    return Resource(tuple(int(f32(f32(v) * ratios[i])) if i in ratios else v for i, v in enumerate(resource.values)))
