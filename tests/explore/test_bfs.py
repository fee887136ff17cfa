"""The breadth-first explorer: verdicts and bounds, deadlock on and off, statistics, errors,
and (Hypothesis) agreement with networkx on random explicit graphs."""

from __future__ import annotations

import json
import sys

import networkx as nx  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.explore import explore
from yarnspec.checks.explore.table import TableModel
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.impl.errors import InputError

# 0 -> 1 -> 2 -> 3, and 0 -> 4; 3 and 4 have no step out
CHAIN = [[0, "a", "x", 1], [1, "b", "x", 2], [2, "c", "x", 3], [0, "d", "x", 4]]


def test_exhaustive_verdict() -> None:
    result = explore(TableModel([0], CHAIN), deadlock=False)
    assert result.verdict.status == "holds"
    assert result.verdict.text == "holds (exhaustive)"
    assert (result.stats.distinct_states, result.stats.transitions, result.stats.depth) == (5, 4, 3)


def test_depth_bound_gives_a_not_refuted_verdict_naming_the_depth() -> None:
    result = explore(TableModel([0], CHAIN), deadlock=False, max_depth=2)
    assert result.verdict.status == "not-refuted" and result.verdict.limit == "depth"
    assert result.verdict.text == "not refuted: the depth limit cut the search at depth 2, 4 states"
    assert result.to_json()["limit"] == {"kind": "depth", "depth": 2, "states": 4}
    assert result.stats.depth == 2
    assert result.stats.transitions == 4  # the states at depth 2 are still expanded


def test_a_depth_bound_that_covers_everything_is_exhaustive() -> None:
    assert explore(TableModel([0], CHAIN), deadlock=False, max_depth=3).verdict.text == "holds (exhaustive)"


def test_state_bound_gives_a_not_refuted_verdict_naming_the_state_limit() -> None:
    result = explore(TableModel([0], CHAIN), deadlock=False, max_states=3)
    assert result.verdict.text == "not refuted: the state limit cut the search at depth 1, 3 states"
    assert result.verdict.limit == "states"
    assert result.stats.distinct_states == 3


def test_a_state_bound_equal_to_the_state_count_is_exhaustive() -> None:
    assert explore(TableModel([0], CHAIN), deadlock=False, max_states=5).verdict.text == "holds (exhaustive)"


def test_violation_beyond_the_bound_is_not_seen_but_within_it_is() -> None:
    model = TableModel([0], CHAIN, bad=[3])
    assert explore(model, deadlock=False, max_depth=2).verdict.status == "not-refuted"
    result = explore(model, deadlock=False, max_depth=3)
    assert result.verdict.text == "violated"
    assert result.violation is not None and result.violation.message == "state 3 is bad"


def test_bad_initial_state_is_a_trace_of_one_step() -> None:
    result = explore(TableModel([0], CHAIN, bad=[0]), deadlock=False)
    assert result.violation is not None
    assert [step.state for step in result.violation.steps] == [0]


def test_deadlock_detected_with_its_shortest_trace() -> None:
    result = explore(TableModel([0], CHAIN))
    assert result.verdict.status == "violated"
    trace = result.violation
    assert trace is not None and trace.kind == "deadlock"
    assert [(step.action, step.state) for step in trace.steps] == [(None, 0), ("d", 4)]


def test_deadlock_detection_can_be_switched_off() -> None:
    assert explore(TableModel([0], CHAIN), deadlock=False).verdict.status == "holds"


def test_self_loop_is_not_a_deadlock() -> None:
    model = TableModel([0], [[0, "go", "x", 1], [1, "idle", "x", 1]])
    assert explore(model).verdict.status == "holds"


def test_symmetry_is_kept_without_progress_properties() -> None:
    result = explore(ToyModel(2, 2, 1), symmetry=True, check_progress=False)
    assert result.stats.symmetry and result.notes == ()


