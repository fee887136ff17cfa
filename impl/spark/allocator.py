"""The ApplicationMaster's ``YarnAllocator`` for one resource profile (semantics 4).

The allocator turns the driver's wishes (a target number of executors and locality hints) into
container requests, takes the containers YARN returns, launches executors in them and follows
them until they complete. This model is one immutable value, :class:`YarnAllocator`; every
operation returns a new one, so tests and explorers can keep, compare and hash states.

Operations (Spark method in brackets):

* :meth:`YarnAllocator.request_total_executors` (``requestTotalExecutorsWithPreferredLocalities``, 4.2)
* :meth:`YarnAllocator.update_resource_requests` (``updateResourceRequests``, 4.3)
* :meth:`YarnAllocator.handle_allocated_containers` (``handleAllocatedContainers`` and
  ``runAllocatedContainers``, 4.5)
* :meth:`YarnAllocator.launch_finished` (the launch thread's ``updateInternalState`` or its
  failure path, 4.5 and SPARK-43510)
* :meth:`YarnAllocator.kill_executor` (``killExecutor``, 4.6)
* :meth:`YarnAllocator.process_completed_containers` (``processCompletedContainers``, 4.7)
* :meth:`YarnAllocator.advance_clock`, :meth:`YarnAllocator.set_shutdown`

Time is the explicit ``clock_ms`` field. Older Spark behaviours are named variants in
:class:`AllocatorVariant` (semantics 8), chosen per allocator, never a fork of the code.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.hints import PlacementHints
from yarnspec.impl.spark.placement import (
    ContainerLocalityPreferences,
    ExecutorsForTasks,
    PlacementInput,
    locality_of_requested_containers,
)
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.resource_manager import (
    ANY_HOST,
    AllocatedContainer,
    AmRmClient,
    Capability,
    ContainerRequest,
    ContainerStatus,
)

_SOURCE = "<allocator>"

# --- YARN's ContainerExitStatus values (semantics 4.7) ---------------------------------------
SUCCESS = 0
INVALID = -1000
ABORTED = -100
DISKS_FAILED = -101
PREEMPTED = -102
KILLED_EXCEEDED_VMEM = -103
KILLED_EXCEEDED_PMEM = -104
KILLED_BY_APPMASTER = -105
KILLED_BY_RESOURCEMANAGER = -106
KILLED_AFTER_APP_COMPLETION = -107

#: Every named exit status, by name.
EXIT_STATUS_NAMES: Mapping[str, int] = MappingProxyType(
    {
        "SUCCESS": SUCCESS,
        "INVALID": INVALID,
        "ABORTED": ABORTED,
        "DISKS_FAILED": DISKS_FAILED,
        "PREEMPTED": PREEMPTED,
        "KILLED_EXCEEDED_VMEM": KILLED_EXCEEDED_VMEM,
        "KILLED_EXCEEDED_PMEM": KILLED_EXCEEDED_PMEM,
        "KILLED_BY_APPMASTER": KILLED_BY_APPMASTER,
        "KILLED_BY_RESOURCEMANAGER": KILLED_BY_RESOURCEMANAGER,
        "KILLED_AFTER_APP_COMPLETION": KILLED_AFTER_APP_COMPLETION,
    }
)

#: Exits that are YARN's or the node's business, not the application's (SPARK-26269).
NOT_APP_AND_SYSTEM_FAULT_EXIT_STATUS = frozenset(
    {KILLED_BY_RESOURCEMANAGER, KILLED_BY_APPMASTER, KILLED_AFTER_APP_COMPLETION, ABORTED, DISKS_FAILED}
)

#: ``spark.executor.memoryOverhead`` default: max(10% of executor memory, 384 MB).
MEMORY_OVERHEAD_FACTOR = 0.10
MEMORY_OVERHEAD_MIN_MB = 384


# --- Variants (semantics 8) -------------------------------------------------------------------


class RequestUpdateRule(enum.Enum):
    """What ``updateResourceRequests`` does when more containers are missing."""

    #: Spark 2.0+ (SPARK-13779): cancel stale requests, keep locality-free ones unless room is
    #: needed for new local requests (semantics 4.3).
    SPARK_13779 = "spark-13779"
    #: Spark 1.6: cancel every stale AND every locality-free request and ask the placement
    #: strategy for ``missing`` plus all of them.
    CANCEL_STALE_AND_FREE = "cancel-stale-and-free"


class CancelOrder(enum.Enum):
    """Which outstanding requests go first when the target drops."""

    #: Spark 3.0+ (SPARK-26392): stale, then locality-free, then locality-matched.
    STALE_FREE_MATCHED = "stale-free-matched"
    #: Earlier: the first ones in the AM-RM client's order.
    CLIENT_ORDER = "client-order"


class MatchCapability(enum.Enum):
    """The size an allocated container is matched to requests with (``getMatchingRequests``)."""

    #: Current Spark: the resource profile's requested capability.
    REQUESTED = "requested"
    #: Spark 2.x (SPARK-6050): the container's memory with the requested vcores.
    CONTAINER_MEMORY = "container-memory"


@dataclass(frozen=True)
class AllocatorVariant:
    """The named variants of the allocator; the defaults are current Spark (3.4+/4.x).

    * ``request_update``, ``cancel_order``, ``match_capability``, ``executors_rule`` and
      ``missing_counts_starting`` are the rows of semantics 8 that concern the allocator
      (``missing = target - pending - running`` in older Spark, ``- starting`` since);
    * ``yarn_side_exits_not_failures`` is SPARK-26269 (before it, aborted, disks-failed and
      RM/AM kills counted as allocation failures);
    * ``no_failures_after_shutdown`` is SPARK-39601 (before it, exits during shutdown counted);
    * ``late_launch_guard`` is SPARK-43510 (before it, a launch finishing after its container
      had completed still made the executor running).
    """

    request_update: RequestUpdateRule = RequestUpdateRule.SPARK_13779
    cancel_order: CancelOrder = CancelOrder.STALE_FREE_MATCHED
    match_capability: MatchCapability = MatchCapability.REQUESTED
    executors_rule: ExecutorsForTasks = ExecutorsForTasks.TASKS_PER_EXECUTOR
    missing_counts_starting: bool = True
    yarn_side_exits_not_failures: bool = True
    no_failures_after_shutdown: bool = True
    late_launch_guard: bool = True

    @classmethod
    def current(cls) -> AllocatorVariant:
        """Current Spark (every fix in)."""
        return cls()

    @classmethod
    def oldest(cls) -> AllocatorVariant:
        """Every older behaviour at once (roughly Spark 1.6)."""
        return cls(
            request_update=RequestUpdateRule.CANCEL_STALE_AND_FREE,
            cancel_order=CancelOrder.CLIENT_ORDER,
            match_capability=MatchCapability.CONTAINER_MEMORY,
            executors_rule=ExecutorsForTasks.CORES_CEILING,
            missing_counts_starting=False,
            yarn_side_exits_not_failures=False,
            no_failures_after_shutdown=False,
            late_launch_guard=False,
        )


# --- Configuration ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExclusionConfig:
    """Launch-failure node exclusion (``YarnAllocatorNodeHealthTracker``, semantics 4.8).

    * ``enabled``: ``spark.yarn.executor.launch.excludeOnFailure.enabled`` (default false);
    * ``max_failures_per_node``: ``spark.excludeOnFailure.application.maxFailedExecutorsPerNode``
      (default 2; a host is excluded when its windowed failures exceed it);
    * ``timeout_ms``: ``spark.excludeOnFailure.timeout`` (default 1 h);
    * ``always_excluded``: ``spark.yarn.exclude.nodes``.
    """

    enabled: bool = False
    max_failures_per_node: int = 2
    timeout_ms: int = 3_600_000
    always_excluded: frozenset[str] = frozenset()


@dataclass(frozen=True)
class AllocatorConfig:
    """What the allocator is built with.

    ``launch_containers`` false is Spark's test mode: a launch completes at once. True models
    the launcher thread: a launch stays in progress until :meth:`YarnAllocator.launch_finished`.
    ``failures_validity_interval_ms`` is ``spark.executor.failuresValidityInterval`` (older
    ``spark.yarn.executor.failuresValidityInterval``); ``None`` keeps every failure.
    """

    executor_cores: int = 1
    executor_memory_mb: int = 1024
    memory_overhead_mb: int | None = None
    task_cpus: int = 1
    resource_profile_id: int = 0
    node_label: str | None = None
    launch_containers: bool = False
    rack_resolver: RackResolver = field(default_factory=RackResolver)
    exclusion: ExclusionConfig = field(default_factory=ExclusionConfig)
    failures_validity_interval_ms: int | None = None
    variant: AllocatorVariant = field(default_factory=AllocatorVariant)

    def __post_init__(self) -> None:
        _require(self.executor_cores >= 1, "executor_cores", "must be >= 1")
        _require(self.executor_memory_mb >= 0, "executor_memory_mb", "must be >= 0")
        _require(self.task_cpus >= 1, "task_cpus", "must be >= 1")
        _require(self.memory_overhead_mb is None or self.memory_overhead_mb >= 0, "memory_overhead_mb", "must be >= 0")
        _require(self.resource_profile_id >= 0, "resource_profile_id", "must be >= 0")

    @property
    def priority(self) -> int:
        """Request priority: the resource profile id (semantics 4.1)."""
        return self.resource_profile_id

    @property
    def request_capability(self) -> Capability:
        """The size requested per executor: memory plus overhead, and the executor's cores."""
        overhead = self.memory_overhead_mb
        if overhead is None:
            overhead = max(int(MEMORY_OVERHEAD_FACTOR * self.executor_memory_mb), MEMORY_OVERHEAD_MIN_MB)
        return Capability(self.executor_memory_mb + overhead, self.executor_cores)


