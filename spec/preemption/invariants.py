"""Invariants of one preemption round (``edit_schedule``), as predicates over its inputs and result.

Each predicate takes a :class:`Round` (the snapshot, the configuration, the calculator, the
policy state the round started from and the :class:`RoundResult` it returned) and returns the
list of :class:`Violation` s it finds; an empty list means the property holds. Every property
states what the project's Hadoop preemption note ("semantics A.x", by section: its notes on
``ProportionalCapacityPreemptionPolicy`` and its selectors, outside this repository and keyed in
``docs/sources.md``) and the source articles ("seed 00N") promise, no more and no less: where Hadoop's rules allow an overshoot (the
last container taken from a queue, the natural-termination rounding, the strict deduction of
earlier selections) the predicate allows exactly that overshoot and nothing else.

The predicates read only the snapshot and configuration for what must hold; from the result
they read what was decided (selections, events, marks) and, where a bound depends on a value
the policy computed (a queue's ideal assignment), the value the selector reports in its
targets. :data:`PROPERTIES` lists them all by name for the CLI and the property suite.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import ROOT, ClusterSnapshot, Container, ContainerId
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.intra_queue_selector import INTRA_QUEUE
from yarnspec.impl.preemption.result import EventType, PolicyState, RoundResult, SelectorResult
from yarnspec.impl.preemption.variants import HADOOP_3
from yarnspec.impl.resources import ZERO, Resource, f32, total
from yarnspec.spec.property import Property


@dataclass(frozen=True)
class Violation:
    """One breach of a property: the property's name and what was seen."""

    property: str
    message: str

    def __str__(self) -> str:
        return f"{self.property}: {self.message}"


@dataclass(frozen=True)
class Round:
    """Everything a predicate may look at for one ``edit_schedule`` call.

    ``prior`` is the policy state the round was started with (the marks of earlier rounds);
    the result's ``state`` is the one it handed on.
    """

    snapshot: ClusterSnapshot
    config: PreemptionConfig
    calculator: ResourceCalculator
    result: RoundResult
    prior: PolicyState = field(default_factory=PolicyState)


@dataclass(frozen=True)
class RoundProperty(Property[Round, list[Violation]]):
    """A registered property of one round, the specification's one :class:`Property` type over
    a :class:`Round`: its name, a one-line description, its source, its predicate, and the
    rules of the policy variant it needs (:class:`PolicyVariant` field names): a variant
    without one of them does not promise it (a known bug of an older version shows up as a
    counterexample under that variant, and is absent under the one that fixed it)."""

    needs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        unknown = [rule for rule in self.needs if rule not in HADOOP_3.rules()]
        if unknown:
            raise ValueError(f"{self.name}: no policy rule {unknown[0]!r}; rules: {', '.join(HADOOP_3.rules())}")

    def promised(self, config: PreemptionConfig) -> bool:
        """Whether the configured policy variant has every rule this property needs."""
        rules = config.rules
        return all(getattr(rules, rule) for rule in self.needs)


# --------------------------------------------------------------------------------------------
# Small helpers shared by the predicates.


def round_budget(snapshot: ClusterSnapshot, config: PreemptionConfig) -> Resource:
    """The round's preemption allowance: cluster resource x ``total_preemption_per_round``,
    truncated per resource (semantics A.2). Hadoop reads the setting as a Java ``float`` and
    widens it to ``double`` for the product, so the factor is rounded to single precision."""
    return snapshot.cluster_resource.multiply_truncate(f32(config.total_preemption_per_round))


def leaf_of(snapshot: ClusterSnapshot, container: Container) -> str:
    """The leaf queue a container is charged to: its application's queue (the container's own
    queue string may be a short token, semantics C.7.3)."""
    return snapshot.apps[container.app_id].queue


def ignores_exclusivity(snapshot: ClusterSnapshot, container: Container) -> bool:
    """Whether the container runs on a node of a partition it did not ask for (semantics A.8.1)."""
    return container.label != snapshot.node_partition(container)


def _same(a: Resource, b: Resource) -> bool:
    width = max(len(a), len(b))
    return all(a.get(i) == b.get(i) for i in range(width))


