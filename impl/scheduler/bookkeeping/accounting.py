"""Every change of the stored counters, in one place: :class:`Edit`.

An :class:`Edit` is a working copy of a :class:`SchedulerState` (copied on write), applies
Hadoop's book-keeping steps and freezes a new state. Each step updates exactly the counters Hadoop
updates for it (``SchedulerNode.allocateContainer`` / ``releaseContainer`` /
``reserveResource`` / ``unreserveResource``; the attempt's ``ResourceUsage``;
``AbstractCSQueue.allocateResource`` / ``releaseResource`` up the queue tree, which also charge
the user; ``incPendingResource`` / ``decPendingResource`` for pending), so the effects in
:mod:`.allocate`, :mod:`.async_commit`, :mod:`.environment` and :mod:`.monitor` never touch a
counter directly, and the accounting invariants compare these counters with the containers
and requests they should sum.
"""

from __future__ import annotations

from collections.abc import Sequence

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.state import (
    NONE,
    AppPhase,
    AppState,
    ContainerState,
    NodeState,
    Proposal,
    SchedulerState,
    TrackedContainer,
    Usage,
    zeros,
)
from yarnspec.impl.scheduler.world import World

# The records below are rebuilt directly rather than through ``_replace`` (a dict of keywords
# per call), and the hottest ones with ``_build``: a record is a tuple of its fields in order,
# and building it as one skips the Python ``__new__`` a named tuple's class call runs. The
# tuples must list every field in declaration order (tests/scheduler/test_records.py pins the
# fields of each record these build).
_build = tuple.__new__


def _plus(vector: tuple[Resource, ...], index: int, amount: Resource) -> tuple[Resource, ...]:
    """``vector`` with ``amount`` added to its component ``index``."""
    was = vector[index]
    # The sum of two <memory, vcores> pairs built here rather than by ``Resource.__add__``: one
    # Python call fewer on the model checker's most frequent operation (the same tuple).
    if len(was) == 2 == len(amount):
        now = _build(Resource, (was[0] + amount[0], was[1] + amount[1]))
    else:
        now = was + amount
    if len(vector) == 1:
        return (now,)
    return vector[:index] + (now,) + vector[index + 1 :]


def _add(vector: tuple[Resource, ...], index: int, amount: Resource) -> tuple[Resource, ...]:
    if amount is ZERO:  # nothing to add: keep the tuple (most charges leave one figure alone)
        return vector
    return _plus(vector, index, amount)


def _negated(amount: Resource) -> Resource:
    """``-amount``, and ``ZERO`` itself for ``ZERO`` (which the charges skip)."""
    return amount if amount is ZERO else -amount


def _times(capability: Resource, count: int) -> Resource:
    """``count`` containers of ``capability`` (negative ``count``: as many fewer)."""
    if count == 1:
        return capability
    if count == -1:
        return -capability
    return Resource(tuple(v * count for v in capability))


def _counted(asks: tuple[int, ...], request: int, delta: int) -> tuple[int, ...]:
    """The outstanding counts with ``delta`` more for ``request``."""
    return asks[:request] + (asks[request] + delta,) + asks[request + 1 :]


