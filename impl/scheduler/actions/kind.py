"""What one entry of the action table is: an :class:`ActionKind`.

A kind names a family of actions (``submit``, ``heartbeat``, ``commit``, ...) and holds all
there is to know about them in one place, in the order the model reads: the candidates to try
in a state, the guard (is this candidate enabled?), the step (the state it leads to; with a
short note of what happened where one is worth saying), the label (``heartbeat(n1)``) and the
fairness class the progress properties assume weakly fair.
The candidates are the kind's index domain (applications, nodes, containers, proposals in
flight, or once per state); kinds that share a domain and sit next to each other in the table
interleave per index, so ``enabled`` lists ``ask(app1, r1)``, ``cancel(app1, r1)``,
``ask(app1, r2)``... as the model always has.

Guards and steps read a state through one :class:`Context` per state (not per action): it
carries the world and the model's memo and answers, once per state, what several guards ask
(the tracked container of an id, whether an application's AM runs).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from yarnspec.impl.scheduler.allocation.allocate import pass_inputs
from yarnspec.impl.scheduler.bookkeeping.memo import Memo
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import (
    NONE,
    AppPhase,
    AppState,
    ContainerState,
    Proposal,
    SchedulerState,
    TrackedContainer,
)
from yarnspec.impl.scheduler.world import World

A = TypeVar("A", bound=Hashable)

#: The candidate instances of a kind in a state: argument tuples of its action class.
Candidates = Callable[[World, SchedulerState], Iterable[tuple[Any, ...]]]


class Context:
    """The state an action is enabled in or taken from, with its world and the model's memo;
    one per state: the listing of the enabled actions and every step from the state share it,
    and the facts it works out on first use hold for every action of the state."""

    __slots__ = ("world", "state", "memo", "_by_id", "_am_running")

    def __init__(self, world: World, state: SchedulerState, memo: Memo) -> None:
        self.world = world
        self.state = state
        self.memo = memo
        self._by_id: dict[int, TrackedContainer] | None = None
        self._am_running: tuple[bool, ...] | None = None

    def container(self, cid: int) -> TrackedContainer | None:
        """The tracked container with this id, or ``None``."""
        by_id = self._by_id
        if by_id is None:
            by_id = self._by_id = {c.cid: c for c in self.state.containers}
        return by_id.get(cid)

    def am_running(self, app: int) -> bool:
        """Whether the application is active and its AM container runs (the AM can talk to the
        RM: ask, withdraw, release)."""
        running = self._am_running
        if running is None:
            running = self._am_running = tuple(_am_running(self, app_state) for app_state in self.state.apps)
        return running[app]

    def proposals(self, action: A, compute: Callable[[View, A], tuple[Proposal, ...]]) -> tuple[Proposal, ...]:
        """What ``action``'s allocation pass proposes here (``compute(view, action)`` from the
        state's shared view), remembered in the memo by what a pass reads of a state."""
        return self.memo.proposals(self.state, pass_inputs, action, compute)


def _am_running(context: Context, app: AppState | None) -> bool:
    if app is None or app.phase != ACTIVE or app.am_container == NONE:
        return False
    am = context.container(app.am_container)
    return am is not None and am.state == RUNNING


# An enum member read from its class takes about 100 ns (Python 3.11): the guards, run for
# every candidate of every state, compare with these names instead.
ACTIVE = AppPhase.ACTIVE
ALLOCATED, RUNNING = ContainerState.ALLOCATED, ContainerState.RUNNING
#: The live container states (:attr:`ContainerState.live`).
LIVE = frozenset(state for state in ContainerState if state.live)


@dataclass(frozen=True)
class StepResult:
    """The state an action leads to and a short note of what happened (empty when nothing
    needs saying), such as ``"rejected: the node is reserved by another container"``."""

    state: SchedulerState
    note: str = ""


