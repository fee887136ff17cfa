"""The shipped worlds of the catalogue as functions of their variant parameters
(:data:`BUILDERS`), each known by its world file's name: the property suite walks them, and the
scheduler contract's ``reset`` names them (``{"world": "reserved-starvation", "parameters":
{"commit": "yarn-8127"}}``).

``reserved-starvation`` and ``async-double-commit`` are scenarios of ``yarnspec check``;
``seed002`` and ``two-queues`` are the world files that are not
(:data:`~yarnspec.spec.worlds.catalogue.MODEL_WORLDS`). All four are read once, by the
catalogue (:data:`~yarnspec.spec.worlds.catalogue.WORLD_FILES`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from yarnspec.impl.config.keys import PREEMPTION_SELECT_FOR_RESERVED
from yarnspec.impl.scheduler.inputs.settings import ASYNC_KEY
from yarnspec.impl.scheduler.inputs.variants import CommitCheck, MultiNodeReserve
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler.model import SchedulerModel, headroom_of
from yarnspec.spec.worlds.catalogue import WORLD_FILES

#: The reserved-container selector's key (YARN-4390).


def reserved_starvation_world(
    commit: CommitCheck = "yarn-8127", reserve: MultiNodeReserve = "first-candidate"
) -> World:
    """Seed 003 (``reserved-starvation.toml``): asynchronous multi-node placement, a 4 GB and an
    8 GB node, a 4 GB request reserved on the small one; ``reserve`` names the multi-node rules
    (:func:`~yarnspec.impl.scheduler.world.variants`)."""
    return WORLD_FILES["reserved-starvation"].build(commit=commit, multi_node_reserve=reserve)


def async_double_commit_world(commit: CommitCheck = "pre-8127") -> World:
    """YARN-8127's race (``async-double-commit.toml``), with the blocked-headroom rule of the
    releases ``commit`` stands for (:func:`headroom_of`)."""
    return WORLD_FILES["async-double-commit"].build(commit=commit, headroom=headroom_of(commit))


def seed002_world(reserved_selector: bool = False) -> World:
    """Seed 002's small cluster and large container (``seed002.toml``); ``reserved_selector``
    turns on the reserved-container selector."""
    return WORLD_FILES["seed002"].build(
        properties={PREEMPTION_SELECT_FOR_RESERVED: "true"} if reserved_selector else {}
    )


def two_queues_world(commit: CommitCheck = "yarn-8127", asynchronous: bool = False) -> World:
    """Two queues sharing two interchangeable nodes under preemption (``two-queues.toml``)."""
    return WORLD_FILES["two-queues"].build(
        commit=commit, headroom=headroom_of(commit), properties={ASYNC_KEY: "true" if asynchronous else "false"}
    )


#: The builder of each shipped world the property suite walks, by its world file's name (each a
#: function of its variant parameters, with defaults).
BUILDERS: Mapping[str, Callable[..., World]] = {
    "reserved-starvation": reserved_starvation_world,
    "async-double-commit": async_double_commit_world,
    "seed002": seed002_world,
    "two-queues": two_queues_world,
}

#: The worlds whose story is about progress (their model checks ``reservation-progress``).
PROGRESS_WORLDS = frozenset({"reserved-starvation"})


def model(name: str, **parameters: Any) -> SchedulerModel:
    """The model of the shipped world ``name`` built with ``parameters`` (``KeyError`` for a
    name not in :data:`BUILDERS`); only the worlds of :data:`PROGRESS_WORLDS` check the
    progress property."""
    return SchedulerModel(BUILDERS[name](**parameters), name, progress=name in PROGRESS_WORLDS)
