"""The actions of the scheduler model: their types, which are enabled, and their effects.

Every source of nondeterminism is an action, so the explorer can enumerate them and Hypothesis
can draw them:

* environment: :class:`Submit`, :class:`Ask`, :class:`Cancel`, :class:`Launch`,
  :class:`Complete`, :class:`Release`, :class:`LoseNode`, :class:`AddNode`,
  :class:`FinishApp`, :class:`Tick` (see :mod:`.environment`);
* scheduler: :class:`Heartbeat` (a node's heartbeat allocates and commits at once; only
  without asynchronous scheduling), :class:`ProposeNode` / :class:`ProposePartition` (a
  scheduling thread proposes from the state it reads, single-node or multi-node) and
  :class:`Commit` (the committer applies or rejects one proposal in flight, in any order:
  threads interleave), :class:`Resort` (the multi-node sorter, every sorting interval) and
  :class:`Monitor` (the preemption monitor, every monitoring interval).

:func:`enabled` lists the enabled actions of a state in a fixed order; :func:`apply_action`
takes one (raising :class:`ValueError` if it is not enabled) and says what happened.
"""

from __future__ import annotations

import weakref
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from . import environment as env
from .allocate import heartbeat_proposal, partition_pass, pass_inputs, propose_on_node
from .async_commit import CommitResult, commit, needs_new_id
from .accounting import Edit
from .monitor import monitor_due, run_monitor
from .node_sorting import initial_order, resort, resort_due
from .state import NONE, Proposal, SchedulerState, initial_state
from .world import World


@dataclass(frozen=True, slots=True)
class Submit:
    """The environment submits application ``app``."""

    app: int


@dataclass(frozen=True, slots=True)
class Ask:
    """The AM of ``app`` asks for one more container of its request ``request``."""

    app: int
    request: int


@dataclass(frozen=True, slots=True)
class Cancel:
    """The AM of ``app`` withdraws one container of its request ``request``."""

    app: int
    request: int


@dataclass(frozen=True, slots=True)
class Launch:
    """Container ``container`` starts running."""

    container: int


@dataclass(frozen=True, slots=True)
class Complete:
    """Container ``container`` finishes by itself."""

    container: int


@dataclass(frozen=True, slots=True)
class Release:
    """The AM releases container ``container``."""

    container: int


@dataclass(frozen=True, slots=True)
class LoseNode:
    """Node ``node`` is lost."""

    node: int


@dataclass(frozen=True, slots=True)
class AddNode:
    """Node ``node`` registers."""

    node: int


@dataclass(frozen=True, slots=True)
class FinishApp:
    """Application ``app`` finishes."""

    app: int


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock advances one step."""


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Node ``node`` heartbeats: the scheduler allocates for it and commits at once."""

    node: int


@dataclass(frozen=True, slots=True)
class ProposePartition:
    """A scheduling thread proposes for the multi-node candidates of ``partition``."""

    partition: int


@dataclass(frozen=True, slots=True)
class ProposeNode:
    """A scheduling thread proposes for node ``node`` (its loop over the node list, split at a
    random point, may be at any node)."""

    node: int


@dataclass(frozen=True, slots=True)
class Commit:
    """The committer takes ``proposal`` from the in-flight proposals."""

    proposal: Proposal


@dataclass(frozen=True, slots=True)
class Resort:
    """The multi-node sorter re-sorts the candidate nodes."""


@dataclass(frozen=True, slots=True)
class Monitor:
    """The preemption monitor runs one round."""


Action = (
    Submit | Ask | Cancel | Launch | Complete | Release | LoseNode | AddNode | FinishApp | Tick
    | Heartbeat | ProposePartition | ProposeNode | Commit | Resort | Monitor
)  # fmt: skip

#: Every action kind by name, in the order :func:`enabled` lists them.
KINDS: tuple[str, ...] = (
    "submit", "ask", "cancel", "launch", "complete", "release", "lose-node", "add-node", "finish-app",
    "tick", "heartbeat", "propose", "commit", "resort", "monitor",
)  # fmt: skip


@dataclass(frozen=True)
class StepResult:
    """The state an action leads to and a short note of what happened (empty when nothing
    needs saying), such as ``"rejected: the node is reserved by another container"``."""

    state: SchedulerState
    note: str = ""


def kind(action: Action) -> str:
    """The action's kind, one of :data:`KINDS`."""
    return _KIND_OF[type(action)]


_KIND_OF: dict[type, str] = {
    Submit: "submit", Ask: "ask", Cancel: "cancel", Launch: "launch", Complete: "complete", Release: "release",
    LoseNode: "lose-node", AddNode: "add-node", FinishApp: "finish-app", Tick: "tick", Heartbeat: "heartbeat",
    ProposePartition: "propose", ProposeNode: "propose", Commit: "commit", Resort: "resort", Monitor: "monitor",
}  # fmt: skip


def start(world: World) -> SchedulerState:
    """The initial state: the initially live nodes empty, nothing submitted, the clock at 0,
    and (with multi-node placement) the sorter's first order."""
    return initial_order(world, initial_state(world))


