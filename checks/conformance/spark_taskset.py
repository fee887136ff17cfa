"""Runner for ``kind: taskset`` cases: Spark's TaskSetManagerSuite and TaskSchedulerImplSuite
replayed against :mod:`yarnspec.impl.spark.taskset` and :mod:`yarnspec.impl.spark.task_scheduler`.

A case builds a scheduler (Spark's test scheduler ``FakeTaskScheduler`` or the real
``TaskSchedulerImpl``), optionally a task set manager from ``input.task_set``, and replays
``steps[]`` of ``{op, args, expect}`` on a logical clock. After each step every key of its
``expect`` is compared with the model; the first difference is a FAIL naming its JSON place.

* Keys under ``derived`` and explanatory keys (``*_note``, ``notes``, ``comment``, ``note``,
  ``spark_derivation``, ``skipped_assertion``) never decide the verdict; a mismatch on a
  ``derived`` key, and every skipped upstream assertion, come back as warnings.
* ``task_defined: true`` only asks that the offer returned a task.
* ``order_sensitive: false`` compares lists as multisets (``started_task_indices``, which
  Spark turns into a set, as a set); ``true`` compares sequences.
* ``shuffle: "random"`` on an offer round means the expectation must hold for every order of
  the offers: the round is replayed from the same state in every order (all permutations up
  to 6 offers, else 48 seeded shuffles) and the case continues from the given order.
* An op, argument, condition, configuration key or expectation key this runner does not
  read is UNSUPPORTED with its place; a malformed value is a FAIL naming the place.

Every op and expectation key the runner reads is listed in ``docs/spark-dispatch.md``
("Conformance cases").
"""

from __future__ import annotations

import copy
import itertools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import (
    TaskLocality,
    TaskLocation,
    parse_task_location,
    task_location_from_fields,
)
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import OfferRound, RackResolutionCalls, TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset import (
    DEFAULT_VARIANT,
    VARIANTS,
    DispatchConf,
    EndReason,
    ExecutorLoss,
    ExecutorLossReason,
    OfferResult,
    TaskEndReason,
    TaskSet,
    TaskSetManager,
    TaskState,
    parse_flag,
)

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
    whole_number_text,
    require_step_assertions,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported

_T = TypeVar("_T")

FAKE_SCHEDULER = "FakeTaskScheduler"
REAL_SCHEDULER = "TaskSchedulerImpl"
EXCLUDE_ON_FAILURE = "spark.excludeOnFailure.enabled"

#: Step keys that explain but are not read; ``skipped_assertion`` is also reported as a warning.
STEP_PROSE_KEYS = frozenset({"note", "spark_derivation", "skipped_assertion"})

#: Offers up to this many are tried in every order; more get a fixed number of seeded shuffles.
MAX_PERMUTED_OFFERS = 6
SEEDED_SHUFFLES = 48


def _converted(call: Callable[[], _T]) -> _T:
    """Run an impl parser; its :class:`InputError` becomes a :class:`CaseFormatError`."""
    try:
        return call()
    except InputError as exc:
        raise CaseFormatError(exc.place, exc.fault) from None


# --------------------------------------------------------------------------------------------
# Parsing the case
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseInput:
    """The ``input`` of a taskset case."""

    scheduler: str
    executors: tuple[tuple[str, str], ...]
    racks: RackResolver
    task_set: TaskSet | None
    conf: DispatchConf
    exclude_on_failure: bool
    clock_start_ms: int
    #: ``input.parse``: the locations parsed from their string forms.
    parsed: tuple[TaskLocation, ...] = ()


@dataclass(frozen=True)
class CaseStep:
    """One step: ``op`` with its raw ``args``, ``expect`` and ``conditions``, and its place."""

    place: str
    op: str
    args: Mapping[str, Any]
    expect: Mapping[str, Any]
    conditions: Mapping[str, Any]
    skipped_assertion: str | None


def _level(value: Any, place: str) -> TaskLocality:
    return _converted(lambda: TaskLocality.parse(as_str(value, place), place, source=""))


def _location(value: Any, place: str) -> TaskLocation:
    if isinstance(value, str):
        return _converted(lambda: parse_task_location(value, place))
    return _converted(lambda: task_location_from_fields(as_object(value, place), place))


