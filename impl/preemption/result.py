"""What one ``edit_schedule`` round decides: per-queue targets, selections and events.

The policy is a pure function ``(snapshot, config, now, state) -> RoundResult``; the marks it
remembers between rounds (when each container was first marked) travel in :class:`PolicyState`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from yarnspec.impl.cluster import Container, ContainerId
from yarnspec.impl.resources import ZERO, Resource


class EventType(enum.Enum):
    """The events the policy sends to the scheduler (semantics A.8, A.12)."""

    MARK_CONTAINER_FOR_PREEMPTION = "MARK_CONTAINER_FOR_PREEMPTION"
    MARK_CONTAINER_FOR_KILLABLE = "MARK_CONTAINER_FOR_KILLABLE"
    KILL_RESERVED_CONTAINER = "KILL_RESERVED_CONTAINER"


@dataclass(frozen=True)
class PreemptionEvent:
    """One event about one container, with the selector that produced it."""

    kind: EventType
    container: Container
    selector: str

    @property
    def container_id(self) -> ContainerId:
        """The container's id."""
        return self.container.container_id


@dataclass(frozen=True)
class QueueTarget:
    """One queue's figures in one partition after a selector's ideal-allocation pass.

    ``to_obtain`` is what the selector then tries to take from the leaf (after dead zone,
    natural termination and deduction of earlier selections; semantics A.6-A.9).
    ``maximum`` and ``pending`` are the queue's as the ideal allocation read them (its cap and
    demand), ``budget_cut`` what the round's budget (``total_preemption_per_round``) scaled off
    ``to_be_preempted`` (zero when the queue's level asked for no more than the budget).
    """

    queue: str
    partition: str
    guaranteed: Resource
    used: Resource
    ideal: Resource
    untouchable: Resource
    preemptable: Resource
    to_be_preempted: Resource
    to_obtain: Resource
    maximum: Resource = ZERO
    pending: Resource = ZERO
    budget_cut: Resource = ZERO


@dataclass(frozen=True)
class SelectorResult:
    """One selector's ideal allocation and the containers it newly selected, in order."""

    name: str
    kill_wait_ms: int
    targets: Mapping[tuple[str, str], QueueTarget]
    selected: tuple[Container, ...]


@dataclass(frozen=True)
class PolicyState:
    """The policy's memory across rounds: the time each still-tracked container was marked."""

    marks: Mapping[ContainerId, int] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class RoundResult:
    """Everything one round decided.

    ``budget`` is the round's preemption allowance at the start (cluster x
    ``total_preemption_per_round``); ``events`` in emission order; ``state`` is what the next
    round starts from.
    """

    now_ms: int
    budget: Resource
    selectors: tuple[SelectorResult, ...]
    events: tuple[PreemptionEvent, ...]
    state: PolicyState

    @property
    def selected(self) -> tuple[Container, ...]:
        """Every container selected this round, over all selectors, in selection order."""
        return tuple(c for s in self.selectors for c in s.selected)
