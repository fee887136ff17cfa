"""Spark's ``TaskSchedulerImpl``: executors, liveness, and offer rounds over task sets
(semantics 6).

``resource_offers(offers, now, ...)`` is one round: register the executors the offers name,
drop excluded ones, put the rest in an order, then let each schedulable task set, in FIFO order
(job priority, then stage), try its valid locality levels from the most local, in passes over
all offers until a pass launches nothing. Afterwards the delay timer of each set is reset or
not by the rule of SPARK-18886 (semantics 5.6), and a barrier set's tasks are launched together
or handed back.

Spark shuffles the offers at random. Here the order is an input: pass ``order`` (a
permutation of the offer positions) to choose it, or let the scheduler draw it from its own
``random.Random(seed)``; ``shuffle_offers=False`` keeps the given order, as Spark's tests do.
The clock is the ``now`` argument; nothing reads a wall clock.

The scheduler also stands in for the DAG scheduler and the backend that Spark's tests fake:
it records started and ended tasks, failed and finished task sets, kill requests and
speculative submissions, so a caller can observe what a manager did.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import (
    ExecutorLossReason,
    TaskDescription,
    TaskEndReason,
    TaskInfo,
    TaskSet,
    TaskState,
)


@dataclass(frozen=True)
class WorkerOffer:
    """Free cores on one executor."""

    executor_id: str
    host: str
    cores: int


@dataclass(frozen=True)
class OfferRound:
    """The outcome of one ``resource_offers`` call: the offers in the order they were used
    (excluded ones dropped) and, per offer, the tasks launched on it."""

    offers: tuple[WorkerOffer, ...]
    tasks: tuple[tuple[TaskDescription, ...], ...]

    @property
    def launched(self) -> tuple[TaskDescription, ...]:
        """Every launched task, offer by offer (Spark's ``resourceOffers(...).flatten``)."""
        return tuple(task for per_offer in self.tasks for task in per_offer)


@dataclass(frozen=True)
class TaskEnd:
    """A task-end notification, as the DAG scheduler receives it."""

    task_set: str
    index: int
    task_id: int
    reason: TaskEndReason


@dataclass
class DagLog:
    """What the DAG scheduler and the backend were told, in order."""

    started: list[TaskDescription] = field(default_factory=list)
    ended: list[TaskEnd] = field(default_factory=list)
    speculative: list[tuple[str, int]] = field(default_factory=list)
    kills: list[tuple[int, str, str]] = field(default_factory=list)
    failed_task_sets: list[tuple[str, str]] = field(default_factory=list)
    finished_task_sets: list[str] = field(default_factory=list)


@dataclass
class RackResolutionCalls:
    """How often the scheduler asked its rack resolver, counted as Spark's test resolver
    (``FakeRackUtil``) counts: a call with several hosts is a batch, a call with one host a
    single call."""

    batch: int = 0
    single: int = 0

    def record(self, hosts: int) -> None:
        """Count one call with ``hosts`` hosts."""
        if hosts > 1:
            self.batch += 1
        elif hosts == 1:
            self.single += 1


class ExecutorRegistry:
    """Which executors exist, where, and which are decommissioning; the liveness questions of
    semantics 5.2.

    ``decommission_aware`` is SPARK-32653 (decommissioning executors are not alive).
    ``host_decommission_hides_host`` is the extra rule of the test scheduler of Spark's
    TaskSetManagerSuite: a host named by a decommission notice has no live executors.
    """

    def __init__(
        self, racks: RackResolver, decommission_aware: bool = True, host_decommission_hides_host: bool = False
    ):
        self.racks = racks
        self.decommission_aware = decommission_aware
        self.host_decommission_hides_host = host_decommission_hides_host
        self.executor_host: dict[str, str] = {}
        self.host_executors: dict[str, dict[str, None]] = {}
        self.rack_hosts: dict[str, dict[str, None]] = {}
        #: executor -> the worker host its decommission notice named (``None``: none named).
        self.decommissioning: dict[str, str | None] = {}

    def add(self, executor_id: str, host: str) -> bool:
        """Register an executor; False when it was already known."""
        if executor_id in self.executor_host:
            return False
        self.executor_host[executor_id] = host
        self.host_executors.setdefault(host, {})[executor_id] = None
        rack = self.racks.resolve(host)
        if rack is not None:
            self.rack_hosts.setdefault(rack, {})[host] = None
        return True

    def remove(self, executor_id: str) -> str | None:
        """Forget an executor (and its host and rack entries once empty); returns its host."""
        host = self.executor_host.pop(executor_id, None)
        if host is None:
            return None
        executors = self.host_executors.get(host, {})
        executors.pop(executor_id, None)
        if not executors:
            self.host_executors.pop(host, None)
            rack = self.racks.resolve(host)
            if rack is not None and rack in self.rack_hosts:
                self.rack_hosts[rack].pop(host, None)
                if not self.rack_hosts[rack]:
                    del self.rack_hosts[rack]
        self.decommissioning.pop(executor_id, None)
        return host

    def decommission(self, executor_id: str, worker_host: str | None) -> None:
        """Record a decommission notice for a known executor (unknown ones are ignored)."""
        if executor_id in self.executor_host:
            self.decommissioning[executor_id] = worker_host

    def is_decommissioned(self, executor_id: str) -> bool:
        """Whether the executor counts as going away."""
        return self.decommission_aware and executor_id in self.decommissioning

    def is_host_decommissioned(self, host: str) -> bool:
        """Some executor on the host got a notice that names the host."""
        if not self.decommission_aware:
            return False
        return any(self.decommissioning.get(e) is not None for e in self.host_executors.get(host, ()))

    def is_executor_alive(self, executor_id: str) -> bool:
        """Registered and not decommissioning."""
        return executor_id in self.executor_host and not self.is_decommissioned(executor_id)

    def executors_alive_on_host(self, host: str) -> list[str]:
        """The host's live executors in registration order."""
        return [e for e in self.host_executors.get(host, ()) if not self.is_decommissioned(e)]

    def has_executors_alive_on_host(self, host: str) -> bool:
        """Some live executor on the host."""
        if self.host_decommission_hides_host and self.is_host_decommissioned(host):
            return False
        return any(not self.is_decommissioned(e) for e in self.host_executors.get(host, ()))

    def has_host_alive_on_rack(self, rack: str) -> bool:
        """Some host with executors on the rack that is not decommissioned as a whole."""
        return any(not self.is_host_decommissioned(h) for h in self.rack_hosts.get(rack, ()))


class TaskSchedulerImpl:
    """The task scheduler of one Spark application (semantics 6), FIFO pool only.

    ``test_liveness`` selects the liveness rule of the test scheduler of Spark's
    TaskSetManagerSuite (see :class:`ExecutorRegistry`). ``excluded_nodes`` and
    ``excluded_executors`` are the application-wide exclusions; their offers are dropped.
    """

    def __init__(
        self,
        conf: DispatchConf | None = None,
        racks: RackResolver | None = None,
        *,
        test_liveness: bool = False,
        shuffle_offers: bool = True,
        seed: int = 0,
    ) -> None:
        self.conf = conf or DispatchConf()
        self.registry = ExecutorRegistry(
            racks or RackResolver(),
            decommission_aware=self.conf.variant.decommission_aware_liveness,
            host_decommission_hides_host=test_liveness,
        )
        self.shuffle_offers = shuffle_offers
        self.rng = random.Random(seed)
        self.pool: list[TaskSetManager] = []
        self.by_stage: dict[int, dict[int, TaskSetManager]] = {}
        self.task_owner: dict[int, TaskSetManager] = {}
        self.excluded_nodes: set[str] = set()
        self.excluded_executors: set[str] = set()
        self.log = DagLog()
        #: Calls of ``getRacksForHosts`` / ``getRackForHost`` (the registry's own lookups are
        #: not counted; Spark keeps that table in ``hostsByRack``).
        self.rack_calls = RackResolutionCalls()
        self._test_liveness = test_liveness
        self._next_task_id = 0
        self._finished: set[TaskSetManager] = set()
        #: SPARK-18886: per task set, whether no offer was rejected since its last reset.
        self._no_rejects_since_reset: dict[TaskSetManager, bool] = {}

    # ---- SchedulerView -----------------------------------------------------------------

    def is_executor_alive(self, executor_id: str) -> bool:
        """See :meth:`ExecutorRegistry.is_executor_alive`."""
        return self.registry.is_executor_alive(executor_id)

    def has_executors_alive_on_host(self, host: str) -> bool:
        """See :meth:`ExecutorRegistry.has_executors_alive_on_host`."""
        return self.registry.has_executors_alive_on_host(host)

    def has_host_alive_on_rack(self, rack: str) -> bool:
        """See :meth:`ExecutorRegistry.has_host_alive_on_rack`."""
        return self.registry.has_host_alive_on_rack(rack)

    def executors_alive_on_host(self, host: str) -> Sequence[str]:
        """See :meth:`ExecutorRegistry.executors_alive_on_host`."""
        return self.registry.executors_alive_on_host(host)

    def rack_for_host(self, host: str) -> str | None:
        """The rack resolver's answer for ``host`` (a query, not counted)."""
        return self.registry.racks.resolve(host)

    def get_racks_for_hosts(self, hosts: Sequence[str]) -> list[str | None]:
        """``getRacksForHosts``: the racks of ``hosts``, one counted call."""
        self.rack_calls.record(len(hosts))
        return [self.registry.racks.resolve(host) for host in hosts]

    def get_rack_for_host(self, host: str) -> str | None:
        """``getRackForHost``: a counted call with one host."""
        return self.get_racks_for_hosts([host])[0]

    def new_task_id(self) -> int:
        """Task ids count up from 0 across all task sets."""
        task_id = self._next_task_id
        self._next_task_id += 1
        return task_id

    def task_started(self, manager: TaskSetManager, info: TaskInfo) -> None:
        """Record a launch."""
        self.task_owner[info.task_id] = manager
        self.log.started.append(TaskDescription.of(info, manager.name))

    def task_ended(self, manager: TaskSetManager, info: TaskInfo, reason: TaskEndReason) -> None:
        """Record a task end."""
        self.log.ended.append(TaskEnd(manager.name, info.index, info.task_id, reason))

    def speculative_task_submitted(self, manager: TaskSetManager, index: int) -> None:
        """Record a speculative submission."""
        self.log.speculative.append((manager.name, index))

    def kill_task(self, manager: TaskSetManager, info: TaskInfo, reason: str) -> None:
        """Record a kill request (the attempt ends only when its failure is reported)."""
        self.log.kills.append((info.task_id, info.executor_id, reason))

    def task_set_failed(self, manager: TaskSetManager, message: str) -> None:
        """Record an abort."""
        self.log.failed_task_sets.append((manager.name, message))

    def task_set_finished(self, manager: TaskSetManager) -> None:
        """A finished set leaves the pool (recorded once)."""
        if manager in self.pool:
            self.pool.remove(manager)
        attempts = self.by_stage.get(manager.task_set.stage_id, {})
        if attempts.get(manager.task_set.stage_attempt_id) is manager:
            del attempts[manager.task_set.stage_attempt_id]
        self._no_rejects_since_reset.pop(manager, None)
        if manager not in self._finished:
            self._finished.add(manager)
            self.log.finished_task_sets.append(manager.name)

    def is_finished(self, manager: TaskSetManager) -> bool:
        """Whether ``manager`` was reported finished."""
        return manager in self._finished

    # ---- executors ---------------------------------------------------------------------

    def add_executor(self, executor_id: str, host: str) -> bool:
        """Register an executor without telling any task set (what an offer does first, and
        what Spark's test scheduler's ``addExecutor`` does, resolving the host's rack). False
        if already known."""
        if self._test_liveness:
            self.get_rack_for_host(host)
        return self.registry.add(executor_id, host)

    def remove_executor(self, executor_id: str) -> str | None:
        """Forget an executor without telling any task set; returns its host. Spark's test
        scheduler resolves the host's rack on every removal, the real one only when the host
        has no executor left."""
        host = self.registry.remove(executor_id)
        if host is not None and (self._test_liveness or not self.registry.host_executors.get(host)):
            self.get_rack_for_host(host)
        return host

    def executor_lost(self, executor_id: str, reason: ExecutorLossReason, now: int) -> None:
        """Forget the executor and tell every task set in the pool (``executorLost``)."""
        host = self.remove_executor(executor_id)
        if host is None:
            return
        for manager in list(self.pool):
            manager.executor_lost(executor_id, host, reason, now)

    def executor_decommission(self, executor_id: str, worker_host: str | None) -> None:
        """Record a decommission notice and let every task set recompute its levels."""
        self.registry.decommission(executor_id, worker_host)
        for manager in list(self.pool):
            manager.executor_decommission(executor_id)

    # ---- task sets ---------------------------------------------------------------------

    def create_manager(self, task_set: TaskSet, now: int) -> TaskSetManager:
        """A manager for ``task_set`` that is not in the pool (how Spark's TaskSetManagerSuite
        builds one)."""
        return TaskSetManager(self, task_set, self.conf, now)

    def submit_tasks(self, task_set: TaskSet, now: int) -> TaskSetManager:
        """``submitTasks``: a new manager joins the pool; earlier attempts of the same stage
        become zombies."""
        manager = self.create_manager(task_set, now)
        attempts = self.by_stage.setdefault(task_set.stage_id, {})
        for older in attempts.values():
            older.is_zombie = True
        attempts[task_set.stage_attempt_id] = manager
        self.pool.append(manager)
        return manager

    def sorted_task_sets(self) -> list[TaskSetManager]:
        """Schedulable sets in FIFO order: priority (job), then stage id, then submission."""
        ready = [m for m in self.pool if m.is_schedulable]
        return sorted(ready, key=lambda m: (m.task_set.priority, m.task_set.stage_id))

    # ---- status updates ----------------------------------------------------------------

    def manager_of(self, task_id: int) -> TaskSetManager:
        """The manager that launched ``task_id`` (KeyError if none did)."""
        return self.task_owner[task_id]

    def task_succeeded(self, task_id: int, now: int) -> None:
        """Report a successful attempt to its manager."""
        self.manager_of(task_id).handle_successful_task(task_id, now)

    def task_failed(self, task_id: int, state: TaskState, reason: TaskEndReason, now: int) -> None:
        """Report a failed or killed attempt to its manager."""
        self.manager_of(task_id).handle_failed_task(task_id, state, reason, now)

    # ---- offers ------------------------------------------------------------------------

    def _ordered(self, offers: list[WorkerOffer], order: Sequence[int] | None) -> list[WorkerOffer]:
        if order is not None:
            if sorted(order) != list(range(len(offers))):
                raise InputError(
                    "<resource_offers>", "order", f"{list(order)} is not a permutation of 0..{len(offers) - 1}"
                )
            return [offers[i] for i in order]
        if self.shuffle_offers:
            shuffled = list(offers)
            self.rng.shuffle(shuffled)
            return shuffled
        return offers

    def resource_offers(
        self,
        offers: Iterable[WorkerOffer],
        now: int,
        is_all_free_resources: bool = True,
        order: Sequence[int] | None = None,
    ) -> OfferRound:
        """One offer round (``resourceOffers``, semantics 6).

        ``order`` fixes the order of the offers left after exclusion (a permutation of their
        positions); without it the scheduler shuffles with its seeded generator, or keeps the
        given order when built with ``shuffle_offers=False``.
        """
        offers = list(offers)
        new_executor = False
        for offer in offers:
            new_executor |= self.registry.add(offer.executor_id, offer.host)
        self.get_racks_for_hosts(list(dict.fromkeys(o.host for o in offers)))
        kept = [o for o in offers if o.host not in self.excluded_nodes and o.executor_id not in self.excluded_executors]
        used = self._ordered(kept, order)
        cpus = [o.cores for o in used]
        per_offer: list[list[TaskDescription]] = [[] for _ in used]
        task_sets = self.sorted_task_sets()
        if new_executor:
            for manager in task_sets:
                manager.executor_added()
        for manager in task_sets:
            if not self._offer_task_set(manager, used, cpus, per_offer, now, is_all_free_resources):
                break
        return OfferRound(tuple(used), tuple(tuple(tasks) for tasks in per_offer))

    def _offer_task_set(
        self,
        manager: TaskSetManager,
        offers: list[WorkerOffer],
        cpus: list[int],
        per_offer: list[list[TaskDescription]],
        now: int,
        is_all_free_resources: bool,
    ) -> bool:
        """Offer every level of one set (semantics 6.4-6.5); False when the round must stop."""
        task_cpus = self.conf.task_cpus
        if manager.is_barrier and sum(c // task_cpus for c in cpus) < manager.num_tasks:
            return True
        launched_any = False
        no_rejects = True
        best: TaskLocality | None = None
        barrier_slot: dict[int, int] = {}
        for level in manager.levels:
            while True:
                launched_here, rejected, level_best = self._one_pass(
                    manager, level, offers, cpus, per_offer, barrier_slot, now
                )
                no_rejects &= not rejected
                if not launched_here:
                    break
                launched_any = True
                if level_best is not None and (best is None or level_best < best):
                    best = level_best
        if not self.conf.variant.legacy_reset_on_task_launch:
            self._apply_reset_rule(manager, launched_any, no_rejects, best, now, is_all_free_resources)
        if launched_any and manager.is_barrier:
            return self._settle_barrier(manager, cpus, per_offer, barrier_slot, now)
        return True

    def _one_pass(
        self,
        manager: TaskSetManager,
        level: TaskLocality,
        offers: list[WorkerOffer],
        cpus: list[int],
        per_offer: list[list[TaskDescription]],
        barrier_slot: dict[int, int],
        now: int,
    ) -> tuple[bool, bool, TaskLocality | None]:
        """``resourceOfferSingleTaskSet``: each offer with enough free cores is asked for one
        task capped at ``level``. Returns (launched, any delay reject, most local launch)."""
        task_cpus = self.conf.task_cpus
        launched = rejected = False
        best: TaskLocality | None = None
        for i, offer in enumerate(offers):
            if cpus[i] < task_cpus:
                continue
            result = manager.resource_offer(offer.executor_id, offer.host, level, now)
            rejected |= result.delay_reject
            locality = result.locality
            if locality is None:
                continue
            if result.task is not None:
                per_offer[i].append(result.task)
            elif result.barrier_pending is not None:
                barrier_slot[result.barrier_pending.index] = i
            cpus[i] -= task_cpus
            launched = True
            best = locality if best is None else min(best, locality)
        return launched, rejected, best

    def _apply_reset_rule(
        self,
        manager: TaskSetManager,
        launched_any: bool,
        no_rejects: bool,
        best: TaskLocality | None,
        now: int,
        is_all_free_resources: bool,
    ) -> None:
        """SPARK-18886 (semantics 5.6): a set that launched without any delay reject resets its
        timer (to the most local level launched) on a full offer, or on a partial one when no
        reject was recorded since its last reset; any reject is recorded instead."""
        if not no_rejects:
            self._no_rejects_since_reset[manager] = False
            return
        if launched_any and (is_all_free_resources or self._no_rejects_since_reset.get(manager, True)):
            manager.reset_delay_schedule_timer(best, now)
            self._no_rejects_since_reset[manager] = True

    def _settle_barrier(
        self,
        manager: TaskSetManager,
        cpus: list[int],
        per_offer: list[list[TaskDescription]],
        barrier_slot: dict[int, int],
        now: int,
    ) -> bool:
        """All tasks of a barrier set launch in the same round or none does. A partial round
        gives the cores back and queues the tasks again. In legacy reset mode Spark aborts the
        set instead and throws out of the round: then this returns False and the round ends
        (Spark's exception also loses what the round launched for earlier sets; here those
        launches are returned)."""
        if len(manager.barrier_pending) == manager.num_tasks:
            for task in manager.launch_barrier_tasks(now):
                per_offer[barrier_slot[task.index]].append(task)
            return True
        if self.conf.variant.legacy_reset_on_task_launch:
            manager.barrier_pending.clear()
            manager.abort(
                f"only {len(barrier_slot)} of the {manager.num_tasks} barrier tasks of stage "
                f"{manager.name} got offers (legacy locality-wait reset mode)"
            )
            return False
        for held in manager.revert_barrier_tasks():
            cpus[barrier_slot[held.index]] += self.conf.task_cpus
        return True