def _major_indices(calculator: ResourceCalculator, width: int) -> range:
    """The resource types the calculator's "any major resource" tests look at (A.13)."""
    return range(1) if calculator.name == "default" else range(width)


def _grouped_by_queue_partition(
    snapshot: ClusterSnapshot, containers: Iterable[Container]
) -> dict[tuple[str, str], list[Container]]:
    grouped: dict[tuple[str, str], list[Container]] = {}
    for container in containers:
        key = (leaf_of(snapshot, container), snapshot.node_partition(container))
        grouped.setdefault(key, []).append(container)
    return grouped


def _ideal(selector: SelectorResult, queue: str, partition: str) -> Resource | None:
    target = selector.targets.get((queue, partition))
    return target.ideal if target is not None else None


def _ideal_or_zero(selector: SelectorResult, queue: str, partition: str) -> Resource:
    ideal = _ideal(selector, queue, partition)
    return ZERO if ideal is None else ideal


def _fmt_ids(containers: Iterable[Container]) -> str:
    return ", ".join(str(c.container_id) for c in containers)


# --------------------------------------------------------------------------------------------
# The properties.


def within_round_budget(rnd: Round) -> list[Violation]:
    """The containers selected in one round, over all selectors, fit in the round's budget.

    Statement: ``fitsIn(sum of selected container sizes, cluster x total_preemption_per_round)``
    with the calculator's fit rule (Default: memory; DRF: every resource), and the budget the
    result reports is that amount. Source: semantics A.2 (one budget shared by all selectors,
    decremented by every selection), A.8 (a container is taken only if it fits in what is left
    of it), A.10 (the reserved selector's same check); seed 004 (``total_preemption_per_round``).
    Promised by ``hadoop-3``: Hadoop 2.7.3 only scales the queues' targets by the budget (A.6,
    seed 002) and takes each queue's last container whatever its size, so a round can exceed
    the budget there.
    """
    name = "within_round_budget"
    budget = round_budget(rnd.snapshot, rnd.config)
    found: list[Violation] = []
    if not _same(rnd.result.budget, budget):
        found.append(Violation(name, f"result reports budget {rnd.result.budget}, the configuration gives {budget}"))
    taken = total(c.resource for c in rnd.result.selected)
    if not rnd.calculator.fits_in(taken, budget):
        found.append(
            Violation(name, f"{len(rnd.result.selected)} selected containers total {taken}, over the budget {budget}")
        )
    return found


def selected_once(rnd: Round) -> list[Violation]:
    """No container is selected twice in one round, by one selector or by two.

    Statement: the container ids of ``result.selected`` (all selectors, in order) are distinct.
    Source: semantics A.3 (one shared set of selected candidates; a container is never selected
    twice), A.8 (already selected containers are skipped), A.10.
    """
    seen: dict[ContainerId, str] = {}
    found: list[Violation] = []
    for selector in rnd.result.selectors:
        for container in selector.selected:
            cid = container.container_id
            if cid in seen:
                found.append(Violation("selected_once", f"{cid} selected by {seen[cid]} and again by {selector.name}"))
            else:
                seen[cid] = selector.name
    return found


def selection_is_real(rnd: Round) -> list[Violation]:
    """Only containers of the snapshot are selected, from leaf queues, and never one the
    scheduler has already marked killable, except through the ignore-exclusivity pass.

    Statement: every selected container has the id of a snapshot container with the same
    application, node and size; its application's queue is a leaf; it is not ``killable``
    unless it ignores exclusivity (its label differs from its node's partition): the FIFO
    selector's first pass takes those without looking at the killable flag, as Hadoop's
    ``FifoCandidatesSelector`` does (only its per-application ``preemptFrom`` skips them).
    Killable containers exist only with lazy preemption: without it the policy does not read
    the flag (Hadoop syncs killable containers only then), so the check applies under lazy
    preemption. Source: semantics A.2 (leaf queues), A.8 step 1 (no killable check) and steps
    2b, A.10 (killable containers are skipped); ``ProportionalCapacityPreemptionPolicy.
    syncKillableContainersFromScheduler``.
    """
    name = "selection_is_real"
    known = {c.container_id: c for c in rnd.snapshot.containers}
    found: list[Violation] = []
    for container in rnd.result.selected:
        original = known.get(container.container_id)
        if original is None:
            found.append(Violation(name, f"{container.container_id} is not in the snapshot"))
            continue
        if original.node != container.node or not _same(original.resource, container.resource):
            found.append(Violation(name, f"{container.container_id} differs from the snapshot's container"))
        queue = rnd.snapshot.queues[leaf_of(rnd.snapshot, original)]
        if not queue.leaf:
            found.append(Violation(name, f"{container.container_id} belongs to {queue.path}, not a leaf queue"))
        lazy = rnd.config.lazy_preemption_enabled
        if lazy and original.killable and original.label == rnd.snapshot.node_partition(original):
            found.append(Violation(name, f"{container.container_id} is already killable and was selected again"))
    return found


