"""Each scenario's verdict under each variant, at the scenario's fast bounds, and the shape of
the counterexamples: the story each trace tells is the one the scenario claims."""

from __future__ import annotations

import functools

import pytest

from yarnspec.checks.explore import Trace, explore
from yarnspec.checks.suites.scenarios import ScenarioOutcome, explore_variant
from yarnspec.impl.scheduler.inputs.settings import CONTINUE_LOOKING_KEY
from yarnspec.spec.scheduler.invariants import check_state
from yarnspec.spec.scheduler.model import ModelState, SchedulerModel
from yarnspec.spec.worlds.catalogue import SCENARIOS, ExploreBounds, ScenarioModel


@functools.cache
def outcome(scenario: str, variant: str, exhaustive: bool = False) -> ScenarioOutcome:
    """One run per (scenario, variant) for the whole module: fast bounds unless exhaustive."""
    s = SCENARIOS[scenario]
    return explore_variant(s, s.variant(variant), s.bounds if exhaustive else s.fast)


def last_state(model: SchedulerModel, trace: Trace) -> ModelState:
    """The state the trace ends in, by following its action labels on the model."""
    (state,) = model.initial_states()
    for step in trace.steps[1:]:
        (state,) = [target for action, target in model.successors(state) if model.action_label(action) == step.action][
            :1
        ]
    return state


def loop_actions(trace: Trace) -> list[str]:
    assert trace.loop_start is not None
    return [step.action or "" for step in trace.steps[trace.loop_start + 1 :]]


@pytest.mark.parametrize(
    "scenario, variant",
    [(s.name, v.name) for s in SCENARIOS.values() for v in s.variants],
)
def test_the_verdict_at_fast_bounds_is_the_expected_one(scenario: str, variant: str) -> None:
    result = outcome(scenario, variant)
    expected = SCENARIOS[scenario].variant(variant).expected
    assert result.agree, result.judgement()
    assert (result.verdict.status == "violated") == (expected == "violated")
    assert result.exit_status() == 0
    assert (result.trace is not None) == (expected == "violated")


def test_pre_8127_leaks_through_two_commits_of_one_reservation() -> None:
    trace = outcome("async-double-commit", "pre-8127").trace
    assert trace is not None and trace.kind == "invariant"
    assert trace.property == "node-used-is-sum-of-containers"
    actions = [step.action for step in trace.steps[1:]]
    assert actions[-2:] == ["commit(allocate app1/r1 on n0 from c3)"] * 2
    model = SCENARIOS["async-double-commit"].model(SCENARIOS["async-double-commit"].variant("pre-8127"))
    last = last_state(model, trace)
    assert model.state_json(last) == trace.steps[-1].state
    broken = {name for name, _ in check_state(model.world, last.scheduler)}
    assert {"node-used-is-sum-of-containers", "cluster-conservation"} <= broken


def test_yarn_8127_starves_the_reservation_by_refusing_it_on_the_other_node() -> None:
    trace = outcome("reserved-starvation", "yarn-8127").trace
    assert trace is not None and trace.kind == "progress" and trace.property == "reservation-progress"
    assert any(a.startswith("commit(allocate app1/r1 on n1 from c") for a in loop_actions(trace))


def test_reserved_pickup_starves_because_the_reserved_node_sorts_first() -> None:
    """The evidence for the corrected expectation: on the loop the reservation is re-reserved
    on n0 while n1, the more allocated node, has room for it."""
    trace = outcome("reserved-starvation", "reserved-pickup").trace
    assert trace is not None and trace.loop_start is not None
    assert any(a.startswith("commit(rereserve app1/r1 on n0 from c") for a in loop_actions(trace))
    assert not any(" on n1" in a for a in loop_actions(trace))
    for step in trace.steps[trace.loop_start :]:
        nodes = step.state["nodes"]
        assert nodes["n0"]["reserved"] >= 0
        assert nodes["n1"]["used"][0] > nodes["n0"]["used"][0]  # n1 sorts after n0 ...
        assert nodes["n1"]["free"][0] >= 4096  # ... and has room for the 4 GB container


def test_the_pickup_holds_exhaustively_with_one_worker_container() -> None:
    result = outcome("reserved-starvation", "reserved-pickup-one-container", exhaustive=True)
    assert result.verdict.status == "holds" and result.verdict.text == "holds (exhaustive)"


def test_one_container_world_still_starves_under_yarn_8127() -> None:
    """The one-container world is not simply too small to starve: the YARN-8127 check still
    starves it, so the pick-up is what makes it hold."""
    s = SCENARIOS["reserved-starvation"]
    world = s.build(commit="yarn-8127", bounds={"max_containers": 2})
    (prop,) = explore(SchedulerModel(world, "check"), max_depth=14).properties
    assert prop.verdict.status == "violated"


