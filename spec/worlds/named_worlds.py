"""The named small worlds of the scheduler model (:data:`WORLDS`), as functions of their
variant parameters: the property suite walks them, and the scheduler contract's ``reset``
names them (``{"world": "seed003", "parameters": {"commit": "yarn-8127"}}``).

Each is built from a world file of the one catalogue (``yarnspec/spec/worlds/``):
``seed003`` and ``duplicate-commit`` are the worlds of the scenarios ``reserved-starvation``
and ``async-double-commit``; ``seed002`` and ``two-queues`` are world files that are not
scenarios of ``yarnspec check`` (:data:`MODEL_WORLDS`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from yarnspec.impl.config.keys import PREEMPTION_SELECT_FOR_RESERVED
from yarnspec.impl.scheduler.inputs.settings import ASYNC_KEY
from yarnspec.impl.scheduler.inputs.variants import CommitCheck, MultiNodeReserve
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.worlds.scenario import Scenario
from yarnspec.spec.worlds.catalogue import SCENARIOS, WORLDS_FOLDER, builtin_world_path
from yarnspec.spec.scheduler.model import SchedulerModel, headroom_of
from yarnspec.spec.worlds.world_file import load_world

#: The shipped world files that are not scenarios of the catalogue.
MODEL_WORLDS: tuple[str, ...] = ("seed002", "two-queues")
#: The reserved-container selector's key (YARN-4390).


def _model_world(name: str) -> Scenario:
    return load_world(builtin_world_path(name), catalogue=True, origin=f"{WORLDS_FOLDER}/{name}.toml").scenario


#: The world files of :data:`MODEL_WORLDS`, read once.
_FILES: Mapping[str, Scenario] = {name: _model_world(name) for name in MODEL_WORLDS}


def seed003_world(commit: CommitCheck = "yarn-8127", reserve: MultiNodeReserve = "first-candidate") -> World:
    """Seed 003 (the world of the scenario ``reserved-starvation``): asynchronous multi-node
    placement, a 4 GB and an 8 GB node, a 4 GB request reserved on the small one; ``reserve``
    names the multi-node rules (:func:`~yarnspec.impl.scheduler.world.variants`)."""
    return SCENARIOS["reserved-starvation"].build(commit=commit, multi_node_reserve=reserve)


def duplicate_commit_world(commit: CommitCheck = "pre-8127") -> World:
    """YARN-8127's race (the world of the scenario ``async-double-commit``), with the
    blocked-headroom rule of the releases ``commit`` stands for (:func:`headroom_of`)."""
    return SCENARIOS["async-double-commit"].build(commit=commit, headroom=headroom_of(commit))


def seed002_world(reserved_selector: bool = False) -> World:
    """Seed 002's small cluster and large container (``seed002.toml``); ``reserved_selector``
    turns on the reserved-container selector."""
    return _FILES["seed002"].build(properties={PREEMPTION_SELECT_FOR_RESERVED: "true"} if reserved_selector else {})


def two_queue_world(commit: CommitCheck = "yarn-8127", asynchronous: bool = False) -> World:
    """Two queues sharing two interchangeable nodes under preemption (``two-queues.toml``)."""
    return _FILES["two-queues"].build(
        commit=commit, headroom=headroom_of(commit), properties={ASYNC_KEY: "true" if asynchronous else "false"}
    )


#: The named worlds by name (each a function of its variant parameters, with defaults).
WORLDS: Mapping[str, Callable[..., World]] = {
    "seed003": seed003_world,
    "duplicate-commit": duplicate_commit_world,
    "seed002": seed002_world,
    "two-queues": two_queue_world,
}

#: The named worlds whose story is about progress (their model checks ``reservation-progress``).
PROGRESS_WORLDS = frozenset({"seed003"})


def model(name: str, **parameters: Any) -> SchedulerModel:
    """The model of a named world (``KeyError`` for an unknown name); only the worlds of
    :data:`PROGRESS_WORLDS` check the progress property."""
    return SchedulerModel(WORLDS[name](**parameters), name, progress=name in PROGRESS_WORLDS)
