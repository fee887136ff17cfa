"""One assignment: what the scheduler proposes for a node (or a partition's sorted nodes).

This is the CapacityScheduler's allocation pass, read from the state and returning at most one
:class:`Proposal` (a ``ResourceCommitRequest``); :mod:`.async_commit` checks and applies it.
The heartbeat step commits it at once; the asynchronous propose step leaves it in flight.

The pass, as Hadoop 3 runs it (``CapacityScheduler.allocateContainerOnSingleNode`` /
``allocateContainersOnMultiNodes``, ``ParentQueue`` / ``LeafQueue.assignContainers``,
``RegularContainerAllocator``):

1. A node with a reservation only serves that reservation: allocate it if it fits now,
   unreserve it if its request was withdrawn, else re-reserve (seed 002: "the node skips
   scheduling until its free resource reaches the reservation").
2. Otherwise from root down: a queue is entered if it may use the partition, has pending
   demand there and is below its limit (:mod:`.limits`); children in utilization order
   (:mod:`.queue_order`); in a leaf, applications in ordering-policy order, skipping users
   over their limit; in an application, scheduler keys by priority.
3. For a key on a node: the request that node serves (:mod:`.requests`); if the container
   fits, allocate (with reservations-continue-looking, possibly in exchange for one of the
   app's reservations elsewhere); if not, reserve when seed 002's rule
   (``shouldAllocOrReserveNewContainer``) says the app needs more containers than it holds
   reservations, counting re-reservations as starvation.
4. Partition exclusivity: a request is served on nodes of the partition it asks for; if a
   non-exclusive partition's node is left idle, requests without a label may use it (never an
   AM), with the whole partition as every queue's limit.

Multi-node placement looks at every node of a partition in the sorter's cached order; where
Hadoop releases differ (reservations looked at from every candidate versus only on their own
node; reserving on the first candidate versus only on the last; what a pass does on a full
partition) the world's :class:`~.world.Variants` decide (YARN-9432, YARN-10259, YARN-10293),
as they decide whether a child skipped for its queue limit blocks its headroom (YARN-4280,
YARN-8804).
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from dataclasses import dataclass, replace

from yarnspec.impl.resources import ZERO, Resource, f32
from yarnspec.impl.scheduler.allocation.limits import (
    ResourceLimits,
    can_assign_to_queue,
    can_assign_to_user,
    child_limits,
    fits_count,
    root_limits,
    user_limit,
)
from yarnspec.impl.scheduler.allocation.queue_order import ordered_apps, ordered_children
from yarnspec.impl.scheduler.allocation.requests import outstanding, serving_request
from yarnspec.impl.scheduler.allocation.scheduling_mode import IGNORE, RESPECT, SchedulingMode
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.monitor.killable import (
    containers_to_kill,
    node_killable_resource,
    preemption_allowed,
    queue_killable_resource,
)
from yarnspec.impl.scheduler.state import (
    NONE,
    AppPhase,
    ContainerState,
    Proposal,
    ProposalKind,
    SchedulerState,
    TrackedContainer,
)
from yarnspec.impl.scheduler.world import World

ROOT = 0


class Outcome(enum.IntEnum):
    """Hadoop's ``AllocationState`` of one try."""

    ALLOCATED = 0
    RESERVED = 1
    PRIORITY_SKIPPED = 2
    LOCALITY_SKIPPED = 3
    APP_SKIPPED = 4
    QUEUE_SKIPPED = 5


class Skip(enum.IntEnum):
    """Why a queue or application returned nothing (Hadoop's ``CSAssignment.SkippedType``)."""

    NONE = 0
    QUEUE_LIMIT = 1
    OTHER = 2


@dataclass(frozen=True)
class Result:
    """The outcome of trying one key, with the proposal it makes (if any)."""

    outcome: Outcome
    proposal: Proposal | None = None


@dataclass(frozen=True)
class Assignment:
    """What a queue returns to its parent: a proposal, or nothing and why."""

    proposal: Proposal | None
    skip: Skip = Skip.NONE


NOTHING = Assignment(None)


