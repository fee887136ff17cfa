"""Explaining preemption rounds on a cluster snapshot: what ``yarnspec preempt`` prints.

:func:`explain` runs ``edit_schedule`` for a number of rounds, one monitoring interval apart,
on a :class:`LoadedSnapshot`. Between rounds the containers made killable are removed (the
scheduler kills them at once, Hadoop 3 without lazy preemption) and nothing else changes: no
new allocation, no completion, the same pending demand. Every round gets, per queue and
partition, the figures of the FIFO selector's pass (guaranteed, used, pending, ideal, to
preempt, to obtain), what was selected from it, why it gives or keeps what it does, where
its ideal stops (its maximum capacity, its demand, ``max(used, guaranteed)`` for a leaf in the
FIFO pass, or what its parent had left) and what the round's budget
(``total_preemption_per_round``) cut off its to-preempt. Each round names its selectors with
their kill waits (``fifo`` waits ``max_wait_before_kill``; ``fifo-balance`` its own
``preemption-to-balance-queue-after-satisfied.max-wait-before-kill``) and which of its marks
are new (a container stays marked, and is marked again, every round until it is killed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from yarnspec.checks.snapshot.assemble import LoadedSnapshot, assemble
from yarnspec.impl.calculator import ResourceCalculator, calculator
from yarnspec.impl.cluster import ClusterSnapshot, Container, ContainerId
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.fifo_selector import FIFO
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import EventType, PolicyState, QueueTarget, RoundResult, SelectorResult
from yarnspec.impl.resources import ZERO, Resource, total


@dataclass(frozen=True)
class QueueRow:
    """One queue in one partition after a round's main selector pass."""

    queue: str
    partition: str
    leaf: bool
    guaranteed: Resource
    maximum: Resource
    used: Resource
    pending: Resource
    ideal: Resource
    to_preempt: Resource
    to_obtain: Resource
    selected: Resource
    why: str
    cap: str = ""
    """Where the ideal stops: ``maximum``, ``demand``, ``guarantee`` (``max(used,
    guaranteed)``, a leaf in the FIFO pass) or ``parent`` (what its parent had left)."""
    budget_cut: Resource = ZERO
    """What the round's budget cut off ``to_preempt`` (zero: not cut)."""


@dataclass(frozen=True)
class EventLine:
    """One event of a round, with the container's name as the snapshot wrote it."""

    kind: EventType
    selector: str
    container: str
    queue: str
    node: str
    resource: Resource
    new: bool = True
    """For a mark: the container was not marked before this round."""


@dataclass(frozen=True)
class RoundReport:
    """One round: its clock, budget, rows, events and how many containers stay marked."""

    number: int
    clock_ms: int
    budget: Resource
    selectors: tuple[str, ...]
    rows: tuple[QueueRow, ...]
    events: tuple[EventLine, ...]
    still_marked: int
    kill_waits: tuple[tuple[str, int], ...] = ()
    """Each selector that ran, with how long its marks wait before they are killed (ms)."""

    def count(self, kind: EventType) -> int:
        """How many events of ``kind`` this round sent."""
        return sum(1 for e in self.events if e.kind is kind)


def explain(loaded: LoadedSnapshot, conf: SchedulerConfiguration, rounds: int, clock_ms: int) -> list[RoundReport]:
    """``rounds`` policy rounds from ``clock_ms``, ``monitoring_interval`` apart."""
    config = conf.preemption
    calc = calculator(conf.calculator)
    state = PolicyState()
    reports: list[RoundReport] = []
    current = loaded
    killed: set[str] = set()
    for number in range(1, rounds + 1):
        now = clock_ms + (number - 1) * config.monitoring_interval_ms
        state_before = state
        result = edit_schedule(current.snapshot, config, calc, now, state)
        state = result.state
        reports.append(
            round_report(number, result, current.snapshot, current.name, config, calc, frozenset(state_before.marks))
        )
        gone = {
            current.name(e.container)
            for e in result.events
            if e.kind in (EventType.MARK_CONTAINER_FOR_KILLABLE, EventType.KILL_RESERVED_CONTAINER)
        }
        if gone:
            killed |= gone
            current = assemble(loaded.records.without(frozenset(killed)), conf)
    return reports


