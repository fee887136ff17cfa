"""ACME's own properties of the scheduler model, registered with yarnspec through the
``yarnspec.properties`` entry point in this project's ``pyproject.toml``.

Each is computed from the model's state alone (``World`` is the static part: nodes, apps,
queues; ``SchedulerState`` the dynamic one), so it says what must hold without reusing the
scheduler's own code.
"""

from __future__ import annotations

from collections import Counter

from yarnspec.impl.scheduler.state import ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.property_catalogue import ProgressProperty
from yarnspec.spec.scheduler.invariants import SchedulerInvariant, SchedulerStep


def waiting_for_am(world: World, state: SchedulerState) -> bool:
    """Some submitted application still waits for its application master's container."""
    return any(app is not None and app.live and app.asks[0] > 0 for app in state.apps)


def one_reservation_per_app(step: SchedulerStep) -> str | None:
    """``None`` when no application holds more than one reserved container, else what is wrong."""
    world, state = step.world, step.after
    reserved = Counter(c.app for c in state.containers if c.state == ContainerState.RESERVED)
    for app, count in sorted(reserved.items()):
        if count > 1:
            return f"{world.apps[app].name} holds {count} reservations"
    return None


def properties() -> list[ProgressProperty | SchedulerInvariant]:
    """What this project registers (the entry point's target)."""
    return [
        ProgressProperty(
            "am-progress",
            premise=waiting_for_am,
            description="a submitted application's master container is eventually allocated",
            source="ACME operations",
        ),
        SchedulerInvariant(
            "one-reservation-per-app",
            "no application holds more than one reserved container",
            "ACME operations",
            one_reservation_per_app,
        ),
    ]
