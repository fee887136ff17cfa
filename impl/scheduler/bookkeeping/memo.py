"""The scheduler model's memo: results of pure functions remembered for one world.

Exploring a world asks the same questions again and again: every node's allocation pass reads
one view of a state while the enabled actions are listed, and the same pass is asked for again
when an action is taken; many states differ only in what a pass or a monitor round does not
read. A :class:`Memo` remembers those answers. It is an explicit object, created by whoever
steps the model (``spec/scheduler/model.py``: one per model) and passed down, never a module
global: two models, or two processes, never share one. Each table starts afresh once it holds
its bound, so the memory stays bounded; a memo changes no result, only how often it is
computed (``tests/scheduler/test_caches.py`` compares every remembered answer with a fresh one).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

from yarnspec.impl.cluster import ContainerId, Queue
from yarnspec.impl.preemption.result import RoundResult
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import Proposal, SchedulerState
from yarnspec.impl.scheduler.world import World

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = TypeVar("P", bound=Hashable)

#: Bounds of the tables (entries); a table starts afresh beyond its bound.
MAX_PASS_INPUTS = 50_000
MAX_ROUNDS = 20_000
MAX_CONFIGURED = 1_000
MAX_ACTIONS = 10_000  # per candidate domain of the enabled-action listing
MAX_LISTED = 20_000  # per remembered segment of the enabled-action listing
MAX_LIMIT_CHECKS = 20_000


class BoundedTable(Generic[K, V]):
    """Answers by key, at most ``bound`` of them (the table starts afresh beyond it)."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.entries: dict[K, V] = {}

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The answer for ``key``, computed (and remembered) on first use."""
        found = self.entries.get(key)
        if found is None:
            if len(self.entries) >= self.bound:
                self.entries.clear()
            found = self.entries[key] = compute()
        return found


class Memo:
    """What one world's model remembers (see the module docstring):

    * the view of the state last asked about (:meth:`view`: every pass over one state reads
      the same figures);
    * the proposals of each pass, by what the pass reads of a state (:meth:`proposals`);
    * the commit's limits check per what it reads (:attr:`limit_checks`, used by
      :mod:`.async_commit`: why a proposal is rejected, ``""`` if it is not);
    * the configured queues per partition resources and the preemption policy's round per
      monitor inputs (:attr:`configured`, :attr:`rounds`, used by :mod:`.monitor`);
    * the enabled-action listing's plan, a fact of the world alone computed once per set of
      kinds left out (:attr:`listings`: which actions the world's settings let be enabled at
      all, with a table per state-dependent domain of the actions built for each candidate: a
      container id, a proposal in flight; and, per segment of kinds that declare what they
      read, the enabled actions by what they read).
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self._view: View | None = None
        self._pass_state: SchedulerState | None = None
        self._pass_proposals: dict[Hashable, tuple[Proposal, ...]] = {}
        self.passes: BoundedTable[Hashable, dict[Hashable, tuple[Proposal, ...]]] = BoundedTable(MAX_PASS_INPUTS)
        self.configured: BoundedTable[Hashable, dict[str, Queue]] = BoundedTable(MAX_CONFIGURED)
        self.rounds: BoundedTable[Hashable, tuple[RoundResult, Mapping[ContainerId, int]]] = BoundedTable(MAX_ROUNDS)
        #: The enabled-action listing's plan (a fact of the world built by
        #: :mod:`.actions`), per set of kinds left out.
        self.listings: dict[frozenset[str], Any] = {}
        self.limit_checks: BoundedTable[Hashable, str] = BoundedTable(MAX_LIMIT_CHECKS)

    def view(self, state: SchedulerState) -> View:
        """The view of ``state``, shared by everything that reads this state in a row. One
        entry: callers go state by state, and the entry holds its state, so identity is safe."""
        if self._view is None or self._view.state is not state:
            self._view = View(self.world, state)
        return self._view

    def proposals(
        self,
        state: SchedulerState,
        inputs: Callable[[SchedulerState], Hashable],
        action: P,
        compute: Callable[[View, P], tuple[Proposal, ...]],
    ) -> tuple[Proposal, ...]:
        """What ``action``'s pass proposes in ``state`` (``compute(view, action)`` from the
        state's shared view), computed once per distinct pass inputs (``inputs(state)``:
        everything of a state a pass reads)."""
        if self._pass_state is not state:
            self._pass_state = state
            self._pass_proposals = self.passes.get(inputs(state), dict)
        found = self._pass_proposals.get(action)
        if found is None:
            found = self._pass_proposals[action] = compute(self.view(state), action)
        return found

    def check(self, world: World) -> Memo:
        """This memo, if it is ``world``'s (a ``ValueError`` otherwise: answers of another
        world would be wrong here)."""
        if world is not self.world:
            raise ValueError("the memo belongs to another world")
        return self


def memo_for(world: World, memo: Memo | None) -> Memo:
    """``memo`` (checked to be ``world``'s), or a fresh one for a caller that keeps none."""
    return Memo(world) if memo is None else memo.check(world)