def test_statistics_are_consistent_and_json_able() -> None:
    result = explore(ToyModel(3, 3, 2), check_progress=False)
    stats = result.stats
    assert stats.seconds > 0 and stats.cpu_seconds > 0
    assert stats.states_per_second == pytest.approx(stats.distinct_states / stats.seconds, rel=0.01)
    assert stats.store_bytes == pytest.approx(stats.bytes_per_state * stats.distinct_states, rel=0.01)
    assert stats.peak_rss_bytes > stats.store_bytes
    data = json.loads(json.dumps(result.to_json()))
    assert data["stats"]["distinct_states"] == 343 and data["verdict"] == "holds (exhaustive)"
    assert "343 distinct states" in result.report()


def test_store_is_smaller_than_a_set_of_tuples() -> None:
    """The visited-state store (int states, parent links) against the same states kept as a set
    of tuples of the per-node (holders, used) numbers."""
    model = ToyModel(4, 3, 2)
    result = explore(model, check_progress=False)
    order = [0]
    seen = {0}
    for state in order:
        for _, target in model.successors(state):
            if target not in seen:
                seen.add(target)
                order.append(target)
    as_tuples = {tuple(value for field in model.fields(state) for value in field) for state in order}
    tuple_bytes = sys.getsizeof(as_tuples) + sum(map(sys.getsizeof, as_tuples))
    assert result.stats.distinct_states == len(as_tuples)
    assert result.stats.store_bytes < 0.6 * tuple_bytes


@pytest.mark.parametrize("kwargs, place", [({"max_depth": -1}, "max_depth"), ({"max_states": 0}, "max_states")])
def test_bad_bounds_name_the_argument(kwargs: dict[str, int], place: str) -> None:
    with pytest.raises(InputError) as caught:
        explore(ToyModel(1, 1, 1), **kwargs)  # type: ignore[arg-type]
    assert caught.value.place == place


def test_a_model_without_initial_states_is_an_input_error() -> None:
    with pytest.raises(InputError, match="table: initial_states: the model has no initial state"):
        explore(TableModel([], CHAIN))


def test_a_state_bound_below_the_initial_states_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        explore(TableModel([0, 1, 2], CHAIN), max_states=2)
    assert caught.value.place == "max_states" and "below the number of initial states" in caught.value.fault


# -- random explicit graphs against networkx ------------------------------------------------


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[list[object]], list[int], list[int]]:
    """A random graph on ``size`` states: edges, initial states, bad states."""
    size = draw(st.integers(1, 12))
    pairs = draw(st.lists(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)), max_size=30))
    edges: list[list[object]] = [[a, f"e{i}", "x", b] for i, (a, b) in enumerate(pairs)]
    initial = draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=3))
    bad = draw(st.lists(st.integers(0, size - 1), max_size=3))
    return size, edges, initial, bad


def as_networkx(size: int, edges: list[list[object]]) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(range(size))
    graph.add_edges_from((edge[0], edge[3]) for edge in edges)
    return graph


def distances(graph: nx.DiGraph, initial: list[int]) -> dict[int, int]:
    """Fewest steps from any initial state to each reachable state."""
    return dict(nx.multi_source_dijkstra_path_length(graph, set(initial)))


@settings(max_examples=150)
@given(graphs())
def test_distinct_states_are_the_reachable_nodes(graph: tuple[int, list[list[object]], list[int], list[int]]) -> None:
    size, edges, initial, _ = graph
    result = explore(TableModel(initial, edges), deadlock=False)
    reachable = distances(as_networkx(size, edges), initial)
    assert result.stats.distinct_states == len(reachable)
    assert result.stats.depth == max(reachable.values())
    reachable_edges = [edge for edge in edges if edge[0] in reachable]
    assert result.stats.transitions == len(reachable_edges)