def disabled_queue_untouched(rnd: Round) -> list[Violation]:
    """A leaf whose preemption is disabled loses nothing and hears nothing.

    Statement: no container of a leaf with ``preemption_disabled`` is selected by any selector,
    and no event (mark, killable, kill-reserved) names one. The snapshot's flag is the queue's
    effective one: set on the queue itself or inherited from the nearest ancestor that says so
    (``yarn.scheduler.capacity.<path>.disable_preemption``; semantics A.1, B.6). Source:
    semantics A.4 (a disabled leaf's extra is untouchable), A.7 and A.8 (disabled leaves are
    skipped); seed 002 (``untouchableExtra``).
    """
    name = "disabled_queue_untouched"
    snapshot = rnd.snapshot
    found: list[Violation] = []
    for container in rnd.result.selected:
        queue = leaf_of(snapshot, container)
        if snapshot.queues[queue].preemption_disabled:
            found.append(Violation(name, f"{container.container_id} of non-preemptable {queue} was selected"))
    for event in rnd.result.events:
        queue = leaf_of(snapshot, event.container)
        if snapshot.queues[queue].preemption_disabled:
            found.append(Violation(name, f"{event.kind.value} for {event.container_id} of non-preemptable {queue}"))
    return found


def guarantee_floor(rnd: Round) -> list[Violation]:
    """Selection never takes a queue below what it must keep, except by its last container.

    For every selector, every leaf ``q`` and partition ``p`` from which the selector newly takes
    containers ``c1..ck`` (in selection order), with ``used``, ``pending`` and ``guaranteed`` of
    ``(q, p)`` from the snapshot and ``ideal`` the selector's reported ideal assignment:

        keep  = maxCmp(minCmp(used + pending, guaranteed), ideal)      (semantics A.6)
        bound = used - keep, or roundUp((used - keep) x f) when natural_termination_factor f > 1

    there is a resource type ``i`` (Default calculator: memory; DRF: any type) with
    ``(c1 + ... + c(k-1))_i < bound_i``. Put back the last container and the queue keeps
    strictly more than ``keep`` in that type, and ``keep >= min(used, guaranteed)`` (in memory
    for the Default calculator, by dominant share under DRF).

    Why exactly this: the amount asked of a queue is at most ``used - keep`` (the per-round
    scale and the dead zone only lower it, and ``roundUp(x f) <= x`` for ``f <= 1``, A.7); a
    container is taken only while the remaining amount has a positive major resource, and the
    last one may overshoot (A.8). Comparisons use the parent's ideal as reference (A.6). The
    bound is per selector: a later selector deducts earlier selections only when the remainder
    is strictly larger than the container (A.9), so across selectors a queue may lose one more
    container (``testPreemptionToBalanceWithVcoreResource``: 21 taken for a target of 20). The
    ``hadoop-2.7.3`` variant keeps only the ideal (seed 002: ``current - idealAssigned``).
    The intra-queue selector is not bound by it: it moves resource between the applications of
    one queue, whatever the queue's own guarantee (``IntraQueueCandidatesSelector``; its bound
    is the queue's ``max-allowable-limit``, ``testSimpleIntraQueuePreemption`` takes from a
    queue below its guarantee).
    """
    name = "guarantee_floor"
    snapshot, calc = rnd.snapshot, rnd.calculator
    factor = rnd.config.natural_termination_factor
    found: list[Violation] = []
    for selector in rnd.result.selectors:
        if selector.name == INTRA_QUEUE:
            continue
        for (queue, partition), taken in _grouped_by_queue_partition(snapshot, selector.selected).items():
            figures = snapshot.queues[queue].at(partition)
            parent = snapshot.queues[queue].parent or ROOT
            parent_ideal = _ideal(selector, parent, partition)
            reference = parent_ideal if parent_ideal is not None else snapshot.partitions[partition].resource
            ideal = _ideal(selector, queue, partition)
            floor = calc.min(reference, figures.used + figures.pending, figures.guaranteed)
            if rnd.config.rules.target_keeps_guarantee_floor:
                keep = floor if ideal is None else calc.max(reference, floor, ideal)
            else:
                keep = ideal if ideal is not None else ZERO
            bound = figures.used - keep
            if factor > 1:
                bound = calc.multiply_round_up(bound, factor)
            before_last = total(c.resource for c in taken[:-1])
            width = max(len(bound), len(before_last))
            if not any(before_last.get(i) < bound.get(i) for i in _major_indices(calc, width)):
                found.append(
                    Violation(
                        name,
                        f"{selector.name} took {_fmt_ids(taken)} from {queue} in partition {partition!r}: "
                        f"used {figures.used}, keep {keep}; all but the last total {before_last}, not below "
                        f"used - keep = {bound} in {'memory' if calc.name == 'default' else 'any resource type'}",
                    )
                )
    return found


