"""Spark's container placement strategy on YARN (``LocalityPreferredContainerPlacementStrategy``).

``localityOfRequestedContainers`` turns the driver's locality hints into node and rack lists for
the container requests the ApplicationMaster is about to send (semantics 3). The arithmetic is
done in IEEE doubles in exactly Spark's order, because the ceilings make the result sensitive to
it (semantics 3.2 and trap 7.9):

1. executors needed for the locality-aware tasks, ``E``;
2. each locality-matched pending request spreads one container over its nodes (a fractional
   share per host);
3. per hint host, ``need = max(0, ceil(c * E / T - (allocated + share)))``;
4. ``free = max(0, numContainer - sum(need))`` requests get no preference and come first;
5. the needs are scaled so the largest equals the number of locality-aware requests (multiply,
   then divide, then ceiling);
6. request ``k`` (0-based) lists every host whose scaled ratio exceeds ``k`` - the same result as
   Spark's "take hosts with ratio > 0, then subtract one from all" loop, computed without the
   per-request pass over every host (SPARK-18750 is the regression for a large loop).

Host order is the hint map's insertion order (semantics 3.3).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.racks import RackResolver

_SOURCE = "<placement input>"

#: Spark's counts here are Scala ``Int`` values.
SCALA_INT_MAX = 2**31 - 1
#: The most containers one call may ask to place: the model builds one preference per container.
MAX_CONTAINERS = 100_000


class ExecutorsForTasks(enum.Enum):
    """How many executors the locality-aware tasks need (semantics 8, "executors for aware tasks")."""

    #: Current Spark: tasks per executor = executor cores // task cpus (the resource profile's
    #: ``maxTasksPerExecutor``), then ``ceil(tasks / tasksPerExecutor)``.
    TASKS_PER_EXECUTOR = "tasks-per-executor"
    #: Spark 1.5-2.x: ``(tasks * cpusPerTask + cores - 1) // cores`` in integers.
    CORES_CEILING = "cores-ceiling"


@dataclass(frozen=True)
class ContainerLocalityPreferences:
    """The locality of one container request: ``nodes`` and ``racks`` are both ``None`` for a
    request with no preference (Spark's ``null`` arrays)."""

    nodes: tuple[str, ...] | None
    racks: tuple[str, ...] | None


@dataclass(frozen=True)
class PlacementInput:
    """Everything ``localityOfRequestedContainers`` reads (semantics 3.1).

    * ``num_containers``: how many requests to shape (``numContainer``);
    * ``num_locality_aware_tasks`` and ``host_to_local_task_count``: the driver's hints, the
      latter as ``(host, count)`` pairs in the hint map's order;
    * ``allocated_host_to_container_count``: containers already held per host (launched ones);
    * ``locality_matched_pending``: the node list of every outstanding request whose nodes meet
      the hint hosts (semantics 4.3);
    * ``executor_cores`` and ``task_cpus``: the executor size;
    * ``rack_resolver``: where each host sits;
    * ``executors_rule``: the named variant for step 1.

    Use :meth:`of` to build one from mappings and lists.
    """

    num_containers: int
    num_locality_aware_tasks: int
    host_to_local_task_count: tuple[tuple[str, int], ...]
    allocated_host_to_container_count: tuple[tuple[str, int], ...] = ()
    locality_matched_pending: tuple[tuple[str, ...], ...] = ()
    executor_cores: int = 1
    task_cpus: int = 1
    rack_resolver: RackResolver = field(default_factory=RackResolver)
    executors_rule: ExecutorsForTasks = ExecutorsForTasks.TASKS_PER_EXECUTOR

    def __post_init__(self) -> None:
        _require(
            0 <= self.num_containers <= MAX_CONTAINERS,
            "num_containers",
            f"must be 0..{MAX_CONTAINERS:,} (the model's limit)",
        )
        _require(
            0 <= self.num_locality_aware_tasks <= SCALA_INT_MAX,
            "num_locality_aware_tasks",
            "must be >= 0 (a Scala Int)",
        )
        _require(1 <= self.executor_cores <= SCALA_INT_MAX, "executor_cores", "must be >= 1 (a Scala Int)")
        _require(1 <= self.task_cpus <= SCALA_INT_MAX, "task_cpus", "must be >= 1 (a Scala Int)")
        _require(
            self.executors_rule is not ExecutorsForTasks.TASKS_PER_EXECUTOR or self.executor_cores >= self.task_cpus,
            "executor_cores",
            f"an executor of {self.executor_cores} cores cannot run a task of {self.task_cpus} cpus",
        )
        hosts = [host for host, _ in self.host_to_local_task_count]
        _require(len(set(hosts)) == len(hosts), "host_to_local_task_count", "a host appears twice")
        for host, count in self.host_to_local_task_count:
            _require(0 <= count <= SCALA_INT_MAX, f"host_to_local_task_count[{host}]", "must be >= 0 (a Scala Int)")
        for host, count in self.allocated_host_to_container_count:
            _require(
                0 <= count <= SCALA_INT_MAX, f"allocated_host_to_container_count[{host}]", "must be >= 0 (a Scala Int)"
            )
        for index, nodes in enumerate(self.locality_matched_pending):
            _require(len(nodes) > 0, f"locality_matched_pending[{index}]", "a matched request names at least one node")

    @classmethod
    def of(
        cls,
        num_containers: int,
        num_locality_aware_tasks: int,
        host_to_local_task_count: Mapping[str, int] | Iterable[tuple[str, int]],
        allocated_host_to_container_count: Mapping[str, int] | Iterable[tuple[str, int]] = (),
        locality_matched_pending: Iterable[Sequence[str]] = (),
        executor_cores: int = 1,
        task_cpus: int = 1,
        rack_resolver: RackResolver | None = None,
        executors_rule: ExecutorsForTasks = ExecutorsForTasks.TASKS_PER_EXECUTOR,
    ) -> PlacementInput:
        """Build an input from plain mappings and lists (mappings keep their insertion order)."""
        return cls(
            num_containers=num_containers,
            num_locality_aware_tasks=num_locality_aware_tasks,
            host_to_local_task_count=_pairs(host_to_local_task_count),
            allocated_host_to_container_count=_pairs(allocated_host_to_container_count),
            locality_matched_pending=tuple(tuple(nodes) for nodes in locality_matched_pending),
            executor_cores=executor_cores,
            task_cpus=task_cpus,
            rack_resolver=rack_resolver if rack_resolver is not None else RackResolver(),
            executors_rule=executors_rule,
        )


@dataclass(frozen=True)
class PlacementPlan:
    """The intermediate figures of one call (what a case's ``derived`` block shows) and the
    result.

    ``need`` and ``scaled_ratio`` follow the hint map's host order; ``pending_share`` follows the
    order in which the pending requests first name each host.
    """

    executors_for_aware_tasks: int
    pending_share: tuple[tuple[str, float], ...]
    need: tuple[tuple[str, int], ...]
    locality_free_count: int
    locality_aware_count: int
    scaled_ratio: tuple[tuple[str, int], ...]
    preferences: tuple[ContainerLocalityPreferences, ...]


def executors_for_aware_tasks(num_tasks: int, executor_cores: int, task_cpus: int, rule: ExecutorsForTasks) -> int:
    """Step 1: executors the locality-aware tasks need (``numExecutorsPending``), semantics 3.2."""
    if rule is ExecutorsForTasks.CORES_CEILING:
        return (num_tasks * task_cpus + executor_cores - 1) // executor_cores
    tasks_per_executor = executor_cores // task_cpus
    return math.ceil(num_tasks / float(tasks_per_executor))


def pending_host_share(pending: Sequence[Sequence[str]]) -> dict[str, float]:
    """Step 2: each pending matched request is one container spread over its nodes; a host's
    share is ``slots[h] * P / S`` (``pendingHostToContainerCount``), in doubles."""
    slots: dict[str, int] = {}
    for nodes in pending:
        for node in nodes:
            slots[node] = slots.get(node, 0) + 1
    total_slots = sum(slots.values())
    requests = float(len(pending))
    return {host: count * requests / total_slots for host, count in slots.items()}


def _ceil_to_int(value: float) -> int:
    """Scala's ``value.ceil.toInt``: NaN becomes 0 (a hint map summing to 0 divides 0 by 0)."""
    if math.isnan(value):
        return 0
    return math.ceil(value)


def host_container_need(inp: PlacementInput) -> tuple[int, dict[str, float], tuple[tuple[str, int], ...]]:
    """Steps 1-3 (``expectedHostToContainerCount``): ``(E, pending share, need per hint host)``."""
    executors = executors_for_aware_tasks(
        inp.num_locality_aware_tasks, inp.executor_cores, inp.task_cpus, inp.executors_rule
    )
    share = pending_host_share(inp.locality_matched_pending)
    allocated = dict(inp.allocated_host_to_container_count)
    total_tasks = sum(count for _, count in inp.host_to_local_task_count)
    need: list[tuple[str, int]] = []
    for host, count in inp.host_to_local_task_count:
        # count.toDouble * E / T: a 0/0 here (every count 0) is NaN in Spark, and ends as 0.
        expected = float(count) * executors / total_tasks if total_tasks else math.nan
        existing = allocated.get(host, 0) + share.get(host, 0.0)
        need.append((host, max(0, _ceil_to_int(expected - existing))))
    return executors, share, tuple(need)


def scaled_ratios(need: Sequence[tuple[str, int]], aware: int) -> tuple[tuple[str, int], ...]:
    """Step 5: ``ceil(need * aware / largest)`` per host (multiply first), so the largest host
    gets exactly ``aware``. Empty when ``aware`` is 0."""
    if aware <= 0:
        return ()
    largest = max(count for _, count in need)
    return tuple((host, math.ceil(float(count) * aware / largest)) for host, count in need)


def expand_requests(
    ratios: Sequence[tuple[str, int]], aware: int, resolver: RackResolver
) -> list[ContainerLocalityPreferences]:
    """Step 6: request ``k`` lists the hosts whose ratio exceeds ``k``, in hint order, with
    their distinct racks.

    Runs in time proportional to the number of requests plus hosts times distinct ratios;
    consecutive requests with the same host set share one preferences object.
    """
    result: list[ContainerLocalityPreferences] = []
    thresholds = sorted({ratio for _, ratio in ratios if ratio > 0})
    start = 0
    for threshold in thresholds:
        if start >= aware:
            break
        hosts = tuple(host for host, ratio in ratios if ratio > start)
        prefs = ContainerLocalityPreferences(hosts, resolver.racks_of(hosts))
        end = min(threshold, aware)
        result.extend([prefs] * (end - start))
        start = end
    # The largest ratio equals ``aware``, so this never triggers; Spark would emit empty lists.
    result.extend([ContainerLocalityPreferences((), ())] * (aware - start))
    return result


def plan_placement(inp: PlacementInput) -> PlacementPlan:
    """Run ``localityOfRequestedContainers`` and keep the intermediate figures (semantics 3.2)."""
    executors, share, need = host_container_need(inp)
    total_need = sum(count for _, count in need)
    free = max(0, inp.num_containers - total_need)
    aware = inp.num_containers - free
    ratios = scaled_ratios(need, aware)
    no_preference = ContainerLocalityPreferences(None, None)
    preferences = [no_preference] * free + expand_requests(ratios, aware, inp.rack_resolver)
    return PlacementPlan(
        executors_for_aware_tasks=executors,
        pending_share=tuple(share.items()),
        need=need,
        locality_free_count=free,
        locality_aware_count=aware,
        scaled_ratio=ratios,
        preferences=tuple(preferences),
    )


def locality_of_requested_containers(inp: PlacementInput) -> list[ContainerLocalityPreferences]:
    """Spark's ``localityOfRequestedContainers`` (semantics 3): one
    :class:`ContainerLocalityPreferences` per requested container, ``inp.num_containers`` in
    all, the requests without preference first, then the locality-aware ones whose node lists
    shrink from one to the next (each a subset of the one before).
    """
    return list(plan_placement(inp).preferences)


def _pairs(value: Mapping[str, int] | Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    return tuple((str(host), int(count)) for host, count in items)


def _require(condition: bool, place: str, fault: str) -> None:
    if not condition:
        raise InputError(_SOURCE, place, fault)
