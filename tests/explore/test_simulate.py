"""Seeded random walks: reproducible from the seed, the same invariants and traces."""

from __future__ import annotations

import json

import pytest

from yarnspec.checks.explore import replay, simulate
from yarnspec.checks.explore.table import TableModel
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.impl.errors import InputError


def test_same_seed_same_walks_and_trace() -> None:
    model = ToyModel(3, 3, 2, variant="broken-release")
    first = simulate(model, seed=7, walks=50, max_steps=40)
    again = simulate(model, seed=7, walks=50, max_steps=40)
    assert first.violation is not None
    assert first.violation == again.violation
    assert (first.steps, first.distinct_states) == (again.steps, again.distinct_states)


def test_different_seeds_walk_differently() -> None:
    model = ToyModel(3, 3, 2, variant="broken-release")
    runs = [simulate(model, seed=seed, walks=20, max_steps=30) for seed in range(4)]
    walks = {tuple(step.action for step in run.violation.steps) for run in runs if run.violation is not None}
    assert len(walks) > 1


def test_violation_trace_replays_and_ends_at_the_fault() -> None:
    model = ToyModel(2, 3, 2, variant="broken-release")
    result = simulate(model, seed=1, walks=100, max_steps=30)
    assert result.verdict.status == "violated"
    trace = result.violation
    assert trace is not None and trace.kind == "invariant"
    assert replay(model, trace).startswith("invariant used-matches-holders violated")
    # the walk stops at the first bad state
    consistent = [all(node["used"] == len(node["holders"]) for node in step.state.values()) for step in trace.steps]
    assert consistent == [True] * (len(trace.steps) - 1) + [False]


def test_no_violation_is_not_refuted_by_random_walks() -> None:
    result = simulate(ToyModel(2, 2, 1), seed=3, walks=5, max_steps=10)
    assert result.verdict.status == "not-refuted" and result.verdict.limit == "walks"
    assert result.verdict.text == "not refuted: no violation in 5 walks of up to 10 steps (simulation, seed 3)"
    assert result.steps == 50  # the toy never deadlocks, so every walk runs to the bound
    assert 1 <= result.distinct_states <= 9
    assert json.loads(json.dumps(result.to_json()))["status"] == "not-refuted"


def test_deadlock_found_and_switchable() -> None:
    model = TableModel([0], [[0, "a", "x", 1], [1, "b", "x", 2]])
    found = simulate(model, seed=0, walks=1, max_steps=10)
    assert found.violation is not None and found.violation.kind == "deadlock"
    assert [step.state for step in found.violation.steps] == [0, 1, 2]
    assert simulate(model, seed=0, walks=1, max_steps=10, deadlock=False).verdict.status == "not-refuted"


@pytest.mark.parametrize(
    "kwargs, place", [({"walks": 0}, "walks"), ({"max_steps": -1}, "max_steps"), ({"seed": "x"}, "seed")]
)
def test_bad_arguments_name_the_place(kwargs: dict[str, object], place: str) -> None:
    arguments: dict[str, object] = {"seed": 0, **kwargs}
    with pytest.raises(InputError) as caught:
        simulate(ToyModel(1, 1, 1), **arguments)  # type: ignore[arg-type]
    assert caught.value.place == place
