"""Generated preemption inputs: Hypothesis strategies, a seeded generator, and the builders
they share.

Three layers, one copy of the generation logic:

* **Builders** (no randomness): :class:`QueueShape` describes a queue as a configuration does
  (capacities in percent of the parent, per partition; an explicit ``disable_preemption`` or
  none); :func:`build_snapshot` turns shapes, partitions, nodes, applications, containers and
  outstanding demand into a valid :class:`ClusterSnapshot`: guarantees and maxima from the
  percentages, queue use summed from the containers (per partition, parents the sum of their
  children), pending with reserved resource, effective preemption flags with inheritance. The
  benchmark builds its large clusters with the same function.
* **Generators** (``generate_*``): every random choice goes through a :class:`Chooser`.
  :class:`HypothesisChooser` draws from Hypothesis (so examples shrink);
  :class:`RandomChooser` draws from a seeded ``random.Random`` (the property suite: the same
  seed gives the same inputs wherever it runs).
* **Strategies**: :func:`resource_types`, :func:`calculators`, :func:`queue_trees`,
  :func:`partitions_and_nodes`, :func:`workloads`, :func:`cluster_snapshots`,
  :func:`preemption_configs` and :func:`preemption_scenarios` (a snapshot, a configuration, a
  calculator and the clock of a few rounds): thin Hypothesis wrappers over the generators
  (:func:`from_generator` wraps any of them). Their parameters pin one aspect
  (``preemption_configs(observe_only=st.just(True))``).

Snapshots are valid by construction: no node holds more than its capacity or more than one
reservation; a container asks for its node's partition unless it runs there ignoring
exclusivity (only on a non-exclusive partition); a queue's used is the sum of its containers,
reserved ones included as in the real scheduler (semantics A.2), and a parent's figures are
the sums of its children's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

from yarnspec.impl.calculator import DefaultCalculator, DominantCalculator, ResourceCalculator
from yarnspec.impl.cluster import (
    DEFAULT_PARTITION,
    ROOT,
    Application,
    ClusterSnapshot,
    Container,
    ContainerId,
    Node,
    Partition,
    Queue,
    QueuePartition,
)
from yarnspec.impl.preemption.config import VARIANTS, PolicyVariantName, PreemptionConfig
from yarnspec.impl.preemption.variants import policy_variant
from yarnspec.impl.resources import ZERO, Resource, ResourceTypes, total

T = TypeVar("T")

# --------------------------------------------------------------------------------------------
# Builders.


@dataclass(frozen=True)
class QueueShape:
    """A queue as configured: its path, children, and per partition its capacity and maximum
    capacity in percent of the parent's (Hadoop ``capacity`` / ``maximum-capacity``, and the
    ``accessible-node-labels.<label>.*`` forms for labels). A partition missing from
    ``capacity`` means 0 there. ``disable_preemption`` is the explicit setting (``None``:
    inherit from the parent)."""

    path: str
    children: tuple[str, ...] = ()
    capacity: Mapping[str, int] = field(default_factory=dict)
    max_capacity: Mapping[str, int] = field(default_factory=dict)
    disable_preemption: bool | None = None
    priority: int = 0
    max_am_percent: float = 0.0

    @property
    def parent(self) -> str | None:
        """The parent's path (``None`` for root)."""
        return self.path.rsplit(".", 1)[0] if "." in self.path else None