def parse_task_set(raw: Any, place: str) -> TaskSet:
    """A task set object: ``stage_id``, ``stage_attempt_id``, ``priority``, ``tasks`` (one
    preference list per task, each location an object or Spark's string form), optional
    ``barrier`` and ``shuffle_map``."""
    obj = as_object(raw, place)
    reject_unknown_keys(obj, ("stage_id", "stage_attempt_id", "priority", "tasks", "barrier", "shuffle_map"), place)
    tasks_place = child(place, "tasks")
    tasks = as_list(required(obj, "tasks", place), tasks_place)
    preferences = []
    for i, prefs in enumerate(tasks):
        prefs_place = child(tasks_place, i)
        preferences.append(
            tuple(_location(loc, child(prefs_place, j)) for j, loc in enumerate(as_list(prefs, prefs_place)))
        )
    return TaskSet(
        stage_id=as_int(obj.get("stage_id", 0), child(place, "stage_id"), minimum=0),
        stage_attempt_id=as_int(obj.get("stage_attempt_id", 0), child(place, "stage_attempt_id"), minimum=0),
        priority=as_int(obj.get("priority", 0), child(place, "priority")),
        preferences=tuple(preferences),
        barrier=as_bool(obj.get("barrier", False), child(place, "barrier")),
        shuffle_map=as_bool(obj.get("shuffle_map", False), child(place, "shuffle_map")),
    )


def _conf_place(key: str) -> str:
    return f'input.conf["{key}"]'


#: The keys of a taskset case's ``input`` (``variant`` is ours: a name from ``VARIANTS``).
INPUT_KEYS = (
    "scheduler",
    "scheduling_mode",
    "executors",
    "host_rack",
    "task_set",
    "conf",
    "max_task_failures",
    "clock_start_ms",
    "created_by",
    "variant",
    "parse",
)


def parse_input(raw: Any) -> CaseInput:
    """The case's ``input`` object."""
    place = "input"
    obj = as_object(raw, place)
    reject_unknown_keys(obj, INPUT_KEYS, place)
    scheduler = as_str(required(obj, "scheduler", place), "input.scheduler")
    if scheduler not in (FAKE_SCHEDULER, REAL_SCHEDULER):
        raise CaseFormatError("input.scheduler", f"unknown scheduler {scheduler!r} (valid: {FAKE_SCHEDULER}, {REAL_SCHEDULER})")
    # FAIR mode without an allocation file or pool properties (a case has neither) puts every
    # task set in Spark's "default" pool, whose own mode is FIFO: the same order as FIFO.
    mode = as_str(obj.get("scheduling_mode", "FIFO"), "input.scheduling_mode")
    if mode not in ("FIFO", "FAIR"):
        raise CaseFormatError("input.scheduling_mode", f"unknown scheduling mode {mode!r} (valid: FIFO, FAIR)")
    executors = []
    for i, pair in enumerate(as_list(obj.get("executors", []), "input.executors")):
        pair_place = f"input.executors[{i}]"
        items = as_list(pair, pair_place)
        if len(items) != 2:
            raise CaseFormatError(pair_place, f"expected [executor id, host], found {len(items)} items")
        executors.append((as_str(items[0], f"{pair_place}[0]"), as_str(items[1], f"{pair_place}[1]")))
    host_rack = as_object(obj.get("host_rack", {}), "input.host_rack")
    for host, rack in host_rack.items():
        as_str(rack, f"input.host_rack.{host}")
    conf_obj = as_object(obj.get("conf", {}), "input.conf")
    for key in conf_obj:
        if key not in DispatchConf.KEYS and key != EXCLUDE_ON_FAILURE:
            raise Unsupported(f"{_conf_place(key)}: configuration key not read by this model")
    variant_name = as_str(obj.get("variant", DEFAULT_VARIANT), "input.variant")
    if variant_name not in VARIANTS:
        raise CaseFormatError("input.variant", f"unknown variant {variant_name!r} (valid: {', '.join(VARIANTS)})")
    conf = _conf(conf_obj, variant_name)
    if "max_task_failures" in obj:
        failures = as_int(obj["max_task_failures"], "input.max_task_failures", minimum=1)
        conf = replace(conf, max_task_failures=failures)
    exclude = False
    if EXCLUDE_ON_FAILURE in conf_obj:
        exclude = _converted(lambda: _flag(conf_obj[EXCLUDE_ON_FAILURE], _conf_place(EXCLUDE_ON_FAILURE)))
    task_set = parse_task_set(obj["task_set"], "input.task_set") if "task_set" in obj else None
    if "created_by" in obj:
        as_str(obj["created_by"], "input.created_by")
    parse = tuple(
        _location(as_str(text, f"input.parse[{i}]"), f"input.parse[{i}]") for i, text in enumerate(as_list(obj.get("parse", []), "input.parse"))
    )
    return CaseInput(
        scheduler=scheduler,
        executors=tuple(executors),
        racks=RackResolver.from_mapping(host_rack),
        task_set=task_set,
        conf=conf,
        exclude_on_failure=exclude,
        clock_start_ms=as_int(obj.get("clock_start_ms", 0), "input.clock_start_ms", minimum=0),
        parsed=parse,
    )