def ids_left(world: World, state: SchedulerState) -> bool:
    """Whether the world's bound on container ids allows another one."""
    return state.next_container < world.bounds.max_containers


def _committable(world: World, state: SchedulerState, proposal: Proposal) -> bool:
    return ids_left(world, state) or not needs_new_id(proposal)


def enabled(world: World, state: SchedulerState) -> list[Action]:
    """The enabled actions of ``state``, in a fixed order (environment first)."""
    return list(_enabled(world, state))


def _enabled(world: World, state: SchedulerState) -> Iterator[Action]:
    apps = range(len(world.apps))
    for app in apps:
        if env.submit_enabled(world, state, app):
            yield Submit(app)
    for app in apps:
        for request in range(1, len(world.apps[app].requests)):
            if env.change_ask_enabled(world, state, app, request, 1):
                yield Ask(app, request)
            if env.change_ask_enabled(world, state, app, request, -1):
                yield Cancel(app, request)
    for container in state.containers:
        cid = container.cid
        if env.launch_enabled(world, state, cid):
            yield Launch(cid)
        if env.complete_enabled(world, state, cid):
            yield Complete(cid)
        if env.release_enabled(world, state, cid):
            yield Release(cid)
    for node in range(len(world.nodes)):
        if env.lose_node_enabled(world, state, node):
            yield LoseNode(node)
        elif env.add_node_enabled(world, state, node):
            yield AddNode(node)
    for app in apps:
        if env.finish_app_enabled(world, state, app):
            yield FinishApp(app)
    if env.tick_enabled(world, state):
        yield Tick()
    yield from _scheduler_actions(world, state)


class _ProposalCache:
    """The proposals computed for the last state asked about, so that the effect of a
    heartbeat or propose action does not compute them again, and, per world, the proposals by
    what a pass reads of a state (:func:`~.allocate.pass_inputs`): states that differ only in
    proposals in flight, marks or time share them (successors are computed state by state).
    An action's proposals are a tuple: at most one for a heartbeat or a node, and a
    partition's pass may make several (:func:`~.allocate.partition_pass`)."""

    def __init__(self) -> None:
        self.world: World | None = None
        self.state: SchedulerState | None = None
        self.proposals: dict[Action, tuple[Proposal, ...]] = {}
        self.by_inputs: weakref.WeakKeyDictionary[World, dict[Hashable, dict[Action, tuple[Proposal, ...]]]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, world: World, state: SchedulerState, action: Heartbeat | ProposeNode | ProposePartition) -> tuple[Proposal, ...]:
        """The proposals ``action`` makes in ``state`` (computed once per pass inputs)."""
        if self.world is not world or self.state is not state:
            known = self.by_inputs.setdefault(world, {})
            if len(known) >= _MAX_PASS_INPUTS:
                known.clear()
            self.world, self.state = world, state
            self.proposals = known.setdefault(pass_inputs(state), {})
        if action not in self.proposals:
            if isinstance(action, ProposePartition):
                self.proposals[action] = partition_pass(world, state, action.partition)
            else:
                one = heartbeat_proposal(world, state, action.node) if isinstance(action, Heartbeat) else propose_on_node(world, state, action.node)
                self.proposals[action] = () if one is None else (one,)
        return self.proposals[action]


_MAX_PASS_INPUTS = 50_000  # per world (bounds the memory); the cache starts afresh beyond it
_CACHE = _ProposalCache()


def _scheduler_actions(world: World, state: SchedulerState) -> Iterator[Action]:
    settings = world.settings
    if not settings.async_scheduling:
        for node in range(len(world.nodes)):
            heartbeat = Heartbeat(node)
            proposals = _CACHE.get(world, state, heartbeat)
            if proposals and _committable(world, state, proposals[0]):
                yield heartbeat
    else:
        room = len(state.proposals) < world.bounds.max_proposals
        if room:
            yield from _propose_actions(world, state)
        for proposal in dict.fromkeys(state.proposals):
            if _committable(world, state, proposal):
                yield Commit(proposal)
    if resort_due(world, state):
        yield Resort()
    if monitor_due(world, state):
        yield Monitor()


def _propose_actions(world: World, state: SchedulerState) -> Iterator[Action]:
    if not world.settings.multi_node:
        for node in range(len(world.nodes)):
            if _CACHE.get(world, state, ProposeNode(node)):
                yield ProposeNode(node)
        return
    for partition in range(len(world.partitions)):
        if _CACHE.get(world, state, ProposePartition(partition)):
            yield ProposePartition(partition)


def apply_action(world: World, state: SchedulerState, action: Action) -> StepResult:
    """The effect of an enabled action (``ValueError`` if it is not enabled)."""
    if action not in enabled(world, state):
        raise ValueError(f"{label(world, action)} is not enabled")
    return _effect(world, state, action)


def take(world: World, state: SchedulerState, action: Action) -> StepResult:
    """The effect of an action the caller took from :func:`enabled` for this very state
    (no second check: walkers and the explorer already know it is enabled)."""
    return _effect(world, state, action)


