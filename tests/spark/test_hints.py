"""Driver-side locality hints (semantics 2)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.spark.hints import HintTracker, LocalityAwareCount, PlacementHints, StageAttempt, stage_hints


def test_only_tasks_with_preferences_are_locality_aware() -> None:
    hints = stage_hints([["a", "b"], [], ["b"], []])
    assert hints.num_locality_aware_tasks == 2
    assert hints.as_dict() == {"a": 1, "b": 2}


def test_every_preference_counts_even_twice_on_one_host() -> None:
    # An executor preference and a host preference on the same host: two +1s.
    assert stage_hints([["a", "a", "c"]]).as_dict() == {"a": 2, "c": 1}


def test_the_seed_excerpts_reading_counts_every_task() -> None:
    hints = stage_hints([["a"], [], []], LocalityAwareCount.ALL_TASKS)
    assert hints.num_locality_aware_tasks == 3
    assert hints.as_dict() == {"a": 1}


def test_active_stages_add_up_and_a_completed_stage_drops_out() -> None:
    tracker = HintTracker().stage_submitted(StageAttempt(1), [["a", "b"], ["b"]])
    tracker = tracker.stage_submitted(StageAttempt(2), [["b", "c"], []])
    assert tracker.current() == PlacementHints(3, (("a", 1), ("b", 3), ("c", 1)))
    tracker = tracker.stage_completed(StageAttempt(1))
    assert tracker.current() == PlacementHints(1, (("b", 1), ("c", 1)))
    assert tracker.stage_completed(StageAttempt(2)).current() == PlacementHints()


def test_resubmitting_an_attempt_replaces_it_and_attempts_are_separate() -> None:
    tracker = HintTracker().stage_submitted(StageAttempt(1), [["a"]]).stage_submitted(StageAttempt(1), [["b"]])
    assert tracker.current().as_dict() == {"b": 1}
    tracker = tracker.stage_submitted(StageAttempt(1, attempt=1), [["b"]])
    assert tracker.current().as_dict() == {"b": 2}


def test_completing_an_unknown_stage_changes_nothing() -> None:
    tracker = HintTracker().stage_submitted(StageAttempt(1), [["a"]])
    assert tracker.stage_completed(StageAttempt(9)) == tracker


def test_hosts_are_the_hint_keys() -> None:
    assert stage_hints([["a"], ["b", "a"]]).hosts == frozenset({"a", "b"})


stage_tasks = st.lists(st.lists(st.sampled_from("abcde"), max_size=3), max_size=6)


@settings(max_examples=100, deadline=None)
@given(st.lists(stage_tasks, min_size=1, max_size=4), st.data())
def test_sum_equals_the_hints_of_all_active_tasks_together(stages: list[list[list[str]]], data: st.DataObject) -> None:
    tracker = HintTracker()
    for index, tasks in enumerate(stages):
        tracker = tracker.stage_submitted(StageAttempt(index), tasks)
    done = data.draw(st.sets(st.integers(0, len(stages) - 1)))
    for index in done:
        tracker = tracker.stage_completed(StageAttempt(index))
    remaining = [task for index, tasks in enumerate(stages) if index not in done for task in tasks]
    together = stage_hints(remaining)
    current = tracker.current()
    assert current.num_locality_aware_tasks == together.num_locality_aware_tasks
    assert current.as_dict() == together.as_dict()