def _flag(value: Any, place: str) -> bool:
    return parse_flag(value, place, source="")


def _conf(conf_obj: Mapping[str, Any], variant_name: str) -> DispatchConf:
    try:
        return DispatchConf.from_spark_conf(conf_obj, VARIANTS[variant_name])
    except InputError as exc:
        raise CaseFormatError(_conf_place(exc.place), exc.fault) from None


def parse_steps(raw: Any) -> list[CaseStep]:
    """The ``steps`` list."""
    steps = []
    for i, item in enumerate(as_list(raw, "steps")):
        place = f"steps[{i}]"
        obj = as_object(item, place)
        for key in obj:
            if key not in ("op", "args", "expect", "conditions") and key not in STEP_PROSE_KEYS and not is_explanatory(key):
                raise Unsupported(f"{child(place, key)}: step field {key!r} is not read by this runner")
        skipped = obj.get("skipped_assertion")
        steps.append(
            CaseStep(
                place=place,
                op=as_str(required(obj, "op", place), child(place, "op")),
                args=as_object(obj.get("args", {}), child(place, "args")),
                expect=as_object(obj.get("expect", {}), child(place, "expect")),
                conditions=as_object(obj.get("conditions", {}), child(place, "conditions")),
                skipped_assertion=str(skipped) if skipped is not None else None,
            )
        )
    return steps


# --------------------------------------------------------------------------------------------
# Argument readers
# --------------------------------------------------------------------------------------------


class _Args:
    """Typed access to one step's ``args``, each fault naming ``steps[i].args.<name>``."""

    def __init__(self, step: CaseStep, allowed: Sequence[str]) -> None:
        self.step = step
        self.place = child(step.place, "args")
        reject_unknown_keys(step.args, allowed, self.place)

    def raw(self, name: str) -> Any:
        return required(self.step.args, name, self.place)

    def text(self, name: str) -> str:
        return as_str(self.raw(name), child(self.place, name))

    def integer(self, name: str, minimum: int | None = None) -> int:
        return as_int(self.raw(name), child(self.place, name), minimum=minimum)

    def flag(self, name: str, default: bool | None = None) -> bool:
        if default is not None and name not in self.step.args:
            return default
        return as_bool(self.raw(name), child(self.place, name))

    def level(self, name: str) -> TaskLocality:
        return _level(self.raw(name), child(self.place, name))


def _end_reason(raw: Any, place: str) -> TaskEndReason:
    obj = as_object(raw, place)
    kind_name = as_str(required(obj, "type", place), child(place, "type"))
    try:
        kind = EndReason(kind_name)
    except ValueError:
        valid = ", ".join(k.value for k in EndReason if k not in (EndReason.SUCCESS, EndReason.RESUBMITTED))
        raise CaseFormatError(child(place, "type"), f"unknown task end reason {kind_name!r} (valid: {valid})") from None
    if kind in (EndReason.SUCCESS, EndReason.RESUBMITTED):
        raise CaseFormatError(child(place, "type"), f"{kind_name} is not a failure reason")
    if kind is EndReason.EXECUTOR_LOST_FAILURE:
        reject_unknown_keys(obj, ("type", "exit_caused_by_app", "executor_id", "message"), place)
        caused = as_bool(obj.get("exit_caused_by_app", True), child(place, "exit_caused_by_app"))
        return TaskEndReason(kind, exit_caused_by_app=caused)
    reject_unknown_keys(obj, ("type", "message"), place)
    return TaskEndReason(kind)


def _loss_reason(raw: Any, place: str) -> ExecutorLossReason:
    obj = as_object(raw, place)
    kind_name = as_str(required(obj, "type", place), child(place, "type"))
    try:
        kind = ExecutorLoss(kind_name)
    except ValueError:
        valid = ", ".join(k.value for k in ExecutorLoss)
        raise CaseFormatError(child(place, "type"), f"unknown executor loss reason {kind_name!r} (valid: {valid})") from None
    worker = obj.get("worker_host")
    if worker is not None:
        as_str(worker, child(place, "worker_host"))
    if kind is ExecutorLoss.EXITED:
        reject_unknown_keys(obj, ("type", "exit_code", "exit_caused_by_app", "message"), place)
        as_int(required(obj, "exit_code", place), child(place, "exit_code"))
        caused = as_bool(required(obj, "exit_caused_by_app", place), child(place, "exit_caused_by_app"))
        return ExecutorLossReason(kind, caused_by_app=caused)
    if kind is ExecutorLoss.PROCESS_LOST:
        reject_unknown_keys(obj, ("type", "caused_by_app", "worker_host", "message"), place)
        caused = as_bool(obj.get("caused_by_app", True), child(place, "caused_by_app"))
        return ExecutorLossReason(kind, caused_by_app=caused, worker_host=worker)
    reject_unknown_keys(obj, ("type", "worker_host", "message"), place)
    return ExecutorLossReason(kind, caused_by_app=False, worker_host=worker)


