"""Spark's ``TaskSetManager``: task dispatch inside one task set, with delay scheduling
(semantics 5).

One manager owns one stage attempt. It keeps its pending tasks in stacks per executor, host,
rack, "no preference" and "all" (a second family for speculative copies), works out which
locality levels are worth trying given the live executors, and answers one offer at a time:
``resource_offer(executor, host, max_locality, now)`` returns at most one task. Delay
scheduling decides how far from its data a task may run: the set waits at each level for
``spark.locality.wait.*`` before it accepts a less local one.

Time is a logical clock: every method that reads the clock takes ``now`` (milliseconds).
Nothing here is random. What the manager needs from its scheduler (liveness of executors,
hosts and racks, task ids, and the DAG scheduler's callbacks) is the :class:`SchedulerView`
protocol, which :class:`yarnspec.impl.spark.task_scheduler.TaskSchedulerImpl` implements.

Spark versions differ in a few rules (semantics 8): the manager reads them from its
configuration's :class:`~yarnspec.impl.spark.taskset.dispatch_variant.DispatchVariant`.
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping, MutableSet, Sequence
from typing import Protocol

from yarnspec.impl.spark.collection_order import get_or_else_update, new_map, new_set
from yarnspec.impl.spark.locality import ExecutorCacheTaskLocation, HDFSCacheTaskLocation, TaskLocality
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf
from yarnspec.impl.spark.taskset.pending_tasks import PendingTasksByLocality, push
from yarnspec.impl.spark.taskset.tasks import (
    RESUBMITTED,
    SUCCESS,
    BarrierPendingLaunch,
    EndReason,
    ExecutorLoss,
    ExecutorLossReason,
    OfferResult,
    TaskDescription,
    TaskEndReason,
    TaskInfo,
    TaskSet,
    TaskState,
)

PROCESS_LOCAL = TaskLocality.PROCESS_LOCAL
NODE_LOCAL = TaskLocality.NODE_LOCAL
NO_PREF = TaskLocality.NO_PREF
RACK_LOCAL = TaskLocality.RACK_LOCAL
ANY = TaskLocality.ANY

_NOTHING = OfferResult()


class SchedulerView(Protocol):
    """What a task set manager asks of its task scheduler and tells its DAG scheduler."""

    def is_executor_alive(self, executor_id: str) -> bool:
        """Registered and not decommissioning."""

    def has_executors_alive_on_host(self, host: str) -> bool:
        """Some live executor on the host."""

    def has_host_alive_on_rack(self, rack: str) -> bool:
        """Some host with executors on the rack, not decommissioned as a whole."""

    def executors_alive_on_host(self, host: str) -> Sequence[str]:
        """The live executors on the host, in registration order."""

    def rack_for_host(self, host: str) -> str | None:
        """The host's rack, or ``None`` when racks are not resolved (a query)."""

    def get_rack_for_host(self, host: str) -> str | None:
        """``getRackForHost``: the host's rack, as one call of the rack resolver."""

    def get_racks_for_hosts(self, hosts: Sequence[str]) -> list[str | None]:
        """``getRacksForHosts``: the racks of several hosts in one call of the resolver."""

    def new_task_id(self) -> int:
        """The next task id (0, 1, 2, ... across every task set of the scheduler)."""

    def task_started(self, manager: TaskSetManager, info: TaskInfo) -> None:
        """An attempt launched."""

    def task_ended(self, manager: TaskSetManager, info: TaskInfo, reason: TaskEndReason) -> None:
        """An attempt ended (or a finished map output was resubmitted)."""

    def speculative_task_submitted(self, manager: TaskSetManager, index: int) -> None:
        """A task was marked speculatable."""

    def kill_task(self, manager: TaskSetManager, info: TaskInfo, reason: str) -> None:
        """Ask the backend to kill a running attempt."""

    def task_set_failed(self, manager: TaskSetManager, message: str) -> None:
        """The set was aborted."""

    def task_set_finished(self, manager: TaskSetManager) -> None:
        """The set is a zombie with nothing running."""


