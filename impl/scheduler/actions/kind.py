"""What one entry of the action table is: an :class:`ActionKind`.

A kind names a family of actions (``submit``, ``heartbeat``, ``commit``, ...) and holds all
there is to know about them in one place, in the order the model reads: the candidates to try
in a state, the guard (is this candidate enabled?), the effect (the state it leads to), the
label (``heartbeat(n1)``) and the fairness class the progress properties assume weakly fair.
The candidates are the kind's index domain (applications, nodes, containers, proposals in
flight, or once per state); kinds that share a domain and sit next to each other in the table
interleave per index, so ``enabled`` lists ``ask(app1, r1)``, ``cancel(app1, r1)``,
``ask(app1, r2)``... as the model always has.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..allocate import pass_inputs
from ..memo import Memo
from ..state import Proposal, SchedulerState
from ..view import View
from ..world import World

A = TypeVar("A", bound=Hashable)

#: The candidate instances of a kind in a state: argument tuples of its action class.
Candidates = Callable[[World, SchedulerState], Iterable[tuple[Any, ...]]]


@dataclass(frozen=True, slots=True)
class Context:
    """The state an action is enabled in or taken from, with its world and the model's memo."""

    world: World
    state: SchedulerState
    memo: Memo

    def proposals(self, action: Hashable, compute: Callable[[View], tuple[Proposal, ...]]) -> tuple[Proposal, ...]:
        """What ``action``'s allocation pass proposes here (``compute`` from the state's
        shared view), remembered in the memo by what a pass reads of a state."""
        return self.memo.proposals(self.state, pass_inputs, action, lambda: compute(self.memo.view(self.state)))


@dataclass(frozen=True)
class StepResult:
    """The state an action leads to and a short note of what happened (empty when nothing
    needs saying), such as ``"rejected: the node is reserved by another container"``."""

    state: SchedulerState
    note: str = ""


@dataclass(frozen=True)
class ActionKind(Generic[A]):
    """One kind of action (see the module docstring). ``action``: its class, built from a
    candidate's arguments; ``argument``: the text in the label's parentheses (``None``: the
    label is the bare name); ``fairness``: the fairness class of an action (``None``: the
    kind's name); ``fair``: whether progress properties assume the kind weakly fair (the
    scheduler's own steps and the clock; the rest of the environment may go quiet);
    ``possible``: whether a world's settings let the kind ever be enabled (``None``: always),
    a fact of the world that spares the enabled-action listing guards that always fail (the
    guard still checks it)."""

    name: str
    action: type[A]
    candidates: Candidates
    guard: Callable[[Context, A], bool]
    effect: Callable[[Context, A], StepResult]
    argument: Callable[[World, A], str] | None = None
    fairness: Callable[[A], str] | None = None
    fair: bool = False
    possible: Callable[[World], bool] | None = None

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
    return ((container.cid,) for container in state.containers)


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


# -- argument texts -------------------------------------------------------------------------


def app_name(world: World, app: int) -> str:
    """The application's name."""
    return world.apps[app].name


def node_name(world: World, node: int) -> str:
    """The node's name."""
    return world.nodes[node].name
