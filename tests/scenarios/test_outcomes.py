"""The four outcomes of a verdict (docs/exploring.md, "Outcomes"), each on a small world, in the
text, the ``--json`` document, the exit status and ``check``'s table: violated (1), holds (0),
not refuted by the depth, state and time limits (3) and vacuous (4); premises counted during
the search; ``--accept``; and the rule that judges an outcome against an expectation
(Hypothesis)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.checks import cli
from yarnspec.checks.suites.scenarios import explore_variant
from yarnspec.spec.outcome import ACCEPTABLE, BAD_INPUT, EXPECTABLE, SUCCESS, Limit, Outcome, exit_status, satisfies
from yarnspec.spec.property_catalogue import PropertyCatalogue
from yarnspec.spec.scheduler.invariants import A_RESERVATION, SchedulerInvariant
from yarnspec.spec.scheduler.model import BUILTIN_PROPERTIES
from yarnspec.spec.worlds.world_file import load_world

WORLDS = Path(__file__).resolve().parents[2] / "docs" / "examples" / "worlds"
VACUOUS = WORLDS / "guarantee-vacuous.toml"
VIOLATED = WORLDS / "guarantee-violated.toml"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def twin(tmp_path: Path, name: str, *replacements: tuple[str, str]) -> Path:
    """A copy of guarantee-vacuous.toml with text replaced (the file has no relative paths)."""
    text = VACUOUS.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def invariants_world(tmp_path: Path) -> Path:
    """The vacuous world asked whether every invariant holds (it does, exhaustively)."""
    return twin(
        tmp_path, "invariants.toml",
        ('property = "guarantee-progress"', 'property = "invariants"'), ('expect = "vacuous"', 'expect = "holds"'),
    )  # fmt: skip


# -- the pair: a request over the scaled guarantee, and its 2-unit twin -----------------


def test_a_request_over_the_guarantee_is_vacuous_not_holds(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explore", "--world", str(VACUOUS)], capsys)
    assert status == 0
    assert "guarantee-progress (leads-to) under WF(" in out
    assert ": vacuous: the premise never holds in any reachable state (exhaustive) [premise held in 0 states]" in out
    assert out.rstrip().endswith(
        "verdict: vacuous: the premise never holds in any reachable state (exhaustive), as expected (vacuous)"
    )
    status, out, _ = run(["explore", "--world", str(VACUOUS), "--json"], capsys)
    document = json.loads(out)
    assert document["verdict"] == "vacuous" and document["limit"] is None and document["exit_status"] == 0
    assert document["properties"] == [
        {"name": "guarantee-progress", "status": "vacuous", "verdict": document["verdict_text"], "premise_states": 0}
    ]


def test_vacuous_fails_an_expected_holds_with_exit_4(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = twin(tmp_path, "as-holds.toml", ('expect = "vacuous"', 'expect = "holds"'))
    status, out, _ = run(["explore", "--world", str(world)], capsys)
    assert status == 4
    assert out.rstrip().endswith("but holds was expected: MISMATCH")
    status, out, _ = run(["explore", "--world", str(world), "--json"], capsys)
    assert status == 4 and json.loads(out)["agrees"] is False and json.loads(out)["exit_status"] == 4
    status, out, _ = run(["explore", "--world", str(world), "--accept", "vacuous"], capsys)
    assert status == 0 and out.rstrip().endswith("holds was expected, vacuous accepted (--accept)")


def test_the_two_unit_twin_is_still_violated(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explore", "--world", str(VIOLATED), "--json"], capsys)
    document = json.loads(out)
    assert status == 0 and document["verdict"] == "violated" and document["agrees"] is True
    (prop,) = document["properties"]
    assert prop["status"] == "violated" and prop["premise_states"] > 0
    assert document["trace"]["kind"] == "progress" and document["trace"]["loop_start"] is not None


def test_violated_where_holds_is_expected_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = VIOLATED.read_text(encoding="utf-8").replace('expect = "violated"', 'expect = "holds"')
    world = tmp_path / "violated-as-holds.toml"
    world.write_text(text, encoding="utf-8")
    status, out, _ = run(["explore", "--world", str(world)], capsys)
    assert status == 1 and "counterexample: progress guarantee-progress violated" in out
    assert out.rstrip().endswith("verdict: violated, but holds was expected: MISMATCH")
    # no --accept makes a violation pass
    assert run(["explore", "--world", str(world), "--accept", "not-refuted", "--accept", "vacuous"], capsys)[0] == 1


# -- holds and not refuted (depth, states, time) ---------------------------------------------------


def test_holds_is_exhaustive_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = invariants_world(tmp_path)
    status, out, _ = run(["explore", "--world", str(world)], capsys)
    assert status == 0 and out.rstrip().endswith("verdict: holds (exhaustive), as expected (holds)")
    # the reservation invariants were never put to the test: no reservation is made in this world
    assert "premise of one-reservation-per-node (a reservation exists): never reached in the states searched" in out
    document = json.loads(run(["explore", "--world", str(world), "--json"], capsys)[1])
    assert document["verdict"] == "holds" and document["limit"] is None
    premises = {p["property"]: p for p in document["premises"]}
    assert premises["one-reservation-per-node"] == {
        "property": "one-reservation-per-node", "kind": "invariant", "premise": "a reservation exists", "states": 0, "reached": False,
    }  # fmt: skip
    assert premises["kill-only-after-wait"]["reached"] and premises["kill-only-after-wait"]["states"] > 0


@pytest.mark.parametrize(
    "options, limit, text",
    [
        (["--max-depth", "3"], "depth", "not refuted: the depth limit cut the search at depth 3, "),
        (["--max-states", "20"], "states", "not refuted: the state limit cut the search at depth "),
    ],
)
def test_a_bound_gives_not_refuted_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], limit: str, text: str
) -> None:
    world = invariants_world(tmp_path)
    status, out, _ = run(["explore", "--world", str(world), *options], capsys)
    assert status == 3 and f"verdict: {text}" in out and out.rstrip().endswith("but holds was expected: MISMATCH")
    status, out, _ = run(["explore", "--world", str(world), *options, "--json"], capsys)
    document = json.loads(out)
    assert status == 3 and document["verdict"] == "not-refuted" and document["limit"]["kind"] == limit
    assert document["limit"]["states"] == document["distinct_states"]
    if limit == "depth":
        assert document["limit"]["depth"] == 3
    else:
        assert document["distinct_states"] == 20
    status, out, _ = run(["explore", "--world", str(world), *options, "--accept", "not-refuted"], capsys)
    assert status == 0 and out.rstrip().endswith("holds was expected, not-refuted accepted (--accept)")


def test_a_time_limit_gives_not_refuted_and_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """no-leak explored exhaustively takes minutes; a second's time limit cuts it."""
    status, text, _ = run(["explore", "no-leak", "--print-world"], capsys)
    world = tmp_path / "no-leak.toml"
    world.write_text(text.replace('expect = "not-refuted"', 'expect = "holds"'), encoding="utf-8")
    status, out, _ = run(["explore", "--world", str(world), "--exhaustive", "--time-limit", "1", "--json"], capsys)
    document = json.loads(out)
    assert status == 3 and document["verdict"] == "not-refuted" and document["limit"]["kind"] == "time"
    assert document["verdict_text"].startswith("not refuted: the time limit cut the search at depth ")
    assert any("time limit of 1 s" in note for note in document["notes"])


