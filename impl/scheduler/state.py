"""The dynamic state of the scheduler model: immutable, hashable, compact.

Every record is a :class:`~typing.NamedTuple` (fields by name, properties and methods, but a
tuple underneath), indexed as the :class:`World` indexes its partitions, nodes, queues, users,
applications and requests. The explorer builds a state per transition, hashes it and compares
it with the equal state it has usually seen already: as tuples, records are built, hashed and
compared in C (a frozen dataclass costs about three times as much for each), and a record's
hash is the hash of its fields, as the dataclass's was. Change a record with ``_replace``. As
tuples, records of different types with equal fields would compare equal: a collection never
mixes record types. Usage counters are STORED and
updated by the effects (:mod:`.accounting`), as Hadoop keeps them (``SchedulerNode``'s
allocated and unallocated resource, ``ResourceUsage`` of queues, users and application
attempts), never recomputed from the containers: the accounting invariants compare the two.

Containers the scheduler tracks are live (``ALLOCATED``, ``RUNNING``) or reserved
(``RESERVED``). A container that ends (``COMPLETED``, ``KILLED``, ``RELEASED``, ``LOST``)
leaves the state, as the scheduler forgets it; the action that ended it names the end state.
Ids are never reused, so forgetting one loses nothing the scheduler reads.
"""

from __future__ import annotations

import enum
from bisect import bisect_left
from operator import attrgetter
from typing import NamedTuple

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.world import World, partition_resources

NONE = -1


class ContainerState(enum.IntEnum):
    """Hadoop's ``RMContainerState`` as far as the scheduler sees it."""

    RESERVED = 0
    ALLOCATED = 1
    RUNNING = 2
    COMPLETED = 3
    KILLED = 4
    RELEASED = 5
    LOST = 6

    @property
    def live(self) -> bool:
        """Allocated or running (holding node resource)."""
        return self in (ContainerState.ALLOCATED, ContainerState.RUNNING)


class TrackedContainer(NamedTuple):
    """A container: id, owning application, node, the request it was made for (``0`` is the
    AM request), its resource, its state, and the logical time it was allocated or reserved."""

    cid: int
    app: int
    node: int
    request: int
    resource: Resource
    state: ContainerState
    start: int

    @property
    def is_am(self) -> bool:
        """Whether this is the application's master container."""
        return self.request == 0

    @property
    def live(self) -> bool:
        """Allocated or running."""
        return self.state.live


class NodeState(NamedTuple):
    """A node slot: ``used`` and ``free`` are Hadoop's allocated and unallocated resource
    (both stored); ``reserved`` the id of its reserved container or ``NONE``."""

    live: bool
    used: Resource
    free: Resource
    reserved: int = NONE


class AppPhase(enum.IntEnum):
    """An application's phase: submitted but not activated (the AM limit holds it back),
    active (schedulable), or finished."""

    PENDING = 0
    ACTIVE = 1
    FINISHED = 2


class AppState(NamedTuple):
    """A submitted application attempt.

    ``seq``: submission order. ``asks``: outstanding containers per request of the app
    (``asks[0]`` is the AM request). ``used``, ``reserved``, ``pending``: stored per partition
    (used by the partition of the node, pending by the partition asked for).
    ``rereservations``: per scheduler key, the re-reservation count of seed 002's rule.
    ``am_container``: the id of the live AM container or ``NONE`` (waiting for its AM).
    """

    seq: int
    phase: AppPhase
    asks: tuple[int, ...]
    used: tuple[Resource, ...]
    reserved: tuple[Resource, ...]
    pending: tuple[Resource, ...]
    rereservations: tuple[int, ...]
    am_container: int = NONE

    @property
    def live(self) -> bool:
        """Submitted and not finished."""
        return self.phase != AppPhase.FINISHED


