"""The one world catalogue: every world file shipped in the package, known by its file's name
(:data:`WORLD_FILES`), and among them the built-in scenarios (:data:`SCENARIOS`): small bounded
worlds that tell one story each, with the verdict expected under every behaviour variant they
are run in. The other shipped worlds (:data:`MODEL_WORLDS`) are walked by the property suite
and named by the scheduler contract's ``reset``; their builders, functions of variant
parameters, are in :mod:`yarnspec.spec.worlds.world_builders`.

Each is a world file shipped in the package (``yarnspec/spec/worlds/NAME.toml``, the format of
``docs/world-files.md``): the world, a one-line story, its source (seed, JIRA), a description
with the evidence, its variants (the rules and configuration keys each runs, the verdict
expected and the evidence in one line), the property asked, and the explorer's default and
``fast`` bounds (for ``yarnspec check --fast``). :data:`SCENARIOS` reads them, in the order of
:data:`BUILT_IN`; users copy them (``yarnspec explore NAME --print-world``) to write their own.
The records themselves (:class:`Scenario`, :class:`ScenarioVariant`, ...) are in
:mod:`yarnspec.spec.worlds.scenario`.

The expected verdicts are claims about the real systems (from the seeds and the JIRA
analyses), written once in the world files; the explorer computes verdicts and only the
checking side (:mod:`yarnspec.checks.suites.scenarios`) compares the two. Where the model
disagreed with an analysis, the world file's description says why and what the evidence is.

A model built from a scenario names it in its parameters (``"world": "reserved-starvation/
yarn-8127"``), so a trace records which scenario and variant produced it and
:func:`model_for_title` rebuilds that model to replay it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.worlds.scenario import (
    EXPECTED,
    INVARIANTS,
    TITLE_SEPARATOR,
    Expected,
    ExploreBounds,
    Scenario,
    ScenarioModel,
    ScenarioVariant,
)
from yarnspec.spec.worlds.world_file import load_world

__all__ = [
    "BUILT_IN", "EXPECTED", "INVARIANTS", "MODEL_WORLDS", "SCENARIOS", "WORLD_FILES", "TITLE_SEPARATOR", "Expected", "ExploreBounds", "Scenario",
    "ScenarioModel", "ScenarioVariant", "builtin_world_path", "find_scenario", "model_for_title", "scenario_model",
    "scenario_names",
]  # fmt: skip

#: The built-in scenarios' world files (``worlds/NAME.toml``), in catalogue order.
BUILT_IN: tuple[str, ...] = (
    "async-double-commit",
    "reserved-starvation",
    "no-leak",
    "big-container-livelock",
    "big-container-reserved",
)
#: The shipped world files that are not scenarios of ``yarnspec check``: the property suite
#: walks them and the scheduler contract's ``reset`` names them.
MODEL_WORLDS: tuple[str, ...] = ("seed002", "two-queues")
#: Where a shipped world file is, as the package installs it.
WORLDS_FOLDER = "yarnspec/spec/worlds"


def builtin_world_path(name: str) -> Path:
    """The shipped world file ``name`` (a built-in scenario or one of :data:`MODEL_WORLDS`)."""
    return Path(str(resources.files("yarnspec.spec").joinpath("worlds", f"{name}.toml")))


def _catalogue() -> dict[str, Scenario]:
    found = {}
    for name in (*BUILT_IN, *MODEL_WORLDS):
        scenario = load_world(builtin_world_path(name), catalogue=True, origin=f"{WORLDS_FOLDER}/{name}.toml").scenario
        if scenario.name != name:
            raise InputError(str(builtin_world_path(name)), "name", f"the file of {name} names {scenario.name!r}")
        found[name] = scenario
    return found


#: Every shipped world file by its name: the built-in scenarios in catalogue order, then
#: :data:`MODEL_WORLDS`.
WORLD_FILES: Mapping[str, Scenario] = _catalogue()
#: Every built-in scenario by name, in catalogue order.
SCENARIOS: Mapping[str, Scenario] = {name: WORLD_FILES[name] for name in BUILT_IN}


def find_scenario(name: str, source: str = "<scenarios>", place: str = "scenario") -> Scenario:
    """The scenario called ``name``; an :class:`InputError` naming ``source``, ``place`` and the
    known scenarios otherwise."""
    found = SCENARIOS.get(name)
    if found is None:
        raise InputError(source, place, f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    return found


def model_for_title(title: str, source: str = "<trace>", place: str = "parameters.world") -> SchedulerModel:
    """The model of a scenario variant from its title (``scenario/variant``, as a model built
    by :meth:`Scenario.model` writes into its parameters); an :class:`InputError` for a title
    naming no scenario variant."""
    name, separator, variant = title.partition(TITLE_SEPARATOR)
    if not separator:
        raise InputError(source, place, f"expected 'scenario{TITLE_SEPARATOR}variant', got {title!r}")
    scenario = find_scenario(name, source, place)
    return scenario.model(scenario.variant(variant, source, place))


def scenario_model(*, world: str, variant: str = "", **parameters: Any) -> SchedulerModel:
    """The model a scenario trace names, for :func:`yarnspec.checks.explore.emit_test`
    (``yarnspec.spec.worlds.catalogue:scenario_model``): built from ``world`` (the title); the
    ``variant`` and the other parameters are left for the replay to compare."""
    return model_for_title(world)


def scenario_names() -> Sequence[str]:
    """The scenario names in catalogue order."""
    return list(SCENARIOS)