# --------------------------------------------------------------------------------------------
# The replay
# --------------------------------------------------------------------------------------------


@dataclass
class _State:
    """Everything a step can change: the scheduler (which owns the managers), the manager the
    manager-level ops act on, and the clock."""

    sched: TaskSchedulerImpl
    manager: TaskSetManager | None
    now: int
    pending_task_set: TaskSet | None = None


@dataclass
class _Outcome:
    """What one step returned, for the expectations that ask about it."""

    offer: OfferResult | None = None
    offer_round: OfferRound | None = None
    returned: bool | None = None
    location: TaskLocation | None = None


@dataclass
class _Replay:
    case_input: CaseInput
    order_sensitive: bool
    state: _State
    warnings: list[str] = field(default_factory=list)

    # ---- helpers -----------------------------------------------------------------------

    def manager(self, step: CaseStep) -> TaskSetManager:
        if self.state.manager is None:
            raise CaseFormatError(child(step.place, "op"), f"{step.op!r} needs a task set, and none exists yet")
        return self.state.manager

    def _task_id(self, args: _Args, manager: TaskSetManager) -> int:
        task_id = args.integer("task_id", minimum=0)
        if task_id not in manager.task_infos:
            raise CaseFormatError(child(args.place, "task_id"), f"no task with id {task_id} was launched by this task set")
        return task_id

    def _no_exclusion_model(self, step: CaseStep) -> None:
        if self.case_input.exclude_on_failure:
            raise Unsupported(
                f"{child(step.place, 'op')}: failures with {EXCLUDE_ON_FAILURE}=true would exclude executors "
                "and nodes, which this model does not do"
            )

    # ---- ops ---------------------------------------------------------------------------

    def run_step(self, step: CaseStep) -> _Outcome:
        handler = OPS.get(step.op)
        if handler is None:
            raise Unsupported(f"{child(step.place, 'op')}: unknown op {step.op!r}")
        if step.conditions and step.op != "resource_offer":
            raise Unsupported(f"{child(step.place, 'conditions')}: conditions are read only on resource_offer")
        return handler(self, step)

    def op_resource_offer(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("exec_id", "host", "max_locality"))
        manager = self.manager(step)
        executor_id, host, cap = args.text("exec_id"), args.text("host"), args.level("max_locality")
        reject_unknown_keys(step.conditions, ("node_excluded_for_task_set", "executor_excluded_for_task_set"), child(step.place, "conditions"))
        node_out = as_bool(step.conditions.get("node_excluded_for_task_set", False), child(step.place, "conditions.node_excluded_for_task_set"))
        exec_out = as_bool(step.conditions.get("executor_excluded_for_task_set", False), child(step.place, "conditions.executor_excluded_for_task_set"))
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
        return _Outcome(offer=result)

    def op_advance_clock(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("ms",))
        self.state.now += args.integer("ms", minimum=0)
        return _Outcome()

    def op_check(self, step: CaseStep) -> _Outcome:
        _Args(step, ())
        return _Outcome()

    def op_set_zombie(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("value",))
        self.manager(step).is_zombie = args.flag("value")
        return _Outcome()

    def op_handle_successful_task(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("task_id",))
        manager = self.manager(step)
        manager.handle_successful_task(self._task_id(args, manager), self.state.now)
        return _Outcome()

    def op_handle_failed_task(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("task_id", "state", "reason"))
        manager = self.manager(step)
        task_id = self._task_id(args, manager)
        state_name = args.text("state") if "state" in step.args else "FAILED"
        try:
            state = TaskState(state_name)
        except ValueError:
            valid = ", ".join(s.value for s in TaskState)
            raise CaseFormatError(child(args.place, "state"), f"unknown task state {state_name!r} (valid: {valid})") from None
        reason = _end_reason(args.raw("reason"), child(args.place, "reason"))
        if reason.counts_towards_failures:
            self._no_exclusion_model(step)
        manager.handle_failed_task(task_id, state, reason, self.state.now)
        return _Outcome()

    def op_scheduler_add_executor(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("exec_id", "host"))
        self.state.sched.add_executor(args.text("exec_id"), args.text("host"))
        return _Outcome()

    def op_scheduler_remove_executor(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("exec_id",))
        executor_id = args.text("exec_id")
        if self.state.sched.remove_executor(executor_id) is None:
            raise CaseFormatError(child(args.place, "exec_id"), f"executor {executor_id!r} is not registered")
        return _Outcome()

    def op_scheduler_decommission_executor(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("exec_id", "worker_host"))
        worker = step.args.get("worker_host")
        if worker is not None:
            as_str(worker, child(args.place, "worker_host"))
        self.state.sched.executor_decommission(args.text("exec_id"), worker)
        return _Outcome()

    def op_scheduler_executor_lost(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("exec_id", "reason"))
        reason = _loss_reason(args.raw("reason"), child(args.place, "reason"))
        self.state.sched.executor_lost(args.text("exec_id"), reason, self.state.now)
        return _Outcome()

    def op_manager_executor_added(self, step: CaseStep) -> _Outcome:
        _Args(step, ())
        self.manager(step).executor_added()
        return _Outcome()

    def op_manager_executor_lost(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("exec_id", "host", "reason"))
        reason = _loss_reason(args.raw("reason"), child(args.place, "reason"))
        self.manager(step).executor_lost(args.text("exec_id"), args.text("host"), reason, self.state.now)
        return _Outcome()

    def op_mark_running_tasks_launched(self, step: CaseStep) -> _Outcome:
        _Args(step, ())
        manager = self.manager(step)
        for task_id in manager.running:
            manager.task_running(task_id)
        return _Outcome()

    def op_mark_speculatable(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("task_indices",))
        manager = self.manager(step)
        place = child(args.place, "task_indices")
        for i, raw in enumerate(as_list(args.raw("task_indices"), place)):
            index = as_int(raw, child(place, i), minimum=0)
            if index >= manager.num_tasks:
                raise CaseFormatError(child(place, i), f"task index {index} out of range (the set has {manager.num_tasks} tasks)")
            manager.mark_speculatable(index)
        return _Outcome()

    def op_check_speculatable_tasks(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("min_time_to_speculation_ms",))
        found = self.manager(step).check_speculatable_tasks(args.integer("min_time_to_speculation_ms", minimum=0), self.state.now)
        return _Outcome(returned=found)

    def op_parse_task_location(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("location",))
        return _Outcome(location=_location(args.text("location"), child(args.place, "location")))

    def op_submit_task_set(self, step: CaseStep) -> _Outcome:
        if step.args:
            task_set = parse_task_set(step.args, child(step.place, "args"))
        elif self.state.pending_task_set is not None:
            task_set = self.state.pending_task_set
            self.state.pending_task_set = None
        else:
            raise CaseFormatError(child(step.place, "args"), "no task set given here and none left in input.task_set")
        self.state.manager = self.state.sched.submit_tasks(task_set, self.state.now)
        return _Outcome()

    def op_scheduler_resource_offers(self, step: CaseStep) -> _Outcome:
        args = _Args(step, ("offers", "is_all_free_resources", "shuffle"))
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
                self.compare(step, _Outcome(offer_round=result), trial, label)
        result = self.state.sched.resource_offers(offers, self.state.now, full, order=range(len(offers)))
        return _Outcome(offer_round=result)

    # ---- expectations ------------------------------------------------------------------

    def compare(self, step: CaseStep, outcome: _Outcome, state: _State | None = None, label: str = "") -> None:
        """Check every expectation of ``step``; derived ones only warn."""
        view = _View(self, state or self.state, outcome, step)
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

    def _compare_derived(self, view: _View, derived: Mapping[str, Any], place: str) -> None:
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


