"""The preemption monitor's action: one round of the policy every monitoring interval, with
the scheduler's handling of its events. This is the kind (its guard, then its step); the
effect itself is :mod:`yarnspec.impl.scheduler.monitor.scheduling_monitor`'s."""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.scheduler.actions.kind import ActionKind, Context, StepResult, once
from yarnspec.impl.scheduler.monitor.scheduling_monitor import monitor_due, run_monitor


@dataclass(frozen=True, slots=True)
class Monitor:
    """The preemption monitor runs one round."""


def _explain(context: Context, action: Monitor) -> StepResult:
    """The round's state, its marks, kills and dropped reservations noted by count."""
    result = run_monitor(context.world, context.state, context.memo)
    counts = (("marked", result.marked), ("killed", result.killed), ("unreserved", result.unreserved))
    return StepResult(result.state, ", ".join(f"{name} {len(ids)}" for name, ids in counts if ids))


MONITOR = ActionKind(
    "monitor",
    Monitor,
    once,
    guard=lambda c, a: monitor_due(c.world, c.state),
    step=lambda c, a: run_monitor(c.world, c.state, c.memo).state,
    explain=_explain,
    fair=True,
    possible=lambda world: world.settings.preemption is not None,
)

#: The monitor's kinds.
KINDS: tuple[ActionKind, ...] = (MONITOR,)
