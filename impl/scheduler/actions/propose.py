"""A scheduling thread's proposal (asynchronous scheduling): it runs an allocation pass on
the state it reads and leaves what it proposes in the commit queue
(``CapacityScheduler.schedule`` and ``allocateContainersToNode``), for one node (single-node
placement: its loop over the node list, split at a random point, may be at any node) or for a
partition's sorted candidates (multi-node placement, ``allocateContainersOnMultiNodes``)."""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.scheduler.actions.kind import (
    ActionKind,
    Context,
    StepResult,
    node_name,
    pass_and_queue,
    per_node,
    per_partition,
)
from yarnspec.impl.scheduler.allocation.allocate import partition_pass, propose_on_node
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import Proposal, SchedulerState


@dataclass(frozen=True, slots=True)
class ProposeNode:
    """A scheduling thread proposes for node ``node`` (single-node placement)."""

    node: int


@dataclass(frozen=True, slots=True)
class ProposePartition:
    """A scheduling thread proposes for the multi-node candidates of ``partition``."""

    partition: int


def _room(context: Context) -> bool:
    """Asynchronous scheduling, and fewer proposals in flight than the world's bound."""
    world = context.world
    return world.settings.async_scheduling and len(context.state.proposals) < world.bounds.max_proposals


def _node_pass(view: View, action: ProposeNode) -> tuple[Proposal, ...]:
    """What the single-node pass for the action's node proposes (at most one proposal)."""
    one = propose_on_node(view.world, view.state, action.node, view)
    return () if one is None else (one,)


def _partition_pass(view: View, action: ProposePartition) -> tuple[Proposal, ...]:
    """What the multi-node pass over the action's partition proposes."""
    return partition_pass(view.world, view.state, action.partition, view)


def _queued(context: Context, made: tuple[Proposal, ...]) -> tuple[Proposal, ...]:
    """The proposals of a pass that go into the commit queue: in order, as far as the bound on
    proposals in flight allows (the reservations it serves come first)."""
    return made[: context.world.bounds.max_proposals - len(context.state.proposals)]


def _propose(context: Context, made: tuple[Proposal, ...]) -> SchedulerState:
    """The state with a pass's queued proposals (:func:`_queued`) in flight."""
    edit = Edit(context.world, context.state)
    edit.proposals.extend(_queued(context, made))
    return edit.freeze()


def _noted(context: Context, made: tuple[Proposal, ...]) -> StepResult:
    """:func:`_propose`, noting the kinds of the proposals queued."""
    note = "proposed " + ", ".join(p.kind.name.lower() for p in _queued(context, made))
    return StepResult(_propose(context, made), note)


PROPOSE_NODE = ActionKind(
    "propose",
    ProposeNode,
    per_node,
    guard=lambda c, a: _room(c) and not c.world.settings.multi_node and bool(c.proposals(a, _node_pass)),
    step=lambda c, a: _propose(c, c.proposals(a, _node_pass)),
    explain=lambda c, a: _noted(c, c.proposals(a, _node_pass)),
    argument=lambda world, a: node_name(world, a.node),
    fairness=lambda a: "propose-node",
    fair=True,
    possible=lambda world: world.settings.async_scheduling and not world.settings.multi_node,
    reads=pass_and_queue,
)

PROPOSE_PARTITION = ActionKind(
    "propose",
    ProposePartition,
    per_partition,
    guard=lambda c, a: _room(c) and c.world.settings.multi_node and bool(c.proposals(a, _partition_pass)),
    step=lambda c, a: _propose(c, c.proposals(a, _partition_pass)),
    explain=lambda c, a: _noted(c, c.proposals(a, _partition_pass)),
    argument=lambda world, a: f"partition {world.partitions[a.partition].name!r}",
    fair=True,
    possible=lambda world: world.settings.async_scheduling and world.settings.multi_node,
    reads=pass_and_queue,
)

#: The scheduling threads' kinds: one per placement (a world uses one of them).
KINDS: tuple[ActionKind, ...] = (PROPOSE_NODE, PROPOSE_PARTITION)