OPS: dict[str, Callable[[_Replay, CaseStep], _Outcome]] = {
    name[3:]: getattr(_Replay, name) for name in dir(_Replay) if name.startswith("op_")
}


# --------------------------------------------------------------------------------------------
# Observations and how each expectation compares
# --------------------------------------------------------------------------------------------


@dataclass
class _View:
    """What an expectation may look at: the state after the step and the step's outcome."""

    replay: _Replay
    state: _State
    outcome: _Outcome
    step: CaseStep

    def manager(self, place: str) -> TaskSetManager:
        if self.state.manager is None:
            raise CaseFormatError(place, "this expectation needs a task set, and none exists yet")
        return self.state.manager

    def offer(self, place: str) -> OfferResult:
        if self.outcome.offer is None:
            raise CaseFormatError(place, f"only a resource_offer step has this expectation, not {self.step.op!r}")
        return self.outcome.offer

    def offer_round(self, place: str) -> OfferRound:
        if self.outcome.offer_round is None:
            raise CaseFormatError(place, f"only a scheduler_resource_offers step has this expectation, not {self.step.op!r}")
        return self.outcome.offer_round


Expectation = Callable[[_View, Any, str, str], None]


def _fail(place: str, expected: Any, actual: Any, label: str) -> None:
    raise ExpectationMismatch(place, expected, actual, label)


