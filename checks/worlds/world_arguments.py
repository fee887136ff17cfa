"""World files on the command line: ``yarnspec explore --world FILE``, ``yarnspec check
--world FILE...``, and the replay of a world file's traces.

The format and its reader belong to the specification (:mod:`yarnspec.spec.worlds.world_file`, which
also reads the built-in scenarios); this module reads a user's file with every installed
property (the ``yarnspec.properties`` entry points, :mod:`yarnspec.checks.worlds.plugins`) and
rebuilds a world-file model from a trace's title (``world:<path>/<question>[@<variant>]``).
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from yarnspec.checks.explore.trace import Trace
from yarnspec.checks.explore.trace_world import EmbeddedWorld
from yarnspec.checks.worlds.plugins import installed_properties
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import read_bytes
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.worlds.scenario import TITLE_SEPARATOR, Scenario, ScenarioVariant
from yarnspec.spec.worlds.world_file import (
    EVENTS,
    TITLE_PREFIX,
    Units,
    WorldFile,
    compile_world,
    configuration_file_names,
    read_toml,
)
from yarnspec.spec.worlds.world_file import load_world as read_world

__all__ = [
    "EVENTS", "MODEL_FACTORY", "TITLE_PREFIX", "Units", "WorldFile", "embed_world", "embedded_title", "is_world_title", "load_world",
    "model_for_embedded_world", "model_for_world_title", "portable_trace", "world_model",
]  # fmt: skip

#: The largest configuration file a trace carries (as :mod:`yarnspec.impl.config.hadoop_xml` reads).
_MAX_CONFIGURATION_BYTES = 16 * 1024 * 1024

#: The factory ``--emit-test`` writes into a world's regression test.
MODEL_FACTORY = "yarnspec.checks.worlds.world_arguments:world_model"


def load_world(path: str | Path, warn: bool = False, strict: bool = False) -> WorldFile:
    """Read, validate and compile a user's world file; its questions may name the built-in
    properties and every installed one. Every fault is one :class:`InputError` naming the file
    (or the entry point) and the place. Its warnings (implausible sizes,
    :mod:`yarnspec.spec.worlds.world_sanity`) are printed on stderr with ``warn``; with ``strict``
    the first is an :class:`InputError`."""
    loaded = read_world(path, installed_properties())
    if strict and loaded.warnings:
        first = loaded.warnings[0]
        raise InputError(loaded.path, first.place, f"{first.message} (an error under --strict)")
    if warn:
        for warning in loaded.warnings:
            print(f"yarnspec: warning: {loaded.path}: {warning.place}: {warning.message}", file=sys.stderr)
    return loaded


def world_model(
    *, world: str, variant: str = "", embedded: EmbeddedWorld | None = None, **parameters: Any
) -> SchedulerModel:
    """The model a world-file trace names (for emitted tests): rebuilt from the world the
    trace carries (``embedded``), else (a version-1 trace) from the file its title names."""
    if embedded is not None:
        return model_for_embedded_world(embedded, world)
    return model_for_world_title(world)


def embed_world(scenario: Scenario) -> EmbeddedWorld | None:
    """The world file ``scenario`` was read from, to carry in its traces: the document with
    each configuration file named by its file name alone, and those files' text; ``None`` for
    a scenario not read from a user's world file. The files are read again now."""
    path = scenario.world_file
    if path is None or not is_world_title(scenario.name):
        return None
    document: dict[str, Any] = json.loads(json.dumps(read_toml(path), default=str))
    folder = Path(path).resolve().parent
    files: dict[str, str] = {}
    names = configuration_file_names(document)
    for index, name in enumerate(names):
        carried = Path(name).name
        if carried in files:
            carried = f"{index}-{carried}"
        data = read_bytes(folder / name, _MAX_CONFIGURATION_BYTES)
        try:
            files[carried] = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                str(folder / name), f"byte {exc.start}", "not UTF-8 text: a trace carries configuration files as UTF-8"
            ) from None
        names[index] = carried
    if names:
        document["configuration"]["files"] = names
    named = document.get("name")
    return EmbeddedWorld(named if isinstance(named, str) and named else Path(path).stem, document, files)


def embedded_title(embedded: EmbeddedWorld, scenario: Scenario, title: str) -> str:
    """A model title of ``scenario`` (``world:<path>/<question>``) with the path replaced by
    the embedded world's name (``world:<name>/<question>``)."""
    return TITLE_PREFIX + embedded.name + title[len(scenario.name) :] if title.startswith(scenario.name) else title


def portable_trace(trace: Trace | None, scenario: Scenario) -> Trace | None:
    """``trace`` carrying the user's world file it is of, its title without the file's path
    (unchanged for any other scenario)."""
    embedded = None if trace is None else embed_world(scenario)
    if trace is None or embedded is None:
        return trace
    title = trace.parameters.get("world")
    parameters = dict(trace.parameters)
    if isinstance(title, str):
        parameters["world"] = embedded_title(embedded, scenario, title)
    return dataclasses.replace(trace, parameters=parameters, world=embedded)


def model_for_embedded_world(
    embedded: EmbeddedWorld, title: str, source: str = "<trace>", place: str = "parameters.world"
) -> SchedulerModel:
    """The model of ``world:<name>/<question>`` built from the world a trace carries (its
    faults are reported as the trace's ``world``)."""
    scenario, variant = variant_of_embedded_world(embedded, title, source, place)
    return scenario.model(variant)


def variant_of_embedded_world(
    embedded: EmbeddedWorld, title: str, source: str = "<trace>", place: str = "parameters.world"
) -> tuple[Scenario, ScenarioVariant]:
    """The scenario of the world a trace carries and its variant ``world:<name>/<question>``."""
    prefix = TITLE_PREFIX + embedded.name + TITLE_SEPARATOR
    if not title.startswith(prefix):
        raise InputError(source, place, f"expected '{prefix}<question>' for the world the trace carries, got {title!r}")
    loaded = compile_world(
        embedded.document, embedded.name, embedded.files, f"{source} [world]", installed_properties()
    )
    return loaded.scenario, loaded.scenario.variant(title[len(prefix) :], source, place)


def is_world_title(title: str) -> bool:
    """Whether a model title names a world file (``world:<path>/<variant>``)."""
    return title.startswith(TITLE_PREFIX)


def model_for_world_title(title: str, source: str = "<trace>", place: str = "parameters.world") -> SchedulerModel:
    """The model of ``world:<path>/<variant>``, read again from the world file."""
    scenario, variant = variant_of_world_title(title, source, place)
    return scenario.model(variant)


def variant_of_world_title(
    title: str, source: str = "<trace>", place: str = "parameters.world"
) -> tuple[Scenario, ScenarioVariant]:
    """The scenario of ``world:<path>/<variant>`` (the world file read again) and its variant."""
    path, separator, name = title[len(TITLE_PREFIX) :].rpartition(TITLE_SEPARATOR)
    if not separator or not path:
        raise InputError(source, place, f"expected '{TITLE_PREFIX}<path>{TITLE_SEPARATOR}<question>', got {title!r}")
    loaded = load_world(path)
    return loaded.scenario, loaded.scenario.variant(name, source, place)
