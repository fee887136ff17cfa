"""World files: a small world to explore, written in TOML (schema
``yarnspec/spec/schemas/world.schema.json``, ``docs/world-files.md``).

A world file names a configuration (files and inline keys), nodes and applications in *units*
(by default 1 unit = the configuration's minimum allocation, so worlds stay small and every
request is a valid size), the environment events allowed, the scheduler's
asynchronous/multi-node settings, variants (rules, configuration keys and bounds of their own),
the questions (a property with the verdict expected) and the explorer's default and fast
bounds. :func:`load_world` compiles it into a :class:`~yarnspec.spec.worlds.scenario.Scenario`, one
scenario variant per question and world variant.

The built-in scenarios are world files too (``yarnspec/spec/worlds/``, read by
:mod:`yarnspec.spec.worlds.catalogue`): one format for the catalogue and a user's own worlds. A user's
world file is named ``world:<path>``, so a trace of it (titled
``world:<path>/<question>[@<variant>]``) names the file to read again; a catalogue world is
named by its ``name``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from yarnspec.impl.config.hadoop_xml import (
    HadoopConfiguration,
    inline_configuration,
    parse_configuration,
    read_configuration_file,
)
from yarnspec.impl.config.scheduler import SchedulerConfiguration, file_kind, scheduler_configuration
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import read_toml as read_toml_file
from yarnspec.impl.input_files import shown_name
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import ASYNC_KEY, MULTI_NODE_KEY, SORTING_POLICY_KEY
from yarnspec.impl.scheduler.inputs.specs import WORLD, AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import variants as rule_record
from yarnspec.impl.scheduler.world import World, build_world
from yarnspec.spec.json_schema import schema_validator, validate_document
from yarnspec.spec.outcome import Outcome
from yarnspec.spec.property_catalogue import PropertyCatalogue
from yarnspec.spec.scheduler.model import BUILTIN_PROPERTIES
from yarnspec.spec.worlds.scenario import ExploreBounds, Scenario, ScenarioVariant
from yarnspec.spec.worlds.world_limits import check_world_size
from yarnspec.spec.worlds.world_sanity import WorldWarning, world_warnings

#: A user's world-file scenario's name starts with this (then the file's path).
TITLE_PREFIX = "world:"
#: The environment's action kinds a world may allow (every one by default).
EVENTS = ("submit", "ask", "cancel", "complete", "release", "finish-app", "lose-node", "add-node", "tick")
#: The environment's kinds that ``Bounds.node_churn`` already turns off when none is allowed.
NODE_EVENTS = frozenset({"lose-node", "add-node"})
DEFAULT_VARIANT = "default"
#: A world variant's keys that are its answer to the questions, not its world.
ANSWER_KEYS = ("expect", "why")
__all__ = [
    "WorldFile",
    "Units",
    "load_world",
    "read_toml",
    "world_schema_text",
    "TITLE_PREFIX",
    "EVENTS",
    "DEFAULT_VARIANT",
]

_SORTING_CLASSES = {
    "resource-usage": "ResourceUsageMultiNodeLookupPolicy",
    "usage-ratio": "ResourceUsageRatioMultiNodeLookupPolicy",
}
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
    """A loaded world file: its scenario, its units and the world of each world variant."""

    path: str
    scenario: Scenario
    units: Units
    worlds: Mapping[str, World]
    #: implausible sizes of a user's world (:mod:`yarnspec.spec.worlds.world_sanity`), by key
    warnings: tuple[WorldWarning, ...] = ()


def load_world(
    path: str | Path, properties: PropertyCatalogue = BUILTIN_PROPERTIES, catalogue: bool = False, origin: str = ""
) -> WorldFile:
    """Read, validate and compile a world file; every fault is one :class:`InputError` naming
    the file and the place (a TOML key path, or the configuration file and property).
    ``properties`` are the names its questions may give. A ``catalogue`` world (a built-in
    one) is named by its ``name`` and keeps its story as written; a user's is named
    ``world:<path>`` and its story says what a unit is. ``origin`` says where it comes from
    (default: its path). A catalogue world is not checked against the schema here: a test
    checks the shipped files once, and jsonschema is then not loaded at every start.

    A shipped world file read as a user's own (named after its path):

    >>> from importlib import resources
    >>> path = str(resources.files("yarnspec.spec.worlds") / "two-queues.toml")
    >>> world = load_world(path)
    >>> world.scenario.name == f"world:{path}"
    True
    >>> world.units.describe()
    '1 unit = 1024 MB, 1 vcore (the minimum allocation)'
    >>> [(v.name, v.property, v.expected.value) for v in world.scenario.variants]
    [('heartbeat', 'invariants', 'not-refuted'), ('async', 'invariants', 'not-refuted')]
    >>> load_world("no-such-world.toml")
    Traceback (most recent call last):
    ...
    yarnspec.impl.errors.InputError: no-such-world.toml: no such file
    """
    source = str(path)
    document = read_toml(source)
    if not catalogue:
        validate_document(document, schema_validator(world_schema_text(), check=False), shown_name(source))
    return _Compiler(source, Path(path).resolve().parent, document, properties, catalogue, origin or source).compile()


def compile_world(
    document: Mapping[str, Any],
    name: str,
    files: Mapping[str, str],
    source: str,
    properties: PropertyCatalogue = BUILTIN_PROPERTIES,
) -> WorldFile:
    """A world file carried elsewhere (in a trace): its ``document`` (as :func:`read_toml`
    reads it), named ``world:<name>``, its configuration files' text in ``files`` by the names
    ``configuration.files`` gives; ``source`` names it in messages. Validated and compiled as
    :func:`load_world` does, without reading any file."""
    validate_document(dict(document), schema_validator(world_schema_text(), check=False), source)
    return _Compiler(source, None, document, properties, False, source, files, TITLE_PREFIX + name).compile()


def configuration_file_names(document: Mapping[str, Any]) -> list[str]:
    """The configuration files a world document names (``configuration.files``), as written."""
    names = document.get("configuration", {}).get("files", [])
    return [str(name) for name in names] if isinstance(names, list) else []


def world_schema_text() -> str:
    """The world file's JSON Schema, as shipped."""
    return resources.files("yarnspec.spec").joinpath("schemas", "world.schema.json").read_text(encoding="utf-8")


