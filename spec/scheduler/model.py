"""The scheduler model as a :class:`~yarnspec.spec.transition_system.TransitionSystem`.

:class:`SchedulerModel` adapts a :class:`~yarnspec.impl.scheduler.world.World`: one initial
state, the enabled actions in a fixed order, readable labels, fairness classes (the action
kind; per node for heartbeats), a canonical form (interchangeable nodes, applications and
container ids, :mod:`yarnspec.impl.scheduler.bookkeeping.canonical`), the invariant catalogue of
:mod:`yarnspec.spec.scheduler.invariants` and the progress properties of :data:`PROGRESS_PROPERTIES`.

Step invariants (a limit respected by the step that allocates) are checked on every
transition whose action kind can break them: a model state is the scheduler state plus the step invariants the step into it
broke (always empty in a correct model, so it adds no states), and each step invariant is an
invariant of model states that reports them.

The worlds themselves are world files (:mod:`yarnspec.spec.worlds.world_file`), all in the one
catalogue (:mod:`yarnspec.spec.worlds.catalogue`); :mod:`yarnspec.spec.worlds.world_builders`
builds the shipped ones the property suite walks from their variant parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, NamedTuple

from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import (
    KINDS,
    Action,
    action_class,
    describe_proposal,
    enabled,
    kind,
    label,
    start,
    steps,
)
from yarnspec.impl.scheduler.bookkeeping.canonical import Symmetry, canonical_form, placement_slots, renumber_containers
from yarnspec.impl.scheduler.bookkeeping.memo import Memo
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.inputs.variants import CommitCheck, HeadroomRule
from yarnspec.impl.scheduler.state import ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.property_catalogue import ProgressProperty, PropertyCatalogue
from yarnspec.spec.scheduler.invariants import (
    STATE_INVARIANTS,
    STEP_INVARIANTS,
    SchedulerInvariant,
    SchedulerStep,
    StatePremise,
)
from yarnspec.spec.scheduler.reference_limits import ReferenceLimits
from yarnspec.spec.scheduler.verdicts import Verdicts
from yarnspec.spec.transition_system import Invariant, JSONValue, Premise, Progress, TransitionSystem, leads_to


class ModelState(NamedTuple):
    """A scheduler state and the step invariants broken by the step that reached it
    (``(name, message)`` pairs; empty unless the model is wrong).

    A named tuple, as the scheduler's records are: the explorer hashes one per transition and
    compares it with the equal state it has usually met already, both in C."""

    scheduler: SchedulerState
    broken: tuple[tuple[str, str], ...] = ()


#: Builds a named tuple from the tuple of its fields, in C.
_new_tuple = tuple.__new__


class SchedulerModel(TransitionSystem[ModelState, Action]):
    """The transition system of one world (see the module docstring)."""

    name = "capacity-scheduler"

    def __init__(
        self, world: World, title: str = "", progress: bool = True, properties: Sequence[str] = ("reservation-progress",),
        catalogue: PropertyCatalogue | None = None, extra_invariants: Sequence[SchedulerInvariant] = (),
    ) -> None:  # fmt: skip
        known = (catalogue or BUILTIN_PROPERTIES).progress
        unknown = sorted(set(properties) - set(known))
        if unknown:
            raise ValueError(f"unknown progress property {unknown[0]!r}; known: {', '.join(known)}")
        self.world = world
        self._with_progress = progress
        self._properties = tuple(known[name] for name in properties)
        self._extra_invariants = tuple(extra_invariants)
        self.variant = world.name
        self.parameters: Mapping[str, JSONValue] = {
            "world": title or "custom",
            "nodes": len(world.nodes),
            "apps": len(world.apps),
            "queues": len(world.queues),
            "max_clock_ms": world.bounds.max_clock_ms,
            "max_proposals": world.bounds.max_proposals,
            "max_ask": world.bounds.max_ask,
            "max_containers": world.bounds.max_containers,
        }
        self._symmetry = Symmetry.of(world)
        self._placement_slots = placement_slots(world)
        #: The step invariants in checking order (the catalogue's, then the extra ones).
        self._step_order = (*STEP_INVARIANTS, *(i for i in self._extra_invariants if i.is_step))
        self._step_invariants = _by_kind(self._step_order)
        #: The invariants' verdicts and reference limits, remembered by the parts of a state they read.
        self.limits = ReferenceLimits(world)
        self.verdicts = Verdicts(
            world, tuple(inv for inv in (*STATE_INVARIANTS, *self._extra_invariants) if not inv.is_step)
        )
        #: What the model's steps remember (views, passes, monitor rounds): this model's alone.
        self.memo = Memo(world)
        #: Action kinds the model never takes (its environment keeps quiet; none here).
        self.quiet: frozenset[str] = frozenset()

    def initial_states(self) -> list[ModelState]:
        """One initial state: nothing submitted, the clock at 0."""
        return [ModelState(start(self.world))]

    def actions(self, state: SchedulerState) -> list[Action]:
        """The actions the model takes from ``state``: every enabled one but those of the
        :attr:`quiet` kinds."""
        return enabled(self.world, state, self.memo, self.quiet)

    def successors(self, state: ModelState) -> list[tuple[Action, ModelState]]:
        """Every action of :meth:`actions` with the state it leads to, step invariants checked
        (in an endless world, container ids are renumbered after the check)."""
        before = state.scheduler
        world = self.world
        endless = world.bounds.endless
        by_kind = self._step_invariants
        unchanged_is_state = not endless and not state.broken
        out: list[tuple[Action, ModelState]] = []
        append = out.append
        for entry, action, after in steps(world, before, self.memo, self.quiet):
            checks = by_kind.get(entry.name)
            if not checks:
                if after is before and unchanged_is_state:
                    append((action, state))  # a stuttering step: the same state (the explorer knows it at once)
                    continue
                broken: tuple[tuple[str, str], ...] = ()
            else:
                step = SchedulerStep(world, after, before, action, self.limits)
                broken = ()
                for inv in checks:
                    if (message := inv.predicate(step)) is not None:
                        broken += ((inv.name, message),)
            # tuple.__new__ builds the named tuple in C (its generated __new__ is a Python call)
            append((action, _new_tuple(ModelState, (renumber_containers(after) if endless else after, broken))))
        return out

    def action_label(self, action: Action) -> str:
        """``heartbeat(n1)``, ``commit(allocate app1/r1 on n2 from c3)``, ..."""
        return label(self.world, action)

    def action_class(self, action: Action) -> str:
        """The action's kind; heartbeats per node (``heartbeat@0``)."""
        return action_class(action)

    def action_kind(self, action: Action) -> str:
        """The action's kind (one of the scheduler's action kinds), for coverage reports."""
        return kind(action)

    def action_kinds(self) -> Sequence[str]:
        """Every action kind of the scheduler model."""
        return KINDS

    def canonical(self, state: ModelState) -> Hashable:
        """The symmetry class representative (and the broken step invariants)."""
        return (canonical_form(self._symmetry, state.scheduler), state.broken)

    def partition_key(self, key: Hashable) -> Hashable:
        """The nodes, applications and containers of a state's key (its :meth:`canonical` form,
        or the state): most of what an allocation pass reads, which the memo remembers passes
        by, so that one worker of a parallel search expands the states that share them."""
        if isinstance(key, ModelState):
            scheduler = key.scheduler
            return scheduler.nodes, scheduler.apps, scheduler.containers
        encoded: tuple[object, ...] = key[0]  # type: ignore[index]
        return self._placement_slots(encoded)

    def invariants(self) -> list[Invariant[ModelState]]:
        """Every state invariant of the catalogue, then every step invariant, each with its
        premise when it has one (one premise function per distinct antecedent)."""
        verdicts = self.verdicts
        premises: dict[int, Premise[ModelState]] = {}

        def premise(inv: SchedulerInvariant) -> Premise[ModelState] | None:
            if inv.premise is None:
                return None
            if id(inv.premise) not in premises:
                premises[id(inv.premise)] = _premise(self.world, inv.premise)
            return premises[id(inv.premise)]

        found: list[Invariant[ModelState]] = [
            Invariant(inv.name, _state_check(verdicts, index), inv.summary, premise(inv))
            for index, inv in enumerate(verdicts.state_invariants)
        ]
        found += [Invariant(inv.name, _step_check(inv.name), inv.summary, premise(inv)) for inv in self._step_order]
        return found

    def first_violation(self, state: ModelState) -> tuple[str, str] | None:
        """The name and message of the first invariant of :meth:`invariants` that ``state``
        violates, or ``None``: their checks in one call (the explorer's, once per new state)."""
        found = self.verdicts.first_violation(state.scheduler)
        if found is not None:
            index, message = found
            return self.verdicts.state_invariants[index].name, message
        if state.broken:
            for inv in self._step_order:
                for name, message in state.broken:
                    if name == inv.name:
                        return name, message
        return None

    def progress(self) -> list[Progress[ModelState]]:
        """The progress properties chosen (``properties``, by name in the model's
        :class:`~yarnspec.spec.property_catalogue.PropertyCatalogue`). The model's own are each
        ``P ~> not P`` under weak fairness of the scheduler's steps (heartbeats per node,
        proposals, commits, re-sorts, monitor rounds) and the clock; the environment may go
        quiet. A registered property brings its own premise, goal and fairness.

        ``reservation-progress``: a reservation that would fit on some node of its partition
        and whose request still asks is eventually allocated or given up (or its request
        withdrawn). Seed 003: violated under ``yarn-8127`` with multi-node placement, where the
        scheduler proposes it on the node with room and the commit refuses it for ever.

        ``guarantee-progress``: a leaf queue with a pending container that would keep it within
        its guarantee (allocated, that is used less reserved, plus the container fits in the
        guarantee) eventually gets it or stops asking (the design note's progress property, ``docs/sources.md``:
        "a queue under its guarantee with pending demand eventually gains"). Seed 002: violated when preemption frees pieces the
        large request never fits and the lender takes them back, round after round."""
        if not self._with_progress:
            return []
        return [_progress(self.world, prop) for prop in self._properties]

    def state_json(self, state: ModelState) -> JSONValue:
        """The state with names: clock, nodes, applications, containers, proposals, marks (and
        killable containers under lazy preemption)."""
        return state_json(self.world, state.scheduler) | (
            {"broken": [list(b) for b in state.broken]} if state.broken else {}
        )


