"""Seed 004's Superior scheduler: its guarantee rule as a named variant, the seed's worked
example (``docs/examples/cases/seed004-superior.json``) and the rule as a property."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.outcome import CaseVerdict
from yarnspec.impl.preemption.superior import (
    EVERY_TYPE_GUARD,
    GUARDS,
    SUPERIOR_GUARD,
    MinimumGuard,
    SuperiorQueue,
    SuperiorState,
    Task,
    superior_round,
)
from yarnspec.impl.resources import Resource

CASE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "cases" / "seed004-superior.json"
GB = 1024


def r(gb: int, vcores: int) -> Resource:
    return Resource.of(gb * GB, vcores)


def test_the_worked_example_passes() -> None:
    outcome = runner.run_one(CASE)
    assert outcome.verdict is CaseVerdict.PASS, outcome.detail


def two_queues(queue1_tasks: int, task: Resource, minimum1: Resource) -> SuperiorState:
    running = [Task("job1", "queue1", r(2, 1), True, 0)]
    running += [Task("job1", "queue1", task, False, i + 1) for i in range(queue1_tasks)]
    running += [Task("job2", "queue2", r(2, 1), True, 100)]
    queues = (SuperiorQueue("queue1", minimum1), SuperiorQueue("queue2", r(10, 5)))
    return SuperiorState(r(40, 40), queues, tuple(running), (("queue2", r(8, 4)),))


def test_the_seed_rule_protects_a_queue_within_its_minimum_in_one_type_only() -> None:
    """queue1 uses few vcores (within its 5-vcore minimum) but much memory: the seed's rule
    protects it, the every-type rule does not."""
    state = two_queues(queue1_tasks=3, task=r(12, 1), minimum1=r(10, 5))  # queue1 <38 GB, 4 vcores>
    assert superior_round(state, SUPERIOR_GUARD) == ()
    taken = superior_round(state, EVERY_TYPE_GUARD)
    assert taken and all(t.queue == "queue1" and not t.is_am for t in taken)


def test_preemption_stops_when_the_victim_reaches_its_minimum_and_at_the_per_interval_limit() -> None:
    state = two_queues(queue1_tasks=8, task=r(4, 2), minimum1=r(30, 15))  # queue1 <34 GB, 17 vcores>
    taken = superior_round(state, SUPERIOR_GUARD)
    assert len(taken) == 1  # after one task queue1 is at <30 GB, 15 vcores>: within its minimum
    assert superior_round(two_queues(8, r(4, 2), r(1, 1)), SUPERIOR_GUARD, max_per_interval=1) == taken[:1]


@st.composite
def states(draw: st.DrawFn) -> SuperiorState:
    queues = tuple(
        SuperiorQueue(f"q{i}", r(draw(st.integers(0, 12)), draw(st.integers(0, 12))), draw(st.sampled_from([1.0, 2.0])))
        for i in range(draw(st.integers(2, 3)))
    )
    running = []
    for i in range(draw(st.integers(0, 12))):
        queue = draw(st.sampled_from(queues)).name
        running.append(
            Task(f"app-{queue}", queue, r(draw(st.integers(1, 4)), draw(st.integers(1, 4))), draw(st.booleans()), i)
        )
    pending = tuple((q.name, r(draw(st.integers(0, 8)), draw(st.integers(0, 8)))) for q in queues)
    return SuperiorState(r(40, 40), queues, tuple(running), pending)


@settings(max_examples=200)
@given(states(), st.sampled_from(GUARDS), st.integers(-1, 3))
def test_no_protected_queue_and_no_master_is_ever_preempted(
    state: SuperiorState, guard: MinimumGuard, limit: int
) -> None:
    taken = superior_round(state, guard, limit)
    assert limit < 0 or len(taken) <= limit
    left = list(state.running)
    minimum = {q.name: q.minimum for q in state.queues}
    for task in taken:
        assert not task.is_am and task in left
        used = Resource.of(0, 0)
        for other in left:
            if other.queue == task.queue:
                used = used + other.resource
        within = [u <= m for u, m in zip(used.values, minimum[task.queue].values)]
        assert not (any(within) if guard.any_type else all(within)), f"{task.queue} was protected at {used}"
        left.remove(task)
