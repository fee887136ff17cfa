"""The additions that let a scenario show a repeating behaviour as a loop: endless time
(``Bounds.endless``: ticks at the clock's bound age the time stamps), container ids
renumbered by rank, the ``guarantee-progress`` property, and scenario models that start
from a set-up and keep part of the environment quiet."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.actions import enabled, label, start, successors, take
from yarnspec.impl.scheduler.bookkeeping.canonical import renumber_containers
from yarnspec.impl.scheduler.environment_effects import age, tick
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import time_horizon
from yarnspec.impl.scheduler.inputs.specs import AppSpec, RequestSpec
from yarnspec.impl.scheduler.monitor.scheduling_monitor import monitor_due
from yarnspec.impl.scheduler.state import NONE, SchedulerState, live_partition_resources
from yarnspec.impl.scheduler.world import World, build_world
from yarnspec.spec.scheduler.invariants import check_state
from yarnspec.spec.scheduler.model import SchedulerModel, starved_queue
from yarnspec.spec.worlds.catalogue import SCENARIOS, ScenarioModel

NO_LEAK = SCENARIOS["no-leak"].world(SCENARIOS["no-leak"].variant("yarn-8127"))
BIG = SCENARIOS["big-container-livelock"].world(SCENARIOS["big-container-livelock"].variant("default"))
BIG_CONTAINER_SETUP = SCENARIOS["big-container-livelock"].setup
BIG_APP = AppSpec("a", "A", Resource.of(1024, 1), (RequestSpec(1, Resource.of(1024, 1)),))


def walk(world: World, choices: list[int]) -> SchedulerState:
    """The state a walk reaches, choosing ``choices[i] % len(enabled)`` at step ``i``."""
    state = start(world)
    for choice in choices:
        actions = enabled(world, state)
        state = take(world, state, actions[choice % len(actions)]).state
    return state


# -- renumbering ----------------------------------------------------------------------------


@settings(max_examples=40)
@given(choices=st.lists(st.integers(0, 60), max_size=30))
def test_renumbering_is_a_bisimulation(choices: list[int]) -> None:
    """Renumbered and original states enable the same steps in the same order, each leading to
    states that renumber alike, and the invariants judge them alike."""
    state = walk(NO_LEAK, choices)
    renamed = renumber_containers(state)
    ids = [c.cid for c in renamed.containers]
    assert all(a < b for a, b in zip(ids, ids[1:])) and set(ids) <= set(range(renamed.next_container))
    ours = [renumber_containers(after) for _, after in successors(NO_LEAK, state)]
    theirs = [renumber_containers(after) for _, after in successors(NO_LEAK, renamed)]
    assert ours == theirs
    assert [n for n, _ in check_state(NO_LEAK, state)] == [n for n, _ in check_state(NO_LEAK, renamed)]
    assert renumber_containers(renamed) is renamed  # already in normal form


def play(world: World, labels: tuple[str, ...] | list[str]) -> SchedulerState:
    """The raw impl state (no renumbering) after the actions with these labels."""
    state = start(world)
    for wanted in labels:
        state = take(world, state, next(a for a in enabled(world, state) if label(world, a) == wanted)).state
    return state


def test_renumbering_closes_the_gap_a_kill_leaves() -> None:
    state = play(BIG, [*BIG_CONTAINER_SETUP, "monitor", "tick", "monitor", "heartbeat(n2)"])
    assert [c.cid for c in state.containers] == [0, 1, 2, 3, 5]  # c4 killed, B's AM is c5
    renamed = renumber_containers(state)
    assert [c.cid for c in renamed.containers] == [0, 1, 2, 3, 4] and renamed.next_container == 5
    b_app = renamed.apps[1]
    assert b_app is not None and b_app.am_container == 4
    assert [(c.app, c.node, c.resource) for c in renamed.containers] == [
        (c.app, c.node, c.resource) for c in state.containers
    ]


# -- endless time ---------------------------------------------------------------------------


def at_bound(world: World, state: SchedulerState) -> SchedulerState:
    while tick(world, state).clock != state.clock:
        state = tick(world, state)
    return state


def test_time_horizon_covers_every_span() -> None:
    assert time_horizon(BIG.settings) == 2 * 1000 + 1  # the mark expiry outlasts the 1 s interval
    assert (
        time_horizon(SCENARIOS["reserved-starvation"].world(SCENARIOS["reserved-starvation"].variants[0]).settings)
        == 1000
    )


def test_a_tick_at_the_bound_ages_the_stamps_down_to_the_horizon() -> None:
    model = ScenarioModel(BIG, "t", (), BIG_CONTAINER_SETUP, frozenset())
    state = at_bound(BIG, model.initial_states()[0].scheduler)
    assert state.clock == 3000 and state.monitor_at == NONE
    state = take(BIG, state, next(a for a in enabled(BIG, state) if label(BIG, a) == "monitor")).state
    assert state.monitor_at == 3000 and state.marks and not monitor_due(BIG, state)
    older = tick(BIG, state)
    assert older.clock == 3000 and older.monitor_at == 2000 and monitor_due(BIG, older)
    assert [at for _, at in older.marks] == [at - 1000 for _, at in state.marks]
    oldest = age(BIG, state, 10_000)
    floor = 3000 - time_horizon(BIG.settings)
    assert oldest.monitor_at == floor and all(at == floor for _, at in oldest.marks)
    assert all(c.start >= floor for c in oldest.containers)
    assert age(BIG, oldest, 1000) == oldest  # nothing older than the horizon: a stuttering tick


def test_without_endless_a_tick_at_the_bound_stutters() -> None:
    world = SCENARIOS["no-leak"].world(SCENARIOS["no-leak"].variants[0])
    state = at_bound(world, start(world))
    assert tick(world, state) is state


def test_endless_bounds_are_checked() -> None:
    conf, nodes, apps = BIG.configuration, BIG.nodes, [BIG_APP]
    with pytest.raises(
        InputError, match=r"bounds\.max_clock_ms: an endless world's clock must reach its time horizon, 2001 ms"
    ):
        build_world(conf, BIG.partitions, nodes, apps, bounds=Bounds(max_clock_ms=2500, endless=True))
    with pytest.raises(InputError, match=r"bounds\.endless: expected true or false, found 1"):
        build_world(conf, BIG.partitions, nodes, apps, bounds=Bounds(endless=1))  # type: ignore[arg-type]
    assert build_world(conf, BIG.partitions, nodes, apps, bounds=Bounds(max_clock_ms=3000, endless=True)).bounds.endless


def test_the_endless_model_loops_where_the_plain_one_would_grow() -> None:
    """A kill and a re-allocation return to the same state: the id does not grow."""
    model = SCENARIOS["big-container-livelock"].model(SCENARIOS["big-container-livelock"].variants[0])
    (state,) = model.initial_states()
    ids = {c.cid for c in state.scheduler.containers}
    assert max(ids) == len(ids) - 1 == state.scheduler.next_container - 1


# -- guarantee-progress ---------------------------------------------------------------------


def brute_starved(world: World, state: SchedulerState) -> set[int]:
    """Queues with a pending container that keeps them within the guarantee, from the
    containers (not the stored usage) and the configured capacities."""
    capacities = world.capacities(live_partition_resources(world, state))
    found = set()
    for index, app in enumerate(state.apps):
        if app is None or not app.live:
            continue
        info = world.apps[index]
        held = ZERO
        for c in state.containers:
            if c.live and world.apps[c.app].queue == info.queue:
                held = held + c.resource
        for request, asked in zip(info.requests, app.asks):
            guarantee = capacities[info.queue].guaranteed[request.partition]
            if asked > 0 and (held + request.capability).memory <= guarantee.memory:
                found.add(info.queue)
    return found


@settings(max_examples=40)
@given(choices=st.lists(st.integers(0, 60), max_size=30))
def test_starved_queue_matches_an_independent_computation(choices: list[int]) -> None:
    state = walk(NO_LEAK, choices)
    found = starved_queue(NO_LEAK, state)
    expected = brute_starved(NO_LEAK, state)
    assert (found is None) == (not expected)
    assert found is None or found in expected


def test_guarantee_progress_is_checked_only_when_asked() -> None:
    assert [p.name for p in SchedulerModel(BIG, "t").progress()] == ["reservation-progress"]
    assert [p.name for p in SchedulerModel(BIG, "t", properties=("guarantee-progress",)).progress()] == [
        "guarantee-progress"
    ]
    with pytest.raises(ValueError, match="unknown progress property 'nope'"):
        SchedulerModel(BIG, "t", properties=("nope",))


# -- scenario models ------------------------------------------------------------------------


def test_setup_and_quiet_environment() -> None:
    scenario = SCENARIOS["big-container-livelock"]
    model = scenario.model(scenario.variants[0])
    (state,) = model.initial_states()
    assert [c.node for c in state.scheduler.containers] == [0, 1, 1, 2, 2]
    assert state.scheduler.apps[1] is not None  # the borrower has just submitted
    frontier, seen = [state], {state}
    for _ in range(6):
        following = []
        for current in frontier:
            for action, target in model.successors(current):
                assert not model.action_label(action).startswith(("complete", "release", "cancel", "finish-app"))
                if target not in seen:
                    seen.add(target)
                    following.append(target)
        frontier = following
    with pytest.raises(ValueError, match=r"setup\[1\] 'launch\(c7\)' is not enabled"):
        ScenarioModel(BIG, "t", (), ("submit(app_A)", "launch(c7)"), frozenset())
