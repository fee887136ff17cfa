"""Generated walks of the scheduler model for property tests: a world (generated or named, as
the state machine draws them) and the steps of a walk under the suite's walk policy."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.scheduler import test_state_machine as machine
from yarnspec.checks.suites.scheduler import WalkPolicy
from yarnspec.impl.scheduler.actions import Action, enabled, kind, start, take
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World

Step = tuple[SchedulerState, Action, SchedulerState]


@st.composite
def walks(draw: st.DrawFn, max_steps: int = 40) -> tuple[World, list[Step]]:
    """A world and up to ``max_steps`` steps ``(before, action, after)`` of one walk."""
    world, phased = draw(machine.worlds())
    policy = WalkPolicy(phased)
    state = start(world)
    steps: list[Step] = []
    for _ in range(draw(st.integers(0, max_steps))):
        allowed = policy.allowed(world, state, enabled(world, state))
        if not allowed:
            break
        chosen = draw(st.sampled_from(policy.weighted_kinds(allowed)))
        action = draw(st.sampled_from([a for a in allowed if kind(a) == chosen]))
        policy.taken(action)
        after = take(world, state, action).state
        steps.append((state, action, after))
        state = after
    return world, steps