def _progress(world: World, prop: ProgressProperty) -> Progress[ModelState]:
    """``prop`` over model states of ``world``."""

    def premise(state: ModelState) -> bool:
        return prop.premise(world, state.scheduler)

    def goal(state: ModelState) -> bool:
        return prop.goal_holds(world, state.scheduler)

    return leads_to(prop.name, premise, goal, prop.fair_classes(world), prop.description)


def _premise(world: World, premise: StatePremise) -> Premise[ModelState]:
    """``premise`` over model states of ``world``."""

    def holds(state: ModelState) -> bool:
        return premise.holds(world, state.scheduler)

    return Premise(premise.text, holds)


def _state_check(verdicts: Verdicts, index: int) -> Callable[[ModelState], str | None]:
    """The check of state invariant ``index`` of ``verdicts`` on model states (``None`` at once
    in a state where every remembered invariant is known to hold)."""
    verdict = verdicts.state_verdict
    if not verdicts.remembered(index):
        return lambda state: verdict(index, state.scheduler)

    def check(state: ModelState) -> str | None:
        scheduler = state.scheduler
        return None if scheduler is verdicts.clean else verdict(index, scheduler)

    return check


def _by_kind(invariants: Sequence[SchedulerInvariant]) -> dict[str, tuple[SchedulerInvariant, ...]]:
    """Per action kind, the step invariants a step of that kind can break (catalogue order)."""
    kinds = sorted({k for inv in invariants for k in inv.broken_by})
    return {k: tuple(inv for inv in invariants if k in inv.broken_by) for k in kinds}


