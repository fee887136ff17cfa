"""The scheduler model's invariant catalogue: predicates over a state, or over one step.

Every invariant is one :class:`SchedulerInvariant`: a name, a summary, a source and a predicate over a
:class:`SchedulerStep`, returning ``None`` when the property holds and otherwise a message naming what
is wrong (``"n1: used <4096, 2> but its containers sum to <2048, 1>"``). A state invariant
reads the state after the step (any reachable state); a step invariant also reads the state
before and the action, states what every single step must respect (a limit checked when a
container is allocated holds after that allocation, not in every later state: the cluster may
shrink under a queue), and names the action kinds that can break it, after which alone it is
checked.

The sums the state invariants compare with are computed once per state
(:class:`~yarnspec.spec.scheduler.sums.Sums`); the limits the step invariants compare with are
the spec's own (:mod:`yarnspec.spec.scheduler.reference_limits`), not the implementation's.

The stored counters (node used and free; queue, user and application used, reserved, pending
and AM used) are compared with what they should sum (containers, applications, children,
outstanding requests): the model stores them as Hadoop does, so these checks are real.

The list covers the safety properties of the project's design note ("Source: DESIGN.md"
below; the note is outside this repository, ``docs/sources.md`` quotes them) and those of
YuniKorn's randomized accounting checker: queue = sum of children (``parent-is-sum-of-children``), leaf = sum of apps
(``leaf-is-sum-of-apps``), never negative (``no-negative-usage``) or over maximum
(``allocation-within-queue-max``), user usage = sum of owned apps (``user-is-sum-of-apps``),
node = sum of its allocations (``node-used-is-sum-of-containers``), pending = sum of asks
(``pending-is-sum-of-asks``), reservations reference live objects
(``reservation-references-live-objects``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import add

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.actions import KINDS, Action, kind
from yarnspec.impl.scheduler.actions.commit import COMMIT
from yarnspec.impl.scheduler.actions.environment import ADD_NODE, FINISH_APP, LOSE_NODE, SUBMIT
from yarnspec.impl.scheduler.actions.heartbeat import HEARTBEAT
from yarnspec.impl.scheduler.actions.monitor import MONITOR as MONITOR_KIND
from yarnspec.impl.scheduler.state import NONE, AppPhase, ContainerState, SchedulerState, TrackedContainer, Usage
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.property import Property, docstring_parts
from yarnspec.spec.scheduler.reference_limits import ReferenceLimits, am_limit
from yarnspec.spec.scheduler.sums import Sums, SumTable


@dataclass(slots=True)
class SchedulerStep:
    """What an invariant looks at: the state ``after`` a step (for a state invariant, any
    reachable state), and for a step invariant the state ``before`` it and the ``action``
    taken. :attr:`sums` are computed once, on first use, and shared by every invariant."""

    world: World
    after: SchedulerState
    before: SchedulerState | None = None
    action: Action | None = None
    #: The reference limits to read (a model passes its own, remembered across steps).
    limits: ReferenceLimits | None = None
    # computed on first use (a plain slot: functools.cached_property takes a lock per read)
    _sums: Sums | None = field(default=None, init=False, repr=False, compare=False)
    _new_containers: tuple[TrackedContainer, ...] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def sums(self) -> Sums:
        """The sums every state invariant compares with (one pass over the state)."""
        sums = self._sums
        if sums is None:
            sums = self._sums = Sums.of(self.world, self.after)
        return sums

    @property
    def new_containers(self) -> tuple[TrackedContainer, ...]:
        """The containers of the state after that the state before does not have (computed
        once, shared by the step invariants of one step)."""
        new = self._new_containers
        if new is None:
            before, after = self.prior.containers, self.after.containers
            if after is before:
                new = ()
            else:
                old = {c.cid for c in before}
                new = tuple(c for c in after if c.cid not in old)
            self._new_containers = new
        return new

    @property
    def reference(self) -> ReferenceLimits:
        """The reference limits: :attr:`limits`, or a cache of this step's own."""
        if self.limits is None:
            self.limits = ReferenceLimits(self.world)
        return self.limits

    @property
    def prior(self) -> SchedulerState:
        """The state before the step (``ValueError`` for a lone state)."""
        if self.before is None:
            raise ValueError("a step invariant needs the state before the step")
        return self.before


