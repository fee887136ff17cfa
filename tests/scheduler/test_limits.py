"""Queue limits, user limits, the AM limit and Hadoop's rounding, worked by hand.

The world: one 20 GB node, root.a and root.b at 50% each (a guaranteed 10 GB), minimum
allocation 1 GB. Usage is put in place directly (every counter consistent), so each figure
below is the formula applied to known numbers.
"""

from __future__ import annotations

from collections.abc import Mapping

from tests.scheduler.helpers import gb, make_world
from yarnspec.impl.calculator import DefaultCalculator, DominantCalculator
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler import environment_effects as env
from yarnspec.impl.scheduler.actions import start
from yarnspec.impl.scheduler.allocation.limits import (
    ResourceLimits,
    am_limit,
    can_assign_to_queue,
    can_assign_to_user,
    child_limits,
    divide_and_ceil,
    multiply_and_normalize_up,
    pending_considering_user_limit,
    root_limits,
    round_down,
    round_up,
    user_limit,
)
from yarnspec.impl.scheduler.allocation.scheduling_mode import IGNORE, RESPECT
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, RequestSpec
from yarnspec.impl.scheduler.state import AppPhase, SchedulerState
from yarnspec.impl.scheduler.world import World

BASE = {"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50"}


def two_users(extra: Mapping[str, str] = {}) -> World:
    return make_world(
        {**BASE, **extra},
        [NodeSpec("n0", gb(20, 20))],
        [
            AppSpec("x", "a", gb(1), (RequestSpec(1, gb(1)),), user="u1"),
            AppSpec("y", "a", gb(1), (RequestSpec(1, gb(1)),), user="u2"),
            AppSpec("z", "b", gb(1), (RequestSpec(1, gb(1)),), user="u3"),
        ],
    )


def using(world: World, memory: Mapping[int, int], asking: tuple[int, ...] = ()) -> SchedulerState:
    """Apps submitted and holding ``memory[app]`` GB on n0 (the AM among them); the apps in
    ``asking`` ask for one more container."""
    state = start(world)
    for app in memory:
        state = env.submit(world, state, app)
    edit = Edit(world, state)
    for app, gigabytes in memory.items():
        for i in range(gigabytes):
            if i:
                edit.change_asks(app, 1, 1)
            edit.allocate(app, 0 if i == 0 else 1, 0, edit.new_container_id())
    for app in asking:
        edit.change_asks(app, 1, 1)
    return edit.freeze()


A, B = 1, 2  # queue indices (root is 0)


def test_rounding_follows_each_calculator() -> None:
    step = Resource.of(1024, 1)
    r = Resource.of(2500, 3)
    assert round_up(DefaultCalculator(), r, step) == Resource.of(3072, 1)
    assert round_down(DefaultCalculator(), r, step) == Resource.of(2048, 1)
    assert round_up(DominantCalculator(), r, Resource.of(1024, 2)) == Resource.of(3072, 4)
    assert multiply_and_normalize_up(DefaultCalculator(), Resource.of(10240, 10), 0.15, step) == Resource.of(2048, 1)
    assert multiply_and_normalize_up(DominantCalculator(), Resource.of(10240, 10), 0.15, step) == Resource.of(2048, 2)
    assert divide_and_ceil(DefaultCalculator(), Resource.of(9216, 3), 2.0) == Resource.of(4608, 1)
    assert divide_and_ceil(DominantCalculator(), Resource.of(9216, 3), 0.0) == Resource.of(0, 0)


def test_user_limit_is_the_larger_of_an_equal_share_and_the_minimum_percent() -> None:
    world = two_users({"root.a.minimum-user-limit-percent": "50", "root.a.user-limit-factor": "2"})
    # a uses 8 of its 10 GB: capacity 10 GB; active users u1 (6 GB) and u2 (2 GB):
    # share = ceil((1 + 6 + 2) GB / 2) = 4.5 GB, percent = 10 GB x 50% = 5 GB -> 5 GB.
    state = using(world, {0: 6, 1: 2}, asking=(0, 1))
    view = View(world, state)
    assert user_limit(view, A, 0, RESPECT) == gb(5)
    assert not can_assign_to_user(view, 0, 0, gb(5), ResourceLimits(gb(20)))[0]  # u1 at 6 GB is over
    assert can_assign_to_user(view, 1, 0, gb(5), ResourceLimits(gb(20)))[0]


def test_over_capacity_the_limit_grows_with_consumption() -> None:
    world = two_users({"root.a.minimum-user-limit-percent": "50", "root.a.user-limit-factor": "2"})
    # a uses 12 GB > 10: current capacity = 12 + 1 GB; share = ceil(13 GB / 2) = 6.5 GB,
    # percent = 13 GB x 50% = 6.5 GB; rounded up to the minimum allocation: 7 GB.
    state = using(world, {0: 10, 1: 2}, asking=(0, 1))
    assert user_limit(View(world, state), A, 0, RESPECT) == gb(7)