def _step_check(name: str) -> Callable[[ModelState], str | None]:
    def check(state: ModelState) -> str | None:
        for broken, message in state.broken:
            if broken == name:
                return message
        return None

    return check


def stuck_reservation(world: World, state: SchedulerState) -> int | None:
    """A reserved container whose request still asks for a container and which would fit on
    some registered node of its partition now, or ``None``."""
    for c in state.containers:
        app = state.apps[c.app]
        if c.state != ContainerState.RESERVED or app is None or app.asks[c.request] <= 0:
            continue
        partition = world.node_partition[c.node]
        for n, node in enumerate(state.nodes):
            if node.live and world.node_partition[n] == partition and world.calculator.fits_in(c.resource, node.free):
                return c.cid
    return None


def starved_queue(world: World, state: SchedulerState) -> int | None:
    """A leaf queue with a pending container that would keep it within its guarantee: its
    allocated resource (used less reserved) plus the container fits in its guaranteed resource
    of the container's partition; or ``None``."""
    view = View(world, state)
    for index, app in enumerate(state.apps):
        if app is None or not app.live:
            continue
        info = world.apps[index]
        usage = state.queues[info.queue]
        for request, asked in zip(info.requests, app.asks):
            p = request.partition
            allocated = usage.used[p] - usage.reserved[p]
            if asked > 0 and view.calc.fits_in(allocated + request.capability, view.guaranteed(info.queue, p)):
                return info.queue
    return None