@dataclass(frozen=True)
class Candidates:
    """The nodes one pass looks at, in preference order, all of one partition."""

    partition: int
    nodes: tuple[int, ...]
    multi: bool


# -- entry points ---------------------------------------------------------------------------


def propose_on_node(world: World, state: SchedulerState, node: int, view: View | None = None) -> Proposal | None:
    """The single-node pass for ``node`` (also a node's reservation under YARN-10259);
    ``view``: the view of ``state`` to read (a fresh one if not given)."""
    view = view or View(world, state)
    ns = state.nodes[node]
    if not ns.live:
        return None
    if ns.reserved != NONE:
        reserved = state.container(ns.reserved)
        if reserved is None:
            return None
        single = Candidates(world.node_partition[node], (node,), False)
        return _reserved_container(view, reserved, single).proposal
    if not fits_count(view.calc, ns.free + node_killable_resource(state, node), view.minimum):
        return None
    return _assign_root(view, Candidates(world.node_partition[node], (node,), False))


def propose_on_partition(
    world: World, state: SchedulerState, partition: int, view: View | None = None
) -> Proposal | None:
    """The multi-node pass for a partition (``allocateContainersOnMultiNodes``): its live
    nodes in the sorter's cached order; nothing on a full partition before YARN-10293."""
    view = view or View(world, state)
    nodes = multi_node_candidates(world, state, partition)
    if not nodes:
        return None
    if not world.variants.yarn_10293 and partition_full(view, partition):
        return None
    return _assign_root(view, Candidates(partition, nodes, True))


def partition_pass(
    world: World, state: SchedulerState, partition: int, view: View | None = None
) -> tuple[Proposal, ...]:
    """Everything one multi-node pass of a scheduling thread proposes for a partition
    (``allocateContainersOnMultiNodes``), all computed from the same state: the reservations
    it serves on their own nodes (:func:`serves_reservation_alone`, in node order; Hadoop
    walks a hash map of the nodes), then the partition's new allocation
    (:func:`propose_on_partition`)."""
    view = view or View(world, state)
    reserved: list[Proposal] = []
    for node in range(len(world.nodes)):
        if world.node_partition[node] == partition and serves_reservation_alone(world, state, node, view):
            proposal = propose_on_node(world, state, node, view)
            if proposal is not None:
                reserved.append(proposal)
    new = propose_on_partition(world, state, partition, view)
    return tuple(reserved) if new is None else (*reserved, new)


def partition_full(view: View, partition: int) -> bool:
    """Root's used capacity in the partition is at least 1 (reservations count as used) and
    nothing there is killable (lazy preemption)."""
    resource = view.partition_resource[partition]
    base = view.calc.max(resource, view.guaranteed(ROOT, partition), view.minimum)
    full = view.calc.divide(resource, view.state.queues[ROOT].used[partition], base) >= 1.0
    return full and queue_killable_resource(view.world, view.state, ROOT, partition).is_zero()


def serves_reservation_alone(world: World, state: SchedulerState, node: int, view: View | None = None) -> bool:
    """Whether, with multi-node placement, a pass serves ``node``'s reservation on that node
    alone (``allocateFromReservedContainer``): always under YARN-10293, only on a full
    partition under YARN-9432, never in Hadoop 3.2."""
    if state.nodes[node].reserved == NONE or not state.nodes[node].live:
        return False
    if world.variants.yarn_10293:
        return True
    return world.variants.yarn_9432 and partition_full(view or View(world, state), world.node_partition[node])


def heartbeat_proposal(world: World, state: SchedulerState, node: int, view: View | None = None) -> Proposal | None:
    """What a node's heartbeat proposes (committed at once by the heartbeat step): the
    single-node pass, or with multi-node placement the partition's pass, or the node's own
    reservation where a pass serves it alone (:func:`serves_reservation_alone`)."""
    view = view or View(world, state)
    if not world.settings.multi_node:
        return propose_on_node(world, state, node, view)
    if serves_reservation_alone(world, state, node, view):
        return propose_on_node(world, state, node, view)
    if not state.nodes[node].live:
        return None
    return propose_on_partition(world, state, world.node_partition[node], view)