class TaskSetManager:
    """Schedules the tasks of one task set (semantics 5).

    Build it with the scheduler it belongs to, the task set, the configuration and the clock
    value at creation (``now``); every executor the scheduler knows then is taken as alive.
    """

    def __init__(self, sched: SchedulerView, task_set: TaskSet, conf: DispatchConf, now: int) -> None:
        self.sched = sched
        self.task_set = task_set
        self.conf = conf
        self.variant = conf.variant
        self.max_task_failures = conf.max_task_failures
        n = task_set.num_tasks
        self.num_tasks = n
        self.is_barrier = task_set.barrier and n > 0
        self.copies_running = [0] * n
        self.successful = [False] * n
        self.num_failures = [0] * n
        self.attempts: list[list[TaskInfo]] = [[] for _ in range(n)]
        order = self.variant.collection_order
        #: ``taskInfos`` (a Scala ``HashMap[Long, TaskInfo]``): every attempt by task id.
        self.task_infos: MutableMapping[int, TaskInfo] = new_map(order)
        #: ``runningTasksSet`` (a Scala ``HashSet[Long]``): the running attempt ids.
        self.running: MutableSet[int] = new_set(order)
        self.tasks_successful = 0
        self.is_zombie = False
        self.pending = PendingTasksByLocality.empty(order)
        self.speculative_pending = PendingTasksByLocality.empty(order)
        self.speculatable: set[int] = set()
        #: ``barrierPendingLaunchTasks`` (a Scala ``HashMap[Int, ...]``), by task index.
        self.barrier_pending: MutableMapping[int, BarrierPendingLaunch] = new_map(order)
        self.killed_by_other_attempt: set[int] = set()
        self.successful_durations: list[int] = []
        #: Nodes and executors excluded for the whole set (an offer from them gets nothing).
        self.excluded_nodes: set[str] = set()
        self.excluded_executors: set[str] = set()
        self._add_all_pending_tasks()
        self.levels: tuple[TaskLocality, ...] = self._compute_valid_levels()
        self.waits: tuple[int, ...] = self._compute_waits()
        self.current_index = 0
        self.last_reset = now

    # ---- observations ------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The task set's ``stage.attempt`` name."""
        return self.task_set.name

    @property
    def is_schedulable(self) -> bool:
        """Not a zombie and something left in an ``all`` list (stale entries count)."""
        return not self.is_zombie and self._has_pending_tasks()

    def running_attempts(self, index: int) -> list[TaskInfo]:
        """The running attempts of task ``index``."""
        return [info for info in self.attempts[index] if info.running]

    def allowed_locality(self, now: int) -> TaskLocality:
        """The level delay scheduling allows at ``now`` (``getAllowedLocalityLevel``); this
        advances the level as a real offer would."""
        return self._allowed_level(now)

    # ---- queuing -----------------------------------------------------------------------

    def _add_all_pending_tasks(self) -> None:
        """Queue every task, highest index first, then resolve the racks of all preferred
        hosts in one batch (semantics 5.1, SPARK-13704)."""
        for index in range(self.num_tasks - 1, -1, -1):
            self.add_pending_task(index, resolve_racks=False)
        hosts = list(self.pending.for_host)
        for host, rack in zip(hosts, self.sched.get_racks_for_hosts(hosts)):
            if rack is not None:
                get_or_else_update(self.pending.for_rack, rack, list).extend(self.pending.for_host[host])

    def add_pending_task(self, index: int, resolve_racks: bool = True, speculative: bool = False) -> None:
        """Push task ``index`` on every list it belongs to (``addPendingTask``). An HDFS-cached
        location reaches the executors alive on its host *now* and is not updated later."""
        if self.is_zombie:
            return
        pending = self.speculative_pending if speculative else self.pending
        prefs = self.task_set.preferences[index]
        for loc in prefs:
            if isinstance(loc, ExecutorCacheTaskLocation):
                push(pending.for_executor, loc.executor_id, index)
            elif isinstance(loc, HDFSCacheTaskLocation):
                for executor_id in self.sched.executors_alive_on_host(loc.host):
                    push(pending.for_executor, executor_id, index)
            push(pending.for_host, loc.host, index)
            if resolve_racks:
                rack = self.sched.get_rack_for_host(loc.host)
                if rack is not None:
                    push(pending.for_rack, rack, index)
        if not prefs:
            pending.no_prefs.append(index)
        pending.all.append(index)

    def _has_pending_tasks(self) -> bool:
        if self.pending.all or self.speculative_pending.all:
            return True
        return not self.variant.per_locality_speculation and bool(self.speculatable)

    # ---- valid levels and waits --------------------------------------------------------

    def _compute_valid_levels(self) -> tuple[TaskLocality, ...]:
        """``computeValidLocalityLevels`` (semantics 5.2); ``ANY`` is always last."""
        sched = self.sched
        pending = self.pending
        levels = []
        if any(sched.is_executor_alive(e) for e in pending.for_executor):
            levels.append(PROCESS_LOCAL)
        if any(sched.has_executors_alive_on_host(h) for h in pending.for_host):
            levels.append(NODE_LOCAL)
        if pending.no_prefs:
            levels.append(NO_PREF)
        if any(sched.has_host_alive_on_rack(r) for r in pending.for_rack):
            levels.append(RACK_LOCAL)
        levels.append(ANY)
        return tuple(levels)

    def _compute_waits(self) -> tuple[int, ...]:
        if self.variant.legacy_reset_on_task_launch and self.is_barrier:
            return tuple(0 for _ in self.levels)
        return tuple(self.conf.waits.wait_ms(level) for level in self.levels)

    def locality_index(self, level: TaskLocality) -> int:
        """Index of the first valid level at or after ``level`` (``getLocalityIndex``)."""
        index = 0
        while level > self.levels[index]:
            index += 1
        return index

    def recompute_locality(self) -> None:
        """Recompute levels and waits after executors come, go or decommission (semantics
        5.7): keep the current level (or the next valid one); if that index moved up because a
        more local level appeared, go to the most local new level (SPARK-31837)."""
        if self.is_zombie:
            return
        previous_index = self.current_index
        previous_levels = self.levels
        self.levels = self._compute_valid_levels()
        self.waits = self._compute_waits()
        self.current_index = self.locality_index(previous_levels[previous_index])
        if self.variant.jump_to_new_best_level and self.current_index > previous_index:
            added = [level for level in self.levels if level not in previous_levels]
            self.current_index = self.locality_index(added[0])

    def executor_added(self) -> None:
        """A new executor registered somewhere."""
        self.recompute_locality()

    def executor_decommission(self, executor_id: str) -> None:
        """An executor received a decommission notice."""
        self.recompute_locality()

    # ---- delay scheduling --------------------------------------------------------------

    def _needs_scheduling(self, stack: list[int]) -> bool:
        """Whether ``stack`` still holds a task to launch, discarding launched or finished
        entries from its top on the way."""
        copies, successful = self.copies_running, self.successful
        while stack:
            index = stack[-1]
            if copies[index] == 0 and not successful[index]:
                return True
            stack.pop()
        return False

    def _more_tasks_in(self, lists: MutableMapping[str, list[int]]) -> bool:
        """``moreTasksToRunIn``: scan the keys in order up to the first list with work,
        deleting the keys found empty before it."""
        empty: list[str] = []
        found = False
        for key, stack in lists.items():
            if self._needs_scheduling(stack):
                found = True
                break
            empty.append(key)
        for key in empty:
            del lists[key]
        return found

    def _level_has_tasks(self, level: TaskLocality) -> bool:
        if level is PROCESS_LOCAL:
            return self._more_tasks_in(self.pending.for_executor)
        if level is NODE_LOCAL:
            return self._more_tasks_in(self.pending.for_host)
        if level is NO_PREF:
            return bool(self.pending.no_prefs)
        return self._more_tasks_in(self.pending.for_rack)

    def _allowed_level(self, now: int) -> TaskLocality:
        """``getAllowedLocalityLevel`` (semantics 5.4). A level with no task left is passed at
        once and restarts the timer at ``now`` (SPARK-4939); an expired wait advances the
        timer by exactly that wait, so several levels can pass in one call."""
        levels, waits = self.levels, self.waits
        last = len(levels) - 1
        skip_empty = self.variant.skip_levels_without_tasks
        while self.current_index < last:
            level = levels[self.current_index]
            if skip_empty and not self._level_has_tasks(level):
                self.last_reset = now
                self.current_index += 1
            elif now - self.last_reset >= waits[self.current_index]:
                self.last_reset += waits[self.current_index]
                self.current_index += 1
            else:
                return level
        return levels[self.current_index]

    def reset_delay_schedule_timer(self, min_locality: TaskLocality | None, now: int) -> None:
        """Restart the wait at ``now`` and, when given, go back to the first valid level at or
        after ``min_locality`` (``resetDelayScheduleTimer``)."""
        self.last_reset = now
        if min_locality is not None:
            self.current_index = self.locality_index(min_locality)

    # ---- dequeuing ---------------------------------------------------------------------

    def _take(self, stack: list[int] | None, host: str, speculative: bool) -> int | None:
        """``dequeueTaskFromList``: from the top, drop stale entries, return the first task
        that may launch. A speculative copy skips (and keeps) tasks that already have an
        attempt on ``host``."""
        if not stack:
            return None
        copies, successful = self.copies_running, self.successful
        position = len(stack)
        while position > 0:
            position -= 1
            index = stack[position]
            if speculative and self._has_attempt_on_host(index, host):
                continue
            del stack[position]
            if successful[index]:
                continue
            if copies[index] == 0 and index not in self.barrier_pending:
                return index
            if speculative and copies[index] == 1:
                return index
        return None

    def _has_attempt_on_host(self, index: int, host: str) -> bool:
        return any(info.host == host for info in self.attempts[index])

    def _dequeue_from(
        self, executor_id: str, host: str, cap: TaskLocality, speculative: bool
    ) -> tuple[int, TaskLocality] | None:
        """One pass of ``dequeueTaskHelper`` over the regular or the speculative lists, in the
        order executor, host, no-preference, rack, all (semantics 5.5 step 3)."""
        if speculative and not self.speculatable:
            return None
        pending = self.speculative_pending if speculative else self.pending
        found = self._take(pending.for_executor.get(executor_id), host, speculative)
        if found is not None:
            return found, PROCESS_LOCAL
        if cap >= NODE_LOCAL:
            found = self._take(pending.for_host.get(host), host, speculative)
            if found is not None:
                return found, NODE_LOCAL
        if cap >= NO_PREF:
            # Spark reports a no-preference task as PROCESS_LOCAL (semantics 7.1).
            found = self._take(pending.no_prefs, host, speculative)
            if found is not None:
                return found, PROCESS_LOCAL
        if cap >= RACK_LOCAL:
            rack = self.sched.get_rack_for_host(host)
            if rack is not None:
                found = self._take(pending.for_rack.get(rack), host, speculative)
                if found is not None:
                    return found, RACK_LOCAL
        if cap >= ANY:
            found = self._take(pending.all, host, speculative)
            if found is not None:
                return found, ANY
        return None

    def _dequeue_speculative_single_set(
        self, executor_id: str, host: str, cap: TaskLocality
    ) -> tuple[int, TaskLocality] | None:
        """Speculation before SPARK-26755: one set of speculatable indices, scanned level by
        level (in ascending index here; Spark's hash-set order is unspecified), skipping tasks
        that already have an attempt on ``host``."""
        self.speculatable = {i for i in self.speculatable if not self.successful[i]}
        candidates = [i for i in sorted(self.speculatable) if not self._has_attempt_on_host(i, host)]
        rack = self.sched.get_rack_for_host(host)
        for level in TaskLocality:
            if level > cap:
                break
            for index in candidates:
                if self._prefers(index, level, executor_id, host, rack):
                    self.speculatable.discard(index)
                    return index, PROCESS_LOCAL if level is NO_PREF else level
        return None

    def _prefers(self, index: int, level: TaskLocality, executor_id: str, host: str, rack: str | None) -> bool:
        """Whether an offer on ``executor_id`` / ``host`` is at ``level`` for task ``index``."""
        prefs = self.task_set.preferences[index]
        if level is PROCESS_LOCAL:
            return any(isinstance(p, ExecutorCacheTaskLocation) and p.executor_id == executor_id for p in prefs)
        if level is NODE_LOCAL:
            return any(p.host == host for p in prefs)
        if level is NO_PREF:
            return not prefs
        if level is RACK_LOCAL:
            return rack is not None and any(self.sched.rack_for_host(p.host) == rack for p in prefs)
        return True

    def _dequeue(self, executor_id: str, host: str, cap: TaskLocality) -> tuple[int, TaskLocality, bool] | None:
        """A regular task if one fits, else a speculative copy."""
        found = self._dequeue_from(executor_id, host, cap, speculative=False)
        if found is not None:
            return found[0], found[1], False
        if self.variant.per_locality_speculation:
            found = self._dequeue_from(executor_id, host, cap, speculative=True)
            if found is not None:
                self.speculatable.discard(found[0])
        elif self.speculatable:
            found = self._dequeue_speculative_single_set(executor_id, host, cap)
        if found is not None:
            return found[0], found[1], True
        return None

    # ---- offers and launches -----------------------------------------------------------

    def resource_offer(self, executor_id: str, host: str, max_locality: TaskLocality, now: int) -> OfferResult:
        """Answer one offer (``resourceOffer``, semantics 5.5).

        A zombie set, or an offer from a node or executor excluded for the set, gets nothing
        and is no delay reject. Otherwise the allowed level is ``min(allowed(now),
        max_locality)`` (the delay state advances even when the cap is tighter), except that
        a ``NO_PREF`` cap bypasses delay scheduling. A barrier task is held, not launched.
        """
        if self.is_zombie or host in self.excluded_nodes or executor_id in self.excluded_executors:
            return _NOTHING
        allowed = max_locality
        if max_locality != NO_PREF:
            allowed = min(self._allowed_level(now), max_locality)
        found = self._dequeue(executor_id, host, allowed)
        if found is None:
            reject = max_locality == ANY and self._has_pending_tasks()
            return OfferResult(delay_reject=reject) if reject else _NOTHING
        index, locality, speculative = found
        if self.variant.legacy_reset_on_task_launch and max_locality != NO_PREF:
            self.reset_delay_schedule_timer(locality, now)
        if self.is_barrier:
            held = BarrierPendingLaunch(index, executor_id, host, locality)
            self.barrier_pending[index] = held
            return OfferResult(barrier_pending=held)
        info = self._launch(index, executor_id, host, locality, speculative, now)
        return OfferResult(task=TaskDescription.of(info, self.task_set.name))

    def _launch(
        self, index: int, executor_id: str, host: str, locality: TaskLocality, speculative: bool, now: int
    ) -> TaskInfo:
        """``prepareLaunchingTask``: a new attempt with the next task id."""
        info = TaskInfo(
            task_id=self.sched.new_task_id(),
            index=index,
            attempt_number=len(self.attempts[index]),
            launch_time=now,
            executor_id=executor_id,
            host=host,
            locality=locality,
            speculative=speculative,
        )
        self.copies_running[index] += 1
        self.task_infos[info.task_id] = info
        self.attempts[index].append(info)
        self.running.add(info.task_id)
        self.sched.task_started(self, info)
        return info

    def launch_barrier_tasks(self, now: int) -> list[TaskDescription]:
        """Launch every held barrier task (all of them found a slot this round)."""
        launched = [
            TaskDescription.of(self._launch(p.index, p.executor_id, p.host, p.locality, False, now), self.name)
            for p in self.barrier_pending.values()
        ]
        self.barrier_pending.clear()
        return launched

    def revert_barrier_tasks(self) -> list[BarrierPendingLaunch]:
        """Give back every held barrier task (not all found a slot): each is queued again."""
        held = list(self.barrier_pending.values())
        self.barrier_pending.clear()
        for pending in held:
            self.add_pending_task(pending.index)
        return held

    def task_running(self, task_id: int) -> None:
        """The executor reported the attempt RUNNING: it is no longer ``launching``."""
        self.task_infos[task_id].launching = False

    # ---- speculation -------------------------------------------------------------------

    def mark_speculatable(self, index: int) -> bool:
        """Queue a speculative copy of task ``index`` (what ``checkSpeculatableTasks`` does for
        each task it picks); a task already marked is left alone. Returns whether it was
        marked."""
        if index in self.speculatable:
            return False
        if self.variant.per_locality_speculation:
            self.add_pending_task(index, speculative=True)
        self.speculatable.add(index)
        self.sched.speculative_task_submitted(self, index)
        return True

    def check_speculatable_tasks(self, min_time_to_speculation: int | None, now: int) -> bool:
        """``checkSpeculatableTasks``: once ``quantile`` of the tasks succeeded, mark every
        task whose single running copy has run longer than ``max(multiplier x median
        successful duration, min_time_to_speculation)`` (``None``: the configured
        ``spark.speculation.minTaskRuntime``). The median is the variant's
        :class:`SpeculationMedian`; the running attempts are walked in the order of Spark's
        ``runningTasksSet``. Never for a zombie, a barrier set or a one-task set.

        Spark 3.4+ also asks, when ``spark.speculation.efficiency.enabled`` (the default), that
        the task be inefficient; without records-read metrics (none here) every task is, so
        that check never holds a task back in this model."""
        if self.is_zombie or self.is_barrier or self.num_tasks == 1:
            return False
        speculation = self.conf.speculation
        min_finished = max(math.floor(speculation.quantile * self.num_tasks), 1)
        if len(self.successful_durations) < min_finished:
            return False
        median = self.variant.speculation_median.of(self.successful_durations)
        floor_ms = speculation.min_task_runtime_ms if min_time_to_speculation is None else min_time_to_speculation
        threshold = max(speculation.multiplier * median, floor_ms)
        found = False
        for task_id in list(self.running):
            info = self.task_infos[task_id]
            index = info.index
            if (
                not self.successful[index]
                and self.copies_running[index] == 1
                and now - info.launch_time > threshold
                and index not in self.speculatable
            ):
                found |= self.mark_speculatable(index)
        return found

    # ---- completion --------------------------------------------------------------------

    def handle_successful_task(self, task_id: int, now: int) -> None:
        """An attempt succeeded (semantics 5.8): first success of the index marks it done and
        clears its failures; other running copies are asked to stop; when every index is done
        the set becomes a zombie."""
        info = self.task_infos[task_id]
        if not info.running:
            return
        index = info.index
        if self.successful[index] and task_id in self.killed_by_other_attempt:
            self.handle_failed_task(task_id, TaskState.KILLED, TaskEndReason(EndReason.TASK_KILLED), now)
            return
        info.end_state, info.finish_time = TaskState.FINISHED, now
        if self.conf.speculation.enabled:
            self.successful_durations.append(now - info.launch_time)
        self.running.discard(task_id)
        for other in self.attempts[index]:
            if other.running:
                self.killed_by_other_attempt.add(other.task_id)
                self.sched.kill_task(self, other, "another attempt succeeded")
        if not self.successful[index]:
            self.tasks_successful += 1
            self.successful[index] = True
            self.num_failures[index] = 0
            if self.tasks_successful == self.num_tasks:
                self.is_zombie = True
        self.sched.task_ended(self, info, SUCCESS)
        self._maybe_finish()

    def handle_failed_task(self, task_id: int, state: TaskState, reason: TaskEndReason, now: int) -> None:
        """An attempt failed or was killed (semantics 5.8). A counted failure that reaches
        ``max_task_failures`` aborts the set; otherwise the task is queued again unless it
        already succeeded. A fetch failure marks the index done and the set a zombie; any
        failure of a barrier task makes the set a zombie."""
        info = self.task_infos[task_id]
        if info.failed or info.killed:
            return
        self.running.discard(task_id)
        info.end_state, info.finish_time = state, now
        index = info.index
        self.copies_running[index] -= 1
        if reason.kind is EndReason.FETCH_FAILED:
            if not self.successful[index]:
                self.successful[index] = True
                self.tasks_successful += 1
            self.is_zombie = True
        if self.is_barrier:
            self.is_zombie = True
        self.sched.task_ended(self, info, reason)
        if not self.is_zombie and reason.counts_towards_failures:
            self.num_failures[index] += 1
            if self.num_failures[index] >= self.max_task_failures:
                self.abort(
                    f"Task {index} in stage {self.name} failed {self.max_task_failures} times, "
                    f"most recent failure: {reason.kind.value}"
                )
                return
        if not self.successful[index]:
            self.add_pending_task(index)
        self._maybe_finish()

    def abort(self, message: str) -> None:
        """Fail the whole set."""
        self.sched.task_set_failed(self, message)
        self.is_zombie = True
        self._maybe_finish()

    def _maybe_finish(self) -> None:
        if self.is_zombie and not self.running:
            self.sched.task_set_finished(self)

    def executor_lost(self, executor_id: str, host: str, reason: ExecutorLossReason, now: int) -> None:
        """An executor is gone (semantics 5.7).

        For a shuffle-map set without an external shuffle service (or on decommission), every
        finished attempt on it is undone and its task queued again (reported as
        ``Resubmitted``; migrated map output is not modelled), except an attempt that was asked
        to stop because another one succeeded (SPARK-22074). Both walks go through the task
        infos in the order of Spark's ``taskInfos`` map, which decides the order in which the
        tasks are queued again. Every running attempt on it
        fails with ``ExecutorLostFailure``, counted only when the loss blames the application
        and (SPARK-39955) the attempt had reported RUNNING. Then the levels are recomputed.
        """
        output_lost = self.task_set.shuffle_map and (
            reason.kind is ExecutorLoss.DECOMMISSION or not self.conf.external_shuffle_service
        )
        if output_lost and not self.is_zombie:
            for info in list(self.task_infos.values()):
                index = info.index
                if (
                    info.executor_id == executor_id
                    and self.successful[index]
                    and not info.running
                    and info.task_id not in self.killed_by_other_attempt
                ):
                    self.successful[index] = False
                    self.copies_running[index] -= 1
                    self.tasks_successful -= 1
                    self.add_pending_task(index)
                    self.sched.task_ended(self, info, RESUBMITTED)
        for info in list(self.task_infos.values()):
            if info.running and info.executor_id == executor_id:
                blames = reason.blames_app and not (self.variant.launching_loss_not_counted and info.launching)
                failure = TaskEndReason(EndReason.EXECUTOR_LOST_FAILURE, exit_caused_by_app=blames)
                self.handle_failed_task(info.task_id, TaskState.FAILED, failure, now)
        self.recompute_locality()
