"""Mark, then kill after the wait (semantics A.12): events and marks over several rounds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.preemption.builders import HARNESS, ClusterBuilder, one_round, two_leaves
from yarnspec.impl.cluster import ROOT, ClusterSnapshot, ContainerId
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.marks import send_events
from yarnspec.impl.preemption.result import EventType, PolicyState, RoundResult

MARK = EventType.MARK_CONTAINER_FOR_PREEMPTION
KILL = EventType.MARK_CONTAINER_FOR_KILLABLE


def kinds(result: RoundResult) -> dict[EventType, int]:
    """Event counts by kind."""
    counts: dict[EventType, int] = {}
    for event in result.events:
        counts[event.kind] = counts.get(event.kind, 0) + 1
    return counts


def expire_kill() -> ClusterSnapshot:
    """``testExpireKill``-like: 10 to take from a."""
    return two_leaves(used=(100, 0), pending=(0, 10)).build()


def test_mark_then_nothing_then_kill_after_the_wait() -> None:
    """``testExpireKill``: t=0 -> 10 marks; t=5000 -> nothing new; t=10001 -> 10 kills."""
    snapshot = expire_kill()
    first = one_round(snapshot, now_ms=0)
    assert kinds(first) == {MARK: 10}
    assert set(first.state.marks.values()) == {0}
    second = one_round(snapshot, now_ms=5000, state=first.state)
    assert second.events == () and second.state.marks == first.state.marks
    third = one_round(snapshot, now_ms=10001, state=second.state)
    assert kinds(third) == {KILL: 10}
    assert {e.container_id for e in third.events} == set(first.state.marks)
    assert dict(third.state.marks) == {}


def test_kill_exactly_at_the_wait() -> None:
    first = one_round(expire_kill(), now_ms=0)
    assert kinds(one_round(expire_kill(), now_ms=9999, state=first.state)) == {}
    assert kinds(one_round(expire_kill(), now_ms=10000, state=first.state)) == {KILL: 10}


def test_marks_expire_after_twice_the_wait() -> None:
    """A container that is no longer chosen keeps its mark until ``mark + 2 x wait < now``."""
    first = one_round(expire_kill(), now_ms=0)
    calm = two_leaves(used=(50, 0), pending=(0, 0)).build()  # nothing to take any more
    kept = one_round(calm, now_ms=20000, state=first.state)
    assert kept.events == () and len(kept.state.marks) == 10
    gone = one_round(calm, now_ms=20001, state=kept.state)
    assert dict(gone.state.marks) == {}
    # chosen again later, it starts over with a fresh mark instead of a kill
    again = one_round(expire_kill(), now_ms=20002, state=gone.state)
    assert kinds(again) == {MARK: 10}


def test_observe_only_sends_nothing_and_keeps_the_marks() -> None:
    builder = two_leaves(used=(95, 0), pending=(0, 10))
    builder.run(1, 1, size=5, reserved=True)
    snapshot = builder.build()
    prior = one_round(expire_kill(), now_ms=0).state
    result = one_round(snapshot, HARNESS.replace(observe_only=True), now_ms=50000, state=prior)
    assert result.selected  # the round still decides
    assert result.events == ()  # but sends nothing, not even KILL_RESERVED_CONTAINER
    assert result.state is prior
    normal = one_round(snapshot, now_ms=0)
    assert kinds(normal)[EventType.KILL_RESERVED_CONTAINER] == 1


def satisfied_queues() -> ClusterSnapshot:
    """Both a and b are over their guarantee with demand; only the balance selector moves."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 30, 100, pending=50)
    builder.queue("root.b", 30, 100, pending=50)
    builder.queue("root.c", 40, 100)
    builder.run(builder.app("root.a"), 40)
    builder.run(builder.app("root.b"), 60)
    return builder.build()


def test_the_balance_selector_waits_its_own_time() -> None:
    config = HARNESS.replace(preemption_to_balance_enabled=True, preemption_to_balance_max_wait_ms=30000)
    first = one_round(satisfied_queues(), config, now_ms=0)
    fifo, balance = first.selectors
    assert fifo.selected == () and len(balance.selected) == 10
    assert (fifo.kill_wait_ms, balance.kill_wait_ms) == (10000, 30000)
    assert {e.selector for e in first.events} == {"fifo-balance"}
    # 10000 ms is enough for the normal selector's containers, not for the balance selector's
    assert kinds(one_round(satisfied_queues(), config, now_ms=10000, state=first.state)) == {}
    assert kinds(one_round(satisfied_queues(), config, now_ms=30000, state=first.state)) == {KILL: 10}


def test_balance_wait_of_zero_falls_back_to_the_default_wait() -> None:
    config = HARNESS.replace(preemption_to_balance_enabled=True, preemption_to_balance_max_wait_ms=0)
    result = one_round(satisfied_queues(), config)
    assert result.selectors[1].kill_wait_ms == 10000


def test_the_state_is_not_shared_between_rounds() -> None:
    first = one_round(expire_kill(), now_ms=0)
    before = dict(first.state.marks)
    one_round(expire_kill(), now_ms=10000, state=first.state)
    assert dict(first.state.marks) == before


@settings(max_examples=60)
@given(
    clock=st.lists(st.integers(min_value=0, max_value=4000), min_size=1, max_size=6),
    wait=st.integers(min_value=0, max_value=5000),
    take=st.integers(min_value=1, max_value=30),
)
def test_kills_only_after_the_wait_and_marks_never_outlive_twice_the_wait(
    clock: list[int], wait: int, take: int
) -> None:
    snapshot = two_leaves(used=(100, 0), pending=(0, take)).build()
    config = HARNESS.replace(max_wait_before_kill_ms=wait, natural_termination_factor=0.5)
    state, now = PolicyState(), 0
    for step in clock:
        now += step
        result = one_round(snapshot, config, now_ms=now, state=state)
        for event in result.events:
            marked = state.marks.get(event.container_id)
            if event.kind is KILL:
                assert marked is not None and marked + wait <= now
            else:
                assert event.kind is MARK and marked is None
        assert all(at + 2 * wait >= now for at in result.state.marks.values())
        assert all(at <= now for at in result.state.marks.values())
        state = result.state


def test_send_events_directly() -> None:
    """Mark times are kept per container id, and a kill forgets the mark."""
    result = one_round(expire_kill(), now_ms=0)
    selector = result.selectors[0]
    config: PreemptionConfig = HARNESS
    state = PolicyState()
    events, state = send_events([selector], [], state, config, 100)
    assert all(e.kind is MARK for e in events) and set(state.marks.values()) == {100}
    events, state = send_events([selector], [], state, config, 10100)
    assert all(e.kind is KILL for e in events) and dict(state.marks) == {}
    assert ContainerId(1, 100) in {e.container_id for e in events}
