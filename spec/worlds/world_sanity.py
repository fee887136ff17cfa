"""Sizes in a world file that are implausible for its configuration: warnings naming the key.

A world's sizes are in units (by default the configuration's minimum allocation), so a size
written in MB by mistake is multiplied once more: with a 2048 MB minimum allocation,
``memory = 4096`` is a node of 4096 x 2048 MB = 8 TB, and nothing else looks wrong. The
warnings (:func:`world_warnings`) catch what cannot be meant:

* a node larger than the configured maximum allocation by two orders of magnitude or more
  (:data:`NODE_TO_MAXIMUM`), with what the number was read as;
* a queue whose guarantee, at the world's size, cannot hold an application's AM and one of
  its containers (the application can never be served within its guarantee, so
  ``guarantee-progress`` is never even asked there);
* a request larger than every node of its partition (never allocated).

``yarnspec explore --world`` and ``yarnspec check --world`` print them on stderr; ``--strict``
makes the first one an error (exit 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import initial_state
from yarnspec.impl.scheduler.world import World

#: A node this many times the maximum allocation (or more) is taken for a unit mistake.
NODE_TO_MAXIMUM = 100


@dataclass(frozen=True)
class WorldWarning:
    """An implausible size: ``place`` is the key (``nodes[0].memory``), ``message`` what it
    was read as and why it looks wrong."""

    place: str
    message: str


def world_warnings(
    document: Mapping[str, Any], unit_mb: int, unit_vcores: int, unit_text: str, world: World
) -> list[WorldWarning]:
    """The warnings of a compiled world (see the module docstring); ``document`` is the world
    file as read, ``unit_mb``/``unit_vcores`` one unit, ``unit_text`` says what a unit is."""
    return [
        *_large_nodes(document.get("nodes", []), unit_mb, unit_vcores, unit_text, world),
        *_requests_larger_than_nodes(document.get("apps", []), world),
        *_guarantees_too_small(document.get("apps", []), world),
    ]


def _large_nodes(
    groups: Sequence[Mapping[str, Any]], unit_mb: int, unit_vcores: int, unit_text: str, world: World
) -> list[WorldWarning]:
    maximum = world.configuration.allocation.maximum
    found = []
    for index, group in enumerate(groups):
        for key, per_unit, most, what in (
            ("memory", unit_mb, maximum.memory, "MB"),
            ("vcores", unit_vcores, maximum.vcores, "vcores"),
        ):
            written = group.get(key, 0)
            read = written * per_unit
            if most > 0 and read >= NODE_TO_MAXIMUM * most:
                meant = (
                    f"; if {written} was meant in {what}, write {key} = {written // per_unit}"
                    if per_unit > 1 and written % per_unit == 0
                    else ""
                )
                found.append(
                    WorldWarning(
                        f"nodes[{index}].{key}",
                        f"{written} units read as {read:,} {what} ({unit_text}), {read // most:,} times the maximum allocation "
                        f"{most:,} {what}{meant}",
                    )
                )
    return found


def _requests_larger_than_nodes(apps: Sequence[Mapping[str, Any]], world: World) -> list[WorldWarning]:
    found = []
    for index, app in enumerate(world.apps):
        for request_index, request in enumerate(app.requests):
            nodes = [n.capacity for n, p in zip(world.nodes, world.node_partition) if p == request.partition]
            if nodes and not any(world.calculator.fits_in(request.capability, capacity) for capacity in nodes):
                place = f"apps[{index}].am" if request.is_am else f"apps[{index}].requests[{request_index - 1}]"
                largest = max(nodes, key=lambda r: r.values)
                found.append(
                    WorldWarning(
                        place,
                        f"{request.capability} is larger than every node of its partition (the largest: {largest}): never allocated",
                    )
                )
    return found


def _guarantees_too_small(apps: Sequence[Mapping[str, Any]], world: World) -> list[WorldWarning]:
    view = View(world, initial_state(world))
    found = []
    for index, app in enumerate(world.apps):
        am = app.requests[0]
        first = next((r for r in app.requests[1:]), None)
        needed: Resource = am.capability if first is None else am.capability + first.capability
        guaranteed = view.guaranteed(app.queue, am.partition)
        if not world.calculator.fits_in(needed, guaranteed):
            what = "AM" if first is None else "AM plus one container"
            found.append(
                WorldWarning(
                    f"apps[{index}].queue",
                    f"{world.queues[app.queue].path}'s guarantee at this world's size is {guaranteed}, less than {app.name}'s {what} "
                    f"({needed}): it is never served within its guarantee",
                )
            )
    return found
