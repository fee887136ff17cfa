"""The scenario registry: every entry is complete and consistent with its model, lookups fail
with one clear error, and a model's title names its scenario and variant so a trace can be
traced back to it."""

from __future__ import annotations

import pytest

from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.actions import kind
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.worlds.catalogue import (
    EXPECTED,
    INVARIANTS,
    SCENARIOS,
    Scenario,
    ScenarioModel,
    ScenarioVariant,
    find_scenario,
    model_for_title,
    scenario_model,
)

VARIANTS = [(s, v) for s in SCENARIOS.values() for v in s.variants]
IDS = [s.title(v) for s, v in VARIANTS]


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_each_scenario_is_complete(scenario: Scenario) -> None:
    assert scenario.story and "\n" not in scenario.story
    assert scenario.source and scenario.description
    names = [v.name for v in scenario.variants]
    assert names and len(names) == len(set(names))
    assert "/" not in scenario.name
    assert {v.expected for v in scenario.variants} <= set(EXPECTED)


@pytest.mark.parametrize("scenario, variant", VARIANTS, ids=IDS)
def test_each_variant_names_a_property_its_model_checks(scenario: Scenario, variant: ScenarioVariant) -> None:
    model = scenario.model(variant)
    progress = [p.name for p in model.progress()]
    if variant.property == INVARIANTS:
        assert progress == [] and model.invariants()
    else:
        assert progress == [variant.property]
    assert variant.expected in EXPECTED and variant.evidence
    assert model.parameters["world"] == scenario.title(variant)


@pytest.mark.parametrize("scenario, variant", VARIANTS, ids=IDS)
def test_the_title_rebuilds_the_same_model(scenario: Scenario, variant: ScenarioVariant) -> None:
    model = scenario.model(variant)
    again = model_for_title(scenario.title(variant))
    assert (again.variant, dict(again.parameters)) == (model.variant, dict(model.parameters))
    built = scenario_model(**dict(model.parameters), variant=model.variant)
    assert built.parameters == model.parameters


def test_variants_change_the_behaviour_they_name() -> None:
    """Each scenario variant's name is the name of the rule record its world runs, and that
    record stands for the releases the documentation gives it."""
    starvation = SCENARIOS["reserved-starvation"]
    worlds = {v.name: starvation.world(v) for v in starvation.variants}
    for name in (
        "yarn-8127",
        "reserved-pickup",
        "yarn-8127+yarn-9432",
        "yarn-8127+yarn-10259",
        "yarn-8127+yarn-10259+yarn-10293",
    ):
        assert worlds[name].variants.name == name
    assert worlds["yarn-8127"].variants.releases == "Hadoop 3.1.2-3.2.x"
    assert worlds["yarn-8127+yarn-9432"].variants.releases == "Hadoop 3.3.0"
    assert worlds["yarn-8127+yarn-10259"].variants.releases == "Hadoop 3.3.1-3.3.6"
    assert worlds["yarn-8127+yarn-10259+yarn-10293"].variants.releases == "Hadoop 3.4.x"
    assert worlds["reserved-pickup"].variants.releases.startswith(
        "seed 003's pick-up on Hadoop 3.1.2-3.2.x (our reading"
    )
    assert worlds["yarn-8127+yarn-10259"].variants.yarn_10259 and not worlds["yarn-8127+yarn-10259"].variants.yarn_10293
    assert worlds["reserved-pickup-one-container"].bounds.max_containers == 2
    assert worlds["reserved-pickup"].bounds.max_containers == 4
    double = SCENARIOS["async-double-commit"]
    releases = {v.name: double.world(v).variants.releases for v in double.variants}
    assert releases["pre-8127"] == "Hadoop 2.8.x, 2.9.0-2.9.1, 3.0.x, 3.1.0"
    assert releases["yarn-8127"] == "Hadoop 3.1.2-3.2.x"
    livelock = SCENARIOS["big-container-livelock"]
    assert livelock.world(livelock.variant("pre-4280")).variants.releases == "Hadoop 2.7.x"
    assert livelock.world(livelock.variant("default")).variants.yarn_4280


def test_the_first_variant_is_the_default() -> None:
    scenario = SCENARIOS["async-double-commit"]
    assert scenario.variant(None) is scenario.variants[0]


def test_unknown_names_are_one_clear_error() -> None:
    with pytest.raises(InputError) as unknown:
        find_scenario("no-such", "explore", "SCENARIO")
    assert str(unknown.value) == f"explore: SCENARIO: unknown scenario 'no-such'; known: {', '.join(SCENARIOS)}"
    with pytest.raises(InputError) as variant:
        SCENARIOS["async-double-commit"].variant("post-8127", "explore", "--variant")
    assert "explore: --variant: scenario async-double-commit has no variant 'post-8127'; known: pre-8127" in str(
        variant.value
    )


@pytest.mark.parametrize(
    "title, fragment",
    [
        ("reserved-starvation", "expected 'scenario/variant', got 'reserved-starvation'"),
        ("nothing/yarn-8127", "unknown scenario 'nothing'"),
        ("reserved-starvation/pre-8127", "has no variant 'pre-8127'"),
    ],
)
def test_a_bad_title_names_the_place(title: str, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        model_for_title(title, "t.json")
    assert str(caught.value).startswith("t.json: parameters.world: ") and fragment in str(caught.value)


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS.values() if s.quiet])
def test_a_quiet_model_takes_the_full_models_steps_less_the_quiet_kinds(name: str) -> None:
    """The quiet kinds are left out before any effect is computed, and what remains is exactly
    the full model's steps, in the same order, to the same states (on a short walk)."""
    scenario = SCENARIOS[name]
    variant = scenario.variants[0]
    quiet = scenario.model(variant)
    assert isinstance(quiet, ScenarioModel)
    full = SchedulerModel(quiet.world, "full", progress=True, properties=(variant.property,))
    (state,) = quiet.initial_states()
    left_out = 0
    for _ in range(8):
        mine = quiet.successors(state)
        every = full.successors(state)
        theirs = [(a, t) for a, t in every if kind(a) not in scenario.quiet]
        left_out += len(every) - len(theirs)
        assert [(a, t.scheduler) for a, t in mine] == [(a, t.scheduler) for a, t in theirs]
        assert not any(kind(a) in scenario.quiet for a in quiet.actions(state.scheduler))
        state = mine[-1][1]
    assert left_out > 0  # the walk met quiet steps, so the comparison is not vacuous
