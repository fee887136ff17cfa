"""What a world is built from: the node partitions, node slots, applications and requests a
user writes (in Python or a world file), before :func:`~.world.build_world` checks and
indexes them."""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.resources import Resource

ANY = "*"
WORLD = "<world>"


@dataclass(frozen=True)
class PartitionSpec:
    """A node partition (node label): ``""`` is the default one. ``exclusive=False`` lends idle
    resource to requests without a label (Hadoop's ``exclusive`` node-label attribute)."""

    name: str
    exclusive: bool = True


@dataclass(frozen=True)
class NodeSpec:
    """A node slot: its name (also its host), rack, partition and capacity; ``live``: whether it
    is registered in the initial state (otherwise it may join later)."""

    name: str
    capacity: Resource
    partition: str = ""
    rack: str = "/default-rack"
    live: bool = True


@dataclass(frozen=True)
class RequestSpec:
    """A request an application master may make: ``priority`` (>= 1; a smaller number is more
    important), the capability of one container, the resource name (``*``, a node name or a
    rack name), whether locality may be relaxed, and the partition asked for (``None``: the
    queue's default node-label expression, as Hadoop fills it in)."""

    priority: int
    capability: Resource
    locality: str = ANY
    relax: bool = True
    label: str | None = None


@dataclass(frozen=True)
class AppSpec:
    """An application the environment may submit: its leaf queue (path or short name), user,
    YARN priority, the resource of its application master, and the requests its master may
    make once running."""

    name: str
    queue: str
    am: Resource
    requests: tuple[RequestSpec, ...] = ()
    user: str = "user"
    priority: int = 0
