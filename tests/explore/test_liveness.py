"""Progress properties under weak fairness: each known pitfall on its own tiny graph, symmetry
and liveness, bounded graphs, and (Hypothesis) agreement with a brute-force oracle."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import Any

import networkx as nx  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.explore import PropertyResult, explore, replay
from yarnspec.checks.explore.bfs import SYMMETRY_OFF_FOR_LIVENESS
from yarnspec.checks.explore.liveness import StateGraph, find_lasso
from yarnspec.checks.explore.table import TableModel
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.spec.transition_system import TransitionSystem, always_eventually


def check(
    edges: list[list[Any]],
    goal: list[int],
    fair: list[str],
    premise: list[int] | None = None,
    initial: Sequence[int] = (0,),
    **bounds: int,
) -> tuple[TableModel, PropertyResult]:
    """Explore a table model with one progress property; return the model and its result."""
    prop = {"name": "p", "premise": premise, "goal": goal, "fair": fair}
    model = TableModel(list(initial), edges, progress=[prop])
    result = explore(model, deadlock=False, **bounds)  # type: ignore[arg-type]
    (found,) = result.properties
    return model, found


def lasso_states(found: PropertyResult) -> tuple[list[int], int]:
    trace = found.counterexample
    assert trace is not None and trace.loop_start is not None
    return [step.state for step in trace.steps], trace.loop_start


# A request (0 -> 1) that the scheduler may grant (1 -> 2, class sched); goal: granted.
REQUEST = [0, "request", "env", 1]
GRANT = [1, "grant", "sched", 2]


def test_holds_when_the_fair_step_is_always_there() -> None:
    _, found = check([REQUEST, GRANT], goal=[2], premise=[1], fair=["sched"])
    assert found.verdict.text == "holds (exhaustive)" and found.counterexample is None


# -- stuttering ----------------------------------------------------------------------------


def test_stutter_at_a_deadlock_violates() -> None:
    """No step out of state 1: the behaviour stays there for ever, which no SCC shows."""
    model, found = check([REQUEST], goal=[2], premise=[1], fair=["sched"])
    assert found.verdict.status == "violated"
    assert lasso_states(found) == ([0, 1], 1)
    assert found.counterexample is not None
    assert "stutters for ever at step 1 (no weakly fair class is enabled there)" in found.counterexample.message
    assert replay(model, found.counterexample).startswith("progress p violated")


def test_a_state_with_only_self_loops_is_stuttering() -> None:
    """A self-loop of a fair class is not a step: state 1 still stutters fairly."""
    _, found = check([REQUEST, [1, "tick", "clock", 1]], goal=[2], premise=[1], fair=["sched", "clock"])
    assert lasso_states(found) == ([0, 1], 1)


def test_a_self_loop_does_not_take_its_class() -> None:
    """Spinning on a self-loop of class sched while grant (sched) is enabled is unfair."""
    _, found = check([REQUEST, [1, "spin", "sched", 1], GRANT], goal=[2], premise=[1], fair=["sched"])
    assert found.verdict.status == "holds"


def test_without_fairness_any_pending_state_may_stop() -> None:
    _, found = check([REQUEST, GRANT], goal=[2], premise=[1], fair=[])
    assert lasso_states(found) == ([0, 1], 1)
    assert found.counterexample is not None and "no fairness is assumed" in found.counterexample.message


# -- components that are, or are not, fair loops -------------------------------------------

# 1 <-> 3 (wait: env, back: mon); grant (sched) from 1 to the goal 2
LOOP = [REQUEST, [1, "wait", "env", 3], [3, "back", "mon", 1], GRANT]


def test_class_enabled_throughout_and_never_taken_disqualifies_the_component() -> None:
    """sched is enabled in 1 and in 3 (grant leaves the component): the loop is unfair."""
    _, found = check(LOOP + [[3, "grant", "sched", 2]], goal=[2], premise=[1], fair=["sched", "mon"])
    assert found.verdict.status == "holds"


def test_class_enabled_only_sometimes_does_not_disqualify() -> None:
    """sched is not enabled in 3, so looping 1 -> 3 -> 1 is fair: a violation."""
    model, found = check(LOOP, goal=[2], premise=[1], fair=["sched", "mon"])
    assert lasso_states(found) == ([0, 1, 3, 1], 1)
    trace = found.counterexample
    assert trace is not None
    assert trace.message.endswith("fair because mon is not enabled at loop step 0; sched is not enabled at loop step 1")
    assert replay(model, trace).startswith("progress p violated")


def test_a_fair_class_taken_inside_the_component_satisfies_it() -> None:
    """sched stays enabled but the loop takes it (retry), so the loop is fair."""
    edges = [REQUEST, [1, "try", "sched", 3], [3, "retry", "sched", 1], [3, "finish", "env", 2]]
    _, found = check(edges, goal=[2], premise=[1], fair=["sched"])
    states, start = lasso_states(found)
    assert (states, start) == ([0, 1, 3, 1], 1)
    trace = found.counterexample
    assert trace is not None and [step.action for step in trace.steps[2:]] == ["try", "retry"]


def test_loop_is_a_few_concrete_states_not_the_whole_component() -> None:
    """A ring of six states (class ring) with a shortcut 2 -> 1 (class sched): the component
    is the whole ring, the loop reported is 1 -> 2 -> 1."""
    ring = [[i, f"r{i}", "ring", i % 6 + 1] for i in range(1, 7)]
    edges = [[0, "start", "ring", 1], *ring, [2, "back", "sched", 1]]
    model, found = check(edges, goal=[9], fair=["ring", "sched"])
    assert lasso_states(found) == ([0, 1, 2, 1], 1)
    assert found.counterexample is not None
    assert replay(model, found.counterexample).startswith("progress p violated")


# -- the prefix ------------------------------------------------------------------------------


def test_prefix_is_the_shortest_reachable_one() -> None:
    """The stuck state 4 is reachable in four steps and in two; the two-step path is reported."""
    edges = [[0, "a", "x", 1], [1, "b", "x", 2], [2, "c", "x", 3], [3, "d", "x", 4], [0, "e", "x", 5], [5, "f", "x", 4]]
    _, found = check(edges, goal=[9], premise=[4], fair=["x"])
    assert lasso_states(found) == ([0, 5, 4], 2)


def test_prefix_after_the_trigger_avoids_the_goal() -> None:
    """Triggered at 0; 3 is stuck. 0 -> 1 -> 3 passes the goal 1 (which answers the trigger),
    so the violating prefix is the longer 0 -> 2 -> 4 -> 3."""
    edges = [[0, "a", "x", 1], [1, "b", "x", 3], [0, "c", "x", 2], [2, "d", "x", 4], [4, "e", "x", 3]]
    _, found = check(edges, goal=[1], premise=[0], fair=["x"])
    assert lasso_states(found) == ([0, 2, 4, 3], 3)


def test_a_trigger_answered_by_the_goal_does_not_carry_over() -> None:
    """0 (premise) -> 1 (goal) -> 2 (stuck): the obligation of 0 is met at 1 and 2 has none;
    with the premise also at 2 the property is violated."""
    edges = [[0, "a", "x", 1], [1, "b", "x", 2]]
    assert check(edges, goal=[1], premise=[0], fair=["x"])[1].verdict.status == "holds"
    assert lasso_states(check(edges, goal=[1], premise=[0, 2], fair=["x"])[1]) == ([0, 1, 2], 2)


# -- bounds --------------------------------------------------------------------------------


def test_bounded_graph_gives_a_not_refuted_verdict_and_real_lassos_only() -> None:
    """The stuck state 3 is at depth 3. Bounded at depth 2, state 2 is expanded and a fair
    step leaves it: no violation claimed, the verdict says not refuted, by the depth limit."""
    edges = [[0, "a", "x", 1], [1, "b", "x", 2], [2, "c", "x", 3]]
    _, found = check(edges, goal=[9], fair=["x"], max_depth=2)
    assert found.verdict.text == "not refuted: the depth limit cut the search at depth 2, 3 states"
    _, found = check(edges, goal=[9], fair=["x"], max_depth=3)
    assert lasso_states(found) == ([0, 1, 2, 3], 3)


def test_progress_is_not_checked_after_a_safety_violation() -> None:
    model = TableModel([0], [REQUEST], bad=[1], progress=[{"name": "p", "premise": None, "goal": [2], "fair": []}])
    result = explore(model)
    assert result.properties[0].verdict.status == "unchecked"


# -- symmetry ------------------------------------------------------------------------------


class SwapPair(TransitionSystem[tuple[int, int], tuple[str, int]]):
    """Two identical processes with local states 0..2; process i steps by a table on (its own
    local, the other's local). Swapping the processes is a symmetry; fairness is per process.

    Found by a random search comparing verdicts: the quotient (states sorted) reports a fair
    violating loop that does not exist, because a step the quotient attributes to p1 is,
    in the concrete system, a step of p0 seen through the swap."""

    name = "swap-pair"
    variant = ""
    parameters: dict[str, Any] = {}
    STEP = {(0, 0): 1, (0, 1): 2, (1, 0): 2, (1, 1): 2, (1, 2): 0, (2, 1): 0}

    def initial_states(self) -> list[tuple[int, int]]:
        return [(0, 0)]

    def successors(self, state: tuple[int, int]) -> list[tuple[tuple[str, int], tuple[int, int]]]:
        out = []
        for i in (0, 1):
            key = (state[i], state[1 - i])
            if key in self.STEP:
                after = list(state)
                after[i] = self.STEP[key]
                out.append((("step", i), (after[0], after[1])))
        return out

    def action_class(self, action: tuple[str, int]) -> str:
        return f"step@p{action[1]}"

    def canonical(self, state: tuple[int, int]) -> Hashable:
        return tuple(sorted(state))

    def progress(self) -> tuple[Any, ...]:
        return (always_eventually("home", lambda s: tuple(sorted(s)) in {(0, 0), (0, 2)}, {"step@p0", "step@p1"}),)


def graph_of(model: TransitionSystem[Any, Any], key: Any) -> StateGraph:
    """The reachable graph with every state replaced by ``key(state)`` (a quotient when
    ``key`` is a canonical form), built here without the explorer."""
    start = [key(state) for state in model.initial_states()]
    seen, queue, expansions = set(start), list(start), []
    while queue:
        state = queue.pop()
        successors = [(action, key(target)) for action, target in model.successors(state)]
        expansions.append((state, successors))
        for _, target in successors:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return StateGraph.build(start, expansions)


def test_the_symmetry_quotient_would_report_a_false_violation() -> None:
    """Why symmetry is off for liveness: on this model the quotient's answer is wrong."""
    model = SwapPair()
    prop = model.progress()[0]
    assert find_lasso(graph_of(model, lambda s: s), prop, model.action_class) is None
    assert find_lasso(graph_of(model, model.canonical), prop, model.action_class) is not None
    result = explore(model, symmetry=True, deadlock=False)
    assert result.notes == (SYMMETRY_OFF_FOR_LIVENESS,) and not result.stats.symmetry
    assert result.properties[0].verdict.status == "holds"


def test_symmetry_request_with_progress_gives_the_plain_answer() -> None:
    model = ToyModel(2, 2, 1)
    reduced, plain = explore(model, symmetry=True), explore(model)
    assert reduced.notes == (SYMMETRY_OFF_FOR_LIVENESS,)
    assert reduced.to_json()["properties"] == plain.to_json()["properties"]
    assert reduced.stats.distinct_states == plain.stats.distinct_states == 9


def test_toy_progress_properties() -> None:
    model = ToyModel(2, 2, 1)
    drains, empties = explore(model).properties
    assert drains.verdict.status == "holds"
    assert empties.verdict.status == "violated" and empties.counterexample is not None
    assert replay(model, empties.counterexample).startswith("progress cluster-empties violated")


# -- random graphs against a brute-force oracle ----------------------------------------------

CLASSES = ["a", "b", "c"]


@st.composite
def liveness_cases(draw: st.DrawFn) -> tuple[list[list[Any]], list[int], list[int] | None, list[str]]:
    size = draw(st.integers(1, 6))
    state = st.integers(0, size - 1)
    triples = draw(st.lists(st.tuples(state, st.sampled_from(CLASSES), state), min_size=size, max_size=3 * size))
    edges = [[a, f"e{i}", cls, b] for i, (a, cls, b) in enumerate(triples)]
    goal = draw(st.lists(state, max_size=2, unique=True))
    premise = draw(st.none() | st.lists(state, min_size=1, max_size=3, unique=True))
    fair = draw(st.lists(st.sampled_from(CLASSES), min_size=1, unique=True))
    return edges, goal, premise, fair


def oracle(edges: list[list[Any]], goal: list[int], premise: list[int] | None, fair: list[str]) -> int | None:
    """The length of the shortest prefix of a fair violating lasso, or None; by brute force
    over every set of states (a fair loop's states are a strongly connected set where each
    fair class is taken on an inner edge or not enabled at one of its states)."""
    graph = nx.MultiDiGraph()
    graph.add_nodes_from({0} | {e[0] for e in edges} | {e[3] for e in edges})
    for a, _, cls, b in edges:
        graph.add_edge(a, b, cls=cls)
    outside = [n for n in graph if n not in goal]
    triggers = [n for n in outside if premise is None or n in premise]
    after = graph.subgraph(outside)
    region = set(triggers) | {m for t in triggers for m in nx.descendants(after, t)}

    def enabled(node: int) -> set[str]:
        return {d["cls"] for _, b, d in graph.out_edges(node, data=True) if b != node and d["cls"] in fair}

    loop_states = {n for n in region if not enabled(n)}
    for size in range(2, len(region) + 1):
        for group in itertools.combinations(sorted(region), size):
            inner = [(a, b, d["cls"]) for a, b, d in graph.subgraph(group).edges(data=True) if a != b]
            plain = nx.DiGraph([(a, b) for a, b, _ in inner])
            if len(plain) != size or not nx.is_strongly_connected(plain):
                continue
            if all(any(c == f for _, _, c in inner) or any(f not in enabled(n) for n in group) for f in fair):
                loop_states |= set(group)
    if not loop_states:
        return None
    to_all = nx.single_source_shortest_path_length(graph, 0)
    best = None
    for t in triggers:
        if t not in to_all:
            continue
        from_t = nx.single_source_shortest_path_length(after, t)
        for c in loop_states & set(from_t):
            length = to_all[t] + from_t[c]
            best = length if best is None else min(best, length)
    return best


@settings(max_examples=300)
@given(liveness_cases())
def test_lassos_agree_with_the_brute_force_oracle(
    case: tuple[list[list[Any]], list[int], list[int] | None, list[str]],
) -> None:
    edges, goal, premise, fair = case
    model, found = check(edges, goal=goal, premise=premise, fair=fair)
    expected = oracle(edges, goal, premise, fair)
    if expected is None:
        steps = nx.DiGraph([(a, b) for a, _, _, b in edges])
        steps.add_node(0)
        reachable = {0} | nx.descendants(steps, 0)
        premise_states = None if premise is None else len(reachable & set(premise))
        assert found.premise_states == premise_states
        assert found.verdict.status == ("vacuous" if premise_states == 0 else "holds")
        return
    assert found.premise_states is None or found.premise_states > 0
    trace = found.counterexample
    assert trace is not None and trace.loop_start == expected
    assert replay(model, trace).startswith("progress p violated")
