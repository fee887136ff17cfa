"""Contract ``scheduler``: the CapacityScheduler as a whole, action by action.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity
.CapacityScheduler`` (``allocateContainersToNode``, the asynchronous ``tryCommit``,
``completedContainer``, node added/removed) with its ``LeafQueue``/``ParentQueue`` limits.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict, runtime_checkable


class SchedulerObservation(TypedDict, total=False):
    """Observable state after an action: per node its used memory/vcores and reservation,
    per queue its used resource per partition, per app its live container count."""

    nodes: dict[str, dict[str, Any]]
    queues: dict[str, dict[str, list[int]]]
    apps: dict[str, int]


@runtime_checkable
class Scheduler(Protocol):
    """The model's transition system seen from outside.

    ``reset`` takes ``{"world": name, "parameters": {...}}`` (a world of
    :data:`yarnspec.spec.named_worlds.WORLDS` and its variant parameters); ``step`` takes
    ``{"action": label}``, one enabled action as the explorer labels it in its traces, and
    returns a :class:`SchedulerObservation`.

    Observable after every step: ``nodes`` (used, free and reservation per live node),
    ``queues`` (used per partition) and ``apps`` (live containers per app), each exactly and
    each optional. The reference adapter (``yarnspec.checks.validate.reference.Scheduler``)
    replays the actions on :class:`yarnspec.spec.scheduler_model.SchedulerModel`.
    """

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """Start from the scenario's initial state; answers ``{}``."""
        ...

    def step(self, input: dict[str, Any]) -> SchedulerObservation:
        """Take one enabled action."""
        ...