# --- State parts --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Executor:
    """A launched executor whose container has not completed (the four maps of 4.1:
    executor <-> container and container <-> host). ``running`` is membership of the running
    set: false once killed, until the container completes."""

    executor_id: str
    container_id: str
    host: str
    running: bool = True


@dataclass(frozen=True)
class PendingLaunch:
    """A launch in progress (``numExecutorsStarting`` counts these)."""

    executor_id: str
    container_id: str
    host: str


class Fate(enum.Enum):
    """What became of a container YARN allocated."""

    LAUNCHED = "launched"  # matched a request, an executor launch started
    SKIPPED = "skipped"  # matched a request, but the running count had reached the target
    RELEASED = "released"  # matched no request and was handed back


@dataclass(frozen=True)
class ContainerFate:
    """One allocated container and its fate; ``executor_id`` is the id it consumed, if any."""

    container_id: str
    host: str
    fate: Fate
    executor_id: str | None


@dataclass(frozen=True)
class ExecutorExit:
    """A ``RemoveExecutor`` message to the driver (an executor lost without our release)."""

    executor_id: str
    exit_status: int
    exit_caused_by_app: bool


@dataclass(frozen=True)
class FailureTracker:
    """Failure timestamps, global and per host (``FailureTracker``, semantics 4.8)."""

    validity_interval_ms: int | None = None
    times: tuple[int, ...] = ()
    host_times: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def _windowed(self, times: Sequence[int], now: int) -> int:
        interval = self.validity_interval_ms
        if interval is None or interval <= 0:
            return len(times)
        return sum(1 for stamp in times if stamp >= now - interval)

    def register(self, now: int, host: str | None) -> FailureTracker:
        """Record one failure at ``now`` (also against ``host`` when given)."""
        host_times = self.host_times
        if host is not None:
            per_host = dict(host_times)
            per_host[host] = per_host.get(host, ()) + (now,)
            host_times = tuple(per_host.items())
        return replace(self, times=self.times + (now,), host_times=host_times)

    def count(self, now: int) -> int:
        """Failures not older than the validity interval (all of them without one)."""
        return self._windowed(self.times, now)

    def count_on_host(self, host: str, now: int) -> int:
        """Windowed failures recorded against ``host``."""
        return self._windowed(dict(self.host_times).get(host, ()), now)