def test_a_bound_that_cuts_nothing_still_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = invariants_world(tmp_path)
    status, out, _ = run(["explore", "--world", str(world), "--max-depth", "100", "--json"], capsys)
    assert status == 0 and json.loads(out)["verdict"] == "holds"


def test_an_unknown_accepted_outcome_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["explore", "--world", str(VACUOUS), "--accept", "holds"], capsys)
    assert status == BAD_INPUT
    assert err == "yarnspec: error: explore: --accept: unknown outcome 'holds'; one of: not-refuted, vacuous\n"


def test_an_unknown_expectation_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = twin(tmp_path, "bad.toml", ('expect = "vacuous"', 'expect = "bounded"'))
    status, _, err = run(["explore", "--world", str(world)], capsys)
    assert status == BAD_INPUT and err.count("\n") == 1
    assert (
        err
        == f"yarnspec: error: {world}: $.questions[0].expect: 'bounded' is not one of ['holds', 'violated', 'not-refuted', 'vacuous']\n"
    )


# -- check's table ---------------------------------------------------------------------------------


def test_checks_table_shows_each_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    as_holds = twin(tmp_path, "as-holds.toml", ('expect = "vacuous"', 'expect = "holds"'))
    worlds = [str(VIOLATED), str(VACUOUS), str(as_holds)]
    status, out, _ = run(["check", "--worlds-only", "--world", *worlds], capsys)
    assert status == 1
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("world:")}
    assert rows[f"world:{VIOLATED}"][3:6] == ["violated", "violated", "yes"]
    assert rows[f"world:{VACUOUS}"][3:6] == ["vacuous", "vacuous", "yes"]
    assert rows[f"world:{as_holds}"][3:6] == ["holds", "vacuous", "NO"]
    assert f"world/{as_holds}: default: vacuous, expected holds" in out
    status, out, _ = run(["check", "--worlds-only", "--world", str(as_holds), "--accept", "vacuous", "--json"], capsys)
    assert status == 0 and json.loads(out)["failed"] == 0


