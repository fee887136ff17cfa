"""World files on the command line: ``yarnspec explore --world FILE``, ``yarnspec check
--world FILE...``, and the replay of a world file's traces.

The format and its reader belong to the specification (:mod:`yarnspec.spec.worlds.world_file`, which
also reads the built-in scenarios); this module reads a user's file with every installed
property (the ``yarnspec.properties`` entry points, :mod:`yarnspec.checks.worlds.plugins`) and
rebuilds a world-file model from a trace's title (``world:<path>/<question>[@<variant>]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.worlds.scenario import TITLE_SEPARATOR
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.worlds.world_file import EVENTS, TITLE_PREFIX, Units, WorldFile
from yarnspec.spec.worlds.world_file import load_world as read_world

from yarnspec.checks.worlds.plugins import installed_properties

__all__ = ["EVENTS", "MODEL_FACTORY", "TITLE_PREFIX", "Units", "WorldFile", "is_world_title", "load_world", "model_for_world_title", "world_model"]

#: The factory ``--emit-test`` writes into a world's regression test.
MODEL_FACTORY = "yarnspec.checks.worlds.world_arguments:world_model"


def load_world(path: str | Path) -> WorldFile:
    """Read, validate and compile a user's world file; its questions may name the built-in
    properties and every installed one. Every fault is one :class:`InputError` naming the file
    (or the entry point) and the place."""
    return read_world(path, installed_properties())


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
