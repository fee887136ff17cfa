"""The selectors (semantics A.8-A.11): which containers a round chooses, and in what order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.preemption.builders import (
    DEFAULT,
    DRF,
    HARNESS,
    ClusterBuilder,
    marked_per_app,
    one_round,
    selected_ids,
    two_leaves,
)
from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import DEFAULT_PARTITION, ROOT, Application, ClusterSnapshot, Container, ContainerId
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.ordering import victim_order_of_apps, victim_order_of_containers
from yarnspec.impl.preemption.result import EventType
from yarnspec.impl.preemption.selection import Selection
from yarnspec.impl.preemption.temp_queue import build_tree, partitions_of
from yarnspec.impl.preemption.to_obtain import deduct_selected
from yarnspec.impl.resources import ZERO, Resource

R = Resource.of


# --- victim orders -------------------------------------------------------------------------------


def test_container_order_priority_value_then_newest() -> None:
    """``testContainerOrdering``: larger priority value first, then larger id."""
    made = {
        name: Container(ContainerId(10, number), "root.a", "n1", R(1, 1), priority=prio)
        for name, number, prio in (("rm1", 5, 3), ("rm2", 3, 3), ("rm3", 2, 2), ("rm4", 1, 2), ("rm5", 4, 1))
    }
    ordered = victim_order_of_containers([made[n] for n in ("rm3", "rm2", "rm1", "rm5", "rm4")])
    assert ordered == [made[n] for n in ("rm1", "rm2", "rm3", "rm4", "rm5")]


def test_app_order_lowest_priority_then_newest() -> None:
    apps = [Application(1, "q", 1), Application(2, "q", 0), Application(3, "q", 1), Application(4, "q", 0)]
    assert [a.app_id for a in victim_order_of_apps(apps)] == [4, 2, 3, 1]
    assert [a.app_id for a in victim_order_of_apps(apps, use_priority=False)] == [4, 3, 2, 1]


# --- FIFO selector -------------------------------------------------------------------------------


def test_newest_application_first_and_am_containers_last() -> None:
    """``testSkipAMContainer``: 4 apps of 25 in A (first container the AM), 50 to obtain:
    24 non-AM of app 4, 24 of app 3, 2 of app 2; no AM (AM limit 0 but the map empties)."""
    result = one_round(two_leaves(used=(100, 0), pending=(0, 50), apps_in_a=4, am=True).build())
    assert marked_per_app(result) == {4: 24, 3: 24, 2: 2}
    assert not any(c.is_am for c in result.selected)
    # within app 4: newest container first
    assert selected_ids(result)[:3] == [(4, 25), (4, 24), (4, 23)]


def am_in_partition_x(am_percent: float) -> ClusterSnapshot:
    """a holds 5 apps of 1 AM + 9 others in exclusive partition x, where it has no guarantee
    and b wants everything; a's default-partition guarantee (50) sets its AM limit."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 100, "x": 100}).node("n1", "x", 100).node("n2", "", 100)
    builder.queue(ROOT, 100, 100).queue(ROOT, 100, 100, partition="x")
    builder.queue("root.a", 50, 100, am_percent=am_percent).queue("root.a", 0, 100, partition="x")
    builder.queue("root.b", 50, 100).queue("root.b", 100, 100, pending=100, partition="x")
    for _ in range(5):
        builder.run(builder.app("root.a"), 10, node="n1", am=True)
    return builder.build()


def test_am_containers_are_taken_while_the_skipped_am_total_exceeds_the_limit() -> None:
    """All 50 of a in x are to be obtained: 45 non-AM, then AMs in the order skipped (newest
    application first) while the 5 skipped exceed the limit 50 x percent."""
    unlimited = one_round(am_in_partition_x(0.0))
    assert [c.app_id for c in unlimited.selected if c.is_am] == [5, 4, 3, 2, 1]
    # limit 50 x 0.07f = 3.5 -> 3: AMs are taken until 3 are left
    limited = one_round(am_in_partition_x(0.07))
    assert [c.app_id for c in limited.selected if c.is_am] == [5, 4]
    assert len(limited.selected) == 47
    # 0.06 is the float 0.059999999, so the limit 2.9999 truncates to 2: one AM more
    assert [c.app_id for c in one_round(am_in_partition_x(0.06)).selected if c.is_am] == [5, 4, 3]
    none = one_round(am_in_partition_x(0.1))  # limit 5: the skipped AMs are within it
    assert not any(c.is_am for c in none.selected)


