"""The static part of a scheduler model: everything that never changes while it runs.

What it is built from lives beside it, one concept per module: the user's specs of partitions,
nodes and applications (:mod:`.specs`), the behaviour :class:`~.variants.Variants`
(:mod:`.variants`), the :class:`~.settings.Settings` read from the configuration
(:mod:`.settings`) and the :class:`~.bounds.Bounds` (:mod:`.bounds`).

A :class:`World` holds the queue tree read from a real configuration (through
:mod:`yarnspec.impl.config`), the partitions, the node slots (a node may join or be lost while
the model runs), the applications the environment may submit with the requests their masters
may make, the scheduler settings read from the configuration (asynchronous scheduling,
multi-node placement and its sorting policy, reservations-continue-looking, allocation
limits, the preemption monitor), the named behaviour :class:`Variants` and the :class:`Bounds`
that keep the model finite. Everything is indexed (partitions, nodes, queues, users, apps,
requests), so the dynamic state (:mod:`.state`) is tuples of small numbers.

Build one with :func:`build_world` from a :class:`SchedulerConfiguration` (read from
``capacity-scheduler.xml`` / ``yarn-site.xml``) or :func:`configuration_from_properties` for a
mapping of properties. Every fault is an :class:`InputError` naming the place
(``nodes[2].partition``) and what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.calculator import calculator as make_calculator
from yarnspec.impl.cluster import Partition, Queue
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.capacity import QueueConfig
from yarnspec.impl.config.keys import CAPACITY_PREFIX
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.inputs.bounds import Bounds, check_bounds
from yarnspec.impl.scheduler.inputs.settings import Settings, read_settings, time_horizon
from yarnspec.impl.scheduler.inputs.specs import ANY, WORLD, AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import Variants, check_variants

#: Hadoop's ``AM_CONTAINER_PRIORITY``: the priority of the request for an application master.
AM_PRIORITY = 0


#: The leaf ordering policies the model implements (see :mod:`.queue_order`).
APP_ORDERING_POLICIES = ("fifo", "fair")


LocalityKind = Literal["any", "node", "rack"]


@dataclass(frozen=True)
class Request:
    """A compiled request of one application: ``key`` is its scheduler key (the index of its
    priority among the app's priorities, most important first); ``partition`` an index."""

    priority: int
    key: int
    capability: Resource
    kind: LocalityKind
    target: int  # node index or rack index; -1 for any
    relax: bool
    partition: int
    is_am: bool


@dataclass(frozen=True)
class AppInfo:
    """A compiled application: indices of its queue and user; ``requests[0]`` is its AM request;
    ``keys`` the distinct priorities, most important first."""

    name: str
    queue: int
    user: int
    priority: int
    am_partition: int
    requests: tuple[Request, ...]
    keys: tuple[int, ...]


@dataclass(frozen=True)
class QueueInfo:
    """A compiled queue: tree position by index, and the settings allocation reads."""

    path: str
    parent: int
    children: tuple[int, ...]
    leaf: bool
    depth: int
    config: QueueConfig
    accessible: frozenset[int]
    default_partition: int
    priority_ordering: bool

    @property
    def name(self) -> str:
        """The last component of the path."""
        return self.path.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class QueueCapacity:
    """A queue's guaranteed and maximum resource per partition for given partition resources."""

    guaranteed: tuple[Resource, ...]
    maximum: tuple[Resource, ...]
    absolute: tuple[float, ...]


@dataclass(frozen=True, eq=False)
class World:
    """Everything static about one model (see the module docstring). Built by
    :func:`build_world`; compared by identity."""

    configuration: SchedulerConfiguration
    calculator: ResourceCalculator
    settings: Settings
    partitions: tuple[PartitionSpec, ...]
    nodes: tuple[NodeSpec, ...]
    racks: tuple[str, ...]
    queues: tuple[QueueInfo, ...]
    users: tuple[tuple[int, str], ...]
    apps: tuple[AppInfo, ...]
    variants: Variants
    bounds: Bounds
    node_partition: tuple[int, ...]
    leaves: tuple[int, ...]
    _capacity_cache: dict[tuple[Resource, ...], tuple[QueueCapacity, ...]] = field(default_factory=dict, repr=False)
    ancestor_chains: tuple[tuple[int, ...], ...] = ()

    @property
    def name(self) -> str:
        """A short label of the behaviour: scheduling mode, placement and variant."""
        mode = "async" if self.settings.async_scheduling else "heartbeat"
        placement = f"multi-node/{self.settings.node_sorting}" if self.settings.multi_node else "single-node"
        return f"{mode}/{placement}/{self.variants.name}"

    def capacities(self, partition_resources: tuple[Resource, ...]) -> tuple[QueueCapacity, ...]:
        """Every queue's guaranteed and maximum resource per partition when the partitions have
        these resources (the live nodes' sum): Hadoop recomputes them whenever the cluster
        resource changes. Computed by :func:`queues_for_snapshot` (semantics A.2) and cached."""
        cached = self._capacity_cache.get(partition_resources)
        if cached is not None:
            return cached
        parts = [Partition(p.name, r, p.exclusive) for p, r in zip(self.partitions, partition_resources)]
        by_path: dict[str, Queue] = {q.path: q for q in queues_for_snapshot(self.configuration, parts)}
        result = tuple(
            QueueCapacity(
                guaranteed=tuple(by_path[q.path].at(p.name).guaranteed for p in self.partitions),
                maximum=tuple(by_path[q.path].at(p.name).maximum for p in self.partitions),
                absolute=tuple(_absolute_share(q.config, p.name) for p in self.partitions),
            )
            for q in self.queues
        )
        self._capacity_cache[partition_resources] = result
        return result

    def queue_index(self, path: str) -> int:
        """The index of a queue path (``KeyError`` if unknown)."""
        for index, queue in enumerate(self.queues):
            if queue.path == path:
                return index
        raise KeyError(path)

    def ancestors(self, queue: int) -> tuple[int, ...]:
        """The queue and its ancestors up to root, leaf first (computed when the world is
        built: every charge walks the chain)."""
        return self.ancestor_chains[queue]

    def minimum_allocation_factor(self) -> float:
        """Hadoop's ``getMinimumAllocationFactor``: ``(max - min) / max`` by the calculator's
        ratio (memory only for the default calculator), as a Java float."""
        s = self.settings
        return self.calculator.ratio(s.maximum_allocation - s.minimum_allocation, s.maximum_allocation)


def _absolute_share(config: QueueConfig, label: str) -> float:
    """The configured absolute capacity of a queue in a partition (0 when it has none there or
    uses absolute resources; callers then look at the guaranteed resource instead)."""
    value = config.at(label).absolute
    return value if value is not None else 0.0


def build_world(
    configuration: SchedulerConfiguration,
    partitions: Sequence[PartitionSpec],
    nodes: Sequence[NodeSpec],
    apps: Sequence[AppSpec],
    variants: Variants = Variants(),
    bounds: Bounds = Bounds(),
    settings: Settings | None = None,
) -> World:
    """A validated world. ``partitions`` must include ``""``; ``settings`` default to those
    read from the configuration (:func:`read_settings`)."""
    check_variants(variants)
    check_bounds(bounds)
    calc = make_calculator(configuration.calculator)
    partition_specs = _partitions(partitions, configuration)
    partition_index = {p.name: i for i, p in enumerate(partition_specs)}
    node_specs, racks = _nodes(nodes, partition_index)
    queues = _queues(configuration, partition_index)
    settings = settings or read_settings(configuration)
    _check_combination(variants, settings)
    last_clock = bounds.max_clock_ms // bounds.tick_ms * bounds.tick_ms
    if bounds.endless and last_clock < time_horizon(settings):
        raise InputError(
            WORLD,
            "bounds.max_clock_ms",
            f"an endless world's clock must reach its time horizon, {time_horizon(settings)} ms, in whole ticks; "
            f"it stops at {last_clock}",
        )
    users: list[tuple[int, str]] = []
    compiled_apps = tuple(
        _app(i, app, queues, partition_index, node_specs, racks, users, settings, calc) for i, app in enumerate(apps)
    )
    return World(
        configuration=configuration,
        calculator=calc,
        settings=settings,
        partitions=partition_specs,
        nodes=node_specs,
        racks=racks,
        queues=queues,
        users=tuple(users),
        apps=compiled_apps,
        variants=variants,
        bounds=bounds,
        node_partition=tuple(partition_index[n.partition] for n in node_specs),
        leaves=tuple(i for i, q in enumerate(queues) if q.leaf),
        ancestor_chains=tuple(_chain(queues, q) for q in range(len(queues))),
    )


def _chain(queues: Sequence[QueueInfo], queue: int) -> tuple[int, ...]:
    """The queue and its ancestors up to root, leaf first."""
    chain = []
    while queue >= 0:
        chain.append(queue)
        queue = queues[queue].parent
    return tuple(chain)


def _check_combination(variants: Variants, settings: Settings) -> None:
    if not variants.yarn_8127 and settings.multi_node:
        raise InputError(
            WORLD,
            "variants.yarn_8127",
            "pre-8127 with multi-node placement is no Hadoop release (multi-node placement came with 3.2, "
            "after the YARN-8127 check); use single-node placement",
        )


def _partitions(partitions: Sequence[PartitionSpec], conf: SchedulerConfiguration) -> tuple[PartitionSpec, ...]:
    seen: set[str] = set()
    for i, partition in enumerate(partitions):
        if partition.name in seen:
            raise InputError(WORLD, f"partitions[{i}]", f"partition {partition.name!r} is given twice")
        seen.add(partition.name)
    if "" not in seen:
        raise InputError(WORLD, "partitions", "the default partition '' is missing")
    for label, key in conf.queues.label_references.items():
        if label not in seen:
            raise InputError(
                WORLD, key, f"label {label!r} is not one of the world's partitions ({', '.join(sorted(seen))})"
            )
    # The default partition first, so index 0 is always "".
    return tuple(sorted(partitions, key=lambda p: p.name != ""))


def _nodes(
    nodes: Sequence[NodeSpec], partition_index: Mapping[str, int]
) -> tuple[tuple[NodeSpec, ...], tuple[str, ...]]:
    if not nodes:
        raise InputError(WORLD, "nodes", "a world needs at least one node slot")
    names: set[str] = set()
    racks: list[str] = []
    for i, node in enumerate(nodes):
        place = f"nodes[{i}]"
        if not node.name or node.name in names or node.name == ANY:
            raise InputError(WORLD, f"{place}.name", f"expected a unique node name, found {node.name!r}")
        names.add(node.name)
        if node.partition not in partition_index:
            raise InputError(WORLD, f"{place}.partition", f"unknown partition {node.partition!r}")
        _check_resource(f"{place}.capacity", node.capacity, positive=True)
        if node.rack not in racks:
            racks.append(node.rack)
    clash = names & set(racks)
    if clash:
        raise InputError(WORLD, "nodes", f"{sorted(clash)[0]!r} names both a node and a rack")
    return tuple(nodes), tuple(racks)


def _check_resource(place: str, resource: Resource, positive: bool = False) -> None:
    if not isinstance(resource, Resource) or len(resource) != 2:
        raise InputError(WORLD, place, f"expected a <memory, vcores> resource, found {resource!r}")
    if any(v < 0 for v in resource.values) or (positive and resource.memory <= 0):
        raise InputError(WORLD, place, f"expected a resource with memory > 0 and no negative part, found {resource}")


def _queues(conf: SchedulerConfiguration, partition_index: Mapping[str, int]) -> tuple[QueueInfo, ...]:
    configs = list(conf.queues)
    index = {q.path: i for i, q in enumerate(configs)}
    result = []
    for q in configs:
        parent = index[q.parent] if q.parent is not None else -1
        parent_policy = conf.queues[q.parent].ordering_policy if q.parent is not None else "utilization"
        if q.auto_create_children:
            raise InputError(
                q.path, f"{CAPACITY_PREFIX}{q.path}.auto-create-child-queue.enabled", "dynamic queues are not modelled"
            )
        if q.leaf and q.ordering_policy not in APP_ORDERING_POLICIES:
            raise InputError(
                q.path,
                f"{CAPACITY_PREFIX}{q.path}.ordering-policy",
                f"ordering policy {q.ordering_policy!r} is not modelled (modelled: fifo, fair)",
            )
        accessible = frozenset(i for name, i in partition_index.items() if q.can_access(name))
        result.append(
            QueueInfo(
                path=q.path,
                parent=parent,
                children=tuple(index[c] for c in q.children),
                leaf=q.leaf,
                depth=q.path.count("."),
                config=q,
                accessible=accessible,
                default_partition=partition_index.get(q.default_label_expression, 0),
                priority_ordering=parent_policy == "priority-utilization",
            )
        )
    return tuple(result)


def _app(
    i: int,
    app: AppSpec,
    queues: Sequence[QueueInfo],
    partition_index: Mapping[str, int],
    nodes: Sequence[NodeSpec],
    racks: Sequence[str],
    users: list[tuple[int, str]],
    settings: Settings,
    calc: ResourceCalculator,
) -> AppInfo:
    place = f"apps[{i}]"
    queue = _leaf(place, app.queue, queues)
    info = queues[queue]
    if info.config.state != "RUNNING":
        raise InputError(WORLD, f"{place}.queue", f"queue {info.path} is STOPPED: it accepts no applications")
    if (queue, app.user) not in users:
        users.append((queue, app.user))
    user = users.index((queue, app.user))
    _check_request_size(f"{place}.am", app.am, settings, calc)
    am = Request(AM_PRIORITY, 0, app.am, "any", -1, True, info.default_partition, True)
    priorities = sorted({r.priority for r in app.requests})
    keys = (AM_PRIORITY, *priorities)
    compiled = [am]
    by_priority: dict[int, RequestSpec] = {}
    for j, spec in enumerate(app.requests):
        where = f"{place}.requests[{j}]"
        if isinstance(spec.priority, bool) or not isinstance(spec.priority, int) or spec.priority < 1:
            raise InputError(
                WORLD, f"{where}.priority", f"expected a whole number >= 1 (0 is the AM's), found {spec.priority!r}"
            )
        _check_request_size(f"{where}.capability", spec.capability, settings, calc)
        label = info.config.default_label_expression if spec.label is None else spec.label
        if label not in partition_index:
            raise InputError(WORLD, f"{where}.label", f"unknown partition {label!r}")
        if not info.config.can_access(label):
            raise InputError(WORLD, f"{where}.label", f"queue {info.path} cannot access partition {label!r}")
        earlier = by_priority.setdefault(spec.priority, spec)
        if earlier.capability != spec.capability or (earlier.label or "") != (spec.label or ""):
            raise InputError(
                WORLD,
                where,
                f"priority {spec.priority} is one scheduler key: every request at it needs the same capability and label",
            )
        kind, target = _locality(where, spec.locality, nodes, racks)
        key = keys.index(spec.priority)
        compiled.append(
            Request(spec.priority, key, spec.capability, kind, target, spec.relax, partition_index[label], False)
        )
    return AppInfo(app.name, queue, user, app.priority, info.default_partition, tuple(compiled), tuple(keys))


def _check_request_size(place: str, capability: Resource, settings: Settings, calc: ResourceCalculator) -> None:
    """Hadoop normalises asks to the allocation limits and rejects larger ones; the model asks
    for normalised sizes only, so a bad size is a world error."""
    _check_resource(place, capability, positive=True)
    if not calc.fits_in(capability, settings.maximum_allocation):
        raise InputError(WORLD, place, f"{capability} is above the maximum allocation {settings.maximum_allocation}")
    step = settings.minimum_allocation
    if step.memory and capability.memory % step.memory:
        raise InputError(
            WORLD, place, f"memory {capability.memory} is not a multiple of the minimum allocation {step.memory}"
        )


def _leaf(place: str, name: str, queues: Sequence[QueueInfo]) -> int:
    matches = [i for i, q in enumerate(queues) if q.path == name or (q.leaf and q.name == name)]
    if len(matches) != 1:
        found = "no" if not matches else "more than one"
        raise InputError(WORLD, f"{place}.queue", f"{found} queue matches {name!r}")
    if not queues[matches[0]].leaf:
        raise InputError(WORLD, f"{place}.queue", f"{name!r} is not a leaf queue")
    return matches[0]


def _locality(place: str, name: str, nodes: Sequence[NodeSpec], racks: Sequence[str]) -> tuple[LocalityKind, int]:
    if name == ANY:
        return "any", -1
    for i, node in enumerate(nodes):
        if node.name == name:
            return "node", i
    if name in racks:
        return "rack", racks.index(name)
    raise InputError(WORLD, f"{place}.locality", f"{name!r} is neither '*', a node nor a rack of the world")


def partition_resources(world: World, live: Sequence[bool]) -> tuple[Resource, ...]:
    """Per partition, the summed capacity of the live nodes."""
    sums = [ZERO] * len(world.partitions)
    for index, node in enumerate(world.nodes):
        if live[index]:
            sums[world.node_partition[index]] = sums[world.node_partition[index]] + node.capacity
    return tuple(sums)