def test_without_blocked_headroom_the_big_container_livelock_is_a_preemption_cycle() -> None:
    """pre-4280 (the 2.7.x scheduler): the loop kills the lender's newest container and the
    lender takes the freed space back; the borrower holds no reservation anywhere on it and its
    2 GB container is never allocated."""
    trace = outcome("big-container-livelock", "pre-4280").trace
    assert trace is not None and trace.kind == "progress" and trace.property == "guarantee-progress"
    actions = loop_actions(trace)
    assert "monitor" in actions and "ask(app_A, r1)" in actions
    assert any(a.startswith("heartbeat(") for a in actions)
    loop = trace.steps[trace.loop_start or 0 :]
    sizes = [len(step.state["containers"]) for step in loop]
    assert min(sizes) < max(sizes)  # a container is killed and another allocated on the loop
    for step in loop:
        assert all(node["reserved"] == -1 for node in step.state["nodes"].values())
        b_containers = [c for c in step.state["containers"] if c["app"] == "app_B"]
        assert [c["resource"][0] for c in b_containers] == [1024]  # only B's AM
        assert step.state["apps"]["app_B"]["asks"] == [0, 1]


@pytest.mark.parametrize("variant", ["default", "reserved-selector"])
def test_with_blocked_headroom_the_borrower_reserves_and_both_queues_sit_at_their_guarantee(variant: str) -> None:
    """Hadoop 2.8 and later (YARN-4280): the lender no longer takes the freed space back; the
    borrower reserves its 2 GB on a node with 1 GB free, and from then on nothing is killed:
    each queue holds exactly its 3 GB guarantee (the reservation counts in B's), so neither
    selector may take the lender's container on the reserved node."""
    trace = outcome("big-container-livelock", variant).trace
    assert trace is not None and trace.kind == "progress" and trace.property == "guarantee-progress"
    assert "monitor" in loop_actions(trace) and "ask(app_A, r1)" not in loop_actions(trace)
    loop = trace.steps[trace.loop_start or 0 :]
    assert len({len(step.state["containers"]) for step in loop}) == 1  # nothing killed on the loop
    for step in loop:
        reserved = [n for n in step.state["nodes"].values() if n["reserved"] >= 0]
        assert len(reserved) == 1 and reserved[0]["free"][0] == 1024
        queues = step.state["queues"]
        assert queues["root.A"][""][0] == queues["root.B"][""][0] == 3 * 1024


@pytest.mark.parametrize("headroom, reserves", [("yarn-8804", True), ("pre-4280", False)])
def test_the_big_container_verdict_does_not_depend_on_continue_looking(headroom: str, reserves: bool) -> None:
    """With reservations-continue-look-all-nodes off the selector variant starves the same way:
    with blocked headroom B reserves (and waits), without it B never reserves (its headroom is
    the cluster's free space, short of its container)."""
    s = SCENARIOS["big-container-livelock"]
    options = s.variant("reserved-selector").options
    world = s.build(
        **{**options, "headroom": headroom, "properties": {**options["properties"], CONTINUE_LOOKING_KEY: "false"}}
    )
    model = ScenarioModel(world, "t", ("guarantee-progress",), s.setup, s.quiet)
    assert not model.world.settings.continue_looking
    (prop,) = explore(model).properties
    assert prop.verdict.status == "violated"
    assert prop.counterexample is not None
    steps = prop.counterexample.steps
    assert any(any(n["reserved"] >= 0 for n in step.state["nodes"].values()) for step in steps) == reserves


def test_the_default_selector_leaves_a_spread_reservation_waiting() -> None:
    """big-container-reserved under the FIFO selector: B holds a reservation on one node, two
    nodes have a free gigabyte each, nothing is preempted on the loop, and B's container never
    comes."""
    trace = outcome("big-container-reserved", "default").trace
    assert trace is not None and trace.kind == "progress" and trace.property == "guarantee-progress"
    assert "monitor" in loop_actions(trace)
    loop = trace.steps[trace.loop_start or 0 :]
    assert len({len(step.state["containers"]) for step in loop}) == 1  # nothing killed on the loop
    for step in loop:
        nodes = step.state["nodes"].values()
        reserved = [n for n in nodes if n["reserved"] >= 0]
        assert len(reserved) == 1 and reserved[0]["free"][0] == 1024
        assert sum(n["free"][0] for n in nodes) == 2 * 1024  # and one more free gigabyte elsewhere
        assert step.state["apps"]["app_B"]["reserved"] == {"": [2048, 2]}
        assert [(c["resource"][0], c["state"]) for c in step.state["containers"] if c["app"] == "app_B"] == [
            (1024, "RUNNING"),
            (2048, "RESERVED"),
        ]


def test_the_reserved_selector_serves_the_spread_reservation_exhaustively() -> None:
    result = outcome("big-container-reserved", "reserved-selector", exhaustive=True)
    assert result.verdict.status == "holds" and result.verdict.text == "holds (exhaustive)"


