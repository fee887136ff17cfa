"""The model step's shortcuts change no result: the enabled-action listing that leaves out kinds
a world never enables and builds world-only actions once lists exactly what every kind's guard
enables; an :class:`Edit` that copies on write freezes the very state it was given when nothing
changed (sharing its tuples); ending an application's containers together gives the state that
ending them one by one gives, and dropping everything an application holds and asks for at once
the state its reservations, containers and asks given back one by one give; the explorer's steps lead where the noted steps lead."""

from __future__ import annotations

from itertools import islice
from typing import Any

import pytest

from yarnspec.impl.scheduler.actions import TABLE, Context, action_kind, enabled, kind, start, steps, take
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.memo import Memo
from yarnspec.impl.scheduler.state import ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.worlds.catalogue import model_for_title

#: Heartbeat and asynchronous, single-node and multi-node worlds, with and without a monitor.
TITLES = [
    "async-double-commit/yarn-8127",
    "big-container-livelock/default",
    "no-leak/yarn-8127",
    "reserved-starvation/reserved-pickup",
]


def _states(world: World, limit: int) -> list[SchedulerState]:
    """The first ``limit`` states of a breadth-first walk of the model."""
    memo = Memo(world)
    first = start(world)
    seen = {first}
    order = [first]
    for state in order:
        if len(order) >= limit:
            break
        for action in enabled(world, state, memo):
            after = take(world, state, action, memo).state
            if after not in seen:
                seen.add(after)
                order.append(after)
    return order[:limit]


def _every_guard(world: World, state: SchedulerState, memo: Memo) -> list[Any]:
    """The enabled actions by asking every kind's guard of every candidate, in table order."""
    context = Context(world, state, memo)
    found = []
    groups: list[tuple[Any, list[Any]]] = []
    for entry in TABLE:
        if groups and groups[-1][0] is entry.candidates:
            groups[-1][1].append(entry)
        else:
            groups.append((entry.candidates, [entry]))
    for candidates, kinds in groups:
        for args in candidates(world, state):
            for entry in kinds:
                action = entry.action(*args)
                if entry.guard(context, action):
                    found.append(action)
    return found


@pytest.mark.parametrize("title", TITLES)
def test_the_listing_equals_every_guard_asked(title: str) -> None:
    world = model_for_title(title).world
    memo = Memo(world)
    states = _states(world, 300)
    assert len(states) > 50
    for state in states:
        assert enabled(world, state, memo) == _every_guard(world, state, Memo(world))


def test_a_kind_the_world_never_enables_is_left_out_of_the_listing() -> None:
    """Not vacuous: the asynchronous world has kinds its settings never enable."""
    world = model_for_title("async-double-commit/yarn-8127").world
    never = [entry.name for entry in TABLE if not entry.possible_in(world)]
    assert "heartbeat" in never and "monitor" in never


@pytest.mark.parametrize("title", TITLES)
def test_an_untouched_edit_freezes_the_same_state_sharing_its_tuples(title: str) -> None:
    world = model_for_title(title).world
    for state in _states(world, 200):
        frozen = Edit(world, state).freeze()
        assert frozen == state
        assert frozen.containers is state.containers and frozen.proposals is state.proposals
        assert frozen.marks is state.marks and frozen.killable is state.killable


@pytest.mark.parametrize("title", TITLES)
def test_ending_containers_together_equals_one_by_one(title: str) -> None:
    world = model_for_title(title).world
    compared = 0
    for state in _states(world, 400):
        for app in range(len(world.apps)):
            live = [c.cid for c in state.containers if c.app == app and c.state != ContainerState.RESERVED]
            if not live:
                continue
            together, one_by_one = Edit(world, state), Edit(world, state)
            together.end_containers(app, live)
            for cid in live:
                one_by_one.end_container(cid)
            assert together.freeze() == one_by_one.freeze()
            compared += 1
    assert compared > 0, "no state had a live container: the test would be vacuous"