def pass_inputs(state: SchedulerState) -> Hashable:
    """Everything of ``state`` an allocation pass reads: nodes, applications, queue and user
    figures, tracked containers and the sorter's order (not the proposals in flight, the
    marks, the clock or the time stamps). Two states with equal inputs get equal proposals."""
    return (state.nodes, state.apps, state.queues, state.users, state.containers, state.node_order, state.killable)


def multi_node_candidates(world: World, state: SchedulerState, partition: int) -> tuple[int, ...]:
    """The partition's live nodes in the multi-node sorter's cached order (a node that joined
    after the last sort is not among them until the next one)."""
    order = state.node_order[partition] if partition < len(state.node_order) else ()
    return tuple(n for n in order if state.nodes[n].live)


# -- the queue tree -------------------------------------------------------------------------


def _assign_root(view: View, candidates: Candidates) -> Proposal | None:
    """Root's pass with partition exclusivity, then, on an idle non-exclusive partition,
    without it."""
    partition = candidates.partition
    modes = [RESPECT]
    if partition != 0 and not view.world.partitions[partition].exclusive:
        modes.append(IGNORE)
    for mode in modes:
        assignment, _ = _assign_queue(view, ROOT, candidates, root_limits(view, partition, mode), mode)
        if assignment.proposal is not None:
            return assignment.proposal
    return None


def _pending_partition(partition: int, mode: SchedulingMode) -> int:
    """Where pending demand is looked for: the node's partition, or, without exclusivity, the
    default partition (requests without a label)."""
    return 0 if mode.ignores_exclusivity else partition


def _queue_wants(view: View, queue: int, candidates: Candidates, mode: SchedulingMode) -> bool:
    """A queue is entered if it may use the partition and asks for something there."""
    partition = candidates.partition
    if not mode.ignores_exclusivity and partition not in view.world.queues[queue].accessible:
        return False
    pending = view.state.queues[queue].pending[_pending_partition(partition, mode)]
    return view.calc.greater(view.cluster, pending, ZERO)


def _assign_queue(
    view: View, queue: int, candidates: Candidates, limits: ResourceLimits, mode: SchedulingMode
) -> tuple[Assignment, ResourceLimits]:
    """``ParentQueue.assignContainers`` (or the leaf's), and the queue's limits after its pass
    (the headroom its check set, what its children blocked): its parent reads them when the
    queue was skipped for its limit (Hadoop's shared ``ResourceLimits`` object)."""
    if view.world.queues[queue].leaf:
        return _assign_leaf(view, queue, candidates, limits, mode)
    if not _queue_wants(view, queue, candidates, mode):
        return NOTHING, limits
    if not candidates.multi:
        node = view.state.nodes[candidates.nodes[0]]
        available = node.free + node_killable_resource(view.state, candidates.nodes[0])
        if node.reserved != NONE or not view.calc.greater_equal(view.cluster, available, view.minimum):
            return NOTHING, limits
    reserved = view.state.queues[queue].reserved[0]
    allowed, limits = can_assign_to_queue(view, queue, candidates.partition, limits, reserved, mode)
    if not allowed:
        return Assignment(None, Skip.QUEUE_LIMIT), limits
    result = NOTHING
    for child in ordered_children(view, queue, candidates.partition):
        limits_of_child = child_limits(view, queue, child, limits, candidates.partition)
        assignment, limits_of_child = _assign_queue(view, child, candidates, limits_of_child, mode)
        if assignment.proposal is not None:
            return assignment, limits
        if assignment.skip == Skip.QUEUE_LIMIT:
            result = assignment
            limits = _block_headroom(view, child, limits, limits_of_child)
    return result, limits


