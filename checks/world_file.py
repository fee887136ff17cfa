"""World files: a small world to explore, written in TOML (schema
``schemas/world.schema.json``, ``docs/your-cluster.md``).

A world file names a real configuration (files and inline keys), nodes and applications in
*units* (by default 1 unit = the configuration's minimum allocation, so worlds stay small and
every request is a valid size), the environment events allowed, the scheduler's
asynchronous/multi-node settings, variants, the questions (a property with the verdict
expected) and the bounds. :func:`load_world` compiles it into the same
:class:`~yarnspec.spec.scenarios.Scenario` the built-in scenarios are, one scenario variant per
question and world variant, so ``yarnspec explore --world`` and ``yarnspec check --world``
run it with everything the built-in scenarios have (traces, replay, ``--emit-test``).

A model built from a world file is titled ``world:<path>/<question>[@<variant>]``; replay and
emitted tests rebuild it from that title (:func:`world_model`).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.impl.config.hadoop_xml import (
    HadoopConfiguration,
    format_configuration,
    parse_configuration,
    read_configuration_file,
)
from yarnspec.impl.config.scheduler import SchedulerConfiguration, file_kind, scheduler_configuration
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.bounds import Bounds
from yarnspec.impl.scheduler.settings import ASYNC_KEY, MULTI_NODE_KEY, SORTING_POLICY_KEY
from yarnspec.impl.scheduler.specs import AppSpec, NodeSpec, PartitionSpec, RequestSpec, WORLD
from yarnspec.impl.scheduler.variants import Variants, variants as rule_record
from yarnspec.impl.scheduler.world import World, build_world
from yarnspec.spec.scenarios import INVARIANTS, TITLE_SEPARATOR, ExploreBounds, Scenario, ScenarioVariant
from yarnspec.spec.scheduler_model import PROGRESS_PROPERTIES, SchedulerModel

from .json_schema import validate

#: A world-file model's title starts with this (then the file's path).
TITLE_PREFIX = "world:"
#: The environment's action kinds a world may allow (every one by default).
EVENTS = ("submit", "ask", "cancel", "complete", "release", "finish-app", "lose-node", "add-node", "tick")
#: The factory ``--emit-test`` writes into a world's regression test.
MODEL_FACTORY = "yarnspec.checks.world_file:world_model"
DEFAULT_VARIANT = "default"
_SORTING_CLASSES = {"resource-usage": "ResourceUsageMultiNodeLookupPolicy", "usage-ratio": "ResourceUsageRatioMultiNodeLookupPolicy"}
_HADOOP_POLICY_PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement."


@dataclass(frozen=True)
class Units:
    """What one unit of a world file is: ``memory_mb`` MB and ``vcores`` vcores."""

    memory_mb: int
    vcores: int
    from_minimum: bool

    def resource(self, memory: int, vcores: int) -> Resource:
        """``memory`` and ``vcores`` units as a resource."""
        return Resource.of(memory * self.memory_mb, vcores * self.vcores)

    def describe(self) -> str:
        """``1 unit = 1024 MB, 1 vcore (the minimum allocation)``."""
        vcores = f"{self.vcores} vcore{'s' if self.vcores != 1 else ''}"
        why = " (the minimum allocation)" if self.from_minimum else ""
        return f"1 unit = {self.memory_mb} MB, {vcores}{why}"


@dataclass(frozen=True)
class WorldFile:
    """A loaded world file: its scenario, its units and the configuration per world variant."""

    path: str
    scenario: Scenario
    units: Units
    worlds: Mapping[str, World]


def load_world(path: str | Path) -> WorldFile:
    """Read, validate and compile a world file; every fault is one :class:`InputError` naming
    the file and the place (a TOML key path, or the configuration file and property)."""
    source = str(path)
    document = _read_toml(source)
    validate(document, "world", source)
    return _Compiler(source, Path(path).resolve().parent, document).compile()


def world_model(*, world: str, variant: str = "", **parameters: Any) -> SchedulerModel:
    """The model a world-file trace names (for emitted tests): rebuilt from the title."""
    return model_for_world_title(world)


def is_world_title(title: str) -> bool:
    """Whether a model title names a world file (``world:<path>/<variant>``)."""
    return title.startswith(TITLE_PREFIX)


def model_for_world_title(title: str, source: str = "<trace>", place: str = "parameters.world") -> SchedulerModel:
    """The model of ``world:<path>/<variant>``, read again from the world file."""
    path, separator, name = title[len(TITLE_PREFIX) :].rpartition(TITLE_SEPARATOR)
    if not separator or not path:
        raise InputError(source, place, f"expected '{TITLE_PREFIX}<path>{TITLE_SEPARATOR}<question>', got {title!r}")
    loaded = load_world(path)
    return loaded.scenario.model(loaded.scenario.variant(name, source, place))


def _read_toml(source: str) -> dict[str, Any]:
    try:
        with open(source, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise InputError(source, "", f"cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        place = ""
        if "(at " in message:
            message, _, where = message.rpartition(" (at ")
            place = where.rstrip(")")
        raise InputError(source, place, f"not valid TOML: {message}") from None
    except UnicodeDecodeError as exc:
        raise InputError(source, f"byte {exc.start}", "not UTF-8 text") from None


class _Compiler:
    """Turns a validated document into a :class:`WorldFile`."""

    def __init__(self, source: str, folder: Path, document: Mapping[str, Any]) -> None:
        self.source = source
        self.folder = folder
        self.doc = document

    def fail(self, place: str, fault: str) -> InputError:
        return InputError(self.source, place, fault)

    def compile(self) -> WorldFile:
        variant_specs = dict(self.doc.get("variants") or {DEFAULT_VARIANT: {}})
        base = self._base_configuration()
        confs = {name: self._configuration(base, name, spec) for name, spec in variant_specs.items()}
        first = next(iter(confs.values()))
        units = self._units(first)
        partitions = [PartitionSpec("")] + [PartitionSpec(p["name"], p.get("exclusive", True)) for p in self.doc.get("partitions", [])]
        nodes = self._nodes(units)
        apps = self._apps(units)
        bounds = self._bounds()
        worlds = {}
        for name, conf in confs.items():
            spec = variant_specs[name]
            try:
                variants = rule_record(
                    spec.get("commit", "yarn-8127"), spec.get("multi_node_reserve", "first-candidate"), spec.get("headroom", "yarn-8804")
                )
            except InputError as exc:
                raise self.fail(f"variants.{name}.{exc.place.removeprefix('variants.')}", exc.fault) from None
            worlds[name] = self._world(conf, partitions, nodes, apps, variants, bounds)
        scenario = self._scenario(worlds, units)
        self._check_setup(scenario)
        return WorldFile(self.source, scenario, units, worlds)

    # -- configuration ------------------------------------------------------------------------

    def _base_configuration(self) -> list[Any]:
        section = self.doc.get("configuration", {})
        files = []
        for index, name in enumerate(section.get("files", [])):
            path = self.folder / name
            if not path.is_file():
                raise self.fail(f"configuration.files[{index}]", f"{name}: no such file (paths are relative to the world file)")
            files.append(read_configuration_file(path))
        ordered = [f for f in files if file_kind(f) == "yarn-site"] + [f for f in files if file_kind(f) == "capacity-scheduler"]
        inline = {str(k): _text(v) for k, v in section.get("properties", {}).items()}
        inline.update(self._scheduler_keys())
        if inline:
            ordered.append(parse_configuration(format_configuration(inline), f"{self.source} [configuration.properties]"))
        if not ordered:
            raise self.fail("configuration", "give files (capacity-scheduler.xml, yarn-site.xml) or properties")
        return ordered

    def _scheduler_keys(self) -> dict[str, str]:
        section = self.doc.get("scheduler", {})
        keys: dict[str, str] = {}
        if "async" in section:
            keys[ASYNC_KEY] = _text(section["async"])
        if "multi_node" in section:
            keys[MULTI_NODE_KEY] = _text(section["multi_node"])
        if "node_sorting" in section or "sorting_interval_ms" in section:
            keys[SORTING_POLICY_KEY] = "world"
            sorting = section.get("node_sorting", "resource-usage")
            keys[f"{SORTING_POLICY_KEY}.world.class"] = _HADOOP_POLICY_PACKAGE + _SORTING_CLASSES[sorting]
            if "sorting_interval_ms" in section:
                keys[f"{SORTING_POLICY_KEY}.world.sorting-interval.ms"] = str(section["sorting_interval_ms"])
        return keys

    def _configuration(self, base: list[Any], name: str, spec: Mapping[str, Any]) -> SchedulerConfiguration:
        files = list(base)
        extra = {str(k): _text(v) for k, v in spec.get("properties", {}).items()}
        if extra:
            files.append(parse_configuration(format_configuration(extra), f"{self.source} [variants.{name}.properties]"))
        return scheduler_configuration(HadoopConfiguration.merge(files))

    def _units(self, conf: SchedulerConfiguration) -> Units:
        section = self.doc.get("units", {})
        minimum = conf.allocation.minimum
        memory = section.get("memory_mb", minimum.memory)
        vcores = section.get("vcores", max(minimum.vcores, 1))
        if memory % max(minimum.memory, 1):
            raise self.fail("units.memory_mb", f"{memory} MB is not a multiple of the minimum allocation {minimum.memory} MB")
        return Units(memory, vcores, "memory_mb" not in section and "vcores" not in section)

    # -- cluster and applications -------------------------------------------------------------

    def _nodes(self, units: Units) -> list[NodeSpec]:
        nodes: list[NodeSpec] = []
        numbers: dict[str, int] = {}
        for group in self.doc["nodes"]:
            prefix = group.get("name", "n")
            count = group.get("count", 1)
            offline = group.get("offline", 0)
            for i in range(count):
                number = numbers.get(prefix, 0)
                numbers[prefix] = number + 1
                nodes.append(
                    NodeSpec(
                        f"{prefix}{number}",
                        units.resource(group["memory"], group["vcores"]),
                        group.get("partition", ""),
                        group.get("rack", "/default-rack"),
                        live=i < count - offline,
                    )
                )
        return nodes

    def _apps(self, units: Units) -> list[AppSpec]:
        apps = []
        for app in self.doc["apps"]:
            requests = tuple(
                RequestSpec(r["priority"], units.resource(r["memory"], r["vcores"]), r.get("locality", "*"), r.get("relax", True), r.get("label"))
                for r in app.get("requests", [])
            )
            am = units.resource(app["am"]["memory"], app["am"]["vcores"])
            apps.append(AppSpec(app["name"], app["queue"], am, requests, app.get("user", "user"), app.get("priority", 0)))
        return apps

    def _bounds(self) -> Bounds:
        section = dict(self.doc.get("bounds", {}))
        events = self.doc.get("environment", {}).get("events", EVENTS)
        section["node_churn"] = "lose-node" in events or "add-node" in events
        return Bounds(**section)

    def _world(
        self, conf: SchedulerConfiguration, partitions: Sequence[PartitionSpec], nodes: Sequence[NodeSpec],
        apps: Sequence[AppSpec], variants: Variants, bounds: Bounds,
    ) -> World:  # fmt: skip
        try:
            return build_world(conf, partitions, nodes, apps, variants, bounds)
        except InputError as exc:
            if exc.source == WORLD:
                raise self.fail(exc.place, exc.fault) from None
            raise

    # -- questions ----------------------------------------------------------------------------

    def _scenario(self, worlds: Mapping[str, World], units: Units) -> Scenario:
        names = list(worlds)
        variants: list[ScenarioVariant] = []
        for index, question in enumerate(self.doc["questions"]):
            place = f"questions[{index}]"
            prop = question["property"]
            if prop != INVARIANTS and prop not in PROGRESS_PROPERTIES:
                known = ", ".join([INVARIANTS, *PROGRESS_PROPERTIES])
                raise self.fail(f"{place}.property", f"unknown property {prop!r}; known: {known}")
            chosen = question.get("variants", names)
            for j, name in enumerate(chosen):
                if name not in worlds:
                    raise self.fail(f"{place}.variants[{j}]", f"no variant {name!r}; the world's variants: {', '.join(names)}")
                label = question["name"] if len(names) == 1 else f"{question['name']}@{name}"
                if any(v.name == label for v in variants):
                    raise self.fail(f"{place}.name", f"question {question['name']!r} is asked twice")
                why = question.get("why", f"asked by {Path(self.source).name}")
                variants.append(ScenarioVariant(label, {"variant": name}, prop, question.get("expect", "holds"), why))
        explore = self.doc.get("explore", {})
        bounds = ExploreBounds(explore.get("max_depth"), explore.get("max_states"), explore.get("symmetry", False))
        events = self.doc.get("environment", {}).get("events", EVENTS)
        story = self.doc.get("story", "a world from a world file")
        return Scenario(
            name=TITLE_PREFIX + self.source,
            story=f"{story} [{units.describe()}]",
            source=self.source,
            build=lambda variant: worlds[variant],
            variants=tuple(variants),
            bounds=bounds,
            fast=bounds,
            setup=tuple(self.doc.get("environment", {}).get("setup", [])),
            quiet=frozenset(e for e in EVENTS if e not in events),
        )

    def _check_setup(self, scenario: Scenario) -> None:
        """Play the setup once so that a step that is not enabled is reported at load."""
        if not scenario.setup:
            return
        try:
            scenario.model(scenario.variants[0])
        except ValueError as exc:
            detail = str(exc).split(": ", 1)[-1]  # "setup[3] 'launch(c7)' is not enabled"
            index, _, fault = detail.partition(" ")
            raise self.fail(f"environment.{index}", f"{fault} after the steps before it") from None


def _text(value: object) -> str:
    """A TOML value as Hadoop property text (``true``, ``0.5``, ``a,b``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
