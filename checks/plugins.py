"""Scenarios from other projects: the ``yarnspec.scenarios`` entry-point group.

A project that wants its own worlds checked declares, in its ``pyproject.toml``::

    [project.entry-points."yarnspec.scenarios"]
    my-cluster = "my_package.yarnspec_worlds:scenarios"

Each entry point loads to a :class:`~yarnspec.spec.scenarios.Scenario`, a world file's path
(``str`` or :class:`~pathlib.Path`), or a callable returning an iterable of those. The
scenarios are found when asked for (no registry kept in the package): ``yarnspec explore
--list`` shows them, ``yarnspec explore NAME`` explores them, ``yarnspec check --plugins``
adds a row for each and ``yarnspec replay`` rebuilds their traces. A name that clashes with a
built-in scenario, or an entry point that fails to load, is an :class:`InputError` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from yarnspec.impl.errors import InputError
from yarnspec.spec.scenarios import SCENARIOS, TITLE_SEPARATOR, Scenario, find_scenario
from yarnspec.spec.scheduler_model import SchedulerModel

from .world_file import load_world

GROUP = "yarnspec.scenarios"


def plugin_scenarios(points: Iterable[EntryPoint] | None = None) -> dict[str, Scenario]:
    """Every scenario the installed entry points of :data:`GROUP` provide, by name."""
    found: dict[str, Scenario] = {}
    for point in entry_points(group=GROUP) if points is None else points:
        place = f"entry point {point.name} = {point.value}"
        try:
            loaded = point.load()
            items = loaded() if callable(loaded) and not isinstance(loaded, Scenario) else loaded
        except Exception as exc:  # noqa: BLE001 - any failure of someone else's code
            raise InputError(GROUP, place, f"cannot load: {type(exc).__name__}: {exc}") from None
        for item in items if isinstance(items, (list, tuple)) else [items]:
            scenario = _scenario(item, place)
            if scenario.name in SCENARIOS or scenario.name in found:
                raise InputError(GROUP, place, f"scenario name {scenario.name!r} is already taken")
            found[scenario.name] = scenario
    return found


def _scenario(item: object, place: str) -> Scenario:
    if isinstance(item, Scenario):
        return item
    if isinstance(item, (str, Path)):
        return load_world(item).scenario
    raise InputError(GROUP, place, f"expected a Scenario, a world file's path or a list of them, got {type(item).__name__}")


def find_any_scenario(name: str, source: str, place: str, plugins: Mapping[str, Scenario] | None = None) -> Scenario:
    """A built-in scenario, else a plugin's; the built-in lookup's error otherwise."""
    if name in SCENARIOS:
        return SCENARIOS[name]
    found = plugin_scenarios() if plugins is None else plugins
    if name in found:
        return found[name]
    return find_scenario(name, source, place)


def model_for_any_title(title: str, source: str, place: str) -> SchedulerModel:
    """The model of ``scenario/variant`` for a built-in or a plugin scenario."""
    name, _, variant = title.partition(TITLE_SEPARATOR)
    scenario = find_any_scenario(name, source, place)
    return scenario.model(scenario.variant(variant, source, place))


#: The factory ``--emit-test`` writes into a plugin scenario's regression test.
MODEL_FACTORY = "yarnspec.checks.plugins:plugin_model"


def plugin_model(*, world: str, variant: str = "", **parameters: Any) -> SchedulerModel:
    """The model a plugin scenario's trace names (for emitted tests)."""
    return model_for_any_title(world, "<trace>", "parameters.world")
