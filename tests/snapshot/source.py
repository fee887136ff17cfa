"""One description of a running cluster, written out as every format that can hold it: the
plain snapshot, the ResourceManager REST bundle and a mockframework conformance case.

The tests build all three from one :class:`Source` and check that ``yarnspec preempt`` reads
the same cluster from both snapshot formats and that its numbers pass the conformance runner.
Queue figures in the REST bundle and the case are summed here, independently of the reader.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from yarnspec.impl.cluster import Partition
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.resources import Resource

TIMESTAMP = 1732500000000


@dataclass(frozen=True)
class SourceNode:
    host: str
    memory: int
    vcores: int
    partition: str = ""
    rack: str = "/default-rack"


@dataclass(frozen=True)
class SourceContainer:
    node: str
    memory: int
    vcores: int
    priority: int


@dataclass(frozen=True)
class SourceApp:
    queue: str  # a leaf path
    user: str
    containers: tuple[SourceContainer, ...]  # the first is the AM
    pending: tuple[tuple[str, int, int], ...] = ()  # (partition, memory, vcores)


@dataclass(frozen=True)
class Source:
    nodes: tuple[SourceNode, ...]
    apps: tuple[SourceApp, ...]  # application i+1
    exclusive: Mapping[str, bool] = field(default_factory=dict)

    def node(self, host: str) -> SourceNode:
        return next(n for n in self.nodes if n.host == host)

    def partitions(self) -> list[Partition]:
        sizes: dict[str, Resource] = {"": Resource.of(0, 0)}
        for node in self.nodes:
            sizes[node.partition] = sizes.get(node.partition, Resource.of(0, 0)) + Resource.of(node.memory, node.vcores)
        return [Partition(name, size, self.exclusive.get(name, True)) for name, size in sizes.items()]

    def usage(self, conf: SchedulerConfiguration) -> dict[tuple[str, str], list[int]]:
        """[used mem, used vcores, pending mem, pending vcores] per (queue, partition), summed up the tree."""
        figures: dict[tuple[str, str], list[int]] = {}
        for app in self.apps:
            for ancestor in _ancestors(app.queue):
                for c in app.containers:
                    cell = figures.setdefault((ancestor, self.node(c.node).partition), [0, 0, 0, 0])
                    cell[0] += c.memory
                    cell[1] += c.vcores
                for partition, memory, vcores in app.pending:
                    cell = figures.setdefault((ancestor, partition), [0, 0, 0, 0])
                    cell[2] += memory
                    cell[3] += vcores
        return figures


def _ancestors(path: str) -> Iterator[str]:
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        yield ".".join(parts[:i])


def app_name(index: int) -> str:
    return f"application_{TIMESTAMP}_{index:04d}"


def container_name(index: int, number: int) -> str:
    return f"container_e07_{TIMESTAMP}_{index:04d}_01_{number:06d}"


def plain(source: Source, description: str = "") -> dict[str, Any]:
    """The plain snapshot."""
    document: dict[str, Any] = {"format": "yarnspec-snapshot/1"}
    if description:
        document["description"] = description
    labels = sorted({n.partition for n in source.nodes} - {""})
    if labels:
        document["partitions"] = [{"name": label, "exclusive": source.exclusive.get(label, True)} for label in labels]
    document["nodes"] = [
        {
            "id": n.host,
            **({"partition": n.partition} if n.partition else {}),
            "memory": n.memory,
            "vcores": n.vcores,
            "rack": n.rack,
        }
        for n in source.nodes
    ]
    document["apps"] = []
    for index, app in enumerate(source.apps, start=1):
        entry: dict[str, Any] = {"id": index, "queue": app.queue, "user": app.user}
        if app.pending:
            entry["pending"] = [
                {**({"partition": p} if p else {}), "memory": m, "vcores": v} for p, m, v in app.pending
            ]
        entry["containers"] = [
            {"number": n, "node": c.node, "memory": c.memory, "vcores": c.vcores, "priority": c.priority}
            for n, c in enumerate(app.containers, start=1)
        ]
        document["apps"].append(entry)
    return document


def rest(source: Source, conf: SchedulerConfiguration) -> dict[str, Any]:
    """The REST bundle, shaped as Hadoop 3's responses (only the fields yarnspec reads, plus
    a few that it ignores)."""
    usage = source.usage(conf)
    partitions = [p.name for p in source.partitions()]

    def resource(memory: int, vcores: int) -> dict[str, int]:
        return {"memory": memory, "vCores": vcores}

    def queue_info(path: str) -> dict[str, Any]:
        queue = conf.queues[path]
        by_partition = []
        for partition in partitions:
            if partition and not queue.can_access(partition):
                continue
            used_m, used_v, pend_m, pend_v = usage.get((path, partition), [0, 0, 0, 0])
            by_partition.append(
                {
                    "partitionName": partition,
                    "used": resource(used_m, used_v),
                    "reserved": resource(0, 0),
                    "pending": resource(pend_m, pend_v),
                    "amUsed": resource(0, 0),
                }
            )
        used = usage.get((path, ""), [0, 0, 0, 0])
        info: dict[str, Any] = {
            "queuePath": path,
            "queueName": queue.name,
            "state": queue.state,
            "capacity": round((queue.at("").relative or 0.0) * 100, 4),
            "resourcesUsed": resource(used[0], used[1]),
            "resources": {"resourceUsagesByPartition": by_partition},
        }
        if queue.leaf:
            info["type"] = "capacitySchedulerLeafQueueInfo"
            info["numApplications"] = sum(1 for a in source.apps if a.queue == path)
            info["preemptionDisabled"] = conf.preemption_disabled(path)
        else:
            info["queues"] = {"queue": [queue_info(child) for child in queue.children]}
        return info

    root = queue_info("root")
    root["type"] = "capacityScheduler"
    apps = []
    containers: dict[str, Any] = {}
    for index, app in enumerate(source.apps, start=1):
        apps.append(
            {
                "id": app_name(index),
                "user": app.user,
                "name": f"job {index}",
                "queue": app.queue,
                "state": "RUNNING",
                "finalStatus": "UNDEFINED",
                "priority": 0,
                "allocatedMB": sum(c.memory for c in app.containers),
                "allocatedVCores": sum(c.vcores for c in app.containers),
                "runningContainers": len(app.containers),
            }
        )
        containers[f"appattempt_{TIMESTAMP}_{index:04d}_000001"] = {
            "container": [
                {
                    "containerId": container_name(index, n),
                    "allocatedMB": c.memory,
                    "allocatedVCores": c.vcores,
                    "assignedNodeId": c.node,
                    "priority": c.priority,
                    "containerState": "RUNNING",
                    "nodeHttpAddress": f"http://{c.node.split(':')[0]}:8042",
                }
                for n, c in enumerate(app.containers, start=1)
            ]
        }
    nodes = []
    for node in source.nodes:
        used_m = sum(c.memory for a in source.apps for c in a.containers if c.node == node.host)
        used_v = sum(c.vcores for a in source.apps for c in a.containers if c.node == node.host)
        nodes.append(
            {
                "id": node.host,
                "rack": node.rack,
                "state": "RUNNING",
                "nodeHostName": node.host.split(":")[0],
                "nodeLabels": [node.partition] if node.partition else [],
                "usedMemoryMB": used_m,
                "availMemoryMB": node.memory - used_m,
                "usedVirtualCores": used_v,
                "availableVirtualCores": node.vcores - used_v,
                "numContainers": sum(1 for a in source.apps for c in a.containers if c.node == node.host),
            }
        )
    labels = [{"name": label, "exclusivity": source.exclusive.get(label, True)} for label in partitions if label]
    return {
        "scheduler": {"scheduler": {"schedulerInfo": root}},
        "apps": {"apps": {"app": apps}},
        "nodes": {"nodes": {"node": nodes}},
        "node_labels": {"nodeLabelInfo": labels},
        "containers": containers,
    }


def mockframework_input(source: Source, conf: SchedulerConfiguration) -> dict[str, str]:
    """The cluster in the mockframework notation (semantics part C), guarantees and maxima
    from the configuration over the source's partitions."""
    usage = source.usage(conf)
    partitions = source.partitions()
    queues = queues_for_snapshot(conf, partitions)
    labels = ";".join(
        f"{p.name}={p.resource.memory}:{p.resource.vcores},{str(p.exclusive).lower()}" for p in partitions
    )
    nodes = ";".join(f"{n.host}={n.partition} res={n.memory}:{n.vcores}" for n in source.nodes)

    def res(r: Resource) -> str:
        return f"{r.memory}:{r.vcores}"

    queue_lines = []
    for queue in queues:
        depth = queue.path.count(".")
        entries = []
        for p in partitions:
            figures = queue.at(p.name)
            um, uv, pm, pv = usage.get((queue.path, p.name), [0, 0, 0, 0])
            entries.append(f"{p.name}=[{res(figures.guaranteed)} {res(figures.maximum)} {um}:{uv} {pm}:{pv}]")
        options = []
        if queue.priority:
            options.append(f"priority={queue.priority}")
        if queue.preemption_disabled:
            options.append("disable_preemption=true")
        suffix = "{" + ",".join(options) + "}" if options else ""
        queue_lines.append("-" * depth + f"{queue.name}({','.join(entries)}){suffix}")
    app_lines = []
    for app in source.apps:
        specs = "".join(
            f"({c.priority},{c.memory}:{c.vcores},{c.node},{source.node(c.node).partition},1,false)"
            for c in app.containers
        )
        app_lines.append(f"{app.queue}\t{specs}")
    return {
        "labelsConfig": labels,
        "nodesConfig": nodes,
        "queuesConfig": ";".join(queue_lines),
        "appsConfig": ";".join(app_lines),
    }


def first_fit(
    nodes: Sequence[SourceNode], sizes: Sequence[tuple[str, int, int, int]], used: dict[str, list[int]]
) -> tuple[SourceContainer, ...]:
    """Place containers (partition, memory, vcores, priority) first-fit on ``nodes``."""
    placed = []
    for partition, memory, vcores, priority in sizes:
        for node in nodes:
            if node.partition != partition:
                continue
            cell = used.setdefault(node.host, [0, 0])
            if cell[0] + memory <= node.memory and cell[1] + vcores <= node.vcores:
                cell[0] += memory
                cell[1] += vcores
                placed.append(SourceContainer(node.host, memory, vcores, priority))
                break
        else:
            raise ValueError(f"no room for {memory}:{vcores} in partition {partition!r}")
    return tuple(placed)
