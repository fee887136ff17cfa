"""The scheduler model as a :class:`~yarnspec.spec.transition_system.TransitionSystem`, and a
few named small worlds.

:class:`SchedulerModel` adapts a :class:`~yarnspec.impl.scheduler.world.World`: one initial
state, the enabled actions in a fixed order, readable labels, fairness classes (the action
kind; per node for heartbeats), a canonical form (interchangeable nodes, applications and
container ids, :mod:`yarnspec.impl.scheduler.canonical`), the invariant catalogue of
:mod:`yarnspec.spec.scheduler_invariants` and the progress properties of :data:`PROGRESS_PROPERTIES`.

Step invariants (a limit respected by the step that allocates) are checked on every
transition: a model state is the scheduler state plus the step invariants the step into it
broke (always empty in a correct model, so it adds no states), and each step invariant is an
invariant of model states that reports them.

The named worlds (:data:`WORLDS`) are small enough to explore: the seed 003 starvation
(:func:`seed003_world`), the YARN-8127 duplicate commit (:func:`duplicate_commit_world`), seed
002's small cluster with a large container under preemption (:func:`seed002_world`) and two
queues sharing a cluster (:func:`two_queue_world`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import Action, action_class, describe_proposal, enabled, label, start, take
from yarnspec.impl.scheduler.canonical import Symmetry, canonical_form, renumber_containers
from yarnspec.impl.scheduler.state import ContainerState, SchedulerState
from yarnspec.impl.scheduler.view import View
from yarnspec.impl.scheduler.world import (
    AppSpec,
    Bounds,
    CommitCheck,
    HeadroomRule,
    MultiNodeReserve,
    NodeSpec,
    PartitionSpec,
    RequestSpec,
    Variants,
    World,
    build_world,
    configuration_from_properties,
    variants,
)
from yarnspec.spec.scheduler_invariants import STATE_INVARIANTS, STEP_INVARIANTS
from yarnspec.spec.transition_system import Invariant, JSONValue, Progress, TransitionSystem, leads_to

PREFIX = "yarn.scheduler.capacity."
MONITOR = "yarn.resourcemanager.scheduler.monitor.enable"
PREEMPTION = "yarn.resourcemanager.monitor.capacity.preemption."


@dataclass(frozen=True, slots=True)
class ModelState:
    """A scheduler state and the step invariants broken by the step that reached it
    (``(name, message)`` pairs; empty unless the model is wrong)."""

    scheduler: SchedulerState
    broken: tuple[tuple[str, str], ...] = ()


class SchedulerModel(TransitionSystem[ModelState, Action]):
    """The transition system of one world (see the module docstring)."""

    name = "capacity-scheduler"

    def __init__(
        self, world: World, title: str = "", progress: bool = True, properties: Sequence[str] = ("reservation-progress",)
    ) -> None:
        unknown = sorted(set(properties) - set(PROGRESS_PROPERTIES))
        if unknown:
            raise ValueError(f"unknown progress property {unknown[0]!r}; known: {', '.join(PROGRESS_PROPERTIES)}")
        self.world = world
        self._with_progress = progress
        self._properties = tuple(properties)
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

    def initial_states(self) -> list[ModelState]:
        """One initial state: nothing submitted, the clock at 0."""
        return [ModelState(start(self.world))]

    def actions(self, state: SchedulerState) -> list[Action]:
        """The actions the model takes from ``state``: every enabled one (a subclass may
        leave some out)."""
        return enabled(self.world, state)

    def successors(self, state: ModelState) -> list[tuple[Action, ModelState]]:
        """Every action of :meth:`actions` with the state it leads to, step invariants checked
        (in an endless world, container ids are renumbered after the check)."""
        before = state.scheduler
        endless = self.world.bounds.endless
        out = []
        for action in self.actions(before):
            after = take(self.world, before, action).state
            broken = tuple(
                (inv.name, message)
                for inv in STEP_INVARIANTS
                if (message := inv.check(self.world, before, action, after)) is not None
            )
            out.append((action, ModelState(renumber_containers(after) if endless else after, broken)))
        return out

    def action_label(self, action: Action) -> str:
        """``heartbeat(n1)``, ``commit(allocate app1/r1 on n2 from c3)``, ..."""
        return label(self.world, action)

    def action_class(self, action: Action) -> str:
        """The action's kind; heartbeats per node (``heartbeat@0``)."""
        return action_class(action)

    def canonical(self, state: ModelState) -> Hashable:
        """The symmetry class representative (and the broken step invariants)."""
        return (canonical_form(self._symmetry, state.scheduler), state.broken)

    def invariants(self) -> list[Invariant[ModelState]]:
        """Every state invariant of the catalogue, then every step invariant."""
        world = self.world
        found: list[Invariant[ModelState]] = [
            Invariant(inv.name, _state_check(world, inv.check), inv.summary) for inv in STATE_INVARIANTS
        ]
        found += [Invariant(inv.name, _step_check(inv.name), inv.summary) for inv in STEP_INVARIANTS]
        return found

    def progress(self) -> list[Progress[ModelState]]:
        """The progress properties chosen (``properties``), each ``P ~> not P`` under weak
        fairness of the scheduler's steps (heartbeats per node, proposals, commits, re-sorts,
        monitor rounds) and the clock; the environment may go quiet.

        ``reservation-progress``: a reservation that would fit on some node of its partition
        and whose request still asks is eventually allocated or given up (or its request
        withdrawn). Seed 003: violated under ``yarn-8127`` with multi-node placement, where the
        scheduler proposes it on the node with room and the commit refuses it for ever.

        ``guarantee-progress``: a leaf queue with a pending container that would keep it within
        its guarantee (allocated, that is used less reserved, plus the container fits in the
        guarantee) eventually gets it or stops asking (DESIGN: "a queue under its guarantee with
        pending demand eventually gains"). Seed 002: violated when preemption frees pieces the
        large request never fits and the lender takes them back, round after round."""
        if not self._with_progress:
            return []
        world = self.world
        fair = {"propose", "propose-node", "commit", "resort", "tick", "monitor"}
        fair |= {f"heartbeat@{n}" for n in range(len(world.nodes))}
        found = []
        for name in self._properties:
            waiting, description = PROGRESS_PROPERTIES[name]
            found.append(_leads_away(name, world, waiting, fair, description))
        return found

    def state_json(self, state: ModelState) -> JSONValue:
        """The state with names: clock, nodes, applications, containers, proposals, marks (and
        killable containers under lazy preemption)."""
        return state_json(self.world, state.scheduler) | ({"broken": [list(b) for b in state.broken]} if state.broken else {})


