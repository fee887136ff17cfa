"""How big a snapshot may be before it is validated (``docs/errors.md``).

Schema validation costs time per item, and a REST queue tree most of all (each queue is a
``$ref`` the validator resolves again): a tree of thousands of queues took minutes, and 78,000
containers more than a minute on a loaded machine. So the
items of a parsed snapshot are counted first, from the document alone and whatever its types,
and a count beyond its limit is one :class:`InputError` with the count and the limit;
``yarnspec preempt --snapshot-limit NAME=N`` raises a limit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from yarnspec.checks.commands.number_options import whole_number_argument
from yarnspec.impl.errors import InputError


@dataclass(frozen=True)
class SnapshotLimits:
    """The most queues, nodes, applications and containers a snapshot may hold."""

    queues: int = 1_000
    nodes: int = 5_000
    apps: int = 10_000
    containers: int = 20_000

    def raised(self, settings: Sequence[str], source: str, option: str) -> SnapshotLimits:
        """These limits with ``NAME=N`` settings applied (an unknown name or a bad number is an
        :class:`InputError` naming ``option``)."""
        names = [f.name for f in fields(self)]
        changed = self
        for setting in settings:
            name, _, value = setting.partition("=")
            if name not in names:
                raise InputError(
                    source, option, f"expected NAME=N with NAME one of {', '.join(names)}, got {setting!r}"
                )
            changed = replace(changed, **{name: whole_number_argument(value, source, f"{option} {name}", 1, 2**63 - 1)})
        return changed


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in ``value``, iteratively."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            yield item
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def _length(value: Any) -> int:
    return len(value) if isinstance(value, list) else 0


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def snapshot_counts(document: dict[str, Any]) -> dict[str, int]:
    """The queues, nodes, applications and containers a (not yet validated) plain snapshot or
    REST bundle holds."""
    if "format" in document:
        apps = document.get("apps")
        return {
            "queues": _length(document.get("queues")),
            "nodes": _length(document.get("nodes")),
            "apps": _length(apps),
            "containers": sum(_length(_get(app, "containers")) for app in apps if isinstance(app, dict))
            if isinstance(apps, list)
            else 0,
        }
    bodies = document.get("containers")
    return {
        "queues": sum(1 for item in _objects(document.get("scheduler")) if "queueName" in item),
        "nodes": _length(_get(document, "nodes", "nodes", "node")),
        "apps": _length(_get(document, "apps", "apps", "app")),
        "containers": sum(_length(_get(body, "container")) for body in bodies.values())
        if isinstance(bodies, dict)
        else 0,
    }


def check_snapshot_size(document: dict[str, Any], limits: SnapshotLimits, source: str) -> None:
    """Refuse a snapshot holding more of an item than its limit allows."""
    for name, count in snapshot_counts(document).items():
        limit = getattr(limits, name)
        if count > limit:
            raise InputError(
                source, "$",
                f"the snapshot holds {count:,} {name}, more than the limit of {limit:,} (checking it would take too long; "
                f"if you mean it, raise the limit: --snapshot-limit {name}={count})",
            )  # fmt: skip
