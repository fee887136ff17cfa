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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.java.priority_queue import JavaPriorityQueue
from yarnspec.impl.preemption.extras import update_extras
from yarnspec.impl.preemption.temp_queue import PartitionTree, TempQueue
from yarnspec.impl.preemption.variants import PolicyVariant, PolicyVariantName, policy_variant
from yarnspec.impl.resources import ZERO, Resource, double_compare_key, f32, java_float_div

#: Hadoop's ratio for a queue without guarantee: ``Integer.MAX_VALUE`` (served last).
NO_GUARANTEE_RATIO = float(2**31 - 1)


@dataclass(frozen=True)
class IdealMode:
    """How one selector runs the ideal allocation.

    ``reserved``: "reserved mode" of the reserved-container selector, or of the FIFO selector
    when ``additional_res_balance_based_on_reserved_containers`` is set: offers count plain
    pending instead of pending net of reserved (A.5.1) and no natural-termination factor is
    applied (A.7). ``balance``: the balance-after-satisfied selector, whose fixpoint has no
    leaf cap (A.11). ``variant``: the name of the policy variant whose rules apply
    (:attr:`rules`, its record). ``capacity_shares``: Hadoop 3.4.0's fix of YARN-11073
    (:func:`capacity_share_types`), the rule of the ``yarn-11073`` guarantee rule.
    """

    reserved: bool = False
    balance: bool = False
    variant: PolicyVariantName = "hadoop-3"
    capacity_shares: bool = False
    rules: PolicyVariant = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rules", policy_variant(self.variant))


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
    parent: TempQueue,
    calc: ResourceCalculator,
    budget: Resource,
    mode: IdealMode,
    underserved: dict[str, None] | None = None,
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
        base = (
            queue.guaranteed.component_min(queue.used) if mode.rules.initial_ideal_capped_by_use else queue.guaranteed
        )
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

    Asking queues sit in a ``java.util.PriorityQueue`` ordered by ``TQComparator``
    (:func:`compare_need`), which has no tie-break; :class:`JavaPriorityQueue` reproduces the
    JDK heap, so equally under-served queues are served in the heap's order, and a served
    queue goes back with ``add`` (``getMostUnderservedQueues`` polls the group). Hadoop fills
    the heap from a ``HashSet`` of identity-hashed records, whose order no run can predict;
    the model adds the queues in tree order. Shares are computed once per round over all
    queues still asking (``resetCapacity``), and only for the group, from a running sum of
    the asking guarantees. (Before Hadoop 3.4.0 a type's previous share is kept when the
    asking queues' guarantees sum to 0 there; every asking queue then has 0 of that type, so
    its share was 0 all along.)
    """
    zero = ZERO.padded(len(reference))
    compare = need_comparator(mode)
    asking: JavaPriorityQueue[Asking] = JavaPriorityQueue(compare)
    asking_total = zero
    for queue in queues:
        queue.ideal = initial_ideal(queue, reference, calc, mode)
        unassigned = unassigned - queue.ideal
        if calc.less(reference, queue.ideal, queue.used + queue.pending):
            asking.add(Asking.of(queue, reference, calc))
            asking_total = asking_total + queue.guaranteed
    while asking and calc.greater(reference, unassigned, zero):
        shares_total, shares_count = asking_total, len(asking)
        by_capacity = None
        if mode.capacity_shares and not equal_shares:
            by_capacity = capacity_share_types([entry.queue for entry in asking], shares_total)
        group = most_underserved(asking, compare)
        if underserved is not None:
            following = asking.peek()
            behind = [] if following is None else [following.queue]
            underserved.update((q.path, None) for q in [*group, *behind])
        offered_from = unassigned
        shares: dict[tuple[tuple[int, ...], float], float | list[float]] = {}  # equal inputs, equal shares
        handed_out = zero
        for index, queue in enumerate(group):
            if mode.rules.offers_from_running_unassigned and not calc.any_major_positive(unassigned):
                for dropped in group[index:]:
                    asking_total = asking_total - dropped.guaranteed
                break
            key = (queue.guaranteed.values, queue.absolute_capacity)
            share = shares.get(key)
            if share is None:
                share = _share(queue, shares_total, shares_count, offered_from, equal_shares, calc, mode)
                if by_capacity is not None:
                    share = by_capacity.apply(queue, share, shares_count)
                shares[key] = share
            avail = calc.multiply_round_up(offered_from, share)
            if mode.rules.offers_from_running_unassigned:
                avail = avail.component_min(unassigned)
            done = offer(queue, avail, reference, calc, mode)
            if calc.greater(reference, done, zero):
                asking.add(Asking.of(queue, reference, calc))
            else:
                asking_total = asking_total - queue.guaranteed
            if mode.rules.offers_from_running_unassigned:
                unassigned = (unassigned - done).clamp_min_zero()
            else:
                handed_out = handed_out + done
        if not mode.rules.offers_from_running_unassigned:
            unassigned = unassigned - handed_out
    if underserved is not None:
        while asking:
            underserved[asking.remove().queue.path] = None
    return unassigned


@dataclass(frozen=True)
class Asking:
    """An asking queue in the heap with the ratio ``TQComparator`` reads: ``idealAssigned /
    guaranteed`` by the calculator, ``Integer.MAX_VALUE`` without a guarantee (served last).
    The ratio is taken when the queue is added: its ideal only changes once it is polled."""

    queue: TempQueue
    ratio: float

    @staticmethod
    def of(queue: TempQueue, reference: Resource, calc: ResourceCalculator) -> Asking:
        """The entry of ``queue`` as it stands now."""
        ratio = NO_GUARANTEE_RATIO
        if calc.greater(reference, queue.guaranteed, ZERO.padded(len(reference))):
            ratio = calc.divide(reference, queue.ideal, queue.guaranteed)
        return Asking(queue, ratio)


def need_comparator(mode: IdealMode) -> Callable[[Asking, Asking], int]:
    """Hadoop's ``TQComparator`` (negative: the first is more under-served).

    Hadoop 3 (``PriorityUtilizationQueueOrderingPolicy.compare``): with equal priorities
    ``Double.compare`` of the ratios; with different priorities the higher priority first
    when both ratios are below 1 or both at least 1, else ``Double.compare``. Hadoop 2.7.3:
    ``-1`` if the first ratio is ``<`` the second, ``1`` if ``>``, else 0 (NaN ties with all).
    """
    if mode.rules.queue_priorities:
        return _compare_with_priorities
    return _compare_legacy


def _compare_legacy(a: Asking, b: Asking) -> int:
    return -1 if a.ratio < b.ratio else 1 if a.ratio > b.ratio else 0


def _double_compare(x: float, y: float) -> int:
    kx, ky = double_compare_key(x), double_compare_key(y)
    return (kx > ky) - (kx < ky)


def _compare_with_priorities(a: Asking, b: Asking) -> int:
    pa, pb = a.queue.priority, b.queue.priority
    if pa != pb and ((a.ratio < 1.0 and b.ratio < 1.0) or (a.ratio >= 1.0 and b.ratio >= 1.0)):
        return (pb > pa) - (pb < pa)
    return _double_compare(a.ratio, b.ratio)


def most_underserved(asking: JavaPriorityQueue[Asking], compare: Callable[[Asking, Asking], int]) -> list[TempQueue]:
    """``getMostUnderservedQueues``: poll the head, and keep polling while the next head
    compares equal to the one just polled; the polled queues in poll order."""
    group: list[TempQueue] = []
    while asking:
        first = asking.remove()
        group.append(first.queue)
        following = asking.peek()
        if following is None or compare(first, following) < 0:
            break
    return group


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
    if not mode.rules.per_type_shares:
        return calc.divide(unassigned, queue.guaranteed, total)
    return [java_float_div(g, t) if t != 0 else 0.0 for g, t in zip(queue.guaranteed.values, total.values)]


@dataclass(frozen=True)
class CapacityShares:
    """How Hadoop 3.4.0's ``resetCapacity`` shares each resource type: ``absolute`` lists the
    types shared by absolute capacity (``capacity / total``), ``even`` those shared evenly
    (``1/n``); the other types keep ``g_i / sum g_i``."""

    absolute: tuple[int, ...]
    even: tuple[int, ...]
    total: float

    def apply(self, queue: TempQueue, share: float | list[float], count: int) -> float | list[float]:
        """``share`` with the types of :attr:`absolute` and :attr:`even` replaced."""
        if not isinstance(share, list) or not (self.absolute or self.even):
            return share
        fixed = list(share)
        for i in self.absolute:
            fixed[i] = java_float_div(queue.absolute_capacity, self.total)
        for i in self.even:
            fixed[i] = java_float_div(1.0, count)
        return fixed


def capacity_share_types(asking: Sequence[TempQueue], total: Resource) -> CapacityShares:
    """YARN-11073's fix (Hadoop 3.4.0, ``AbstractPreemptableResourceCalculator.resetCapacity``),
    per resource type ``i`` over the asking queues (``asking``, in the heap's array order, the
    order Hadoop iterates it and sums their absolute capacities in ``float``):

    * if some asking queue is guaranteed 0 of ``i`` while its absolute capacity is not 0, and
      the asking queues' total guarantee of ``i`` is not 0: every share of ``i`` is the
      queue's absolute capacity over the asking queues' total capacity;
    * else, if the total guarantee of ``i`` is 0, or the absolute capacities sum to 0: every
      share of ``i`` is ``1/n`` for the ``n`` asking queues;
    * else the share stays ``g_i / sum g_i``.

    Without the fix a tiny queue whose vcore guarantee truncated to 0 has a vcore share of 0
    and is preempted on an idle cluster; with it, when the tiny queue is the only one asking
    the vcore total is 0 and the share is 1/1.
    """
    capacity = 0.0
    for queue in asking:
        capacity = f32(capacity + queue.absolute_capacity)
    absolute: list[int] = []
    even: list[int] = []
    for i, type_total in enumerate(total.values):
        if type_total != 0 and any(q.guaranteed.values[i] == 0 and q.absolute_capacity != 0 for q in asking):
            absolute.append(i)
        elif type_total == 0 or capacity == 0:
            even.append(i)
    return CapacityShares(tuple(absolute), tuple(even), capacity)


def offer(
    queue: TempQueue, avail: Resource, reference: Resource, calc: ResourceCalculator, mode: IdealMode
) -> Resource:
    """Offer ``avail`` to ``queue``; raise its ideal by what it accepts and return that.

    Hadoop 3: ``accepted = componentwiseMin(max(0, max - ideal), min(avail, used + need -
    ideal))`` with ``need`` = pending (reserved mode) or pending net of reserved; for a leaf,
    unless balancing after satisfied, also at most ``max(used, guaranteed) - ideal``; then
    clamped to ``[0, avail]`` per type. 2.7.3: ``min(max(0, max - ideal), min(avail, used +
    pending - ideal))`` with calculator minima and nothing else.
    """
    room = (queue.maximum - queue.ideal).clamp_min_zero()
    if not mode.rules.componentwise_offer:
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
    2.7.3 takes ``used - ideal``. ``budget_cut`` keeps what the scaling took off each target.
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
        if not mode.rules.target_keeps_guarantee_floor:
            base, keep = child.used, child.ideal
        else:
            base = child.used - child.killable
            keep = calc.max(reference, calc.min(reference, child.used + child.pending, child.guaranteed), child.ideal)
        if calc.greater(reference, base, keep):
            wanted = base - keep
            child.to_be_preempted = wanted.multiply_truncate(scale)
            child.budget_cut = wanted - child.to_be_preempted if scale < 1.0 else zero
        else:
            child.to_be_preempted = child.budget_cut = zero