def _untouchable_extras(snapshot: ClusterSnapshot, partition: str, rnd: Round) -> dict[str, Resource]:
    """Each queue's untouchable extra in ``partition`` (semantics A.4, computed from the snapshot,
    comparisons relative to the partition's resource). Under ``hadoop-2.7.3`` the extra is kept
    only when used exceeds the guarantee, and a parent passes no preemptable part upwards."""
    calc, rules = rnd.calculator, rnd.config.rules
    reference = snapshot.partitions[partition].resource
    preemptable: dict[str, Resource] = {}
    untouchable: dict[str, Resource] = {}
    for path in snapshot.postorder():
        queue = snapshot.queues[path]
        figures = queue.at(partition)
        extra = figures.used - figures.guaranteed
        if (rules.extra_zeroed_below_zero and calc.less(reference, extra, ZERO)) or (
            not rules.extra_zeroed_below_zero and not calc.greater(reference, figures.used, figures.guaranteed)
        ):
            extra = ZERO
        if not queue.children:
            untouchable[path] = extra if queue.preemption_disabled else ZERO
            preemptable[path] = ZERO if queue.preemption_disabled else extra
            continue
        children = total(preemptable[child] for child in queue.children)
        untouchable[path] = ZERO if calc.greater_equal(reference, children, extra) else extra - children
        preemptable[path] = calc.min(reference, children, extra) if rules.parent_preemptable_extra else ZERO
    return untouchable


def _initial_ideal(
    used: Resource, guaranteed: Resource, untouchable: Resource, reference: Resource, rnd: Round
) -> Resource:
    """A child's ideal before the fixpoint hands out anything (semantics A.5.1; 2.7.3 starts an
    over-using queue at its whole guarantee, seed 002)."""
    if rnd.calculator.greater(reference, used, guaranteed):
        base = guaranteed.component_min(used) if rnd.config.rules.initial_ideal_capped_by_use else guaranteed
        return base + untouchable
    return used


@dataclass(frozen=True)
class _Level:
    """One parent's share-out in one selector and partition, as the ideal properties read it:
    what the parent had, what its children got, the starting assignments, and the
    zero-guarantee children whose ideal this selector did not recompute (carried over)."""

    parent: str
    parent_ideal: Resource
    weighted_ideal: Resource
    weighted_initial: Resource
    zero_ideal: Resource
    zero_initial: Resource
    zero_pass_ran: bool
    carried: tuple[str, ...]

    @property
    def excess(self) -> Resource:
        """How far the level may go past the parent's ideal: what its starting assignments
        already exceed it by (per type, never negative). Where the zero-guarantee pass runs,
        those children start after the weighted pass has handed out its share."""
        if self.zero_pass_ran:
            return (self.weighted_ideal + self.zero_initial - self.parent_ideal).clamp_min_zero()
        return (self.weighted_initial - self.parent_ideal).clamp_min_zero()


