"""The expectation keys of a ``kind: taskset`` case step (:data:`EXPECTATIONS`) and what each
compares: the offer a step returned, the tasks a scheduler round launched, the manager's levels
and counters, what the DAG scheduler was told, the scheduler's view of executors. Each is a
function of a :class:`StepView` (the state after the step and the step's outcome) that raises
:class:`ExpectationMismatch` naming the JSON place of the first difference."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    child,
    reject_unknown_keys,
    required,
    whole_number_text,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch
from yarnspec.checks.conformance.spark_taskset_case import CaseInput, CaseStep, read_level, read_location
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.task_scheduler import OfferRound
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import OfferResult

if TYPE_CHECKING:
    from yarnspec.checks.conformance.spark_taskset_replay import ReplayState, StepOutcome


@dataclass
class StepView:
    """What an expectation may look at: the state after the step and the step's outcome."""

    state: ReplayState
    outcome: StepOutcome
    step: CaseStep
    case_input: CaseInput
    #: Whether list expectations compare as sequences (the case's ``order_sensitive``).
    order_sensitive: bool

    def manager(self, place: str) -> TaskSetManager:
        """The manager the case acts on (a format error at ``place`` when none exists)."""
        if self.state.manager is None:
            raise CaseFormatError(place, "this expectation needs a task set, and none exists yet")
        return self.state.manager

    def offer(self, place: str) -> OfferResult:
        """The offer a ``resource_offer`` step returned."""
        if self.outcome.offer is None:
            raise CaseFormatError(place, f"only a resource_offer step has this expectation, not {self.step.op!r}")
        return self.outcome.offer

    def offer_round(self, place: str) -> OfferRound:
        """The round a ``scheduler_resource_offers`` step ran."""
        if self.outcome.offer_round is None:
            raise CaseFormatError(
                place, f"only a scheduler_resource_offers step has this expectation, not {self.step.op!r}"
            )
        return self.outcome.offer_round


#: One expectation key's check: ``(view, expected value, its place, a label for the offer
#: order)``, raising :class:`ExpectationMismatch` on a difference.
Expectation = Callable[[StepView, Any, str, str], None]


def _fail(place: str, expected: Any, actual: Any, label: str) -> None:
    raise ExpectationMismatch(place, expected, actual, label)


def _scalar(observe: Callable[[StepView, str], Any], read: Callable[[Any, str], Any]) -> Expectation:
    """An expectation compared by equality after reading the expected value with ``read``."""

    def check(view: StepView, expected: Any, place: str, label: str) -> None:
        want = read(expected, place)
        actual = observe(view, place)
        if want != actual:
            _fail(place, expected, _shown(actual), label)

    return check


def _sequence(
    observe: Callable[[StepView, str], list[Any]], read_item: Callable[[Any, str], Any], as_set: bool = False
) -> Expectation:
    """A list expectation: a sequence when the case is order-sensitive, else a multiset (or a
    set when ``as_set``, for observations Spark itself compares as sets)."""

    def check(view: StepView, expected: Any, place: str, label: str) -> None:
        want = [read_item(item, child(place, i)) for i, item in enumerate(as_list(expected, place))]
        actual = observe(view, place)
        if view.order_sensitive:
            same = want == actual
        elif as_set:
            same = set(want) == set(actual)
        else:
            same = Counter(want) == Counter(actual)
        if not same:
            _fail(place, expected, [_shown(a) for a in actual], label)

    return check


def _per_key(observe: Callable[[StepView, str, str], Any], read: Callable[[Any, str], Any]) -> Expectation:
    """A map expectation: each listed key is compared on its own (upstream asserted those)."""

    def check(view: StepView, expected: Any, place: str, label: str) -> None:
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
    return read_level(value, place)


def _task_index(view: StepView, place: str) -> int | None:
    offer = view.offer(place)
    return offer.task.index if offer.task is not None else None


def _task_field(name: str) -> Callable[[StepView, str], Any]:
    def observe(view: StepView, place: str) -> Any:
        task = view.offer(place).task
        return None if task is None else getattr(task, name)

    return observe


def _index_key(view: StepView, key: str, place: str) -> int:
    index = whole_number_text(key, 0)
    if index is None:
        raise CaseFormatError(place, f"expected a task index as key, found {key!r}")
    if not 0 <= index < view.manager(place).num_tasks:
        raise CaseFormatError(place, f"task index {index} out of range")
    return index


