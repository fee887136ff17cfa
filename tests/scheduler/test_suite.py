"""The seeded scheduler suite: every invariant holds over its walks in every variant, the walks
reach every action kind and the seed stories' paths, and a crash or violation is reported."""

from __future__ import annotations

import pytest

from yarnspec.checks.suites import scheduler as scheduler_suite
from yarnspec.checks.suites.scheduler import LEAK_INVARIANTS, RUNS, VARIANTS, run, run_report
from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.actions import KINDS
from yarnspec.spec.scheduler.invariants import STATE_INVARIANTS, STEP_INVARIANTS

EXAMPLES = 3
REPORT = run_report(EXAMPLES, 0, 150)
PATHS = {
    "committed reserve",
    "committed allocate from reservation",
    "committed rereserve",
    "committed unreserve",
    "async commit applied",
    "async commit rejected",
    "YARN-8127 check refused a commit",
    "reserved container picked up on another node",
    "allocation releasing a reservation elsewhere (continue-looking)",
    "monitor marked",
    "monitor killed",
    "monitor unreserved",
}


def test_every_invariant_holds_on_every_walk() -> None:
    outcomes = {o.name: o for o in REPORT.outcomes}
    assert list(outcomes) == [RUNS] + [i.name for i in STATE_INVARIANTS] + [i.name for i in STEP_INVARIANTS]
    walks = EXAMPLES * (len(VARIANTS) + len(scheduler_suite.shipped_worlds()))
    assert outcomes[RUNS].checked == walks and outcomes[RUNS].violated == 0
    for outcome in REPORT.outcomes:
        assert outcome.violated == 0, outcome.counterexample
        assert outcome.known == 0 or outcome.name in LEAK_INVARIANTS
        assert outcome.held + outcome.known == outcome.checked > 0


def test_the_walks_take_every_action_kind_and_reach_the_stories() -> None:
    assert set(REPORT.kinds) == set(KINDS)
    assert PATHS <= set(REPORT.paths), PATHS - set(REPORT.paths)


def test_the_same_seed_gives_the_same_report() -> None:
    again = run_report(1, 7, 40)
    assert again.outcomes == run(1, 7, 40) and again.paths == run_report(1, 7, 40).paths


def test_a_crash_is_reported_as_a_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(scheduler_suite, "take", broken)
    runs = run(1, 0, 5)[0]
    assert runs.name == RUNS and runs.violated == runs.checked > 0 and "RuntimeError: boom" in runs.counterexample


def test_a_violation_is_reported_with_its_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scheduler_suite, "check_state", lambda world, state: [("cluster-conservation", "made up")])
    outcome = next(o for o in run(1, 0, 5) if o.name == "cluster-conservation")
    assert outcome.violated > 0 and outcome.counterexample.startswith("made up\nworld ")


@pytest.mark.parametrize(("place", "arguments"), [("examples", (0, 0)), ("seed", (1, -1)), ("steps", (1, 0, 0))])
def test_bad_arguments_are_input_errors(place: str, arguments: tuple[int, ...]) -> None:
    with pytest.raises(InputError) as raised:
        run(*arguments)
    assert raised.value.place == place
