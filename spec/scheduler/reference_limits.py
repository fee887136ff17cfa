"""The scheduler's limits as the invariants' own reference: written from Hadoop's rules, not
taken from :mod:`yarnspec.impl.scheduler.allocation.limits`.

An invariant that asked the implementation for the user limit it checks could never see a
bug in that limit; these functions recompute the three limits the step invariants check
(queue maximum, user limit, AM limit) from the state, the world's configuration and the
calculator's comparisons only. What they share with the implementation is the input: the
queues' guaranteed and maximum resources at a cluster size (``World.capacities``, the
configuration's meaning, semantics A.2) and the calculator (``ResourceCalculator``: Hadoop's
comparison rules). ``tests/scheduler/test_reference_limits.py`` checks that both agree on
generated states and that a bug planted in the implementation's user limit is now caught.

Rounding follows Hadoop's ``Resources``: the default calculator rounds memory and sets vcores
to 1 when memory is positive, DRF rounds every type.

:class:`ReferenceLimits` remembers the queue maximum and user limit by the records they read (a step
invariant asks for them after every allocating step, and few distinct inputs recur: 28 among
the 4,530 allocations of ``async-double-commit``); a model owns one, as it owns its other
caches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable

from yarnspec.impl.resources import ZERO, Resource, f32, java_long
from yarnspec.impl.scheduler.bookkeeping.memo import BoundedTable
from yarnspec.impl.scheduler.state import AppPhase, SchedulerState
from yarnspec.impl.scheduler.world import World


def _ceil_to(value: int, step: int) -> int:
    return -(-value // step) * step if step else value


def _floor_to(value: int, step: int) -> int:
    return (value // step) * step if step else value


def _memory_only(memory: int) -> Resource:
    """A default-calculator result: vcores are 1 when memory is positive, as Hadoop's
    ``DefaultResourceCalculator`` normalises."""
    return Resource((memory, 1 if memory > 0 else 0))


def _round(world: World, r: Resource, up: bool) -> Resource:
    """``Resources.roundUp`` / ``roundDown`` to the minimum allocation."""
    step = world.settings.minimum_allocation
    to = _ceil_to if up else _floor_to
    if world.calculator.name == "default":
        return _memory_only(to(r.values[0], step.values[0]))
    return Resource(tuple(to(v, step.get(i)) for i, v in enumerate(r.values)))


def partition_capacity(world: World, state: SchedulerState, partition: int) -> Resource:
    """The partition's resource: the capacity of its registered nodes."""
    total = ZERO
    for index, node in enumerate(state.nodes):
        if node.live and world.node_partition[index] == partition:
            total = total + world.nodes[index].capacity
    return total


def _partition_capacities(world: World, state: SchedulerState) -> tuple[Resource, ...]:
    return tuple(partition_capacity(world, state, p) for p in range(len(world.partitions)))


def _cluster(partitions: tuple[Resource, ...]) -> Resource:
    total = ZERO
    for r in partitions:
        total = total + r
    return total


def queue_maximum(world: World, state: SchedulerState, queue: int, partition: int) -> Resource:
    """``getEffectiveMaxCapacityDown``: the queue's maximum resource in the partition at the
    current cluster size, rounded down to the minimum allocation."""
    maximum = world.capacities(_partition_capacities(world, state))[queue].maximum[partition]
    return _round(world, maximum, up=False)


def user_limit(world: World, state: SchedulerState, leaf: int, partition: int, ignore_exclusivity: bool) -> Resource:
    """``UsersManager.computeUserLimit`` for an active user (every user weighs 1):

    capacity = max(guarantee, minimum allocation); consumed = the users' summed usage ratio of
    the partition times the partition, normalised up; current = capacity while consumed is
    below it, else consumed plus a minimum allocation; limit = max(ceil((active users' used +
    minimum) / active users), ceil(current x minimum-user-limit-percent / 100)), capped by the
    partition and by the user's maximum (the partition without exclusivity; the queue maximum
    rounded down when user-limit-factor is -1 or the guarantee is zero; else capacity x
    user-limit-factor), rounded up to the minimum allocation.
    """
    calc = world.calculator
    minimum = world.settings.minimum_allocation
    partitions = _partition_capacities(world, state)
    whole = partitions[partition]
    capacities = world.capacities(partitions)[leaf]
    guarantee = capacities.guaranteed[partition]
    capacity = calc.max(whole, guarantee, minimum)
    with_apps, asking = _users_of(world, state, leaf)
    ratio = 0.0
    for user in sorted(with_apps):
        ratio = f32(ratio + calc.ratio(state.users[user].used[partition], whole))
    consumed = _normalize_up(world, whole, ratio)
    current = capacity if calc.less(whole, consumed, capacity) else consumed + minimum
    used = minimum
    for user in sorted(asking):
        used = used + state.users[user].used[partition]
    config = world.queues[leaf].config
    by_users = _divide_ceil(world, used, len(asking))
    by_percent = _divide_ceil(world, _times_floor(current, config.minimum_user_limit_percent), 100)
    limit = calc.max(whole, by_users, by_percent)
    if ignore_exclusivity:
        user_maximum = whole
    elif config.user_limit_factor == -1 or guarantee.is_zero():
        user_maximum = _round(world, capacities.maximum[partition], up=False)
    else:
        user_maximum = _times_floor(capacity, config.user_limit_factor)
    return _round(world, calc.min(whole, limit, user_maximum), up=True)