def _ended_reason(view: StepView, key: str, place: str) -> str | None:
    index = _index_key(view, key, place)
    ends = [end for end in view.state.sched.log.ended if end.index == index]
    return ends[-1].reason.kind.value if ends else None


def _copies_running(view: StepView, key: str, place: str) -> int:
    return view.manager(place).copies_running[_index_key(view, key, place)]


def _check_alive_on_host(view: StepView, expected: Any, place: str, label: str) -> None:
    for host, executors in as_object(expected, place).items():
        host_place = child(place, host)
        want = [as_str(e, child(host_place, i)) for i, e in enumerate(as_list(executors, host_place))]
        alive = view.state.sched.executors_alive_on_host(host)
        missing = [e for e in want if e not in alive]
        if missing:
            _fail(host_place, executors, list(alive), label)


def _check_levels_contains(view: StepView, expected: Any, place: str, label: str) -> None:
    level = read_level(expected, place)
    levels = view.manager(place).levels
    if level not in levels:
        _fail(place, f"levels containing {expected}", [lvl.name for lvl in levels], label)


def _check_task_defined(view: StepView, expected: Any, place: str, label: str) -> None:
    want = as_bool(expected, place)
    task = view.offer(place).task
    if (task is not None) != want:
        _fail(place, expected, None if task is None else f"task {task.index}", label)


def _location_field(name: str) -> Callable[[StepView, str], Any]:
    def observe(view: StepView, place: str) -> Any:
        location = view.outcome.location
        if location is None:
            raise CaseFormatError(place, f"only a parse_task_location step has this expectation, not {view.step.op!r}")
        if name == "kind":
            return location.kind.value
        return getattr(location, "executor_id", None) if name == "executor" else location.host

    return observe


def _optional_str(value: Any, place: str) -> str | None:
    return None if value is None else as_str(value, place)


def _first_stage(view: StepView, place: str) -> str | None:
    launched = view.offer_round(place).launched
    return launched[0].task_set if launched else None


def _check_returned(view: StepView, expected: Any, place: str, label: str) -> None:
    if view.outcome.returned is None:
        raise CaseFormatError(place, f"only a check_speculatable_tasks step has this expectation, not {view.step.op!r}")
    if as_bool(expected, place) != view.outcome.returned:
        _fail(place, expected, view.outcome.returned, label)


def _task_stage(view: StepView, place: str) -> str | None:
    """The ``stageId.attemptId`` of the task a resource_offer launched, or the one set every
    task of a scheduler round came from (``None`` when nothing launched)."""
    if view.outcome.offer is not None:
        task = view.outcome.offer.task
        return None if task is None else task.task_set
    stages = list(dict.fromkeys(t.task_set for t in view.offer_round(place).launched))
    if len(stages) > 1:
        raise ExpectationMismatch(place, "tasks of one task set", stages)
    return stages[0] if stages else None


def _check_alive_on_host_exactly(view: StepView, expected: Any, place: str, label: str) -> None:
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


def _manager_of_stage(view: StepView, stage: Any, place: str) -> TaskSetManager:
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


def _check_levels_of(view: StepView, expected: Any, place: str, label: str) -> None:
    """``{stage, levels_as_set}`` (or a list of them): that set's valid levels, as a set."""
    items = expected if isinstance(expected, list) else [expected]
    for i, item in enumerate(items):
        item_place = child(place, i) if isinstance(expected, list) else place
        obj = as_object(item, item_place)
        reject_unknown_keys(obj, ("stage", "levels_as_set"), item_place)
        manager = _manager_of_stage(view, required(obj, "stage", item_place), child(item_place, "stage"))
        levels_place = child(item_place, "levels_as_set")
        want = {
            read_level(v, child(levels_place, j))
            for j, v in enumerate(as_list(required(obj, "levels_as_set", item_place), levels_place))
        }
        if want != set(manager.levels):
            _fail(levels_place, obj["levels_as_set"], [lvl.name for lvl in manager.levels], label)


