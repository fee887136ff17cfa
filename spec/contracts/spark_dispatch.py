"""Contract ``spark-dispatch``: Spark's task dispatch, one stateful session.

Upstream: ``org.apache.spark.scheduler.TaskSchedulerImpl`` (``submitTasks``,
``resourceOffers``, executor added/lost/decommissioned) and ``TaskSetManager``
(``resourceOffer``, delay scheduling, ``handleSuccessfulTask``, ``handleFailedTask``,
``executorLost``, ``checkSpeculatableTasks``), driven with a manual clock and offers in the
given order (never shuffled).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol, TypedDict, runtime_checkable

from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import Comparison, FieldRule, compare_fields, same

__all__ = [
    "RESET",
    "STEP_OPS",
    "LaunchedTask",
    "TaskSetState",
    "Observation",
    "TaskDispatchDriver",
    "TOP_RULES",
    "TASK_SET_RULES",
    "RULES",
    "compare",
    "invariants",
]

RESET = "reset"

#: The step ops: the taskset case vocabulary's ops (PROTOCOL.md), plus ``check_speculatable``
#: and ``observe``.
STEP_OPS = (
    "submit_task_set",
    "scheduler_resource_offers",
    "resource_offer",
    "advance_clock",
    "handle_successful_task",
    "handle_failed_task",
    "scheduler_add_executor",
    "scheduler_remove_executor",
    "scheduler_decommission_executor",
    "manager_executor_added",
    "manager_executor_lost",
    "mark_running_tasks_launched",
    "mark_speculatable",
    "set_zombie",
    "check_speculatable",
    "observe",
)


class LaunchedTask(TypedDict):
    """One task an op launched."""

    task_id: int
    stage: str
    index: int
    executor_id: str
    host: str
    locality: str
    speculative: bool


class TaskSetState(TypedDict, total=False):
    """The observable state of one registered task set (``stage`` is ``"stageId.attemptId"``)."""

    stage: str
    my_locality_levels: list[str]
    running_task_ids: list[int]
    successful_indices: list[int]
    zombie: bool
    failed: bool


class Observation(TypedDict, total=False):
    """What every step op answers."""

    launched: list[LaunchedTask]
    task_sets: list[TaskSetState]
    speculatable: list[int]


@runtime_checkable
class TaskDispatchDriver(Protocol):
    """``TaskSchedulerImpl`` + ``TaskSetManager`` behind one driver.

    ``reset`` takes a spark-locality ``taskset`` case's ``input`` (scheduler, scheduling_mode,
    executors, host_rack, conf, clock_start_ms, max_task_failures) and starts a fresh scheduler
    with a manual clock; ``step`` runs one op of :data:`STEP_OPS` with the case step's ``args``
    and returns an :class:`Observation`.

    Observable, compared with the reference after every step:

    * ``launched``: exactly, order included (tasks this op launched, in task-id order);
    * ``task_sets``: the registered sets, matched by ``stage``, then field by field:
      ``my_locality_levels`` exactly (order matters), ``running_task_ids`` and
      ``successful_indices`` as sets, ``zombie`` and ``failed`` exactly; every field but
      ``stage`` is optional (not compared when the implementation leaves it out);
    * ``speculatable`` (``check_speculatable`` only): as a set.

    Invariants on the implementation's own observations (:func:`invariants`): task ids unique
    and increasing, a task runs on the host of its executor, zombie sets launch nothing, a
    successful index is not relaunched except speculatively, running ids were launched.
    """

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """Start a fresh session; answers ``{}``."""
        ...

    def step(self, op: str, input: dict[str, Any]) -> Observation:
        """Run one step op and observe."""
        ...


TOP_RULES = (FieldRule("launched"), FieldRule("speculatable", Comparison.AS_SET, optional=True))
TASK_SET_RULES = (
    FieldRule("my_locality_levels", optional=True),
    FieldRule("running_task_ids", Comparison.AS_SET, optional=True),
    FieldRule("successful_indices", Comparison.AS_SET, optional=True),
    FieldRule("zombie", optional=True),
    FieldRule("failed", optional=True),
)
RULES = TOP_RULES + TASK_SET_RULES


def compare(call: Call, reference: dict[str, Any], implementation: dict[str, Any]) -> list[str]:
    """The observable differences of one step's observation (class docstring)."""
    if call.op == RESET:
        return []
    differences = compare_fields(reference, implementation, TOP_RULES, "")
    if "task_sets" not in implementation:
        return differences
    ours = _by_stage(reference.get("task_sets", []))
    theirs = _by_stage(implementation["task_sets"])
    stages_ours = sorted((str(stage) for stage, sets in ours.items() for _ in sets))
    stages_theirs = sorted((str(stage) for stage, sets in theirs.items() for _ in sets))
    if not same(stages_ours, stages_theirs, Comparison.EXACT):
        differences.append(f"task_sets: reference has stages {stages_ours}, implementation {stages_theirs}")
    for stage in sorted(ours.keys() & theirs.keys(), key=str):
        differences.extend(_compare_stage(stage, ours[stage], theirs[stage]))
    return differences


