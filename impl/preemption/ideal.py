"""The ideal allocation: how much each queue should hold, and how much it must give back.

Per partition, root's ideal is its guarantee; each parent's ideal is then shared among its
children level by level (semantics A.5): first a fixpoint among children with a non-zero
guarantee, weighted by guarantee (A.5.1), then, if anything is left, an equal-share fixpoint
among the zero-guarantee children; finally each child's preemption target (A.6).

The fixpoint hands out the unassigned resource in rounds, always to the most under-served
asking queues first (smallest ``ideal / guaranteed``, with queue priorities breaking the
order as Hadoop's priority-utilization policy does). A queue keeps asking while its offers are
accepted; one offer it cannot use (accepted 0) and it drops out.

The ``hadoop-2.7.3`` variant (seed 002) differs in the initial ideal (guarantee plus
untouchable), the offer (no leaf cap, no deduction of reserved resource, calculator minima
only, no cap at what is still unassigned), the shares (one calculator ratio for all types),
the comparator (no queue priorities) and the target (``used - ideal``, no floor).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from ..calculator import ResourceCalculator
from ..resources import ZERO, Resource, f32, java_float_div
from .config import PolicyVariant
from .extras import update_extras
from .temp_queue import PartitionTree, TempQueue

#: Hadoop's ratio for a queue without guarantee: ``Integer.MAX_VALUE`` (served last).
NO_GUARANTEE_RATIO = float(2**31 - 1)


@dataclass(frozen=True)
class IdealMode:
    """How one selector runs the ideal allocation.

    ``reserved``: "reserved mode" of the reserved-container selector, or of the FIFO selector
    when ``additional_res_balance_based_on_reserved_containers`` is set: offers count plain
    pending instead of pending net of reserved (A.5.1) and no natural-termination factor is
    applied (A.7). ``balance``: the balance-after-satisfied selector, whose fixpoint has no
    leaf cap (A.11). ``variant``: the Hadoop version whose rules apply. ``capacity_shares``:
    Hadoop 3.4.0's fix of YARN-11073 (:func:`capacity_share_types`), with the ``yarn-11073``
    guarantee rule.
    """

    reserved: bool = False
    balance: bool = False
    variant: PolicyVariant = "hadoop-3"
    capacity_shares: bool = False

    @property
    def legacy(self) -> bool:
        """Whether the Hadoop 2.7.3 rules apply."""
        return self.variant == "hadoop-2.7.3"


def compute_ideal_allocation(
    trees: Sequence[PartitionTree], calc: ResourceCalculator, budget: Resource, mode: IdealMode
) -> None:
    """Set extras, ``ideal`` and ``to_be_preempted`` on every record of every partition.

    ``budget`` is what is left of the round's preemption allowance when the selector starts;
    it scales each level's targets (A.6). Every queue the fixpoint finds under-served is added
    to its tree's ``underserved`` list (:func:`fixpoint`).
    """
    for tree in trees:
        update_extras(tree.root, calc, mode.variant)
        tree.root.ideal = tree.root.guaranteed
        stack = [tree.root]
        while stack:
            parent = stack.pop()
            if parent.children:
                distribute(parent, calc, budget, mode, tree.underserved)
                stack.extend(reversed(parent.children))


def distribute(
    parent: TempQueue, calc: ResourceCalculator, budget: Resource, mode: IdealMode, underserved: dict[str, None] | None = None
) -> None:
    """Share ``parent.ideal`` among its children and set their targets (A.5 steps 1-4).

    Every comparison uses ``parent.ideal`` as reference. The zero-guarantee pass only runs if
    something is left; otherwise those children keep the ideal they already had (which may
    come from an earlier selector of the same round, as in Hadoop).
    """
    reference = parent.ideal
    zero = ZERO.padded(len(reference))
    weighted = [c for c in parent.children if calc.greater(reference, c.guaranteed, zero)]
    equal = [c for c in parent.children if not calc.greater(reference, c.guaranteed, zero)]
    unassigned = fixpoint(weighted, reference, reference, False, calc, mode, underserved)
    if equal and calc.greater(reference, unassigned, zero):
        fixpoint(equal, reference, unassigned, True, calc, mode, underserved)
    assign_targets(parent.children, reference, budget, calc, mode)


def initial_ideal(queue: TempQueue, reference: Resource, calc: ResourceCalculator, mode: IdealMode) -> Resource:
    """A queue's ideal before any offer: what it uses, but no more than its guarantee plus the
    untouchable part of its over-use (A.5.1). Hadoop 3 caps the guarantee part componentwise by
    the use; 2.7.3 takes the whole guarantee."""
    if calc.greater(reference, queue.used, queue.guaranteed):
        base = queue.guaranteed if mode.legacy else queue.guaranteed.component_min(queue.used)
        return base + queue.untouchable
    return queue.used


def fixpoint(
    queues: Sequence[TempQueue],
    reference: Resource,
    unassigned: Resource,
    equal_shares: bool,
    calc: ResourceCalculator,
    mode: IdealMode,
    underserved: dict[str, None] | None = None,
) -> Resource:
    """Hadoop ``computeFixpointAllocation`` (A.5.1): set ``ideal`` on ``queues`` and return
    what is left unassigned.

    ``underserved`` (an insertion-ordered set of queue paths) records the queues as Hadoop
    hands them to ``addPartitionToUnderServedQueues``, the order the intra-queue selector later
    visits them in: each round's group of most under-served queues and the next queue behind
    it (``getMostUnderservedQueues`` peeks at it), then whatever still asks when the loop ends.

    Asking queues sit in a heap ordered by :func:`need_key`; each round takes the group of
    equally most-under-served queues (ties in tree order). Shares are computed once per round
    over all queues still asking, and only for the group, from a running sum of the asking
    guarantees. (Hadoop keeps a type's previous share when the asking queues' guarantees sum
    to 0 there; every asking queue then has 0 of that type, so its share was 0 all along.)
    """
    zero = ZERO.padded(len(reference))
    heap: list[tuple[tuple[int, int, float], int, TempQueue]] = []
    asking_total = zero
    for queue in queues:
        queue.ideal = initial_ideal(queue, reference, calc, mode)
        unassigned = unassigned - queue.ideal
        if calc.less(reference, queue.ideal, queue.used + queue.pending):
            heap.append((need_key(queue, reference, calc, mode), queue.order, queue))
            asking_total = asking_total + queue.guaranteed
    heapq.heapify(heap)
    asking_count = len(heap)
    while heap and calc.greater(reference, unassigned, zero):
        first = heapq.heappop(heap)
        group = [first[2]]
        while heap and heap[0][0] == first[0]:
            group.append(heapq.heappop(heap)[2])
        if underserved is not None:
            underserved.update((q.path, None) for q in [*group, *(entry[2] for entry in heap[:1])])
        offered_from = unassigned
        shares_total, shares_count = asking_total, asking_count
        by_capacity = capacity_share_types(group, heap, shares_total) if mode.capacity_shares and not equal_shares else None
        shares: dict[tuple[tuple[int, ...], float], float | list[float]] = {}  # equal inputs, equal shares
        handed_out = zero
        for index, queue in enumerate(group):
            if not mode.legacy and not calc.any_major_positive(unassigned):
                for dropped in group[index:]:
                    asking_total = asking_total - dropped.guaranteed
                    asking_count -= 1
                break
            key = (queue.guaranteed.values, queue.absolute_capacity)
            share = shares.get(key)
            if share is None:
                share = _share(queue, shares_total, shares_count, offered_from, equal_shares, calc, mode)
                if by_capacity is not None:
                    share = by_capacity.apply(queue, share)
                shares[key] = share
            avail = calc.multiply_round_up(offered_from, share)
            if not mode.legacy:
                avail = avail.component_min(unassigned)
            done = offer(queue, avail, reference, calc, mode)
            if calc.greater(reference, done, zero):
                heapq.heappush(heap, (need_key(queue, reference, calc, mode), queue.order, queue))
            else:
                asking_total = asking_total - queue.guaranteed
                asking_count -= 1
            if mode.legacy:
                handed_out = handed_out + done
            else:
                unassigned = (unassigned - done).clamp_min_zero()
        if mode.legacy:
            unassigned = unassigned - handed_out
    if underserved is not None:
        while heap:
            underserved[heapq.heappop(heap)[2].path] = None
    return unassigned


def _share(
    queue: TempQueue,
    total: Resource,
    count: int,
    unassigned: Resource,
    equal_shares: bool,
    calc: ResourceCalculator,
    mode: IdealMode,
) -> float | list[float]:
    """The queue's normalized guarantee: ``1/n`` in the zero-guarantee pass; otherwise per
    type ``(float) g_i / sum g_i`` over the asking queues (0 where the sum is 0), or under
    2.7.3 one calculator ratio ``divide(unassigned, g, sum g)`` for all types."""
    if equal_shares:
        return java_float_div(1.0, count)
    if mode.legacy:
        return calc.divide(unassigned, queue.guaranteed, total)
    return [java_float_div(g, t) if t != 0 else 0.0 for g, t in zip(queue.guaranteed.values, total.values)]


@dataclass(frozen=True)
class CapacityShares:
    """The resource types whose shares Hadoop 3.4.0 takes from absolute capacities, and the
    asking queues' total capacity (a ``float`` sum)."""

    types: tuple[int, ...]
    total: float

    def apply(self, queue: TempQueue, share: float | list[float]) -> float | list[float]:
        """``share`` with the types in :attr:`types` replaced by ``capacity / total``."""
        if not self.types or not isinstance(share, list):
            return share
        fixed = list(share)
        for i in self.types:
            fixed[i] = java_float_div(queue.absolute_capacity, self.total)
        return fixed