def _check_parsed(view: StepView, expected: Any, place: str, label: str) -> None:
    """The case's top-level ``expect.parsed``: the locations of ``input.parse``, in order."""
    want = [read_location(item, child(place, i)) for i, item in enumerate(as_list(expected, place))]
    actual = list(view.case_input.parsed)
    if want != actual:
        _fail(place, expected, [str(location) for location in actual], label)


#: Every expectation key a step (or the case's top-level ``expect``) may carry.
EXPECTATIONS: dict[str, Expectation] = {
    # the offer of a resource_offer step
    "task_index": _scalar(_task_index, _int_or_null),
    "task_defined": _check_task_defined,
    "task_id": _scalar(_task_field("task_id"), _int_or_null),
    "executor_id": _scalar(_task_field("executor_id"), _optional_str),
    "attempt_number": _scalar(_task_field("attempt_number"), _int_or_null),
    "task_locality": _scalar(_task_field("locality"), lambda v, p: None if v is None else read_level(v, p)),
    "speculative": _scalar(_task_field("speculative"), as_bool),
    "delay_reject": _scalar(lambda view, place: view.offer(place).delay_reject, as_bool),
    # the tasks of a scheduler_resource_offers step
    "num_tasks": _scalar(
        lambda view, place: len(view.offer_round(place).launched), lambda v, p: as_int(v, p, minimum=0)
    ),
    "executor_ids": _sequence(lambda view, place: [t.executor_id for t in view.offer_round(place).launched], as_str),
    "task_localities": _sequence(
        lambda view, place: [t.locality for t in view.offer_round(place).launched], _level_name
    ),
    "task_indices": _sequence(lambda view, place: [t.index for t in view.offer_round(place).launched], as_int),
    "stages": _sequence(lambda view, place: [t.task_set for t in view.offer_round(place).launched], as_str),
    "stage": _scalar(_first_stage, _optional_str),
    "task_stage": _scalar(_task_stage, _optional_str),
    # the manager the case acts on
    "my_locality_levels": _sequence(lambda view, place: list(view.manager(place).levels), _level_name),
    "my_locality_levels_contains": _check_levels_contains,
    "current_locality_level": _scalar(
        lambda view, place: view.manager(place).levels[view.manager(place).current_index], _level_name
    ),
    "locality_levels_of": _check_levels_of,
    "pending_no_prefs_size": _scalar(lambda view, place: len(view.manager(place).pending.no_prefs), as_int),
    "copies_running": _per_key(_copies_running, as_int),
    "task_set_failed": _scalar(
        lambda view, place: any(name == view.manager(place).name for name, _ in view.state.sched.log.failed_task_sets),
        as_bool,
    ),
    "manager_finished": _scalar(lambda view, place: view.state.sched.is_finished(view.manager(place)), as_bool),
    "is_zombie": _scalar(lambda view, place: view.manager(place).is_zombie, as_bool),
    "returned": _check_returned,
    # what the DAG scheduler was told
    "started_task_indices": _sequence(
        lambda view, place: [t.index for t in view.state.sched.log.started], as_int, as_set=True
    ),
    "ended_reason": _per_key(_ended_reason, as_str),
    "speculative_tasks": _sequence(
        lambda view, place: [i for _, i in view.state.sched.log.speculative], as_int, as_set=True
    ),
    # a parse_task_location step
    "kind": _scalar(_location_field("kind"), as_str),
    "host": _scalar(_location_field("host"), as_str),
    "executor": _scalar(_location_field("executor"), _optional_str),
    # the scheduler's view of executors
    "executor_alive": _per_key(lambda view, key, place: view.state.sched.is_executor_alive(key), as_bool),
    "host_has_alive_executors": _per_key(
        lambda view, key, place: view.state.sched.has_executors_alive_on_host(key), as_bool
    ),
    "executors_alive_on_host_contains": _check_alive_on_host,
    "executors_alive_on_host": _check_alive_on_host_exactly,
    # the rack resolver, counted from the creation of the case's task set
    "rack_resolution_batch_calls": _scalar(
        lambda view, place: view.state.sched.rack_calls.batch, lambda v, p: as_int(v, p, minimum=0)
    ),
    "rack_resolution_single_calls": _scalar(
        lambda view, place: view.state.sched.rack_calls.single, lambda v, p: as_int(v, p, minimum=0)
    ),
    # the case's top-level expect, for input.parse
    "parsed": _check_parsed,
}
