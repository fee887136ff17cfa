"""Snapshots saved from the ResourceManager's REST API (``/ws/v1/cluster/...``).

The bundle is one JSON object holding each response body as it came (schema
``schemas/rm-rest-snapshot.schema.json``): ``scheduler``, ``apps``, ``nodes``, optional
``node_labels`` and ``containers`` keyed by application attempt. Fields read (``docs/your-cluster.md`` has the table):

- scheduler: every queue's ``queueName`` / ``queuePath``, ``type`` (a leaf is
  ``capacitySchedulerLeafQueueInfo``), children under ``queues.queue``, and per partition
  ``resources.resourceUsagesByPartition[]`` (``partitionName``, ``used``, ``pending``,
  ``reserved``); without that list, ``resourcesUsed`` as the default partition's usage.
- apps: ``id``, ``queue``, ``user``, ``state`` (only RUNNING and ACCEPTED are kept),
  ``priority``, ``allocatedMB`` / ``allocatedVCores`` and ``runningContainers`` (checked
  against the containers).
- nodes: ``id``, ``rack``, ``state`` (RUNNING and DECOMMISSIONING nodes count, as in the
  scheduler), ``nodeLabels``, ``totalResource`` or used plus available, and the used figures
  (checked against the containers).
- containers: ``containerId`` (application, attempt and number; number 1 is the AM),
  ``allocatedMB``, ``allocatedVCores``, ``assignedNodeId``, ``priority``, ``containerState``
  (COMPLETE ones are dropped).

What the REST API does not show and the model therefore takes as given: every container's
label is its node's partition (no ignore-exclusivity containers), reservations appear only
as the queues' ``reserved`` figures (no reserved containers), and a leaf's ``pending`` is the
scheduler's raw pending, not the policy's "pending considering user limits".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from yarnspec.checks.shipped_schemas import validate
from yarnspec.checks.snapshot.records import AppRecord, ContainerRecord, NodeRecord, QueueRecord, SnapshotRecords
from yarnspec.impl.cluster import DEFAULT_PARTITION, ROOT, Container, ContainerId
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource

LEAF_TYPE = "capacitySchedulerLeafQueueInfo"
#: Application states whose containers the scheduler still accounts for.
LIVE_APP_STATES = ("RUNNING", "ACCEPTED")
#: Node states whose resources count in the scheduler's cluster resource.
LIVE_NODE_STATES = ("RUNNING", "DECOMMISSIONING")
#: Hadoop's ids: ASCII digits only (``\d`` would take other scripts' digits), matched in full (a
#: schema pattern's ``$`` lets a trailing line break through).
#: At most as many digits as Hadoop's types hold (a long timestamp, an int sequence and attempt,
#: a 40-bit container number).
_APP_ID = re.compile(r"application_(?P<ts>[0-9]{1,19})_(?P<seq>[0-9]{1,10})")
_CONTAINER_ID = re.compile(
    r"container_(?:e(?P<epoch>[0-9]{1,5})_)?(?P<ts>[0-9]{1,19})_(?P<seq>[0-9]{1,10})_(?P<attempt>[0-9]{1,10})_(?P<number>[0-9]{1,13})"
)
#: Hadoop ``ContainerId``: the epoch sits above the low 40 bits of the container number.
_EPOCH_SHIFT = 40


def read_rest(document: Any, source: str) -> SnapshotRecords:
    """Validate the bundle against the schema and read it."""
    validate(document, "rm-rest-snapshot", source)
    exclusive = _exclusivity(document.get("node_labels"))
    queues: dict[str, QueueRecord] = {}
    _queue(
        document["scheduler"]["scheduler"]["schedulerInfo"], None, "$.scheduler.scheduler.schedulerInfo", source, queues
    )
    nodes = []
    for index, entry in enumerate(document["nodes"]["nodes"]["node"]):
        if entry["state"] in LIVE_NODE_STATES:
            nodes.append(_node(entry, f"$.nodes.nodes.node[{index}]"))
    for node in nodes:
        exclusive.setdefault(node.partition, True)
    apps: dict[str, AppRecord] = {}
    timestamps: dict[int, str] = {}
    app_list = (document["apps"]["apps"] or {}).get("app", [])
    for index, entry in enumerate(app_list):
        if entry["state"] not in LIVE_APP_STATES:
            continue
        place = f"$.apps.apps.app[{index}]"
        match = _id_match(_APP_ID, entry["id"], "application_<timestamp>_<sequence>", source, place + ".id")
        app_id = int(match["seq"])
        if app_id in timestamps:
            raise InputError(
                source,
                place,
                f"{entry['id']}: the same sequence number as {timestamps[app_id]} (one ResourceManager's applications only)",
            )
        timestamps[app_id] = entry["id"]
        stated = None
        if "allocatedMB" in entry and "allocatedVCores" in entry:
            stated = Resource.of(max(entry["allocatedMB"], 0), max(entry["allocatedVCores"], 0))
        apps[entry["id"]] = AppRecord(
            app_id=app_id,
            name=entry["id"],
            queue=entry["queue"],
            user=entry.get("user", "user"),
            priority=entry.get("priority", 0),
            place=place,
            stated_used=stated,
            # an ACCEPTED application reports -1 for its allocation and containers
            stated_containers=max(entry["runningContainers"], 0) if "runningContainers" in entry else None,
        )
    containers = _containers(document.get("containers", {}), apps, source)
    return SnapshotRecords(source, "rest", exclusive, tuple(nodes), tuple(apps.values()), containers, queues)


def _id_match(pattern: re.Pattern[str], text: str, form: str, source: str, place: str) -> re.Match[str]:
    """``text`` matched in full by ``pattern`` (ASCII digits, nothing after), else one
    :class:`InputError` naming the form Hadoop writes."""
    match = pattern.fullmatch(text)
    if match is None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        raise InputError(
            source, place, f"expected {form} (ASCII digits, as many as Hadoop's id holds), found {shown!r}"
        )
    return match


def _resource(entry: Mapping[str, Any]) -> Resource:
    return Resource.of(entry["memory"], entry["vCores"])


def _exclusivity(labels: Any) -> dict[str, bool]:
    exclusive = {DEFAULT_PARTITION: True}
    if not labels:
        return exclusive
    items = labels.get("nodeLabelInfo", [])
    for item in items if isinstance(items, list) else [items]:
        value = item.get("exclusivity", True)
        exclusive[item["name"]] = value if isinstance(value, bool) else value.strip().lower() != "false"
    return exclusive


def _queue(
    entry: Mapping[str, Any], parent: str | None, place: str, source: str, found: dict[str, QueueRecord]
) -> None:
    name = entry["queueName"]
    path = entry.get("queuePath") or (name if parent is None else f"{parent}.{name}")
    if parent is None and path != ROOT:
        raise InputError(source, place, f"the top queue is {path!r}, expected {ROOT!r}")
    if path in found:
        raise InputError(source, place, f"queue {path} appears twice")
    used: dict[str, Resource] = {}
    pending: dict[str, Resource] = {}
    reserved: dict[str, Resource] = {}
    usages = entry.get("resources", {}).get("resourceUsagesByPartition")
    if usages is not None:
        for index, usage in enumerate(usages):
            partition = usage["partitionName"]
            if partition in used:
                raise InputError(
                    source,
                    f"{place}.resources.resourceUsagesByPartition[{index}]",
                    f"partition {partition!r} appears twice",
                )
            used[partition] = _resource(usage["used"]) if "used" in usage else Resource.of(0, 0)
            if "pending" in usage:
                pending[partition] = _resource(usage["pending"])
            if "reserved" in usage:
                reserved[partition] = _resource(usage["reserved"])
    elif "resourcesUsed" in entry:
        used[DEFAULT_PARTITION] = _resource(entry["resourcesUsed"])
    leaf = entry.get("type") == LEAF_TYPE
    found[path] = QueueRecord(path, place, leaf, used, pending, reserved)
    for index, child in enumerate((entry.get("queues") or {}).get("queue", [])):
        _queue(child, path, f"{place}.queues.queue[{index}]", source, found)


def _node(entry: Mapping[str, Any], place: str) -> NodeRecord:
    labels = entry.get("nodeLabels") or []
    if "usedMemoryMB" in entry:
        used = Resource.of(entry["usedMemoryMB"], entry["usedVirtualCores"])
    else:
        used = None
    if "totalResource" in entry:
        total = _resource(entry["totalResource"])
    else:
        total = Resource.of(
            entry["usedMemoryMB"] + entry["availMemoryMB"], entry["usedVirtualCores"] + entry["availableVirtualCores"]
        )
    return NodeRecord(
        entry["id"], labels[0] if labels else DEFAULT_PARTITION, total, entry.get("rack", "/default-rack"), place, used
    )


def _containers(bodies: Mapping[str, Any], apps: Mapping[str, AppRecord], source: str) -> tuple[ContainerRecord, ...]:
    found: list[ContainerRecord] = []
    for key, body in bodies.items():
        for index, entry in enumerate(body.get("container", [])):
            place = f"$.containers[{key!r}].container[{index}]"
            if entry.get("containerState", "RUNNING") == "COMPLETE":
                continue
            match = _id_match(
                _CONTAINER_ID,
                entry["containerId"],
                "container_[e<epoch>_]<timestamp>_<app>_<attempt>_<number>",
                source,
                place + ".containerId",
            )
            app_name = f"application_{match['ts']}_{match['seq']}"
            app = apps.get(app_name)
            if app is None:
                raise InputError(
                    source,
                    place,
                    f"{entry['containerId']}: its application {app_name} is not a running application in apps",
                )
            number = int(match["number"]) | (int(match["epoch"] or 0) << _EPOCH_SHIFT)
            is_am = int(match["number"]) == 1
            container = Container(
                ContainerId(app.app_id, number),
                queue=app.queue,
                node=entry["assignedNodeId"],
                resource=Resource.of(entry["allocatedMB"], entry["allocatedVCores"]),
                priority=entry.get("priority", 0),
                is_am=is_am,
            )
            found.append(ContainerRecord(container, entry["containerId"], place))
    return tuple(found)