def _block_headroom(view: View, child: int, limits: ResourceLimits, limits_of_child: ResourceLimits) -> ResourceLimits:
    """``assignContainersToChildQueues`` after a child was skipped for its queue limit
    (YARN-4280): the parent's later children get a limit less the child's headroom (at least
    0); with YARN-8804 a parent child gives up only what its own children blocked."""
    variants = view.world.variants
    if not variants.yarn_4280:
        return limits
    nested = variants.yarn_8804 and not view.world.queues[child].leaf
    blocked = limits_of_child.blocked if nested else limits_of_child.headroom
    return replace(limits, blocked=limits.blocked + view.calc.max(view.cluster, blocked, ZERO))


def _assign_leaf(
    view: View, leaf: int, candidates: Candidates, limits: ResourceLimits, mode: SchedulingMode
) -> tuple[Assignment, ResourceLimits]:
    """``LeafQueue.assignContainers``: reservations first (Hadoop 3.2 multi-node), then the
    applications in order, respecting the queue limit, user limits and FIFO; and the leaf's
    limits after the checks (see :func:`_assign_queue`)."""
    world = view.world
    if candidates.multi and not world.variants.yarn_10259:
        for node in sorted(candidates.nodes):
            cid = view.state.nodes[node].reserved
            container = view.state.container(cid) if cid != NONE else None
            if container is not None and world.apps[container.app].queue == leaf:
                return _reserved_container(view, container, candidates), limits
    if not _queue_wants(view, leaf, candidates, mode):
        return NOTHING, limits
    partition = candidates.partition
    limits = replace(limits, allow_preemption=preemption_allowed(view, leaf, partition))
    check_queue = True
    for app in ordered_apps(view, leaf):
        state = view.state.apps[app]
        if state is None:
            continue
        app_reserved = state.reserved[0]
        if check_queue:
            allowed, limits = can_assign_to_queue(view, leaf, partition, limits, app_reserved, mode)
            if not allowed:
                return Assignment(None, Skip.QUEUE_LIMIT), limits
            if not world.settings.continue_looking or app_reserved.is_zero():
                check_queue = False
        allowed, limits = can_assign_to_user(view, app, partition, user_limit(view, leaf, partition, mode), limits)
        if not allowed:
            continue
        assignment = _assign_app(view, app, candidates, limits, mode)
        if assignment.proposal is not None or assignment.skip == Skip.QUEUE_LIMIT:
            return assignment, limits
        if assignment.skip != Skip.OTHER:
            return NOTHING, limits  # Hadoop stops here to respect the FIFO order of applications
    return NOTHING, limits


def _assign_app(
    view: View, app: int, candidates: Candidates, limits: ResourceLimits, mode: SchedulingMode
) -> Assignment:
    """``RegularContainerAllocator.assignContainers`` without a reservation: keys in
    priority order until one is not skipped."""
    if not view.app_has_pending(app, _pending_partition(candidates.partition, mode)):
        return Assignment(None, Skip.OTHER)
    for key in range(len(view.world.apps[app].keys)):
        result = _allocate_key(view, app, key, candidates, limits, mode, None)
        if result.outcome != Outcome.PRIORITY_SKIPPED:
            return _as_assignment(result)
    return Assignment(None, Skip.OTHER)


def _as_assignment(result: Result) -> Assignment:
    """``getCSAssignmentFromAllocateResult``, as the leaf reads it."""
    if result.proposal is not None:
        return Assignment(result.proposal)
    if result.outcome == Outcome.QUEUE_SKIPPED:
        return Assignment(None, Skip.QUEUE_LIMIT)
    if result.outcome in (Outcome.APP_SKIPPED, Outcome.PRIORITY_SKIPPED):
        return Assignment(None, Skip.OTHER)
    return NOTHING


def _reserved_container(view: View, reserved: TrackedContainer, candidates: Candidates) -> Assignment:
    """Serve a reservation (``allocateFromReservedContainer``): allocate it, re-reserve it or,
    if its key no longer asks for anything, unreserve it."""
    app = view.state.apps[reserved.app]
    if app is None or app.phase != AppPhase.ACTIVE:
        return NOTHING
    key = view.world.apps[reserved.app].requests[reserved.request].key
    resource = view.partition_resource[0]
    leaf = view.world.apps[reserved.app].queue
    limits = ResourceLimits(resource, resource, allow_preemption=preemption_allowed(view, leaf, candidates.partition))
    result = _allocate_key(view, reserved.app, key, candidates, limits, RESPECT, reserved)
    return Assignment(result.proposal)


