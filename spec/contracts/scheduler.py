"""Contract ``scheduler``: the CapacityScheduler as a whole, action by action.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity
.CapacityScheduler`` (``allocateContainersToNode``, the asynchronous ``tryCommit``,
``completedContainer``, node added/removed) with its ``LeafQueue``/``ParentQueue`` limits.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict, runtime_checkable


class SchedulerObservation(TypedDict, total=False):
    """Observable state after an action: per node its used memory/vcores and reservation,
    per queue its used resource, per app its live container count."""

    nodes: dict[str, dict[str, Any]]
    queues: dict[str, dict[str, int]]
    apps: dict[str, int]


@runtime_checkable
class Scheduler(Protocol):
    """The model's transition system seen from outside.

    ``reset`` takes a scenario name (``yarnspec explore --list``) and a variant; ``step`` takes
    one action label as the explorer prints it (``heartbeat n1``, ``commit p0``, ...) and
    returns a :class:`SchedulerObservation`.

    Observable after every step: ``nodes`` and ``queues`` exactly, ``apps`` exactly; each
    optional. The reference adapter replays actions on
    :class:`yarnspec.spec.scheduler_model.SchedulerModel`.
    """

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """Start from the scenario's initial state; answers ``{}``."""
        ...

    def step(self, action: str) -> SchedulerObservation:
        """Take one enabled action."""
        ...