@pytest.mark.parametrize("reserved_selector, expected", [(False, "violated"), (True, "holds")])
def test_with_the_default_termination_factor_the_spread_world(reserved_selector: bool, expected: str) -> None:
    """The same world with natural_termination_factor at its default 0.2: a round frees one
    container, short of B's, but B's blocked headroom keeps the freed space from the lender
    (YARN-4280), so B soon reserves; the reserved selector then frees the reserved node
    (holds, exhaustive), while the FIFO selector sees B satisfied and leaves the reservation
    waiting on a node with 1 GB free."""
    s = SCENARIOS["big-container-reserved"]
    options = s.variant("reserved-selector" if reserved_selector else "default").options
    default_factor = {"yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor": "0.2"}
    world = s.build(**{**options, "properties": {**options.get("properties", {}), **default_factor}})
    (prop,) = explore(ScenarioModel(world, "t", ("guarantee-progress",), s.setup, s.quiet)).properties
    assert prop.verdict.status == expected
    if expected == "violated":
        assert prop.counterexample is not None and prop.counterexample.loop_start is not None
        loop = prop.counterexample.steps[prop.counterexample.loop_start :]
        for step in loop:
            reserved = [n for n in step.state["nodes"].values() if n["reserved"] >= 0]
            assert len(reserved) == 1 and reserved[0]["free"][0] == 1024
    else:
        assert prop.verdict.text == "holds (exhaustive)"


#: A shortest path (12 steps, found by breadth-first search) to a monitor round that kills:
#: with n0 lost, A fills n1, B's AM waits, the monitor marks A's newest container and kills it.
NO_LEAK_KILL = (
    "submit(A)", "lose-node(n0)", "propose(n1)", "commit(allocate A/r0 on n1)", "launch(c0)", "ask(A, r1)",
    "propose(n1)", "submit(B)", "commit(allocate A/r1 on n1)", "monitor", "tick", "monitor",
)  # fmt: skip


def test_no_leak_reaches_preemption_within_its_bound() -> None:
    """Preemption is inside the explored part: a monitor round marks within the fast bound and
    kills at depth 12, the default bound, along a path whose every step the model enables."""
    scenario = SCENARIOS["no-leak"]
    model = scenario.model(scenario.variants[0])
    (state,) = model.initial_states()
    sizes, marks = [], []
    for wanted in NO_LEAK_KILL:
        (state,) = [t for a, t in model.successors(state) if model.action_label(a) == wanted]
        sizes.append(len(state.scheduler.containers))
        marks.append(len(state.scheduler.marks))
    assert len(NO_LEAK_KILL) == scenario.bounds.max_depth
    assert marks.index(1) < (scenario.fast.max_depth or 0)  # marked at step 10
    assert sizes[-1] == sizes[-2] - 1 and marks[-1] == 0  # the last round killed the marked container


def test_a_bound_too_small_to_see_the_violation_disagrees() -> None:
    s = SCENARIOS["async-double-commit"]
    result = explore_variant(s, s.variant("pre-8127"), ExploreBounds(max_depth=5, symmetry=True))
    assert result.verdict.status == "not-refuted" and not result.agree and result.exit_status() == 3
    assert result.verdict.limit == "depth" and result.verdict.depth == 5
    assert "MISMATCH" in result.judgement()


def test_the_node_cost_selector_leaves_the_borrower_reserved_beside_its_own_master() -> None:
    """big-container-livelock under seed 002's remedy: on the loop the borrower's 2 GB container
    is reserved on the 2 GB node that holds its own 1 GB AM, where it can never fit, and the
    loop is only the clock and the monitor."""
    trace = outcome("big-container-livelock", "node-cost").trace
    assert trace is not None and trace.kind == "progress" and trace.property == "guarantee-progress"
    assert set(loop_actions(trace)) == {"monitor", "tick"}
    for step in trace.steps[trace.loop_start or 0 :]:
        b = [c for c in step.state["containers"] if c["app"] == "app_B"]
        (am,) = [c for c in b if c["am"]]
        (reserved,) = [c for c in b if c["state"] == "RESERVED"]
        assert reserved["node"] == am["node"] and reserved["resource"][0] == 2048


def test_without_blocked_headroom_the_node_cost_selector_loses_the_free_gigabyte_to_the_lender() -> None:
    """big-container-reserved under seed 002's remedy and the 2.7.x scheduler: the loop marks a
    lender container while the lender asks again and takes a free gigabyte at a heartbeat;
    the borrower never holds a container beyond its AM."""
    trace = outcome("big-container-reserved", "node-cost+pre-4280").trace
    assert trace is not None and trace.kind == "progress" and trace.property == "guarantee-progress"
    actions = loop_actions(trace)
    assert "monitor" in actions and "ask(app_A, r1)" in actions and any(a.startswith("heartbeat(") for a in actions)
    for step in trace.steps[trace.loop_start or 0 :]:
        assert [c["resource"][0] for c in step.state["containers"] if c["app"] == "app_B"] == [1024]


def test_with_blocked_headroom_the_node_cost_selector_serves_the_big_container() -> None:
    """The same world and selector with YARN-4280's blocked headroom: no counterexample within
    the fast bounds, where the 2.7.x scheduler's lasso is found (the test above); the
    exhaustive verdict is in the scenario benchmark."""
    result = outcome("big-container-reserved", "node-cost")
    assert result.verdict.status in {"holds", "not-refuted"} and result.trace is None