@dataclass(frozen=True)
class NodeHealth:
    """The exclusion state: nodes the scheduler excludes, nodes the allocator excluded (with
    expiry), and the set last sent to YARN."""

    scheduler_excluded: frozenset[str] = frozenset()
    allocator_excluded: tuple[tuple[str, int], ...] = ()
    sent: frozenset[str] = frozenset()

    def is_excluded(self, host: str) -> bool:
        """Excluded by the scheduler or (expired or not) by the allocator."""
        return host in self.scheduler_excluded or any(h == host for h, _ in self.allocator_excluded)


# --- The allocator ------------------------------------------------------------------------------


@dataclass(frozen=True)
class YarnAllocator:
    """The allocator's whole state (semantics 4.1). Build one with :meth:`create`.

    Besides Spark's own fields it keeps three records for checking, which Spark does not have
    and no decision reads: ``driver_messages`` (what was sent to the driver), ``fates`` (every
    allocated container and what became of it) and ``completed`` (containers YARN reported
    finished).
    """

    config: AllocatorConfig
    client: AmRmClient
    target: int
    hints: PlacementHints = PlacementHints()
    clock_ms: int = 0
    executors: tuple[Executor, ...] = ()
    launches: tuple[PendingLaunch, ...] = ()
    launching: frozenset[str] = frozenset()
    released: frozenset[str] = frozenset()
    last_executor_number: int = 0
    failures: FailureTracker = FailureTracker()
    health: NodeHealth = NodeHealth()
    shutdown: bool = False
    unexpected_releases: int = 0
    driver_messages: tuple[ExecutorExit, ...] = ()
    fates: tuple[ContainerFate, ...] = ()
    completed: frozenset[str] = frozenset()

    @classmethod
    def create(
        cls, config: AllocatorConfig, initial_target: int, executor_id_start: int = 0, clock_ms: int = 0
    ) -> YarnAllocator:
        """A fresh allocator: no requests, ``initial_target`` executors wanted, executor ids
        continuing after ``executor_id_start`` (the last id the driver reports)."""
        _require(initial_target >= 0, "initial_target", "must be >= 0")
        _require(executor_id_start >= 0, "executor_id_start", "must be >= 0")
        return cls(
            config=config,
            client=AmRmClient(resolver=config.rack_resolver),
            target=initial_target,
            clock_ms=clock_ms,
            last_executor_number=executor_id_start,
            failures=FailureTracker(validity_interval_ms=config.failures_validity_interval_ms),
        )

    # --- observations (the getters Spark's tests use) ------------------------------------------

    @property
    def num_executors_running(self) -> int:
        """``getNumExecutorsRunning``: size of the running set."""
        return sum(1 for executor in self.executors if executor.running)

    @property
    def num_executors_starting(self) -> int:
        """``getNumExecutorsStarting``: launches in progress."""
        return len(self.launches)

    @property
    def pending_requests(self) -> tuple[ContainerRequest, ...]:
        """``getPendingAllocate``: outstanding requests of this profile at ``*``."""
        return self.client.matching_requests(self.config.priority, ANY_HOST, self.config.request_capability)

    @property
    def num_containers_pending_allocate(self) -> int:
        """``getNumContainersPendingAllocate``."""
        return len(self.pending_requests)

    @property
    def num_executors_failed(self) -> int:
        """``getNumExecutorsFailed``: windowed failure count at the current clock."""
        return self.failures.count(self.clock_ms)

    @property
    def running_executor_ids(self) -> tuple[str, ...]:
        """The running set, in launch order."""
        return tuple(executor.executor_id for executor in self.executors if executor.running)

    @property
    def allocated_container_to_host(self) -> dict[str, str]:
        """``allocatedContainerToHostMap``."""
        return {executor.container_id: executor.host for executor in self.executors}

    @property
    def allocated_host_to_containers(self) -> dict[str, tuple[str, ...]]:
        """``allocatedHostToContainersMap`` (hosts with no container are absent)."""
        result: dict[str, tuple[str, ...]] = {}
        for executor in self.executors:
            result[executor.host] = result.get(executor.host, ()) + (executor.container_id,)
        return result

    def executor_of_container(self, container_id: str) -> Executor | None:
        """``containerIdToExecutorId`` lookup."""
        return next((e for e in self.executors if e.container_id == container_id), None)

    def executor_by_id(self, executor_id: str) -> Executor | None:
        """``executorIdToContainer`` lookup."""
        return next((e for e in self.executors if e.executor_id == executor_id), None)

    def split_pending(
        self,
    ) -> tuple[tuple[ContainerRequest, ...], tuple[ContainerRequest, ...], tuple[ContainerRequest, ...]]:
        """``splitPendingAllocationsByLocality``: (locality-matched, stale, locality-free)
        outstanding requests, each in client order (semantics 4.3)."""
        hosts = self.hints.hosts
        matched, stale, free = [], [], []
        for request in self.pending_requests:
            if request.nodes is None:
                free.append(request)
            elif hosts.intersection(request.nodes):
                matched.append(request)
            else:
                stale.append(request)
        return tuple(matched), tuple(stale), tuple(free)

    # --- 4.2 -------------------------------------------------------------------------------------

    def request_total_executors(
        self,
        total: int | None,
        hints: PlacementHints,
        scheduler_excluded: Iterable[str] = (),
    ) -> tuple[YarnAllocator, bool]:
        """``requestTotalExecutorsWithPreferredLocalities``: store the hints; a total that
        differs from the target becomes the target and forwards the scheduler's excluded nodes
        (4.8). ``total=None`` stands for an empty per-profile map: target 0, nodes forwarded.
        Returns the new allocator and whether the target changed (Spark's return value)."""
        _require(total is None or total >= 0, "total", "must be >= 0")
        state = replace(self, hints=hints)
        if total is not None and total == self.target:
            return state, False
        state = replace(state, target=0 if total is None else total)
        state = state._with_health(replace(state.health, scheduler_excluded=frozenset(scheduler_excluded)))
        return state._refresh_exclusions(), True

    # --- 4.3 -------------------------------------------------------------------------------------

    def update_resource_requests(self) -> YarnAllocator:
        """``updateResourceRequests``: bring the outstanding requests to the target (4.3)."""
        variant = self.config.variant
        pending = self.pending_requests
        starting = self.num_executors_starting if variant.missing_counts_starting else 0
        missing = self.target - len(pending) - starting - self.num_executors_running
        matched, stale, free = self.split_pending()
        if missing > 0:
            if variant.request_update is RequestUpdateRule.CANCEL_STALE_AND_FREE:
                return self._request_more_legacy(missing, matched, stale, free)
            return self._request_more(missing, matched, stale, free)
        if missing < 0 and pending:
            count = min(len(pending), -missing)
            if variant.cancel_order is CancelOrder.STALE_FREE_MATCHED:
                victims = (stale + free + matched)[:count]
            else:
                victims = pending[:count]
            return replace(self, client=self.client.remove_requests(victims))
        return self

    def _placement(
        self, num_containers: int, matched: Sequence[ContainerRequest]
    ) -> list[ContainerLocalityPreferences]:
        allocated = {host: len(ids) for host, ids in self.allocated_host_to_containers.items()}
        return locality_of_requested_containers(
            PlacementInput.of(
                num_containers=num_containers,
                num_locality_aware_tasks=self.hints.num_locality_aware_tasks,
                host_to_local_task_count=self.hints.host_to_local_task_count,
                allocated_host_to_container_count=allocated,
                locality_matched_pending=[request.nodes or () for request in matched],
                executor_cores=self.config.executor_cores,
                task_cpus=self.config.task_cpus,
                rack_resolver=self.config.rack_resolver,
                executors_rule=self.config.variant.executors_rule,
            )
        )

    def _request_more(
        self,
        missing: int,
        matched: Sequence[ContainerRequest],
        stale: Sequence[ContainerRequest],
        free: Sequence[ContainerRequest],
    ) -> YarnAllocator:
        """Semantics 4.3 steps 1-7 (SPARK-13779)."""
        client = self.client.remove_requests(stale)
        available = missing + len(stale)
        potential = available + len(free)
        new_local = [p for p in self._placement(potential, matched) if p.nodes is not None]
        to_add: list[ContainerLocalityPreferences] = list(new_local)
        if available >= len(new_local):
            to_add += [ContainerLocalityPreferences(None, None)] * (available - len(new_local))
        else:
            client = client.remove_requests(free[: len(new_local) - available])
        return replace(self, client=self._add_requests(client, to_add))

    def _request_more_legacy(
        self,
        missing: int,
        matched: Sequence[ContainerRequest],
        stale: Sequence[ContainerRequest],
        free: Sequence[ContainerRequest],
    ) -> YarnAllocator:
        """Spark 1.6: cancel stale and locality-free requests, re-plan all of them."""
        client = self.client.remove_requests(tuple(stale) + tuple(free))
        prefs = self._placement(missing + len(stale) + len(free), matched)
        return replace(self, client=self._add_requests(client, prefs))

    def _add_requests(self, client: AmRmClient, prefs: Iterable[ContainerLocalityPreferences]) -> AmRmClient:
        capability = self.config.request_capability
        for pref in prefs:
            client = client.add_request(
                capability, pref.nodes, pref.racks, self.config.priority, self.config.node_label
            )
        return client

    # --- 4.5 -------------------------------------------------------------------------------------

    def _match_capability(self, container: AllocatedContainer) -> Capability:
        requested = self.config.request_capability
        if self.config.variant.match_capability is MatchCapability.CONTAINER_MEMORY:
            return Capability(container.capability.memory_mb, requested.vcores)
        return requested

    def handle_allocated_containers(self, containers: Sequence[AllocatedContainer]) -> YarnAllocator:
        """``handleAllocatedContainers``: match host, then rack, then ``*``; release what is
        left; then launch executors in the matched containers, in acceptance order (4.5)."""
        known = {fate.container_id for fate in self.fates}
        seen: set[str] = set()
        for index, container in enumerate(containers):
            cid = container.container_id
            _require(
                cid not in known and cid not in seen, f"containers[{index}]", f"container {cid!r} was already allocated"
            )
            seen.add(cid)
        client = self.client
        accepted: list[AllocatedContainer] = []
        remaining = list(containers)
        resolver = self.config.rack_resolver
        passes = (lambda c: c.host, lambda c: resolver.resolve(c.host), lambda c: ANY_HOST)
        for location_of in passes:
            left: list[AllocatedContainer] = []
            for container in remaining:
                location = location_of(container)
                matches = (
                    ()
                    if location is None
                    else client.matching_requests(container.priority, location, self._match_capability(container))
                )
                if matches:
                    client = client.remove_request(matches[0])
                    accepted.append(container)
                else:
                    left.append(container)
            remaining = left
        state = replace(self, client=client)
        for container in remaining:
            state = state._release(container.container_id)
            fate = ContainerFate(container.container_id, container.host, Fate.RELEASED, None)
            state = replace(state, fates=state.fates + (fate,))
        return state._run_allocated(accepted)

    def _run_allocated(self, containers: Sequence[AllocatedContainer]) -> YarnAllocator:
        """``runAllocatedContainers``: each accepted container consumes the next executor id;
        it is launched only while running < target, else skipped (kept, not released)."""
        state = self
        requested = self.config.request_capability
        for container in containers:
            _require(
                container.capability.memory_mb >= requested.memory_mb,
                f"container {container.container_id}",
                f"{container.capability.memory_mb} MB is less than the {requested.memory_mb} MB requested "
                "(Spark asserts YARN never does this)",
            )
            number = state.last_executor_number + 1
            executor_id = str(number)
            cid = container.container_id
            state = replace(state, last_executor_number=number)
            if state.num_executors_running < state.target:
                launch = PendingLaunch(executor_id, cid, container.host)
                fate = ContainerFate(cid, container.host, Fate.LAUNCHED, executor_id)
                state = replace(
                    state,
                    launches=state.launches + (launch,),
                    launching=state.launching | {cid},
                    fates=state.fates + (fate,),
                )
                if not state.config.launch_containers:
                    state = state.launch_finished(cid)
            else:
                fate = ContainerFate(cid, container.host, Fate.SKIPPED, executor_id)
                state = replace(state, fates=state.fates + (fate,))
        return state

    def launch_finished(self, container_id: str, succeeded: bool = True) -> YarnAllocator:
        """The end of an executor launch in ``container_id``.

        Success (``updateInternalState``): the executor becomes running and its container is
        recorded against its host - unless the container already completed while launching
        (SPARK-43510; without ``late_launch_guard`` it becomes running anyway). Failure: the
        container is handed back to YARN (without marking it released by us, as Spark does).
        Either way the launch stops counting as starting.
        """
        launch = next((item for item in self.launches if item.container_id == container_id), None)
        if launch is None:
            raise InputError(
                _SOURCE, f"container {container_id}", "no executor launch is in progress in this container"
            )
        state = replace(
            self,
            launches=tuple(item for item in self.launches if item is not launch),
            launching=self.launching - {container_id},
        )
        if not succeeded:
            return replace(state, client=state.client.release(container_id))
        if self.config.variant.late_launch_guard and container_id not in self.launching:
            return state
        executor = Executor(launch.executor_id, container_id, launch.host, running=True)
        return replace(state, executors=state.executors + (executor,))

    # --- 4.6 -------------------------------------------------------------------------------------

    def kill_executor(self, executor_id: str) -> YarnAllocator:
        """``killExecutor``: release a known executor's container and drop it from the running
        set at once; an unknown executor, or one already released, is ignored."""
        executor = self.executor_by_id(executor_id)
        if executor is None or executor.container_id in self.released:
            return self
        state = self._release(executor.container_id)
        return replace(state, executors=_replace_executor(state.executors, replace(executor, running=False)))

    def _release(self, container_id: str) -> YarnAllocator:
        """``internalReleaseContainer``: remember it as released by us and hand it back."""
        return replace(self, released=self.released | {container_id}, client=self.client.release(container_id))

    # --- 4.7 -------------------------------------------------------------------------------------

    def process_completed_containers(self, statuses: Sequence[ContainerStatus]) -> YarnAllocator:
        """``processCompletedContainers`` (4.7), one status after the other."""
        state = self
        for status in statuses:
            state = state._complete(status)
        return state

    def exit_is_allocation_failure(self, exit_status: int) -> bool:
        """Whether an exit, from a container we did not release, counts as an allocation
        failure on its host (4.7): not while shutting down, not for success, preemption or
        memory kills, and (SPARK-26269) not for YARN's or the node's own kills."""
        variant = self.config.variant
        if self.shutdown and variant.no_failures_after_shutdown:
            return False
        if exit_status in (SUCCESS, PREEMPTED, KILLED_EXCEEDED_VMEM, KILLED_EXCEEDED_PMEM):
            return False
        if variant.yarn_side_exits_not_failures and exit_status in NOT_APP_AND_SYSTEM_FAULT_EXIT_STATUS:
            return False
        return True

    def exit_caused_by_app(self, exit_status: int) -> bool:
        """``exitCausedByApp`` of the exit reason sent to the driver: memory kills and
        allocation failures are the application's; the rest are not."""
        variant = self.config.variant
        if self.shutdown and variant.no_failures_after_shutdown:
            return False
        if exit_status in (KILLED_EXCEEDED_VMEM, KILLED_EXCEEDED_PMEM):
            return True
        return self.exit_is_allocation_failure(exit_status)

    def _complete(self, status: ContainerStatus) -> YarnAllocator:
        cid = status.container_id
        already_released = cid in self.released
        executor = self.executor_of_container(cid)
        state = replace(
            self,
            launching=self.launching - {cid},
            released=self.released - {cid},
            completed=self.completed | {cid},
        )
        caused_by_app = False
        if not already_released:
            if state.exit_is_allocation_failure(status.exit_status):
                state = state._allocation_failure(executor.host if executor is not None else None)
            caused_by_app = self.exit_caused_by_app(status.exit_status)
        if executor is None:
            return state
        state = replace(state, executors=tuple(e for e in state.executors if e.container_id != cid))
        if already_released:
            return state
        message = ExecutorExit(executor.executor_id, status.exit_status, caused_by_app)
        return replace(
            state,
            unexpected_releases=state.unexpected_releases + 1,
            driver_messages=state.driver_messages + (message,),
        )

    # --- 4.8 -------------------------------------------------------------------------------------

    def _allocation_failure(self, host: str | None) -> YarnAllocator:
        """``handleResourceAllocationFailure``: with launch exclusion on and a known host, a
        failure on an excluded host is ignored, else it counts on the host and may exclude it;
        otherwise only the global count grows."""
        exclusion = self.config.exclusion
        now = self.clock_ms
        if host is None or not exclusion.enabled:
            return replace(self, failures=self.failures.register(now, None))
        if self.health.is_excluded(host):
            return self
        state = replace(self, failures=self.failures.register(now, host))
        if state.failures.count_on_host(host, now) <= exclusion.max_failures_per_node:
            return state
        excluded = tuple(item for item in state.health.allocator_excluded if item[0] != host)
        excluded += ((host, now + exclusion.timeout_ms),)
        state = state._with_health(replace(state.health, allocator_excluded=excluded))
        return state._refresh_exclusions()

    def _with_health(self, health: NodeHealth) -> YarnAllocator:
        return replace(self, health=health)

    def _refresh_exclusions(self) -> YarnAllocator:
        """``refreshNodeHealthTracker``: drop expired allocator exclusions, then send YARN the
        difference to the set it last received, sorted, only when non-empty (4.8)."""
        now = self.clock_ms
        alive = tuple((host, expiry) for host, expiry in self.health.allocator_excluded if expiry > now)
        wanted = (
            self.config.exclusion.always_excluded
            | self.health.scheduler_excluded
            | frozenset(host for host, _ in alive)
        )
        additions = tuple(sorted(wanted - self.health.sent))
        removals = tuple(sorted(self.health.sent - wanted))
        client = self.client.update_exclusions(additions, removals) if additions or removals else self.client
        return replace(self, client=client, health=replace(self.health, allocator_excluded=alive, sent=wanted))

    # --- environment ------------------------------------------------------------------------------

    def advance_clock(self, ms: int) -> YarnAllocator:
        """Move the logical clock forward by ``ms`` milliseconds."""
        _require(ms >= 0, "ms", "the clock never goes back")
        return replace(self, clock_ms=self.clock_ms + ms)

    def set_shutdown(self, shutdown: bool = True) -> YarnAllocator:
        """Mark the application as shutting down (or not)."""
        return replace(self, shutdown=shutdown)

    def allocate_resources(
        self, allocated: Sequence[AllocatedContainer] = (), completed: Sequence[ContainerStatus] = ()
    ) -> YarnAllocator:
        """``allocateResources``: update the requests, then take YARN's answer."""
        return (
            self.update_resource_requests()
            .handle_allocated_containers(allocated)
            .process_completed_containers(completed)
        )


def _replace_executor(executors: tuple[Executor, ...], new: Executor) -> tuple[Executor, ...]:
    return tuple(new if e.executor_id == new.executor_id else e for e in executors)


def _require(condition: bool, place: str, fault: str) -> None:
    if not condition:
        raise InputError(_SOURCE, place, fault)