@dataclass(frozen=True)
class StatePremise:
    """The antecedent of an invariant written as an implication: ``text`` in words, and
    ``holds(world, state)``. Invariants sharing one antecedent share one value, so the explorer
    evaluates it once per state."""

    text: str
    holds: Callable[[World, SchedulerState], bool]


def _a_reservation_exists(world: World, state: SchedulerState) -> bool:
    return any(c.state == ContainerState.RESERVED for c in state.containers)


def _a_container_is_marked(world: World, state: SchedulerState) -> bool:
    return bool(state.marks)


#: "A reservation exists": the antecedent of the reservation invariants.
A_RESERVATION = StatePremise("a reservation exists", _a_reservation_exists)
#: "A container is marked for preemption": the antecedent of a kill by the policy.
A_MARK = StatePremise("a container is marked for preemption", _a_container_is_marked)


@dataclass(frozen=True)
class SchedulerInvariant(Property[SchedulerStep, str | None]):
    """One invariant of the scheduler model, the specification's one :class:`Property` type
    over a :class:`SchedulerStep`: its name, what it says, where it comes from, and its predicate
    (``None`` when it holds, else what is wrong).

    ``broken_by`` is empty for a state invariant (checked in every state). A step invariant
    names the action kinds (``yarnspec.impl.scheduler.actions.KINDS``) whose steps can break
    it; it is checked after those steps only, since no other step does what it constrains.

    ``premise``, for an invariant written as an implication ("every reservation ..."), is its
    antecedent over a state (:class:`StatePremise`): the explorer counts the states where it
    holds and reports an invariant whose premise it never reached (it holds vacuously).
    """

    broken_by: frozenset[str] = field(default=frozenset())
    premise: StatePremise | None = None

    def __post_init__(self) -> None:
        unknown = sorted(self.broken_by - set(KINDS))
        if unknown:
            raise ValueError(f"{self.name}: no action kind {unknown[0]!r}; kinds: {', '.join(KINDS)}")

    @property
    def is_step(self) -> bool:
        """Whether this is a step invariant (it names the actions that can break it)."""
        return bool(self.broken_by)


def _sum(resources: Iterable[Resource]) -> Resource:
    """The sum of resources, componentwise over the components all of them have (the model's
    are all <memory, vcores>); ``ZERO`` for none."""
    total: tuple[int, ...] | None = None
    for r in resources:
        total = r.values if total is None else tuple(map(add, total, r.values))
    return ZERO if total is None else Resource(total)