def build_snapshot(
    partitions: Sequence[tuple[str, bool]],
    nodes: Sequence[Node],
    shapes: Sequence[QueueShape],
    apps: Sequence[Application],
    containers: Sequence[Container],
    demand: Mapping[tuple[str, str], Resource] = MappingProxyType({}),
    resource_types: ResourceTypes = ResourceTypes(),
) -> ClusterSnapshot:
    """A snapshot from configuration-like parts; every derived figure is computed here.

    ``partitions``: ``(name, exclusive)`` pairs; a partition's resource is the sum of its nodes.
    ``shapes``: root first, parents before children. ``demand``: a leaf's outstanding request
    per partition beyond its reserved containers, so ``pending = demand + reserved`` and
    ``pending_net_reserved = demand``. A queue's guaranteed is
    ``partition x absolute capacity`` (truncated; semantics A.2), its maximum the same with the
    absolute maximum capacity (the whole partition for a non-exclusive label, A.2), raised to
    its use where it uses more. The preemption flag of a queue is the nearest explicit setting
    on its path, root first (semantics B.6).
    """
    partition_resource = {name: ZERO for name, _ in partitions}
    for node in nodes:
        partition_resource[node.partition] = partition_resource[node.partition] + node.total
    exclusive = dict(partitions)
    node_partition = {n.node_id: n.partition for n in nodes}
    by_path = {s.path: s for s in shapes}

    used: dict[tuple[str, str], Resource] = {}
    reserved: dict[tuple[str, str], Resource] = {}
    killable: dict[tuple[str, str], Resource] = {}
    app_queue = {a.app_id: a.queue for a in apps}
    for container in containers:
        key = (app_queue[container.app_id], node_partition[container.node])
        used[key] = used.get(key, ZERO) + container.resource
        if container.reserved:
            reserved[key] = reserved.get(key, ZERO) + container.resource
        if container.killable:
            killable[key] = killable.get(key, ZERO) + container.resource

    pending: dict[tuple[str, str], Resource] = {}
    net: dict[tuple[str, str], Resource] = {}
    for shape in shapes:
        if not shape.children:
            for name, _ in partitions:
                key = (shape.path, name)
                net[key] = demand.get(key, ZERO)
                pending[key] = net[key] + reserved.get(key, ZERO)
    # Parents sum their children: walk children before parents.
    for shape in reversed(shapes):
        if shape.children:
            for name, _ in partitions:
                for table in (used, reserved, killable, pending, net):
                    table[(shape.path, name)] = total(table.get((c, name), ZERO) for c in shape.children)

    queues: list[Queue] = []
    absolute: dict[tuple[str, str], tuple[int, int]] = {}
    absolute_max: dict[tuple[str, str], tuple[int, int]] = {}
    disabled: dict[str, bool] = {}
    for shape in shapes:
        parent = shape.parent
        inherited = disabled[parent] if parent is not None else False
        disabled[shape.path] = inherited if shape.disable_preemption is None else shape.disable_preemption
        figures: dict[str, QueuePartition] = {}
        for name, _ in partitions:
            key = (shape.path, name)
            cap = shape.capacity.get(name, 0) if parent is not None else 100
            top = shape.max_capacity.get(name, 100) if parent is not None else 100
            p_num, p_den = absolute[(parent, name)] if parent is not None else (1, 1)
            m_num, m_den = absolute_max[(parent, name)] if parent is not None else (1, 1)
            absolute[key] = (p_num * cap, p_den * 100)
            absolute_max[key] = (m_num * top, m_den * 100)
            resource = partition_resource[name]
            guaranteed = _scale(resource, *absolute[key])
            maximum = resource if not exclusive[name] else _scale(resource, *absolute_max[key])
            queue_used = used.get(key, ZERO)
            figures[name] = QueuePartition(
                guaranteed=guaranteed,
                maximum=maximum.component_max(queue_used).component_max(guaranteed),
                used=queue_used,
                pending=pending.get(key, ZERO),
                pending_net_reserved=net.get(key, ZERO),
                reserved=reserved.get(key, ZERO),
                killable=killable.get(key, ZERO),
            )
        queues.append(
            Queue(
                path=shape.path,
                parent=parent,
                children=shape.children,
                leaf=not shape.children,
                partitions=MappingProxyType(figures),
                preemption_disabled=disabled[shape.path],
                priority=shape.priority,
                max_am_percent=shape.max_am_percent,
            )
        )
    if ROOT not in by_path:
        raise ValueError("the shapes have no root queue")
    return ClusterSnapshot.create(
        partitions=[Partition(name, partition_resource[name], exclusive[name]) for name, _ in partitions],
        nodes=list(nodes),
        queues=queues,
        apps=list(apps),
        containers=list(containers),
        resource_types=resource_types,
    )


