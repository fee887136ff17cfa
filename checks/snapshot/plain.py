"""The plain snapshot format (``"format": "yarnspec-snapshot/1"``, schema
``schemas/snapshot.schema.json``): nodes, applications with their containers and pending
demand, optionally the queues' own figures. The schema checks form; this module only turns
the validated document into :class:`SnapshotRecords`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yarnspec.checks.shipped_schemas import validate
from yarnspec.checks.snapshot.records import AppRecord, ContainerRecord, NodeRecord, QueueRecord, SnapshotRecords
from yarnspec.impl.cluster import DEFAULT_PARTITION, Container, ContainerId
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource

FORMAT = "yarnspec-snapshot/1"
#: A container's priority when the file does not give one (Hadoop's test harnesses use 1 for
#: tasks and 0 for the AM).
DEFAULT_PRIORITY = 1


def read_plain(document: Any, source: str) -> SnapshotRecords:
    """Validate ``document`` against the schema and read it."""
    validate(document, "snapshot", source)
    exclusive: dict[str, bool] = {DEFAULT_PARTITION: True}
    for index, entry in enumerate(document.get("partitions", [])):
        if entry["name"] in exclusive:
            raise InputError(source, f"$.partitions[{index}].name", f"partition {entry['name']!r} is given twice")
        exclusive[entry["name"]] = entry.get("exclusive", True)
    nodes = tuple(_node(entry, f"$.nodes[{i}]") for i, entry in enumerate(document["nodes"]))
    apps: list[AppRecord] = []
    containers: list[ContainerRecord] = []
    for i, entry in enumerate(document["apps"]):
        place = f"$.apps[{i}]"
        apps.append(
            AppRecord(
                app_id=entry["id"],
                name=f"app {entry['id']}",
                queue=entry["queue"],
                user=entry.get("user", "user"),
                priority=entry.get("priority", 0),
                place=place,
                pending=_pending(entry.get("pending", []), source, place + ".pending"),
            )
        )
        for j, item in enumerate(entry.get("containers", [])):
            containers.append(_container(entry["id"], entry["queue"], item, f"{place}.containers[{j}]"))
    queues: dict[str, QueueRecord] = {}
    for i, entry in enumerate(document.get("queues", [])):
        place = f"$.queues[{i}]"
        partition = entry.get("partition", DEFAULT_PARTITION)
        old = queues.get(entry["path"], QueueRecord(entry["path"], place))
        figures = {name: dict(getattr(old, name)) for name in ("used", "pending", "reserved")}
        for name, values in figures.items():
            if name in entry:
                if partition in values:
                    raise InputError(
                        source, place, f"queue {entry['path']} partition {partition!r}: {name} is given twice"
                    )
                values[partition] = _resource(entry[name])
        queues[entry["path"]] = QueueRecord(
            entry["path"], old.place, None, figures["used"], figures["pending"], figures["reserved"]
        )
    return SnapshotRecords(source, "plain", exclusive, nodes, tuple(apps), tuple(containers), queues)


def _resource(entry: Mapping[str, Any]) -> Resource:
    return Resource.of(entry["memory"], entry["vcores"])


def _node(entry: Mapping[str, Any], place: str) -> NodeRecord:
    used = _resource(entry["used"]) if "used" in entry else None
    return NodeRecord(
        node_id=entry["id"],
        partition=entry.get("partition", DEFAULT_PARTITION),
        total=_resource(entry),
        rack=entry.get("rack", "/default-rack"),
        place=place,
        stated_used=used,
    )


def _pending(raw: Any, source: str, place: str) -> dict[str, Resource]:
    items = raw if isinstance(raw, list) else [raw]
    pending: dict[str, Resource] = {}
    for index, item in enumerate(items):
        partition = item.get("partition", DEFAULT_PARTITION)
        if partition in pending:
            raise InputError(source, f"{place}[{index}]", f"pending for partition {partition!r} is given twice")
        pending[partition] = _resource(item)
    return pending


def _container(app_id: int, queue: str, entry: Mapping[str, Any], place: str) -> ContainerRecord:
    number = entry["number"]
    is_am = entry.get("am", number == 1)
    container = Container(
        ContainerId(app_id, number),
        queue=queue,
        node=entry["node"],
        resource=_resource(entry),
        priority=entry.get("priority", 0 if is_am else DEFAULT_PRIORITY),
        is_am=is_am,
        reserved=entry.get("reserved", False),
        label=entry.get("label", ""),
    )
    return ContainerRecord(container, str(container.container_id), place, label_given="label" in entry)