def _levels(rnd: Round, selector: SelectorResult, partition: str, untouchable: Mapping[str, Resource]) -> list[_Level]:
    """Every parent level of one selector's ideal allocation in ``partition`` (semantics A.5):
    children with a guarantee (compared with the parent's ideal as reference) share first;
    the zero-guarantee children share what is left, and only if something is left; otherwise
    they keep the ideal an earlier selector of the round gave them (Hadoop's records are shared
    by the selectors)."""
    snapshot, calc = rnd.snapshot, rnd.calculator
    levels = []
    for parent in snapshot.preorder():
        children = snapshot.queues[parent].children
        parent_ideal = _ideal(selector, parent, partition)
        if not children or parent_ideal is None:
            continue
        weighted: list[tuple[str, Resource, Resource]] = []
        zero: list[tuple[str, Resource, Resource]] = []
        for child in children:
            figures = snapshot.queues[child].at(partition)
            group = weighted if calc.greater(parent_ideal, figures.guaranteed, ZERO) else zero
            initial = _initial_ideal(figures.used, figures.guaranteed, untouchable[child], parent_ideal, rnd)
            group.append((child, _ideal_or_zero(selector, child, partition), initial))
        weighted_ideal = total(i for _, i, _ in weighted)
        ran = bool(zero) and calc.greater(parent_ideal, parent_ideal - weighted_ideal, ZERO)
        levels.append(
            _Level(
                parent=parent,
                parent_ideal=parent_ideal,
                weighted_ideal=weighted_ideal,
                weighted_initial=total(s for _, _, s in weighted),
                zero_ideal=total(i for _, i, _ in zero),
                zero_initial=total(s for _, _, s in zero),
                zero_pass_ran=ran,
                carried=() if ran else tuple(c for c, _, _ in zero),
            )
        )
    return levels


def ideal_within_parent(rnd: Round) -> list[Violation]:
    """Per level, the fixpoint never hands the children more than the parent's ideal leaves.

    Statement, for every selector and partition, per resource type the calculator looks at
    (Default: memory): root's ideal is root's guaranteed (A.5); for every parent ``P``, with
    ``W`` its children with a guarantee and ``Z`` those without, and ``initial(c)`` a child's
    starting assignment (``componentwiseMin(guaranteed, used) + untouchable`` if it uses more
    than its guarantee, else ``used``; A.5.1):

    * ``sum_W ideal <= max(ideal(P), sum_W initial)`` (the weighted pass);
    * if the zero-guarantee pass runs (``ideal(P) - sum_W ideal > 0``):
      ``sum_W ideal + sum_Z ideal <= max(ideal(P), sum_W ideal + sum_Z initial)``.

    Each offer is capped by what is still unassigned (A.5.1), so a pass hands out no more than
    the parent's ideal leaves; only starting assignments (use up to the guarantee, plus the
    untouchable over-use of non-preemptable queues) may already exceed it. When the
    zero-guarantee pass does not run, those children keep the ideal an earlier selector of the
    round gave them (A.5 step 3). Promised by ``hadoop-3``: Hadoop 2.7.3 offers every queue of
    a round ``roundUp(unassigned x share)`` without that cap, so offers can add up to more.
    Source: semantics A.4, A.5, A.5.1; seed 000 (``computeFixpointAllocation``); seed 002.
    """
    name = "ideal_within_parent"
    snapshot, calc = rnd.snapshot, rnd.calculator
    found: list[Violation] = []
    for partition in snapshot.partitions:
        untouchable = _untouchable_extras(snapshot, partition, rnd)
        root_guaranteed = snapshot.queues[ROOT].at(partition).guaranteed
        for selector in rnd.result.selectors:
            root_ideal = _ideal(selector, ROOT, partition)
            if root_ideal is not None and not _same(root_ideal, root_guaranteed):
                found.append(
                    Violation(
                        name,
                        f"{selector.name}: root's ideal in {partition!r} is {root_ideal}, not its guaranteed {root_guaranteed}",
                    )
                )
            for level in _levels(rnd, selector, partition, untouchable):
                where = f"{selector.name}: children of {level.parent} in {partition!r}"
                allowed = level.parent_ideal.component_max(level.weighted_initial)
                if not calc.fits_in(level.weighted_ideal, allowed):
                    found.append(
                        Violation(
                            name,
                            f"{where} with a guarantee get {level.weighted_ideal} in all, over the parent's ideal "
                            f"{level.parent_ideal} (their starting assignments {level.weighted_initial})",
                        )
                    )
                if level.zero_pass_ran:
                    assigned = level.weighted_ideal + level.zero_ideal
                    allowed = level.parent_ideal.component_max(level.weighted_ideal + level.zero_initial)
                    if not calc.fits_in(assigned, allowed):
                        found.append(
                            Violation(
                                name,
                                f"{where} get {assigned} in all, over the parent's ideal {level.parent_ideal} "
                                f"(zero-guarantee children's starting assignments {level.zero_initial})",
                            )
                        )
    return found