# -- one key on the candidate nodes ---------------------------------------------------------


def _allocate_key(
    view: View,
    app: int,
    key: int,
    candidates: Candidates,
    limits: ResourceLimits,
    mode: SchedulingMode,
    reserved: TrackedContainer | None,
) -> Result:
    """``RegularContainerAllocator.allocate``: try the candidates in order; stop at the first
    allocation, and at the first reservation unless YARN-10259 keeps looking: then only the
    last candidate may reserve, and only if it returns RESERVED itself (an earlier candidate
    that would have reserved is passed over)."""
    world = view.world
    info, state = world.apps[app], view.state.apps[app]
    assert state is not None
    keep_looking = candidates.multi and world.variants.yarn_10259
    result = Result(Outcome.PRIORITY_SKIPPED)
    for position, node in enumerate(candidates.nodes):
        if reserved is None:
            skipped = _precheck(view, app, key, node, limits, mode)
            if skipped is not None:
                result = skipped
                continue
        elif outstanding(info, state, key) == 0:
            unreserve = Proposal(
                ProposalKind.UNRESERVE, app, reserved.request, reserved.node, from_reserved=reserved.cid
            )
            result = Result(Outcome.QUEUE_SKIPPED, unreserve)
            continue
        result = _try_node(view, app, key, node, limits, reserved)
        if result.outcome == Outcome.ALLOCATED:
            return result
        if result.outcome == Outcome.RESERVED:
            if keep_looking and position < len(candidates.nodes) - 1:
                continue
            return result
    return result


def _precheck(view: View, app: int, key: int, node: int, limits: ResourceLimits, mode: SchedulingMode) -> Result | None:
    """``preCheckForNodeCandidateSet``: skip the key if nothing is asked, the partition does
    not match, an AM would go to a non-exclusive partition, seed 002's rule says no (without
    continue-looking), or the queue's headroom (plus what the app could unreserve) is short."""
    world = view.world
    info, state = world.apps[app], view.state.apps[app]
    assert state is not None
    if outstanding(info, state, key) <= 0:
        return Result(Outcome.PRIORITY_SKIPPED)
    request = next(r for r in info.requests if r.key == key)
    node_partition = world.node_partition[node]
    if mode.ignores_exclusivity:
        if state.am_container == NONE or request.partition != 0:
            return Result(Outcome.PRIORITY_SKIPPED)
    elif request.partition != node_partition:
        return Result(Outcome.PRIORITY_SKIPPED)
    continue_looking = world.settings.continue_looking
    if not continue_looking and not should_allocate_or_reserve(view, app, key):
        return Result(Outcome.PRIORITY_SKIPPED)
    could_unreserve = state.reserved[node_partition] if continue_looking else ZERO
    if not view.calc.greater_equal(view.cluster, limits.headroom + could_unreserve, request.capability):
        return Result(Outcome.QUEUE_SKIPPED)
    return None


def _try_node(
    view: View, app: int, key: int, node: int, limits: ResourceLimits, reserved: TrackedContainer | None
) -> Result:
    """``assignContainersOnNode``: the most local request the node serves; a miss on a
    relaxable request skips the application, on a strict one the key."""
    info, state = view.world.apps[app], view.state.apps[app]
    assert state is not None
    served = serving_request(view.world, info, state, key, node)
    if served is None:
        return Result(Outcome.PRIORITY_SKIPPED)
    request = served[0]
    result = _assign_container(view, app, request, node, limits, reserved)
    if result.outcome == Outcome.LOCALITY_SKIPPED:
        spec = info.requests[request]
        return Result(Outcome.APP_SKIPPED if spec.kind == "any" or spec.relax else Outcome.PRIORITY_SKIPPED)
    return result


