"""What must hold of Spark task dispatch (the design note's properties, ``docs/sources.md``: "a
Spark task runs at most once at a time and only at an allowed locality"; "every pending Spark
task is eventually launched"), over Spark's ``TaskSetManager`` and ``TaskSchedulerImpl``.

Style: every invariant is a function of the state it judges that returns a list of violation
messages, empty when the property holds. Messages name the task set (``stage.attempt``), the
task index and what is wrong, so a failing property test or an explorer trace can print them.

* :func:`running_copy_violations` - a task has at most one running attempt, plus at most one
  speculative copy.
* :func:`launch_violations` - a launched task's locality was allowed at that moment (no looser
  than the level delay scheduling allowed, capped by the offer; :func:`expect_offer` works
  that level out from the state before the offer) and is true of where it runs.
* :func:`delay_state_violations` - the offer moved the set's level index and wait timer
  exactly as semantics 5.4 and 5.5 say.
* :func:`level_array_violations` - the valid levels are strictly ordered best first, end with
  ``ANY``, and the current level index points inside them (SPARK-2931).
* :func:`level_liveness_violations` - the valid levels are exactly the levels with a live
  candidate. Spark establishes this whenever it recomputes them (construction, executor added,
  lost or decommissioned); between those events lazy clean-up may empty a level, so check it
  right after one.
* :func:`tasks_never_launched` - the progress check: a bounded fair schedule (every executor
  offers its free cores each round, the clock advances, every launched task finishes) after
  which no task of a schedulable set may still be waiting.

The invariants are also values of the specification's one property type
(:class:`~yarnspec.spec.property.Property`): :data:`TASK_SET_INVARIANTS` over a task set,
:data:`LEVELS_ARE_LIVE` over a :class:`TaskSetInCluster`, :data:`OFFER_PROPERTIES` over an
:class:`Offer`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from yarnspec.impl.spark.locality import (
    ExecutorCacheTaskLocation,
    HDFSCacheTaskLocation,
    TaskLocality,
)
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.task_set_manager import SchedulerView, TaskSetManager
from yarnspec.impl.spark.taskset.tasks import OfferResult, TaskDescription
from yarnspec.spec.property import Property

ANY = TaskLocality.ANY


def running_copy_violations(manager: TaskSetManager) -> list[str]:
    """At most one regular attempt of a task runs at a time; a second running attempt is
    allowed only as its single speculative copy."""
    found = []
    for index in range(manager.num_tasks):
        running = manager.running_attempts(index)
        regular = [info for info in running if not info.speculative]
        if len(regular) > 1 or len(running) > 2 or (len(running) == 2 and len(regular) != 1):
            ids = [(info.task_id, "speculative" if info.speculative else "regular") for info in running]
            found.append(f"task {index} of stage {manager.name} has {len(running)} running attempts {ids}")
    return found


def _truthful(manager: TaskSetManager, sched: SchedulerView, task: TaskDescription) -> bool:
    """Whether the reported locality is true of the task's preferences and where it runs."""
    prefs = manager.task_set.preferences[task.index]
    locality = task.locality
    if locality is TaskLocality.PROCESS_LOCAL:
        if not prefs:
            return True  # Spark reports a no-preference task as PROCESS_LOCAL (semantics 7.1)
        return any(
            (isinstance(p, ExecutorCacheTaskLocation) and p.executor_id == task.executor_id)
            or (isinstance(p, HDFSCacheTaskLocation) and p.host == task.host)
            for p in prefs
        )
    if locality is TaskLocality.NODE_LOCAL:
        return any(p.host == task.host for p in prefs)
    if locality is TaskLocality.RACK_LOCAL:
        rack = sched.rack_for_host(task.host)
        return rack is not None and any(sched.rack_for_host(p.host) == rack for p in prefs)
    return locality is ANY


def _has_runnable(manager: TaskSetManager, stacks: Iterable[list[int]]) -> bool:
    return any(manager.copies_running[i] == 0 and not manager.successful[i] for stack in stacks for i in stack)


