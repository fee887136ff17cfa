"""Seed 004's second scheduler, the "Superior" scheduler, and its preemption rule.

Seed 004 (an operator's guide) describes a scheduler whose queues have a ``minimum`` and a
``share`` (a weight). While resources are plentiful a queue may use more than its policy
says; when they run short, preemption restores the promised minimums, and *a queue is not
preempted while either its CPU or its memory is within its minimum*. Its settings:
``ss.engine.scheduler.preemption-enable``, ``preemption-interval-ms`` (3000),
``preemption-max-per-interval`` (containers per interval, -1 for no limit) and
``preemption-warn-period-ms`` (10000, the notice an application master gets before the kill).

One round (:func:`superior_round`), a pure function of the running containers:

1. a queue *starves* when it has pending tasks and uses less than its minimum in some type;
   it needs ``min(minimum - used, pending)`` per type, less what is free;
2. the starving queues are served in order of their use relative to their share, least first;
3. victims are the other queues that the guarantee rule (:class:`MinimumGuard`) does not
   protect, the one using most relative to its share first; each gives its newest non-AM
   container, the rule checked again before every container, until the need is met or no
   victim is left, at most ``max_per_interval`` containers per round.

The guarantee rule is a named variant: ``superior`` (the seed's: protected while *any* of
CPU and memory is within the minimum) and, for contrast, ``every-type`` (protected only while
*every* type is within it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yarnspec.impl.resources import ZERO, Resource, total


@dataclass(frozen=True)
class MinimumGuard:
    """When a queue counts as within its minimum, and so may not be preempted: ``any_type``
    protects it while some type (CPU or memory) is at or below the minimum; otherwise only
    while every type is."""

    name: str
    any_type: bool

    def protects(self, used: Resource, minimum: Resource) -> bool:
        """Whether a queue using ``used`` is protected by its ``minimum``."""
        within = [u <= m for u, m in zip(used.values, minimum.padded(len(used)).values)]
        return any(within) if self.any_type else all(within)


SUPERIOR_GUARD = MinimumGuard("superior", any_type=True)
EVERY_TYPE_GUARD = MinimumGuard("every-type", any_type=False)
GUARDS: tuple[MinimumGuard, ...] = (SUPERIOR_GUARD, EVERY_TYPE_GUARD)


@dataclass(frozen=True)
class SuperiorQueue:
    """A queue of the Superior scheduler: its ``minimum`` and its ``share`` (weight > 0)."""

    name: str
    minimum: Resource
    share: float = 1.0


@dataclass(frozen=True)
class Task:
    """A running container: its application and queue, size, whether it is the application
    master, and its start order (a larger ``started`` is newer)."""

    app: str
    queue: str
    resource: Resource
    is_am: bool
    started: int


@dataclass(frozen=True)
class SuperiorState:
    """What a round reads: the cluster's resource, the queues, the running tasks and each
    queue's pending resource (the tasks it still waits to run)."""

    cluster: Resource
    queues: tuple[SuperiorQueue, ...]
    running: tuple[Task, ...]
    pending: tuple[tuple[str, Resource], ...]

    def used(self, queue: str, running: Sequence[Task] | None = None) -> Resource:
        """What ``queue`` uses among ``running`` (default: all running tasks)."""
        return total(t.resource for t in (self.running if running is None else running) if t.queue == queue)

    def pending_of(self, queue: str) -> Resource:
        """What ``queue`` waits for."""
        return next((amount for name, amount in self.pending if name == queue), ZERO)


def superior_round(
    state: SuperiorState, guard: MinimumGuard = SUPERIOR_GUARD, max_per_interval: int = -1
) -> tuple[Task, ...]:
    """The containers one preemption round takes (module docstring), in the order taken."""
    running = list(state.running)
    free = (state.cluster - total(t.resource for t in running)).clamp_min_zero()
    taken: list[Task] = []
    for queue in sorted(
        state.queues, key=lambda q: (_load(state.used(q.name, running), state.cluster, q.share), q.name)
    ):
        pending = state.pending_of(queue.name)
        used = state.used(queue.name, running)
        need = (queue.minimum - used).clamp_min_zero().component_min(pending)
        if need.is_zero():
            continue  # nothing pending, or at its minimum in every type it asks for
        shortfall = (need - free).clamp_min_zero()
        while not shortfall.is_zero() and (max_per_interval < 0 or len(taken) < max_per_interval):
            victim = _victim(state, running, queue.name, guard)
            if victim is None:
                break
            running.remove(victim)
            taken.append(victim)
            free = free + victim.resource
            shortfall = (shortfall - victim.resource).clamp_min_zero()
        free = (free - need).clamp_min_zero()
    return tuple(taken)


def _load(used: Resource, cluster: Resource, share: float) -> float:
    """A queue's use relative to its share: its dominant share of the cluster over the share."""
    shares = [u / c for u, c in zip(used.values, cluster.values) if c > 0]
    return max(shares, default=0.0) / share


def _victim(state: SuperiorState, running: list[Task], starving: str, guard: MinimumGuard) -> Task | None:
    """The newest non-AM task of the unprotected queue using most relative to its share."""
    candidates = []
    for queue in state.queues:
        if queue.name == starving:
            continue
        used = state.used(queue.name, running)
        tasks = [t for t in running if t.queue == queue.name and not t.is_am]
        if tasks and not guard.protects(used, queue.minimum):
            candidates.append(
                (-_load(used, state.cluster, queue.share), queue.name, max(tasks, key=lambda t: t.started))
            )
    return min(candidates)[2] if candidates else None
