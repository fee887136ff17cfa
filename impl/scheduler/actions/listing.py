"""How the action table is listed and taken: the machinery behind :mod:`yarnspec.impl.scheduler.actions`.

:func:`enabled` lists the enabled actions of a state in the table's order; :func:`take`
applies one (with a note of what happened) and :func:`apply_action` checks first that it is
enabled. :func:`steps` is the explorer's way: every enabled action with its table entry and
the state it leads to, the guards and steps of one state sharing one
:class:`~.kind.Context`, each step called straight from its entry, no note made; the
enabled actions of kinds that declare what they read (``ActionKind.reads``) are remembered
by it. Each takes the model's :class:`~yarnspec.impl.scheduler.bookkeeping.memo.Memo` (a fresh one when
none is given: correct, only slower).

How: neighbouring kinds over the same candidates form a group (their actions interleave per
candidate); a world's *plan* (kept in ``Memo.listings``) leaves out the kinds its settings never
enable, builds the checks of world-only domains once and remembers those of state-dependent
domains per candidate; segments of kinds that declare what they read remember their enabled
actions by it. This is the explorer's hot path (``benchmarks/explorer_speed.py``): each guard
and step is called straight from its table entry, with no indirection per call.

The table itself is :data:`yarnspec.impl.scheduler.actions.TABLE`, defined before this module
is imported (the package imports this module after it).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import partial
from types import MappingProxyType
from typing import Any

from yarnspec.impl.scheduler.actions import TABLE, Action, start
from yarnspec.impl.scheduler.actions.kind import WORLD_DOMAINS, ActionKind, Candidates, Context, StepResult
from yarnspec.impl.scheduler.bookkeeping.memo import MAX_ACTIONS, MAX_LISTED, BoundedTable, Memo, memo_for
from yarnspec.impl.scheduler.state import SchedulerState, initial_state
from yarnspec.impl.scheduler.world import World

_BY_CLASS: MappingProxyType[type, ActionKind[Any]] = MappingProxyType({k.action: k for k in TABLE})


def _groups(table: tuple[ActionKind[Any], ...]) -> tuple[tuple[Candidates, tuple[ActionKind[Any], ...]], ...]:
    """Runs of neighbouring kinds with the same candidates: their actions interleave per
    candidate (``ask(app1, r1)``, ``cancel(app1, r1)``, ``ask(app1, r2)``, ...)."""
    groups: list[tuple[Candidates, tuple[ActionKind[Any], ...]]] = []
    for entry in table:
        if groups and groups[-1][0] is entry.candidates:
            groups[-1] = (entry.candidates, (*groups[-1][1], entry))
        else:
            groups.append((entry.candidates, (entry,)))
    return tuple(groups)


_GROUPS = _groups(TABLE)

#: One listed action with its table entry (what :func:`_enabled` returns).
Pair = tuple[ActionKind[Any], Action]

#: A candidate's checks, one per kind of its group: the kind's guard and the pair it lists.
Checks = tuple[tuple[Callable[[Context, Any], bool], Pair], ...]


class _StateDomain:
    """A group whose candidates depend on the state (containers, proposals in flight): the
    kinds the world lets be enabled, and every candidate's checks, built on the candidate's
    first use and remembered (bounded) by its arguments, so states share them."""

    __slots__ = ("candidates", "kinds", "checks")

    def __init__(self, candidates: Candidates, kinds: tuple[ActionKind[Any], ...]) -> None:
        self.candidates = candidates
        self.kinds = kinds
        self.checks: BoundedTable[tuple[Any, ...], Checks] = BoundedTable(MAX_ACTIONS)

    def build(self, args: tuple[Any, ...]) -> Checks:
        """The checks of one candidate, in the group's kind order."""
        return _checks(self.kinds, args)


#: Runs of the listing, in table order: neighbouring groups over world-only domains flattened
#: into the checks of every candidate (a tuple: built once), and the groups over state-dependent
#: domains (:class:`_StateDomain`).
Runs = tuple["Checks | _StateDomain", ...]


class _Segment:
    """Neighbouring groups of the listing whose kinds declare the same ``reads`` (see
    :class:`~.kind.ActionKind`): their enabled actions are remembered (bounded) by what they
    read of a state, so a state that agrees on it with an earlier one asks none of their
    guards. Groups that declare nothing (``reads`` is ``None``) are listed anew in every
    state."""

    __slots__ = ("reads", "runs", "listed")

    def __init__(self, reads: Callable[[SchedulerState], Hashable] | None, runs: Runs) -> None:
        self.reads = reads
        self.runs = runs
        self.listed: BoundedTable[Hashable, list[Pair]] = BoundedTable(MAX_LISTED)


#: The enabled-action listing of one world (kinds the world's settings never enable left out):
#: its segments in table order.
Plan = tuple[_Segment, ...]


def _checks(kinds: tuple[ActionKind[Any], ...], args: tuple[Any, ...]) -> Checks:
    """One candidate's checks: each kind's guard with its action, in the group's kind order."""
    return tuple((entry.guard, (entry, entry.action(*args))) for entry in kinds)


def _group_reads(kinds: tuple[ActionKind[Any], ...]) -> Callable[[SchedulerState], Hashable] | None:
    """What every kind of a group reads, if they all declare the same, else ``None``."""
    declared = {entry.reads for entry in kinds}
    return declared.pop() if len(declared) == 1 else None