def _users_of(world: World, state: SchedulerState, leaf: int) -> tuple[set[int], set[int]]:
    """The leaf's users with a live application, and those among them asking for something
    (Hadoop's active users)."""
    with_apps: set[int] = set()
    asking: set[int] = set()
    for index, app in enumerate(state.apps):
        if app is None or app.phase == AppPhase.FINISHED or world.apps[index].queue != leaf:
            continue
        user = world.apps[index].user
        with_apps.add(user)
        if any(count > 0 for count in app.asks):
            asking.add(user)
    return with_apps, asking


def _normalize_up(world: World, r: Resource, by: float) -> Resource:
    """``multiplyAndNormalizeUp``: default ``(long)(memory x by + 0.5)``; DRF ``ceil(v x by)``
    per type; rounded up to the minimum allocation."""
    step = world.settings.minimum_allocation
    if world.calculator.name == "default":
        return _memory_only(_ceil_to(java_long(r.values[0] * by + 0.5), step.values[0]))
    return Resource(tuple(_ceil_to(_java_ceil(v * by), step.get(i)) for i, v in enumerate(r.values)))


def _java_ceil(value: float) -> int:
    return java_long(value if value != value or math.isinf(value) else float(math.ceil(value)))


def _divide_ceil(world: World, r: Resource, by: float) -> Resource:
    """``divideAndCeil``: ``ceil(v / by)``, 0 when ``by`` is 0."""

    def one(v: int) -> int:
        return _java_ceil(v / by) if by else 0

    if world.calculator.name == "default":
        return _memory_only(one(r.values[0]))
    return Resource(tuple(one(v) for v in r.values))


def _times_floor(r: Resource, by: float) -> Resource:
    """``multiplyAndRoundDown``: ``(long)(v x by)`` per type."""
    return Resource(tuple(java_long(v * by) for v in r.values))


def leaf_current_limit(world: World, state: SchedulerState, leaf: int, partition: int) -> Resource:
    """The limit the leaf's ancestors leave it (``ParentQueue.getResourceLimitsOfChild`` down
    from root, whose limit is the partition): per level min(parent's limit - parent's used +
    child's used, child's maximum rounded down), rounded down; then min(leaf maximum, that)."""
    calc = world.calculator
    partitions = _partition_capacities(world, state)
    cluster = _cluster(partitions)
    chain = list(reversed(world.ancestors(leaf)))  # root first
    limit = partitions[partition]
    for parent, child in zip(chain, chain[1:]):
        room = limit - state.queues[parent].used[partition] + state.queues[child].used[partition]
        limit = _round(world, calc.min(cluster, room, queue_maximum(world, state, child, partition)), up=False)
    return calc.min(cluster, queue_maximum(world, state, leaf, partition), limit)


def am_limit(world: World, state: SchedulerState, leaf: int, partition: int) -> Resource:
    """``LeafQueue.getAMResourceLimitPerPartition``: maximum-am-resource-percent of the
    queue's usable resource, normalised up; usable is the guarantee, or in the default
    partition the current limit when the guarantee fits in it."""
    guarantee = world.capacities(_partition_capacities(world, state))[leaf].guaranteed[partition]
    usable = guarantee
    if partition == 0:
        current = leaf_current_limit(world, state, leaf, partition)
        if world.calculator.fits_in(guarantee, current):
            usable = current
    return _normalize_up(world, usable, f32(world.queues[leaf].config.max_am_percent))


class ReferenceLimits:
    """:func:`queue_maximum` and :func:`user_limit` of one world, remembered by the parts of
    the state they read (the nodes; for the user limit also the users and the applications),
    so equal inputs are computed once. An explicit cache owned by one model, bounded: when it
    holds ``capacity`` entries it starts again empty."""

    def __init__(self, world: World, capacity: int = 1 << 12) -> None:
        self.world = world
        self._known: BoundedTable[Hashable, Resource] = BoundedTable(capacity)

    def _remembered(self, key: Hashable, compute: Callable[[], Resource]) -> Resource:
        return self._known.get(key, compute)

    def queue_maximum(self, state: SchedulerState, queue: int, partition: int) -> Resource:
        """:func:`queue_maximum` (it reads only the nodes of ``state``)."""
        return self._remembered(
            ("max", state.nodes, queue, partition), lambda: queue_maximum(self.world, state, queue, partition)
        )

    def partition_capacity(self, state: SchedulerState, partition: int) -> Resource:
        """:func:`partition_capacity` (it reads only the nodes of ``state``)."""
        return self._remembered(
            ("partition", state.nodes, partition), lambda: partition_capacity(self.world, state, partition)
        )

    def user_limit(self, state: SchedulerState, leaf: int, partition: int, ignore_exclusivity: bool) -> Resource:
        """:func:`user_limit` (it reads only the nodes, users and applications of ``state``)."""
        key = ("user", state.nodes, state.users, state.apps, leaf, partition, ignore_exclusivity)
        return self._remembered(key, lambda: user_limit(self.world, state, leaf, partition, ignore_exclusivity))
