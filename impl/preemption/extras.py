"""Untouchable and preemptable extra: how much of a queue's over-use may be taken (Hadoop
``TempQueuePerPartition.updatePreemptableExtras``; semantics A.4).

``extra = used - guaranteed`` (0 if it compares below 0). A queue without children puts its
extra under ``untouchable`` when preemption is disabled for it and under ``preemptable``
otherwise. A parent can only give up what its children can give up: ``preemptable =
min(sum of children's preemptable, extra)`` and the rest of its extra is ``untouchable``.
The untouchable part is added to the queue's initial ideal assignment (A.5.1), so over-use in
non-preemptable queues is never redistributed.
"""

from __future__ import annotations

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.preemption.temp_queue import TempQueue
from yarnspec.impl.preemption.variants import PolicyVariant, PolicyVariantName, policy_variant
from yarnspec.impl.resources import ZERO, Resource


def update_extras(root: TempQueue, calc: ResourceCalculator, variant: PolicyVariantName = "hadoop-3") -> None:
    """Set ``untouchable`` and ``preemptable`` on every record under ``root``, children first.

    Comparisons use the partition's resource as reference. Under ``hadoop-2.7.3`` a parent's
    ``preemptable`` stays 0 (that version only records a parent's untouchable part), so a
    grandparent sees none of its grandchildren's preemptable over-use
    (:attr:`PolicyVariant.parent_preemptable_extra`).
    """
    rules = policy_variant(variant)
    stack: list[tuple[TempQueue, bool]] = [(root, False)]
    while stack:
        record, children_done = stack.pop()
        if children_done or not record.children:
            _update_one(record, calc, rules)
        else:
            stack.append((record, True))
            stack.extend((child, False) for child in record.children)


def _update_one(record: TempQueue, calc: ResourceCalculator, rules: PolicyVariant) -> None:
    reference = record.partition_resource
    zero = ZERO.padded(len(reference))
    extra = record.used - record.guaranteed
    if rules.extra_zeroed_below_zero:
        if calc.less(reference, extra, zero):
            extra = zero
    elif not calc.greater(reference, record.used, record.guaranteed):
        extra = zero
    if not record.children:
        record.untouchable = extra if record.preemption_disabled else zero
        record.preemptable = zero if record.preemption_disabled else extra
        return
    children: Resource = zero
    for child in record.children:
        children = children + child.preemptable
    record.untouchable = zero if calc.greater_equal(reference, children, extra) else extra - children
    record.preemptable = calc.min(reference, children, extra) if rules.parent_preemptable_extra else zero