@pytest.mark.parametrize("title", TITLES)
def test_dropping_an_application_at_once_equals_step_by_step(title: str) -> None:
    """``Edit.drop_app`` charges each counter once per partition with the sums; the figures
    must be those of ``drop_reservation``, ``end_container`` and ``change_asks`` one by one."""
    world = model_for_title(title).world
    held = asked = 0
    for state in _states(world, 400):
        for app, app_state in enumerate(state.apps):
            if app_state is None:
                continue
            at_once, one_by_one = Edit(world, state), Edit(world, state)
            at_once.drop_app(app)
            for container in one_by_one.containers_of_app(app):
                if container.state == ContainerState.RESERVED:
                    one_by_one.drop_reservation(container.cid)
                else:
                    one_by_one.end_container(container.cid)
                held += 1
            for request, count in enumerate(app_state.asks):
                if count:
                    one_by_one.change_asks(app, request, -count)
                    asked += 1
            assert at_once.freeze() == one_by_one.freeze()
    assert held > 0 and asked > 0, "no application held a container or asked for one: the test would be vacuous"


def test_the_first_states_are_distinct() -> None:
    """The walk helper itself: distinct states, bounded."""
    world = model_for_title(TITLES[0]).world
    states = _states(world, 40)
    assert len(set(states)) == len(states) == 40
    assert list(islice(states, 1)) == [start(world)]


@pytest.mark.parametrize("title", TITLES)
def test_the_explorers_steps_equal_the_noted_steps(title: str) -> None:
    """``steps`` (one context per state, each kind's step called from the table, no note)
    leads where ``take`` (the noted step, a fresh context per action) leads, action by action."""
    world = model_for_title(title).world
    memo = Memo(world)
    compared = 0
    for state in _states(world, 300):
        listed = steps(world, state, memo)
        assert [action for _, action, _ in listed] == enabled(world, state, Memo(world))
        for entry, action, after in listed:
            assert entry is action_kind(action)
            assert after == take(world, state, action, Memo(world)).state
            compared += 1
    assert compared > 300


def test_kinds_left_out_are_not_listed_and_the_rest_keep_their_order() -> None:
    world = model_for_title(TITLES[0]).world
    quiet = frozenset({"release", "finish-app"})
    memo = Memo(world)
    for state in _states(world, 200):
        everything = enabled(world, state, memo)
        assert enabled(world, state, memo, quiet) == [a for a in everything if kind(a) not in quiet]
        assert [a for _, a, _ in steps(world, state, memo, quiet)] == enabled(world, state, memo, quiet)


@pytest.mark.parametrize("title", TITLES)
def test_what_a_kind_declares_it_reads_decides_its_enabled_actions(title: str) -> None:
    """The listing remembers a kind's enabled actions by what the kind declares it reads
    (``ActionKind.reads``): any two states that agree on it must enable the same actions of
    the kind, every guard asked afresh. Not vacuous: states that share what they read meet."""
    world = model_for_title(title).world
    declared = [entry for entry in TABLE if entry.reads is not None and entry.possible_in(world)]
    assert declared
    first_seen: dict[tuple[Any, ...], list[Any]] = {}
    shared = 0
    for state in _states(world, 400):
        every = _every_guard(world, state, Memo(world))
        for entry in declared:
            key = (entry.action, entry.reads(state))
            listed = [action for action in every if type(action) is entry.action]
            if key in first_seen:
                assert listed == first_seen[key], (entry.name, state)
                shared += 1
            else:
                first_seen[key] = listed
    assert shared > 100


def test_the_listing_remembers_what_declared_kinds_enable() -> None:
    """The remembered listing is used: states that agree on what the declared kinds read
    share one remembered entry (fewer entries than states listed)."""
    world = model_for_title(TITLES[0]).world
    memo = Memo(world)
    states = _states(world, 300)
    for state in states:
        enabled(world, state, memo)
    remembered = sum(len(segment.listed.entries) for segment in memo.listings[frozenset()] if segment.reads is not None)
    assert 0 < remembered < len(states)
