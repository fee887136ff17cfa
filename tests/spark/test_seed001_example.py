"""The worked example of seed article 001 (and semantics 3.4), figure by figure.

20 tasks prefer host1, host2, host3 and 10 tasks prefer host1, host2, host4: task weights 30,
30, 20, 10 over 30 locality-aware tasks; 2 cores per executor and 1 cpu per task, so 15
executors; one container already on each host; 12 containers to place.
"""

from __future__ import annotations

from collections import Counter

import pytest

from yarnspec.impl.spark.hints import HintTracker, StageAttempt
from yarnspec.impl.spark.placement import PlacementInput, plan_placement
from yarnspec.spec.spark.allocator import placement_output_valid

H1, H2, H3, H4 = "host1", "host2", "host3", "host4"
WEIGHTS = {H1: 30, H2: 30, H3: 20, H4: 10}


def seed_input(num_containers: int, allocated: dict[str, int]) -> PlacementInput:
    return PlacementInput.of(
        num_containers=num_containers,
        num_locality_aware_tasks=30,
        host_to_local_task_count=WEIGHTS,
        allocated_host_to_container_count=allocated,
        executor_cores=2,
        task_cpus=1,
    )


def test_the_hints_come_from_the_two_task_groups() -> None:
    tasks = [[H1, H2, H3]] * 20 + [[H1, H2, H4]] * 10
    hints = HintTracker().stage_submitted(StageAttempt(0), tasks).current()
    assert hints.num_locality_aware_tasks == 30
    assert hints.as_dict() == WEIGHTS


def test_seed_example_figures() -> None:
    plan = plan_placement(seed_input(12, {H1: 1, H2: 1, H3: 1, H4: 1}))
    # 30 tasks / (2 cores / 1 cpu) = 15 executors.
    assert plan.executors_for_aware_tasks == 15
    # expected 5, 5, 3.33, 1.67 minus one existing container each, ceiling after subtracting.
    assert dict(plan.need) == {H1: 4, H2: 4, H3: 3, H4: 1}
    assert plan.locality_free_count == 0
    assert plan.locality_aware_count == 12
    # "Round Up": scaled so the largest host gets all 12.
    assert dict(plan.scaled_ratio) == {H1: 12, H2: 12, H3: 9, H4: 3}


def test_seed_example_requests() -> None:
    prefs = plan_placement(seed_input(12, {H1: 1, H2: 1, H3: 1, H4: 1})).preferences
    nodes = [p.nodes for p in prefs]
    assert nodes == [(H1, H2, H3, H4)] * 3 + [(H1, H2, H3)] * 6 + [(H1, H2)] * 3
    # New containers per host 4:4:3:1 in the ratio 12:12:9:3; with the existing one, 5:5:4:2.
    appearances = Counter(host for entry in nodes for host in (entry or ()))
    assert dict(appearances) == {H1: 12, H2: 12, H3: 9, H4: 3}
    assert placement_output_valid(seed_input(12, {H1: 1, H2: 1, H3: 1, H4: 1}), prefs) == []


@pytest.mark.parametrize(
    ("num_containers", "free", "groups"),
    [
        # Semantics 3.4's trap: the Scaladoc's own example does not follow from the code.
        (18, 2, [(4, 7), (3, 6), (2, 3)]),
        (10, 0, [(4, 4), (3, 4), (2, 2)]),
    ],
)
def test_scaladoc_example_follows_the_code_not_the_comment(
    num_containers: int, free: int, groups: list[tuple[int, int]]
) -> None:
    prefs = plan_placement(seed_input(num_containers, {})).preferences
    assert [p.nodes for p in prefs[:free]] == [None] * free
    expected = [tuple([H1, H2, H3, H4][:width]) for width, count in groups for _ in range(count)]
    assert [p.nodes for p in prefs[free:]] == expected