def default_rounds(config: PreemptionConfig) -> int:
    """Enough rounds for the first round's marks to be killed: one more than the kill wait in
    monitoring intervals (rounded up)."""
    interval = max(config.monitoring_interval_ms, 1)
    return -(-config.max_wait_before_kill_ms // interval) + 1


def round_report(
    number: int, result: RoundResult, snapshot: ClusterSnapshot, name: Callable[[Container], str], config: PreemptionConfig,
    calc: ResourceCalculator, marked_before: frozenset[ContainerId] = frozenset(),
) -> RoundReport:  # fmt: skip
    """The report of one round ``result`` of the policy on ``snapshot`` (``name`` gives a
    container's name for its events; ``marked_before`` the containers marked before the round):
    per queue and partition the main selector's figures, why a leaf gives what it gives, where
    its ideal stops and what the budget cut."""
    main = next((s for s in result.selectors if s.name == FIFO), result.selectors[-1])
    selected = _selected_by_queue(snapshot, result.selectors)
    remaining = result.budget - total(c.resource for c in result.selected)
    rows = []
    for path in snapshot.preorder():
        queue = snapshot.queues[path]
        for partition in snapshot.partitions:
            target = main.targets.get((path, partition))
            if target is None:
                continue
            pending = _pending(snapshot, path, partition)
            if target.guaranteed.is_zero() and target.used.is_zero() and pending.is_zero():
                continue
            taken = selected.get((path, partition), ZERO)
            why = (
                _why(snapshot, target, pending, taken, remaining, config, calc, result.selectors) if queue.leaf else ""
            )
            cap = ideal_cap(target, queue.leaf and main.name == FIFO, snapshot.cluster_resource, calc)
            rows.append(
                QueueRow(
                    path,
                    partition,
                    queue.leaf,
                    target.guaranteed,
                    queue.at(partition).maximum,
                    target.used,
                    pending,
                    target.ideal,
                    target.to_be_preempted,
                    target.to_obtain,
                    taken,
                    why,
                    cap,
                    target.budget_cut,
                )
            )
    events = tuple(
        EventLine(
            e.kind, e.selector, name(e.container), e.container.queue, e.container.node, e.container.resource,
            e.kind is not EventType.MARK_CONTAINER_FOR_PREEMPTION or e.container.container_id not in marked_before,
        )
        for e in result.events
    )  # fmt: skip
    selectors = tuple(s.name for s in result.selectors)
    waits = tuple((s.name, s.kill_wait_ms) for s in result.selectors)
    return RoundReport(
        number, result.now_ms, result.budget, selectors, tuple(rows), events, len(result.state.marks), waits
    )


def ideal_cap(target: QueueTarget, fifo_leaf: bool, cluster: Resource, calc: ResourceCalculator) -> str:
    """Where a queue's ideal stops, the first that holds: ``maximum`` (its maximum capacity),
    ``demand`` (used + pending), ``guarantee`` (a leaf in the FIFO pass is offered no more than
    ``max(used, guaranteed)``, Hadoop 3's ``TempQueuePerPartition.offer``), else ``parent``
    (what its parent had left, shared with its siblings)."""
    if not calc.less(cluster, target.ideal, target.maximum) and not target.maximum.is_zero():
        return "maximum"
    if not calc.less(cluster, target.ideal, target.used + target.pending):
        return "demand"
    if fifo_leaf and not calc.less(cluster, target.ideal, calc.max(cluster, target.used, target.guaranteed)):
        return "guarantee"
    return "parent"


def _pending(snapshot: ClusterSnapshot, path: str, partition: str) -> Resource:
    """A leaf's pending, or a parent's as the sum of its leaves'."""
    queue = snapshot.queues[path]
    if queue.leaf:
        return queue.at(partition).pending
    return total(_pending(snapshot, child, partition) for child in queue.children)


def _selected_by_queue(
    snapshot: ClusterSnapshot, selectors: Sequence[SelectorResult]
) -> dict[tuple[str, str], Resource]:
    found: dict[tuple[str, str], Resource] = {}
    for selector in selectors:
        for container in selector.selected:
            key = (container.queue, snapshot.node_partition(container))
            found[key] = found.get(key, ZERO) + container.resource
    return found


def _why(
    snapshot: ClusterSnapshot,
    target: QueueTarget,
    pending: Resource,
    taken: Resource,
    remaining: Resource,
    config: PreemptionConfig,
    calc: ResourceCalculator,
    selectors: Sequence[SelectorResult],
) -> str:
    """Why a leaf gives what it gives (or nothing), in the terms of the policy's steps."""
    cluster = snapshot.cluster_resource
    queue = snapshot.queues[target.queue]
    if calc.less_equal(cluster, target.used, target.guaranteed):
        if calc.greater(cluster, target.ideal, target.used):
            return f"under its guarantee with demand: ideal grows by {target.ideal - target.used}"
        return "within its guarantee"
    if queue.preemption_disabled:
        return "over its guarantee, but preemption is disabled for it"
    if target.to_be_preempted.is_zero() or not calc.greater(cluster, target.to_be_preempted, ZERO):
        return "over its guarantee, but no queue below its share asks for it (ideal >= used)"
    threshold = target.guaranteed.multiply_truncate(1.0 + config.max_ignored_over_capacity)
    if not calc.greater(cluster, target.used, threshold):
        return f"dead zone: used <= guaranteed x (1 + max_ignored_over_capacity {config.max_ignored_over_capacity}) = {threshold}"
    by = ", ".join(s.name for s in selectors if any(c.queue == target.queue for c in s.selected))
    damped = f"natural_termination_factor {config.natural_termination_factor} of to-preempt"
    if not calc.greater(cluster, taken, ZERO):
        return f"{damped}; nothing selected: {_shortfall(snapshot, target, remaining, calc, selectors)}"
    if calc.less(cluster, taken, target.to_obtain):
        return f"{damped}; selected by {by}, then stopped: {_shortfall(snapshot, target, remaining, calc, selectors)}"
    return f"{damped}; selected by {by}"


def _shortfall(
    snapshot: ClusterSnapshot,
    target: QueueTarget,
    remaining: Resource,
    calc: ResourceCalculator,
    selectors: Sequence[SelectorResult],
) -> str:
    """Why selection took less than the amount to obtain from a leaf."""
    chosen = {c.container_id for s in selectors for c in s.selected}
    left = [
        c
        for c in snapshot.containers
        if c.queue == target.queue
        and snapshot.node_partition(c) == target.partition
        and not c.reserved
        and c.container_id not in chosen
    ]
    if not left:
        return "no container of the queue left in this partition"
    if all(c.is_am for c in left):
        return "only AM containers left, kept while the queue's AM usage is within its AM limit"
    if not any(calc.fits_in(c.resource, remaining) for c in left if not c.is_am):
        return f"round budget (total_preemption_per_round) has {remaining} left, too little for the next container"
    return "the next container would overshoot what is left to obtain"
