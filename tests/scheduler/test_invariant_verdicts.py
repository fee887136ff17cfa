"""The model's remembered state-invariant verdicts (:mod:`yarnspec.spec.scheduler.verdicts`):
every state invariant reads only the accounting fields it is remembered by, a verdict read
back is the one its predicate gives, a corrupted state is still caught after a correct one, a
plug-in's invariant runs on every state, and the cache stays within its bound."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tests.scheduler.test_invariants_must_fail import BROKEN_STATES, STATE, WORLD
from tests.scheduler.walks import Step as Walked
from tests.scheduler.walks import walks
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler import invariants as inv
from yarnspec.spec.scheduler.model import ModelState, SchedulerModel
from yarnspec.spec.scheduler.sums import Sums
from yarnspec.spec.scheduler.verdicts import Verdicts, accounting
from yarnspec.spec.transition_system import first_violation


class AccountingOnly:
    """A state offering only :data:`~yarnspec.spec.scheduler.invariants.ACCOUNTING_FIELDS`
    (and container lookup, which reads the containers): reading anything else fails."""

    __slots__ = inv.ACCOUNTING_FIELDS
    container = SchedulerState.container

    def __init__(self, state: SchedulerState) -> None:
        for name in inv.ACCOUNTING_FIELDS:
            setattr(self, name, getattr(state, name))


def _verdicts_on_accounting_only(world: World, state: SchedulerState) -> None:
    """Each state invariant gives the same verdict on the accounting part alone."""
    full, part = inv.SchedulerStep(world, state), inv.SchedulerStep(world, AccountingOnly(state))  # type: ignore[arg-type]
    for invariant in inv.STATE_INVARIANTS:
        assert invariant.predicate(part) == invariant.predicate(full), invariant.name


@pytest.mark.parametrize("name", sorted(BROKEN_STATES))
def test_each_state_invariant_reads_only_the_accounting_fields_of_a_broken_state(name: str) -> None:
    _verdicts_on_accounting_only(WORLD, BROKEN_STATES[name](STATE))


@settings(max_examples=40, deadline=None)
@given(walks())
def test_each_state_invariant_reads_only_the_accounting_fields_of_reachable_states(
    walk: tuple[World, list[Walked]],
) -> None:
    world, steps = walk
    for _, _, after in steps:
        _verdicts_on_accounting_only(world, after)


def _model_verdict(model: SchedulerModel, state: SchedulerState) -> tuple[str, str] | None:
    """The model's verdict on ``state``, its invariants one by one and in one call (the
    explorer's) alike: both are asked, the combined call first, so it meets the cache as the
    explorer leaves it."""
    combined = model.first_violation(ModelState(state))
    one_by_one = first_violation(model.invariants(), ModelState(state))
    assert combined == one_by_one
    return combined


def _first(state: SchedulerState) -> tuple[str, str] | None:
    found = inv.check_state(WORLD, state)
    return found[0] if found else None


def test_a_broken_state_is_caught_between_correct_ones_with_its_own_message() -> None:
    """Remembering never masks a fault: the verdict of each state is its predicates' own,
    whatever was checked before (a correct state with the same clock, the same broken state
    again, another correct state with the same accounting part)."""
    model = SchedulerModel(WORLD, progress=False)
    later = STATE._replace(clock=STATE.clock + 1000)
    for name, breaking in BROKEN_STATES.items():
        broken = breaking(STATE)
        assert _model_verdict(model, STATE) is None
        found = _model_verdict(model, broken)
        assert found is not None and found == _first(broken), name
        assert _model_verdict(model, broken._replace(clock=broken.clock + 1)) == found
        assert _model_verdict(model, later) is None


def test_states_with_one_accounting_part_share_their_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[SchedulerState] = []
    original = Sums.of

    def counting(world: World, state: SchedulerState) -> Sums:
        calls.append(state)
        return original(world, state)

    monkeypatch.setattr(Sums, "of", staticmethod(counting))
    model = SchedulerModel(WORLD, progress=False)
    twins = [STATE._replace(clock=STATE.clock + t, sorted_at=t) for t in range(5)]
    broken = BROKEN_STATES["node-used-is-sum-of-containers"](STATE)
    for state in (*twins, broken, *twins, broken):
        _model_verdict(model, state)
    assert len(calls) == 2 and accounting(calls[0]) == accounting(STATE) and calls[1] is broken


def test_a_plug_in_state_invariant_runs_on_every_state() -> None:
    """A state invariant that is not the catalogue's may read any field: never remembered."""
    odd_clock = inv.SchedulerInvariant(
        "odd-clock", "the clock is even", "a test", lambda step: "odd" if step.after.clock % 2 else None
    )
    model = SchedulerModel(WORLD, progress=False, extra_invariants=(odd_clock,))
    assert _model_verdict(model, STATE._replace(clock=2)) is None
    assert _model_verdict(model, STATE._replace(clock=3)) == ("odd-clock", "odd")
    assert _model_verdict(model, STATE._replace(clock=4)) is None


def test_the_cache_stays_within_its_capacity_and_still_answers() -> None:
    verdicts = Verdicts(WORLD, inv.STATE_INVARIANTS, capacity=2)
    states = [STATE, *(breaking(STATE) for breaking in BROKEN_STATES.values())]
    for state in states * 2:
        got = [verdicts.state_verdict(i, state) for i in range(len(inv.STATE_INVARIANTS))]
        assert got == [i.predicate(inv.SchedulerStep(WORLD, state)) for i in inv.STATE_INVARIANTS]
        assert len(verdicts._states) <= 2


def test_the_combined_check_reports_broken_step_invariants_in_catalogue_order() -> None:
    """A state reached by a step that broke step invariants: the combined check names the
    first in the catalogue's order (not the order the step listed them), after any state
    invariant, as the invariants checked one by one do."""
    odd_step = inv.SchedulerInvariant(
        "odd-step", "a plug-in step invariant", "a test", lambda step: None, frozenset({"commit"})
    )
    model = SchedulerModel(WORLD, progress=False, extra_invariants=(odd_step,))
    step_names = [i.name for i in inv.STEP_INVARIANTS]
    reached = ModelState(STATE, (("odd-step", "odd"), (step_names[1], "second"), (step_names[0], "first")))
    assert model.first_violation(reached) == first_violation(model.invariants(), reached) == (step_names[0], "first")
    only_plug_in = ModelState(STATE, (("odd-step", "odd"),))
    assert model.first_violation(only_plug_in) == ("odd-step", "odd")
    broken = BROKEN_STATES["node-used-is-sum-of-containers"](STATE)
    both = ModelState(broken, ((step_names[0], "first"),))
    assert model.first_violation(both) == first_violation(model.invariants(), both) == _first(broken)
