"""Queue limits, user limits and the AM limit, with Hadoop's rounding.

* Queue limit (``AbstractCSQueue.canAssignToThisQueue`` and ``ParentQueue.getResourceLimitsOfChild``):
  root's limit is the partition's resource; a child's is ``min(parent limit - parent used +
  child used, child maximum rounded down to the minimum allocation)``, rounded down. A parent's
  killable resource (lazy preemption, :mod:`.killable`) counts as not used in both. A queue may
  be given more while ``used < min(maximum, limit)``; with reservations-continue-looking, a
  queue at its limit may still allocate in the default partition if unreserving its
  reservations would bring it below (it must then unreserve). Without partition exclusivity
  (non-exclusive partitions) every queue's limit is the whole partition.
* User limit (``UsersManager.computeUserLimit``): from the queue's guarantee, its consumption,
  the active users, ``minimum-user-limit-percent`` and ``user-limit-factor``, rounded up to the
  minimum allocation. A user may be given more while its used is at most the limit, so one
  container may cross it (Hadoop checks ``used > limit`` before allocating).
* AM limit (``LeafQueue.getAMResourceLimitPerPartition``): ``maximum-am-resource-percent`` of
  the queue's usable resource, normalised up. An application is activated only if its AM fits
  under the limit, except when the queue has no active application (Hadoop lets one start so
  the queue is never stuck).

Calculator arithmetic follows Hadoop: the default calculator rounds memory only (vcores are
then irrelevant to every decision), DRF rounds every type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.resources import ZERO, Resource, f32, java_ceil_long, java_long
from yarnspec.impl.scheduler.allocation.scheduling_mode import RESPECT, SchedulingMode
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.monitor.killable import parent_killable
from yarnspec.impl.scheduler.state import AppPhase


def round_up(calc: ResourceCalculator, r: Resource, step: Resource) -> Resource:
    """``Resources.roundUp``: each component up to a multiple of the step's (unchanged where
    the step is 0); memory only for the default calculator."""
    return _per_type(calc, r, step, lambda v, s: -(-v // s) * s if s else v)


def round_down(calc: ResourceCalculator, r: Resource, step: Resource) -> Resource:
    """``Resources.roundDown``: each component down to a multiple of the step's."""
    return _per_type(calc, r, step, lambda v, s: (v // s) * s if s else v)


def _per_type(calc: ResourceCalculator, r: Resource, step: Resource, fn: Callable[[int, int], int]) -> Resource:
    if calc.name == "default":
        memory = fn(r.memory, step.memory)
        return Resource.of(memory, 1 if memory > 0 else 0)
    return Resource(tuple(fn(v, step.get(i)) for i, v in enumerate(r.values)))


def multiply_and_normalize_up(calc: ResourceCalculator, r: Resource, by: float, step: Resource) -> Resource:
    """``multiplyAndNormalizeUp``: default ``roundUp((long)(memory x by + 0.5), step)``; DRF per
    type ``roundUp((long) ceil(v x by), step)``."""
    if calc.name == "default":
        memory = java_long(r.memory * by + 0.5)
        memory = -(-memory // step.memory) * step.memory if step.memory else memory
        return Resource.of(memory, 1 if memory > 0 else 0)
    values = []
    for i, v in enumerate(r.values):
        scaled = java_ceil_long(v * by)
        s = step.get(i)
        values.append(-(-scaled // s) * s if s else scaled)
    return Resource(tuple(values))


def divide_and_ceil(calc: ResourceCalculator, r: Resource, by: float) -> Resource:
    """``divideAndCeil``: ``ceil(v / by)`` (memory only for the default calculator; 0 when
    ``by`` is 0)."""

    def one(v: int) -> int:
        return java_ceil_long(v / by) if by else 0

    if calc.name == "default":
        memory = one(r.memory)
        return Resource.of(memory, 1 if memory > 0 else 0)
    return Resource(tuple(one(v) for v in r.values))


def multiply_and_round_down(r: Resource, by: float) -> Resource:
    """``Resources.multiplyAndRoundDown``: each component ``(long)(v x by)``."""
    return Resource(tuple(java_long(v * by) for v in r.values))


def fits_count(calc: ResourceCalculator, available: Resource, required: Resource) -> bool:
    """``computeAvailableContainers(available, required) > 0``: at least one fits."""
    return calc.fits_in(required, available) and calc.any_major_positive(required)


# -- queue limits ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ResourceLimits:
    """Hadoop's ``ResourceLimits`` as it travels down the tree for one allocation: the limit,
    the headroom set by the queue check, what must be unreserved to allocate, and the headroom
    of children skipped for their queue limit (YARN-4280's blocked headroom: the limit less it
    is the net limit the next children get), and whether the leaf may kill killable containers
    to allocate (``isAllowPreemption``, lazy preemption). Hadoop updates one object in place;
    here each check returns the updated limits."""

    limit: Resource
    headroom: Resource = ZERO
    amount_needed_unreserve: Resource = ZERO
    blocked: Resource = ZERO
    allow_preemption: bool = False

    @property
    def net_limit(self) -> Resource:
        """``getNetLimit``: the limit less the blocked headroom."""
        return self.limit - self.blocked


def queue_max_down(view: View, queue: int, partition: int) -> Resource:
    """``getEffectiveMaxCapacityDown``: the queue's maximum rounded down to the minimum
    allocation."""
    return round_down(view.calc, view.maximum(queue, partition), view.minimum)


def root_limits(view: View, partition: int, mode: SchedulingMode) -> ResourceLimits:
    """Root's limit: the partition's resource (the default partition's when allocating without
    exclusivity, as Hadoop passes it)."""
    resource = view.partition_resource[0 if mode.ignores_exclusivity else partition]
    return ResourceLimits(resource, resource)


def child_limits(view: View, parent: int, child: int, parent_limits: ResourceLimits, partition: int) -> ResourceLimits:
    """``getResourceLimitsOfChild``: ``min(parent net limit - parent used + child used, child
    max rounded down)``, rounded down to the minimum allocation. The net limit is the limit
    less what earlier children blocked (nothing blocks before YARN-4280)."""
    queues = view.state.queues
    limit = parent_limits.net_limit - queues[parent].used[partition] + queues[child].used[partition]
    limit = limit + parent_killable(view, parent, partition)
    limit = view.calc.min(view.cluster, limit, queue_max_down(view, child, partition))
    limit = round_down(view.calc, limit, view.minimum)
    return ResourceLimits(limit, limit)


def current_limit(view: View, queue: int, partition: int, limits: ResourceLimits, mode: SchedulingMode) -> Resource:
    """``getCurrentLimitResource``: ``min(queue max, limit from the parent)``; the whole
    partition when allocating without exclusivity."""
    if mode.ignores_exclusivity:
        return view.partition_resource[partition]
    return view.calc.min(view.cluster, queue_max_down(view, queue, partition), limits.limit)


def can_assign_to_queue(
    view: View, queue: int, partition: int, limits: ResourceLimits, could_unreserve: Resource, mode: SchedulingMode
) -> tuple[bool, ResourceLimits]:
    """``canAssignToThisQueue``: whether the queue may be given more, and ``limits`` with the
    headroom the check sets (and ``amount_needed_unreserve`` when it allows the queue only
    through unreserving)."""
    calc, cluster = view.calc, view.cluster
    limit = current_limit(view, queue, partition, limits, mode)
    used = view.state.queues[queue].used[partition] - parent_killable(view, queue, partition)
    limits = replace(limits, headroom=limit - used)
    if not calc.greater_equal(cluster, used, limit):
        return True, limits
    if view.world.settings.continue_looking and partition == 0 and calc.greater(cluster, could_unreserve, ZERO):
        if calc.less(cluster, used - could_unreserve, limit):
            return True, replace(limits, amount_needed_unreserve=used - limit)
    return False, limits


def leaf_current_limit(view: View, leaf: int, partition: int) -> Resource:
    """The limit a leaf gets from its ancestors now (root's being the partition): what
    Hadoop caches as the leaf's current limit after each allocation pass."""
    limits = root_limits(view, partition, RESPECT)
    chain = view.world.ancestors(leaf)[::-1]
    for parent, child in zip(chain, chain[1:]):
        limits = child_limits(view, parent, child, limits, partition)
    return current_limit(view, leaf, partition, limits, RESPECT)


# -- user limits ----------------------------------------------------------------------------


def user_limit(view: View, leaf: int, partition: int, mode: SchedulingMode, active: bool = True) -> Resource:
    """``computeUserLimit`` for a leaf and partition (all users weigh 1).

    ``active``: the limit for active users (divided among the active users, from what they
    use), else the one over all users of the queue (used for the preemption monitor's pending).
    Remembered in the view, whose state does not change.
    """
    key = (leaf, partition, mode, active)
    cached = view.user_limits.get(key)
    if cached is None:
        cached = view.user_limits[key] = _compute_user_limit(view, leaf, partition, mode, active)
    return cached


def _compute_user_limit(view: View, leaf: int, partition: int, mode: SchedulingMode, active: bool) -> Resource:
    calc, world = view.calc, view.world
    config = world.queues[leaf].config
    partition_resource = view.partition_resource[partition]
    minimum = view.minimum
    original = view.guaranteed(leaf, partition)
    capacity = calc.max(partition_resource, original, minimum)
    ratio = 0.0
    for user in view.users_with_apps[leaf]:
        ratio = f32(ratio + calc.ratio(view.state.users[user].used[partition], partition_resource))
    consumed = multiply_and_normalize_up(calc, partition_resource, ratio, minimum)
    current = capacity if calc.less(partition_resource, consumed, capacity) else consumed + minimum
    if active:
        users = view.active_users[leaf]
        resource_used = minimum
        for user in users:
            resource_used = resource_used + view.state.users[user].used[partition]
        count = len(users)
    else:
        resource_used = current
        count = len(view.users_with_apps[leaf])
    percent = config.minimum_user_limit_percent
    limit = calc.max(
        partition_resource,
        divide_and_ceil(calc, resource_used, float(count)),
        divide_and_ceil(calc, multiply_and_round_down(current, percent), 100.0),
    )
    if mode.ignores_exclusivity:
        max_user = partition_resource
    elif config.user_limit_factor == -1 or original.is_zero():
        max_user = round_down(calc, view.maximum(leaf, partition), minimum)
    else:
        max_user = multiply_and_round_down(capacity, config.user_limit_factor)
    return round_up(calc, calc.min(partition_resource, limit, max_user), minimum)


def can_assign_to_user(
    view: View, app: int, partition: int, limit: Resource, limits: ResourceLimits
) -> tuple[bool, ResourceLimits]:
    """``canAssignToUser``: whether the user's used is at most its limit (or, with
    continue-looking in the default partition, would be after unreserving the app's
    reservations), and ``limits``, with ``amount_needed_unreserve`` set in that case."""
    calc, cluster = view.calc, view.cluster
    info = view.world.apps[app]
    used = view.state.users[info.user].used[partition]
    if not calc.greater(cluster, used, limit):
        return True, limits
    if view.world.settings.continue_looking and partition == 0:
        state = view.state.apps[app]
        reserved = state.reserved[0] if state is not None else ZERO
        if calc.less_equal(cluster, view.state.users[info.user].used[0] - reserved, limit):
            return True, replace(limits, amount_needed_unreserve=used - limit)
    return False, limits


# -- the AM limit and activation ------------------------------------------------------------


def am_limit(view: View, leaf: int, partition: int) -> Resource:
    """``getAMResourceLimitPerPartition``: ``maximum-am-resource-percent`` of the queue's
    usable resource (its guarantee; in the default partition the larger of that and its current
    limit), normalised up to the minimum allocation."""
    calc = view.calc
    guaranteed = view.guaranteed(leaf, partition)
    usable = guaranteed
    if partition == 0:
        current = leaf_current_limit(view, leaf, partition)
        if calc.fits_in(guaranteed, current):
            usable = current
    percent = view.world.queues[leaf].config.max_am_percent
    return multiply_and_normalize_up(calc, usable, f32(percent), view.minimum)


def may_activate(view: View, app: int, am_used: Resource, active_count: int) -> bool:
    """``activateApplications``' test for one pending app, given the queue's AM used and
    number of active applications so far: its AM fits under the AM limit, or the queue has no
    active application (or no AM used) yet."""
    info = view.world.apps[app]
    limit = am_limit(view, info.queue, info.am_partition)
    if view.calc.fits_in(am_used + info.requests[0].capability, limit):
        return True
    return active_count < 1 or view.calc.less_equal(view.cluster, am_used, ZERO)


def pending_considering_user_limit(view: View, leaf: int, partition: int, deduct_reserved: bool) -> Resource:
    """``getTotalPendingResourcesConsideringUserLimit``: per active app in order, its pending
    in the partition (less its reserved if asked, at least 0) capped by what its user may still
    get under the active-user limit."""
    headroom: dict[int, Resource] = {}
    total = ZERO
    for app in view.active_apps[leaf]:
        state = view.state.apps[app]
        if state is None or state.phase != AppPhase.ACTIVE:
            continue
        user = view.world.apps[app].user
        if user not in headroom:
            limit = user_limit(view, leaf, partition, RESPECT)
            headroom[user] = (limit - view.state.users[user].used[partition]).clamp_min_zero()
        pending = state.pending[partition]
        if deduct_reserved:
            pending = pending - state.reserved[partition]
        pending = pending.clamp_min_zero()
        taken = headroom[user].component_min(pending)
        total = total + taken
        headroom[user] = headroom[user] - taken
    return total
