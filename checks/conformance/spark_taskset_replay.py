"""Replaying a ``kind: taskset`` case's steps on the model: the public replay API that the
runner (:mod:`yarnspec.checks.conformance.spark_taskset`) and the ``spark-dispatch`` reference
adapter (:mod:`yarnspec.checks.validate.reference`) share.

:func:`start_replay` builds the scheduler of a case's ``input`` (:class:`ReplayState`);
:meth:`TaskSetReplay.run_step` runs one step's op (:data:`OPS`, one ``op_*`` method each) and
returns what it gave back (:class:`StepOutcome`); :meth:`TaskSetReplay.compare` checks the
step's expectations (:mod:`yarnspec.checks.conformance.spark_taskset_expectations`).
"""

from __future__ import annotations

import copy
import itertools
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    child,
    is_explanatory,
    reject_unknown_keys,
    required,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.checks.conformance.spark_taskset_case import (
    EXCLUDE_ON_FAILURE,
    FAKE_SCHEDULER,
    CaseInput,
    CaseStep,
    StepArgs,
    parse_task_set,
    read_end_reason,
    read_location,
    read_loss_reason,
)
from yarnspec.checks.conformance.spark_taskset_expectations import EXPECTATIONS, StepView
from yarnspec.impl.spark.locality import TaskLocation
from yarnspec.impl.spark.task_scheduler import OfferRound, RackResolutionCalls, TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import OfferResult, TaskSet, TaskState

#: Offers up to this many are tried in every order; more get a fixed number of seeded shuffles.
MAX_PERMUTED_OFFERS = 6
SEEDED_SHUFFLES = 48


@dataclass
class ReplayState:
    """Everything a step can change: the scheduler (which owns the managers), the manager the
    manager-level ops act on, and the clock."""

    sched: TaskSchedulerImpl
    manager: TaskSetManager | None
    now: int
    pending_task_set: TaskSet | None = None


@dataclass
class StepOutcome:
    """What one step returned, for the expectations that ask about it."""

    offer: OfferResult | None = None
    offer_round: OfferRound | None = None
    returned: bool | None = None
    location: TaskLocation | None = None