def test_ignore_exclusivity_containers_go_first() -> None:
    builder = ClusterBuilder({DEFAULT_PARTITION: 100, "x": 100}, non_exclusive=["x"])
    builder.node("n1", "x", 100).node("n2", "", 100)
    builder.queue(ROOT, 100, 100).queue(ROOT, 100, 100, partition="x")
    builder.queue("root.a", 50, 100).queue("root.a", 20, 100, used=40, partition="x")
    builder.queue("root.b", 50, 100).queue("root.b", 80, 100, used=0, pending=80, partition="x")
    old = builder.app("root.a")
    builder.run(old, 30, node="n1", label="")  # app 1 shares x without asking for it
    new = builder.app("root.a")
    builder.run(new, 10, node="n1")  # app 2 asked for x
    result = one_round(builder.build())
    # to obtain 20 in x: app 1's label-less containers come first although app 2 is newer
    assert marked_per_app(result) == {1: 20}
    assert all(c.label == "" for c in result.selected)


def test_reserved_containers_first_with_kill_reserved_events() -> None:
    builder = two_leaves(used=(90, 0), pending=(0, 20))
    builder.run(1, 2, size=5, reserved=True)  # a uses 100: 90 running, 10 reserved
    result = one_round(builder.build())
    kinds = [e.kind for e in result.events]
    assert kinds[:2] == [EventType.KILL_RESERVED_CONTAINER] * 2
    # 20 to obtain: the two reserved containers (taken, so also marked), then 10 running ones
    marked = [e.container for e in result.events if e.kind is EventType.MARK_CONTAINER_FOR_PREEMPTION]
    assert [c.reserved for c in marked] == [True] * 2 + [False] * 10


def test_a_container_larger_than_the_remainder_is_still_taken() -> None:
    builder = two_leaves(used=(0, 0), pending=(0, 15))
    builder.run(1, 10, size=10)
    result = one_round(builder.build())
    assert len(result.selected) == 2  # 15 to obtain: 10, then 10 more (overshoot)


def test_the_budget_bounds_the_selection() -> None:
    config = HARNESS.replace(total_preemption_per_round=0.05)
    result = one_round(two_leaves(used=(100, 0), pending=(0, 50)).build(), config)
    assert result.budget.memory == 5 and len(result.selected) == 5


def test_disabled_leaves_give_nothing() -> None:
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 30, 100, disabled=True)
    builder.queue("root.b", 30, 100)
    builder.queue("root.c", 40, 100, pending=40)
    builder.run(builder.app("root.a"), 60)
    builder.run(builder.app("root.b"), 40)
    result = one_round(builder.build())
    assert marked_per_app(result) == {2: 10}


def try_rule(calc: ResourceCalculator, budget: Resource, variant: str = "hadoop-3") -> Selection:
    """A fresh selection for the container rule (cluster 100:100)."""
    return Selection(budget, calc, R(100, 100), "hadoop-2.7.3" if variant == "hadoop-2.7.3" else "hadoop-3")


def container(number: int, size: tuple[int, int]) -> Container:
    """A live container of application 1 on n1."""
    return Container(ContainerId(1, number), "root.a", "n1", R(*size))


def test_zero_types_become_minus_one_and_positive_contribution_decides() -> None:
    """To obtain <10, 0>: the 0 becomes -1 for good; a container of <5, 5> lowers the memory,
    so it is taken; the conservative rule refuses it (a type of the amount is <= 0)."""
    selection = try_rule(DRF, R(100, 100))
    amounts = {"": R(10, 0)}
    assert selection.try_preempt(container(1, (5, 5)), "", amounts, conservative=False)
    assert amounts[""] == R(5, -6)
    assert selection.budget == R(95, 95)
    conservative = try_rule(DRF, R(100, 100))
    amounts = {"": R(10, 0)}
    assert not conservative.try_preempt(container(1, (5, 5)), "", amounts, conservative=True)
    assert amounts[""] == R(10, -1) and len(conservative) == 0


def test_no_positive_contribution_no_preemption() -> None:
    """To obtain <0, 10> (memory becomes -1): a container of <5, 0> lowers nothing."""
    selection = try_rule(DRF, R(100, 100))
    assert not selection.try_preempt(container(1, (5, 0)), "", {"": R(0, 10)}, conservative=False)