def _scale(resource: Resource, numerator: int, denominator: int) -> Resource:
    """``resource x numerator / denominator`` per component, truncated (exact integers)."""
    return Resource(tuple(v * numerator // denominator for v in resource.values))


# --------------------------------------------------------------------------------------------
# Choosers: where the random choices come from.


class Chooser(Protocol):
    """The source of every random choice a generator makes."""

    def integer(self, low: int, high: int) -> int:
        """A whole number in ``[low, high]``."""

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options`` (not empty)."""

    def fraction(self) -> float:
        """A number in ``(0, 1]``."""


#: Round values of a fraction setting besides 1.0 (the harnesses' value) and arbitrary ones.
ROUND_FRACTIONS: tuple[float, ...] = (0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7)


def fractions() -> st.SearchStrategy[float]:
    """A fraction in (0, 1]: 1.0, round values, and arbitrary ones."""
    return st.one_of(st.just(1.0), st.sampled_from(ROUND_FRACTIONS), st.floats(min_value=0.01, max_value=1.0))


class HypothesisChooser:
    """Choices drawn from Hypothesis inside a ``@st.composite`` strategy (they shrink)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        """``st.integers(low, high)``."""
        return self._draw(st.integers(low, high))

    def pick(self, options: Sequence[T]) -> T:
        """``st.sampled_from(options)``."""
        return self._draw(st.sampled_from(options))

    def fraction(self) -> float:
        """:func:`fractions`."""
        return self._draw(fractions())


class RandomChooser:
    """Choices from a seeded ``random.Random``: the same seed, the same sequence, anywhere
    (a string seed is hashed by ``random`` itself, not by the per-process ``hash``)."""

    def __init__(self, seed: int | str) -> None:
        self._random = random.Random(seed)

    def integer(self, low: int, high: int) -> int:
        """Uniform in ``[low, high]``."""
        return self._random.randint(low, high)

    def pick(self, options: Sequence[T]) -> T:
        """Uniform among ``options``."""
        return options[self._random.randrange(len(options))]

    def fraction(self) -> float:
        """1.0, a round value or a uniform one in ``[0.01, 1]``, each a third of the time."""
        kind = self._random.randrange(3)
        if kind == 0:
            return 1.0
        if kind == 1:
            return self.pick(ROUND_FRACTIONS)
        return self._random.uniform(0.01, 1.0)


# --------------------------------------------------------------------------------------------
# Generators.

#: Names of the labelled partitions the generators use (the default partition is ``""``).
LABELS: tuple[str, ...] = ("x", "y")
RESOURCE_TYPES: tuple[ResourceTypes, ...] = (ResourceTypes(), ResourceTypes(("res1",)))
CALCULATORS: tuple[ResourceCalculator, ...] = (DefaultCalculator(), DominantCalculator())
#: Explicit ``disable_preemption`` settings a queue gets (``None``: not set, inherit).
DISABLE_OPTIONS: tuple[bool | None, ...] = (None, None, None, None, True, False)
AM_PERCENT_OPTIONS: tuple[float, ...] = (0.0, 0.0, 0.1, 0.5, 1.0)


def generate_resource(
    ch: Chooser, types: ResourceTypes, memory: tuple[int, int], vcores: tuple[int, int], extra: tuple[int, int] = (0, 2)
) -> Resource:
    """A resource with each component chosen from an inclusive range."""
    parts = [ch.integer(*memory), ch.integer(*vcores)] + [ch.integer(*extra) for _ in types.extra]
    return Resource(tuple(parts))


def generate_partitions_and_nodes(
    ch: Chooser, types: ResourceTypes, max_labels: int = 2, max_nodes: int = 3
) -> tuple[tuple[tuple[str, bool], ...], tuple[Node, ...]]:
    """The default partition (always with nodes) and up to ``max_labels`` labelled ones,
    exclusive or not, each with 1..``max_nodes`` nodes of varied capacity."""
    labels = LABELS[: ch.integer(0, max_labels)]
    partitions: list[tuple[str, bool]] = [(DEFAULT_PARTITION, True)]
    partitions += [(label, ch.pick((True, False))) for label in labels]
    nodes: list[Node] = []
    for name, _ in partitions:
        for i in range(ch.integer(1, max_nodes)):
            capacity = generate_resource(ch, types, memory=(4, 24), vcores=(2, 16), extra=(0, 4))
            nodes.append(Node(f"{name or 'n'}{i}", name, capacity, rack=f"/rack{i % 2}"))
    return tuple(partitions), tuple(nodes)


def generate_percent_split(ch: Chooser, count: int) -> tuple[int, ...]:
    """``count`` integer percentages summing to 100; some may be 0 (zero-guarantee queues)."""
    weights = [ch.integer(0, 6) for _ in range(count)]
    if sum(weights) == 0:
        weights[ch.integer(0, count - 1)] = 1
    shares = [100 * w // sum(weights) for w in weights]
    largest = max(range(count), key=lambda i: weights[i])
    shares[largest] += 100 - sum(shares)
    return tuple(shares)


def generate_queue_shapes(
    ch: Chooser,
    partitions: Sequence[str],
    max_depth: int = 3,
    max_children: int = 3,
    disable_options: Sequence[bool | None] = DISABLE_OPTIONS,
    am_percent_options: Sequence[float] = AM_PERCENT_OPTIONS,
) -> tuple[QueueShape, ...]:
    """A queue tree under root, 1..``max_depth`` levels deep (root has at least two children,
    a parent 1..``max_children``), capacities summing to 100 per parent in every partition,
    maxima between capacity and 100, explicit preemption flags on some queues (children
    inherit), queue priorities 0..2 and AM resource percents. Root first, parents before
    children."""
    shapes: list[QueueShape] = []

    def grow(path: str, depth: int, capacity: dict[str, int], max_capacity: dict[str, int]) -> None:
        make_parent = depth == 0 or (depth < max_depth and ch.integer(0, 2) == 0)
        children: tuple[str, ...] = ()
        if make_parent:
            count = ch.integer(1 if depth else 2, max_children)
            children = tuple(f"{path}.{'abcdefgh'[i]}{depth + 1}" for i in range(count))
        shapes.append(
            QueueShape(
                path=path,
                children=children,
                capacity=capacity,
                max_capacity=max_capacity,
                disable_preemption=ch.pick(disable_options),
                priority=ch.integer(0, 2),
                max_am_percent=0.0 if children else ch.pick(am_percent_options),
            )
        )
        splits = {name: generate_percent_split(ch, len(children)) for name in partitions} if children else {}
        for i, child in enumerate(children):
            caps = {name: splits[name][i] for name in partitions}
            maxima = {name: ch.pick((caps[name], 100, max(caps[name], 50))) for name in partitions}
            grow(child, depth + 1, caps, maxima)

    grow(ROOT, 0, {}, {})
    return tuple(shapes)


@dataclass(frozen=True)
class Workload:
    """The applications, containers and outstanding demand placed on a cluster."""

    apps: tuple[Application, ...]
    containers: tuple[Container, ...]
    demand: Mapping[tuple[str, str], Resource]


#: How a leaf behaves in a generated workload: (apps, containers per app, demand memory range).
#: Greedy leaves fill the cluster, hungry ones ask for much and hold little, so preemption has
#: something to do; a crowd is many small applications (mostly AM containers); mixed leaves
#: are anything in between.
LEAF_STYLES: Mapping[str, tuple[tuple[int, int], tuple[int, int], tuple[int, int]]] = MappingProxyType(
    {
        "crowd": ((3, 6), (1, 2), (0, 2)),
        "greedy": ((1, 4), (3, 12), (0, 2)),
        "hungry": ((0, 1), (0, 2), (4, 40)),
        "idle": ((0, 0), (0, 0), (0, 0)),
        "mixed": ((0, 3), (0, 8), (0, 24)),
    }
)


def generate_workload(
    ch: Chooser,
    types: ResourceTypes,
    partitions: Sequence[tuple[str, bool]],
    nodes: Sequence[Node],
    shapes: Sequence[QueueShape],
    killable_chance: int = 0,
) -> Workload:
    """Applications in leaf queues with live containers (the first one of an application is
    often its AM, priority 0), reserved containers (at most one per node), containers running
    ignoring exclusivity on non-exclusive partitions, container priorities 1..3, and demand per
    leaf and partition, each leaf in one of the :data:`LEAF_STYLES`. ``killable_chance``:
    percent of live non-AM containers the scheduler has already marked killable (lazy
    preemption)."""
    nodes_of = {name: [n for n in nodes if n.partition == name] for name, _ in partitions}
    shared = [n for name, exclusive in partitions if not exclusive for n in nodes_of[name]]
    free = {n.node_id: n.total for n in nodes}
    has_reservation: set[str] = set()
    apps: list[Application] = []
    containers: list[Container] = []
    demand: dict[tuple[str, str], Resource] = {}
    for shape in shapes:
        if shape.children:
            continue
        app_range, container_range, demand_range = LEAF_STYLES[ch.pick(sorted(LEAF_STYLES))]
        usable = [name for name, _ in partitions if name == DEFAULT_PARTITION or shape.capacity.get(name, 0) > 0]
        for name in usable:
            if demand_range[1] and ch.integer(0, 2):
                vcores = (0, max(1, demand_range[1] // 2))
                demand[(shape.path, name)] = generate_resource(
                    ch, types, memory=demand_range, vcores=vcores, extra=(0, 3)
                )
        for _ in range(ch.integer(*app_range)):
            app_id = len(apps) + 1
            apps.append(Application(app_id, shape.path, priority=ch.integer(0, 2), user=f"u{app_id % 2}"))
            label = ch.pick(usable)
            size = generate_resource(ch, types, memory=(1, 4), vcores=(1, 2), extra=(0, 1))
            with_am = ch.integer(0, 3) > 0
            number = 0
            for index in range(ch.integer(*container_range)):
                hosts = nodes_of[label]
                if label == DEFAULT_PARTITION and shared and ch.integer(0, 3) == 0:
                    hosts = shared
                start = ch.integer(0, len(hosts) - 1)
                fitting = [n for n in hosts[start:] + hosts[:start] if size.fits_all(free[n.node_id])]
                if not fitting:
                    continue
                node = fitting[0]
                free[node.node_id] = free[node.node_id] - size
                number += 1
                is_am = with_am and index == 0
                containers.append(
                    Container(
                        ContainerId(app_id, number),
                        shape.path,
                        node.node_id,
                        size,
                        priority=0 if is_am else ch.integer(1, 3),
                        is_am=is_am,
                        label=label,
                        killable=not is_am and killable_chance > 0 and ch.integer(1, 100) <= killable_chance,
                    )
                )
            candidates = [n for n in nodes_of[label] if n.node_id not in has_reservation]
            if candidates and ch.integer(0, 3) == 0:
                node = ch.pick(candidates)
                has_reservation.add(node.node_id)
                number += 1
                containers.append(
                    Container(
                        ContainerId(app_id, number),
                        shape.path,
                        node.node_id,
                        generate_resource(ch, types, memory=(1, 8), vcores=(1, 4), extra=(0, 1)),
                        priority=ch.integer(1, 3),
                        reserved=True,
                        label=label,
                    )
                )
    return Workload(tuple(apps), tuple(containers), MappingProxyType(demand))


def generate_snapshot(
    ch: Chooser,
    types: ResourceTypes | None = None,
    max_labels: int = 2,
    max_depth: int = 3,
    disable_options: Sequence[bool | None] = DISABLE_OPTIONS,
    am_percent_options: Sequence[float] = AM_PERCENT_OPTIONS,
    killable_chance: int = 0,
) -> ClusterSnapshot:
    """A valid cluster snapshot: partitions and nodes, a queue tree, and a workload on it."""
    chosen_types = types if types is not None else ch.pick(RESOURCE_TYPES)
    partitions, nodes = generate_partitions_and_nodes(ch, chosen_types, max_labels=max_labels)
    shapes = generate_queue_shapes(
        ch,
        [name for name, _ in partitions],
        max_depth=max_depth,
        disable_options=disable_options,
        am_percent_options=am_percent_options,
    )
    work = generate_workload(ch, chosen_types, partitions, nodes, shapes, killable_chance=killable_chance)
    return build_snapshot(partitions, nodes, shapes, work.apps, work.containers, work.demand, chosen_types)


def generate_config(
    ch: Chooser,
    total_preemption_per_round: float | None = None,
    natural_termination_factor: float | None = None,
    observe_only: bool | None = None,
    variant: PolicyVariantName | None = None,
) -> PreemptionConfig:
    """Preemption settings across their range (a given value is kept): the per-round total and
    the natural termination factor below 1 (no upstream case sets them), the dead zone, the
    reserved-container selector, reserved-mode balance, balance after satisfied, conservative
    DRF, observe-only (one round in ten), kill waits, and the named policy variants.
    Intra-queue, lazy and underutilized preemption stay off (not modelled), and so do the
    settings Hadoop 2.7.3 does not have under that variant."""
    chosen = variant if variant is not None else ch.pick(VARIANTS)
    modern = policy_variant(chosen).later_settings
    return PreemptionConfig(
        max_wait_before_kill_ms=ch.pick((0, 1000, 10000, 15000)),
        total_preemption_per_round=ch.fraction() if total_preemption_per_round is None else total_preemption_per_round,
        natural_termination_factor=ch.fraction() if natural_termination_factor is None else natural_termination_factor,
        max_ignored_over_capacity=ch.pick((0.0, 0.1, 0.2, 0.5)),
        observe_only=ch.integer(0, 9) == 0 if observe_only is None else observe_only,
        select_based_on_reserved_containers=modern and ch.pick((True, False)),
        additional_res_balance_based_on_reserved_containers=modern and ch.pick((True, False)),
        preemption_to_balance_enabled=modern and ch.pick((True, False)),
        preemption_to_balance_max_wait_ms=ch.pick((0, 5000, 300000)),
        conservative_drf=modern and ch.pick((True, False)),
        variant=chosen,
    )


def generate_clock(ch: Chooser, config: PreemptionConfig, max_rounds: int = 4) -> tuple[int, ...]:
    """Increasing round times: a start, then steps chosen to land just before, on and after
    the kill waits and the mark expiry (semantics A.12)."""
    wait = config.max_wait_before_kill_ms
    steps = (
        1,
        config.monitoring_interval_ms,
        max(wait - 1, 1),
        max(wait, 1),
        wait + 1,
        2 * wait + 1,
        config.preemption_to_balance_max_wait_ms + 1,
    )
    clock = [ch.integer(0, 50_000)]
    for _ in range(ch.integer(0, max_rounds - 1)):
        clock.append(clock[-1] + ch.pick(steps))
    return tuple(clock)


@dataclass(frozen=True)
class PreemptionScenario:
    """One generated situation: a snapshot, settings, a calculator, and the clock of each
    ``edit_schedule`` round to run on it (increasing)."""

    snapshot: ClusterSnapshot
    config: PreemptionConfig
    calculator: ResourceCalculator
    clock: tuple[int, ...]


def generate_scenario(ch: Chooser, max_rounds: int = 4) -> PreemptionScenario:
    """A scenario with every part generated (the property suite's input)."""
    config = generate_config(ch)
    snapshot = generate_snapshot(ch)
    return PreemptionScenario(snapshot, config, ch.pick(CALCULATORS), generate_clock(ch, config, max_rounds))


# --------------------------------------------------------------------------------------------
# Hypothesis strategies.


def from_generator(generate: Callable[..., T], *args: Any, **kwargs: Any) -> st.SearchStrategy[T]:
    """Any ``generate_*`` function of this module as a Hypothesis strategy (its chooser is the
    strategy's draws; ``args`` and ``kwargs`` follow the chooser)."""

    @st.composite
    def strategy(draw: st.DrawFn) -> T:
        return generate(HypothesisChooser(draw), *args, **kwargs)

    return strategy()


def queue_trees(
    partitions: Sequence[str] = (DEFAULT_PARTITION,), **options: Any
) -> st.SearchStrategy[tuple[QueueShape, ...]]:
    """Queue trees 1-3 levels deep with capacities summing to 100 per parent in every
    partition (:func:`generate_queue_shapes`; ``options`` are its keyword arguments)."""
    return from_generator(generate_queue_shapes, partitions, **options)


def partitions_and_nodes(
    types: ResourceTypes = ResourceTypes(), **options: Any
) -> st.SearchStrategy[tuple[tuple[tuple[str, bool], ...], tuple[Node, ...]]]:
    """The default partition and labelled ones, exclusive or not, with their nodes
    (:func:`generate_partitions_and_nodes`)."""
    return from_generator(generate_partitions_and_nodes, types, **options)


def workloads(
    types: ResourceTypes,
    partitions: Sequence[tuple[str, bool]],
    nodes: Sequence[Node],
    shapes: Sequence[QueueShape],
    killable_chance: int = 0,
) -> st.SearchStrategy[Workload]:
    """Applications, live / AM / reserved / ignore-exclusivity containers and demand on a given
    cluster and queue tree (:func:`generate_workload`)."""
    return from_generator(generate_workload, types, partitions, nodes, shapes, killable_chance)


def resource_types() -> st.SearchStrategy[ResourceTypes]:
    """Memory and vcores only, or with one more registered type (``res1``, as Hadoop's tests)."""
    return st.sampled_from(RESOURCE_TYPES)


def calculators() -> st.SearchStrategy[ResourceCalculator]:
    """Both calculators: memory only and dominant resource fairness."""
    return st.sampled_from(CALCULATORS)


@st.composite
def cluster_snapshots(
    draw: st.DrawFn,
    types: st.SearchStrategy[ResourceTypes] | None = None,
    max_labels: int = 2,
    max_depth: int = 3,
    disable_options: Sequence[bool | None] = DISABLE_OPTIONS,
    am_percent_options: Sequence[float] = AM_PERCENT_OPTIONS,
    killable_chance: int = 0,
) -> ClusterSnapshot:
    """Valid cluster snapshots (:func:`generate_snapshot`)."""
    chosen = draw(types) if types is not None else None
    return generate_snapshot(
        HypothesisChooser(draw), chosen, max_labels, max_depth, disable_options, am_percent_options, killable_chance
    )


@st.composite
def preemption_configs(
    draw: st.DrawFn,
    total_preemption_per_round: st.SearchStrategy[float] | None = None,
    natural_termination_factor: st.SearchStrategy[float] | None = None,
    observe_only: st.SearchStrategy[bool] | None = None,
    variant: st.SearchStrategy[PolicyVariantName] | None = None,
) -> PreemptionConfig:
    """Preemption settings (:func:`generate_config`); a given strategy pins that setting."""

    def pinned(strategy: st.SearchStrategy[T] | None) -> T | None:
        return draw(strategy) if strategy is not None else None

    return generate_config(
        HypothesisChooser(draw),
        total_preemption_per_round=pinned(total_preemption_per_round),
        natural_termination_factor=pinned(natural_termination_factor),
        observe_only=pinned(observe_only),
        variant=pinned(variant),
    )


@st.composite
def preemption_scenarios(
    draw: st.DrawFn,
    snapshots: st.SearchStrategy[ClusterSnapshot] | None = None,
    configs: st.SearchStrategy[PreemptionConfig] | None = None,
    calculator: st.SearchStrategy[ResourceCalculator] | None = None,
    max_rounds: int = 4,
) -> PreemptionScenario:
    """A snapshot, settings, a calculator and the round clock, each from the given strategy
    or the module's default."""
    config = draw(configs if configs is not None else preemption_configs())
    return PreemptionScenario(
        snapshot=draw(snapshots if snapshots is not None else cluster_snapshots()),
        config=config,
        calculator=draw(calculator if calculator is not None else calculators()),
        clock=generate_clock(HypothesisChooser(draw), config, max_rounds),
    )