@dataclass
class TaskSetReplay:
    """One case being replayed: its input, whether its lists compare as sequences, the state
    the steps change, and the warnings collected so far."""

    case_input: CaseInput
    order_sensitive: bool
    state: ReplayState
    warnings: list[str] = field(default_factory=list)

    # ---- helpers -----------------------------------------------------------------------

    def manager(self, step: CaseStep) -> TaskSetManager:
        """The task set manager the manager-level ops act on (a format error when none exists)."""
        if self.state.manager is None:
            raise CaseFormatError(child(step.place, "op"), f"{step.op!r} needs a task set, and none exists yet")
        return self.state.manager

    def _task_id(self, args: StepArgs, manager: TaskSetManager) -> int:
        task_id = args.integer("task_id", minimum=0)
        if task_id not in manager.task_infos:
            raise CaseFormatError(
                child(args.place, "task_id"), f"no task with id {task_id} was launched by this task set"
            )
        return task_id

    def _no_exclusion_model(self, step: CaseStep) -> None:
        if self.case_input.exclude_on_failure:
            raise Unsupported(
                f"{child(step.place, 'op')}: failures with {EXCLUDE_ON_FAILURE}=true would exclude executors "
                "and nodes, which this model does not do"
            )

    # ---- ops ---------------------------------------------------------------------------

    def run_step(self, step: CaseStep) -> StepOutcome:
        """Run ``step``'s op (unknown ops and misplaced ``conditions`` are :class:`Unsupported`)."""
        handler = OPS.get(step.op)
        if handler is None:
            raise Unsupported(f"{child(step.place, 'op')}: unknown op {step.op!r}")
        if step.conditions and step.op != "resource_offer":
            raise Unsupported(f"{child(step.place, 'conditions')}: conditions are read only on resource_offer")
        return handler(self, step)

    def op_resource_offer(self, step: CaseStep) -> StepOutcome:
        """``resourceOffer(exec_id, host, max_locality)`` on the manager; ``conditions`` exclude the
        node or executor for this offer only."""
        args = StepArgs(step, ("exec_id", "host", "max_locality"))
        manager = self.manager(step)
        executor_id, host, cap = args.text("exec_id"), args.text("host"), args.level("max_locality")
        reject_unknown_keys(
            step.conditions,
            ("node_excluded_for_task_set", "executor_excluded_for_task_set"),
            child(step.place, "conditions"),
        )
        node_out = as_bool(
            step.conditions.get("node_excluded_for_task_set", False),
            child(step.place, "conditions.node_excluded_for_task_set"),
        )
        exec_out = as_bool(
            step.conditions.get("executor_excluded_for_task_set", False),
            child(step.place, "conditions.executor_excluded_for_task_set"),
        )
        # The condition holds for this offer only, as Spark's mocked exclude list did.
        saved = (set(manager.excluded_nodes), set(manager.excluded_executors))
        if node_out:
            manager.excluded_nodes.add(host)
        if exec_out:
            manager.excluded_executors.add(executor_id)
        try:
            result = manager.resource_offer(executor_id, host, cap, self.state.now)
        finally:
            manager.excluded_nodes, manager.excluded_executors = saved
        return StepOutcome(offer=result)

    def op_advance_clock(self, step: CaseStep) -> StepOutcome:
        """Move the logical clock ``ms`` forward."""
        args = StepArgs(step, ("ms",))
        self.state.now += args.integer("ms", minimum=0)
        return StepOutcome()

    def op_check(self, step: CaseStep) -> StepOutcome:
        """Nothing: a step that only checks expectations."""
        StepArgs(step, ())
        return StepOutcome()

    def op_set_zombie(self, step: CaseStep) -> StepOutcome:
        """Set the manager's ``isZombie``."""
        args = StepArgs(step, ("value",))
        self.manager(step).is_zombie = args.flag("value")
        return StepOutcome()

    def op_handle_successful_task(self, step: CaseStep) -> StepOutcome:
        """``handleSuccessfulTask(task_id)``."""
        args = StepArgs(step, ("task_id",))
        manager = self.manager(step)
        manager.handle_successful_task(self._task_id(args, manager), self.state.now)
        return StepOutcome()

    def op_handle_failed_task(self, step: CaseStep) -> StepOutcome:
        """``handleFailedTask(task_id, state, reason)`` (a counted failure with exclusion on is unsupported)."""
        args = StepArgs(step, ("task_id", "state", "reason"))
        manager = self.manager(step)
        task_id = self._task_id(args, manager)
        state_name = args.text("state") if "state" in step.args else "FAILED"
        try:
            state = TaskState(state_name)
        except ValueError:
            valid = ", ".join(s.value for s in TaskState)
            raise CaseFormatError(
                child(args.place, "state"), f"unknown task state {state_name!r} (valid: {valid})"
            ) from None
        reason = read_end_reason(args.raw("reason"), child(args.place, "reason"))
        if reason.counts_towards_failures:
            self._no_exclusion_model(step)
        manager.handle_failed_task(task_id, state, reason, self.state.now)
        return StepOutcome()

    def op_scheduler_add_executor(self, step: CaseStep) -> StepOutcome:
        """Register an executor with the scheduler."""
        args = StepArgs(step, ("exec_id", "host"))
        self.state.sched.add_executor(args.text("exec_id"), args.text("host"))
        return StepOutcome()

    def op_scheduler_remove_executor(self, step: CaseStep) -> StepOutcome:
        """Remove a registered executor from the scheduler."""
        args = StepArgs(step, ("exec_id",))
        executor_id = args.text("exec_id")
        if self.state.sched.remove_executor(executor_id) is None:
            raise CaseFormatError(child(args.place, "exec_id"), f"executor {executor_id!r} is not registered")
        return StepOutcome()

    def op_scheduler_decommission_executor(self, step: CaseStep) -> StepOutcome:
        """``executorDecommission(exec_id)``, optionally with the worker host."""
        args = StepArgs(step, ("exec_id", "worker_host"))
        worker = step.args.get("worker_host")
        if worker is not None:
            as_str(worker, child(args.place, "worker_host"))
        self.state.sched.executor_decommission(args.text("exec_id"), worker)
        return StepOutcome()

    def op_scheduler_executor_lost(self, step: CaseStep) -> StepOutcome:
        """``executorLost(exec_id, reason)`` on the scheduler."""
        args = StepArgs(step, ("exec_id", "reason"))
        reason = read_loss_reason(args.raw("reason"), child(args.place, "reason"))
        self.state.sched.executor_lost(args.text("exec_id"), reason, self.state.now)
        return StepOutcome()

    def op_manager_executor_added(self, step: CaseStep) -> StepOutcome:
        """``executorAdded()`` on the manager."""
        StepArgs(step, ())
        self.manager(step).executor_added()
        return StepOutcome()

    def op_manager_executor_lost(self, step: CaseStep) -> StepOutcome:
        """``executorLost(exec_id, host, reason)`` on the manager."""
        args = StepArgs(step, ("exec_id", "host", "reason"))
        reason = read_loss_reason(args.raw("reason"), child(args.place, "reason"))
        self.manager(step).executor_lost(args.text("exec_id"), args.text("host"), reason, self.state.now)
        return StepOutcome()

    def op_mark_running_tasks_launched(self, step: CaseStep) -> StepOutcome:
        """Every running attempt reports RUNNING (it is no longer launching)."""
        StepArgs(step, ())
        manager = self.manager(step)
        for task_id in manager.running:
            manager.task_running(task_id)
        return StepOutcome()

    def op_mark_speculatable(self, step: CaseStep) -> StepOutcome:
        """Mark the listed task indices speculatable."""
        args = StepArgs(step, ("task_indices",))
        manager = self.manager(step)
        place = child(args.place, "task_indices")
        for i, raw in enumerate(as_list(args.raw("task_indices"), place)):
            index = as_int(raw, child(place, i), minimum=0)
            if index >= manager.num_tasks:
                raise CaseFormatError(
                    child(place, i), f"task index {index} out of range (the set has {manager.num_tasks} tasks)"
                )
            manager.mark_speculatable(index)
        return StepOutcome()

    def op_check_speculatable_tasks(self, step: CaseStep) -> StepOutcome:
        """``checkSpeculatableTasks(min_time_to_speculation)``; its answer is the outcome's ``returned``."""
        args = StepArgs(step, ("min_time_to_speculation_ms",))
        found = self.manager(step).check_speculatable_tasks(
            args.integer("min_time_to_speculation_ms", minimum=0), self.state.now
        )
        return StepOutcome(returned=found)

    def op_parse_task_location(self, step: CaseStep) -> StepOutcome:
        """Parse one location string (the outcome's ``location``)."""
        args = StepArgs(step, ("location",))
        return StepOutcome(location=read_location(args.text("location"), child(args.place, "location")))

    def op_submit_task_set(self, step: CaseStep) -> StepOutcome:
        """``submitTasks``: the task set in ``args``, or the input's when ``args`` is empty."""
        if step.args:
            task_set = parse_task_set(step.args, child(step.place, "args"))
        elif self.state.pending_task_set is not None:
            task_set = self.state.pending_task_set
            self.state.pending_task_set = None
        else:
            raise CaseFormatError(child(step.place, "args"), "no task set given here and none left in input.task_set")
        self.state.manager = self.state.sched.submit_tasks(task_set, self.state.now)
        return StepOutcome()

    def op_scheduler_resource_offers(self, step: CaseStep) -> StepOutcome:
        """``resourceOffers(offers)``; with ``shuffle: random`` the step's expectations are first
        checked for every other offer order."""
        args = StepArgs(step, ("offers", "is_all_free_resources", "shuffle"))
        place = child(args.place, "offers")
        offers = []
        for i, raw in enumerate(as_list(args.raw("offers"), place)):
            offer_place = child(place, i)
            obj = as_object(raw, offer_place)
            reject_unknown_keys(obj, ("exec_id", "host", "cores"), offer_place)
            offers.append(
                WorkerOffer(
                    as_str(required(obj, "exec_id", offer_place), child(offer_place, "exec_id")),
                    as_str(required(obj, "host", offer_place), child(offer_place, "host")),
                    as_int(required(obj, "cores", offer_place), child(offer_place, "cores"), minimum=0),
                )
            )
        full = args.flag("is_all_free_resources", default=True)
        shuffle = args.text("shuffle") if "shuffle" in step.args else "none"
        if shuffle not in ("none", "random"):
            raise CaseFormatError(child(args.place, "shuffle"), f"unknown shuffle {shuffle!r} (valid: none, random)")
        if shuffle == "random":
            for order in _orders(len(offers))[1:]:
                trial = copy.deepcopy(self.state)
                result = trial.sched.resource_offers(offers, trial.now, full, order=order)
                label = f"offer order {[offers[i].executor_id for i in order]}"
                self.compare(step, StepOutcome(offer_round=result), trial, label)
        result = self.state.sched.resource_offers(offers, self.state.now, full, order=range(len(offers)))
        return StepOutcome(offer_round=result)

    # ---- expectations ------------------------------------------------------------------

    def compare(self, step: CaseStep, outcome: StepOutcome, state: ReplayState | None = None, label: str = "") -> None:
        """Check every expectation of ``step``; derived ones only warn."""
        view = StepView(state or self.state, outcome, step, self.case_input, self.order_sensitive)
        expect_place = child(step.place, "expect")
        for key, expected in step.expect.items():
            place = child(expect_place, key)
            if key == "derived":
                self._compare_derived(view, as_object(expected, place), place)
                continue
            if is_explanatory(key):
                continue
            spec = EXPECTATIONS.get(key)
            if spec is None:
                raise Unsupported(f"{place}: expectation {key!r} is not read by this runner")
            spec(view, expected, place, label)

    def _compare_derived(self, view: StepView, derived: Mapping[str, Any], place: str) -> None:
        for key, expected in derived.items():
            key_place = child(place, key)
            spec = EXPECTATIONS.get(key)
            if spec is None:
                self.warnings.append(f"{key_place}: explanatory value not checked (no such observation)")
                continue
            try:
                spec(view, expected, key_place, "")
            except ExpectationMismatch as exc:
                self.warnings.append(f"{exc} (explanatory, not asserted upstream)")
            except (CaseFormatError, Unsupported) as exc:
                self.warnings.append(f"{key_place}: explanatory value not checked ({exc})")