def capacity_share_types(
    group: Sequence[TempQueue], heap: Sequence[tuple[object, int, TempQueue]], total: Resource
) -> CapacityShares:
    """YARN-11073's fix (Hadoop 3.4.0, ``AbstractPreemptableResourceCalculator.resetCapacity``):
    for a resource type in which some asking queue is guaranteed 0, every asking queue's share
    of that type is its absolute capacity over the asking queues' total absolute capacity,
    instead of its guarantee over their total guarantee (when the capacities add up to more
    than 0). Without the fix a tiny queue whose vcore guarantee truncated to 0 has a vcore
    share of 0 and is preempted on an idle cluster, where it is the only queue asking and the
    vcore total is 0 as well; so the rule applies whatever the total. (This is our reading of
    the 3.4.0 change; docs/preemption.md, *Variants*.) The asking queues are the group being
    served and those still in the heap; their capacities are summed in ``float``, in tree
    order (Hadoop iterates its priority queue in heap order: the sum may differ in the last
    bit)."""
    asking = sorted([*group, *(entry[2] for entry in heap)], key=lambda q: q.order)
    capacity = 0.0
    for queue in asking:
        capacity = f32(capacity + queue.absolute_capacity)
    if capacity <= 0:
        return CapacityShares((), capacity)
    types = tuple(i for i in range(len(total.values)) if any(q.guaranteed.values[i] == 0 for q in asking))
    return CapacityShares(types, capacity)