def _by_stage(task_sets: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    """The task sets by ``stage``, in the order given (a stage attempt submitted again while
    its first set is a zombie has two)."""
    found: dict[Any, list[dict[str, Any]]] = {}
    for state in task_sets:
        found.setdefault(state.get("stage"), []).append(state)
    return found


def _compare_stage(stage: Any, ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> list[str]:
    """One stage's sets compared: field by field when there is one on each side; several of
    one stage are matched to each other in any order (the order of ``task_sets`` is not
    observable), and the stage differs only when no matching pairs every set."""
    place = f"task_sets[{stage}]"
    if len(ours) == 1 and len(theirs) == 1:
        return compare_fields(ours[0], theirs[0], TASK_SET_RULES, place)
    unmatched = list(ours)
    for state in theirs:
        partner = next(
            (i for i, mine in enumerate(unmatched) if not compare_fields(mine, state, TASK_SET_RULES, place)), None
        )
        if partner is None:
            return [
                f"{place}: the implementation's set {json.dumps(state, sort_keys=True)} matches none of the reference's {json.dumps(unmatched, sort_keys=True)}"
            ]
        del unmatched[partner]
    return []


def invariants(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
    """The dispatch invariants on one session's observations, computed from the calls and the
    answers alone (class docstring)."""
    violations: list[str] = []
    hosts: dict[str, str] = {}
    last_id = -1
    launched_ids: set[int] = set()
    previous: dict[Any, list[dict[str, Any]]] = {}
    for index, (call, answer) in enumerate(zip(calls, answers)):
        _learn_hosts(call, hosts)
        if answer.output is None:
            continue
        for task in answer.output.get("launched", []):
            where = f"step {index} ({call.op}) task {task.get('task_id')}"
            if task["task_id"] <= last_id:
                violations.append(f"{where}: task id not above the previous one ({last_id})")
            last_id = max(last_id, task["task_id"])
            launched_ids.add(task["task_id"])
            if hosts.get(task["executor_id"], task["host"]) != task["host"]:
                violations.append(
                    f"{where}: runs on {task['host']} but executor {task['executor_id']} is on {hosts[task['executor_id']]}"
                )
            # a stage may have several sets (one a zombie): a rule is broken only when it is
            # broken whichever of them launched the task (the order of task_sets is not observable)
            before = previous.get(task["stage"], [])
            if before and all(state.get("zombie") for state in before):
                violations.append(f"{where}: launched by zombie task set {task['stage']}")
            if (
                not task["speculative"]
                and before
                and all(task["index"] in state.get("successful_indices", []) for state in before)
            ):
                violations.append(
                    f"{where}: index {task['index']} already succeeded and is relaunched non-speculatively"
                )
        for state in answer.output.get("task_sets", []):
            unknown = set(state.get("running_task_ids", [])) - launched_ids
            if unknown:
                violations.append(
                    f"step {index} ({call.op}): {state.get('stage')} runs ids never launched: {sorted(unknown)}"
                )
        if "task_sets" in answer.output:
            previous = _by_stage(answer.output["task_sets"])
    return violations


def _learn_hosts(call: Call, hosts: dict[str, str]) -> None:
    """Record executor -> host from the calls that name both."""
    if call.op == RESET:
        hosts.update({executor: host for executor, host in call.input.get("executors", [])})
    elif call.op == "scheduler_add_executor":
        hosts[call.input["exec_id"]] = call.input["host"]
    elif call.op == "scheduler_resource_offers":
        for offer in call.input.get("offers", []):
            hosts.setdefault(offer["exec_id"], offer["host"])
