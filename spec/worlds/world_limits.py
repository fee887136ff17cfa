"""How big a world file may make its world before anything is built (``docs/errors.md``).

A world is explored state by state, so a world of thousands of nodes or applications, or
bounds that let millions of containers or clock steps exist, is not a search that ends: the
compiler used to expand it (``range(2**63 - 1)`` nodes) and hang. :func:`check_world_size`
measures what the document asks for, from the document alone, and refuses what exceeds a
limit with the estimate and the limit. A world that means to be big says so: a ``[limits]``
table raises a limit by name (``[limits] nodes = 200``), and no limit goes past the model's
own range (a Java ``long`` for memory, an ``int`` for vcores).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from yarnspec.impl.config.getters import INT_RANGE, LONG_RANGE
from yarnspec.impl.errors import InputError


@dataclass(frozen=True)
class WorldLimits:
    """The most a world may ask for, each raisable by the ``[limits]`` key of the same name:
    ``nodes`` (the sum of ``nodes[].count``), ``apps``, ``requests`` (over all applications),
    and per bounds table ``max_containers``, ``max_ask``, ``max_proposals``,
    ``max_rereservations`` and ``clock_steps`` (``max_clock_ms / tick_ms``)."""

    nodes: int = 64
    apps: int = 64
    requests: int = 256
    max_containers: int = 10_000
    max_ask: int = 10_000
    max_proposals: int = 64
    max_rereservations: int = 10_000
    clock_steps: int = 100_000


#: The bound keys a ``[bounds]`` table may set that a limit of the same name caps.
_BOUND_LIMITS = ("max_containers", "max_ask", "max_proposals", "max_rereservations")


def world_limits(document: Mapping[str, Any]) -> WorldLimits:
    """The limits of a world: the defaults, raised (or lowered) by its ``[limits]`` table."""
    given = document.get("limits", {})
    known = {f.name for f in fields(WorldLimits)}
    return replace(WorldLimits(), **{key: value for key, value in given.items() if key in known})


def check_world_size(document: Mapping[str, Any], memory_unit: int, vcore_unit: int, source: str) -> None:
    """Refuse a (schema-valid) world document whose size or bounds exceed its limits, or whose
    resources in units overflow the model's Java types; the message gives the estimate, the
    limit and the ``[limits]`` key that raises it."""
    limits = world_limits(document)
    nodes = sum(group.get("count", 1) for group in document.get("nodes", []))
    _at_most(source, "nodes", nodes, limits.nodes, "nodes (the sum of nodes[].count)")
    apps = document.get("apps", [])
    _at_most(source, "apps", len(apps), limits.apps, "applications")
    requests = sum(len(app.get("requests", [])) for app in apps)
    _at_most(source, "apps", requests, limits.requests, "requests over all applications", key="requests")
    tables = [("bounds", document.get("bounds", {}))]
    tables += [
        (f"variants.{name}.bounds", spec.get("bounds", {})) for name, spec in document.get("variants", {}).items()
    ]
    for place, table in tables:
        for key in _BOUND_LIMITS:
            if key in table:
                _at_most(source, f"{place}.{key}", table[key], getattr(limits, key), key.replace("_", " "), key=key)
        if "max_clock_ms" in table or "tick_ms" in table:
            base = document.get("bounds", {})
            clock = table.get("max_clock_ms", base.get("max_clock_ms", 60000))
            tick = max(table.get("tick_ms", base.get("tick_ms", 1000)), 1)
            _at_most(
                source,
                f"{place}.max_clock_ms",
                clock // tick,
                limits.clock_steps,
                "clock steps (max_clock_ms / tick_ms)",
                key="clock_steps",
            )
    _check_resources(document, memory_unit, vcore_unit, source)


def _at_most(source: str, place: str, estimate: int, limit: int, what: str, key: str = "") -> None:
    if estimate > limit:
        name = key or place
        raise InputError(
            source, place,
            f"the world asks for {estimate:,} {what}, more than the limit of {limit:,}, a search that would not end "
            f"(if you mean it, raise the limit in the world file: [limits] {name} = ...)",
        )  # fmt: skip


def _check_resources(document: Mapping[str, Any], memory_unit: int, vcore_unit: int, source: str) -> None:
    """Every size in units, times the unit, must fit Hadoop's types: memory a ``long`` (MB),
    vcores an ``int``."""
    sizes: list[tuple[str, Mapping[str, Any]]] = [
        (f"nodes[{i}]", group) for i, group in enumerate(document.get("nodes", []))
    ]
    for i, app in enumerate(document.get("apps", [])):
        sizes.append((f"apps[{i}].am", app.get("am", {})))
        sizes += [(f"apps[{i}].requests[{j}]", request) for j, request in enumerate(app.get("requests", []))]
    for place, size in sizes:
        for key, unit, (_, highest), kind in (
            ("memory", memory_unit, LONG_RANGE, "long"),
            ("vcores", vcore_unit, INT_RANGE, "int"),
        ):
            value = size.get(key, 0)
            if value * unit > highest:
                raise InputError(
                    source,
                    f"{place}.{key}",
                    f"{value:,} units of {unit:,} is {value * unit:,}, beyond the model's range (a Java {kind}, at most {highest:,})",
                )