def ideal_within_partition(rnd: Round) -> list[Violation]:
    """The leaves' ideal assignments in a partition add up to no more than the partition, plus
    what queues already hold beyond their parent's share at the start.

    Statement, for every selector and partition ``p``, per resource type the calculator looks
    at (Default: memory):
    ``sum over leaves of ideal <= max(resource(p), guaranteed(root, p)) + sum over parents of
    their level's excess + sum over carried-over zero-guarantee queues of their ideal``.
    A level's excess is what its children's starting assignments (A.5.1) already exceed the
    parent's ideal by, negative components as 0: ``sum_W initial - ideal(P)``, or, where the
    zero-guarantee pass runs, ``sum_W ideal + sum_Z initial - ideal(P)`` (those children start
    after the weighted pass; see :func:`ideal_within_parent`).

    The fixpoint shares out root's guarantee (the partition in a real configuration; A.5) and
    never offers more than is unassigned, so the total exceeds the partition only where
    children already start above their parent's share: the untouchable over-use of
    non-preemptable queues (A.4), use counting reserved resource (A.2), and under DRF a child
    within its guarantee by dominant share relative to its parent's ideal (A.13) but above it
    in one type. A zero-guarantee queue whose level did not run its pass in this selector keeps
    an earlier selector's ideal (A.5 step 3), which counts as given. Source: semantics A.2,
    A.4, A.5.
    """
    name = "ideal_within_partition"
    snapshot = rnd.snapshot
    found: list[Violation] = []
    for partition, info in snapshot.partitions.items():
        untouchable = _untouchable_extras(snapshot, partition, rnd)
        base = info.resource.component_max(snapshot.queues[ROOT].at(partition).guaranteed)
        for selector in rnd.result.selectors:
            levels = _levels(rnd, selector, partition, untouchable)
            head_start = total(level.excess for level in levels)
            carried = total(_ideal_or_zero(selector, q, partition) for level in levels for q in level.carried)
            assigned = total(_ideal_or_zero(selector, leaf, partition) for leaf in snapshot.leaves)
            bound = base + head_start + carried
            if not rnd.calculator.fits_in(assigned, bound):
                found.append(
                    Violation(
                        name,
                        f"{selector.name}: leaves' ideals in {partition!r} total {assigned}, over {bound} "
                        f"(partition {info.resource}, children starting above their parent {head_start}, "
                        f"carried over {carried})",
                    )
                )
    return found