def test_checks_table_names_the_limit_of_a_bounded_row(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["check", "--worlds-only", "--world", "spec/worlds/seed002.toml", "--json"], capsys)
    (suite,) = json.loads(out)["suites"]
    assert status == 0 and suite["variants"]
    for row in suite["variants"]:
        assert row["status"] == "not-refuted" and row["expected"] == "not-refuted"
        assert row["verdict"] == f"not-refuted (depth limit: depth 6, {row['states']:,} states)"


# -- vacuity of a registered invariant, and of the partitioned search ------------------------------


def test_a_registered_invariant_whose_premise_is_never_reached_is_vacuous(tmp_path: Path) -> None:
    one = SchedulerInvariant(
        "at-most-one-reservation", "at most one reservation", "a test", lambda step: None, premise=A_RESERVATION
    )
    catalogue: PropertyCatalogue = BUILTIN_PROPERTIES.with_properties([one])
    world = twin(
        tmp_path, "registered.toml", ('property = "guarantee-progress"', 'property = "at-most-one-reservation"')
    )
    scenario = load_world(world, catalogue).scenario
    outcome = explore_variant(scenario, scenario.variants[0])
    assert outcome.verdict.status == Outcome.VACUOUS and outcome.agree and outcome.exit_status() == 0


def test_the_partitioned_search_says_it_did_not_count_premises(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = invariants_world(tmp_path)
    status, out, _ = run(["explore", "--world", str(world), "--workers", "1", "--json"], capsys)
    document = json.loads(out)
    assert status == 0 and document["verdict"] == "holds" and document["premises"] == []
    assert any(note.startswith("vacuity not checked: the partitioned search") for note in document["notes"])


# -- the rule (Hypothesis) -------------------------------------------------------------------------

outcomes = st.sampled_from(list(Outcome))
expectations = st.sampled_from(EXPECTABLE)
acceptances = st.frozensets(st.sampled_from(ACCEPTABLE))


@given(outcomes, expectations, acceptances)
def test_only_the_expected_outcome_passes_unless_accepted(
    outcome: Outcome, expected: Outcome, accepted: frozenset[Outcome]
) -> None:
    passes = satisfies(outcome, expected, accepted)
    if not accepted:
        assert passes == (outcome == expected or (expected == Outcome.NOT_REFUTED and outcome == Outcome.HOLDS))
    if expected == Outcome.VIOLATED:
        assert passes == (outcome == Outcome.VIOLATED)  # nothing stands in for a counterexample
    if outcome in (Outcome.VIOLATED, Outcome.UNCHECKED):
        assert passes == (outcome == expected)  # a violation never passes for anything else
    assert (exit_status(outcome, passes) == SUCCESS) == passes


@given(outcomes)
def test_every_failing_outcome_has_its_own_exit_status(outcome: Outcome) -> None:
    assert outcome.exit_status not in (SUCCESS, BAD_INPUT)
    codes = {Outcome.NOT_REFUTED: 3, Outcome.VACUOUS: 4}
    assert outcome.exit_status == codes.get(outcome, 1)


def test_the_words_are_the_json_values() -> None:
    assert [o.value for o in EXPECTABLE] == ["holds", "violated", "not-refuted", "vacuous"]
    assert {limit.value for limit in Limit} == {"depth", "states", "time", "interrupted", "walks"}
    assert json.dumps(Outcome.NOT_REFUTED) == '"not-refuted"'
