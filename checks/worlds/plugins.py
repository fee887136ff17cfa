"""Scenarios and properties from other projects: the ``yarnspec.scenarios`` and
``yarnspec.properties`` entry-point groups.

A project that wants its own worlds checked declares, in its ``pyproject.toml``::

    [project.entry-points."yarnspec.scenarios"]
    my-cluster = "my_package.yarnspec_worlds:scenarios"

    [project.entry-points."yarnspec.properties"]
    my-properties = "my_package.yarnspec_properties:properties"

A ``yarnspec.scenarios`` entry point loads to a :class:`~yarnspec.spec.worlds.scenario.Scenario`, a
world file's path (``str`` or :class:`~pathlib.Path`), or a callable returning an iterable of
those. A ``yarnspec.properties`` entry point loads to a
:class:`~yarnspec.spec.property_catalogue.ProgressProperty`, a
:class:`~yarnspec.spec.scheduler.invariants.SchedulerInvariant`, or a callable returning a list of
them; world files then name them in their questions (``docs/world-files.md``).

Both are found when asked for (no registry kept in the package): ``yarnspec explore --list``
shows the scenarios, ``yarnspec explore NAME`` explores them, ``yarnspec check --plugins`` adds
a row for each and ``yarnspec replay`` rebuilds their traces. A name that clashes with a
built-in one, or an entry point that fails to load, is an :class:`InputError` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.property_catalogue import PropertyCatalogue
from yarnspec.spec.scheduler.model import BUILTIN_PROPERTIES, SchedulerModel
from yarnspec.spec.worlds.catalogue import SCENARIOS, find_scenario
from yarnspec.spec.worlds.scenario import TITLE_SEPARATOR, Scenario
from yarnspec.spec.worlds.world_file import load_world

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP = "yarnspec.scenarios"
PROPERTIES_GROUP = "yarnspec.properties"


def entry_points(group: str) -> Iterable[EntryPoint]:
    """The installed entry points of ``group`` (:mod:`importlib.metadata` is loaded only here:
    a built-in scenario's run never needs it)."""
    from importlib import metadata

    return metadata.entry_points(group=group)


def _load(point: EntryPoint, group: str) -> tuple[str, list[Any]]:
    """The entry point's place (for errors) and what it gives, as a list; any failure of the
    plug-in's code (an import error, an exception in its function) is one :class:`InputError`."""
    place = f"entry point {point.name} = {point.value}"
    try:
        loaded = point.load()
        items = loaded() if callable(loaded) else loaded
    except Exception as exc:  # noqa: BLE001 - any failure of someone else's code
        raise InputError(group, place, f"cannot load: {type(exc).__name__}: {exc}") from None
    if isinstance(items, (list, tuple)):
        return place, list(items)
    return place, [items]


def installed_properties(points: Iterable[EntryPoint] | None = None) -> PropertyCatalogue:
    """The built-in properties and every one the installed entry points of
    :data:`PROPERTIES_GROUP` provide."""
    catalogue = BUILTIN_PROPERTIES
    for point in entry_points(group=PROPERTIES_GROUP) if points is None else points:
        place, items = _load(point, PROPERTIES_GROUP)
        catalogue = catalogue.with_properties(items, PROPERTIES_GROUP, place)
    return catalogue


def plugin_scenarios(
    points: Iterable[EntryPoint] | None = None, properties: PropertyCatalogue | None = None
) -> dict[str, Scenario]:
    """Every scenario the installed entry points of :data:`GROUP` provide, by name; their
    world files may name ``properties`` (default: every installed one)."""
    found: dict[str, Scenario] = {}
    for point in entry_points(group=GROUP) if points is None else points:
        place, items = _load(point, GROUP)
        for item in items:
            scenario = _scenario(item, place, properties)
            scenario = scenario if scenario.origin else replace(scenario, origin=place)
            if scenario.name in SCENARIOS or scenario.name in found:
                raise InputError(GROUP, place, f"scenario name {scenario.name!r} is already taken")
            found[scenario.name] = scenario
    return found


def _scenario(item: object, place: str, properties: PropertyCatalogue | None) -> Scenario:
    if isinstance(item, Scenario):
        return item
    if isinstance(item, (str, Path)):
        return load_world(item, properties or installed_properties(), origin=f"{place}: {item}").scenario
    raise InputError(
        GROUP, place, f"expected a Scenario, a world file's path or a list of them, got {type(item).__name__}"
    )


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
MODEL_FACTORY = "yarnspec.checks.worlds.plugins:plugin_model"


def plugin_model(*, world: str, variant: str = "", **parameters: Any) -> SchedulerModel:
    """The model a plugin scenario's trace names (for emitted tests)."""
    return model_for_any_title(world, "<trace>", "parameters.world")