def _assign_container(
    view: View, app: int, request: int, node: int, limits: ResourceLimits, reserved: TrackedContainer | None
) -> Result:
    """``RegularContainerAllocator.assignContainer``: allocate if it fits (or, for a leaf under
    its guarantee, if killing the node's killable containers makes room: lazy preemption), else
    reserve (or re-reserve) if seed 002's rule allows; continue-looking may swap a reservation elsewhere
    for this allocation, or forbid reserving when the queue or user is at its limit."""
    world, calc = view.world, view.calc
    spec = world.apps[app].requests[request]
    capability = spec.capability
    ignore = spec.partition != world.node_partition[node]
    from_reserved = reserved.cid if reserved is not None else NONE
    if not calc.fits_in(capability, world.nodes[node].capacity):
        return Result(Outcome.LOCALITY_SKIPPED)
    should = should_allocate_or_reserve(view, app, spec.key)
    to_unreserve = calc.max(view.cluster, capability - limits.headroom, limits.amount_needed_unreserve)
    must_unreserve = calc.any_major_positive(to_unreserve)
    continue_looking = world.settings.continue_looking
    fits = fits_count(calc, view.state.nodes[node].free, capability)
    kill = () if fits else containers_to_kill(view, node, capability, limits.allow_preemption)
    if fits or kill:
        release = NONE
        if reserved is None and continue_looking and (not should or must_unreserve):
            release = reservation_to_release(view, app, spec.key, to_unreserve if must_unreserve else capability)
            if release == NONE:
                return Result(Outcome.LOCALITY_SKIPPED)
        proposal = Proposal(ProposalKind.ALLOCATE, app, request, node, from_reserved, release, ignore, kill)
        return Result(Outcome.ALLOCATED, proposal)
    if should or reserved is not None:
        if continue_looking and reserved is None and must_unreserve:
            return Result(Outcome.LOCALITY_SKIPPED)
        kind = ProposalKind.RESERVE if reserved is None else ProposalKind.RERESERVE
        return Result(Outcome.RESERVED, Proposal(kind, app, request, node, from_reserved, NONE, ignore))
    return Result(Outcome.LOCALITY_SKIPPED)


def reservations_of(state: SchedulerState, app: int, key_of: dict[int, int], key: int) -> list[TrackedContainer]:
    """The app's reserved containers for one scheduler key, in id order (``key_of`` maps the
    app's request indices to keys)."""
    return [
        c for c in state.containers if c.app == app and c.state == ContainerState.RESERVED and key_of[c.request] == key
    ]


def _key_of(view: View, app: int) -> dict[int, int]:
    return {i: r.key for i, r in enumerate(view.world.apps[app].requests)}


def should_allocate_or_reserve(view: View, app: int, key: int) -> bool:
    """Seed 002's ``shouldAllocOrReserveNewContainer``: with ``r`` reservations and ``q``
    outstanding containers at this key, ``starvation = (int)(reReservations / (float) r x
    (1 - min(nodeFactor, minimumAllocationFactor)))`` where ``nodeFactor`` is the request over
    the maximum allocation; allocate or reserve a new container iff ``starvation + q - r > 0``
    (Java float arithmetic)."""
    world = view.world
    info, state = world.apps[app], view.state.apps[app]
    assert state is not None
    required = outstanding(info, state, key)
    reserved = len(reservations_of(view.state, app, _key_of(view, app), key))
    starvation = 0
    if reserved > 0:
        capability = next(r.capability for r in info.requests if r.key == key)
        node_factor = view.calc.ratio(capability, world.settings.maximum_allocation)
        factor = f32(1.0 - min(node_factor, world.minimum_allocation_factor()))
        starvation = int(f32(f32(state.rereservations[key] / f32(reserved)) * factor))
    return starvation + required - reserved > 0


def reservation_to_release(view: View, app: int, key: int, amount: Resource) -> int:
    """``findNodeToUnreserve``: the first reservation of the app at this key at least as large
    as ``amount``, or ``NONE``."""
    for container in reservations_of(view.state, app, _key_of(view, app), key):
        if view.calc.fits_in(amount, container.resource):
            return container.cid
    return NONE