def _leads_away(
    name: str, world: World, waiting: Callable[[World, SchedulerState], int | None], fair: set[str], description: str
) -> Progress[ModelState]:
    """``P ~> not P`` where ``P`` holds when ``waiting`` finds something waiting."""

    def premise(state: ModelState) -> bool:
        return waiting(world, state.scheduler) is not None

    return leads_to(name, premise, lambda state: not premise(state), fair, description)


def _state_check(world: World, check: Callable[[World, SchedulerState], str | None]) -> Callable[[ModelState], str | None]:
    return lambda state: check(world, state.scheduler)


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


#: The progress properties a model may check: what is waiting, and the one-line description.
PROGRESS_PROPERTIES: Mapping[str, tuple[Callable[[World, SchedulerState], int | None], str]] = {
    "reservation-progress": (
        stuck_reservation,
        "a reservation that fits on some node of its partition is eventually allocated or dropped",
    ),
    "guarantee-progress": (
        starved_queue,
        "a pending container that keeps its queue within the guarantee is eventually allocated or withdrawn",
    ),
}


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


# -- named small worlds ---------------------------------------------------------------------


def _gb(memory: int, vcores: int = 1) -> Resource:
    return Resource.of(memory * 1024, vcores)


def seed003_world(commit: CommitCheck = "yarn-8127", reserve: MultiNodeReserve = "first-candidate") -> World:
    """Seed 003: asynchronous scheduling with multi-node placement (resource-usage sorting,
    re-sorted every second). One queue, a small node n0 (4 GB) and a large n1 (8 GB); app1's
    AM lands on n0, then it asks for one 4 GB container, which does not fit on n0 (first in the
    sorted order) and is reserved there. After a re-sort n1 comes first and the reservation is
    proposed on n1: refused for ever under ``yarn-8127``, picked up under
    ``reserved-pickup``; ``yarn-10259`` never reserves while n1 has room. ``reserve`` names
    the multi-node rules (:func:`~yarnspec.impl.scheduler.world.variants`)."""
    conf = configuration_from_properties(
        {
            PREFIX + "root.queues": "a",
            PREFIX + "root.a.capacity": "100",
            PREFIX + "schedule-asynchronously.enable": "true",
            PREFIX + "multi-node-placement-enabled": "true",
        }
    )
    nodes = [NodeSpec("n0", _gb(4, 4)), NodeSpec("n1", _gb(8, 8))]
    apps = [AppSpec("app1", "a", _gb(1), (RequestSpec(1, _gb(4)),))]
    bounds = Bounds(max_clock_ms=1000, max_proposals=2, max_ask=1, max_containers=4, node_churn=False)
    return build_world(conf, [PartitionSpec("")], nodes, apps, variants(commit, reserve), bounds)