def test_container_rule_budget_overshoot_and_removal() -> None:
    selection = try_rule(DEFAULT, R(12, 12))
    amounts = {"": R(15, 15)}
    assert selection.try_preempt(container(1, (10, 10)), "", amounts, conservative=False)
    assert not selection.try_preempt(container(2, (10, 10)), "", amounts, conservative=False)  # budget 2 left
    assert selection.try_preempt(container(3, (2, 2)), "", amounts, conservative=False)
    assert amounts == {"": R(3, 3)}
    assert not selection.try_preempt(container(3, (2, 2)), "", amounts, conservative=False)  # chosen already
    roomy = try_rule(DEFAULT, R(100, 100))
    amounts = {"": R(3, 3)}
    assert roomy.try_preempt(container(4, (10, 10)), "", amounts, conservative=False)  # overshoot
    assert amounts == {}  # satisfied: the partition leaves the map
    assert not roomy.try_preempt(container(5, (1, 1)), "x", {"": R(3, 3)}, conservative=False)  # other partition


def test_container_rule_of_hadoop_2_7_3_takes_while_positive() -> None:
    selection = try_rule(DRF, R(0, 0), "hadoop-2.7.3")
    amounts = {"": R(0, 10)}
    assert selection.try_preempt(container(1, (5, 0)), "", amounts, conservative=False)
    assert amounts[""] == R(-5, 10) and selection.budget == R(0, 0)


def test_deduction_is_strict() -> None:
    """A.9: with 2 left and a container of 2, nothing is deducted (strictly greater needed)."""
    snapshot = two_leaves(used=(100, 0), pending=(0, 50)).build()
    trees = [build_tree(snapshot, p, 2) for p in partitions_of(snapshot)]
    record = trees[0].queues["root.a"]
    by_name = {t.partition.name: t for t in trees}
    queue_of = {1: "root.a"}
    partition_of = {"n1": DEFAULT_PARTITION}
    chosen = [snapshot.containers[0]]
    record.to_obtain = R(3, 3)
    deduct_selected(by_name, chosen, queue_of, partition_of, DEFAULT)
    assert record.to_obtain == R(2, 2)
    deduct_selected(by_name, [Container(ContainerId(1, 99), "root.a", "n1", R(2, 2))], queue_of, partition_of, DEFAULT)
    assert record.to_obtain == R(2, 2)
    deduct_selected(by_name, [Container(ContainerId(1, 98), "root.a", "n1", R(5, 5))], queue_of, partition_of, DEFAULT)
    assert record.to_obtain == R(2, 2)


# --- reserved-container selector ---------------------------------------------------------------


def reserved_cluster(reserved_size: int, node_sizes: tuple[int, int] = (50, 50)) -> ClusterBuilder:
    """a (guarantee 30) runs 45: 10 on n1 and 35 on n2; b (70) runs 5 on n2 and has a
    reservation of ``reserved_size`` on n1, pending 70."""
    builder = ClusterBuilder().node("n1", total=node_sizes[0]).node("n2", total=node_sizes[1])
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 30, 100)
    builder.queue("root.b", 70, 100, pending=70, reserved=reserved_size, pending_net_reserved=70 - reserved_size)
    a = builder.app("root.a")
    builder.run(a, 10, node="n1")
    builder.run(a, 35, node="n2")
    b = builder.app("root.b")
    builder.run(b, 5, node="n2")
    builder.run(b, 1, size=reserved_size, node="n1", reserved=True)
    return builder


def test_reserved_selector_frees_the_node_of_the_reservation() -> None:
    """``testUseReservedAndFifoSelectorTogether``-like: n1 has 40 free and a reservation of 50;
    the reserved selector takes 10 on n1, the FIFO selector the remaining 5 elsewhere."""
    config = HARNESS.replace(select_based_on_reserved_containers=True)
    result = one_round(reserved_cluster(50).build(), config)
    reserved, fifo = result.selectors
    assert {c.node for c in reserved.selected} == {"n1"} and len(reserved.selected) == 10
    assert len(fifo.selected) == 5
    assert not any(c.app_id == 2 for c in result.selected)


def test_reserved_selector_takes_nothing_where_the_reservation_cannot_fit() -> None:
    config = HARNESS.replace(select_based_on_reserved_containers=True)
    result = one_round(reserved_cluster(60).build(), config)  # 40 free + 10 of a's < 60
    assert result.selectors[0].selected == ()


def test_reserved_selector_skips_am_containers_and_fitting_reservations() -> None:
    config = HARNESS.replace(select_based_on_reserved_containers=True)
    builder = reserved_cluster(50)
    builder.containers = [c for c in builder.containers if not (c.app_id == 1 and c.node == "n1")]
    builder._next_number[1] = 100
    builder.run(1, 10, node="n1", am=True)
    result = one_round(builder.build(), config)
    # only 9 non-AM containers of a on n1: 40 + 9 < 50, nothing chosen there
    assert result.selectors[0].selected == ()
    fits = one_round(reserved_cluster(40).build(), config)  # 40 free: the reservation fits
    assert fits.selectors[0].selected == ()


