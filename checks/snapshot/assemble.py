"""From snapshot records and a configuration to a checked :class:`ClusterSnapshot`.

Guarantees and maxima come from the configuration (:func:`queues_for_snapshot`, over the
partitions the snapshot's nodes make up); usage, reservations and pending demand from the
snapshot. Before anything is built, the records are checked against the configuration (the
same queue tree, applications in leaves) and against themselves (semantics A.2's accounting):

- a node's containers fit its total, and add up to what the node says it uses;
- an application's containers add up to what it says it has allocated;
- a leaf's used is the sum of its applications' containers per node partition, a parent's
  used (pending, reserved) is the sum of its children's, and every figure the file states
  must equal the sum.

The first difference is one :class:`InputError` naming the file, the JSON place and both
figures, so a snapshot with, say, parents' usage left at 0 is refused rather than silently
producing no preemption.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NoReturn

from yarnspec.checks.snapshot.records import ContainerRecord, NodeRecord, QueueRecord, SnapshotRecords
from yarnspec.impl.cluster import (
    Application,
    ClusterSnapshot,
    Container,
    ContainerId,
    Node,
    Partition,
    Queue,
    QueuePartition,
)
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import ZERO, Resource

Figures = dict[tuple[str, str], Resource]


@dataclass(frozen=True)
class LoadedSnapshot:
    """A checked snapshot with what was read to build it: the records (to re-assemble after
    kills) and every container's name as the file wrote it."""

    snapshot: ClusterSnapshot
    records: SnapshotRecords
    names: Mapping[ContainerId, str]

    def name(self, container: Container) -> str:
        """The container's name as the snapshot file wrote it."""
        return self.names.get(container.container_id, str(container.container_id))


def assemble(records: SnapshotRecords, conf: SchedulerConfiguration) -> LoadedSnapshot:
    """Check ``records`` against ``conf`` and against themselves, and build the snapshot."""
    check = _Checker(records, conf)
    partitions = check.partitions()
    queues = queues_for_snapshot(conf, partitions)
    check.queue_tree()
    apps = check.apps()
    containers = check.containers(apps)
    check.app_totals(containers)
    check.node_totals(containers)
    used, reserved, pending = check.queue_figures(containers)
    built = [_with_usage(q, used, reserved, pending) for q in queues]
    snapshot = ClusterSnapshot.create(
        partitions=partitions,
        nodes=[Node(n.node_id, n.partition, n.total, n.rack) for n in records.nodes],
        queues=built,
        apps=list(apps.values()),
        containers=[c.container for c in containers],
    )
    return LoadedSnapshot(snapshot, records, {c.container.container_id: c.name for c in containers})


def _with_usage(queue: Queue, used: Figures, reserved: Figures, pending: Figures) -> Queue:
    figures: dict[str, QueuePartition] = {}
    for partition, part in queue.partitions.items():
        key = (queue.path, partition)
        amount = pending.get(key, ZERO)
        held = reserved.get(key, ZERO)
        figures[partition] = replace(
            part,
            used=used.get(key, ZERO),
            pending=amount,
            reserved=held,
            pending_net_reserved=(amount - held).clamp_min_zero(),
        )
    return replace(queue, partitions=figures)


def _sum_up(figures: Figures, conf: SchedulerConfiguration) -> None:
    """Add every queue's figures to its parent's, children before parents."""
    for queue in reversed(list(conf.queues)):
        if queue.parent is None:
            continue
        for (path, partition), amount in list(figures.items()):
            if path == queue.path:
                _add(figures, (queue.parent, partition), amount)


def _add(figures: Figures, key: tuple[str, str], amount: Resource) -> None:
    figures[key] = figures.get(key, ZERO) + amount