def duplicate_commit_world(commit: CommitCheck = "pre-8127") -> World:
    """YARN-8127's race: asynchronous single-node scheduling, one 12 GB node n0 (and a 2 GB n1
    that only adds queue headroom); app1 asks for four 4 GB containers. Two allocations leave
    3 GB free, so the third is reserved; once the first two complete, two scheduler threads
    both propose the allocation from the reservation. Under ``pre-8127`` both commits succeed
    and the node is charged twice for one container (a leak); ``yarn-8127`` rejects the second.
    ``pre-8127`` stands for Hadoop 3.0.x-3.1.0 (asynchronous scheduling, YARN-4280's blocked
    headroom, not yet YARN-8804). Nodes do not churn here (the story does not need it)."""
    conf = configuration_from_properties(
        {PREFIX + "root.queues": "a", PREFIX + "root.a.capacity": "100", PREFIX + "schedule-asynchronously.enable": "true"}
    )
    nodes = [NodeSpec("n0", _gb(12, 12)), NodeSpec("n1", _gb(2, 2))]
    apps = [AppSpec("app1", "a", _gb(1), (RequestSpec(1, _gb(4)),))]
    bounds = Bounds(max_clock_ms=0, max_proposals=2, max_ask=4, max_containers=6, node_churn=False)
    return build_world(conf, [PartitionSpec("")], nodes, apps, variants(commit, headroom=headroom_of(commit)), bounds)


def headroom_of(commit: CommitCheck) -> HeadroomRule:
    """The blocked-headroom rule of the releases a commit rule stands for: ``pre-8127`` with
    asynchronous scheduling is Hadoop 3.0.x-3.1.0 (YARN-4280 without YARN-8804)."""
    return "yarn-4280" if commit == "pre-8127" else "yarn-8804"