def test_user_limit_factor_caps_one_user_at_the_guarantee() -> None:
    world = two_users()
    # one active user: share = 1 + 12 GB; percent 100% of 13 GB; capped by 10 GB x factor 1.
    state = using(world, {0: 12}, asking=(0,))
    view = View(world, state)
    assert user_limit(view, A, 0, RESPECT) == gb(10)
    assert user_limit(view, A, 0, IGNORE) == gb(13)  # without exclusivity, capped by the partition only
    unlimited = two_users({"root.a.user-limit-factor": "-1", "root.a.maximum-capacity": "80"})
    # A factor of -1 caps by the queue's maximum instead: 1 + 16 GB capped at 80% of 20 GB.
    assert user_limit(View(unlimited, using(unlimited, {0: 16}, asking=(0,))), A, 0, RESPECT) == gb(16)


def test_pending_considering_user_limit_caps_each_user_by_its_headroom() -> None:
    world = two_users({"root.a.minimum-user-limit-percent": "50", "root.a.user-limit-factor": "2"})
    state = using(world, {0: 4, 1: 2}, asking=(0, 1))
    edit = Edit(world, state)
    edit.change_asks(0, 1, 5)  # u1 asks for 6 GB in all
    state = edit.freeze()
    view = View(world, state)
    # Over all users: limit = max(ceil(10 GB / 2), 10 GB x 50%) = 5 GB: u1 (at 4 GB) gets 1 of
    # the 6 GB it asks for, u2 (at 2 GB) the 1 GB it asks for. (The default calculator's limit
    # carries 1 vcore, as Hadoop's createResource(memory) does: only memory counts.)
    assert user_limit(view, A, 0, RESPECT, active=False) == gb(5)
    assert pending_considering_user_limit(view, A, 0, RESPECT).memory == gb(2).memory


def test_queue_limit_from_the_parent_and_the_maximum() -> None:
    world = two_users({"root.a.maximum-capacity": "60"})
    state = using(world, {0: 6, 2: 10})
    view = View(world, state)
    root = root_limits(view, 0, RESPECT)
    assert root.limit == gb(20, 20)
    # a's limit: min(20 - 16 + 6, a's maximum 12 GB) = 10 GB.
    limits = child_limits(view, 0, A, root, 0)
    assert limits.limit.memory == gb(10).memory
    allowed, checked = can_assign_to_queue(view, A, 0, limits, gb(0, 0), RESPECT)
    assert allowed
    assert checked.headroom.memory == gb(4).memory
    assert limits.headroom.memory == gb(10).memory  # the limits asked about are left as they were
    full = using(world, {0: 10, 2: 10})
    view = View(world, full)
    limits = child_limits(view, 0, A, root_limits(view, 0, RESPECT), 0)
    assert not can_assign_to_queue(view, A, 0, limits, gb(0, 0), RESPECT)[0]


def test_continue_looking_lets_a_full_queue_allocate_by_unreserving() -> None:
    world = two_users({"root.a.maximum-capacity": "50"})
    state = using(world, {0: 10})
    view = View(world, state)
    limits = ResourceLimits(gb(20, 20))
    assert not can_assign_to_queue(view, A, 0, limits, gb(0, 0), RESPECT)[0]
    allowed, checked = can_assign_to_queue(view, A, 0, limits, gb(2), RESPECT)
    assert allowed
    assert checked.amount_needed_unreserve.memory == 0  # used 10 GB - limit 10 GB
    off = two_users(
        {"root.a.maximum-capacity": "50", "yarn.scheduler.capacity.reservations-continue-look-all-nodes": "false"}
    )
    assert not can_assign_to_queue(View(off, using(off, {0: 10})), A, 0, ResourceLimits(gb(20, 20)), gb(2), RESPECT)[0]


def test_am_limit_and_activation() -> None:
    world = two_users({"root.a.maximum-am-resource-percent": "0.1", "root.a.maximum-capacity": "50"})
    # a's current limit 10 GB (its maximum); 10% of it is 1 GB: one AM fits, the second waits.
    state = start(world)
    assert am_limit(View(world, state), A, 0) == gb(1)
    state = env.submit(world, state, 0)
    state = env.submit(world, state, 1)
    phases = [app.phase if app is not None else None for app in state.apps]
    assert phases == [AppPhase.ACTIVE, AppPhase.PENDING, None]
    state = env.finish_app(world, state, 0)
    app = state.apps[1]
    assert app is not None and app.phase == AppPhase.ACTIVE
    assert state.queues[A].am_used[0] == gb(1)


def test_the_first_application_starts_even_if_its_am_is_over_the_limit() -> None:
    world = make_world(
        {**BASE, "root.a.maximum-am-resource-percent": "0.05"},
        [NodeSpec("n0", gb(20, 20))],
        [AppSpec("big", "a", gb(4), (), user="u1"), AppSpec("next", "a", gb(1), (), user="u1")],
    )
    state = env.submit(world, start(world), 0)
    state = env.submit(world, state, 1)
    assert [a.phase for a in state.apps if a is not None] == [AppPhase.ACTIVE, AppPhase.PENDING]


def test_the_monitor_snapshot_marks_only_activated_applications_schedulable() -> None:
    """The fair-share intra-queue rule skips applications outside the leaf's schedulable
    entities (COMPX-5228): in the model those are the ones the AM limit has not activated."""
    from yarnspec.impl.scheduler.monitor.scheduling_monitor import snapshot

    world = two_users({"root.a.maximum-am-resource-percent": "0.1", "root.a.maximum-capacity": "50"})
    state = env.submit(world, env.submit(world, start(world), 0), 1)
    apps = snapshot(world, state).apps
    assert [apps[key].schedulable for key in sorted(apps)] == [True, False]