def need_key(queue: TempQueue, reference: Resource, calc: ResourceCalculator, mode: IdealMode) -> tuple[int, int, float]:
    """A sort key equivalent to Hadoop's ``TQComparator`` (smaller = more under-served).

    ``r = ideal / guaranteed`` (calculator ``divide``; ``Integer.MAX_VALUE`` without
    guarantee). With equal priorities the smaller ``r`` comes first; with different priorities
    the higher priority comes first when both ``r`` are below 1 or both at least 1, otherwise
    the smaller ``r`` (``PriorityUtilizationQueueOrderingPolicy.compare``). That is the order
    of ``(r >= 1, -priority, r)``; NaN sorts last, as ``Double.compare`` puts it. 2.7.3 has no
    priorities: the key is ``r`` alone.
    """
    zero = ZERO.padded(len(reference))
    ratio = NO_GUARANTEE_RATIO
    if calc.greater(reference, queue.guaranteed, zero):
        ratio = calc.divide(reference, queue.ideal, queue.guaranteed)
    if ratio != ratio:
        return (2, 0, 0.0)
    if mode.legacy:
        return (0, 0, ratio)
    return (1 if ratio >= 1.0 else 0, -queue.priority, ratio)


def offer(queue: TempQueue, avail: Resource, reference: Resource, calc: ResourceCalculator, mode: IdealMode) -> Resource:
    """Offer ``avail`` to ``queue``; raise its ideal by what it accepts and return that.

    Hadoop 3: ``accepted = componentwiseMin(max(0, max - ideal), min(avail, used + need -
    ideal))`` with ``need`` = pending (reserved mode) or pending net of reserved; for a leaf,
    unless balancing after satisfied, also at most ``max(used, guaranteed) - ideal``; then
    clamped to ``[0, avail]`` per type. 2.7.3: ``min(max(0, max - ideal), min(avail, used +
    pending - ideal))`` with calculator minima and nothing else.
    """
    room = (queue.maximum - queue.ideal).clamp_min_zero()
    if mode.legacy:
        accepted = calc.min(reference, room, calc.min(reference, avail, queue.used + queue.pending - queue.ideal))
    else:
        need = queue.pending if mode.reserved else queue.pending_net_reserved
        accepted = room.component_min(calc.min(reference, avail, queue.used + need - queue.ideal))
        if queue.leaf and not mode.balance:
            cap = (calc.max(reference, queue.used, queue.guaranteed) - queue.ideal).clamp_min_zero()
            accepted = calc.min(reference, accepted, cap)
        accepted = accepted.clamp_min_zero().component_min(avail)
    queue.ideal = queue.ideal + accepted
    return accepted


def assign_targets(
    children: Sequence[TempQueue], reference: Resource, budget: Resource, calc: ResourceCalculator, mode: IdealMode
) -> None:
    """Each child's ``to_be_preempted`` after its level's fixpoint (A.6).

    ``need`` sums ``used - ideal`` over the children above their ideal; if it exceeds the
    budget every target is scaled by ``divide(budget, need)``. Hadoop 3 never asks a queue to
    go below ``max(min(used + pending, guaranteed), ideal)`` and leaves killable resource out;
    2.7.3 takes ``used - ideal``.
    """
    zero = ZERO.padded(len(reference))
    need = zero
    for child in children:
        if calc.greater(reference, child.used, child.ideal):
            need = need + (child.used - child.ideal)
    scale = 1.0
    if calc.greater(reference, need, budget):
        scale = calc.divide(reference, budget, need)
    for child in children:
        if mode.legacy:
            base, keep = child.used, child.ideal
        else:
            base = child.used - child.killable
            keep = calc.max(reference, calc.min(reference, child.used + child.pending, child.guaranteed), child.ideal)
        child.to_be_preempted = (base - keep).multiply_truncate(scale) if calc.greater(reference, base, keep) else zero
