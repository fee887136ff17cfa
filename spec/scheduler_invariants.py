"""The scheduler model's invariant catalogue: predicates over a state, or over one step.

Each predicate returns ``None`` when the property holds and otherwise a message naming what is
wrong (``"n1: used <4096, 2> but its containers sum to <2048, 1>"``). State predicates take
``(world, state)``; step predicates ``(world, before, action, after)`` and state what every
single step must respect (a limit checked when a container is allocated holds after that
allocation, not in every later state: the cluster may shrink under a queue).

The stored counters (node used and free; queue, user and application used, reserved, pending
and AM used) are compared with what they should sum (containers, applications, children,
outstanding requests): the model stores them as Hadoop does, so these checks are real.

The list covers the properties of DESIGN.md and those of YuniKorn's randomized accounting
checker: queue = sum of children (``parent-is-sum-of-children``), leaf = sum of apps
(``leaf-is-sum-of-apps``), never negative (``no-negative-usage``) or over maximum
(``allocation-within-queue-max``), user usage = sum of owned apps (``user-is-sum-of-apps``),
node = sum of its allocations (``node-used-is-sum-of-containers``), pending = sum of asks
(``pending-is-sum-of-asks``), reservations reference live objects
(``reservation-references-live-objects``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.actions import Action, Monitor
from yarnspec.impl.scheduler.limits import am_limit, queue_max_down, user_limit
from yarnspec.impl.scheduler.scheduling_mode import SchedulingMode
from yarnspec.impl.scheduler.state import NONE, AppPhase, AppState, Container, ContainerState, SchedulerState, Usage
from yarnspec.impl.scheduler.view import View
from yarnspec.impl.scheduler.world import World

StateCheck = Callable[[World, SchedulerState], str | None]
StepCheck = Callable[[World, SchedulerState, Action, SchedulerState], str | None]


@dataclass(frozen=True)
class StateInvariant:
    """A property of every reachable state: its name, what it says, where it comes from."""

    name: str
    summary: str
    source: str
    check: StateCheck


@dataclass(frozen=True)
class StepInvariant:
    """A property of every step (before, action, after)."""

    name: str
    summary: str
    source: str
    check: StepCheck


def _sum(resources: Iterable[Resource]) -> Resource:
    """The sum of resources (the model's are all <memory, vcores>)."""
    values = [r.values for r in resources]
    return Resource(tuple(map(sum, zip(*values)))) if values else ZERO


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


def node_used_is_sum_of_containers(world: World, state: SchedulerState) -> str | None:
    """A node's stored used equals the sum of its live containers (reservations excluded); a
    node that is not registered holds nothing. Source: DESIGN.md; YuniKorn "node = sum of its
    allocations"; Hadoop ``SchedulerNode.allocatedResource``."""
    for index, node in enumerate(state.nodes):
        containers = [c for c in state.containers if c.node == index]
        name = world.nodes[index].name
        if not node.live:
            if containers or not node.used.is_zero():
                return f"{name}: not registered but holds {len(containers)} container(s), used {node.used}"
            continue
        expected = _sum(c.resource for c in containers if c.live)
        if node.used != expected:
            return f"{name}: used {node.used} but its live containers sum to {expected}"
    return None


def node_free_plus_used_is_capacity(world: World, state: SchedulerState) -> str | None:
    """On every registered node, free (unallocated) plus used equals its capacity; an
    unregistered slot has neither. Source: DESIGN.md (resources return: used plus free equals
    the total); Hadoop keeps both ``unallocatedResource`` and ``allocatedResource``."""
    for index, node in enumerate(state.nodes):
        capacity = world.nodes[index].capacity if node.live else ZERO
        if node.used + node.free != capacity or (not node.live and not node.free.is_zero()):
            return f"{world.nodes[index].name}: used {node.used} + free {node.free} is not its capacity {capacity}"
    return None


def node_within_capacity(world: World, state: SchedulerState) -> str | None:
    """A node's used fits its capacity (as the calculator compares: memory only for the
    default calculator, which lets vcores be overcommitted as Hadoop does) and is never
    negative. Source: DESIGN.md; Hadoop's fit checks in ``assignContainer`` and ``accept``."""
    for index, node in enumerate(state.nodes):
        if _negative(node.used):
            return f"{world.nodes[index].name}: negative used {node.used}"
        if node.live and not world.calculator.fits_in(node.used, world.nodes[index].capacity):
            return f"{world.nodes[index].name}: used {node.used} exceeds its capacity {world.nodes[index].capacity}"
    return None


# -- queues, users, applications ------------------------------------------------------------


def leaf_is_sum_of_apps(world: World, state: SchedulerState) -> str | None:
    """Per partition, a leaf's used equals its applications' used plus reserved (Hadoop counts
    reservations in a queue's used), its reserved and pending their reserved and pending.
    Source: DESIGN.md; YuniKorn "leaf = sum of apps"."""
    for leaf in world.leaves:
        apps = [a for i, a in enumerate(state.apps) if a is not None and world.apps[i].queue == leaf]
        usage = state.queues[leaf]
        for p in range(len(world.partitions)):
            if (wrong := _apps_mismatch(usage, apps, p)) is not None:
                return f"{world.queues[leaf].path} [{_partition_name(world, p)}]: {wrong}"
    return None


def parent_is_sum_of_children(world: World, state: SchedulerState) -> str | None:
    """Per partition, a parent's used, reserved and pending equal its children's sums.
    Source: DESIGN.md; YuniKorn "queue = sum of children"."""
    for index, queue in enumerate(world.queues):
        if queue.leaf:
            continue
        usage = state.queues[index]
        for p in range(len(world.partitions)):
            for what in ("used", "reserved", "pending"):
                stored = getattr(usage, what)[p]
                expected = _sum(getattr(state.queues[c], what)[p] for c in queue.children)
                if stored != expected:
                    return f"{queue.path} [{_partition_name(world, p)}]: {what} {stored} but its children sum to {expected}"
    return None


def user_is_sum_of_apps(world: World, state: SchedulerState) -> str | None:
    """Per partition, a user's used (reservations included), reserved and pending equal the
    sums over the user's applications in that leaf. Source: YuniKorn "user usage = sum of
    owned apps"; Hadoop ``UsersManager.User``."""
    for index, (leaf, name) in enumerate(world.users):
        apps = [a for i, a in enumerate(state.apps) if a is not None and world.apps[i].user == index]
        usage = state.users[index]
        for p in range(len(world.partitions)):
            if (wrong := _apps_mismatch(usage, apps, p)) is not None:
                return f"user {name} in {world.queues[leaf].path} [{_partition_name(world, p)}]: {wrong}"
    return None


def _apps_mismatch(usage: Usage, apps: Sequence[AppState], p: int) -> str | None:
    """The first of used (reservations included), reserved and pending in partition ``p``
    that differs from the sum over ``apps``, described; None when all agree."""
    figures = (
        ("used", usage.used[p], _sum(a.used[p] + a.reserved[p] for a in apps)),
        ("reserved", usage.reserved[p], _sum(a.reserved[p] for a in apps)),
        ("pending", usage.pending[p], _sum(a.pending[p] for a in apps)),
    )
    for what, stored, expected in figures:
        if stored != expected:
            return f"{what} {stored} but its applications sum to {expected}"
    return None


def am_used_is_sum_of_active_ams(world: World, state: SchedulerState) -> str | None:
    """A leaf's (and a user's) AM used equals the AM resource of its activated applications,
    per partition; a parent has none. Source: Hadoop ``LeafQueue.activateApplications`` /
    ``removeApplicationAttempt`` (``incAMUsed`` / ``decAMUsed``)."""
    for index, queue in enumerate(world.queues):
        for p in range(len(world.partitions)):
            expected = _sum(
                world.apps[i].requests[0].capability
                for i, a in enumerate(state.apps)
                if a is not None and a.phase == AppPhase.ACTIVE and world.apps[i].queue == index and world.apps[i].am_partition == p
            )
            if state.queues[index].am_used[p] != expected:
                return f"{queue.path} [{_partition_name(world, p)}]: AM used {state.queues[index].am_used[p]} but its active AMs sum to {expected}"
    for index, (leaf, name) in enumerate(world.users):
        for p in range(len(world.partitions)):
            expected = _sum(
                world.apps[i].requests[0].capability
                for i, a in enumerate(state.apps)
                if a is not None and a.phase == AppPhase.ACTIVE and world.apps[i].user == index and world.apps[i].am_partition == p
            )
            if state.users[index].am_used[p] != expected:
                return f"user {name} [{_partition_name(world, p)}]: AM used {state.users[index].am_used[p]} but its active AMs sum to {expected}"
    return None


def app_is_sum_of_containers(world: World, state: SchedulerState) -> str | None:
    """Per partition (of the node), an application's used equals its live containers, its
    reserved its reserved containers; its AM container, if any, is a live AM container of its
    own, and it has no other. Source: Hadoop ``SchedulerApplicationAttempt``
    (``attemptResourceUsage``, ``liveContainers``, ``reservedContainers``)."""
    for index, app in enumerate(state.apps):
        if app is None:
            continue
        name = world.apps[index].name
        mine = [c for c in state.containers if c.app == index]
        for p in range(len(world.partitions)):
            on_p = [c for c in mine if world.node_partition[c.node] == p]
            used = _sum(c.resource for c in on_p if c.live)
            reserved = _sum(c.resource for c in on_p if c.state == ContainerState.RESERVED)
            if app.used[p] != used:
                return f"{name} [{_partition_name(world, p)}]: used {app.used[p]} but its live containers sum to {used}"
            if app.reserved[p] != reserved:
                return f"{name} [{_partition_name(world, p)}]: reserved {app.reserved[p]} but its reservations sum to {reserved}"
        ams = [c.cid for c in mine if c.live and c.is_am]
        expected = [app.am_container] if app.am_container != NONE else []
        if ams != expected:
            return f"{name}: AM container {app.am_container} but its live AM containers are {ams}"
    return None


def pending_is_sum_of_asks(world: World, state: SchedulerState) -> str | None:
    """An application's pending, per partition asked for, equals the sum over its requests of
    outstanding containers times capability; no count is negative. Source: YuniKorn "pending
    = sum of asks"; Hadoop ``AppSchedulingInfo`` pending accounting."""
    for index, app in enumerate(state.apps):
        if app is None:
            continue
        info = world.apps[index]
        if any(count < 0 for count in app.asks):
            return f"{info.name}: negative outstanding count in {app.asks}"
        for p in range(len(world.partitions)):
            expected = _sum(
                Resource(tuple(v * app.asks[i] for v in r.capability.values)) for i, r in enumerate(info.requests) if r.partition == p
            )
            if app.pending[p] != expected:
                return f"{info.name} [{_partition_name(world, p)}]: pending {app.pending[p]} but its requests sum to {expected}"
    return None


def no_negative_usage(world: World, state: SchedulerState) -> str | None:
    """No stored figure of a queue, user or application is ever negative in any resource, nor
    a node's free resource in a resource the calculator counts. Source: YuniKorn "never
    negative"."""
    for kind, items in (("queue", state.queues), ("user", state.users)):
        for index, usage in enumerate(items):
            for what in ("used", "reserved", "pending", "am_used"):
                for p, r in enumerate(getattr(usage, what)):
                    if _negative(r):
                        name = world.queues[index].path if kind == "queue" else _user_name(world, index)
                        return f"{kind} {name} [{_partition_name(world, p)}]: negative {what} {r}"
    for index, app in enumerate(state.apps):
        if app is None:
            continue
        for what in ("used", "reserved", "pending"):
            for p, r in enumerate(getattr(app, what)):
                if _negative(r):
                    return f"{world.apps[index].name} [{_partition_name(world, p)}]: negative {what} {r}"
    for index, node in enumerate(state.nodes):
        if world.calculator.any_major_nonpositive(node.free) and world.calculator.less(node.free + node.used, node.free, ZERO):
            return f"{world.nodes[index].name}: negative free {node.free}"
    return None


# -- reservations and containers ------------------------------------------------------------


def one_reservation_per_node(world: World, state: SchedulerState) -> str | None:
    """Every reserved container is the reservation of its node, so a node holds at most one.
    Source: DESIGN.md; Hadoop ``SchedulerNode.reservedContainer`` (one per node)."""
    for c in state.containers:
        if c.state == ContainerState.RESERVED and state.nodes[c.node].reserved != c.cid:
            holder = state.nodes[c.node].reserved
            return f"c{c.cid} is reserved on {world.nodes[c.node].name}, which holds reservation {holder}"
    return None


def reservation_not_allocated(world: World, state: SchedulerState) -> str | None:
    """A node's reservation is a reserved container on that node, never an allocated or
    running one (a reserved container is never also allocated). Source: DESIGN.md; seed 002
    (RESERVED turns into ALLOCATED only by the allocation that ends the reservation)."""
    for index, node in enumerate(state.nodes):
        if node.reserved == NONE:
            continue
        container = state.container(node.reserved)
        if container is None or container.state != ContainerState.RESERVED or container.node != index:
            found = "nothing" if container is None else f"{container.state.name} on {world.nodes[container.node].name}"
            return f"{world.nodes[index].name}: its reservation c{node.reserved} is {found}"
    return None


def container_ids_unique(world: World, state: SchedulerState) -> str | None:
    """Container ids are unique and were all handed out (below the next id). Source:
    DESIGN.md; Hadoop ``ContainerId`` from the attempt's counter."""
    previous = -1
    for c in state.containers:
        if c.cid <= previous:
            return f"container id {c.cid} appears twice"
        if c.cid >= state.next_container:
            return f"container id {c.cid} was never handed out (next id {state.next_container})"
        previous = c.cid
    return None


def containers_belong(world: World, state: SchedulerState) -> str | None:
    """Every tracked container belongs to one running application and sits on one registered
    node, for a request of that application. Source: DESIGN.md ("each live container belongs
    to one app on one node")."""
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


def reservation_references_live_objects(world: World, state: SchedulerState) -> str | None:
    """A reservation references a running application, one of its requests (with that
    request's capability) and a registered node that holds it. Source: YuniKorn
    "reservations reference live objects"; Hadoop ``reservedContainers`` per scheduler key."""
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


def cluster_conservation(world: World, state: SchedulerState) -> str | None:
    """Per partition, the registered nodes' free resource plus what the queues use (root's
    used less its reserved) equals the partition's capacity, always: through allocations,
    completions, kills, releases and lost nodes. Ties the node-side and queue-side counters
    together, so a leak on either side shows. Source: DESIGN.md ("used plus free equals the
    cluster, always"); YARN-8127's leak."""
    for p in range(len(world.partitions)):
        capacity = _sum(world.nodes[n].capacity for n, node in enumerate(state.nodes) if node.live and world.node_partition[n] == p)
        free = _sum(node.free for n, node in enumerate(state.nodes) if node.live and world.node_partition[n] == p)
        used = state.queues[0].used[p] - state.queues[0].reserved[p]
        if free + used != capacity:
            return f"partition {_partition_name(world, p)}: free {free} + used by queues {used} is not its capacity {capacity}"
    return None


# -- steps ----------------------------------------------------------------------------------


def _new_containers(before: SchedulerState, after: SchedulerState) -> list[Container]:
    old = {c.cid for c in before.containers}
    return [c for c in after.containers if c.cid not in old]


def _released_reservations(before: SchedulerState, after: SchedulerState, app: int) -> Resource:
    now = {c.cid for c in after.containers}
    return _sum(c.resource for c in before.containers if c.app == app and c.state == ContainerState.RESERVED and c.cid not in now)


def allocation_within_queue_max(world: World, before: SchedulerState, action: Action, after: SchedulerState) -> str | None:
    """A step that allocates or reserves a new container leaves every queue from its leaf to
    root within its maximum (rounded down to the minimum allocation) in the node's partition;
    without partition exclusivity the limit is the partition. Source: DESIGN.md; Hadoop
    ``AbstractCSQueue.accept`` (``used + allocated - released`` fits the maximum)."""
    new = _new_containers(before, after)
    if not new:
        return None
    view = View(world, before)
    for c in new:
        p = world.node_partition[c.node]
        ignore = world.apps[c.app].requests[c.request].partition != p
        for q in world.ancestors(world.apps[c.app].queue):
            limit = view.partition_resource[p] if ignore else queue_max_down(view, q, p)
            if not world.calculator.fits_in(after.queues[q].used[p], limit):
                return f"c{c.cid} takes {world.queues[q].path} to {after.queues[q].used[p]}, over its maximum {limit}"
    return None


def allocation_within_user_limit(world: World, before: SchedulerState, action: Action, after: SchedulerState) -> str | None:
    """A step that allocates or reserves a new container does so only while the user's used
    (less reservations the step gives up) is at most the user limit, so a user crosses its
    limit by at most that one container. Source: DESIGN.md; Hadoop ``LeafQueue.accept`` and
    ``canAssignToUser`` (``minimum-user-limit-percent``, ``user-limit-factor``)."""
    new = _new_containers(before, after)
    if not new:
        return None
    view = View(world, before)
    for c in new:
        info = world.apps[c.app]
        p = world.node_partition[c.node]
        ignore = info.requests[c.request].partition != p
        limit = user_limit(view, info.queue, p, SchedulingMode.of(ignore))
        used = before.users[info.user].used[p] - _released_reservations(before, after, c.app)
        if world.calculator.greater(view.cluster, used, limit):
            return f"c{c.cid} given to user {world.users[info.user][1]} whose used {used} is over its limit {limit}"
    return None


def activation_within_am_limit(world: World, before: SchedulerState, action: Action, after: SchedulerState) -> str | None:
    """An application is activated only if its queue's AM used then fits the AM limit
    (``maximum-am-resource-percent``), unless it is the queue's only active application (Hadoop
    lets one start so the queue is not stuck). Source: DESIGN.md; Hadoop
    ``LeafQueue.activateApplications``."""
    activated: dict[int, list[int]] = {}
    for i, app in enumerate(after.apps):
        earlier = before.apps[i]
        if app is not None and app.phase == AppPhase.ACTIVE and (earlier is None or earlier.phase == AppPhase.PENDING):
            activated.setdefault(world.apps[i].queue, []).append(i)
    view = View(world, after)
    for leaf, indices in activated.items():
        for index in indices:
            p = world.apps[index].am_partition
            limit = am_limit(view, leaf, p)
            used = after.queues[leaf].am_used[p]
            if world.calculator.fits_in(used, limit):
                continue
            alone = len(indices) == 1 and len(view.active_apps[leaf]) == 1
            if not alone:
                return f"{world.apps[index].name} activated in {world.queues[leaf].path} with AM used {used} over the AM limit {limit}"
    return None


def kill_only_after_wait(world: World, before: SchedulerState, action: Action, after: SchedulerState) -> str | None:
    """The preemption monitor kills a live container only after marking it in an earlier round
    and waiting ``max_wait_before_kill`` (the shorter wait of the selectors in use). Source:
    seed 000 and seed 002 (mark, then kill after 15 s); semantics A.12."""
    config = world.settings.preemption
    if not isinstance(action, Monitor) or config is None:
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
        attempt_failed = not c.is_am and app_after is not None and app_after.am_container != before.apps[c.app].am_container  # type: ignore[union-attr]
        if attempt_failed:
            continue  # killed with its application's AM, not by the policy
        marked = marks.get(c.cid)
        if marked is None or marked + wait > before.clock:
            return f"c{c.cid} killed at {before.clock} ms, marked at {marked} (wait {wait} ms)"
    return None


def _parts(check: Callable[..., object]) -> tuple[str, str]:
    """The summary and source of a predicate, read from its docstring."""
    text = " ".join((check.__doc__ or "").split())
    summary, _, source = text.partition(" Source: ")
    return summary, source.rstrip(".")


#: Every state invariant, in the order they are checked.
STATE_INVARIANTS: tuple[StateInvariant, ...] = tuple(
    StateInvariant(name, *_parts(check), check)
    for name, check in (
        ("node-used-is-sum-of-containers", node_used_is_sum_of_containers),
        ("node-free-plus-used-is-capacity", node_free_plus_used_is_capacity),
        ("node-within-capacity", node_within_capacity),
        ("leaf-is-sum-of-apps", leaf_is_sum_of_apps),
        ("parent-is-sum-of-children", parent_is_sum_of_children),
        ("user-is-sum-of-apps", user_is_sum_of_apps),
        ("am-used-is-sum-of-active-ams", am_used_is_sum_of_active_ams),
        ("app-is-sum-of-containers", app_is_sum_of_containers),
        ("pending-is-sum-of-asks", pending_is_sum_of_asks),
        ("no-negative-usage", no_negative_usage),
        ("one-reservation-per-node", one_reservation_per_node),
        ("reservation-not-allocated", reservation_not_allocated),
        ("container-ids-unique", container_ids_unique),
        ("containers-belong", containers_belong),
        ("reservation-references-live-objects", reservation_references_live_objects),
        ("cluster-conservation", cluster_conservation),
    )
)

#: Every step invariant.
STEP_INVARIANTS: tuple[StepInvariant, ...] = tuple(
    StepInvariant(name, *_parts(check), check)
    for name, check in (
        ("allocation-within-queue-max", allocation_within_queue_max),
        ("allocation-within-user-limit", allocation_within_user_limit),
        ("activation-within-am-limit", activation_within_am_limit),
        ("kill-only-after-wait", kill_only_after_wait),
    )
)


def check_state(world: World, state: SchedulerState) -> list[tuple[str, str]]:
    """``(name, message)`` of every state invariant ``state`` violates."""
    found = []
    for invariant in STATE_INVARIANTS:
        message = invariant.check(world, state)
        if message is not None:
            found.append((invariant.name, message))
    return found


def check_step(world: World, before: SchedulerState, action: Action, after: SchedulerState) -> list[tuple[str, str]]:
    """``(name, message)`` of every step invariant the step violates."""
    found = []
    for invariant in STEP_INVARIANTS:
        message = invariant.check(world, before, action, after)
        if message is not None:
            found.append((invariant.name, message))
    return found
