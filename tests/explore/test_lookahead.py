"""Computing successors ahead while a worker waits (partition.Lookahead) changes nothing the
search reports, however much of it is done; and the profile switch (timing.py) prints where
the time went."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from yarnspec.checks.explore import ExploreResult, explore
from yarnspec.checks.explore.backends import InlineBackend
from yarnspec.checks.explore.model_source import ModelSource, toy_source
from yarnspec.checks.explore.parallel import explore_partitioned
from yarnspec.checks.explore.partition import Lookahead, ReceivedStates, SearchOptions
from yarnspec.checks.explore.timing import PROFILE_VARIABLE
from yarnspec.checks.explore.toy import ToyModel

SCENARIO = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": "async-double-commit/pre-8127"})


class Thinking(InlineBackend):
    """Partitions in this process that compute up to ``budget`` states ahead (all when
    ``None``) after every call, as a waiting worker process does."""

    budget: int | None = None

    def _think(self) -> None:
        for partition in self.partitions:
            done = 0
            while (self.budget is None or done < self.budget) and partition.step_ahead():
                done += 1

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """As usual, then think ahead."""
        answers = super().call(method, arguments)
        self._think()
        return answers

    def exchange(self) -> list[ReceivedStates]:
        """As usual, then think ahead."""
        answers = super().exchange()
        self._think()
        return answers


def thinking(budget: int | None) -> Any:
    """A backend factory of :class:`Thinking` partitions with ``budget``."""

    def start(count: int, source: ModelSource, options: SearchOptions) -> Thinking:
        backend = Thinking(count, source, options)
        backend.budget = budget
        return backend

    return start


def figures(result: ExploreResult) -> tuple[Any, ...]:
    """Counts, depth, verdict, the trace and the coverage."""
    trace = None if result.violation is None else [(s.action, s.state) for s in result.violation.steps]
    fired = None if result.coverage is None else result.coverage.fired
    return result.stats.distinct_states, result.stats.transitions, result.stats.depth, result.verdict.text, trace, fired


@pytest.mark.parametrize("variant", ["correct", "broken-release"])
@pytest.mark.parametrize(
    "bounds", [{}, {"symmetry": True}, {"max_states": 40}, {"max_depth": 3}, {"symmetry": True, "max_states": 9}]
)
@pytest.mark.parametrize("budget", [1, 3, None])
def test_thinking_ahead_gives_the_one_worker_figures_and_trace(
    variant: str, bounds: dict[str, Any], budget: int | None
) -> None:
    expected = figures(explore(ToyModel(3, 3, 2, variant), check_progress=False, show_progress=False, **bounds))[:5]
    for count in (2, 3):
        got = explore_partitioned(
            toy_source(3, 3, 2, variant), workers=count, backend=thinking(budget), show_progress=False, **bounds
        )
        assert figures(got)[:5] == expected, count


def test_thinking_ahead_on_a_scenario_with_symmetry_counts_coverage_alike() -> None:
    """With symmetry another partition may bring a state's key with another state: what was
    computed ahead for the first one must not be used for it."""
    plain = explore_partitioned(
        SCENARIO, workers=2, backend=InlineBackend, symmetry=True, coverage=True, show_progress=False
    )
    ahead = explore_partitioned(
        SCENARIO, workers=2, backend=thinking(None), symmetry=True, coverage=True, show_progress=False
    )
    assert figures(ahead) == figures(plain)
    assert figures(ahead)[3] == "violated"


def test_lookahead_keeps_only_fresh_successors_and_only_for_the_same_state() -> None:
    calls: list[int] = []

    def successors(state: int) -> list[tuple[str, int]]:
        calls.append(state)
        return [("a", state + 1), ("b", state + 2), ("c", 0)]

    seen = {0}
    ahead = Lookahead(successors, lambda target: (target, target % 2), lambda key, owner: key not in seen, whole=False)
    ahead.plan([(10, 10), (20, 20)])
    assert ahead.step() and ahead.step() and not ahead.step()
    assert calls == [10, 20]
    prepared = ahead.take(10, 10)
    assert prepared is not None and prepared.length == 3 and prepared.listed is None
    assert prepared.fresh == [(0, 11, 11, 1), (1, 12, 12, 0)]  # position 2 (state 0) was seen
    assert ahead.take(10, 10) is None  # taken once
    # after the commit: state 20 is now local index 5; key 30's state was never computed
    ahead.refile([(20, 5, 20), (30, 6, 30)])
    assert ahead.take(5, 21) is None  # another state under the same slot is not served
    ahead.refile([(20, 5, 20)])
    assert ahead.step() and calls[-1] == 20  # and it is planned again


def test_profile_prints_each_workers_phases_to_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    explore_partitioned(toy_source(3, 3, 2), workers=2, backend=InlineBackend, show_progress=False)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(PROFILE_VARIABLE, "1")
    explore_partitioned(toy_source(3, 3, 2), workers=2, show_progress=False)
    err = capsys.readouterr().err
    assert "worker 0" in err and "worker 1" in err
    rows = {" ".join(line.split()[:-2]): line.split()[-2:] for line in err.splitlines()[2:] if ":" not in line}
    assert {"successors", "key", "ahead", "wait peers", "merge", "idle", "cpu"} <= set(rows)
    assert float(rows["cpu"][0]) > 0 and float(rows["cpu"][1]) > 0
    assert "coordinator: build" in err
