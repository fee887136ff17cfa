"""The static part of a scheduler model: everything that never changes while it runs.

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
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from ..calculator import ResourceCalculator
from ..calculator import calculator as make_calculator
from ..cluster import Partition, Queue
from ..config.build import queues_for_snapshot
from ..config.capacity import PREFIX, QueueConfig
from ..config.hadoop_xml import HadoopConfiguration
from ..config.scheduler import SchedulerConfiguration, scheduler_configuration
from ..errors import InputError, NotModelled
from ..preemption.config import PreemptionConfig
from ..preemption.policy import check_supported
from ..resources import ZERO, Resource

ANY = "*"
#: Hadoop's ``AM_CONTAINER_PRIORITY``: the priority of the request for an application master.
AM_PRIORITY = 0
WORLD = "<world>"

CommitCheck = Literal["yarn-8127", "reserved-pickup", "pre-8127"]
MultiNodeReserve = Literal["first-candidate", "yarn-9432", "yarn-10259", "yarn-10293"]
HeadroomRule = Literal["yarn-8804", "yarn-4280", "pre-4280"]
NodeSorting = Literal["resource-usage", "usage-ratio"]

COMMIT_CHECKS: tuple[CommitCheck, ...] = get_args(CommitCheck)
MULTI_NODE_RESERVES: tuple[MultiNodeReserve, ...] = get_args(MultiNodeReserve)
HEADROOM_RULES: tuple[HeadroomRule, ...] = get_args(HeadroomRule)
NODE_SORTINGS: tuple[NodeSorting, ...] = get_args(NodeSorting)

ASYNC_KEY = PREFIX + "schedule-asynchronously.enable"
MULTI_NODE_KEY = PREFIX + "multi-node-placement-enabled"
SORTING_POLICY_KEY = PREFIX + "multi-node-sorting.policy"
CONTINUE_LOOKING_KEY = PREFIX + "reservations-continue-look-all-nodes"
DEFAULT_SORTING_INTERVAL_MS = 1000
#: The leaf ordering policies the model implements (see :mod:`.queue_order`).
APP_ORDERING_POLICIES = ("fifo", "fair")
#: Multi-node lookup policy classes the model implements (matched on the simple class name).
SORTING_CLASSES: Mapping[str, NodeSorting] = {
    "ResourceUsageMultiNodeLookupPolicy": "resource-usage",
    "ResourceUsageRatioMultiNodeLookupPolicy": "usage-ratio",
}


@dataclass(frozen=True)
class Variants:
    """The rules that differ between Hadoop releases, one per JIRA (read by the algorithms;
    :func:`variants` builds a record from the names the scenarios use, and :attr:`releases`
    says which releases a record stands for). The defaults are Hadoop 3.2.x.

    ``yarn_4280`` (2.8.0, 2.9.x, 3.0.0 and later): blocked headroom. In
    ``ParentQueue.assignContainersToChildQueues`` a child skipped for its queue limit gives up
    its headroom: later siblings get the parent's limit less it, so a queue that cannot use
    freed room yet keeps the others from taking it back. Without it (2.7.x) every sibling's
    limit comes from the parent's full limit.
    ``yarn_8804`` (2.9.2, 2.10.x, 3.1.2, 3.2.0 and later): a parent child that was skipped
    gives up only the blocked headroom of its own children, not its whole headroom (the
    ``ResourceLimits`` blocked headroom and net limit), which matters from three levels down.

    ``yarn_8127`` (3.1.1 to 3.4.x): the commit rejects an allocation from a reserved
    container unless the proposal's node holds that reservation. Without it (before 3.1.1) a
    second commit from a reservation already used charges the node and application again
    (the resource leak YARN-8127 fixed). ``reserved_pickup``: seed 003's first fix, never
    published, as we read it: another candidate node may take the reserved container, the
    reservation being released (an allocation from a reservation that is gone is refused).
    YARN-11573 (3.4, off by default) is the upstream cousin of the seed's second fix
    (reserving only after every candidate was tried), not of this one.

    Multi-node placement (3.2.0 and later): ``yarn_9432`` (3.3.0 and later): when the
    partition is full (root's used capacity, reservations included, at least 1), a pass
    serves every reserved node's reservation on that node alone instead of doing nothing.
    ``yarn_10259`` (3.3.1 and later): a reservation is served only when the candidate set is
    one node, and a request is reserved only on the *last* candidate, if that one returns
    RESERVED (earlier candidates that would reserve are passed over). ``yarn_10293`` (3.4.0
    and later): every pass first serves each reserved node's reservation on that node, then
    allocates (the full-partition shortcut is gone).
    """

    yarn_4280: bool = True
    yarn_8804: bool = True
    yarn_8127: bool = True
    reserved_pickup: bool = False
    yarn_9432: bool = False
    yarn_10259: bool = False
    yarn_10293: bool = False

    @property
    def name(self) -> str:
        """The commit rule (``pre-8127``, ``yarn-8127``, ``reserved-pickup``), then the
        multi-node rules added (``+yarn-9432``, ``+yarn-10259``, ``+yarn-10259+yarn-10293``)
        and the blocked-headroom rule when it is older than YARN-8804 (``+pre-8804``,
        ``+pre-4280``)."""
        commit = "pre-8127" if not self.yarn_8127 else "reserved-pickup" if self.reserved_pickup else "yarn-8127"
        reserve = ""
        if self.yarn_10259:
            reserve = "+yarn-10259+yarn-10293" if self.yarn_10293 else "+yarn-10259"
        elif self.yarn_9432:
            reserve = "+yarn-9432"
        headroom = "" if self.yarn_8804 else "+pre-8804" if self.yarn_4280 else "+pre-4280"
        return commit + reserve + headroom

    @property
    def releases(self) -> str:
        """The Hadoop releases whose CapacityScheduler has exactly these rules."""
        plain = replace(self, reserved_pickup=False)
        found = _RELEASES.get(plain, "no Hadoop release")
        if self.reserved_pickup:
            return f"seed 003's pick-up on {found} (our reading; never released)"
        return found


_RELEASES: Mapping[Variants, str] = {
    Variants(False, False, False): "Hadoop 2.7.x",
    Variants(True, False, False): "Hadoop 2.8.x, 2.9.0-2.9.1, 3.0.x, 3.1.0",
    Variants(True, True, False): "Hadoop 2.9.2, 2.10.x (no asynchronous scheduling)",
    Variants(True, False, True): "Hadoop 3.1.1",
    Variants(): "Hadoop 3.1.2-3.2.x",
    Variants(yarn_9432=True): "Hadoop 3.3.0",
    Variants(yarn_9432=True, yarn_10259=True): "Hadoop 3.3.1-3.3.6",
    Variants(yarn_9432=True, yarn_10259=True, yarn_10293=True): "Hadoop 3.4.x",
}


def variants(commit: CommitCheck = "yarn-8127", reserve: MultiNodeReserve = "first-candidate", headroom: HeadroomRule = "yarn-8804") -> Variants:
    """The rule record named by a commit rule, a multi-node reservation rule and a
    blocked-headroom rule (an :class:`InputError` naming the unknown one).

    ``reserve``: ``first-candidate`` (3.2.x: the first candidate where the request does not
    fit reserves), ``yarn-9432`` (3.3.0), ``yarn-10259`` (3.3.1-3.3.6, with YARN-9432),
    ``yarn-10293`` (3.4.x, with both). ``headroom``: ``yarn-8804`` (with YARN-4280),
    ``yarn-4280`` alone, ``pre-4280`` (2.7.x)."""
    if commit not in COMMIT_CHECKS:
        raise InputError(WORLD, "variants.commit", f"unknown commit check {commit!r}; known: {', '.join(COMMIT_CHECKS)}")
    if reserve not in MULTI_NODE_RESERVES:
        raise InputError(WORLD, "variants.reserve", f"unknown reservation rule {reserve!r}; known: {', '.join(MULTI_NODE_RESERVES)}")
    if headroom not in HEADROOM_RULES:
        raise InputError(WORLD, "variants.headroom", f"unknown headroom rule {headroom!r}; known: {', '.join(HEADROOM_RULES)}")
    level = MULTI_NODE_RESERVES.index(reserve)
    return Variants(
        yarn_4280=headroom != "pre-4280",
        yarn_8804=headroom == "yarn-8804",
        yarn_8127=commit != "pre-8127",
        reserved_pickup=commit == "reserved-pickup",
        yarn_9432=level >= 1,
        yarn_10259=level >= 2,
        yarn_10293=level >= 3,
    )


@dataclass(frozen=True)
class Bounds:
    """Limits that keep the model finite (the explorer enumerates every state below them).

    ``max_clock_ms``: the clock stops there; ``tick_ms``: one clock step. ``max_proposals``:
    asynchronous proposals in flight at once (the scheduler threads). ``max_ask``: outstanding
    containers per request. ``max_containers``: container ids handed out in one run.
    ``max_rereservations``: the re-reservation counter saturates there (seed 002's starvation
    term only grows with it). ``node_churn``: whether nodes may be lost and join (a story that
    does not need it explores far fewer states without).

    ``endless``: the model runs for ever in finitely many states, so a behaviour that repeats
    (a preemption cycle) closes into a loop. Once the clock reaches ``max_clock_ms`` time still
    passes: a tick moves every time stamp (last monitor round, last sort, marks, allocation
    times) back by ``tick_ms``, down to ``max_clock_ms`` less the world's time horizon (the
    longest span any decision looks back, :func:`time_horizon`), where every stamp acts alike;
    and container ids are renumbered by rank after every step (only their order matters), so
    ``max_containers`` bounds the ids in use at once rather than the ids ever handed out.
    """

    max_clock_ms: int = 60000
    tick_ms: int = 1000
    max_proposals: int = 2
    max_ask: int = 2
    max_containers: int = 24
    max_rereservations: int = 4
    node_churn: bool = True
    endless: bool = False


@dataclass(frozen=True)
class Settings:
    """The scheduler settings read from the configuration.

    ``async_scheduling``: ``schedule-asynchronously.enable`` (proposals and commits are
    separate steps; heartbeats do not allocate). ``multi_node``:
    ``multi-node-placement-enabled`` (a proposal looks at every node of a partition, sorted by
    ``node_sorting``, re-sorted every ``sorting_interval_ms``). ``continue_looking``:
    ``reservations-continue-look-all-nodes``. ``preemption``: the monitor's settings, ``None``
    when the monitor does not run the preemption policy.
    """

    minimum_allocation: Resource
    maximum_allocation: Resource
    async_scheduling: bool = False
    multi_node: bool = False
    node_sorting: NodeSorting = "resource-usage"
    sorting_interval_ms: int = DEFAULT_SORTING_INTERVAL_MS
    continue_looking: bool = True
    preemption: PreemptionConfig | None = None


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
    _ancestor_cache: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)

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
        """The queue and its ancestors up to root, leaf first."""
        cached = self._ancestor_cache.get(queue)  # every charge walks the chain: computed once
        if cached is not None:
            return cached
        start = queue
        chain = []
        while queue >= 0:
            chain.append(queue)
            queue = self.queues[queue].parent
        self._ancestor_cache[start] = tuple(chain)
        return self._ancestor_cache[start]

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


def configuration_from_properties(properties: Mapping[str, str], source: str = WORLD) -> SchedulerConfiguration:
    """A scheduler configuration from a plain mapping of Hadoop properties (full names)."""
    return scheduler_configuration(HadoopConfiguration.of(dict(properties), source=source))


def read_settings(conf: SchedulerConfiguration) -> Settings:
    """The scheduler settings of a configuration; a preemption setting the model does not
    cover or an unknown multi-node policy is an error naming the property."""
    props = conf.properties
    multi_node = props.get_bool(MULTI_NODE_KEY, False)
    sorting: NodeSorting = "resource-usage"
    interval = DEFAULT_SORTING_INTERVAL_MS
    if multi_node:
        sorting, interval = _sorting_policy(props)
    preemption: PreemptionConfig | None = None
    if conf.preemption_active:
        try:
            check_supported(conf.preemption)
        except NotModelled as exc:
            raise InputError(conf.sources[-1] if conf.sources else WORLD, "preemption", str(exc)) from None
        preemption = conf.preemption
    return Settings(
        minimum_allocation=conf.allocation.minimum,
        maximum_allocation=conf.allocation.maximum,
        async_scheduling=props.get_bool(ASYNC_KEY, False),
        multi_node=multi_node,
        node_sorting=sorting,
        sorting_interval_ms=interval,
        continue_looking=props.get_bool(CONTINUE_LOOKING_KEY, True),
        preemption=preemption,
    )


def _sorting_policy(props: HadoopConfiguration) -> tuple[NodeSorting, int]:
    """The multi-node lookup policy named by ``multi-node-sorting.policy`` (default
    ``default``) and its re-sorting interval."""
    name = props.get_trimmed(SORTING_POLICY_KEY) or "default"
    class_key = f"{SORTING_POLICY_KEY}.{name}.class"
    class_name = props.get_trimmed(class_key)
    if class_name is None:
        # Hadoop needs the class named; yarnspec accepts the default policy's short name too.
        simple = "ResourceUsageMultiNodeLookupPolicy"
    else:
        simple = class_name.rsplit(".", 1)[-1]
    if simple not in SORTING_CLASSES:
        raise props.invalid(class_key, f"expected one of {', '.join(SORTING_CLASSES)} (a multi-node lookup policy class)")
    interval_key = f"{SORTING_POLICY_KEY}.{name}.sorting-interval.ms"
    interval = props.get_long(interval_key, DEFAULT_SORTING_INTERVAL_MS)
    if interval <= 0:
        raise props.invalid(interval_key, "expected a whole number of milliseconds > 0")
    return SORTING_CLASSES[simple], interval


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
    _check_variants(variants)
    _check_bounds(bounds)
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
    )


def _check_combination(variants: Variants, settings: Settings) -> None:
    if not variants.yarn_8127 and settings.multi_node:
        raise InputError(
            WORLD,
            "variants.yarn_8127",
            "pre-8127 with multi-node placement is no Hadoop release (multi-node placement came with 3.2, "
            "after the YARN-8127 check); use single-node placement",
        )


#: Rules that only exist on top of another (a record with one and not the other is no release).
_REQUIRES = (
    ("yarn_8804", "yarn_4280"),
    ("reserved_pickup", "yarn_8127"),
    ("yarn_10259", "yarn_9432"),
    ("yarn_10293", "yarn_10259"),
)


def _check_variants(variants: Variants) -> None:
    for name, value in vars(variants).items():
        if not isinstance(value, bool):
            raise InputError(WORLD, f"variants.{name}", f"expected true or false, found {value!r}")
    for rule, needed in _REQUIRES:
        if getattr(variants, rule) and not getattr(variants, needed):
            raise InputError(WORLD, f"variants.{rule}", f"{rule} needs {needed} (no Hadoop release has one without the other)")


def _check_bounds(bounds: Bounds) -> None:
    for name in ("max_clock_ms", "tick_ms", "max_proposals", "max_ask", "max_containers", "max_rereservations"):
        value = getattr(bounds, name)
        lowest = 0 if name == "max_clock_ms" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise InputError(WORLD, f"bounds.{name}", f"expected a whole number >= {lowest}, found {value!r}")
    for name in ("node_churn", "endless"):
        if not isinstance(getattr(bounds, name), bool):
            raise InputError(WORLD, f"bounds.{name}", f"expected true or false, found {getattr(bounds, name)!r}")


def time_horizon(settings: Settings) -> int:
    """The longest span any decision looks back at, plus one: the sorting interval, the
    monitoring interval, the kill wait (strictly exceeded under Hadoop 2.7.3) and the age at
    which the policy forgets a mark (twice ``max_wait_before_kill``, semantics A.12). Time
    stamps older than this all act alike (used by ``Bounds.endless``)."""
    spans = [settings.sorting_interval_ms if settings.multi_node else 0]
    config = settings.preemption
    if config is not None:
        spans += [config.monitoring_interval_ms, 2 * config.max_wait_before_kill_ms + 1]
        if config.preemption_to_balance_enabled:
            spans.append(config.preemption_to_balance_max_wait_ms + 1)
    return max(spans)


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
            raise InputError(WORLD, key, f"label {label!r} is not one of the world's partitions ({', '.join(sorted(seen))})")
    # The default partition first, so index 0 is always "".
    return tuple(sorted(partitions, key=lambda p: p.name != ""))


def _nodes(nodes: Sequence[NodeSpec], partition_index: Mapping[str, int]) -> tuple[tuple[NodeSpec, ...], tuple[str, ...]]:
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
            raise InputError(q.path, f"{PREFIX}{q.path}.auto-create-child-queue.enabled", "dynamic queues are not modelled")
        if q.leaf and q.ordering_policy not in APP_ORDERING_POLICIES:
            raise InputError(
                q.path, f"{PREFIX}{q.path}.ordering-policy", f"ordering policy {q.ordering_policy!r} is not modelled (modelled: fifo, fair)"
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
            raise InputError(WORLD, f"{where}.priority", f"expected a whole number >= 1 (0 is the AM's), found {spec.priority!r}")
        _check_request_size(f"{where}.capability", spec.capability, settings, calc)
        label = info.config.default_label_expression if spec.label is None else spec.label
        if label not in partition_index:
            raise InputError(WORLD, f"{where}.label", f"unknown partition {label!r}")
        if not info.config.can_access(label):
            raise InputError(WORLD, f"{where}.label", f"queue {info.path} cannot access partition {label!r}")
        earlier = by_priority.setdefault(spec.priority, spec)
        if earlier.capability != spec.capability or (earlier.label or "") != (spec.label or ""):
            raise InputError(
                WORLD, where, f"priority {spec.priority} is one scheduler key: every request at it needs the same capability and label"
            )
        kind, target = _locality(where, spec.locality, nodes, racks)
        key = keys.index(spec.priority)
        compiled.append(Request(spec.priority, key, spec.capability, kind, target, spec.relax, partition_index[label], False))
    return AppInfo(app.name, queue, user, app.priority, info.default_partition, tuple(compiled), tuple(keys))


def _check_request_size(place: str, capability: Resource, settings: Settings, calc: ResourceCalculator) -> None:
    """Hadoop normalises asks to the allocation limits and rejects larger ones; the model asks
    for normalised sizes only, so a bad size is a world error."""
    _check_resource(place, capability, positive=True)
    if not calc.fits_in(capability, settings.maximum_allocation):
        raise InputError(WORLD, place, f"{capability} is above the maximum allocation {settings.maximum_allocation}")
    step = settings.minimum_allocation
    if step.memory and capability.memory % step.memory:
        raise InputError(WORLD, place, f"memory {capability.memory} is not a multiple of the minimum allocation {step.memory}")


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