class _Checker:
    """The checks, in the order :func:`assemble` runs them; each fault raises at once."""

    def __init__(self, records: SnapshotRecords, conf: SchedulerConfiguration) -> None:
        self.records = records
        self.conf = conf
        self.source = records.source
        self.nodes: dict[str, NodeRecord] = {}
        for node in records.nodes:
            if node.node_id in self.nodes:
                self.fail(node.place, f"node {node.node_id} is listed twice")
            self.nodes[node.node_id] = node

    def fail(self, place: str, fault: str) -> NoReturn:
        raise InputError(self.source, place, fault)

    def partitions(self) -> list[Partition]:
        """One partition per label the snapshot names, its resource the sum of its nodes."""
        sizes: dict[str, Resource] = {name: ZERO for name in self.records.exclusive}
        for node in self.records.nodes:
            sizes[node.partition] = sizes.get(node.partition, ZERO) + node.total
        exclusive = self.records.exclusive
        return [Partition(name, size, exclusive.get(name, True)) for name, size in sizes.items()]

    def queue_tree(self) -> None:
        """Stated queues are configured ones, with the same shape; a full tree (REST) must
        also name every configured queue."""
        configured = self.conf.queues.queues
        for path, record in self.records.queues.items():
            if path not in configured:
                self.fail(record.place, f"queue {path} is not in the configuration ({', '.join(self.conf.sources)})")
            if record.leaf is not None and record.leaf != configured[path].leaf:
                kind = "a leaf" if record.leaf else "a parent"
                self.fail(
                    record.place,
                    f"queue {path} is {kind} here but not in the configuration: snapshot and configuration differ",
                )
        if self.records.kind == "rest":
            for path in configured:
                if path not in self.records.queues:
                    self.fail(
                        "$.scheduler",
                        f"queue {path} of the configuration is missing: snapshot and configuration differ",
                    )

    def apps(self) -> dict[int, Application]:
        """Applications with their queue resolved to a configured leaf."""
        found: dict[int, Application] = {}
        for app in self.records.apps:
            if app.app_id in found:
                self.fail(app.place, f"application id {app.app_id} is listed twice")
            queue = self._leaf(app.queue, app.place)
            found[app.app_id] = Application(app.app_id, queue, app.priority, app.user)
        return found

    def _leaf(self, written: str, place: str) -> str:
        configured = self.conf.queues.queues
        if written in configured:
            path = written
        else:
            matches = [q.path for q in configured.values() if q.name == written]
            if len(matches) != 1:
                fault = "is ambiguous: " + ", ".join(matches) if matches else "is not a configured queue"
                self.fail(place + ".queue", f"queue {written!r} {fault}")
            path = matches[0]
        if not configured[path].leaf:
            self.fail(place + ".queue", f"queue {path} is a parent queue; applications run in leaf queues")
        return path

    def containers(self, apps: Mapping[int, Application]) -> list[ContainerRecord]:
        """Containers with queue and label filled in, on known nodes, with unique ids."""
        found: list[ContainerRecord] = []
        seen: set[ContainerId] = set()
        for record in self.records.containers:
            container = record.container
            if container.container_id in seen:
                self.fail(record.place, f"{record.name} is listed twice")
            seen.add(container.container_id)
            node = self.nodes.get(container.node)
            if node is None:
                self.fail(
                    record.place, f"{record.name} runs on {container.node}, which is not a running node of the snapshot"
                )
            label = container.label if record.label_given else node.partition
            if label not in self.records.exclusive and label != node.partition:
                self.fail(record.place, f"{record.name} asks for partition {label!r}, which no node has")
            queue = apps[container.app_id].queue
            found.append(replace(record, container=replace(container, queue=queue, label=label)))
        return found

    def node_totals(self, containers: Sequence[ContainerRecord]) -> None:
        """Each node's live containers fit its total and match what it says it uses."""
        used: dict[str, Resource] = {}
        for record in containers:
            if not record.container.reserved:
                used[record.container.node] = used.get(record.container.node, ZERO) + record.container.resource
        for node in self.records.nodes:
            amount = used.get(node.node_id, ZERO)
            if not amount.fits_all(node.total):
                self.fail(
                    node.place, f"node {node.node_id}: its containers use {amount}, more than its total {node.total}"
                )
            if node.stated_used is not None and node.stated_used != amount:
                self.fail(
                    node.place,
                    f"node {node.node_id} says it uses {node.stated_used}, its containers add up to {amount}",
                )

    def app_totals(self, containers: Sequence[ContainerRecord]) -> None:
        """Each application's live containers match its stated allocation and count."""
        used: dict[int, Resource] = {}
        count: dict[int, int] = {}
        for record in containers:
            if not record.container.reserved:
                app_id = record.container.app_id
                used[app_id] = used.get(app_id, ZERO) + record.container.resource
                count[app_id] = count.get(app_id, 0) + 1
        for app in self.records.apps:
            amount, number = used.get(app.app_id, ZERO), count.get(app.app_id, 0)
            if app.stated_containers is not None and app.stated_containers != number:
                self.fail(
                    app.place,
                    f"{app.name} says it runs {app.stated_containers} containers, the snapshot lists {number} (add the containers of its attempt)",
                )
            if app.stated_used is not None and app.stated_used != amount:
                self.fail(
                    app.place, f"{app.name} says it has {app.stated_used} allocated, its containers add up to {amount}"
                )

    def queue_figures(self, containers: Sequence[ContainerRecord]) -> tuple[Figures, Figures, Figures]:
        """Used, reserved and pending per (queue, partition): leaves from containers and
        applications (or the file's leaf figures where it gives no per-application ones),
        parents summed; every stated figure must equal the computed one."""
        used: Figures = {}
        reserved: Figures = {}
        pending: Figures = {}
        for item in containers:
            container = item.container
            key = (container.queue, self.nodes[container.node].partition)
            _add(reserved if container.reserved else used, key, container.resource)
        apps_pending = any(app.pending for app in self.records.apps)
        for app in self.records.apps:
            queue = self._leaf(app.queue, app.place)
            for partition, amount in app.pending.items():
                if partition not in self.records.exclusive:
                    self.fail(app.place + ".pending", f"partition {partition!r} is not a partition of the snapshot")
                _add(pending, (queue, partition), amount)
        stated_reservations = not any(c.container.reserved for c in containers)
        for leaf in self.conf.queues.leaves:
            record = self.records.queues.get(leaf)
            if record is not None and not apps_pending:
                pending.update({(leaf, partition): amount for partition, amount in record.pending.items()})
            if record is not None and stated_reservations:
                reserved.update({(leaf, partition): amount for partition, amount in record.reserved.items()})
        for figures in (used, reserved, pending):
            _sum_up(figures, self.conf)
        for record in self.records.queues.values():
            self._compare(record, "used", record.used, used)
            self._compare(record, "pending", record.pending, pending)
            self._compare(record, "reserved", record.reserved, reserved)
        return used, reserved, pending

    def _compare(self, record: QueueRecord, name: str, stated: Mapping[str, Resource], computed: Figures) -> None:
        leaf = self.conf.queues[record.path].leaf
        for partition, amount in stated.items():
            expected = computed.get((record.path, partition), ZERO)
            if amount == expected:
                continue
            label = partition or '""'
            if leaf:
                why = (
                    f"its applications' containers add up to {expected}"
                    if name != "pending"
                    else f"its applications ask for {expected}"
                )
            else:
                why = f"its children's add up to {expected}: a parent's {name} is the sum of its children's"
            self.fail(record.place, f"queue {record.path} partition {label}: {name} is {amount}, but {why}")