def _charge_usage(
    usage: Usage, partition: int, used: Resource = ZERO, reserved: Resource = ZERO, pending: Resource = ZERO
) -> Usage:
    """A queue's or user's figures with these amounts added in one partition."""
    # ``is ZERO`` tested here, not in a call: most charges leave two of the three alone.
    was_used, was_reserved, was_pending, am_used = usage
    return _build(
        Usage,
        (
            was_used if used is ZERO else _plus(was_used, partition, used),
            was_reserved if reserved is ZERO else _plus(was_reserved, partition, reserved),
            was_pending if pending is ZERO else _plus(was_pending, partition, pending),
            am_used,
        ),
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
    seq, phase, was_asks, was_used, was_reserved, was_pending, rereservations, was_am = app
    return _build(
        AppState,
        (
            seq,
            phase,
            was_asks if asks is None else asks,
            was_used if used is ZERO else _plus(was_used, partition, used),
            was_reserved if reserved is ZERO else _plus(was_reserved, partition, reserved),
            was_pending if pending is ZERO else _plus(was_pending, partition, pending),
            rereservations,
            was_am if am_container is None else am_container,
        ),
    )


def with_phase(app: AppState, phase: AppPhase) -> AppState:
    """The application in another phase."""
    return AppState(app.seq, phase, app.asks, app.used, app.reserved, app.pending, app.rereservations, app.am_container)


def _with_rereservations(app: AppState, counts: tuple[int, ...]) -> AppState:
    return AppState(app.seq, app.phase, app.asks, app.used, app.reserved, app.pending, counts, app.am_container)


def with_state(container: TrackedContainer, state: ContainerState) -> TrackedContainer:
    """The container in another state."""
    c = container
    return TrackedContainer(c.cid, c.app, c.node, c.request, c.resource, state, c.start)


class Edit:
    """A working copy of a state; :meth:`freeze` gives the new immutable state.

    Copy on write: the per-slot lists (nodes, applications, queues, users) are copied at once
    (they are short), the containers, proposals, marks and killable ids only when an effect
    first reads or changes them; :meth:`freeze` reuses the state's own tuples for whatever was
    never touched, so an action rebuilds only what it changes.
    """

    def __init__(self, world: World, state: SchedulerState) -> None:
        self.world = world
        self.state = state
        self.clock = state.clock
        self.next_container = state.next_container
        self.next_app = state.next_app
        self.nodes = list(state.nodes)
        self.apps = list(state.apps)
        self.queues = list(state.queues)
        self.users = list(state.users)
        self.node_order = state.node_order
        self.sorted_at = state.sorted_at
        self.monitor_at = state.monitor_at
        self._containers: dict[int, TrackedContainer] | None = None
        self._proposals: list[Proposal] | None = None
        self._marks: dict[int, int] | None = None
        self._killable: set[int] | None = None

    @property
    def containers(self) -> dict[int, TrackedContainer]:
        """The tracked containers by id (a working copy, made on first use)."""
        if self._containers is None:
            self._containers = {c.cid: c for c in self.state.containers}
        return self._containers

    @property
    def proposals(self) -> list[Proposal]:
        """The proposals in flight (a working copy, made on first use)."""
        if self._proposals is None:
            self._proposals = list(self.state.proposals)
        return self._proposals

    @proposals.setter
    def proposals(self, value: list[Proposal]) -> None:
        self._proposals = value

    @property
    def marks(self) -> dict[int, int]:
        """The monitor's marks by container id (a working copy, made on first use)."""
        if self._marks is None:
            self._marks = dict(self.state.marks)
        return self._marks

    @marks.setter
    def marks(self, value: dict[int, int]) -> None:
        self._marks = value

    @property
    def killable(self) -> set[int]:
        """The killable container ids (a working copy, made on first use)."""
        if self._killable is None:
            self._killable = set(self.state.killable)
        return self._killable

    def freeze(self) -> SchedulerState:
        """The edited state (containers, proposals and marks in canonical order)."""
        state = self.state
        live = self._containers
        if live is None:
            containers = state.containers
        else:
            containers = tuple(live[cid] for cid in sorted(live))
        proposals = state.proposals if self._proposals is None else tuple(sorted(self._proposals))
        if self._marks is not None:
            marks = tuple(sorted((cid, at) for cid, at in self._marks.items() if live is None or cid in live))
        elif live is None or not state.marks:
            marks = state.marks
        else:
            marks = tuple(mark for mark in state.marks if mark[0] in live)
        if self._killable is not None:
            killable = tuple(sorted(cid for cid in self._killable if live is None or cid in live))
        elif live is None or not state.killable:
            killable = state.killable
        else:
            killable = tuple(cid for cid in state.killable if cid in live)
        return _build(
            SchedulerState,
            (
                self.clock,
                self.next_container,
                self.next_app,
                tuple(self.nodes),
                tuple(self.apps),
                tuple(self.queues),
                tuple(self.users),
                containers,
                proposals,
                marks,
                self.node_order,
                self.sorted_at,
                self.monitor_at,
                killable,
            ),
        )

    # -- reading ----------------------------------------------------------------------------

    def app(self, index: int) -> AppState:
        """A submitted application (``ValueError`` if the slot is empty)."""
        app = self.apps[index]
        if app is None:
            raise ValueError(f"application {index} is not submitted")
        return app

    # -- counters ---------------------------------------------------------------------------

    def _charge_queues(
        self, app: int, partition: int, used: Resource, reserved: Resource = ZERO, pending: Resource = ZERO
    ) -> None:
        """``allocateResource`` / ``releaseResource`` (and reserved, and pending: ``inc`` /
        ``decPendingResource``) from the app's leaf up to root, and the app's user (Hadoop
        charges the user in the leaf's ``allocateResource`` and ``incPendingResource``)."""
        info = self.world.apps[app]
        queues = self.queues
        for queue in self.world.ancestor_chains[info.queue]:
            queues[queue] = _charge_usage(queues[queue], partition, used, reserved, pending)
        users = self.users
        users[info.user] = _charge_usage(users[info.user], partition, used, reserved, pending)

    def change_asks(self, app: int, request: int, delta: int) -> None:
        """The AM asks for ``delta`` more (or fewer) containers of one request: the app's
        outstanding count and pending resource, its user's and every ancestor queue's pending
        in the partition asked for (``incPendingResource`` / ``decPendingResource``)."""
        spec = self.world.apps[app].requests[request]
        state = self.app(app)
        amount = _times(spec.capability, delta)
        self.apps[app] = _charge_app(state, spec.partition, pending=amount, asks=_counted(state.asks, request, delta))
        self._charge_queues(app, spec.partition, ZERO, pending=amount)

    def change_am_used(self, app: int, sign: int) -> None:
        """Activation (``+1``) or removal (``-1``) of an application: its AM resource is added
        to or taken from its leaf's and its user's AM used, in its AM partition."""
        info = self.world.apps[app]
        am = info.requests[0].capability
        amount = am if sign > 0 else -am
        q = self.queues[info.queue]
        self.queues[info.queue] = Usage(q.used, q.reserved, q.pending, _add(q.am_used, info.am_partition, amount))
        u = self.users[info.user]
        self.users[info.user] = Usage(u.used, u.reserved, u.pending, _add(u.am_used, info.am_partition, amount))

    def _node_allocate(self, node: int, resource: Resource) -> None:
        live, used, free, reserved = self.nodes[node]
        self.nodes[node] = _build(NodeState, (live, used + resource, free - resource, reserved))

    def _node_release(self, node: int, resource: Resource) -> None:
        live, used, free, reserved = self.nodes[node]
        self.nodes[node] = _build(NodeState, (live, used - resource, free + resource, reserved))

    def _unmark(self, cid: int) -> None:
        """The container's mark (if any) is forgotten (its id may come back: an allocation
        from a reservation keeps the reservation's id)."""
        self.marks.pop(cid, None)

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
        capability = spec.capability
        self._node_allocate(node, capability)
        state = self.app(app)
        am_container = cid if request == 0 else None
        if spec.partition == partition:  # the ask's partition: one charge of each record for both
            # :meth:`change_asks` for one container fewer, charged with the allocation itself
            taken = -capability
            asks = _counted(state.asks, request, -1)
            self.apps[app] = _charge_app(
                state, partition, used=capability, pending=taken, asks=asks, am_container=am_container
            )
            self._charge_queues(app, partition, capability if charge_queue else ZERO, pending=taken)
        else:
            self.apps[app] = _charge_app(state, partition, used=capability, am_container=am_container)
            self.change_asks(app, request, -1)
            if charge_queue:
                self._charge_queues(app, partition, capability)
        self.containers[cid] = TrackedContainer(
            cid, app, node, request, capability, ContainerState.ALLOCATED, self.clock
        )

    def reserve(self, app: int, request: int, node: int) -> int:
        """A new reservation on a node (``SchedulerApplicationAttempt.reserve`` and
        ``SchedulerNode.reserveResource``): the app's reserved, and the queues' and user's used
        and reserved (Hadoop counts reserved resource as used). Returns the container id."""
        spec = self.world.apps[app].requests[request]
        partition = self.world.node_partition[node]
        cid = self.new_container_id()
        n = self.nodes[node]
        self.nodes[node] = NodeState(n.live, n.used, n.free, cid)
        state = self.app(app)
        self.apps[app] = _charge_app(state, partition, reserved=spec.capability)
        self._charge_queues(app, partition, spec.capability, spec.capability)
        self.containers[cid] = TrackedContainer(
            cid, app, node, request, spec.capability, ContainerState.RESERVED, self.clock
        )
        return cid

    def drop_reservation(self, cid: int, release_queue: bool = True) -> TrackedContainer:
        """A reservation ends (``FiCaSchedulerApp.unreserve``): the node is no longer reserved,
        the app's, the queues' and the user's reserved go down, and, unless the reservation
        becomes an allocation (``release_queue`` false), their used too; the key's
        re-reservation count is reset."""
        container = self.containers.pop(cid)
        node = self.nodes[container.node]
        if node.reserved == cid:
            self.nodes[container.node] = NodeState(node.live, node.used, node.free, NONE)
        partition = self.world.node_partition[container.node]
        state = self.app(container.app)
        released = -container.resource
        self.apps[container.app] = _charge_app(state, partition, reserved=released)
        self._charge_queues(container.app, partition, released if release_queue else ZERO, released)
        if self._marks is not None or self.state.marks:
            self._unmark(cid)
        self.reset_rereservations(container.app, container.request)
        return container

    def end_container(self, cid: int) -> TrackedContainer:
        """A live container ends, however (completed, killed, released, lost): its resource
        returns to the node, the app, the user and the queues (``completedContainer``)."""
        # :meth:`_give_back` for one container without its sums (the most frequent ending).
        container = self.containers.pop(cid)
        app, node, resource = container.app, container.node, container.resource
        self._node_release(node, resource)
        partition = self.world.node_partition[node]
        state = self.app(app)
        released = -resource
        self.apps[app] = _charge_app(
            state, partition, used=released, am_container=NONE if cid == state.am_container else None
        )
        self._charge_queues(app, partition, released)
        if self._marks is not None or self.state.marks:
            self._unmark(cid)
        return container

    def end_containers(self, app: int, cids: Sequence[int]) -> list[TrackedContainer]:
        """Live containers of one application end together: :meth:`end_container` for each,
        with every counter charged once with their sum (the same figures, fewer records)."""
        ended = [self.containers.pop(cid) for cid in cids]
        self._give_back(app, ended, (), withdraw=False)
        return ended

    def drop_app(self, app: int) -> None:
        """Everything the application holds or asks for is given back (its attempt ends): its
        reservations are dropped (:meth:`drop_reservation`), its live containers end
        (:meth:`end_containers`) and its outstanding asks are withdrawn (:meth:`change_asks`),
        with every counter charged once per partition with the sum (the same figures, fewer
        records)."""
        containers = self.containers
        live: list[TrackedContainer] = []
        reservations: list[TrackedContainer] = []
        for cid in [cid for cid, container in containers.items() if container.app == app]:
            container = containers.pop(cid)
            (reservations if container.state == ContainerState.RESERVED else live).append(container)
        self._give_back(app, live, reservations, withdraw=True)

    def _give_back(
        self, app: int, live: Sequence[TrackedContainer], reservations: Sequence[TrackedContainer], withdraw: bool
    ) -> None:
        """The counters' side of :meth:`end_containers` (``live``, already untracked) and of
        :meth:`drop_app` (also its untracked ``reservations`` and, if ``withdraw``, every
        outstanding ask). Integer sums do not depend on their grouping, so each counter takes
        one charge per partition: the figures of charging container by container."""
        world = self.world
        partition_of = world.node_partition
        nodes = self.nodes
        seq, phase, asks, app_used, app_reserved, app_pending, rereservations, am_container = self.app(app)
        # What goes back, per partition (ZERO: nothing); lists, as worlds have a partition or two.
        used = [ZERO] * len(app_used)
        reserved = list(used)
        pending = list(used)
        for container in live:
            resource, node = container.resource, container.node
            n_live, n_used, n_free, n_reserved = nodes[node]
            nodes[node] = _build(NodeState, (n_live, n_used - resource, n_free + resource, n_reserved))
            partition = partition_of[node]
            used[partition] = resource if used[partition] is ZERO else used[partition] + resource
            if container.cid == am_container:
                am_container = NONE
        for container in reservations:
            resource, node = container.resource, container.node
            n_live, n_used, n_free, n_reserved = nodes[node]
            if n_reserved == container.cid:
                nodes[node] = _build(NodeState, (n_live, n_used, n_free, NONE))
            partition = partition_of[node]
            reserved[partition] = resource if reserved[partition] is ZERO else reserved[partition] + resource
            key = world.apps[app].requests[container.request].key
            if rereservations[key]:  # ``resetReReservations``
                rereservations = rereservations[:key] + (0,) + rereservations[key + 1 :]
        if withdraw and any(asks):
            for spec, count in zip(world.apps[app].requests, asks):
                if count:
                    asked = _times(spec.capability, count)
                    partition = spec.partition
                    pending[partition] = asked if pending[partition] is ZERO else pending[partition] + asked
            asks = (0,) * len(asks)
        for partition, (used_back, reserved_back, pending_back) in enumerate(zip(used, reserved, pending)):
            if used_back is ZERO and reserved_back is ZERO and pending_back is ZERO:
                continue
            used_back, reserved_back, pending_back = (
                _negated(used_back),
                _negated(reserved_back),
                _negated(pending_back),
            )
            if used_back is not ZERO:
                app_used = _plus(app_used, partition, used_back)
            if reserved_back is not ZERO:
                app_reserved = _plus(app_reserved, partition, reserved_back)
                # A queue's and a user's used count reserved resource too.
                used_back = reserved_back if used_back is ZERO else used_back + reserved_back
            if pending_back is not ZERO:
                app_pending = _plus(app_pending, partition, pending_back)
            self._charge_queues(app, partition, used_back, reserved_back, pending_back)
        self.apps[app] = _build(
            AppState, (seq, phase, asks, app_used, app_reserved, app_pending, rereservations, am_container)
        )
        if self._marks is not None or self.state.marks:
            for container in (*live, *reservations):
                self._unmark(container.cid)

    def bump_rereservation(self, app: int, request: int) -> None:
        """``addReReservation``: one more re-reservation for the request's scheduler key
        (saturating at the world's bound)."""
        state = self.app(app)
        key = self.world.apps[app].requests[request].key
        count = min(state.rereservations[key] + 1, self.world.bounds.max_rereservations)
        counts = state.rereservations[:key] + (count,) + state.rereservations[key + 1 :]
        self.apps[app] = _with_rereservations(state, counts)

    def reset_rereservations(self, app: int, request: int) -> None:
        """``resetReReservations``: Hadoop resets a key's count whenever one of its
        reservations ends."""
        state = self.app(app)
        key = self.world.apps[app].requests[request].key
        if state.rereservations[key]:
            counts = state.rereservations[:key] + (0,) + state.rereservations[key + 1 :]
            self.apps[app] = _with_rereservations(state, counts)

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

    def containers_of_app(self, app: int) -> list[TrackedContainer]:
        """The app's tracked containers, in id order."""
        return [c for cid, c in sorted(self.containers.items()) if c.app == app]

    def containers_on_node(self, node: int) -> list[TrackedContainer]:
        """The node's tracked containers (its reservation included), in id order."""
        return [c for cid, c in sorted(self.containers.items()) if c.node == node]

    def set_node(self, node: int, state: NodeState) -> None:
        """Replace a node slot's state."""
        self.nodes[node] = state
