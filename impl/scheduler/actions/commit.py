"""The committer's action: apply or reject one proposal in flight.

With asynchronous scheduling, scheduling threads leave proposals in a queue and the committer
takes them in any order (threads interleave): ``CapacityScheduler.tryCommit`` re-checks each
against the state as it is now (:mod:`yarnspec.impl.scheduler.async_scheduling.try_commit`).
"""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.scheduler.actions.kind import ActionKind, Context, StepResult
from yarnspec.impl.scheduler.async_scheduling.try_commit import CommitResult, commit, needs_new_id
from yarnspec.impl.scheduler.state import NONE, Proposal, SchedulerState
from yarnspec.impl.scheduler.world import World


@dataclass(frozen=True, slots=True)
class Commit:
    """The committer takes ``proposal`` from the in-flight proposals."""

    proposal: Proposal


def ids_left(world: World, state: SchedulerState) -> bool:
    """Whether the world's bound on container ids allows another one."""
    return state.next_container < world.bounds.max_containers


def committable(context: Context, proposal: Proposal) -> bool:
    """The proposal needs no new container id, or the world's bound allows one."""
    return ids_left(context.world, context.state) or not needs_new_id(proposal)


def in_flight(world: World, state: SchedulerState) -> list[tuple[Proposal]]:
    """Every distinct proposal in flight, in queue order."""
    return [(proposal,) for proposal in dict.fromkeys(state.proposals)]


def _guard(context: Context, action: Commit) -> bool:
    """Asynchronous scheduling, and the bound on container ids allows the proposal."""
    return context.world.settings.async_scheduling and committable(context, action.proposal)


def _commit(context: Context, action: Commit) -> CommitResult:
    """The proposal leaves the queue and is committed or rejected, checked against the state it
    is taken from (the limits check remembered in the model's memo)."""
    return commit(context.world, context.state, action.proposal, context.memo, in_flight=True)


def commit_note(result: CommitResult, proposal: Proposal) -> StepResult:
    """The step result of a commit, noting what was committed or why it was rejected."""
    what = proposal.kind.name.lower()
    if proposal.from_reserved != NONE and what == "allocate":
        what = "allocate from reservation"
    if result.accepted:
        return StepResult(result.state, f"committed {what}")
    return StepResult(result.state, f"rejected {what}: {result.reason}")


def describe_proposal(world: World, proposal: Proposal) -> str:
    """``allocate app1/r1 on n2 from c3``-style text of a proposal."""
    text = f"{proposal.kind.name.lower()} {world.apps[proposal.app].name}/r{proposal.request} on {world.nodes[proposal.node].name}"
    if proposal.from_reserved != NONE:
        text += f" from c{proposal.from_reserved}"
    if proposal.release != NONE:
        text += f" releasing c{proposal.release}"
    return text


COMMIT = ActionKind(
    "commit",
    Commit,
    in_flight,
    _guard,
    step=lambda c, a: _commit(c, a).state,
    explain=lambda c, a: commit_note(_commit(c, a), a.proposal),
    argument=lambda world, a: describe_proposal(world, a.proposal),
    fair=True,
    possible=lambda world: world.settings.async_scheduling,
    reads=lambda state: (state.proposals, state.next_container),
)

#: The committer's kinds.
KINDS: tuple[ActionKind, ...] = (COMMIT,)