def seed002_world(reserved_selector: bool = False) -> World:
    """Seed 002's small cluster and large container, scaled down: three 4 GB nodes, queues A
    and B at 50% each (maximum 100%); app_A in A runs 2 GB containers, app_B in B asks for a
    3 GB one. Once A has borrowed B's half, preemption (monitor every 3 s, kill 3 s after the
    mark, half the cluster per round, natural termination 0.2) frees 2 GB pieces spread over
    the nodes, which the 3 GB request does not fit (it reserves, and A may take the pieces
    back). ``reserved_selector`` turns on the reserved-container selector, which preempts on
    the node of B's reservation."""
    props = {
        PREFIX + "root.queues": "A,B",
        PREFIX + "root.A.capacity": "50",
        PREFIX + "root.B.capacity": "50",
        PREFIX + "root.A.user-limit-factor": "2",
        PREFIX + "root.B.user-limit-factor": "2",
        PREFIX + "root.A.maximum-am-resource-percent": "0.5",
        PREFIX + "root.B.maximum-am-resource-percent": "0.5",
        MONITOR: "true",
        PREEMPTION + "max_wait_before_kill": "3000",
        PREEMPTION + "total_preemption_per_round": "0.5",
    }
    if reserved_selector:
        props[PREEMPTION + "select_based_on_reserved_containers"] = "true"
    conf = configuration_from_properties(props)
    nodes = [NodeSpec(f"n{i}", _gb(4, 4)) for i in range(3)]
    apps = [
        AppSpec("app_A", "A", _gb(2), (RequestSpec(1, _gb(2)),), user="ua"),
        AppSpec("app_B", "B", _gb(1), (RequestSpec(1, _gb(3)),), user="ub"),
    ]
    bounds = Bounds(max_clock_ms=15000, tick_ms=3000, max_proposals=1, max_ask=5, max_containers=24)
    return build_world(conf, [PartitionSpec("")], nodes, apps, Variants(), bounds)


def two_queue_world(commit: CommitCheck = "yarn-8127", asynchronous: bool = False) -> World:
    """Two queues (a 60%, b 40%, both up to 100%) on two interchangeable 4 GB nodes; two
    interchangeable apps in a and one in b, each asking for 2 GB containers; preemption on."""
    props = {
        PREFIX + "root.queues": "a,b",
        PREFIX + "root.a.capacity": "60",
        PREFIX + "root.b.capacity": "40",
        PREFIX + "root.a.user-limit-factor": "2",
        PREFIX + "root.b.user-limit-factor": "3",
        PREFIX + "root.a.maximum-am-resource-percent": "0.5",
        PREFIX + "root.b.maximum-am-resource-percent": "0.5",
        PREFIX + "schedule-asynchronously.enable": "true" if asynchronous else "false",
        MONITOR: "true",
        PREEMPTION + "max_wait_before_kill": "1000",
        PREEMPTION + "monitoring_interval": "1000",
        PREEMPTION + "total_preemption_per_round": "1.0",
        PREEMPTION + "natural_termination_factor": "1.0",
    }
    conf = configuration_from_properties(props)
    nodes = [NodeSpec("n0", _gb(4, 4)), NodeSpec("n1", _gb(4, 4))]
    request = (RequestSpec(1, _gb(2)),)
    apps = [
        AppSpec("a1", "a", _gb(1), request, user="u"),
        AppSpec("a2", "a", _gb(1), request, user="u"),
        AppSpec("b1", "b", _gb(1), request, user="v"),
    ]
    bounds = Bounds(max_clock_ms=4000, max_proposals=1, max_ask=1, max_containers=8)
    return build_world(conf, [PartitionSpec("")], nodes, apps, variants(commit, headroom=headroom_of(commit)), bounds)


#: The named worlds by name (each a function of its variant parameters, with defaults).
WORLDS: Mapping[str, Callable[..., World]] = {
    "seed003": seed003_world,
    "duplicate-commit": duplicate_commit_world,
    "seed002": seed002_world,
    "two-queues": two_queue_world,
}


#: The named worlds whose story is about progress (their model checks ``reservation-progress``).
PROGRESS_WORLDS = frozenset({"seed003"})


def model(name: str, **parameters: Any) -> SchedulerModel:
    """The model of a named world (``KeyError`` for an unknown name); only the worlds of
    :data:`PROGRESS_WORLDS` check the progress property."""
    return SchedulerModel(WORLDS[name](**parameters), name, progress=name in PROGRESS_WORLDS)


