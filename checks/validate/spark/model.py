"""yarnspec's own answer to the ``spark-dispatch`` contract: the ops of the process protocol
run on :mod:`yarnspec.impl.spark.task_scheduler`, each returning the observation the protocol
defines (docs/spark-validation.md). The differential run compares it with the real Spark.

Only ``yarnspec.impl`` is used to compute an answer (plus the conformance runner's task-set
reader), so the same code can drive the model of another checkout.

Multi-set semantics, as the Spark adapter implements them: ``handle_successful_task`` and
``handle_failed_task`` go to the task set that launched the task; the manager-level ops
(``resource_offer``, ``manager_*``, ``mark_*``, ``set_zombie``) act on the set submitted last.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from yarnspec.checks.conformance.spark_taskset_case import parse_task_set
from yarnspec.checks.validate.spark.process import AdapterError
from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import TaskLocality
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.task_scheduler import TaskSchedulerImpl, WorkerOffer
from yarnspec.impl.spark.taskset import dispatch_variant
from yarnspec.impl.spark.taskset.dispatch_conf import DispatchConf, parse_time_ms
from yarnspec.impl.spark.taskset.dispatch_variant import VARIANTS
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.impl.spark.taskset.tasks import (
    EndReason,
    ExecutorLoss,
    ExecutorLossReason,
    TaskDescription,
    TaskEndReason,
    TaskState,
)

#: Spark's ``spark.speculation.minTaskRuntime`` (default 100 ms): the least run time before a
#: task may be speculated.
MIN_TASK_RUNTIME = "spark.speculation.minTaskRuntime"
DEFAULT_MIN_TASK_RUNTIME_MS = 100
_SOURCE = "<spark-dispatch>"


def _end_reason(raw: Mapping[str, Any]) -> TaskEndReason:
    try:
        kind = EndReason(raw.get("type"))
    except ValueError:
        raise AdapterError(f"args.reason.type: unknown task end reason {raw.get('type')!r}") from None
    return TaskEndReason(kind, exit_caused_by_app=bool(raw.get("exit_caused_by_app", True)))


def _loss_reason(raw: Mapping[str, Any]) -> ExecutorLossReason:
    try:
        kind = ExecutorLoss(raw.get("type"))
    except ValueError:
        raise AdapterError(f"args.reason.type: unknown executor loss reason {raw.get('type')!r}") from None
    caused = raw.get("exit_caused_by_app") if kind is ExecutorLoss.EXITED else raw.get("caused_by_app", True)
    return ExecutorLossReason(kind, caused_by_app=bool(caused), worker_host=raw.get("worker_host"))


def _launch(task: TaskDescription) -> dict[str, Any]:
    return {
        "task_id": task.task_id,
        "stage": task.task_set,
        "index": task.index,
        "executor_id": task.executor_id,
        "host": task.host,
        "locality": task.locality.name,
        "speculative": task.speculative,
    }


def default_variant() -> str:
    """The model's default dispatch variant: ``DEFAULT_VARIANT`` where the model names one, else
    the first of ``VARIANTS`` (current Spark)."""
    return str(getattr(dispatch_variant, "DEFAULT_VARIANT", next(iter(VARIANTS))))


class ModelDispatchSession:
    """The model behind the ``spark-dispatch`` ops; ``reset`` starts a fresh scheduler."""

    def __init__(self, variant: str | None = None) -> None:
        self.variant = variant or default_variant()
        self.sched: TaskSchedulerImpl | None = None
        self.now = 0
        self.last: TaskSetManager | None = None
        self.min_task_runtime_ms = DEFAULT_MIN_TASK_RUNTIME_MS

    def reset(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """A scheduler for a taskset case's ``input`` (TaskSchedulerImpl, FIFO only)."""
        if payload.get("scheduler", "TaskSchedulerImpl") != "TaskSchedulerImpl":
            raise AdapterError("input.scheduler: only TaskSchedulerImpl sessions are compared")
        conf = dict(payload.get("conf", {}))
        self.min_task_runtime_ms = parse_time_ms(conf.get(MIN_TASK_RUNTIME, "100ms"), MIN_TASK_RUNTIME, _SOURCE)
        name = str(payload.get("variant", self.variant))
        if name not in VARIANTS:
            raise AdapterError(f"input.variant: unknown variant {name!r} (valid: {', '.join(VARIANTS)})")
        dispatch_conf = DispatchConf.from_spark_conf(conf, VARIANTS[name])
        if "max_task_failures" in payload:
            dispatch_conf = replace(dispatch_conf, max_task_failures=int(payload["max_task_failures"]))
        self.sched = TaskSchedulerImpl(
            dispatch_conf, RackResolver.from_mapping(payload.get("host_rack", {})), shuffle_offers=False
        )
        for executor_id, host in payload.get("executors", []):
            self.sched.add_executor(executor_id, host)
        self.now = int(payload.get("clock_start_ms", 0))
        self.last = None
        return {}

    def _manager(self, op: str) -> TaskSetManager:
        if self.last is None:
            raise AdapterError(f"{op} needs a task set, and none was submitted")
        return self.last

    def step(self, op: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """Run one step op and return its observation."""
        sched = self.sched
        if sched is None:
            raise AdapterError('no scheduler: send "reset" first')
        started = len(sched.log.started)
        speculated = len(sched.log.speculative)
        try:
            self._run(sched, op, args)
        except InputError as exc:
            raise AdapterError(str(exc)) from None
        except KeyError as exc:
            raise AdapterError(f"{op}: unknown {exc}") from None
        return self.observation(
            sched, sched.log.started[started:], sched.log.speculative[speculated:], op == "check_speculatable"
        )

    def _run(self, sched: TaskSchedulerImpl, op: str, args: Mapping[str, Any]) -> None:
        if op == "submit_task_set":
            self.last = sched.submit_tasks(parse_task_set(dict(args), "args"), self.now)
        elif op == "scheduler_resource_offers":
            if args.get("shuffle", "none") != "none":
                raise AdapterError("args.shuffle: only the given offer order is compared")
            offers = [WorkerOffer(o["exec_id"], o["host"], int(o["cores"])) for o in args["offers"]]
            sched.resource_offers(
                offers, self.now, bool(args.get("is_all_free_resources", True)), order=range(len(offers))
            )
        elif op == "resource_offer":
            level = TaskLocality.parse(str(args.get("max_locality", "ANY")), "args.max_locality", _SOURCE)
            self._manager(op).resource_offer(args["exec_id"], args["host"], level, self.now)
        elif op == "advance_clock":
            self.now += int(args["ms"])
        elif op == "handle_successful_task":
            sched.task_succeeded(int(args["task_id"]), self.now)
        elif op == "handle_failed_task":
            state = TaskState(args.get("state", "FAILED"))
            sched.task_failed(int(args["task_id"]), state, _end_reason(args["reason"]), self.now)
        elif op == "scheduler_executor_lost":
            sched.executor_lost(args["exec_id"], _loss_reason(args["reason"]), self.now)
        elif op == "scheduler_decommission_executor":
            sched.executor_decommission(args["exec_id"], args.get("worker_host"))
        elif op == "manager_executor_added":
            self._manager(op).executor_added()
        elif op == "manager_executor_lost":
            self._manager(op).executor_lost(args["exec_id"], args["host"], _loss_reason(args["reason"]), self.now)
        elif op == "mark_running_tasks_launched":
            manager = self._manager(op)
            for task_id in manager.running:
                manager.task_running(task_id)
        elif op == "mark_speculatable":
            manager = self._manager(op)
            for index in args["task_indices"]:
                manager.mark_speculatable(int(index))
        elif op == "set_zombie":
            self._manager(op).is_zombie = bool(args["value"])
        elif op == "check_speculatable":
            for manager in list(sched.pool):
                manager.check_speculatable_tasks(self.min_task_runtime_ms, self.now)
        elif op != "observe":
            raise AdapterError(f"unknown op {op}")

    def observation(
        self,
        sched: TaskSchedulerImpl,
        launched: list[TaskDescription],
        speculated: list[tuple[str, int]],
        with_speculatable: bool,
    ) -> dict[str, Any]:
        """The protocol's observation of the scheduler after a step."""
        failed = {name for name, _ in sched.log.failed_task_sets}
        managers = sorted(sched.pool, key=lambda m: (m.task_set.stage_id, m.task_set.stage_attempt_id))
        task_sets = [
            {
                "stage": m.name,
                "my_locality_levels": [level.name for level in m.levels],
                "running_task_ids": sorted(m.running),
                "successful_indices": [i for i, done in enumerate(m.successful) if done],
                "zombie": m.is_zombie,
                "failed": m.name in failed,
            }
            for m in managers
        ]
        observed: dict[str, Any] = {
            "launched": [_launch(t) for t in sorted(launched, key=lambda t: t.task_id)],
            "task_sets": task_sets,
        }
        if with_speculatable:
            observed["speculatable"] = [index for _, index in speculated]
        return observed