def _orders(n: int) -> list[list[int]]:
    """The identity first, then every other permutation (small n) or seeded shuffles."""
    identity = list(range(n))
    if n <= MAX_PERMUTED_OFFERS:
        return [list(p) for p in itertools.permutations(identity)]
    rng = random.Random(0)
    orders = [identity]
    for _ in range(SEEDED_SHUFFLES):
        order = list(identity)
        rng.shuffle(order)
        orders.append(order)
    return orders


#: Every step op by name: the ``op_*`` methods of :class:`TaskSetReplay`.
OPS: dict[str, Callable[[TaskSetReplay, CaseStep], StepOutcome]] = {
    name[3:]: getattr(TaskSetReplay, name) for name in dir(TaskSetReplay) if name.startswith("op_")
}


def start_replay(case_input: CaseInput, order_sensitive: bool = True, creates_by_submit: bool = False) -> TaskSetReplay:
    """A replay of a case with ``case_input``: a fresh scheduler (Spark's test scheduler or the
    real one) at ``clock_start_ms`` with the input's executors, offers never shuffled. The
    input's task set becomes the manager at once, or, when ``creates_by_submit`` (a step
    ``submit_task_set`` without args), waits for that step. ``order_sensitive`` says whether
    list expectations compare as sequences."""
    sched = TaskSchedulerImpl(
        case_input.conf,
        case_input.racks,
        test_liveness=case_input.scheduler == FAKE_SCHEDULER,
        shuffle_offers=False,
    )
    for executor_id, host in case_input.executors:
        sched.add_executor(executor_id, host)
    # Spark's rack-resolution test resets its counters once the scheduler is built.
    sched.rack_calls = RackResolutionCalls()
    now = case_input.clock_start_ms
    state = ReplayState(sched=sched, manager=None, now=now)
    if case_input.task_set is not None:
        if creates_by_submit:
            state.pending_task_set = case_input.task_set
        else:
            state.manager = sched.create_manager(case_input.task_set, now)
    return TaskSetReplay(case_input, order_sensitive, state)


__all__ = [
    "MAX_PERMUTED_OFFERS",
    "OPS",
    "SEEDED_SHUFFLES",
    "ReplayState",
    "StepOutcome",
    "TaskSetReplay",
    "start_replay",
]