def _total_values(values: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The components of the sum of vectors, as :func:`_sum` adds them (over the components
    all of them have; ``ZERO``'s for none), without building resources."""
    return tuple(map(sum, zip(*values))) if values else _ZERO_VALUES


def _total(resources: list[Resource]) -> tuple[int, ...]:
    """The components of :func:`_sum` of ``resources``."""
    return _total_values([r.values for r in resources])


_ZERO_VALUES = ZERO.values


def _plus(a: Resource, b: Resource) -> tuple[int, ...]:
    """The components of ``a + b`` (a shorter vector padded with zeros, as resource addition
    does), without building a resource when both have the same length."""
    x, y = a.values, b.values
    return tuple(map(add, x, y)) if len(x) == len(y) else (a + b).values


def _partition_name(world: World, partition: int) -> str:
    return repr(world.partitions[partition].name)


def _negative(resource: Resource) -> bool:
    """Some component is below zero."""
    values = resource.values
    return bool(values) and min(values) < 0


def _user_name(world: World, user: int) -> str:
    leaf, name = world.users[user]
    return f"{name} in {world.queues[leaf].path}"


# -- nodes ----------------------------------------------------------------------------------


def node_used_is_sum_of_containers(step: SchedulerStep) -> str | None:
    """A node's stored used equals the sum of its live containers (reservations excluded); a
    node that is not registered holds nothing. Source: DESIGN.md; YuniKorn "node = sum of its
    allocations"; Hadoop ``SchedulerNode.allocatedResource``."""
    world, state, sums = step.world, step.after, step.sums
    for index, node in enumerate(state.nodes):
        count = sums.node_containers[index]
        name = world.nodes[index].name
        if not node.live:
            if count or not node.used.is_zero():
                return f"{name}: not registered but holds {count} container(s), used {node.used}"
            continue
        expected = sums.node_live[index]
        if node.used != expected:
            return f"{name}: used {node.used} but its live containers sum to {expected}"
    return None


def node_free_plus_used_is_capacity(step: SchedulerStep) -> str | None:
    """On every registered node, free (unallocated) plus used equals its capacity; an
    unregistered slot has neither. Source: DESIGN.md (resources return: used plus free equals
    the total); Hadoop keeps both ``unallocatedResource`` and ``allocatedResource``."""
    world, state = step.world, step.after
    for index, node in enumerate(state.nodes):
        capacity = world.nodes[index].capacity if node.live else ZERO
        if _plus(node.used, node.free) != capacity.values or (not node.live and not node.free.is_zero()):
            return f"{world.nodes[index].name}: used {node.used} + free {node.free} is not its capacity {capacity}"
    return None


def node_within_capacity(step: SchedulerStep) -> str | None:
    """A node's used fits its capacity (as the calculator compares: memory only for the
    default calculator, which lets vcores be overcommitted as Hadoop does) and is never
    negative. Source: DESIGN.md; Hadoop's fit checks in ``assignContainer`` and ``accept``."""
    world, state = step.world, step.after
    for index, node in enumerate(state.nodes):
        if _negative(node.used):
            return f"{world.nodes[index].name}: negative used {node.used}"
        if node.live and not world.calculator.fits_in(node.used, world.nodes[index].capacity):
            return f"{world.nodes[index].name}: used {node.used} exceeds its capacity {world.nodes[index].capacity}"
    return None


# -- queues, users, applications ------------------------------------------------------------


def leaf_is_sum_of_apps(step: SchedulerStep) -> str | None:
    """Per partition, a leaf's used equals its applications' used plus reserved (Hadoop counts
    reservations in a queue's used), its reserved and pending their reserved and pending.
    Source: DESIGN.md; YuniKorn "leaf = sum of apps"."""
    world, state, sums = step.world, step.after, step.sums
    tables = (sums.queue_used, sums.queue_reserved, sums.queue_pending)
    for leaf in world.leaves:
        usage = state.queues[leaf]
        for p in range(len(world.partitions)):
            if (wrong := _apps_mismatch(usage, leaf, p, *tables)) is not None:
                return f"{world.queues[leaf].path} [{_partition_name(world, p)}]: {wrong}"
    return None


def parent_is_sum_of_children(step: SchedulerStep) -> str | None:
    """Per partition, a parent's used, reserved and pending equal its children's sums.
    Source: DESIGN.md; YuniKorn "queue = sum of children"."""
    world, queues = step.world, step.after.queues
    for index, queue in enumerate(world.queues):
        if queue.leaf:
            continue
        usage = queues[index]
        children = [queues[c] for c in queue.children]
        for p in range(len(world.partitions)):
            for what, stored, parts in (
                ("used", usage.used[p], [c.used[p] for c in children]),
                ("reserved", usage.reserved[p], [c.reserved[p] for c in children]),
                ("pending", usage.pending[p], [c.pending[p] for c in children]),
            ):
                if stored.values != _total(parts):
                    return f"{queue.path} [{_partition_name(world, p)}]: {what} {stored} but its children sum to {_sum(parts)}"
    return None


def user_is_sum_of_apps(step: SchedulerStep) -> str | None:
    """Per partition, a user's used (reservations included), reserved and pending equal the
    sums over the user's applications in that leaf. Source: YuniKorn "user usage = sum of
    owned apps"; Hadoop ``UsersManager.User``."""
    world, state, sums = step.world, step.after, step.sums
    tables = (sums.user_used, sums.user_reserved, sums.user_pending)
    for index, (leaf, name) in enumerate(world.users):
        usage = state.users[index]
        for p in range(len(world.partitions)):
            if (wrong := _apps_mismatch(usage, index, p, *tables)) is not None:
                return f"user {name} in {world.queues[leaf].path} [{_partition_name(world, p)}]: {wrong}"
    return None


def _apps_mismatch(
    usage: Usage, owner: int, p: int, used: SumTable, reserved: SumTable, pending: SumTable
) -> str | None:
    """The first of used (reservations included), reserved and pending in partition ``p``
    that differs from the owner's applications' sum, described; None when all agree."""
    if (
        used.matches(owner, p, usage.used[p])
        and reserved.matches(owner, p, usage.reserved[p])
        and pending.matches(owner, p, usage.pending[p])
    ):
        return None
    figures = (
        ("used", usage.used[p], used),
        ("reserved", usage.reserved[p], reserved),
        ("pending", usage.pending[p], pending),
    )
    for what, stored, table in figures:
        if not table.matches(owner, p, stored):
            return f"{what} {stored} but its applications sum to {table.total(owner, p)}"
    return None


def am_used_is_sum_of_active_ams(step: SchedulerStep) -> str | None:
    """A leaf's (and a user's) AM used equals the AM resource of its activated applications,
    per partition; a parent has none. Source: Hadoop ``LeafQueue.activateApplications`` /
    ``removeApplicationAttempt`` (``incAMUsed`` / ``decAMUsed``)."""
    world, state, sums = step.world, step.after, step.sums
    for index, queue in enumerate(world.queues):
        for p in range(len(world.partitions)):
            if not sums.queue_am.matches(index, p, state.queues[index].am_used[p]):
                expected = sums.queue_am.total(index, p)
                return f"{queue.path} [{_partition_name(world, p)}]: AM used {state.queues[index].am_used[p]} but its active AMs sum to {expected}"
    for index, (_leaf, name) in enumerate(world.users):
        for p in range(len(world.partitions)):
            if not sums.user_am.matches(index, p, state.users[index].am_used[p]):
                expected = sums.user_am.total(index, p)
                return f"user {name} [{_partition_name(world, p)}]: AM used {state.users[index].am_used[p]} but its active AMs sum to {expected}"
    return None


def app_is_sum_of_containers(step: SchedulerStep) -> str | None:
    """Per partition (of the node), an application's used equals its live containers, its
    reserved its reserved containers; its AM container, if any, is a live AM container of its
    own, and it has no other. Source: Hadoop ``SchedulerApplicationAttempt``
    (``attemptResourceUsage``, ``liveContainers``, ``reservedContainers``)."""
    world, state, sums = step.world, step.after, step.sums
    for index, app in enumerate(state.apps):
        if app is None:
            continue
        name = world.apps[index].name
        for p in range(len(world.partitions)):
            if not sums.app_live.matches(index, p, app.used[p]):
                used = sums.app_live.total(index, p)
                return f"{name} [{_partition_name(world, p)}]: used {app.used[p]} but its live containers sum to {used}"
            if not sums.app_reserved.matches(index, p, app.reserved[p]):
                reserved = sums.app_reserved.total(index, p)
                return f"{name} [{_partition_name(world, p)}]: reserved {app.reserved[p]} but its reservations sum to {reserved}"
        ams = list(sums.app_ams[index])
        expected = [app.am_container] if app.am_container != NONE else []
        if ams != expected:
            return f"{name}: AM container {app.am_container} but its live AM containers are {ams}"
    return None


def pending_is_sum_of_asks(step: SchedulerStep) -> str | None:
    """An application's pending, per partition asked for, equals the sum over its requests of
    outstanding containers times capability; no count is negative. Source: YuniKorn "pending
    = sum of asks"; Hadoop ``AppSchedulingInfo`` pending accounting."""
    world, state = step.world, step.after
    for index, app in enumerate(state.apps):
        if app is None:
            continue
        info = world.apps[index]
        if min(app.asks, default=0) < 0:
            return f"{info.name}: negative outstanding count in {app.asks}"
        for p in range(len(world.partitions)):
            asked = [
                tuple(v * count for v in r.capability.values)
                for r, count in zip(info.requests, app.asks)
                if r.partition == p
            ]
            if app.pending[p].values != _total_values(asked):
                expected = _sum(Resource(values) for values in asked)
                return f"{info.name} [{_partition_name(world, p)}]: pending {app.pending[p]} but its requests sum to {expected}"
    return None


def no_negative_usage(step: SchedulerStep) -> str | None:
    """No stored figure of a queue, user or application is ever negative in any resource, nor
    a node's free resource in a resource the calculator counts. Source: YuniKorn "never
    negative"."""
    world, state = step.world, step.after
    if not _some_negative(state):
        return _negative_free(world, state)
    for owner, items in (("queue", state.queues), ("user", state.users)):
        for index, usage in enumerate(items):
            for what in ("used", "reserved", "pending", "am_used"):
                for p, r in enumerate(getattr(usage, what)):
                    if _negative(r):
                        name = world.queues[index].path if owner == "queue" else _user_name(world, index)
                        return f"{owner} {name} [{_partition_name(world, p)}]: negative {what} {r}"
    for index, app in enumerate(state.apps):
        if app is None:
            continue
        for what in ("used", "reserved", "pending"):
            for p, r in enumerate(getattr(app, what)):
                if _negative(r):
                    return f"{world.apps[index].name} [{_partition_name(world, p)}]: negative {what} {r}"
    return _negative_free(world, state)


def _some_negative(state: SchedulerState) -> bool:
    """Whether any stored figure of a queue, user or application has a negative component
    (the quick test before :func:`no_negative_usage` looks for which)."""
    vectors = [r.values for u in (*state.queues, *state.users) for r in (*u.used, *u.reserved, *u.pending, *u.am_used)]
    vectors += [r.values for a in state.apps if a is not None for r in (*a.used, *a.reserved, *a.pending)]
    return min(map(min, filter(None, vectors)), default=0) < 0


def _negative_free(world: World, state: SchedulerState) -> str | None:
    """A node whose free resource is negative in a resource the calculator counts, described."""
    for index, node in enumerate(state.nodes):
        if world.calculator.any_major_nonpositive(node.free) and world.calculator.less(
            node.free + node.used, node.free, ZERO
        ):
            return f"{world.nodes[index].name}: negative free {node.free}"
    return None


# -- reservations and containers ------------------------------------------------------------


def one_reservation_per_node(step: SchedulerStep) -> str | None:
    """Every reserved container is the reservation of its node, so a node holds at most one.
    Source: DESIGN.md; Hadoop ``SchedulerNode.reservedContainer`` (one per node)."""
    world, state = step.world, step.after
    for c in state.containers:
        if c.state == ContainerState.RESERVED and state.nodes[c.node].reserved != c.cid:
            holder = state.nodes[c.node].reserved
            return f"c{c.cid} is reserved on {world.nodes[c.node].name}, which holds reservation {holder}"
    return None


def reservation_not_allocated(step: SchedulerStep) -> str | None:
    """A node's reservation is a reserved container on that node, never an allocated or
    running one (a reserved container is never also allocated). Source: DESIGN.md; seed 002
    (RESERVED turns into ALLOCATED only by the allocation that ends the reservation)."""
    world, state = step.world, step.after
    for index, node in enumerate(state.nodes):
        if node.reserved == NONE:
            continue
        container = state.container(node.reserved)
        if container is None or container.state != ContainerState.RESERVED or container.node != index:
            found = "nothing" if container is None else f"{container.state.name} on {world.nodes[container.node].name}"
            return f"{world.nodes[index].name}: its reservation c{node.reserved} is {found}"
    return None


def container_ids_unique(step: SchedulerStep) -> str | None:
    """Container ids are unique and were all handed out (below the next id). Source:
    DESIGN.md; Hadoop ``ContainerId`` from the attempt's counter."""
    state = step.after
    previous = -1
    for c in state.containers:
        if c.cid <= previous:
            return f"container id {c.cid} appears twice"
        if c.cid >= state.next_container:
            return f"container id {c.cid} was never handed out (next id {state.next_container})"
        previous = c.cid
    return None


def containers_belong(step: SchedulerStep) -> str | None:
    """Every tracked container belongs to one running application and sits on one registered
    node, for a request of that application. Source: DESIGN.md ("each live container belongs
    to one app on one node")."""
    world, state = step.world, step.after
    for c in state.containers:
        if not 0 <= c.node < len(world.nodes) or not state.nodes[c.node].live:
            return f"c{c.cid} is on node {c.node}, which is not registered"
        if not 0 <= c.app < len(world.apps):
            return f"c{c.cid} belongs to no application ({c.app})"
        app = state.apps[c.app]
        if app is None or app.phase != AppPhase.ACTIVE:
            return f"c{c.cid} belongs to {world.apps[c.app].name}, which is not running"
        requests = world.apps[c.app].requests
        if not 0 <= c.request < len(requests) or requests[c.request].capability != c.resource:
            return f"c{c.cid} matches no request of {world.apps[c.app].name}"
    return None


def reservation_references_live_objects(step: SchedulerStep) -> str | None:
    """A reservation references a running application, one of its requests (with that
    request's capability) and a registered node that holds it. Source: YuniKorn
    "reservations reference live objects"; Hadoop ``reservedContainers`` per scheduler key."""
    world, state = step.world, step.after
    for c in state.containers:
        if c.state != ContainerState.RESERVED:
            continue
        app = state.apps[c.app] if 0 <= c.app < len(state.apps) else None
        if app is None or app.phase != AppPhase.ACTIVE:
            return f"reservation c{c.cid} belongs to an application that is not running"
        requests = world.apps[c.app].requests
        if not 0 <= c.request < len(requests) or requests[c.request].capability != c.resource:
            return f"reservation c{c.cid} matches no request of {world.apps[c.app].name}"
        if not state.nodes[c.node].live or state.nodes[c.node].reserved != c.cid:
            return f"reservation c{c.cid} is on {world.nodes[c.node].name}, which is not registered or does not hold it"
    return None


def cluster_conservation(step: SchedulerStep) -> str | None:
    """Per partition, the registered nodes' free resource plus what the queues use (root's
    used less its reserved) equals the partition's capacity, always: through allocations,
    completions, kills, releases and lost nodes. Ties the node-side and queue-side counters
    together, so a leak on either side shows. Source: DESIGN.md ("used plus free equals the
    cluster, always"); YARN-8127's leak."""
    world, state = step.world, step.after
    for p in range(len(world.partitions)):
        live = [n for n, node in enumerate(state.nodes) if node.live and world.node_partition[n] == p]
        capacity = _sum(world.nodes[n].capacity for n in live)
        free = _sum(state.nodes[n].free for n in live)
        used = state.queues[0].used[p] - state.queues[0].reserved[p]
        if free + used != capacity:
            return f"partition {_partition_name(world, p)}: free {free} + used by queues {used} is not its capacity {capacity}"
    return None


# -- steps ----------------------------------------------------------------------------------


def _released_reservations(before: SchedulerState, after: SchedulerState, app: int) -> Resource:
    now = {c.cid for c in after.containers}
    return _sum(
        c.resource
        for c in before.containers
        if c.app == app and c.state == ContainerState.RESERVED and c.cid not in now
    )


def allocation_within_queue_max(step: SchedulerStep) -> str | None:
    """A step that allocates or reserves a new container leaves every queue from its leaf to
    root within its maximum (rounded down to the minimum allocation) in the node's partition;
    without partition exclusivity the limit is the partition. Source: DESIGN.md; Hadoop
    ``AbstractCSQueue.accept`` (``used + allocated - released`` fits the maximum)."""
    new = step.new_containers
    if not new:
        return None
    world, before, after, limits = step.world, step.prior, step.after, step.reference
    for c in new:  # the limits of the state the allocation read
        p = world.node_partition[c.node]
        ignore = world.apps[c.app].requests[c.request].partition != p
        for q in world.ancestors(world.apps[c.app].queue):
            limit = limits.partition_capacity(before, p) if ignore else limits.queue_maximum(before, q, p)
            if not world.calculator.fits_in(after.queues[q].used[p], limit):
                return f"c{c.cid} takes {world.queues[q].path} to {after.queues[q].used[p]}, over its maximum {limit}"
    return None


def allocation_within_user_limit(step: SchedulerStep) -> str | None:
    """A step that allocates or reserves a new container does so only while the user's used
    (less reservations the step gives up) is at most the user limit, so a user crosses its
    limit by at most that one container. Source: DESIGN.md; Hadoop ``LeafQueue.accept`` and
    ``canAssignToUser`` (``minimum-user-limit-percent``, ``user-limit-factor``)."""
    new = step.new_containers
    if not new:
        return None
    world, before, after, limits = step.world, step.prior, step.after, step.reference
    cluster = _sum(limits.partition_capacity(before, p) for p in range(len(world.partitions)))
    for c in new:  # the limit of the state the allocation read
        info = world.apps[c.app]
        p = world.node_partition[c.node]
        ignore = info.requests[c.request].partition != p
        limit = limits.user_limit(before, info.queue, p, ignore)
        used = before.users[info.user].used[p] - _released_reservations(before, after, c.app)
        if world.calculator.greater(cluster, used, limit):
            return f"c{c.cid} given to user {world.users[info.user][1]} whose used {used} is over its limit {limit}"
    return None


def activation_within_am_limit(step: SchedulerStep) -> str | None:
    """An application is activated only if its queue's AM used then fits the AM limit
    (``maximum-am-resource-percent``), unless it is the queue's only active application (Hadoop
    lets one start so the queue is not stuck). Source: DESIGN.md; Hadoop
    ``LeafQueue.activateApplications``."""
    world, before, after = step.world, step.prior, step.after
    activated: dict[int, list[int]] = {}
    active = [0] * len(world.queues)
    for i, app in enumerate(after.apps):
        if app is None or app.phase != AppPhase.ACTIVE:
            continue
        active[world.apps[i].queue] += 1
        earlier = before.apps[i]
        if earlier is None or earlier.phase == AppPhase.PENDING:
            activated.setdefault(world.apps[i].queue, []).append(i)
    for leaf, indices in activated.items():
        for index in indices:
            p = world.apps[index].am_partition
            limit = am_limit(world, after, leaf, p)
            used = after.queues[leaf].am_used[p]
            if world.calculator.fits_in(used, limit):
                continue
            alone = len(indices) == 1 and active[leaf] == 1
            if not alone:
                return f"{world.apps[index].name} activated in {world.queues[leaf].path} with AM used {used} over the AM limit {limit}"
    return None


def kill_only_after_wait(step: SchedulerStep) -> str | None:
    """The preemption monitor kills a live container only after marking it in an earlier round
    and waiting ``max_wait_before_kill`` (the shorter wait of the selectors in use). Source:
    seed 000 and seed 002 (mark, then kill after 15 s); semantics A.12."""
    world, before, after = step.world, step.prior, step.after
    config = world.settings.preemption
    if config is None or step.action is None or kind(step.action) != MONITOR:
        return None
    wait = config.max_wait_before_kill_ms
    if config.preemption_to_balance_enabled:
        wait = min(wait, config.preemption_to_balance_max_wait_ms)
    marks = dict(before.marks)
    remaining = {c.cid for c in after.containers}
    for c in before.containers:
        if not c.live or c.cid in remaining:
            continue
        app_after = after.apps[c.app]
        attempt_failed = (
            not c.is_am and app_after is not None and app_after.am_container != before.apps[c.app].am_container  # type: ignore[union-attr]
        )
        if attempt_failed:
            continue  # killed with its application's AM, not by the policy
        marked = marks.get(c.cid)
        if marked is None or marked + wait > before.clock:
            return f"c{c.cid} killed at {before.clock} ms, marked at {marked} (wait {wait} ms)"
    return None


def _invariant(
    name: str, predicate: Callable[[SchedulerStep], str | None], *broken_by: str, premise: StatePremise | None = None
) -> SchedulerInvariant:
    """The invariant ``name`` with its summary and source read from the predicate's docstring."""
    summary, source = docstring_parts(predicate)
    return SchedulerInvariant(name, summary, source, predicate, frozenset(broken_by), premise)


#: The action kinds that create containers: a heartbeat allocates and commits at once, a
#: commit applies a proposal (a proposal itself changes no container).
ALLOCATING = (HEARTBEAT.name, COMMIT.name)

#: The preemption monitor's kind: only its rounds kill containers by policy.
MONITOR = MONITOR_KIND.name

#: The action kinds whose effect activates pending applications (``activateApplications`` is
#: called on submission, when an application finishes and when the cluster changes).
ACTIVATING = (SUBMIT.name, FINISH_APP.name, LOSE_NODE.name, ADD_NODE.name)

#: Every invariant of the catalogue: state invariants first, in the order they are checked,
#: then the step invariants with the action kinds that can break them.
INVARIANTS: tuple[SchedulerInvariant, ...] = (
    _invariant("node-used-is-sum-of-containers", node_used_is_sum_of_containers),
    _invariant("node-free-plus-used-is-capacity", node_free_plus_used_is_capacity),
    _invariant("node-within-capacity", node_within_capacity),
    _invariant("leaf-is-sum-of-apps", leaf_is_sum_of_apps),
    _invariant("parent-is-sum-of-children", parent_is_sum_of_children),
    _invariant("user-is-sum-of-apps", user_is_sum_of_apps),
    _invariant("am-used-is-sum-of-active-ams", am_used_is_sum_of_active_ams),
    _invariant("app-is-sum-of-containers", app_is_sum_of_containers),
    _invariant("pending-is-sum-of-asks", pending_is_sum_of_asks),
    _invariant("no-negative-usage", no_negative_usage),
    _invariant("one-reservation-per-node", one_reservation_per_node, premise=A_RESERVATION),
    _invariant("reservation-not-allocated", reservation_not_allocated, premise=A_RESERVATION),
    _invariant("container-ids-unique", container_ids_unique),
    _invariant("containers-belong", containers_belong),
    _invariant("reservation-references-live-objects", reservation_references_live_objects, premise=A_RESERVATION),
    _invariant("cluster-conservation", cluster_conservation),
    _invariant("allocation-within-queue-max", allocation_within_queue_max, *ALLOCATING),
    _invariant("allocation-within-user-limit", allocation_within_user_limit, *ALLOCATING),
    _invariant("activation-within-am-limit", activation_within_am_limit, *ACTIVATING),
    _invariant("kill-only-after-wait", kill_only_after_wait, MONITOR, premise=A_MARK),
)

#: The state invariants (checked in every state).
STATE_INVARIANTS: tuple[SchedulerInvariant, ...] = tuple(i for i in INVARIANTS if not i.is_step)

#: The step invariants (checked after the steps that can break them).
STEP_INVARIANTS: tuple[SchedulerInvariant, ...] = tuple(i for i in INVARIANTS if i.is_step)

#: The fields of a scheduler state the state invariants read (besides the world): a state
#: invariant's verdict is a function of these fields alone (not of the clock, proposals, marks
#: or sorter caches), so a model may remember it by them
#: (:mod:`yarnspec.spec.scheduler.verdicts`). A state invariant added here must keep to them.
ACCOUNTING_FIELDS: tuple[str, ...] = ("next_container", "nodes", "apps", "queues", "users", "containers")


def check_state(world: World, state: SchedulerState) -> list[tuple[str, str]]:
    """``(name, message)`` of every state invariant ``state`` violates."""
    step = SchedulerStep(world, state)
    return [(i.name, message) for i in STATE_INVARIANTS if (message := i.predicate(step)) is not None]


def check_step(world: World, before: SchedulerState, action: Action, after: SchedulerState) -> list[tuple[str, str]]:
    """``(name, message)`` of every step invariant the step violates (those its action's kind
    can break)."""
    step = SchedulerStep(world, after, before, action)
    kind_of = kind(action)
    return [
        (i.name, message)
        for i in STEP_INVARIANTS
        if kind_of in i.broken_by and (message := i.predicate(step)) is not None
    ]