def am_only_over_limit(rnd: Round) -> list[Violation]:
    """An AM container is taken only while the queue's skipped AM resource exceeds its AM limit.

    Statement, for every selector and leaf ``q``: let ``A`` be the total size of q's AM
    containers that the selector's application pass skips (live, not killable, not selected by
    an earlier selector, and not taken by this selector's ignore-exclusivity pass), and
    ``limit = guaranteed(q, "") x max_am_percent`` (truncated). For the j-th AM container
    ``a_j`` the selector takes that does not run ignoring exclusivity (in selection order),
    ``A - (a_1 + ... + a_(j-1)) > limit`` by the calculator relative to the cluster. Source:
    semantics A.8.2b and A.8.3 (the AM pass stops once the skipped AM resource is within the
    limit), A.10 (the reserved selector never takes AMs); seed 000 (AM containers last, bounded
    by the AM limit), seed 002. AM containers running ignoring exclusivity are tried in A.8.1
    without an AM check, so they are outside this statement.
    """
    name = "am_only_over_limit"
    snapshot, calc = rnd.snapshot, rnd.calculator
    cluster = snapshot.cluster_resource
    found: list[Violation] = []
    earlier: set[ContainerId] = set()
    for selector in rnd.result.selectors:
        mine = {c.container_id for c in selector.selected}
        taken_am: dict[str, list[Container]] = {}
        for container in selector.selected:
            if container.is_am and not container.reserved and not ignores_exclusivity(snapshot, container):
                taken_am.setdefault(leaf_of(snapshot, container), []).append(container)
        for queue, taken in taken_am.items():
            skipped = total(
                c.resource
                for app in snapshot.apps_by_queue.get(queue, ())
                for c in snapshot.containers_by_app.get(app.app_id, ())
                if c.is_am
                and not c.reserved
                and not c.killable
                and c.container_id not in earlier
                and not (c.container_id in mine and ignores_exclusivity(snapshot, c))
            )
            info = snapshot.queues[queue]
            limit = info.at("").guaranteed.multiply_truncate(info.max_am_percent)
            remaining = skipped
            for container in taken:
                if not calc.greater(cluster, remaining, limit):
                    found.append(
                        Violation(
                            name,
                            f"{selector.name} took AM {container.container_id} of {queue} while its skipped AM "
                            f"resource {remaining} is within the AM limit {limit}",
                        )
                    )
                    break
                remaining = remaining - container.resource
        earlier |= mine
    return found


def _allowed_kill_waits(config: PreemptionConfig) -> set[int]:
    waits = {config.max_wait_before_kill_ms}
    if config.preemption_to_balance_enabled:
        waits.add(config.preemption_to_balance_max_wait_ms)
    return waits


def killable_after_wait(rnd: Round) -> list[Violation]:
    """A container is made killable only after it has been marked for its selector's wait.

    Statement: every ``MARK_CONTAINER_FOR_KILLABLE`` event is for a container that the event's
    selector selected in this round and that the prior state had marked at a time ``m`` with
    ``m + wait <= now``; ``wait`` is the selector's kill wait, which is
    ``max_wait_before_kill`` (or, for the balance-after-satisfied selector when enabled, its own
    ``max-wait-before-kill``). Source: semantics A.11, A.12 (``testExpireKill``: marks at 0,
    nothing at 5000, kills at 10001 with a 10000 ms wait); seed 000 (mark, then kill after a
    wait); seed 004.
    """
    name = "killable_after_wait"
    found: list[Violation] = []
    allowed = _allowed_kill_waits(rnd.config)
    selectors: Mapping[str, SelectorResult] = {s.name: s for s in rnd.result.selectors}
    for each in rnd.result.selectors:
        if each.kill_wait_ms not in allowed:
            found.append(
                Violation(name, f"{each.name} waits {each.kill_wait_ms} ms; the configuration allows {sorted(allowed)}")
            )
    now = rnd.result.now_ms
    for event in rnd.result.events:
        if event.kind is not EventType.MARK_CONTAINER_FOR_KILLABLE:
            continue
        cid = event.container_id
        selector = selectors.get(event.selector)
        if selector is None or cid not in {c.container_id for c in selector.selected}:
            found.append(Violation(name, f"killable event for {cid}, which {event.selector} did not select this round"))
            continue
        marked = rnd.prior.marks.get(cid)
        wait = selector.kill_wait_ms if selector.kill_wait_ms in allowed else min(allowed)
        if marked is None:
            found.append(Violation(name, f"killable event for {cid} at {now} ms without an earlier mark"))
        elif marked + wait > now:
            found.append(
                Violation(name, f"killable event for {cid} at {now} ms, marked at {marked} ms, wait {wait} ms")
            )
    return found