@dataclass(frozen=True)
class ActionKind(Generic[A]):
    """One kind of action (see the module docstring). ``action``: its class, built from a
    candidate's arguments; ``step``: the state an enabled action leads to; ``explain``: the
    same step with a note of what happened (``None``: the kind has nothing to note), computed
    by the same code as ``step``; ``argument``: the text in the label's parentheses (``None``:
    the label is the bare name); ``fairness``: the fairness class of an action (``None``: the
    kind's name); ``fair``: whether progress properties assume the kind weakly fair (the
    scheduler's own steps and the clock; the rest of the environment may go quiet);
    ``possible``: whether a world's settings let the kind ever be enabled (``None``: always),
    a fact of the world that spares the enabled-action listing guards that always fail (the
    guard still checks it); ``reads``: everything of a state the candidates and the guard read
    (besides the world), such as :func:`apps_and_containers` (``None``: not declared), so the
    listing may remember which actions are enabled by it."""

    name: str
    action: type[A]
    candidates: Candidates
    guard: Callable[[Context, A], bool]
    step: Callable[[Context, A], SchedulerState]
    explain: Callable[[Context, A], StepResult] | None = None
    argument: Callable[[World, A], str] | None = None
    fairness: Callable[[A], str] | None = None
    fair: bool = False
    possible: Callable[[World], bool] | None = None
    reads: Callable[[SchedulerState], Hashable] | None = None

    def effect(self, context: Context, action: A) -> StepResult:
        """The state ``action`` leads to with its note (walkers and traces show the note; the
        explorer calls :attr:`step`, which needs no note)."""
        if self.explain is None:
            return StepResult(self.step(context, action))
        return self.explain(context, action)

    def possible_in(self, world: World) -> bool:
        """Whether ``world``'s settings let this kind ever be enabled."""
        return self.possible is None or self.possible(world)

    def label(self, world: World, action: A) -> str:
        """A readable text of ``action``, such as ``heartbeat(n1)`` or ``tick``."""
        return self.name if self.argument is None else f"{self.name}({self.argument(world, action)})"

    def fairness_class(self, action: A) -> str:
        """The class weak fairness is assumed of (by default the kind's name)."""
        return self.name if self.fairness is None else self.fairness(action)


# -- candidate domains ------------------------------------------------------------------------


def per_app(world: World, state: SchedulerState) -> Iterable[tuple[int]]:
    """Every application slot."""
    return ((app,) for app in range(len(world.apps)))


def per_request(world: World, state: SchedulerState) -> Iterable[tuple[int, int]]:
    """Every request an application master may change (not the AM request, index 0)."""
    return ((app, request) for app in range(len(world.apps)) for request in range(1, len(world.apps[app].requests)))


def per_container(world: World, state: SchedulerState) -> Iterable[tuple[int]]:
    """Every tracked container, in id order."""
    return [(container.cid,) for container in state.containers]


def per_node(world: World, state: SchedulerState) -> Iterable[tuple[int]]:
    """Every node slot."""
    return ((node,) for node in range(len(world.nodes)))


def per_partition(world: World, state: SchedulerState) -> Iterable[tuple[int]]:
    """Every partition."""
    return ((partition,) for partition in range(len(world.partitions)))


def once(world: World, state: SchedulerState) -> Iterable[tuple[()]]:
    """One instance per state (the kind has no arguments)."""
    return ((),)


#: The candidate domains that depend on the world alone (not on the state): their actions
#: are built once per world.
WORLD_DOMAINS: frozenset[Candidates] = frozenset({per_app, per_request, per_node, per_partition, once})


# -- what guards read -------------------------------------------------------------------------


def apps_and_containers(state: SchedulerState) -> tuple[object, ...]:
    """The state's applications and tracked containers: all the environment's application
    and container guards read (asks, phases, AM containers, container states)."""
    return (state.apps, state.containers)


def pass_and_queue(state: SchedulerState) -> tuple[object, ...]:
    """What a scheduling thread's proposal reads: the allocation pass's inputs and how many
    proposals are in flight."""
    return (pass_inputs(state), len(state.proposals))


# -- argument texts -------------------------------------------------------------------------


def app_name(world: World, app: int) -> str:
    """The application's name."""
    return world.apps[app].name


def node_name(world: World, node: int) -> str:
    """The node's name."""
    return world.nodes[node].name
