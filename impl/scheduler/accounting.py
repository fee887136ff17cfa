"""Every change of the stored counters, in one place: :class:`Edit`.

An :class:`Edit` copies the parts of a :class:`SchedulerState` into lists, applies Hadoop's
book-keeping steps and freezes a new state. Each step updates exactly the counters Hadoop
updates for it (``SchedulerNode.allocateContainer`` / ``releaseContainer`` /
``reserveResource`` / ``unreserveResource``; the attempt's ``ResourceUsage``;
``AbstractCSQueue.allocateResource`` / ``releaseResource`` up the queue tree, which also charge
the user; ``incPendingResource`` / ``decPendingResource`` for pending), so the effects in
:mod:`.allocate`, :mod:`.async_commit`, :mod:`.environment` and :mod:`.monitor` never touch a
counter directly, and the accounting invariants compare these counters with the containers
and requests they should sum.
"""

from __future__ import annotations

from dataclasses import replace

from ..resources import ZERO, Resource
from .state import (
    NONE,
    AppPhase,
    AppState,
    Container,
    ContainerState,
    NodeState,
    Proposal,
    SchedulerState,
    Usage,
    zeros,
)
from .world import World


def _add(vector: tuple[Resource, ...], index: int, amount: Resource) -> tuple[Resource, ...]:
    if amount is ZERO:  # nothing to add: keep the tuple (most charges leave one figure alone)
        return vector
    return vector[:index] + (vector[index] + amount,) + vector[index + 1 :]


# The records below are rebuilt directly rather than through ``dataclasses.replace``: these are
# the explorer's hottest allocations, and ``replace`` inspects the fields on every call.


def _charge_usage(
    usage: Usage, partition: int, used: Resource = ZERO, reserved: Resource = ZERO, pending: Resource = ZERO
) -> Usage:
    """A queue's or user's figures with these amounts added in one partition."""
    return Usage(
        _add(usage.used, partition, used),
        _add(usage.reserved, partition, reserved),
        _add(usage.pending, partition, pending),
        usage.am_used,
    )


def _charge_app(
    app: AppState,
    partition: int,
    used: Resource = ZERO,
    reserved: Resource = ZERO,
    pending: Resource = ZERO,
    asks: tuple[int, ...] | None = None,
    am_container: int | None = None,
) -> AppState:
    """An application's figures with these amounts added in one partition (and, when given,
    new outstanding counts or AM container)."""
    return AppState(
        app.seq,
        app.phase,
        app.asks if asks is None else asks,
        _add(app.used, partition, used),
        _add(app.reserved, partition, reserved),
        _add(app.pending, partition, pending),
        app.rereservations,
        app.am_container if am_container is None else am_container,
    )