@settings(max_examples=150)
@given(graphs(), st.integers(0, 4))
def test_depth_bound_counts_the_states_within_the_depth(
    graph: tuple[int, list[list[object]], list[int], list[int]], bound: int
) -> None:
    size, edges, initial, _ = graph
    result = explore(TableModel(initial, edges), deadlock=False, max_depth=bound)
    reachable = distances(as_networkx(size, edges), initial)
    assert result.stats.distinct_states == sum(1 for d in reachable.values() if d <= bound)
    assert (result.verdict.status == "not-refuted") == (max(reachable.values()) > bound)


@settings(max_examples=150)
@given(graphs())
def test_counterexamples_are_shortest(graph: tuple[int, list[list[object]], list[int], list[int]]) -> None:
    size, edges, initial, bad = graph
    model = TableModel(initial, edges, bad=bad)
    result = explore(model, deadlock=False)
    reachable = distances(as_networkx(size, edges), initial)
    nearest = min((reachable[state] for state in bad if state in reachable), default=None)
    if nearest is None:
        assert result.verdict.status == "holds"
        return
    trace = result.violation
    assert trace is not None and len(trace.steps) - 1 == nearest
    assert trace.steps[0].state in initial and trace.steps[-1].state in bad
    for before, after in zip(trace.steps, trace.steps[1:]):
        assert any(e[0] == before.state and e[1] == after.action and e[3] == after.state for e in edges)


@settings(max_examples=150)
@given(graphs())
def test_deadlock_traces_are_shortest(graph: tuple[int, list[list[object]], list[int], list[int]]) -> None:
    size, edges, initial, _ = graph
    result = explore(TableModel(initial, edges))
    reachable = distances(as_networkx(size, edges), initial)
    sources = {edge[0] for edge in edges}
    nearest = min((d for state, d in reachable.items() if state not in sources), default=None)
    if nearest is None:
        assert result.verdict.status == "holds"
    else:
        assert result.violation is not None and result.violation.kind == "deadlock"
        assert len(result.violation.steps) - 1 == nearest


def test_the_store_size_counts_an_object_shared_by_many_states_once() -> None:
    """Regression: states built from one another share parts; the store's size counted each
    shared part once per state, several times the real memory of the scheduler model's store."""
    from yarnspec.checks.explore.bfs import _keys_bytes

    shared = tuple(range(1000, 1400))  # one large part every state refers to
    keys: set[object] = {(i, shared) for i in range(50)}
    one_state = sys.getsizeof((0, shared))  # the small int is shared by the interpreter: free
    size = _keys_bytes(keys)  # type: ignore[arg-type]
    shared_size = sys.getsizeof(shared) + sum(sys.getsizeof(v) for v in shared)
    assert size == pytest.approx(50 * one_state + shared_size, rel=0.05)
    assert size < 2 * shared_size  # counted 50 times it would be about 50 shared sizes


def test_the_store_size_estimate_above_the_sample_keeps_shared_parts_counted_once() -> None:
    from yarnspec.checks.explore.bfs import KEY_SAMPLE, _keys_bytes

    shared = tuple(range(1000, 1400))
    count = 5 * KEY_SAMPLE
    keys: set[object] = {(1000 + i, shared) for i in range(count)}
    shared_size = sys.getsizeof(shared) + sum(sys.getsizeof(v) for v in shared)
    per_key = sys.getsizeof((0, shared)) + sys.getsizeof(10**6)
    assert _keys_bytes(keys) == pytest.approx(count * per_key + shared_size, rel=0.02)  # type: ignore[arg-type]


def test_the_collector_thresholds_are_restored_after_a_search() -> None:
    """The search raises the collector's first threshold and puts it back, also after a
    violation stops it."""
    import gc

    before = gc.get_threshold()
    assert explore(ToyModel(2, 2, 2), check_progress=False).verdict.status == "holds"
    assert gc.get_threshold() == before
    assert explore(ToyModel(2, 2, 2, variant="broken-release"), check_progress=False).verdict.status == "violated"
    assert gc.get_threshold() == before
