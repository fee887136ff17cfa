"""The commit step: re-check a proposal against the state as it is now, then apply it.

Hadoop's ``CapacityScheduler.tryCommit``: ``FiCaSchedulerApp.accept`` (the application still
runs; for an allocation the request still asks for a container, the node is not reserved by
another container and the container still fits; for a reservation the node is not reserved
by another) and the queues' ``accept`` (the user's used, less what the proposal releases, is
at most its limit, and every queue from the leaf to root stays within its maximum: checked for
everything except an allocation from a reservation, whose resource the queues already count).

Where the proposal allocates from a reserved container, the world's variants decide (seed 003;
named by :attr:`~.world.Variants.name`):

* ``yarn-8127``: rejected unless the proposal's node holds that reservation (the check added
  by YARN-8127). With multi-node placement a reservation proposed on another node is refused
  for ever while that node has room: the starvation seed 003 describes.
* ``reserved-pickup``: accepted on another node as long as the reservation still exists; the
  reservation is released and the container allocated on the proposal's node.
* ``pre-8127``: no such check. When two proposals from one reservation are committed, the
  second finds the reservation gone and still allocates: the node and the application are
  charged again for the same container id while the queue is not (Hadoop skips the queue for
  an allocation from a reservation): the resource leak YARN-8127 fixed.

Applying (``FiCaSchedulerApp.apply``, ``LeafQueue.apply``): give up the released reservation,
then allocate, reserve, re-reserve (only the re-reservation count changes) or unreserve, with
every counter updated by :class:`~.accounting.Edit`.

Lazy preemption (:mod:`.killable`): an allocation's containers to kill must all still be live,
their resource on the proposal's node counts as free, and all of it as released in the limit
checks (``getTotalReleasedResource``); applying kills those of other leaves first, and a new
allocation or reservation that takes a parent above its maximum kills the parent's killable
containers (:mod:`.lazy_kills`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.allocation.limits import queue_max_down, user_limit
from yarnspec.impl.scheduler.allocation.scheduling_mode import SchedulingMode
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.memo import Memo
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.monitor.killable import kill_gone, kill_resource
from yarnspec.impl.scheduler.monitor.lazy_kills import enforce_parent_maximum, kill_for_allocation
from yarnspec.impl.scheduler.state import NONE, AppPhase, ContainerState, Proposal, ProposalKind, SchedulerState
from yarnspec.impl.scheduler.world import World


@dataclass(frozen=True)
class CommitResult:
    """The state after the commit step and whether the proposal was applied (``reason``
    says why not)."""

    state: SchedulerState
    accepted: bool
    reason: str = ""


def needs_new_id(proposal: Proposal) -> bool:
    """Whether applying the proposal hands out a new container id."""
    return proposal.kind == ProposalKind.RESERVE or (
        proposal.kind == ProposalKind.ALLOCATE and proposal.from_reserved == NONE
    )


def accept(world: World, state: SchedulerState, proposal: Proposal, memo: Memo | None = None) -> str | None:
    """``None`` if the proposal may be applied to ``state``, else why it is rejected (the
    limits check remembered in ``memo``, when the caller keeps one)."""
    app = state.apps[proposal.app]
    if app is None or app.phase != AppPhase.ACTIVE:
        return "the application is no longer running"
    node = state.nodes[proposal.node]
    if not node.live:
        return "the node is gone"
    kind = proposal.kind
    if kind == ProposalKind.UNRESERVE:
        reserved = state.container(proposal.from_reserved)
        return None if reserved is not None and reserved.state == ContainerState.RESERVED else "the reservation is gone"
    if kind == ProposalKind.RERESERVE:
        if node.reserved != proposal.from_reserved:
            return "the node does not hold this reservation"
    elif kind == ProposalKind.RESERVE:
        if node.reserved != NONE:
            return "the node is already reserved"
    else:
        reason = _allocation_check(world, state, proposal)
        if reason is not None:
            return reason
    if kind == ProposalKind.ALLOCATE and proposal.from_reserved != NONE:
        return None  # Hadoop does not check limits for an allocation from a reservation
    if memo is None:
        return _limits_check(View(world, state), proposal)
    view = memo.view(state)
    # "" stands for "accepted" in the table, whose missing entries are None.
    return memo.limit_checks.get(limits_inputs(view, proposal), lambda: _limits_check(view, proposal) or "") or None


def _allocation_check(world: World, state: SchedulerState, proposal: Proposal) -> str | None:
    """The application-side checks of an allocation (``checkAllocation`` and
    ``commonCheckContainerAllocation``), with the commit variant."""
    app = state.apps[proposal.app]
    assert app is not None
    if app.asks[proposal.request] <= 0:
        return "the request no longer asks for a container"
    node = state.nodes[proposal.node]
    if node.reserved != NONE:
        if proposal.from_reserved != node.reserved:
            return "the node is reserved by another container"
    elif proposal.from_reserved != NONE:
        variants = world.variants
        if variants.reserved_pickup:
            reserved = state.container(proposal.from_reserved)
            if reserved is None or reserved.state != ContainerState.RESERVED:
                return "the reserved container is gone"
        elif variants.yarn_8127:
            return "allocation from a reserved container on a node that does not hold it (the YARN-8127 check)"
    capability = world.apps[proposal.app].requests[proposal.request].capability
    if kill_gone(state, proposal.kill):
        return "a container to kill for it has ended"
    if not world.calculator.fits_in(capability, node.free + kill_resource(state, proposal.kill, proposal.node)):
        return "the container no longer fits on the node"
    if proposal.release != NONE:
        released = state.container(proposal.release)
        if released is None or released.state != ContainerState.RESERVED or released.app != proposal.app:
            return "the reservation to give up is gone"
    return None


def _released(state: SchedulerState, proposal: Proposal) -> Resource:
    """``getTotalReleasedResource``: what the proposal's kills and released reservation free."""
    released = kill_resource(state, proposal.kill)
    if proposal.release != NONE:
        container = state.container(proposal.release)
        released = released + (container.resource if container is not None else ZERO)
    return released