class Edit:
    """A mutable working copy of a state; :meth:`freeze` gives the new immutable state."""

    def __init__(self, world: World, state: SchedulerState) -> None:
        self.world = world
        self.clock = state.clock
        self.next_container = state.next_container
        self.next_app = state.next_app
        self.nodes = list(state.nodes)
        self.apps = list(state.apps)
        self.queues = list(state.queues)
        self.users = list(state.users)
        self.containers = {c.cid: c for c in state.containers}
        self.proposals = list(state.proposals)
        self.marks = dict(state.marks)
        self.node_order = state.node_order
        self.sorted_at = state.sorted_at
        self.monitor_at = state.monitor_at
        self.killable = set(state.killable)

    def freeze(self) -> SchedulerState:
        """The edited state (containers, proposals and marks in canonical order)."""
        live = self.containers
        return SchedulerState(
            clock=self.clock,
            next_container=self.next_container,
            next_app=self.next_app,
            nodes=tuple(self.nodes),
            apps=tuple(self.apps),
            queues=tuple(self.queues),
            users=tuple(self.users),
            containers=tuple(live[cid] for cid in sorted(live)),
            proposals=tuple(sorted(self.proposals)),
            marks=tuple(sorted((cid, at) for cid, at in self.marks.items() if cid in live)),
            node_order=self.node_order,
            sorted_at=self.sorted_at,
            monitor_at=self.monitor_at,
            killable=tuple(sorted(cid for cid in self.killable if cid in live)),
        )

    # -- reading ----------------------------------------------------------------------------

    def app(self, index: int) -> AppState:
        """A submitted application (``ValueError`` if the slot is empty)."""
        app = self.apps[index]
        if app is None:
            raise ValueError(f"application {index} is not submitted")
        return app

    # -- counters ---------------------------------------------------------------------------

    def _charge_queues(self, app: int, partition: int, used: Resource, reserved: Resource = ZERO) -> None:
        """``allocateResource`` / ``releaseResource`` (and reserved) from the app's leaf up to
        root, and the app's user (Hadoop charges the user in the leaf's ``allocateResource``)."""
        info = self.world.apps[app]
        for queue in self.world.ancestors(info.queue):
            self.queues[queue] = _charge_usage(self.queues[queue], partition, used, reserved)
        self.users[info.user] = _charge_usage(self.users[info.user], partition, used, reserved)

    def change_asks(self, app: int, request: int, delta: int) -> None:
        """The AM asks for ``delta`` more (or fewer) containers of one request: the app's
        outstanding count and pending resource, its user's and every ancestor queue's pending
        in the partition asked for (``incPendingResource`` / ``decPendingResource``)."""
        info = self.world.apps[app]
        spec = info.requests[request]
        state = self.app(app)
        amount = Resource(tuple(v * delta for v in spec.capability.values))
        asks = state.asks[:request] + (state.asks[request] + delta,) + state.asks[request + 1 :]
        self.apps[app] = _charge_app(state, spec.partition, pending=amount, asks=asks)
        for queue in self.world.ancestors(info.queue):
            self.queues[queue] = _charge_usage(self.queues[queue], spec.partition, pending=amount)
        self.users[info.user] = _charge_usage(self.users[info.user], spec.partition, pending=amount)

    def change_am_used(self, app: int, sign: int) -> None:
        """Activation (``+1``) or removal (``-1``) of an application: its AM resource is added
        to or taken from its leaf's and its user's AM used, in its AM partition."""
        info = self.world.apps[app]
        am = info.requests[0].capability
        amount = am if sign > 0 else -am
        q = self.queues[info.queue]
        self.queues[info.queue] = replace(q, am_used=_add(q.am_used, info.am_partition, amount))
        u = self.users[info.user]
        self.users[info.user] = replace(u, am_used=_add(u.am_used, info.am_partition, amount))

    def _node_allocate(self, node: int, resource: Resource) -> None:
        n = self.nodes[node]
        self.nodes[node] = NodeState(n.live, n.used + resource, n.free - resource, n.reserved)

    def _node_release(self, node: int, resource: Resource) -> None:
        n = self.nodes[node]
        self.nodes[node] = NodeState(n.live, n.used - resource, n.free + resource, n.reserved)

    def new_container_id(self) -> int:
        """The next container id (ids are never reused)."""
        cid = self.next_container
        self.next_container += 1
        return cid

    # -- container life ---------------------------------------------------------------------

    def allocate(self, app: int, request: int, node: int, cid: int, charge_queue: bool = True) -> None:
        """A container is allocated on a node (``FiCaSchedulerApp.apply`` for an allocation):
        the node, the app's used, one outstanding ask; the queues and user unless
        ``charge_queue`` is false (Hadoop skips them for an allocation from a reservation,
        whose resource the queue already counts)."""
        spec = self.world.apps[app].requests[request]
        partition = self.world.node_partition[node]
        self._node_allocate(node, spec.capability)
        state = self.app(app)
        self.apps[app] = _charge_app(state, partition, used=spec.capability, am_container=cid if request == 0 else None)
        self.change_asks(app, request, -1)
        if charge_queue:
            self._charge_queues(app, partition, spec.capability)
        self.containers[cid] = Container(cid, app, node, request, spec.capability, ContainerState.ALLOCATED, self.clock)

    def reserve(self, app: int, request: int, node: int) -> int:
        """A new reservation on a node (``SchedulerApplicationAttempt.reserve`` and
        ``SchedulerNode.reserveResource``): the app's reserved, and the queues' and user's used
        and reserved (Hadoop counts reserved resource as used). Returns the container id."""
        spec = self.world.apps[app].requests[request]
        partition = self.world.node_partition[node]
        cid = self.new_container_id()
        self.nodes[node] = replace(self.nodes[node], reserved=cid)
        state = self.app(app)
        self.apps[app] = _charge_app(state, partition, reserved=spec.capability)
        self._charge_queues(app, partition, spec.capability, spec.capability)
        self.containers[cid] = Container(cid, app, node, request, spec.capability, ContainerState.RESERVED, self.clock)
        return cid

    def drop_reservation(self, cid: int, release_queue: bool = True) -> Container:
        """A reservation ends (``FiCaSchedulerApp.unreserve``): the node is no longer reserved,
        the app's, the queues' and the user's reserved go down, and, unless the reservation
        becomes an allocation (``release_queue`` false), their used too; the key's
        re-reservation count is reset."""
        container = self.containers.pop(cid)
        node = self.nodes[container.node]
        if node.reserved == cid:
            self.nodes[container.node] = replace(node, reserved=NONE)
        partition = self.world.node_partition[container.node]
        state = self.app(container.app)
        released = -container.resource
        self.apps[container.app] = _charge_app(state, partition, reserved=released)
        self._charge_queues(container.app, partition, released if release_queue else ZERO, released)
        self.marks.pop(cid, None)
        self.reset_rereservations(container.app, container.request)
        return container

    def end_container(self, cid: int) -> Container:
        """A live container ends, however (completed, killed, released, lost): its resource
        returns to the node, the app, the user and the queues (``completedContainer``)."""
        container = self.containers.pop(cid)
        partition = self.world.node_partition[container.node]
        self._node_release(container.node, container.resource)
        state = self.app(container.app)
        released = -container.resource
        self.apps[container.app] = _charge_app(
            state, partition, used=released, am_container=NONE if state.am_container == cid else None
        )
        self._charge_queues(container.app, partition, released)
        self.marks.pop(cid, None)
        return container

    def bump_rereservation(self, app: int, request: int) -> None:
        """``addReReservation``: one more re-reservation for the request's scheduler key
        (saturating at the world's bound)."""
        state = self.app(app)
        key = self.world.apps[app].requests[request].key
        count = min(state.rereservations[key] + 1, self.world.bounds.max_rereservations)
        counts = state.rereservations[:key] + (count,) + state.rereservations[key + 1 :]
        self.apps[app] = replace(state, rereservations=counts)

    def reset_rereservations(self, app: int, request: int) -> None:
        """``resetReReservations``: Hadoop resets a key's count whenever one of its
        reservations ends."""
        state = self.app(app)
        key = self.world.apps[app].requests[request].key
        if state.rereservations[key]:
            counts = state.rereservations[:key] + (0,) + state.rereservations[key + 1 :]
            self.apps[app] = replace(state, rereservations=counts)

    # -- applications and nodes -------------------------------------------------------------

    def new_app(self, app: int) -> None:
        """A submitted application: waiting for its AM, not yet activated, asking for nothing
        (the AM request is added by the caller)."""
        info = self.world.apps[app]
        z = zeros(self.world)
        self.apps[app] = AppState(
            seq=self.next_app,
            phase=AppPhase.PENDING,
            asks=(0,) * len(info.requests),
            used=z,
            reserved=z,
            pending=z,
            rereservations=(0,) * len(info.keys),
        )
        self.next_app += 1

    def containers_of_app(self, app: int) -> list[Container]:
        """The app's tracked containers, in id order."""
        return [c for cid, c in sorted(self.containers.items()) if c.app == app]

    def containers_on_node(self, node: int) -> list[Container]:
        """The node's tracked containers (its reservation included), in id order."""
        return [c for cid, c in sorted(self.containers.items()) if c.node == node]

    def set_node(self, node: int, state: NodeState) -> None:
        """Replace a node slot's state."""
        self.nodes[node] = state

    def drop_proposals(self, keep: list[Proposal]) -> None:
        """Keep only these proposals in flight."""
        self.proposals = keep