def _scalar(observe: Callable[[_View, str], Any], read: Callable[[Any, str], Any]) -> Expectation:
    """An expectation compared by equality after reading the expected value with ``read``."""

    def check(view: _View, expected: Any, place: str, label: str) -> None:
        want = read(expected, place)
        actual = observe(view, place)
        if want != actual:
            _fail(place, expected, _shown(actual), label)

    return check


def _sequence(observe: Callable[[_View, str], list[Any]], read_item: Callable[[Any, str], Any], as_set: bool = False) -> Expectation:
    """A list expectation: a sequence when the case is order-sensitive, else a multiset (or a
    set when ``as_set``, for observations Spark itself compares as sets)."""

    def check(view: _View, expected: Any, place: str, label: str) -> None:
        want = [read_item(item, child(place, i)) for i, item in enumerate(as_list(expected, place))]
        actual = observe(view, place)
        if view.replay.order_sensitive:
            same = want == actual
        elif as_set:
            same = set(want) == set(actual)
        else:
            same = Counter(want) == Counter(actual)
        if not same:
            _fail(place, expected, [_shown(a) for a in actual], label)

    return check


def _per_key(observe: Callable[[_View, str, str], Any], read: Callable[[Any, str], Any]) -> Expectation:
    """A map expectation: each listed key is compared on its own (upstream asserted those)."""

    def check(view: _View, expected: Any, place: str, label: str) -> None:
        for key, value in as_object(expected, place).items():
            key_place = child(place, key)
            want = read(value, key_place)
            actual = observe(view, key, key_place)
            if want != actual:
                _fail(key_place, value, _shown(actual), label)

    return check


def _shown(value: Any) -> Any:
    """How a model value is printed in a mismatch (level names, not enum reprs)."""
    if isinstance(value, TaskLocality):
        return value.name
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def _int_or_null(value: Any, place: str) -> int | None:
    return None if value is None else as_int(value, place)


def _level_name(value: Any, place: str) -> TaskLocality:
    return _level(value, place)


def _task_index(view: _View, place: str) -> int | None:
    offer = view.offer(place)
    return offer.task.index if offer.task is not None else None


def _task_field(name: str) -> Callable[[_View, str], Any]:
    def observe(view: _View, place: str) -> Any:
        task = view.offer(place).task
        return None if task is None else getattr(task, name)

    return observe


def _index_key(view: _View, key: str, place: str) -> int:
    index = whole_number_text(key, 0)
    if index is None:
        raise CaseFormatError(place, f"expected a task index as key, found {key!r}")
    if not 0 <= index < view.manager(place).num_tasks:
        raise CaseFormatError(place, f"task index {index} out of range")
    return index


def _ended_reason(view: _View, key: str, place: str) -> str | None:
    index = _index_key(view, key, place)
    ends = [end for end in view.state.sched.log.ended if end.index == index]
    return ends[-1].reason.kind.value if ends else None


def _copies_running(view: _View, key: str, place: str) -> int:
    return view.manager(place).copies_running[_index_key(view, key, place)]


def _check_alive_on_host(view: _View, expected: Any, place: str, label: str) -> None:
    for host, executors in as_object(expected, place).items():
        host_place = child(place, host)
        want = [as_str(e, child(host_place, i)) for i, e in enumerate(as_list(executors, host_place))]
        alive = view.state.sched.executors_alive_on_host(host)
        missing = [e for e in want if e not in alive]
        if missing:
            _fail(host_place, executors, list(alive), label)


def _check_levels_contains(view: _View, expected: Any, place: str, label: str) -> None:
    level = _level(expected, place)
    levels = view.manager(place).levels
    if level not in levels:
        _fail(place, f"levels containing {expected}", [lvl.name for lvl in levels], label)


def _check_task_defined(view: _View, expected: Any, place: str, label: str) -> None:
    want = as_bool(expected, place)
    task = view.offer(place).task
    if (task is not None) != want:
        _fail(place, expected, None if task is None else f"task {task.index}", label)


def _location_field(name: str) -> Callable[[_View, str], Any]:
    def observe(view: _View, place: str) -> Any:
        location = view.outcome.location
        if location is None:
            raise CaseFormatError(place, f"only a parse_task_location step has this expectation, not {view.step.op!r}")
        if name == "kind":
            return location.kind.value
        return getattr(location, "executor_id", None) if name == "executor" else location.host

    return observe


