"""Reading a ``kind: taskset`` case (the runner is :mod:`yarnspec.checks.conformance.spark_taskset`):
its ``input`` (:func:`parse_input`), its ``steps`` (:func:`parse_steps`), task sets, and the
typed readers of one step's ``args`` (:class:`StepArgs`, the task end and executor loss
reasons). A malformed value is a :class:`CaseFormatError` naming its JSON place; a key this
model does not read is :class:`Unsupported`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

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
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import (
    TaskLocality,
    TaskLocation,
    parse_task_location,
    task_location_from_fields,
)
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf, parse_flag
from yarnspec.impl.spark.taskset.dispatch_variant import DEFAULT_VARIANT, VARIANTS
from yarnspec.impl.spark.taskset.tasks import EndReason, ExecutorLoss, ExecutorLossReason, TaskEndReason, TaskSet

_T = TypeVar("_T")

FAKE_SCHEDULER = "FakeTaskScheduler"
REAL_SCHEDULER = "TaskSchedulerImpl"
EXCLUDE_ON_FAILURE = "spark.excludeOnFailure.enabled"

#: CaseStep keys that explain but are not read; ``skipped_assertion`` is also reported as a warning.
STEP_PROSE_KEYS = frozenset({"note", "spark_derivation", "skipped_assertion"})


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


def read_level(value: Any, place: str) -> TaskLocality:
    """A locality level by its name (``PROCESS_LOCAL`` ... ``ANY``)."""
    return _converted(lambda: TaskLocality.parse(as_str(value, place), place, source=""))


def read_location(value: Any, place: str) -> TaskLocation:
    """A task location: Spark's string form (``host1``, ``executor_host1_3``, ...) or an object
    with its fields."""
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
            tuple(read_location(loc, child(prefs_place, j)) for j, loc in enumerate(as_list(prefs, prefs_place)))
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
        raise CaseFormatError(
            "input.scheduler", f"unknown scheduler {scheduler!r} (valid: {FAKE_SCHEDULER}, {REAL_SCHEDULER})"
        )
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
        read_location(as_str(text, f"input.parse[{i}]"), f"input.parse[{i}]")
        for i, text in enumerate(as_list(obj.get("parse", []), "input.parse"))
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
            if (
                key not in ("op", "args", "expect", "conditions")
                and key not in STEP_PROSE_KEYS
                and not is_explanatory(key)
            ):
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


class StepArgs:
    """Typed access to one step's ``args``, each fault naming ``steps[i].args.<name>``."""

    def __init__(self, step: CaseStep, allowed: Sequence[str]) -> None:
        self.step = step
        self.place = child(step.place, "args")
        reject_unknown_keys(step.args, allowed, self.place)

    def raw(self, name: str) -> Any:
        """The argument ``name`` as written (it must be there)."""
        return required(self.step.args, name, self.place)

    def text(self, name: str) -> str:
        """The argument ``name``, a string."""
        return as_str(self.raw(name), child(self.place, name))

    def integer(self, name: str, minimum: int | None = None) -> int:
        """The argument ``name``, a whole number (at least ``minimum`` when given)."""
        return as_int(self.raw(name), child(self.place, name), minimum=minimum)

    def flag(self, name: str, default: bool | None = None) -> bool:
        """The argument ``name``, a boolean (``default`` when absent and a default is given)."""
        if default is not None and name not in self.step.args:
            return default
        return as_bool(self.raw(name), child(self.place, name))

    def level(self, name: str) -> TaskLocality:
        """The argument ``name``, a locality level."""
        return read_level(self.raw(name), child(self.place, name))


def read_end_reason(raw: Any, place: str) -> TaskEndReason:
    """A task failure reason ``{type, ...}`` (``Success`` and ``Resubmitted`` are not failures)."""
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


def read_loss_reason(raw: Any, place: str) -> ExecutorLossReason:
    """An executor loss reason ``{type, ...}`` with the fields its kind carries."""
    obj = as_object(raw, place)
    kind_name = as_str(required(obj, "type", place), child(place, "type"))
    try:
        kind = ExecutorLoss(kind_name)
    except ValueError:
        valid = ", ".join(k.value for k in ExecutorLoss)
        raise CaseFormatError(
            child(place, "type"), f"unknown executor loss reason {kind_name!r} (valid: {valid})"
        ) from None
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