@dataclass(frozen=True)
class OfferExpectation:
    """What semantics 5.4-5.5 say one offer does to a set's delay state, worked out before
    the offer: the level it may launch at (``allowed``, already capped by the offer), and the
    level index and timer it leaves behind unless a legacy reset follows a launch."""

    allowed: TaskLocality
    index: int
    last_reset: int


def expect_offer(
    manager: TaskSetManager, executor_id: str, host: str, max_locality: TaskLocality, now: int
) -> OfferExpectation:
    """Semantics 5.4-5.5 restated without touching the manager (whose own walk cleans lists
    as it goes).

    A zombie set, an offer excluded for the set, or a ``NO_PREF`` cap leaves the delay state
    alone. Otherwise, from the current level: a level with no runnable task is passed at once
    (SPARK-4939, when the variant has it) and restarts the timer at ``now``; a level whose wait
    has run out since the last reset is passed and the timer advances by exactly that wait; the
    first level with tasks and time left is the answer; ``ANY`` ends the walk. ``NO_PREF`` has
    tasks while its list is non-empty, stale entries included, as in Spark.
    """
    index, last_reset = manager.current_index, manager.last_reset
    untouched = (
        manager.is_zombie
        or host in manager.excluded_nodes
        or executor_id in manager.excluded_executors
        or max_locality == TaskLocality.NO_PREF
    )
    if untouched:
        return OfferExpectation(max_locality, index, last_reset)
    pending, levels, waits = manager.pending, manager.levels, manager.waits
    while index < len(levels) - 1:
        level = levels[index]
        if level is TaskLocality.PROCESS_LOCAL:
            has_tasks = _has_runnable(manager, pending.for_executor.values())
        elif level is TaskLocality.NODE_LOCAL:
            has_tasks = _has_runnable(manager, pending.for_host.values())
        elif level is TaskLocality.NO_PREF:
            has_tasks = bool(pending.no_prefs)
        else:
            has_tasks = _has_runnable(manager, pending.for_rack.values())
        if manager.variant.skip_levels_without_tasks and not has_tasks:
            index, last_reset = index + 1, now
        elif now - last_reset >= waits[index]:
            index, last_reset = index + 1, last_reset + waits[index]
        else:
            break
    return OfferExpectation(min(levels[index], max_locality), index, last_reset)


def delay_state_violations(
    manager: TaskSetManager, expected: OfferExpectation, max_locality: TaskLocality, result: OfferResult, now: int
) -> list[str]:
    """After one offer the set's level index and timer are what :func:`expect_offer` said,
    except that in legacy mode a launch from an offer not capped at ``NO_PREF`` restarts the
    timer at ``now`` at the first valid level at or after the launched locality (semantics 5.5
    step 5)."""
    index, last_reset = expected.index, expected.last_reset
    launched = result.locality
    if launched is not None and manager.variant.legacy_reset_on_task_launch and max_locality != TaskLocality.NO_PREF:
        index = next(i for i, level in enumerate(manager.levels) if level >= launched)
        last_reset = now
    if (manager.current_index, manager.last_reset) == (index, last_reset):
        return []
    return [
        f"stage {manager.name}: after an offer capped at {max_locality.name} at {now} ms the delay state is "
        f"(level index {manager.current_index}, timer {manager.last_reset}), expected ({index}, {last_reset})"
    ]


