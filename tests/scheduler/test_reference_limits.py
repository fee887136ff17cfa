"""The spec's own limits (:mod:`yarnspec.spec.scheduler.reference_limits`) agree with the
implementation's on generated states, and a bug planted in the implementation's user limit is
caught by the invariant that now checks against the spec's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.scheduler.helpers import gb, make_world
from tests.scheduler.walks import Step, walks
from yarnspec.impl.scheduler.actions import apply_action, enabled, label, start
from yarnspec.impl.scheduler.allocation import limits
from yarnspec.impl.scheduler.allocation.scheduling_mode import SchedulingMode
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import AppSpec, NodeSpec, RequestSpec, World
from yarnspec.spec.scheduler import reference_limits as reference
from yarnspec.spec.scheduler.invariants import check_step


def _agree(world: World, state: SchedulerState) -> None:
    view = View(world, state)
    for p in range(len(world.partitions)):
        for q in range(len(world.queues)):
            assert reference.queue_maximum(world, state, q, p) == limits.queue_max_down(view, q, p)
        for leaf in world.leaves:
            for ignore in (False, True):
                assert reference.user_limit(world, state, leaf, p, ignore) == limits.user_limit(
                    view, leaf, p, SchedulingMode.of(ignore)
                ), (leaf, p, ignore)
            assert reference.am_limit(world, state, leaf, p) == limits.am_limit(view, leaf, p), (leaf, p)


@settings(max_examples=80, deadline=None)
@given(walks())
def test_the_spec_limits_agree_with_the_implementation(walk: tuple[World, list[Step]]) -> None:
    world, steps = walk
    _agree(world, start(world))
    for _, _, after in steps:
        _agree(world, after)


def _user_capped_world() -> World:
    """One queue with the whole 8 GB node; user-limit-factor 0.5 caps its one user at 4 GB."""
    return make_world(
        {
            "root.queues": "a",
            "root.a.capacity": "100",
            "root.a.user-limit-factor": "0.5",
            "root.a.minimum-user-limit-percent": "100",
        },
        [NodeSpec("n0", gb(8, 8))],
        [AppSpec("app1", "a", gb(1), (RequestSpec(1, gb(1)),), user="u")],
    )


def _first_user_limit_fault(world: World) -> tuple[str | None, int]:
    """Submit, place and launch the AM, then ask for and allocate 1 GB containers on n0 (two
    at a time, the world's bound on asks) until the scheduler stops; the first
    allocation-within-user-limit report, if any, and the user's used memory at the end."""
    state = start(world)
    script = ["submit(app1)", "heartbeat(n0)", "launch(c0)"] + [
        "ask(app1, r1)",
        "ask(app1, r1)",
        "heartbeat(n0)",
        "heartbeat(n0)",
    ] * 4
    for text in script:
        actions = [a for a in enabled(world, state) if label(world, a) == text]
        if not actions:
            continue
        after = apply_action(world, state, actions[0]).state
        broken = dict(check_step(world, state, actions[0], after))
        state = after
        if "allocation-within-user-limit" in broken:
            return broken["allocation-within-user-limit"], state.users[0].used[0].memory
    return None, state.users[0].used[0].memory


def test_a_correct_user_limit_passes() -> None:
    # the user crosses its 4 GB limit by the one container Hadoop allows, and no further
    assert _first_user_limit_fault(_user_capped_world()) == (None, 5 * 1024)


def test_a_bug_in_the_implementations_user_limit_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Must fail: the implementation's user limit made the whole partition (the bug a shared
    reference would hide, since the invariant would then read the same wrong limit)."""

    def no_limit(view: View, leaf: int, partition: int, mode: SchedulingMode, active: bool) -> object:
        return view.partition_resource[partition]

    monkeypatch.setattr(limits, "_compute_user_limit", no_limit)
    message, _ = _first_user_limit_fault(_user_capped_world())
    assert message is not None and "user u" in message and "over its limit <4096" in message


class _NodesUsersApps:
    """A state offering only the nodes, users and applications (reading anything else fails)."""

    __slots__ = ("nodes", "users", "apps")

    def __init__(self, state: SchedulerState) -> None:
        self.nodes, self.users, self.apps = state.nodes, state.users, state.apps


@settings(max_examples=60, deadline=None)
@given(walks())
def test_remembered_limits_are_the_limits_of_each_state(walk: tuple[World, list[Step]]) -> None:
    """:class:`reference.ReferenceLimits` answers what the functions compute on every state of a walk
    (one cache across the walk, so figures are read back from earlier states with equal
    inputs), and the functions read no more than what the cache keys them by."""
    world, steps = walk
    remembered = reference.ReferenceLimits(world, capacity=8)
    for state in [start(world), *(after for _, _, after in steps)]:
        part = _NodesUsersApps(state)
        for p in range(len(world.partitions)):
            assert remembered.partition_capacity(state, p) == reference.partition_capacity(world, part, p)  # type: ignore[arg-type]
            for q in range(len(world.queues)):
                assert remembered.queue_maximum(state, q, p) == reference.queue_maximum(world, part, q, p)  # type: ignore[arg-type]
            for leaf in world.leaves:
                for ignore in (False, True):
                    assert remembered.user_limit(state, leaf, p, ignore) == reference.user_limit(
                        world, part, leaf, p, ignore
                    )  # type: ignore[arg-type]
        assert len(remembered._known.entries) <= 8
