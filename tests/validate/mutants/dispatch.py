"""Mutants of ``spark-dispatch``: each is the reference with one plausible mistake."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from yarnspec.checks.validate.reference import Dispatch
from yarnspec.impl.spark.taskset.dispatch_conf import LocalityWaits
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager


class DelayTimerNeverReset(Dispatch):
    """A launch at a more local level never restarts the locality wait."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(TaskSetManager, "reset_delay_schedule_timer", lambda self, level, now: None):
            return super().step(op, input)


class NoLocalityWait(Dispatch):
    """Ignores ``spark.locality.wait``: every level is allowed at once."""

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().reset({**input, "conf": {**input.get("conf", {}), "spark.locality.wait": "0"}})


class WaitDoubled(Dispatch):
    """Waits twice as long at each level."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        original = LocalityWaits.wait_ms
        with patch.object(LocalityWaits, "wait_ms", lambda self, level: 2 * original(self, level)):
            return super().step(op, input)


class OffersReversed(Dispatch):
    """Walks the offers last to first."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        if op == "scheduler_resource_offers":
            input = {**input, "offers": input["offers"][::-1]}
        return super().step(op, input)


class LaunchedReversed(Dispatch):
    """Reports the launched tasks in reverse order."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        out = super().step(op, input)
        return {**out, "launched": out["launched"][::-1]}


class ExecutorPreferenceAsHost(Dispatch):
    """Reads an executor preference as a host preference (no PROCESS_LOCAL)."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        if op == "submit_task_set":
            tasks = [[{"kind": "host", "host": p["host"]} for p in prefs] for prefs in input["tasks"]]
            input = {**input, "tasks": tasks}
        return super().step(op, input)


class RacksIgnored(Dispatch):
    """Knows no racks (no RACK_LOCAL)."""

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().reset({**input, "host_rack": {}})


class FailedTaskNotRequeued(Dispatch):
    """A failed task is never queued again."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        if op != "handle_failed_task":
            return super().step(op, input)
        with patch.object(
            TaskSetManager, "add_pending_task", lambda self, index, resolve_racks=True, speculative=False: None
        ):
            return super().step(op, input)


class SuccessIgnored(Dispatch):
    """Drops the success reports: the task keeps running."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        return super().step(
            "observe" if op == "handle_successful_task" else op, {} if op == "handle_successful_task" else input
        )


class PriorityReversed(Dispatch):
    """Schedules later jobs first (FIFO order reversed)."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        if op == "submit_task_set":
            input = {**input, "priority": -input.get("priority", 0)}
        return super().step(op, input)


class OneTaskPerOffer(Dispatch):
    """Takes every offer as one core."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        if op == "scheduler_resource_offers":
            input = {**input, "offers": [{**o, "cores": 1} for o in input["offers"]]}
        return super().step(op, input)


class EmptyLevelsWaited(Dispatch):
    """Waits at a level with no task left (the SPARK-4939 fix missing)."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(TaskSetManager, "_level_has_tasks", lambda self, level: True):
            return super().step(op, input)


MUTANTS = (
    DelayTimerNeverReset,
    NoLocalityWait,
    WaitDoubled,
    OffersReversed,
    LaunchedReversed,
    ExecutorPreferenceAsHost,
    RacksIgnored,
    FailedTaskNotRequeued,
    SuccessIgnored,
    PriorityReversed,
    OneTaskPerOffer,
    EmptyLevelsWaited,
)
