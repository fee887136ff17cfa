"""A Hypothesis state machine over every action of the scheduler model, in every variant.

Each example draws a small world: generated (:func:`yarnspec.checks.suites.scheduler.generate_world`)
for one behaviour combination of :data:`~yarnspec.checks.suites.scheduler.VARIANTS` (heartbeat
or asynchronous, single- or multi-node, each commit variant, YARN-10259), or one of the named
worlds of :mod:`yarnspec.spec.scheduler.model` (the seed stories). It then takes actions as
the suite's walks do (:class:`~yarnspec.checks.suites.scheduler.WalkPolicy`): each step draws
a kind among the allowed enabled kinds, weighted so the scheduler's steps come often and lost
nodes rarely, and one action of that kind. One rule rather than one per kind: rules whose
precondition fails would make Hypothesis discard most examples where few kinds are enabled. After every step the whole
catalogue must hold: every state invariant, and the step invariants of the step taken. Under
``pre-8127`` the duplicate commit is the known bug: once it has happened, only the invariants
it breaks (:data:`~yarnspec.checks.suites.scheduler.LEAK_INVARIANTS`) may fail.

``hypothesis.event`` records the action kinds and paths reached (run pytest with
``--hypothesis-show-statistics``); ``HYPOTHESIS_PROFILE=long`` runs many more examples.
"""

from __future__ import annotations

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from yarnspec.checks.suites.scheduler import (
    LEAK_INVARIANTS,
    VARIANTS,
    VariantChoice,
    WalkPolicy,
    duplicate_commit,
    generate_world,
    paths,
    shipped_worlds,
)
from yarnspec.checks.suites.strategies import HypothesisChooser
from yarnspec.impl.scheduler.actions import Action, enabled, kind, start, take
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler.invariants import check_state, check_step

NAMED = shipped_worlds()


@st.composite
def worlds(
    draw: st.DrawFn, variant: st.SearchStrategy[VariantChoice] = st.sampled_from(VARIANTS)
) -> tuple[World, bool]:
    """A world and whether the walk is phased: a generated world for one behaviour
    combination, or one of the shipped worlds (phased as the suite walks them)."""
    if draw(st.booleans()):
        return draw(st.sampled_from(NAMED))
    return generate_world(HypothesisChooser(draw), draw(variant)), draw(st.booleans())


class SchedulerMachine(RuleBasedStateMachine):
    """One rule taking an enabled action; invariant: the whole catalogue."""

    def __init__(self) -> None:
        super().__init__()
        self.world: World | None = None
        self.state: SchedulerState | None = None
        self.leaked = False
        self.policy = WalkPolicy()
        self._cached: tuple[SchedulerState, list[Action]] | None = None

    @initialize(setup=worlds())
    def start_world(self, setup: tuple[World, bool]) -> None:
        world, phased = setup
        self.world = world
        self.state = start(world)
        self.policy = WalkPolicy(phased)
        event(f"variant {world.name}")

    def take(self, action: Action) -> None:
        """Take one action, check the step invariants, record events."""
        assert self.world is not None and self.state is not None
        before = self.state
        result = take(self.world, before, action)
        self.state = result.state
        self.leaked = self.leaked or duplicate_commit(self.world, before, action, result.note)
        for reached in sorted(paths(self.world, before, action, result.state, result.note)):
            event(reached)
        broken = check_step(self.world, before, action, result.state)
        assert not broken, broken

    @invariant()
    def catalogue_holds(self) -> None:
        if self.world is None or self.state is None:
            return
        allowed = LEAK_INVARIANTS if self.leaked else frozenset()
        broken = [(name, message) for name, message in check_state(self.world, self.state) if name not in allowed]
        assert not broken, broken
        if self.leaked:
            event("YARN-8127 leak reproduced (pre-8127)")

    @rule(data=st.data())
    def take_action(self, data: st.DataObject) -> None:
        """Draw a kind among the kinds the walk policy allows (weighted as the suite's walks),
        then one action of that kind; nothing once the walk is over."""
        assert self.world is not None and self.state is not None
        if self._cached is None or self._cached[0] is not self.state:
            self._cached = (self.state, enabled(self.world, self.state))
        allowed = self.policy.allowed(self.world, self.state, self._cached[1])
        if not allowed:
            event("walk over: only cluster churn left")
            return
        chosen = data.draw(st.sampled_from(self.policy.weighted_kinds(allowed)))
        action = data.draw(st.sampled_from([a for a in allowed if kind(a) == chosen]))
        self.policy.taken(action)
        self.take(action)


SchedulerMachine.TestCase.settings = settings(stateful_step_count=100, deadline=None)
TestSchedulerMachine = SchedulerMachine.TestCase