def _waiting(find: Callable[[World, SchedulerState], int | None]) -> Callable[[World, SchedulerState], bool]:
    """The premise "``find`` finds something waiting"."""
    return lambda world, state: find(world, state) is not None


#: The model's own progress properties: ``P ~> not P`` where ``P`` is "something is waiting",
#: under weak fairness of the scheduler's steps and the clock.
PROGRESS_PROPERTIES: Mapping[str, ProgressProperty] = {
    prop.name: prop
    for prop in (
        ProgressProperty(
            "reservation-progress", _waiting(stuck_reservation),
            description="a reservation that fits on some node of its partition is eventually allocated or dropped",
            source="seed 003",
        ),
        ProgressProperty(
            "guarantee-progress", _waiting(starved_queue),
            description="a pending container that keeps its queue within the guarantee is eventually allocated or withdrawn",
            source="DESIGN (progress); seed 002",
        ),
    )
}  # fmt: skip

#: The properties a world file may name when nothing is registered.
BUILTIN_PROPERTIES = PropertyCatalogue(PROGRESS_PROPERTIES)


def state_json(world: World, state: SchedulerState) -> dict[str, Any]:
    """A JSON-able picture of a scheduler state, with names."""
    partitions = [p.name for p in world.partitions]

    def per_partition(values: Sequence[Resource]) -> dict[str, list[int]]:
        return {partitions[i]: list(r.values) for i, r in enumerate(values) if not r.is_zero()}

    return {
        "clock": state.clock,
        "nodes": {
            spec.name: {"used": list(node.used.values), "free": list(node.free.values), "reserved": node.reserved}
            for spec, node in zip(world.nodes, state.nodes)
            if node.live
        },
        "queues": {q.path: per_partition(state.queues[i].used) for i, q in enumerate(world.queues)},
        "apps": {
            world.apps[i].name: {
                "seq": app.seq,
                "phase": app.phase.name,
                "asks": list(app.asks),
                "used": per_partition(app.used),
                "reserved": per_partition(app.reserved),
                "pending": per_partition(app.pending),
            }
            for i, app in enumerate(state.apps)
            if app is not None
        },
        "containers": [
            {
                "id": c.cid,
                "app": world.apps[c.app].name,
                "node": world.nodes[c.node].name,
                "request": c.request,
                "resource": list(c.resource.values),
                "state": c.state.name,
                "am": c.is_am,
            }
            for c in state.containers
        ],
        "proposals": [describe_proposal(world, p) for p in state.proposals],
        "marks": {f"c{cid}": at for cid, at in state.marks},
        **({"killable": [f"c{cid}" for cid in state.killable]} if state.killable else {}),
    }


def headroom_of(commit: CommitCheck) -> HeadroomRule:
    """The blocked-headroom rule of the releases a commit rule stands for: ``pre-8127`` with
    asynchronous scheduling is Hadoop 3.0.x-3.1.0 (YARN-4280 without YARN-8804)."""
    return "yarn-4280" if commit == "pre-8127" else "yarn-8804"