def read_toml(source: str) -> dict[str, Any]:
    """The TOML document in ``source``, read by the shared reader
    (:func:`yarnspec.impl.input_files.read_toml`): a FIFO, a device, a folder or a file over
    the size limit is refused unread; a syntax error names the line and column; nesting and
    integers beyond the limits are refused by name. Every fault is one :class:`InputError`."""
    return read_toml_file(source)


class _Compiler:
    """Turns a validated document into a :class:`WorldFile`."""

    def __init__(
        self, source: str, folder: Path | None, document: Mapping[str, Any], properties: PropertyCatalogue, catalogue: bool,
        origin: str, files: Mapping[str, str] | None = None, name: str = "",
    ) -> None:  # fmt: skip
        self.source = source
        #: the file's name in messages: quoted when it holds a line break or another control character
        self.shown = shown_name(source)
        self.folder = folder
        #: the configuration files' text by name, when the world is not read from a folder
        self.files = files
        #: the scenario's name (default: ``world:<source>``, or the document's for the catalogue)
        self.name = name
        self.doc = document
        self.properties = properties
        self.catalogue = catalogue
        self.origin = origin

    def fail(self, place: str, fault: str) -> InputError:
        return InputError(self.shown, place, fault)

    def compile(self) -> WorldFile:
        self.variant_specs = dict(self.doc.get("variants") or {DEFAULT_VARIANT: {}})
        self.base = self._base_configuration()
        first = self._configuration(next(iter(self.variant_specs.values())).get("properties", {}))
        self.units = self._units(first)
        check_world_size(self.doc, self.units.memory_mb, self.units.vcores, self.shown)
        self.partitions = [PartitionSpec("")] + [
            PartitionSpec(p["name"], p.get("exclusive", True)) for p in self.doc.get("partitions", [])
        ]
        self.nodes = self._nodes(self.units)
        self.apps = self._apps(self.units)
        worlds = {name: self._variant_world(name, spec) for name, spec in self.variant_specs.items()}
        scenario = self._scenario()
        warnings: tuple[WorldWarning, ...] = ()
        if not self.catalogue:  # the built-ins' set-ups are played by their tests, not at every start
            self._check_setup(scenario)
            units, world = self.units, next(iter(worlds.values()))
            warnings = tuple(world_warnings(self.doc, units.memory_mb, units.vcores, units.describe(), world))
        return WorldFile(self.source, scenario, self.units, worlds, warnings)

    def _variant_world(self, name: str, spec: Mapping[str, Any]) -> World:
        """The world of one world variant; a fault in its rules is placed under ``variants.NAME``."""
        try:
            return self.build(**{k: v for k, v in spec.items() if k not in ANSWER_KEYS})
        except InputError as exc:
            if exc.source == WORLD and exc.place.startswith("variants."):
                rule = {"variants.reserve": "multi_node_reserve"}.get(exc.place, exc.place.removeprefix("variants."))
                raise self.fail(f"variants.{name}.{rule}", exc.fault) from None
            raise

    def build(
        self, commit: str = "yarn-8127", multi_node_reserve: str = "first-candidate", headroom: str = "yarn-8804",
        properties: Mapping[str, Any] | None = None, bounds: Mapping[str, Any] | None = None,
    ) -> World:  # fmt: skip
        """The world under one world variant's options (the keys of a ``[variants.NAME]``
        table): the rules, configuration keys on top of the world's, bounds on top of its
        ``[bounds]``."""
        rules = rule_record(commit, multi_node_reserve, headroom)  # type: ignore[arg-type]
        conf = self._configuration(properties or {})
        try:
            return build_world(conf, self.partitions, self.nodes, self.apps, rules, self._bounds(bounds or {}))
        except InputError as exc:
            if exc.source == WORLD:
                raise self.fail(exc.place, exc.fault) from None
            raise

    # -- configuration ------------------------------------------------------------------------

    def _base_configuration(self) -> list[Any]:
        section = self.doc.get("configuration", {})
        files = []
        for index, name in enumerate(section.get("files", [])):
            if self.files is not None:
                if name not in self.files:
                    raise self.fail(f"configuration.files[{index}]", f"{name}: not carried with the world")
                files.append(parse_configuration(self.files[name], f"{self.source} [{name}]"))
                continue
            assert self.folder is not None
            path = self.folder / name
            if not path.is_file():
                raise self.fail(
                    f"configuration.files[{index}]", f"{name}: no such file (paths are relative to the world file)"
                )
            files.append(read_configuration_file(path))
        ordered = [f for f in files if file_kind(f) == "yarn-site"] + [
            f for f in files if file_kind(f) == "capacity-scheduler"
        ]
        inline = {str(k): _text(v) for k, v in section.get("properties", {}).items()}
        inline.update(self._scheduler_keys())
        if inline:
            ordered.append(inline_configuration(inline, f"{self.shown} [configuration.properties]"))
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

    def _configuration(self, properties: Mapping[str, Any]) -> SchedulerConfiguration:
        files = list(self.base)
        extra = {str(k): _text(v) for k, v in properties.items()}
        if extra:
            files.append(inline_configuration(extra, f"{self.shown} [variant properties]"))
        return scheduler_configuration(HadoopConfiguration.merge(files))

    def _units(self, conf: SchedulerConfiguration) -> Units:
        section = self.doc.get("units", {})
        minimum = conf.allocation.minimum
        memory = section.get("memory_mb", minimum.memory)
        vcores = section.get("vcores", max(minimum.vcores, 1))
        if memory % max(minimum.memory, 1):
            raise self.fail(
                "units.memory_mb", f"{memory} MB is not a multiple of the minimum allocation {minimum.memory} MB"
            )
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
                RequestSpec(
                    r["priority"],
                    units.resource(r["memory"], r["vcores"]),
                    r.get("locality", "*"),
                    r.get("relax", True),
                    r.get("label"),
                )
                for r in app.get("requests", [])
            )
            am = units.resource(app["am"]["memory"], app["am"]["vcores"])
            apps.append(
                AppSpec(app["name"], app["queue"], am, requests, app.get("user", "user"), app.get("priority", 0))
            )
        return apps

    def _events(self) -> Sequence[str]:
        return list(self.doc.get("environment", {}).get("events", EVENTS))

    def _bounds(self, overrides: Mapping[str, Any]) -> Bounds:
        section = {**self.doc.get("bounds", {}), **overrides}
        events = self._events()
        section["node_churn"] = _churn(events)
        return Bounds(**section)

    # -- questions ----------------------------------------------------------------------------

    def _scenario(self) -> Scenario:
        names = list(self.variant_specs)
        variants: list[ScenarioVariant] = []
        for index, question in enumerate(self.doc["questions"]):
            place = f"questions[{index}]"
            prop = question["property"]
            self.properties.check_name(prop, self.shown, f"{place}.property")
            chosen = question.get("variants", names)
            for j, name in enumerate(chosen):
                if name not in self.variant_specs:
                    raise self.fail(
                        f"{place}.variants[{j}]", f"no variant {name!r}; the world's variants: {', '.join(names)}"
                    )
                variants.append(self._variant(question, place, name, len(names) > 1, variants))
        explore = dict(self.doc.get("explore", {}))
        fast = {**explore, **explore.pop("fast", {})}
        events = self._events()
        story = self.doc.get("story", "a world from a world file")
        return Scenario(
            name=self.name or (self.doc["name"] if self.catalogue else TITLE_PREFIX + self.source),
            story=story if self.catalogue else f"{story} [{self.units.describe()}]",
            source=self.doc.get("source", self.source),
            build=self.build,
            variants=tuple(variants),
            bounds=_explore_bounds(explore),
            fast=_explore_bounds(fast),
            setup=tuple(self.doc.get("environment", {}).get("setup", [])),
            quiet=frozenset(e for e in EVENTS if e not in events and (e not in NODE_EVENTS or _churn(events))),
            notes=self.doc.get("description", ""),
            origin=self.origin,
            world_file=self.source if self.folder is not None else None,
            catalogue=self.properties,
        )

    def _variant(
        self, question: Mapping[str, Any], place: str, name: str, several: bool, before: Sequence[ScenarioVariant]
    ) -> ScenarioVariant:
        """One question asked of one world variant. A named question's scenario variant is
        ``question@variant`` (just ``question`` when the world has one variant); an unnamed
        one's is the world variant's name. The verdict expected and the evidence are the
        question's, else the world variant's, else ``holds`` and the file's name."""
        spec = self.variant_specs[name]
        if "name" in question:
            label = f"{question['name']}@{name}" if several else question["name"]
        else:
            label = name
        if any(v.name == label for v in before):
            what = (
                f"question {question['name']!r} is asked twice"
                if "name" in question
                else f"variant {name!r} is asked twice"
            )
            raise self.fail(f"{place}.name" if "name" in question else place, what)
        if "expect" in question:
            expect = Outcome.parse(question["expect"], self.source, f"{place}.expect")
        else:
            expect = Outcome.parse(spec.get("expect", Outcome.HOLDS.value), self.source, f"variants.{name}.expect")
        why = question.get("why", spec.get("why", f"asked by {Path(self.source).name}"))
        options = {k: v for k, v in spec.items() if k not in ANSWER_KEYS}
        return ScenarioVariant(label, options, question["property"], expect, why)

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


def _churn(events: Sequence[str]) -> bool:
    """Whether nodes may be lost or join (``Bounds.node_churn``): some node event is allowed."""
    return any(e in NODE_EVENTS for e in events)


def _explore_bounds(section: Mapping[str, Any]) -> ExploreBounds:
    return ExploreBounds(section.get("max_depth"), section.get("max_states"), section.get("symmetry", False))


def _text(value: object) -> str:
    """A TOML value as Hadoop property text (``true``, ``0.5``, ``a,b``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
