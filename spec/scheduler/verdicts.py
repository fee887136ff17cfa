"""The scheduler model's state-invariant verdicts, remembered by the part of a state they read.

The catalogue's state invariants read only the containers, nodes, applications, queues, users
and next container id of a state
(:data:`~yarnspec.spec.scheduler.invariants.ACCOUNTING_FIELDS`), never the clock, proposals,
marks or sorter caches. Exploring, many states share that accounting part and differ elsewhere
(a clock tick, a proposal in flight: on ``async-double-commit/yarn-8127`` 33,118 states have 2,086
distinct accounting parts). :class:`Verdicts` remembers each state invariant's verdict by that
part, so a predicate runs once per distinct part and its verdict is read back for the others.
The predicates themselves are untouched: a verdict read back is the one the predicate gave on
equal inputs.

A state invariant that is not the catalogue's (a plugin's) may read anything: it is evaluated
on every state. Step invariants are not remembered: their figures are cheap next to the cost of
a key made of two states' accounting parts.

A :class:`Verdicts` is an explicit cache owned by one model (no module state), bounded: when
it holds ``capacity`` entries it starts again empty, which costs only recomputation.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from operator import attrgetter

from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler.invariants import ACCOUNTING_FIELDS, STATE_INVARIANTS, SchedulerInvariant, SchedulerStep

#: A state's accounting part: the tuple of its :data:`ACCOUNTING_FIELDS` (read in C).
accounting = attrgetter(*ACCOUNTING_FIELDS)

#: A verdict not computed yet (a predicate returns ``None`` or a message).
_UNKNOWN = object()

Verdict = str | None


class Verdicts:
    """Verdicts of a model's state invariants, read in checking order by the explorer one
    state after the other, and remembered by accounting part for the catalogue's (see the
    module docstring).

    ``state_invariants`` are the model's state invariants in checking order. All those of one
    state share one :class:`SchedulerStep`, so the sums are computed at most once per state.
    """

    def __init__(self, world: World, state_invariants: Sequence[SchedulerInvariant], capacity: int = 1 << 16) -> None:
        self.world = world
        self.capacity = capacity
        self.state_invariants = tuple(state_invariants)
        self._remembered = tuple(any(i is known for known in STATE_INVARIANTS) for i in self.state_invariants)
        self._all_remembered = all(self._remembered)
        #: The entry of every accounting part where each remembered invariant holds (the slots
        #: of the others, never read, hold ``None`` in every entry).
        self._clean: list[object] = [None] * len(self._remembered)
        #: The state checked last if every remembered invariant is known to hold there (a
        #: check reads it to answer ``None`` at once).
        self.clean: SchedulerState | None = None
        self._states: dict[Hashable, list[object]] = {}
        self._state: SchedulerState | None = None
        self._key: Hashable = None
        self._verdicts: list[object] = []
        self._step: SchedulerStep | None = None

    def remembered(self, index: int) -> bool:
        """Whether the verdicts of state invariant ``index`` are remembered."""
        return self._remembered[index]

    def state_verdict(self, index: int, state: SchedulerState) -> Verdict:
        """The verdict of state invariant ``index`` on ``state``."""
        if state is not self._state:
            self._switch(state)
        verdicts = self._verdicts
        remembered = self._remembered[index]
        verdict = verdicts[index] if remembered else _UNKNOWN
        if verdict is _UNKNOWN:
            if self._step is None:
                self._step = SchedulerStep(self.world, state)
            verdict = self.state_invariants[index].predicate(self._step)
            if remembered:
                verdicts[index] = verdict
                if verdicts.count(None) == len(verdicts):
                    self._states[self._key] = self._clean
                    self.clean = state
        return verdict  # type: ignore[return-value]

    def first_violation(self, state: SchedulerState) -> tuple[int, str] | None:
        """The index and message of the first state invariant ``state`` violates (checking
        order), or ``None``: the verdicts of :meth:`state_verdict` in one call, which answers
        at once for an accounting part where every invariant is known to hold (most states)."""
        if state is not self._state:
            self._switch(state)
        if self._all_remembered and self._verdicts is self._clean:
            return None
        for index in range(len(self._remembered)):
            verdict = self.state_verdict(index, state)
            if verdict is not None:
                return index, verdict
        return None

    def _switch(self, state: SchedulerState) -> None:
        """Make ``state`` the one checked now: its remembered verdicts, or a fresh entry."""
        key = accounting(state)
        verdicts = self._states.get(key)
        if verdicts is None:
            if len(self._states) >= self.capacity:
                self._states.clear()
            verdicts = self._states[key] = [_UNKNOWN if kept else None for kept in self._remembered]
        elif verdicts is self._clean:
            self.clean = state
        self._state, self._key, self._verdicts, self._step = state, key, verdicts, None