def launch_violations(
    manager: TaskSetManager,
    sched: SchedulerView,
    result: OfferResult,
    max_locality: TaskLocality,
    allowed: TaskLocality,
) -> list[str]:
    """A launch (or held barrier task) from one offer was allowed at that moment.

    ``allowed`` is what delay scheduling allowed just before the offer
    (:attr:`OfferExpectation.allowed`; for a ``NO_PREF`` cap, which bypasses delay scheduling,
    the cap itself). The reported locality must be no
    looser than ``min(allowed, max_locality)`` and must be true of the placement: the task
    prefers that executor (or has HDFS-cached data on its host) for ``PROCESS_LOCAL`` - or has
    no preference at all, which Spark reports as ``PROCESS_LOCAL`` -, that host for
    ``NODE_LOCAL``, a host on the same rack for ``RACK_LOCAL``.
    """
    if result.task is None and result.barrier_pending is None:
        return []
    if result.task is not None:
        task = result.task
    else:
        held = result.barrier_pending
        assert held is not None
        task = TaskDescription(-1, held.index, 0, held.executor_id, held.host, held.locality, False, manager.name)
    found = []
    bound = max_locality if max_locality is TaskLocality.NO_PREF else min(allowed, max_locality)
    if task.locality > bound:
        found.append(
            f"task {task.index} of stage {manager.name} launched {task.locality.name} on {task.executor_id} "
            f"but only {bound.name} was allowed (cap {max_locality.name}, delay level {allowed.name})"
        )
    if not _truthful(manager, sched, task):
        found.append(
            f"task {task.index} of stage {manager.name} reported {task.locality.name} on "
            f"{task.executor_id}@{task.host}, which its preferences do not support"
        )
    return found


def level_array_violations(manager: TaskSetManager) -> list[str]:
    """The valid levels are strictly ascending (best first), end with ``ANY``, have one wait
    each, and the current index lies inside them."""
    levels = manager.levels
    found = []
    if not levels or levels[-1] is not ANY:
        found.append(f"stage {manager.name}: valid levels {[lvl.name for lvl in levels]} do not end with ANY")
    if any(a >= b for a, b in zip(levels, levels[1:])):
        found.append(f"stage {manager.name}: valid levels {[lvl.name for lvl in levels]} are not strictly ordered")
    if len(manager.waits) != len(levels):
        found.append(f"stage {manager.name}: {len(manager.waits)} waits for {len(levels)} levels")
    if not 0 <= manager.current_index < len(levels):
        found.append(f"stage {manager.name}: current level index {manager.current_index} outside {len(levels)} levels")
    return found


def live_levels(manager: TaskSetManager, sched: SchedulerView) -> list[TaskLocality]:
    """The levels that have a live candidate in the manager's pending lists (semantics 5.2):
    a live preferred executor, a preferred host with a live executor, a no-preference task, a
    live rack of a preferred host; then ``ANY``."""
    pending = manager.pending
    live = []
    if any(sched.is_executor_alive(e) for e in pending.for_executor):
        live.append(TaskLocality.PROCESS_LOCAL)
    if any(sched.has_executors_alive_on_host(h) for h in pending.for_host):
        live.append(TaskLocality.NODE_LOCAL)
    if pending.no_prefs:
        live.append(TaskLocality.NO_PREF)
    if any(sched.has_host_alive_on_rack(r) for r in pending.for_rack):
        live.append(TaskLocality.RACK_LOCAL)
    live.append(ANY)
    return live


def level_liveness_violations(manager: TaskSetManager, sched: SchedulerView) -> list[str]:
    """Right after a recomputation the valid levels are exactly :func:`live_levels`: each
    level has a live candidate and none with one is missing (a zombie set keeps its old
    levels, as Spark's does)."""
    if manager.is_zombie:
        return []
    expected = live_levels(manager, sched)
    if list(manager.levels) == expected:
        return []
    return [
        f"stage {manager.name}: valid levels {[lvl.name for lvl in manager.levels]}, "
        f"but the levels with live candidates are {[lvl.name for lvl in expected]}"
    ]


