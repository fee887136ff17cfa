"""A node's heartbeat: without asynchronous scheduling, the scheduler allocates for the node
and commits at once (``CapacityScheduler.nodeUpdate`` then ``allocateContainersToNode``)."""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.scheduler.actions.commit import commit_note, committable
from yarnspec.impl.scheduler.actions.kind import ActionKind, Context, node_name, per_node
from yarnspec.impl.scheduler.allocation.allocate import heartbeat_proposal
from yarnspec.impl.scheduler.async_scheduling.try_commit import CommitResult, commit
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import Proposal


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Node ``node`` heartbeats: the scheduler allocates for it and commits at once."""

    node: int


def _heartbeat_pass(view: View, action: Heartbeat) -> tuple[Proposal, ...]:
    """What the heartbeat's pass proposes (at most one proposal)."""
    one = heartbeat_proposal(view.world, view.state, action.node, view)
    return () if one is None else (one,)


def _proposals(context: Context, action: Heartbeat) -> tuple[Proposal, ...]:
    """What the heartbeat's pass proposes here (remembered in the memo)."""
    return context.proposals(action, _heartbeat_pass)


def _guard(context: Context, action: Heartbeat) -> bool:
    """Heartbeats allocate (no asynchronous scheduling), the pass proposes something, and the
    bound on container ids allows it."""
    if context.world.settings.async_scheduling:
        return False
    proposals = _proposals(context, action)
    return bool(proposals) and committable(context, proposals[0])


def _commit(context: Context, action: Heartbeat) -> tuple[CommitResult, Proposal]:
    """The pass's proposal, committed (or rejected) at once."""
    (proposal,) = _proposals(context, action)
    return commit(context.world, context.state, proposal, context.memo), proposal


HEARTBEAT = ActionKind(
    "heartbeat",
    Heartbeat,
    per_node,
    _guard,
    step=lambda c, a: _commit(c, a)[0].state,
    explain=lambda c, a: commit_note(*_commit(c, a)),
    argument=lambda world, a: node_name(world, a.node),
    fairness=lambda a: f"heartbeat@{a.node}",
    fair=True,
    possible=lambda world: not world.settings.async_scheduling,
)

#: The heartbeat's kinds.
KINDS: tuple[ActionKind, ...] = (HEARTBEAT,)
