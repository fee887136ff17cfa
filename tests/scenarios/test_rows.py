"""``scenario_rows``: one row per scenario variant for ``yarnspec check``, each judged against
the expected verdict; a wrong expectation shows up as a mismatch."""

from __future__ import annotations

from dataclasses import replace

import pytest

from yarnspec.checks.suites.scenarios import ScenarioRow, describe_bounds, format_rows, scenario_rows
from yarnspec.spec.worlds.catalogue import SCENARIOS, ExploreBounds

NAME = "reserved-starvation"  # the cheapest scenario at its fast bounds (about 1.5 s)


@pytest.fixture(scope="module")
def rows() -> list[ScenarioRow]:
    return scenario_rows(fast=True, names=[NAME])


def test_one_row_per_variant_and_every_verdict_matches(rows: list[ScenarioRow]) -> None:
    assert [(r.scenario, r.variant) for r in rows] == [(NAME, v.name) for v in SCENARIOS[NAME].variants]
    assert all(r.matches for r in rows), format_rows(rows)
    assert all(r.bounds == "depth 14" and r.property == "reservation-progress" for r in rows)
    by_variant = {r.variant: r for r in rows}
    assert by_variant["yarn-8127"].status == "violated"
    assert by_variant["yarn-8127"].counterexample.startswith("reservation-progress: lasso, ")
    assert (
        by_variant["yarn-8127+yarn-10259"].status == "vacuous"
        and by_variant["yarn-8127+yarn-10259"].counterexample == ""
    )
    assert by_variant["yarn-8127+yarn-10259"].verdict == "vacuous (depth limit: depth 14, 755 states)"
    assert by_variant["reserved-pickup-one-container"].status == "not-refuted"
    assert all(r.states > 0 and r.transitions >= r.states - 1 and r.seconds >= 0 for r in rows)


def test_rows_serialise_and_format(rows: list[ScenarioRow]) -> None:
    document = rows[0].to_json()
    assert {"scenario", "variant", "property", "expected", "verdict", "matches", "states", "seconds"} <= set(document)
    table = format_rows(rows).splitlines()
    assert table[0].split() == [
        "scenario",
        "variant",
        "property",
        "expected",
        "verdict",
        "match",
        "states",
        "seconds",
        "bounds",
    ]
    assert len(table) == 2 + len(rows) and all(" yes " in line for line in table[2:])


def test_a_wrong_expectation_is_a_mismatch(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = SCENARIOS[NAME]
    wrong = replace(scenario.variants[0], expected="holds")  # yarn-8127 does starve
    monkeypatch.setitem(SCENARIOS, NAME, replace(scenario, variants=(wrong,)))
    (row,) = scenario_rows(fast=True, names=[NAME])
    assert not row.matches and row.status == "violated"
    assert " NO " in format_rows([row])


@pytest.mark.parametrize(
    "bounds, text",
    [
        (ExploreBounds(), "exhaustive"),
        (ExploreBounds(symmetry=True), "exhaustive, symmetry"),
        (ExploreBounds(max_depth=14), "depth 14"),
        (ExploreBounds(max_depth=3, max_states=3000, symmetry=True), "depth 3, 3,000 states, symmetry"),
    ],
)
def test_bounds_are_described(bounds: ExploreBounds, text: str) -> None:
    assert describe_bounds(bounds) == text
