"""The snapshot's containers grouped the ways a preemption round walks them.

Built once per round with one linear pass (live and reserved containers per application);
everything that needs sorting (an application's victim order, a leaf's ignore-exclusivity
containers, the containers of nodes holding a reservation) is computed the first time a
selector asks for it and then kept, so no list is sorted twice and leaves with nothing to
give cost nothing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from yarnspec.impl.cluster import DEFAULT_PARTITION, Application, ClusterSnapshot, Container, Node
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.ordering import (
    descending_container_order,
    victim_order_of_apps,
    victim_order_of_containers,
)
from yarnspec.impl.resources import Resource


@dataclass(frozen=True)
class ReservedNode:
    """A node holding a reserved container, as the reserved-container selector sees it."""

    node: Node
    reserved: Container
    running: tuple[Container, ...]
    free: Resource


class ContainerIndex:
    """Per-round lookups: the leaf of every application, the partition of every node, an
    application's live and reserved containers, and lazily sorted views of them."""

    def __init__(self, snapshot: ClusterSnapshot) -> None:
        self.snapshot = snapshot
        self.node_partition: dict[str, str] = {nid: node.partition for nid, node in snapshot.nodes.items()}
        self.queue_of: dict[int, str] = {}
        self._apps_by_leaf: dict[str, list[Application]] = {}
        for app in snapshot.apps.values():
            queue = snapshot.queues.get(app.queue)
            if queue is None or not queue.leaf:
                raise InputError("<snapshot>", f"application {app.app_id}", f"queue {app.queue} is not a leaf queue")
            self.queue_of[app.app_id] = app.queue
            self._apps_by_leaf.setdefault(app.queue, []).append(app)
        live: defaultdict[int, list[Container]] = defaultdict(list)
        reserved: defaultdict[int, list[Container]] = defaultdict(list)
        for container in snapshot.containers:
            (reserved if container.reserved else live)[container.container_id.app_id].append(container)
        self._live: dict[int, list[Container]] = dict(live)
        self._reserved: dict[int, list[Container]] = dict(reserved)
        self._victims: dict[int, list[Container]] = {}
        self._apps_order: dict[tuple[str, bool], list[Application]] = {}
        self._ignore_exclusivity: dict[str, dict[str, list[Container]]] = {}
        self._reserved_nodes: list[ReservedNode] | None = None

    def apps_in_victim_order(self, leaf: str, use_priority: bool = True) -> list[Application]:
        """The leaf's applications in preemption order (:func:`victim_order_of_apps`)."""
        key = (leaf, use_priority)
        if key not in self._apps_order:
            self._apps_order[key] = victim_order_of_apps(self._apps_by_leaf.get(leaf, ()), use_priority=use_priority)
        return self._apps_order[key]

    def live_in_victim_order(self, app_id: int) -> list[Container]:
        """The application's live containers in victim order (:func:`victim_order_of_containers`)."""
        found = self._victims.get(app_id)
        if found is None:
            found = self._victims[app_id] = victim_order_of_containers(self._live.get(app_id, ()))
        return found

    def reserved_of(self, app_id: int) -> list[Container]:
        """The application's reserved containers in snapshot (reservation) order."""
        return self._reserved.get(app_id, [])

    def ignore_exclusivity(self, leaf: str, partition: str) -> list[Container]:
        """The leaf's live containers that asked for no label but run on a node of the
        (non-default) ``partition``, newest first (Hadoop
        ``getIgnoreExclusivityRMContainers``, walked descending)."""
        if partition == DEFAULT_PARTITION:
            return []
        groups = self._ignore_exclusivity.get(leaf)
        if groups is None:
            grouped: dict[str, list[Container]] = {}
            for app in self._apps_by_leaf.get(leaf, ()):
                for container in self._live.get(app.app_id, ()):
                    where = self.node_partition[container.node]
                    if container.label == DEFAULT_PARTITION and where != DEFAULT_PARTITION:
                        grouped.setdefault(where, []).append(container)
            groups = {p: descending_container_order(cs) for p, cs in grouped.items()}
            self._ignore_exclusivity[leaf] = groups
        return groups.get(partition, [])

    def reserved_nodes(self) -> list[ReservedNode]:
        """Nodes holding a reserved container, in snapshot node order, each with the last
        reserved container placed on it, its running containers newest first and its free
        resource (unallocated plus killable; semantics A.10, C.2)."""
        if self._reserved_nodes is None:
            self._reserved_nodes = _reserved_nodes(self.snapshot)
        return self._reserved_nodes


def _reserved_nodes(snapshot: ClusterSnapshot) -> list[ReservedNode]:
    reserved: dict[str, Container] = {}
    for container in snapshot.containers:
        if container.reserved:
            reserved[container.node] = container
    if not reserved:
        return []
    running: dict[str, list[Container]] = {node: [] for node in reserved}
    for container in snapshot.containers:
        if not container.reserved and container.node in running:
            running[container.node].append(container)
    found = []
    for node_id, node in snapshot.nodes.items():
        if node_id not in reserved:
            continue
        on_node = running[node_id]
        free = node.total
        for container in on_node:
            free = free - container.resource
            if container.killable:
                free = free + container.resource
        found.append(ReservedNode(node, reserved[node_id], tuple(descending_container_order(on_node)), free))
    return found