def _plan(world: World, leave_out: frozenset[str] = frozenset()) -> Plan:
    """The table's groups as ``world`` lists them (see :data:`Plan`): kinds its settings never
    enable and kinds named in ``leave_out`` left out, the checks of world-only domains built
    once. The plan is a fact of the world kept in the model's memo (``Memo.listings``), its
    tables with it."""
    segments: list[tuple[Callable[[SchedulerState], Hashable] | None, list[Checks | _StateDomain]]] = []
    state = initial_state(world)
    for candidates, kinds in _GROUPS:
        possible = tuple(entry for entry in kinds if entry.possible_in(world) and entry.name not in leave_out)
        if not possible:
            continue
        reads = _group_reads(possible)
        if not segments or segments[-1][0] is not reads:
            segments.append((reads, []))
        runs = segments[-1][1]
        if candidates not in WORLD_DOMAINS:
            runs.append(_StateDomain(candidates, possible))
            continue
        fixed = tuple(check for args in candidates(world, state) for check in _checks(possible, args))
        if runs and not isinstance(runs[-1], _StateDomain):
            runs[-1] = (*runs[-1], *fixed)  # neighbouring world-only runs list as one
        else:
            runs.append(fixed)
    return tuple(_Segment(reads, tuple(runs)) for reads, runs in segments)


def action_kind(action: Action) -> ActionKind[Any]:
    """The table entry of an action."""
    return _BY_CLASS[type(action)]


def kind(action: Action) -> str:
    """The action's kind, one of :data:`KINDS`."""
    return _BY_CLASS[type(action)].name


def enabled(
    world: World, state: SchedulerState, memo: Memo | None = None, leave_out: frozenset[str] = frozenset()
) -> list[Action]:
    """The enabled actions of ``state``, in table order (environment first), but none of the
    kinds named in ``leave_out``."""
    return [action for _, action in _enabled(Context(world, state, memo_for(world, memo)), leave_out)]


def steps(
    world: World, state: SchedulerState, memo: Memo | None = None, leave_out: frozenset[str] = frozenset()
) -> list[tuple[ActionKind[Any], Action, SchedulerState]]:
    """Every action :func:`enabled` lists, with its table entry and the state it leads to:
    the explorer's successors (the same steps :func:`take` takes, without their notes)."""
    context = Context(world, state, memo_for(world, memo))
    return [(entry, action, entry.step(context, action)) for entry, action in _enabled(context, leave_out)]


def _enabled(context: Context, leave_out: frozenset[str]) -> list[Pair]:
    """The enabled actions of the context's state with their table entries, in table order."""
    plan: Plan | None = context.memo.listings.get(leave_out)
    if plan is None:
        plan = context.memo.listings[leave_out] = _plan(context.world, leave_out)
    found: list[Pair] = []
    for segment in plan:
        if segment.reads is None:
            _list(context, segment.runs, found)
            continue
        key = segment.reads(context.state)
        listed = segment.listed.entries.get(key)
        if listed is None:
            listed = segment.listed.get(key, partial(_list, context, segment.runs, []))
        found += listed
    return found


def _list(context: Context, runs: Runs, found: list[Pair]) -> list[Pair]:
    """``found`` with the enabled actions of the runs added, in order."""
    add = found.append
    for run in runs:
        if not isinstance(run, _StateDomain):
            for guard, pair in run:
                if guard(context, pair[1]):
                    add(pair)
            continue
        remembered = run.checks
        for args in run.candidates(context.world, context.state):
            checks = remembered.entries.get(args)
            if checks is None:
                checks = remembered.get(args, partial(run.build, args))
            for guard, pair in checks:
                if guard(context, pair[1]):
                    add(pair)
    return found


def apply_action(world: World, state: SchedulerState, action: Action, memo: Memo | None = None) -> StepResult:
    """The effect of an enabled action (``ValueError`` if it is not enabled)."""
    memo = memo_for(world, memo)
    if action not in enabled(world, state, memo):
        raise ValueError(f"{label(world, action)} is not enabled")
    return take(world, state, action, memo)


def take(world: World, state: SchedulerState, action: Action, memo: Memo | None = None) -> StepResult:
    """The effect of an action the caller took from :func:`enabled` for this very state
    (no second check: walkers already know it is enabled), with its note."""
    return action_kind(action).effect(Context(world, state, memo_for(world, memo)), action)


def step(world: World, state: SchedulerState, action: Action, memo: Memo | None = None) -> SchedulerState:
    """The state an enabled action leads to."""
    return apply_action(world, state, action, memo).state


def successors(world: World, state: SchedulerState, memo: Memo | None = None) -> list[tuple[Action, SchedulerState]]:
    """Every enabled action with the state it leads to, in :func:`enabled` order."""
    return [(action, after) for _, action, after in steps(world, state, memo)]


def label(world: World, action: Action) -> str:
    """A readable text of an action, such as ``heartbeat(n1)`` or ``ask(app2, r1)``."""
    return action_kind(action).label(world, action)


def action_class(action: Action) -> str:
    """The fairness class: the kind, per node for heartbeats (``heartbeat@2``); a proposal for
    one node (``propose-node``: single-node placement) apart from a partition's multi-node
    pass (``propose``)."""
    return action_kind(action).fairness_class(action)


def fair_classes(world: World) -> frozenset[str]:
    """The fairness classes of every weakly fair kind's actions in ``world`` (``heartbeat@N``
    per node, ``propose``, ``propose-node``, ``commit``, ``resort``, ``tick``, ``monitor``)."""
    state = start(world)
    found: set[str] = set()
    for entry in TABLE:
        if not entry.fair:
            continue
        if entry.fairness is None:
            found.add(entry.name)
        else:
            found.update(entry.fairness(entry.action(*args)) for args in entry.candidates(world, state))
    return frozenset(found)