def limits_inputs(view: View, proposal: Proposal) -> Hashable:
    """Everything of a state :func:`_limits_check` reads for ``proposal``: the partitions'
    resources (hence every queue's guarantee and maximum), the users' and queues' figures, the
    leaf's users with applications and its active users (the user limit divides among them),
    and what the proposal releases. Two states with equal inputs get the same answer."""
    leaf = view.world.apps[proposal.app].queue
    state = view.state
    return (
        proposal, view.partition_resource, state.users, state.queues, view.users_with_apps[leaf], view.active_users[leaf],
        _released(state, proposal),
    )  # fmt: skip


def _limits_check(view: View, proposal: Proposal) -> str | None:
    """``LeafQueue.accept`` and ``AbstractCSQueue.accept`` up to root."""
    world, state, calc = view.world, view.state, view.calc
    info = world.apps[proposal.app]
    capability = info.requests[proposal.request].capability
    partition = world.node_partition[proposal.node]
    released = _released(state, proposal)
    limit = user_limit(view, info.queue, partition, SchedulingMode.of(proposal.ignore_exclusivity))
    if calc.greater(view.cluster, state.users[info.user].used[partition] - released, limit):
        return f"user {world.users[info.user][1]} is over its limit {limit}"
    net = capability - released
    for queue in world.ancestors(info.queue):
        if proposal.ignore_exclusivity:
            maximum = view.partition_resource[partition]
        else:
            maximum = queue_max_down(view, queue, partition)
        if not calc.fits_in(state.queues[queue].used[partition] + net, maximum):
            return f"queue {world.queues[queue].path} would exceed its maximum {maximum}"
    return None


def apply(world: World, state: SchedulerState, proposal: Proposal, in_flight: bool = False) -> SchedulerState:
    """Apply an accepted proposal (``FiCaSchedulerApp.apply`` and ``LeafQueue.apply``),
    taking it from the proposals in flight if ``in_flight``."""
    edit = Edit(world, state)
    if in_flight:
        edit.proposals.remove(proposal)
    kind = proposal.kind
    if kind == ProposalKind.UNRESERVE:
        edit.drop_reservation(proposal.from_reserved)
    elif kind == ProposalKind.RERESERVE:
        edit.bump_rereservation(proposal.app, proposal.request)
    elif kind == ProposalKind.RESERVE:
        edit.reserve(proposal.app, proposal.request, proposal.node)
    elif proposal.from_reserved != NONE:
        kill_for_allocation(edit, world.apps[proposal.app].queue, proposal.kill)
        reserved = state.container(proposal.from_reserved)
        still_reserved = reserved is not None and reserved.state == ContainerState.RESERVED
        if still_reserved and (
            reserved is not None and reserved.node == proposal.node or world.variants.reserved_pickup
        ):
            edit.drop_reservation(proposal.from_reserved, release_queue=False)
        edit.allocate(proposal.app, proposal.request, proposal.node, proposal.from_reserved, charge_queue=False)
    else:
        kill_for_allocation(edit, world.apps[proposal.app].queue, proposal.kill)
        if proposal.release != NONE:
            edit.drop_reservation(proposal.release)
        edit.allocate(proposal.app, proposal.request, proposal.node, edit.new_container_id())
    if edit.killable and kind in (ProposalKind.ALLOCATE, ProposalKind.RESERVE) and proposal.from_reserved == NONE:
        enforce_parent_maximum(edit, world.apps[proposal.app].queue, world.node_partition[proposal.node])
    return edit.freeze()


def commit(
    world: World, state: SchedulerState, proposal: Proposal, memo: Memo | None = None, in_flight: bool = False
) -> CommitResult:
    """Accept and apply, or reject, one proposal: the committer's, taken from the proposals
    in flight (``in_flight``), or the heartbeat step's own, committed at once. Either way the
    checks read ``state`` as it is (they read no proposal in flight, so the queue with the
    proposal still in it answers as the queue without), which lets the committer's steps from
    one state share its view in ``memo``; the proposal leaves the queue in the same edit that
    applies it."""
    reason = accept(world, state, proposal, memo)
    if reason is None:
        return CommitResult(apply(world, state, proposal, in_flight), True)
    if not in_flight:
        return CommitResult(state, False, reason)
    edit = Edit(world, state)
    edit.proposals.remove(proposal)
    return CommitResult(edit.freeze(), False, reason)
