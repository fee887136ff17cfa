"""What both snapshot readers produce: the cluster as the file states it, each item with its
place in the file, before it is checked against the configuration and against itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from yarnspec.impl.cluster import Container
from yarnspec.impl.resources import Resource


@dataclass(frozen=True)
class NodeRecord:
    """A node: id, partition, total resource; ``stated_used`` is what the file says it uses
    (checked against the containers on it), ``None`` when the file does not say."""

    node_id: str
    partition: str
    total: Resource
    rack: str
    place: str
    stated_used: Resource | None = None


@dataclass(frozen=True)
class AppRecord:
    """A running application. ``queue`` is as written (a path or a leaf's short name).
    ``pending`` per partition, when the file gives it per application; ``stated_used`` is the
    application's own total, checked against its containers."""

    app_id: int
    name: str
    queue: str
    user: str
    priority: int
    place: str
    pending: Mapping[str, Resource] = field(default_factory=dict)
    stated_used: Resource | None = None
    stated_containers: int | None = None


@dataclass(frozen=True)
class ContainerRecord:
    """A live or reserved container as written. Its queue and, unless ``label_given``, its
    label (the partition its request asked for) are filled in from its application and
    node."""

    container: Container
    name: str
    place: str
    label_given: bool = False


@dataclass(frozen=True)
class QueueRecord:
    """A queue's figures as the file states them, per partition (``None`` = not stated)."""

    path: str
    place: str
    leaf: bool | None = None
    used: Mapping[str, Resource] = field(default_factory=dict)
    pending: Mapping[str, Resource] = field(default_factory=dict)
    reserved: Mapping[str, Resource] = field(default_factory=dict)


@dataclass(frozen=True)
class SnapshotRecords:
    """Everything a snapshot file states. ``exclusive`` maps every partition the file names to
    its exclusivity (the default partition ``""`` is always there and exclusive)."""

    source: str
    kind: str
    exclusive: Mapping[str, bool]
    nodes: tuple[NodeRecord, ...]
    apps: tuple[AppRecord, ...]
    containers: tuple[ContainerRecord, ...]
    queues: Mapping[str, QueueRecord] = field(default_factory=dict)

    def without(self, killed: frozenset[str]) -> SnapshotRecords:
        """The same cluster with the named containers gone and every stated total dropped
        (they no longer hold once containers are removed); pending is unchanged."""
        return replace(
            self,
            nodes=tuple(replace(n, stated_used=None) for n in self.nodes),
            apps=tuple(replace(a, stated_used=None, stated_containers=None) for a in self.apps),
            containers=tuple(c for c in self.containers if c.name not in killed),
            queues={path: replace(q, used={}) for path, q in self.queues.items()},
        )