def test_reserved_selector_prefers_the_cheapest_node() -> None:
    builder = ClusterBuilder().node("n2", total=20).node("n1", total=20)  # n2 listed first
    builder.queue(ROOT, 40, 40)
    builder.queue("root.a", 10, 40)
    builder.queue("root.b", 30, 40, pending=30, reserved=20)
    a = builder.app("root.a")
    builder.run(a, 1, size=10, node="n1")  # n1: 10 free, 10 to take
    builder.run(a, 1, size=18, node="n2")  # n2: 2 free, 18 to take
    b = builder.app("root.b")
    builder.run(b, 1, size=20, node="n2", reserved=True)
    builder.run(b, 1, size=20, node="n1", reserved=True)
    config = HARNESS.replace(select_based_on_reserved_containers=True, total_preemption_per_round=0.5)
    result = one_round(builder.build(), config)
    # budget 20 covers either node but not both: n1 (cost 10/20) is served before n2 (18/20)
    assert [c.node for c in result.selectors[0].selected] == ["n1"]


def test_reserved_selector_gives_the_quota_back_when_a_node_cannot_be_freed() -> None:
    """a may lose 3. n1 and n2 each need a's 2 containers for a reservation of 2, n3 one
    container for a reservation of 1; all cost 1.0, so node order decides. n1 takes 2, n2
    takes 1 and then runs out of quota: it gives that 1 back, and n3 can use it."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 5})
    builder.node("n1", total=2).node("n2", total=2).node("n3", total=1)
    builder.queue(ROOT, 5, 5)
    builder.queue("root.a", 2, 5)
    builder.queue("root.b", 3, 5, used=0, pending=5, reserved=5)
    a = builder.app("root.a")
    for node, count in (("n1", 2), ("n2", 2), ("n3", 1)):
        builder.run(a, count, node=node)
    b = builder.app("root.b")
    for node, size in (("n1", 2), ("n2", 2), ("n3", 1)):
        builder.run(b, 1, size=size, node=node, reserved=True)
    config = HARNESS.replace(select_based_on_reserved_containers=True)
    result = one_round(builder.build(), config)
    assert result.selectors[0].targets[("root.a", "")].to_obtain.memory == 3
    assert [c.node for c in result.selectors[0].selected] == ["n1", "n1", "n3"]


# --- properties ----------------------------------------------------------------------------------


@st.composite
def small_clusters(draw: st.DrawFn) -> tuple[ClusterSnapshot, PreemptionConfig, ResourceCalculator]:
    """Two to four leaves under root(60:60) on three nodes; random use (containers of 1-3),
    demand, AMs, reservations, disable flags; random settings and calculator."""
    count = draw(st.integers(min_value=2, max_value=4))
    builder = ClusterBuilder({DEFAULT_PARTITION: (60, 60)})
    for n in range(3):
        builder.node(f"n{n}", total=(20, 20))
    builder.queue(ROOT, (60, 60), (60, 60))
    space = 60
    for i in range(count):
        path = f"root.q{i}"
        guarantee = 60 // count
        builder.queue(
            path,
            (guarantee, guarantee),
            (60, 60),
            used=None,
            pending=draw(st.integers(min_value=0, max_value=30)),
            disabled=draw(st.booleans()) and draw(st.booleans()),
            am_percent=draw(st.sampled_from([0.0, 0.1, 0.5])),
        )
        for _ in range(draw(st.integers(min_value=0, max_value=2))):
            app = builder.app(path, priority=draw(st.integers(min_value=0, max_value=1)))
            size = draw(st.integers(min_value=1, max_value=3))
            number = min(draw(st.integers(min_value=0, max_value=8)), space // size)
            space -= number * size
            if number:
                builder.run(app, number, (size, size), node=f"n{draw(st.integers(0, 2))}", am=draw(st.booleans()))
            if draw(st.booleans()) and draw(st.booleans()):
                builder.run(app, 1, (size, size), node=f"n{draw(st.integers(0, 2))}", reserved=True)
    config = HARNESS.replace(
        total_preemption_per_round=draw(st.sampled_from([0.05, 0.2, 1.0])),
        natural_termination_factor=draw(st.sampled_from([0.2, 1.0])),
        max_ignored_over_capacity=draw(st.sampled_from([0.0, 0.1])),
        conservative_drf=draw(st.booleans()),
        select_based_on_reserved_containers=draw(st.booleans()),
        preemption_to_balance_enabled=draw(st.booleans()),
    )
    return builder.build(), config, draw(st.sampled_from([DEFAULT, DRF]))


@settings(max_examples=120)
@given(small_clusters())
def test_selection_is_unique_within_budget_and_never_from_disabled_leaves(
    case: tuple[ClusterSnapshot, PreemptionConfig, ResourceCalculator],
) -> None:
    snapshot, config, calc = case
    result = one_round(snapshot, config, calc)
    ids = [c.container_id for c in result.selected]
    assert len(ids) == len(set(ids))
    taken = ZERO
    for container in result.selected:
        taken = taken + container.resource
        assert not snapshot.queues[snapshot.apps[container.app_id].queue].preemption_disabled
        assert container in snapshot.containers
    assert calc.fits_in(taken, result.budget)


@settings(max_examples=120)
@given(small_clusters())
def test_fifo_takes_from_a_leaf_no_more_than_one_container_past_its_amount(
    case: tuple[ClusterSnapshot, PreemptionConfig, ResourceCalculator],
) -> None:
    """Default calculator: the FIFO selector stops a leaf once its amount (after deduction)
    is used up, so it overshoots by less than one container."""
    snapshot, config, _ = case
    result = one_round(snapshot, config, DEFAULT)
    for selector in result.selectors:
        if not selector.name.startswith("fifo"):
            continue
        for leaf in snapshot.leaves:
            mine = [c for c in selector.selected if snapshot.apps[c.app_id].queue == leaf]
            amount = selector.targets[(leaf, DEFAULT_PARTITION)].to_obtain.memory
            if mine:
                assert sum(c.resource.memory for c in mine) < max(amount, 0) + max(c.resource.memory for c in mine)


def test_killable_ignore_exclusivity_container_may_be_taken_first() -> None:
    """Regression (found by the round properties): Hadoop's ignore-exclusivity pass (A.8 step 1)
    has no killable check, so a label-less container on a non-exclusive node that the scheduler
    already marked killable is taken again there, while the per-application pass skips killable
    containers. The invariant ``selection_is_real`` was corrected to say exactly this."""
    from yarnspec.spec.preemption.invariants import Round, selection_is_real

    builder = ClusterBuilder({DEFAULT_PARTITION: 100, "x": 100}, non_exclusive=["x"])
    builder.node("n1", "x", 100).node("n2", "", 100)
    builder.queue(ROOT, 100, 100).queue(ROOT, 100, 100, partition="x")
    builder.queue("root.a", 50, 100).queue("root.a", 20, 100, used=40, killable=2, partition="x")
    builder.queue("root.b", 50, 100).queue("root.b", 80, 100, used=0, pending=80, partition="x")
    sharing = builder.app("root.a")
    builder.run(sharing, 2, node="n1", label="", killable=True)  # killable, ignoring exclusivity
    asking = builder.app("root.a")
    builder.run(asking, 36, node="n1")
    builder.run(asking, 2, node="n1", killable=True)  # killable, asked for x
    snapshot = builder.build()
    lazy = HARNESS.replace(lazy_preemption_enabled=True)  # killable containers exist only then
    result = one_round(snapshot, lazy)
    label_less = [c for c in result.selected if c.label == ""]
    asked_for_x = [c for c in result.selected if c.label == "x"]
    assert len(label_less) == 2 and all(c.killable for c in label_less)
    assert asked_for_x and not any(c.killable for c in asked_for_x)
    assert selection_is_real(Round(snapshot, lazy, DEFAULT, result)) == []


def test_without_lazy_preemption_killable_marks_are_not_read() -> None:
    """Hadoop syncs killable containers from the scheduler only with lazy preemption
    (``syncKillableContainersFromScheduler``): without it a snapshot's killable flags change
    nothing, with it the per-application pass skips the killable containers."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 100})
    builder.node("n1", "", 100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 50, 100, used=100, killable=10)
    builder.queue("root.b", 50, 100, used=0, pending=50)
    app = builder.app("root.a")
    builder.run(app, 90, node="n1")
    builder.run(app, 10, node="n1", killable=True)
    snapshot = builder.build()
    killable = {c.container_id for c in snapshot.containers if c.killable}
    plain = one_round(snapshot)
    lazy = one_round(snapshot, HARNESS.replace(lazy_preemption_enabled=True))
    assert killable & {c.container_id for c in plain.selected}
    assert not killable & {c.container_id for c in lazy.selected}
