"""The bounds that keep a scheduler model finite (:class:`Bounds`)."""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.inputs.specs import WORLD


@dataclass(frozen=True)
class Bounds:
    """Limits that keep the model finite (the explorer enumerates every state below them).

    ``max_clock_ms``: the clock stops there; ``tick_ms``: one clock step. ``max_proposals``:
    asynchronous proposals in flight at once (the scheduler threads). ``max_ask``: outstanding
    containers per request. ``max_containers``: container ids handed out in one run.
    ``max_rereservations``: the re-reservation counter saturates there (seed 002's starvation
    term only grows with it). ``node_churn``: whether nodes may be lost and join (a story that
    does not need it explores far fewer states without).

    ``endless``: the model runs for ever in finitely many states, so a behaviour that repeats
    (a preemption cycle) closes into a loop. Once the clock reaches ``max_clock_ms`` time still
    passes: a tick moves every time stamp (last monitor round, last sort, marks, allocation
    times) back by ``tick_ms``, down to ``max_clock_ms`` less the world's time horizon (the
    longest span any decision looks back, :func:`time_horizon`), where every stamp acts alike;
    and container ids are renumbered by rank after every step (only their order matters), so
    ``max_containers`` bounds the ids in use at once rather than the ids ever handed out.
    """

    max_clock_ms: int = 60000
    tick_ms: int = 1000
    max_proposals: int = 2
    max_ask: int = 2
    max_containers: int = 24
    max_rereservations: int = 4
    node_churn: bool = True
    endless: bool = False


def check_bounds(bounds: Bounds) -> None:
    for name in ("max_clock_ms", "tick_ms", "max_proposals", "max_ask", "max_containers", "max_rereservations"):
        value = getattr(bounds, name)
        lowest = 0 if name == "max_clock_ms" else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise InputError(WORLD, f"bounds.{name}", f"expected a whole number >= {lowest}, found {value!r}")
    for name in ("node_churn", "endless"):
        if not isinstance(getattr(bounds, name), bool):
            raise InputError(WORLD, f"bounds.{name}", f"expected true or false, found {getattr(bounds, name)!r}")
