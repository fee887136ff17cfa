"""The scheduler model as a transition system: the explorer runs it, finds the seed stories,
and its canonical form is a true symmetry."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.explore import explore, replay
from yarnspec.impl.scheduler.actions import enabled, start, take
from yarnspec.impl.scheduler.bookkeeping.canonical import Symmetry, canonical_form
from yarnspec.impl.scheduler.state import NONE, Proposal, SchedulerState
from yarnspec.spec.scheduler.invariants import STATE_INVARIANTS, STEP_INVARIANTS, check_state
from yarnspec.spec.scheduler.model import ModelState, SchedulerModel
from yarnspec.spec.worlds.catalogue import model_for_title
from yarnspec.spec.worlds.world_builders import model, two_queues_world

TWO_QUEUES = two_queues_world(asynchronous=True)


def test_the_model_speaks_the_protocol() -> None:
    m = model("two-queues")
    (initial,) = m.initial_states()
    assert isinstance(initial, ModelState) and initial.broken == ()
    names = [i.name for i in m.invariants()]
    assert names == [i.name for i in STATE_INVARIANTS] + [i.name for i in STEP_INVARIANTS]
    state = initial
    for _ in range(6):
        steps = m.successors(state)
        labels = [m.action_label(a) for a, _ in steps]
        assert len(labels) == len(set(labels)), labels
        state = steps[0][1]
    assert {m.action_class(a) for a, _ in m.successors(initial)} >= {"submit", "tick"}
    json.dumps(m.state_json(state))
    assert m.variant == "heartbeat/single-node/yarn-8127" and m.progress() == []


def test_a_stuttering_step_leads_to_the_state_itself_and_only_then() -> None:
    """A step that changes nothing (the clock at its bound) gives the state object itself, which
    the explorer knows without hashing; a step that changes something, or a stuttering step
    from a state that records broken step invariants, gives a new state."""
    m = model("async-double-commit", commit="yarn-8127")
    (initial,) = m.initial_states()
    state = initial
    for _ in range(3):  # up to the clock bound (a tick from there stutters)
        state = next(target for action, target in m.successors(state) if m.action_kind(action) == "tick")
    ticks = [target for action, target in m.successors(state) if m.action_kind(action) == "tick"]
    assert ticks == [state] and ticks[0] is state
    assert all(target is not state for action, target in m.successors(state) if m.action_kind(action) != "tick")
    broken = ModelState(state.scheduler, (("allocation-within-queue-max", "a test"),))
    tick = next(target for action, target in m.successors(broken) if m.action_kind(action) == "tick")
    assert tick is not broken and tick == ModelState(state.scheduler)


def test_the_explorer_finds_the_yarn_8127_leak_and_the_trace_replays() -> None:
    m = model("async-double-commit", commit="pre-8127")
    result = explore(m, symmetry=True)
    trace = result.violation
    assert trace is not None and trace.property == "node-used-is-sum-of-containers"
    actions = [step.action for step in trace.steps[1:]]
    assert actions[-2:] == ["commit(allocate app1/r1 on n0 from c3)"] * 2
    assert "violated" in replay(model("async-double-commit", commit="pre-8127"), trace)


def test_with_the_check_the_same_world_holds_as_far_as_explored() -> None:
    result = explore(model("async-double-commit", commit="yarn-8127"), symmetry=True, max_states=1500)
    assert result.violation is None and result.verdict.status != "violated"


def test_seed_003_starves_under_yarn_8127_and_not_with_yarn_10259() -> None:
    starving = explore(model("reserved-starvation", commit="yarn-8127"))
    (prop,) = starving.properties
    assert prop.counterexample is not None
    loop = [step.action for step in prop.counterexample.steps[(prop.counterexample.loop_start or 0) + 1 :]]
    assert "commit(allocate app1/r1 on n1 from c1)" in loop
    fixed = explore(model("reserved-starvation", commit="yarn-8127", reserve="yarn-10259"))
    assert fixed.violation is None and all(p.counterexample is None for p in fixed.properties)


# -- symmetry -------------------------------------------------------------------------------


def renamed(state: SchedulerState, nodes: tuple[int, ...], apps: tuple[int, ...]) -> SchedulerState:
    """``state`` with node ``i`` called ``nodes[i]`` and application ``j`` called ``apps[j]``
    (an independent implementation of the renaming the canonical form quotients by)."""
    node_slots = [state.nodes[0]] * len(state.nodes)
    for old, node in enumerate(state.nodes):
        node_slots[nodes[old]] = node
    app_slots = list(state.apps)
    for old, app in enumerate(state.apps):
        app_slots[apps[old]] = app
    containers = tuple(c._replace(app=apps[c.app], node=nodes[c.node]) for c in state.containers)
    proposals = tuple(sorted(p._replace(app=apps[p.app], node=nodes[p.node]) for p in state.proposals))
    order = tuple(tuple(nodes[n] for n in part) for part in state.node_order)
    return state._replace(
        nodes=tuple(node_slots), apps=tuple(app_slots), containers=containers, proposals=proposals, node_order=order
    )


def walk(world: object, choices: list[int]) -> SchedulerState:
    assert world is TWO_QUEUES
    state = start(TWO_QUEUES)
    for choice in choices:
        actions = enabled(TWO_QUEUES, state)
        state = take(TWO_QUEUES, state, actions[choice % len(actions)]).state
    return state


SYMMETRY = Symmetry.of(TWO_QUEUES)


def test_the_two_queue_world_has_the_expected_symmetry() -> None:
    assert SYMMETRY.node_groups == ((0, 1),) and SYMMETRY.app_groups == ((0, 1),)
    assert len(SYMMETRY.renamings) == 4


@settings(max_examples=25)
@given(choices=st.lists(st.integers(0, 50), max_size=25), swap_nodes=st.booleans(), swap_apps=st.booleans())
def test_canonical_form_is_a_symmetry(choices: list[int], swap_nodes: bool, swap_apps: bool) -> None:
    state = walk(TWO_QUEUES, choices)
    nodes = (1, 0) if swap_nodes else (0, 1)
    apps = (1, 0, 2) if swap_apps else (0, 1, 2)
    image = renamed(state, nodes, apps)
    assert canonical_form(SYMMETRY, image) == canonical_form(SYMMETRY, state)
    assert [n for n, _ in check_state(TWO_QUEUES, image)] == [n for n, _ in check_state(TWO_QUEUES, state)]
    ours = {canonical_form(SYMMETRY, take(TWO_QUEUES, state, a).state) for a in enabled(TWO_QUEUES, state)}
    theirs = {canonical_form(SYMMETRY, take(TWO_QUEUES, image, a).state) for a in enabled(TWO_QUEUES, image)}
    assert ours == theirs


def test_canonical_form_tells_different_states_apart() -> None:
    state = walk(TWO_QUEUES, [0, 0, 0, 0, 0, 0])
    assert canonical_form(SYMMETRY, state) != canonical_form(SYMMETRY, start(TWO_QUEUES))
    stale = state._replace(proposals=(Proposal(0, 2, 1, 0),))  # type: ignore[arg-type]
    assert canonical_form(SYMMETRY, stale) != canonical_form(SYMMETRY, state)
    assert SchedulerModel(TWO_QUEUES).canonical(ModelState(state)) != SchedulerModel(TWO_QUEUES).canonical(
        ModelState(state, (("x", "y"),))
    )
    assert NONE == -1


#: A walk of the two-queue world that ends with containers of both applications on both nodes.
TWO_APPS_ON_TWO_NODES = [37, 18, 2, 39, 33, 20, 18, 2, 31, 5, 10, 47, 40, 49, 43, 48, 38]


@pytest.mark.parametrize("swap_nodes, swap_apps", [(False, True), (True, False), (True, True)])
def test_canonical_form_is_a_symmetry_also_with_a_container_id_twice(swap_nodes: bool, swap_apps: bool) -> None:
    """The canonical form orders containers by id rank once per state; where two containers
    share an id (a broken state), their order depends on the renaming, and the form must still
    be the same for a state and its image (regression for that tie)."""
    state = walk(TWO_QUEUES, TWO_APPS_ON_TWO_NODES)
    first, *rest = state.containers
    other = next(c for c in rest if c.app != first.app and c.node != first.node)
    broken = state._replace(containers=(*state.containers, first._replace(cid=other.cid)))
    image = renamed(broken, (1, 0) if swap_nodes else (0, 1), (1, 0, 2) if swap_apps else (0, 1, 2))
    assert canonical_form(SYMMETRY, image) == canonical_form(SYMMETRY, broken)


def brute_canonical_form(symmetry: Symmetry, state: SchedulerState) -> object:
    """The definition of the canonical form: the least identity encoding of every renamed state."""
    identity_only = Symmetry(symmetry.world, (), ())
    return min(canonical_form(identity_only, renamed(state, nodes, apps)) for nodes, apps in symmetry.renamings)  # type: ignore[type-var]


def reachable(m: SchedulerModel, limit: int) -> list[SchedulerState]:
    """The first ``limit`` states of a breadth-first walk of ``m`` (without symmetry)."""
    (initial,) = m.initial_states()
    seen, queue = {initial}, [initial]
    for state in queue:
        for _, after in m.successors(state):
            if after not in seen and len(seen) < limit:
                seen.add(after)
                queue.append(after)
    return [s.scheduler for s in queue]


@pytest.mark.parametrize(
    "title", ["two-queues", "no-leak/yarn-8127", "big-container-livelock/default", "big-container-reserved/lazy"]
)
def test_canonical_form_is_the_least_encoding_over_every_renaming(title: str) -> None:
    m = SchedulerModel(TWO_QUEUES) if title == "two-queues" else model_for_title(title)
    symmetry = Symmetry.of(m.world)
    assert len(symmetry.renamings) > 1
    states = reachable(m, 400)
    tied = 0
    for state in states:
        assert canonical_form(symmetry, state) == brute_canonical_form(symmetry, state)
        tied += len(set(state.nodes)) < len(state.nodes)
    assert tied > 0  # states whose interchangeable nodes are alike, where several renamings tie