def default_round_bound(sched: TaskSchedulerImpl, offers: Sequence[WorkerOffer], tick_ms: int) -> int:
    """A generous number of rounds for :func:`tasks_never_launched`: per batch of tasks that
    fits the slots, enough ticks to exhaust every level's wait, plus slack."""
    slots = sum(offer.cores // sched.conf.task_cpus for offer in offers)
    tasks = sum(manager.num_tasks for manager in sched.pool)
    waits = sched.conf.waits
    ticks_per_chain = math.ceil(max(0, waits.process_ms + waits.node_ms + waits.rack_ms) / max(1, tick_ms)) + 2
    batches = math.ceil(tasks / max(1, slots)) + 1
    return batches * ticks_per_chain + len(sched.pool) + 2


def tasks_never_launched(
    sched: TaskSchedulerImpl,
    executors: Sequence[WorkerOffer],
    now: int,
    tick_ms: int,
    rounds: int | None = None,
) -> list[str]:
    """Run a bounded fair schedule on ``sched`` (which it changes) and report the tasks of
    every set still in its pool that never launched.

    Each round: every running attempt finishes successfully; every executor of ``executors``
    offers its cores in one full offer round (order from the scheduler's seeded shuffle);
    then the clock advances by ``tick_ms``. ``rounds`` defaults to
    :func:`default_round_bound`. A barrier set larger than all slots together can never
    launch; it is reported like any other waiting task.
    """
    total_rounds = rounds if rounds is not None else default_round_bound(sched, executors, tick_ms)
    waiting = [manager for manager in sched.pool if not manager.is_zombie]
    for _ in range(total_rounds):
        for manager in list(sched.pool):
            for task_id in list(manager.running):
                sched.task_succeeded(task_id, now)
        sched.resource_offers(executors, now, is_all_free_resources=True)
        now += tick_ms
    found = []
    for manager in waiting:
        for index in range(manager.num_tasks):
            if not manager.attempts[index]:
                found.append(
                    f"task {index} of stage {manager.name} never launched in {total_rounds} rounds "
                    f"(valid levels {[lvl.name for lvl in manager.levels]}, "
                    f"current {manager.levels[manager.current_index].name})"
                )
    return found


@dataclass(frozen=True)
class TaskSetInCluster:
    """A task set and the scheduler's view of the cluster it is judged against."""

    manager: TaskSetManager
    sched: SchedulerView


@dataclass(frozen=True)
class Offer:
    """One offer to a task set: the set after it, the cluster view, what it launched, its cap,
    what :func:`expect_offer` said before it, and the time it was made."""

    manager: TaskSetManager
    sched: SchedulerView
    result: OfferResult
    max_locality: TaskLocality
    expected: OfferExpectation
    now: int


def _liveness(subject: TaskSetInCluster) -> list[str]:
    return level_liveness_violations(subject.manager, subject.sched)


def _launch(offer: Offer) -> list[str]:
    return launch_violations(offer.manager, offer.sched, offer.result, offer.max_locality, offer.expected.allowed)


def _delay_state(offer: Offer) -> list[str]:
    return delay_state_violations(offer.manager, offer.expected, offer.max_locality, offer.result, offer.now)


#: The invariants of a task set in every state, as values of the specification's one property
#: type (:class:`~yarnspec.spec.property.Property`); the functions above are their predicates.
TASK_SET_INVARIANTS: tuple[Property[TaskSetManager, list[str]], ...] = (
    Property(
        "running_copy_violations",
        "a task has at most one running regular attempt, plus at most one speculative copy",
        "semantics 5.9; DESIGN.md (a Spark task runs at most once at a time)",
        running_copy_violations,
    ),
    Property(
        "level_array_violations",
        "the valid levels are strictly ordered best first, end with ANY, have one wait each, and the current index lies inside them",
        "semantics 5.2, 5.3; SPARK-2931",
        level_array_violations,
    ),
)

#: Right after the valid levels are recomputed, they are the levels with a live candidate.
LEVELS_ARE_LIVE: Property[TaskSetInCluster, list[str]] = Property(
    "level_liveness_violations",
    "right after a recomputation the valid levels are exactly the levels with a live candidate",
    "semantics 5.2, 5.7",
    _liveness,
)

#: What every offer to a task set must respect.
OFFER_PROPERTIES: tuple[Property[Offer, list[str]], ...] = (
    Property(
        "launch_violations",
        "a launched task's locality is no looser than delay scheduling allowed (capped by the offer) and true of where it runs",
        "semantics 5.4, 5.5; DESIGN.md (only at an allowed locality)",
        _launch,
    ),
    Property(
        "delay_state_violations",
        "an offer leaves the set's level index and wait timer where semantics 5.4-5.5 say",
        "semantics 5.4, 5.5, 5.6",
        _delay_state,
    ),
)
