"""The invariant machinery: one type for every invariant, the sums computed once per state,
and step invariants checked only after the action kinds that can break them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.scheduler.walks import Step as Walked
from tests.scheduler.walks import walks
from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.actions import KINDS, kind
from yarnspec.impl.scheduler.state import AppPhase, ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler import invariants as inv
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.scheduler.sums import Sums
from yarnspec.spec.scheduler.verdicts import accounting
from yarnspec.spec.worlds.world_builders import async_double_commit_world


def test_every_invariant_is_one_type_and_names_real_kinds() -> None:
    assert all(isinstance(i, inv.SchedulerInvariant) for i in inv.INVARIANTS)
    assert len({i.name for i in inv.INVARIANTS}) == len(inv.INVARIANTS)
    assert inv.INVARIANTS == inv.STATE_INVARIANTS + inv.STEP_INVARIANTS
    assert all(i.broken_by <= set(KINDS) for i in inv.INVARIANTS)
    assert len(inv.STATE_INVARIANTS) == 16 and len(inv.STEP_INVARIANTS) == 4
    assert all(i.summary and i.source for i in inv.INVARIANTS)


def test_an_unknown_action_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="no action kind 'heartbeats'"):
        inv.SchedulerInvariant("x", "summary", "source", lambda step: None, frozenset({"heartbeats"}))


def _naive_sum(resources: list[Resource]) -> Resource:
    values = [r.values for r in resources]
    return Resource(tuple(map(sum, zip(*values)))) if values else ZERO


def _naive_sums_agree(world: World, state: SchedulerState) -> None:
    """Every sum of :class:`Sums` against a scan written the obvious way."""
    sums = Sums.of(world, state)
    for n in range(len(world.nodes)):
        on_node = [c for c in state.containers if c.node == n]
        assert sums.node_containers[n] == len(on_node)
        assert sums.node_live[n] == _naive_sum([c.resource for c in on_node if c.live])
    for a, _app in enumerate(state.apps):
        mine = [c for c in state.containers if c.app == a]
        assert list(sums.app_ams[a]) == [c.cid for c in mine if c.live and c.is_am]
        for p in range(len(world.partitions)):
            on_p = [c for c in mine if world.node_partition[c.node] == p]
            assert sums.app_live.total(a, p) == _naive_sum([c.resource for c in on_p if c.live])
            assert sums.app_reserved.total(a, p) == _naive_sum(
                [c.resource for c in on_p if c.state == ContainerState.RESERVED]
            )
    for p in range(len(world.partitions)):
        for q in range(len(world.queues)):
            apps = [s for i, s in enumerate(state.apps) if s is not None and world.apps[i].queue == q]
            assert sums.queue_used.total(q, p) == _naive_sum([s.used[p] + s.reserved[p] for s in apps])
            assert sums.queue_pending.total(q, p) == _naive_sum([s.pending[p] for s in apps])
            active = [
                i
                for i, s in enumerate(state.apps)
                if s is not None and s.phase == AppPhase.ACTIVE and world.apps[i].queue == q
            ]
            assert sums.queue_am.total(q, p) == _naive_sum(
                [world.apps[i].requests[0].capability for i in active if world.apps[i].am_partition == p]
            )
        for u in range(len(world.users)):
            apps = [s for i, s in enumerate(state.apps) if s is not None and world.apps[i].user == u]
            assert sums.user_reserved.total(u, p) == _naive_sum([s.reserved[p] for s in apps])


@settings(max_examples=60, deadline=None)
@given(walks())
def test_sums_agree_with_a_plain_scan(walk: tuple[World, list[Walked]]) -> None:
    world, steps = walk
    for _, _, after in steps:
        _naive_sums_agree(world, after)


def _allocates(before: SchedulerState, after: SchedulerState) -> bool:
    return bool({c.cid for c in after.containers} - {c.cid for c in before.containers})


def _activates(before: SchedulerState, after: SchedulerState) -> bool:
    return any(
        a is not None and a.phase == AppPhase.ACTIVE and (b is None or b.phase == AppPhase.PENDING)
        for a, b in zip(after.apps, before.apps)
    )


@settings(max_examples=80, deadline=None)
@given(walks())
def test_step_invariants_are_skipped_only_where_nothing_can_break_them(walk: tuple[World, list[Walked]]) -> None:
    """A step of a kind an invariant does not name does nothing that invariant constrains
    (no new container, no activation), and the invariant's predicate would hold there."""
    world, steps = walk
    for before, action, after in steps:
        taken = kind(action)
        if _allocates(before, after):
            assert taken in inv.ALLOCATING, taken
        if _activates(before, after):
            assert taken in inv.ACTIVATING, taken
        step = inv.SchedulerStep(world, after, before, action)
        for invariant in inv.STEP_INVARIANTS:
            if taken not in invariant.broken_by:
                assert invariant.predicate(step) is None, (invariant.name, taken)


def test_the_model_computes_the_sums_once_per_state(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = Sums.of

    def counting(world: World, state: SchedulerState) -> Sums:
        calls.append(1)
        return original(world, state)

    monkeypatch.setattr(Sums, "of", staticmethod(counting))
    model = SchedulerModel(async_double_commit_world("yarn-8127"), progress=False)
    state = model.initial_states()[0]
    checks = model.invariants()
    targets = [target for _, target in model.successors(state)]
    for target in targets:
        assert all(check.check(target) is None for check in checks)
    # once per state, or fewer: states with one accounting part share their verdicts
    assert len(targets) >= 2 and len(calls) == len({accounting(target.scheduler) for target in targets})


def test_the_model_checks_a_step_invariant_only_after_its_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    patched = tuple(
        inv.SchedulerInvariant(
            i.name, i.summary, i.source, lambda step: seen.append(kind(step.action)) or None, i.broken_by
        )
        for i in inv.STEP_INVARIANTS
    )
    monkeypatch.setattr("yarnspec.spec.scheduler.model.STEP_INVARIANTS", patched)
    model = SchedulerModel(async_double_commit_world("yarn-8127"), progress=False)
    frontier = model.initial_states()
    kinds_taken = set()
    for _ in range(6):
        following = []
        for state in frontier:
            for action, target in model.successors(state):
                kinds_taken.add(kind(action))
                following.append(target)
        frontier = following[:50]
    assert {"submit", "ask", "propose", "commit"} <= kinds_taken
    assert seen and set(seen) <= set(inv.ALLOCATING) | set(inv.ACTIVATING) | {inv.MONITOR}
    assert "ask" not in seen and "propose" not in seen