class Usage(NamedTuple):
    """Stored per-partition figures of a queue or a user: ``used`` (reserved included, as Hadoop
    counts a queue's and a user's used), ``reserved``, ``pending`` and ``am_used`` (the AM
    resource of activated applications)."""

    used: tuple[Resource, ...]
    reserved: tuple[Resource, ...]
    pending: tuple[Resource, ...]
    am_used: tuple[Resource, ...]


class ProposalKind(enum.IntEnum):
    """What a proposal asks the commit step to do."""

    ALLOCATE = 0
    RESERVE = 1
    RERESERVE = 2
    UNRESERVE = 3


class Proposal(NamedTuple):
    """A ``ResourceCommitRequest`` computed from the state it read.

    ``from_reserved``: the reserved container this allocation, re-reservation or unreserve
    comes from (``NONE`` for a new container). ``release``: another reservation of the app
    given up with this allocation (reservations-continue-looking). ``ignore_exclusivity``: the
    allocation uses a non-exclusive partition for a request without that label. ``kill``:
    killable containers the allocation kills to make room (lazy preemption).
    """

    kind: ProposalKind
    app: int
    request: int
    node: int
    from_reserved: int = NONE
    release: int = NONE
    ignore_exclusivity: bool = False
    kill: tuple[int, ...] = ()


class SchedulerState(NamedTuple):
    """The whole dynamic state (see the module docstring).

    ``containers`` are sorted by id; ``proposals`` are the asynchronous proposals in flight
    (sorted: a multiset); ``marks`` the preemption monitor's memory ``(container id, time
    marked)``; ``node_order`` per partition the multi-node sorter's cached order, computed at
    ``sorted_at`` (``NONE``: never); ``monitor_at`` the last monitor round; ``killable`` the
    live containers made killable under lazy preemption (sorted ids, :mod:`.killable`).
    """

    clock: int
    next_container: int
    next_app: int
    nodes: tuple[NodeState, ...]
    apps: tuple[AppState | None, ...]
    queues: tuple[Usage, ...]
    users: tuple[Usage, ...]
    containers: tuple[TrackedContainer, ...]
    proposals: tuple[Proposal, ...] = ()
    marks: tuple[tuple[int, int], ...] = ()
    node_order: tuple[tuple[int, ...], ...] = ()
    sorted_at: int = NONE
    monitor_at: int = NONE
    killable: tuple[int, ...] = ()

    def container(self, cid: int) -> TrackedContainer | None:
        """The tracked container with this id, or ``None``."""
        containers = self.containers
        i = bisect_left(containers, cid, key=_CID)
        if i < len(containers) and containers[i].cid == cid:
            return containers[i]
        return None

    def live_nodes(self) -> tuple[bool, ...]:
        """Per node slot, whether it is registered."""
        return tuple(n.live for n in self.nodes)


#: A container's id, as a C-level key for the bisection in :meth:`SchedulerState.container`.
_CID = attrgetter("cid")


def zeros(world: World) -> tuple[Resource, ...]:
    """A zero resource per partition."""
    return (ZERO,) * len(world.partitions)


def empty_usage(world: World) -> Usage:
    """A queue's or user's figures before anything happened."""
    z = zeros(world)
    return Usage(z, z, z, z)


def initial_state(world: World) -> SchedulerState:
    """The state before anything happens: the initially live nodes empty, no application
    submitted, the clock at 0."""
    nodes = tuple(NodeState(spec.live, ZERO, spec.capacity if spec.live else ZERO) for spec in world.nodes)
    return SchedulerState(
        clock=0,
        next_container=0,
        next_app=0,
        nodes=nodes,
        apps=(None,) * len(world.apps),
        queues=(empty_usage(world),) * len(world.queues),
        users=(empty_usage(world),) * len(world.users),
        containers=(),
        node_order=tuple(() for _ in world.partitions),
    )


def live_partition_resources(world: World, state: SchedulerState) -> tuple[Resource, ...]:
    """Per partition, the capacity of the live nodes (the partition's resource in Hadoop)."""
    return partition_resources(world, state.live_nodes())