def _optional_str(value: Any, place: str) -> str | None:
    return None if value is None else as_str(value, place)


def _first_stage(view: _View, place: str) -> str | None:
    launched = view.offer_round(place).launched
    return launched[0].task_set if launched else None


def _check_returned(view: _View, expected: Any, place: str, label: str) -> None:
    if view.outcome.returned is None:
        raise CaseFormatError(place, f"only a check_speculatable_tasks step has this expectation, not {view.step.op!r}")
    if as_bool(expected, place) != view.outcome.returned:
        _fail(place, expected, view.outcome.returned, label)


def _task_stage(view: _View, place: str) -> str | None:
    """The ``stageId.attemptId`` of the task a resource_offer launched, or the one set every
    task of a scheduler round came from (``None`` when nothing launched)."""
    if view.outcome.offer is not None:
        task = view.outcome.offer.task
        return None if task is None else task.task_set
    stages = list(dict.fromkeys(t.task_set for t in view.offer_round(place).launched))
    if len(stages) > 1:
        raise ExpectationMismatch(place, "tasks of one task set", stages)
    return stages[0] if stages else None


def _check_alive_on_host_exactly(view: _View, expected: Any, place: str, label: str) -> None:
    """``getExecutorsAliveOnHost(host)``: the set of live executors, ``null`` for none."""
    for host, executors in as_object(expected, place).items():
        host_place = child(place, host)
        alive = set(view.state.sched.executors_alive_on_host(host))
        if executors is None:
            want: set[str] = set()
        else:
            want = {as_str(e, child(host_place, i)) for i, e in enumerate(as_list(executors, host_place))}
        if want != alive:
            _fail(host_place, executors, sorted(alive), label)


def _manager_of_stage(view: _View, stage: Any, place: str) -> TaskSetManager:
    """The task set of ``stage``: ``"stageId.attemptId"``, or a stage id (its latest attempt)."""
    attempts = view.state.sched.by_stage
    if isinstance(stage, str) and "." in stage:
        stage_text, attempt_text = stage.split(".", 1)
        try:
            found = attempts.get(int(stage_text), {}).get(int(attempt_text))
        except ValueError:
            raise CaseFormatError(place, f"expected a stage id or 'stage.attempt', found {stage!r}") from None
    else:
        by_attempt = attempts.get(as_int(stage, place), {})
        found = by_attempt[max(by_attempt)] if by_attempt else None
    if found is None:
        raise CaseFormatError(place, f"no task set of stage {stage!r} is in the scheduler")
    return found


def _check_levels_of(view: _View, expected: Any, place: str, label: str) -> None:
    """``{stage, levels_as_set}`` (or a list of them): that set's valid levels, as a set."""
    items = expected if isinstance(expected, list) else [expected]
    for i, item in enumerate(items):
        item_place = child(place, i) if isinstance(expected, list) else place
        obj = as_object(item, item_place)
        reject_unknown_keys(obj, ("stage", "levels_as_set"), item_place)
        manager = _manager_of_stage(view, required(obj, "stage", item_place), child(item_place, "stage"))
        levels_place = child(item_place, "levels_as_set")
        want = {_level(v, child(levels_place, j)) for j, v in enumerate(as_list(required(obj, "levels_as_set", item_place), levels_place))}
        if want != set(manager.levels):
            _fail(levels_place, obj["levels_as_set"], [lvl.name for lvl in manager.levels], label)


def _check_parsed(view: _View, expected: Any, place: str, label: str) -> None:
    """The case's top-level ``expect.parsed``: the locations of ``input.parse``, in order."""
    want = [_location(item, child(place, i)) for i, item in enumerate(as_list(expected, place))]
    actual = list(view.replay.case_input.parsed)
    if want != actual:
        _fail(place, expected, [str(location) for location in actual], label)