def observe_only_silent(rnd: Round) -> list[Violation]:
    """In observe-only mode the policy decides but tells the scheduler nothing.

    Statement: with ``observe_only`` set, the round sends no event of any kind (marks, kills,
    kill-reserved) and hands on the marks it started with unchanged. Source: semantics A.12
    (the round stops before sending anything; the A.8 kill-reserved events are suppressed too);
    seed 000 (``observeOnly`` returns before ``preemptOrkillSelectedContainerAfterWait``); seed
    004.
    """
    if not rnd.config.observe_only:
        return []
    name = "observe_only_silent"
    found = [
        Violation(name, f"{e.kind.value} for {e.container_id} sent in observe-only mode") for e in rnd.result.events
    ]
    if dict(rnd.result.state.marks) != dict(rnd.prior.marks):
        found.append(Violation(name, "the marks changed in observe-only mode"))
    return found


# --------------------------------------------------------------------------------------------
# The registry.

_ALL: Sequence[RoundProperty] = (
    RoundProperty(
        "within_round_budget",
        "selected containers fit in cluster x total_preemption_per_round (calculator fit rule)",
        "semantics A.2, A.8, A.10; seed 004",
        within_round_budget,
        ("budgeted_container_rule",),
    ),
    RoundProperty(
        "guarantee_floor",
        "per selector, a queue minus all but its last taken container stays above max(min(used+pending, guaranteed), ideal)",
        "semantics A.6-A.9; seed 000, seed 002",
        guarantee_floor,
    ),
    RoundProperty(
        "selected_once",
        "no container is selected twice, within or across selectors",
        "semantics A.3, A.8",
        selected_once,
    ),
    RoundProperty(
        "selection_is_real",
        "only snapshot containers of leaf queues, never already-killable ones, are selected",
        "semantics A.2, A.8, A.10",
        selection_is_real,
    ),
    RoundProperty(
        "disabled_queue_untouched",
        "a non-preemptable leaf (own or inherited flag) loses no container and gets no event",
        "semantics A.4, A.7, A.8, B.6; seed 002",
        disabled_queue_untouched,
    ),
    RoundProperty(
        "ideal_within_parent",
        "per level, offers never hand the children more than the parent's ideal leaves; root's ideal is its guarantee",
        "semantics A.4, A.5; seed 000",
        ideal_within_parent,
        ("offers_from_running_unassigned",),
    ),
    RoundProperty(
        "ideal_within_partition",
        "the leaves' ideals in a partition add up to at most the partition, plus what children start with above their parent",
        "semantics A.2, A.4, A.5",
        ideal_within_partition,
        ("offers_from_running_unassigned",),
    ),
    RoundProperty(
        "am_only_over_limit",
        "AM containers are taken only while the queue's skipped AM resource exceeds its AM limit",
        "semantics A.8.3; seed 000, seed 002",
        am_only_over_limit,
    ),
    RoundProperty(
        "killable_after_wait",
        "a KILLABLE event only for a container marked at least its selector's kill wait earlier",
        "semantics A.12; seed 000, seed 004",
        killable_after_wait,
    ),
    RoundProperty(
        "observe_only_silent",
        "observe-only sends no events and keeps the marks unchanged",
        "semantics A.12; seed 000, seed 004",
        observe_only_silent,
    ),
)

#: Every property by name, in catalogue order.
PROPERTIES: Mapping[str, RoundProperty] = MappingProxyType({p.name: p for p in _ALL})


def check_round(rnd: Round, names: Iterable[str] | None = None) -> dict[str, list[Violation]]:
    """Run the named properties on one round: name -> its violations. By default every property
    the round's policy variant promises; named ones are run whatever the variant.

    Raises ``KeyError`` for an unknown name.
    """
    if names is None:
        return {n: p.check(rnd) for n, p in PROPERTIES.items() if p.promised(rnd.config)}
    return {n: PROPERTIES[n].check(rnd) for n in names}