def step(world: World, state: SchedulerState, action: Action) -> SchedulerState:
    """The state an enabled action leads to."""
    return apply_action(world, state, action).state


def successors(world: World, state: SchedulerState) -> list[tuple[Action, SchedulerState]]:
    """Every enabled action with the state it leads to, in :func:`enabled` order."""
    return [(action, _effect(world, state, action).state) for action in enabled(world, state)]


def _effect(world: World, state: SchedulerState, action: Action) -> StepResult:
    if isinstance(action, Submit):
        return StepResult(env.submit(world, state, action.app))
    if isinstance(action, Ask):
        return StepResult(env.change_ask(world, state, action.app, action.request, 1))
    if isinstance(action, Cancel):
        return StepResult(env.change_ask(world, state, action.app, action.request, -1))
    if isinstance(action, Launch):
        return StepResult(env.launch(world, state, action.container))
    if isinstance(action, Complete):
        return StepResult(env.complete(world, state, action.container))
    if isinstance(action, Release):
        return StepResult(env.release(world, state, action.container))
    if isinstance(action, LoseNode):
        return StepResult(env.lose_node(world, state, action.node))
    if isinstance(action, AddNode):
        return StepResult(env.add_node(world, state, action.node))
    if isinstance(action, FinishApp):
        return StepResult(env.finish_app(world, state, action.app))
    if isinstance(action, Tick):
        return StepResult(env.tick(world, state))
    if isinstance(action, Heartbeat):
        (proposal,) = _CACHE.get(world, state, action)
        return _commit_note(commit(world, state, proposal), proposal)
    if isinstance(action, (ProposeNode, ProposePartition)):
        # A pass's proposals go into the commit queue in order, as far as the bound on
        # proposals in flight allows (the reservations it serves come first).
        room = world.bounds.max_proposals - len(state.proposals)
        made = _CACHE.get(world, state, action)[:room]
        edit = Edit(world, state)
        edit.proposals.extend(made)
        return StepResult(edit.freeze(), "proposed " + ", ".join(p.kind.name.lower() for p in made))
    if isinstance(action, Commit):
        edit = Edit(world, state)
        edit.proposals.remove(action.proposal)
        return _commit_note(commit(world, edit.freeze(), action.proposal), action.proposal)
    if isinstance(action, Resort):
        return StepResult(resort(world, state))
    result = run_monitor(world, state)
    parts = [f"{name} {len(ids)}" for name, ids in (("marked", result.marked), ("killed", result.killed), ("unreserved", result.unreserved)) if ids]
    return StepResult(result.state, ", ".join(parts))


def _commit_note(result: CommitResult, proposal: Proposal) -> StepResult:
    what = proposal.kind.name.lower()
    if proposal.from_reserved != NONE and what == "allocate":
        what = "allocate from reservation"
    if result.accepted:
        return StepResult(result.state, f"committed {what}")
    return StepResult(result.state, f"rejected {what}: {result.reason}")


# -- labels ---------------------------------------------------------------------------------


def label(world: World, action: Action) -> str:
    """A readable text of an action, such as ``heartbeat(n1)`` or ``ask(app2, r1)``."""
    node_name = lambda n: world.nodes[n].name  # noqa: E731
    app_name = lambda a: world.apps[a].name  # noqa: E731
    if isinstance(action, Submit):
        return f"submit({app_name(action.app)})"
    if isinstance(action, (Ask, Cancel)):
        return f"{kind(action)}({app_name(action.app)}, r{action.request})"
    if isinstance(action, (Launch, Complete, Release)):
        return f"{kind(action)}(c{action.container})"
    if isinstance(action, (LoseNode, AddNode, Heartbeat, ProposeNode)):
        return f"{kind(action)}({node_name(action.node)})"
    if isinstance(action, FinishApp):
        return f"finish-app({app_name(action.app)})"
    if isinstance(action, ProposePartition):
        return f"propose(partition {world.partitions[action.partition].name!r})"
    if isinstance(action, Commit):
        return f"commit({describe_proposal(world, action.proposal)})"
    return kind(action)


def describe_proposal(world: World, proposal: Proposal) -> str:
    """``allocate app1/r1 on n2 from c3``-style text of a proposal."""
    text = f"{proposal.kind.name.lower()} {world.apps[proposal.app].name}/r{proposal.request} on {world.nodes[proposal.node].name}"
    if proposal.from_reserved != NONE:
        text += f" from c{proposal.from_reserved}"
    if proposal.release != NONE:
        text += f" releasing c{proposal.release}"
    return text


def action_class(action: Action) -> str:
    """The fairness class: the kind, per node for heartbeats (``heartbeat@2``); a proposal for
    one node (``propose-node``: single-node placement) apart from a partition's multi-node
    pass (``propose``)."""
    if isinstance(action, Heartbeat):
        return f"heartbeat@{action.node}"
    if isinstance(action, ProposeNode):
        return "propose-node"
    return kind(action)