EXPECTATIONS: dict[str, Expectation] = {
    # the offer of a resource_offer step
    "task_index": _scalar(_task_index, _int_or_null),
    "task_defined": _check_task_defined,
    "task_id": _scalar(_task_field("task_id"), _int_or_null),
    "executor_id": _scalar(_task_field("executor_id"), _optional_str),
    "attempt_number": _scalar(_task_field("attempt_number"), _int_or_null),
    "task_locality": _scalar(_task_field("locality"), lambda v, p: None if v is None else _level(v, p)),
    "speculative": _scalar(_task_field("speculative"), as_bool),
    "delay_reject": _scalar(lambda view, place: view.offer(place).delay_reject, as_bool),
    # the tasks of a scheduler_resource_offers step
    "num_tasks": _scalar(lambda view, place: len(view.offer_round(place).launched), lambda v, p: as_int(v, p, minimum=0)),
    "executor_ids": _sequence(lambda view, place: [t.executor_id for t in view.offer_round(place).launched], as_str),
    "task_localities": _sequence(lambda view, place: [t.locality for t in view.offer_round(place).launched], _level_name),
    "task_indices": _sequence(lambda view, place: [t.index for t in view.offer_round(place).launched], as_int),
    "stages": _sequence(lambda view, place: [t.task_set for t in view.offer_round(place).launched], as_str),
    "stage": _scalar(_first_stage, _optional_str),
    "task_stage": _scalar(_task_stage, _optional_str),
    # the manager the case acts on
    "my_locality_levels": _sequence(lambda view, place: list(view.manager(place).levels), _level_name),
    "my_locality_levels_contains": _check_levels_contains,
    "current_locality_level": _scalar(lambda view, place: view.manager(place).levels[view.manager(place).current_index], _level_name),
    "locality_levels_of": _check_levels_of,
    "pending_no_prefs_size": _scalar(lambda view, place: len(view.manager(place).pending.no_prefs), as_int),
    "copies_running": _per_key(_copies_running, as_int),
    "task_set_failed": _scalar(
        lambda view, place: any(name == view.manager(place).name for name, _ in view.state.sched.log.failed_task_sets), as_bool
    ),
    "manager_finished": _scalar(lambda view, place: view.state.sched.is_finished(view.manager(place)), as_bool),
    "is_zombie": _scalar(lambda view, place: view.manager(place).is_zombie, as_bool),
    "returned": _check_returned,
    # what the DAG scheduler was told
    "started_task_indices": _sequence(lambda view, place: [t.index for t in view.state.sched.log.started], as_int, as_set=True),
    "ended_reason": _per_key(_ended_reason, as_str),
    "speculative_tasks": _sequence(lambda view, place: [i for _, i in view.state.sched.log.speculative], as_int, as_set=True),
    # a parse_task_location step
    "kind": _scalar(_location_field("kind"), as_str),
    "host": _scalar(_location_field("host"), as_str),
    "executor": _scalar(_location_field("executor"), _optional_str),
    # the scheduler's view of executors
    "executor_alive": _per_key(lambda view, key, place: view.state.sched.is_executor_alive(key), as_bool),
    "host_has_alive_executors": _per_key(lambda view, key, place: view.state.sched.has_executors_alive_on_host(key), as_bool),
    "executors_alive_on_host_contains": _check_alive_on_host,
    "executors_alive_on_host": _check_alive_on_host_exactly,
    # the rack resolver, counted from the creation of the case's task set
    "rack_resolution_batch_calls": _scalar(lambda view, place: view.state.sched.rack_calls.batch, lambda v, p: as_int(v, p, minimum=0)),
    "rack_resolution_single_calls": _scalar(lambda view, place: view.state.sched.rack_calls.single, lambda v, p: as_int(v, p, minimum=0)),
    # the case's top-level expect, for input.parse
    "parsed": _check_parsed,
}


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------

_TOP_LEVEL = ("id", "source", "kind", "input", "steps", "expect", "order_sensitive")


def _start(case_input: CaseInput, creates_by_submit: bool) -> _State:
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
    state = _State(sched=sched, manager=None, now=now)
    if case_input.task_set is not None:
        if creates_by_submit:
            state.pending_task_set = case_input.task_set
        else:
            state.manager = sched.create_manager(case_input.task_set, now)
    return state


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay one ``kind: taskset`` case; return its warnings or raise (module docstring)."""
    reject_unknown_keys(case, _TOP_LEVEL, "")
    case_input = parse_input(required(case, "input", ""))
    # a case that only parses locations may leave out its steps
    steps = parse_steps(required(case, "steps", "") if "steps" in case or not case_input.parsed else [])
    order_sensitive = as_bool(case.get("order_sensitive", True), "order_sensitive")
    final = as_object(case.get("expect", {}), "expect")
    creates_by_submit = any(step.op == "submit_task_set" and not step.args for step in steps)
    replay = _Replay(case_input, order_sensitive, _start(case_input, creates_by_submit))
    for step in steps:
        outcome = replay.run_step(step)
        replay.compare(step, outcome)
        if step.skipped_assertion:
            replay.warnings.append(f"{child(step.place, 'skipped_assertion')}: upstream assertion not replayed: {step.skipped_assertion}")
    if final:
        closing = CaseStep("", "check", {}, final, {}, None)
        replay.compare(closing, _Outcome())
    require_step_assertions(case)
    return replay.warnings


__all__ = ["run_case", "parse_input", "parse_steps", "parse_task_set"]
