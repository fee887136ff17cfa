"""The ideal allocation (semantics A.4-A.7) computed through the policy's own functions, on the
worked examples of semantics D and on generated single-level trees."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.preemption.builders import DEFAULT, DRF, HARNESS, ClusterBuilder, one_round
from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import DEFAULT_PARTITION, ROOT, ClusterSnapshot
from yarnspec.impl.preemption.extras import update_extras
from yarnspec.impl.preemption.ideal import (
    NO_GUARANTEE_RATIO,
    Asking,
    IdealMode,
    capacity_share_types,
    compute_ideal_allocation,
    initial_ideal,
    need_comparator,
)
from yarnspec.impl.preemption.result import EventType
from yarnspec.impl.preemption.temp_queue import PartitionTree, TempQueue, build_tree, partitions_of
from yarnspec.impl.preemption.to_obtain import compute_to_obtain
from yarnspec.impl.resources import Resource, java_float_div

R = Resource.of
BIG = R(10**9, 10**9)


def trees_of(
    snapshot: ClusterSnapshot,
    calc: ResourceCalculator = DEFAULT,
    mode: IdealMode = IdealMode(),
    budget: Resource = BIG,
) -> dict[str, PartitionTree]:
    """Records of every partition after one ideal-allocation pass."""
    trees = [build_tree(snapshot, p, 2) for p in partitions_of(snapshot)]
    compute_ideal_allocation(trees, calc, budget, mode)
    return {t.partition.name: t for t in trees}


def memory(tree: PartitionTree, field: str) -> dict[str, int]:
    """One figure's memory for every leaf of a tree."""
    return {path: getattr(q, field).memory for path, q in tree.queues.items() if q.leaf}


def disable_example(b_disabled: bool) -> ClusterSnapshot:
    """``testPerQueueDisablePreemption``: A 55, B 25, C 20; used 0, 54, 46; A pending 10."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.A", 55, 100, pending=10)
    builder.queue("root.B", 25, 100, disabled=b_disabled)
    builder.queue("root.C", 20, 100)
    builder.app("root.A")
    builder.run(builder.app("root.B"), 54)
    builder.run(builder.app("root.C"), 46)
    return builder.build()


# --- semantics D, worked examples ---------------------------------------------------------------


def test_d_per_queue_disable_preemption_2_ideal_and_targets() -> None:
    """D: initial A 0, B 25, C 20; A takes its 10; B and C share 45 as 25 and 20; ideal B 50,
    C 40, so B gives 4 and C gives 6."""
    snapshot = disable_example(b_disabled=False)
    tree = build_tree(snapshot, partitions_of(snapshot)[0], 2)
    update_extras(tree.root, DEFAULT)
    reference = R(100, 100)
    starts = {
        p: initial_ideal(tree.queues[p], reference, DEFAULT, IdealMode()).memory for p in ("root.A", "root.B", "root.C")
    }
    assert starts == {"root.A": 0, "root.B": 25, "root.C": 20}
    tree = trees_of(snapshot)[DEFAULT_PARTITION]
    assert memory(tree, "ideal") == {"root.A": 10, "root.B": 50, "root.C": 40}
    assert memory(tree, "to_be_preempted") == {"root.A": 0, "root.B": 4, "root.C": 6}


def test_d_per_queue_disable_preemption_1_untouchable_extra_stays() -> None:
    """With B non-preemptable its 29 over guarantee is untouchable: its ideal starts (and
    stays) at 54, so all 10 for A come from C."""
    tree = trees_of(disable_example(b_disabled=True))[DEFAULT_PARTITION]
    assert tree.queues["root.B"].untouchable.memory == 29
    assert tree.queues["root.C"].preemptable.memory == 26
    assert memory(tree, "ideal") == {"root.A": 10, "root.B": 54, "root.C": 36}
    assert memory(tree, "to_be_preempted") == {"root.A": 0, "root.B": 0, "root.C": 10}
    result = one_round(disable_example(b_disabled=True))
    assert {c.app_id for c in result.selected} == {3} and len(result.selected) == 10


def balance_vcore_example() -> ClusterSnapshot:
    """``testPreemptionToBalanceWithVcoreResource``: a 60:60 uses 40:40 wanting 70:40 more;
    b 40:40 uses 60:60 wanting 50:100 more; containers of <1, 1>."""
    builder = ClusterBuilder({DEFAULT_PARTITION: (100, 100)}).node("n1", total=(100, 100))
    builder.queue(ROOT, (100, 100), (100, 100), pending=(120, 140))
    builder.queue("root.a", (60, 60), (100, 100), pending=(70, 40))
    builder.queue("root.b", (40, 40), (100, 100), pending=(50, 100))
    builder.run(builder.app("root.a"), 40, (1, 1))
    builder.run(builder.app("root.b"), 60, (1, 1))
    return builder.build()


def test_d_preemption_to_balance_with_vcores() -> None:
    """D: both selectors compute ideal a 60:60, b 40:40 and a target of 20:20 on b; the
    balance selector's deduction of the 20 chosen containers stops at 1:1, so it takes one
    more: 21 in all."""
    result = one_round(balance_vcore_example(), HARNESS.replace(preemption_to_balance_enabled=True), DRF)
    fifo, balance = result.selectors
    for selector in (fifo, balance):
        assert selector.targets[("root.a", "")].ideal == R(60, 60)
        assert selector.targets[("root.b", "")].ideal == R(40, 40)
        assert selector.targets[("root.b", "")].to_be_preempted == R(20, 20)
    assert balance.targets[("root.b", "")].to_obtain == R(1, 1)
    assert (len(fifo.selected), len(balance.selected)) == (20, 1)


def non_accessible_example() -> ClusterSnapshot:
    """``testNodePartitionNonAccessibleQueuesSharePartitionedResource``: partition x (100,
    non-exclusive); c and d have no guarantee or maximum in x but run 35 there each, 30 of it
    on n1 without asking for the label."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 100, "x": 100}, non_exclusive=["x"])
    builder.node("n1", "x", 100).node("n2", "", 100)
    builder.queue(ROOT, 100, 100).queue(ROOT, 100, 100, partition="x")
    for leaf in ("root.a", "root.b", "root.c", "root.d"):
        builder.queue(leaf, 25, 100)
    builder.queue("root.a", 50, 100, used=0, pending=30, partition="x")
    builder.queue("root.b", 50, 100, used=30, partition="x")
    builder.queue("root.c", 0, 0, used=35, pending=50, partition="x")
    builder.queue("root.d", 0, 0, used=35, pending=50, partition="x")
    builder.run(builder.app("root.b"), 30, node="n1")
    for leaf in ("root.c", "root.d"):
        app = builder.app(leaf)
        builder.run(app, 1, node="n2")
        builder.run(app, 30, node="n1", label="")
    return builder.build()


def test_d_non_accessible_queues_share_the_partition() -> None:
    """D: a gets 30, b keeps 30; c and d have max 100 in non-exclusive x (fallback), share the
    remaining 40 equally (20 each) and give 15 each, from their ignore-exclusivity containers."""
    snapshot = non_accessible_example()
    x = trees_of(snapshot)["x"]
    assert x.queues["root.c"].maximum.memory == 100
    assert memory(x, "ideal") == {"root.a": 30, "root.b": 30, "root.c": 20, "root.d": 20}
    assert memory(x, "to_be_preempted") == {"root.a": 0, "root.b": 0, "root.c": 15, "root.d": 15}
    result = one_round(snapshot)
    assert len(result.selected) == 30
    assert all(c.node == "n1" and c.label == "" and c.app_id in (2, 3) for c in result.selected)


# --- fixpoint details ---------------------------------------------------------------------------


def test_rounded_offer_of_zero_drops_a_queue_out() -> None:
    """A share of 0.15 of 3 rounds half-up to 0: the queue drops out although it wants more
    (``testPreemptionForReservedContainerRespectGuaranteedResource``)."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 85, 100)
    builder.queue("root.b", 15, 100, pending=9)
    builder.run(builder.app("root.a"), 88)
    builder.run(builder.app("root.b"), 9)
    tree = trees_of(builder.build())[DEFAULT_PARTITION]
    # initial a 85, b 9: 6 unassigned; b gets round(6 x 15/100)=1, then round(5 x 0.15)=1,
    # round(4 x 0.15)=1, round(3 x 0.15)=0: out with 12 < 18 wanted; a takes the rest up to 88
    assert memory(tree, "ideal") == {"root.a": 88, "root.b": 12}


def test_leaf_cap_stops_preemption_between_satisfied_queues() -> None:
    """Both leaves above guarantee: normal mode caps each at max(used, guaranteed), so nothing
    moves; the balance selector's fixpoint has no cap and evens them out."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 30, 100, pending=50)
    builder.queue("root.b", 30, 100, pending=50)
    builder.queue("root.c", 40, 100)
    builder.run(builder.app("root.a"), 40)
    builder.run(builder.app("root.b"), 60)
    snapshot = builder.build()
    normal = trees_of(snapshot)[DEFAULT_PARTITION]
    assert memory(normal, "ideal") == {"root.a": 40, "root.b": 60, "root.c": 0}
    balanced = trees_of(snapshot, mode=IdealMode(balance=True))[DEFAULT_PARTITION]
    assert memory(balanced, "ideal") == {"root.a": 50, "root.b": 50, "root.c": 0}
    assert memory(balanced, "to_be_preempted")["root.b"] == 10


def test_priorities_order_queues_on_the_same_side_of_their_guarantee() -> None:
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.low", 50, 100, priority=1)
    builder.queue("root.high", 50, 100, priority=2)
    tree = build_tree(builder.build(), partitions_of(builder.build())[0], 2)
    low, high = tree.queues["root.low"], tree.queues["root.high"]
    ref = R(100, 100)
    modern, legacy = need_comparator(IdealMode()), need_comparator(IdealMode(variant="hadoop-2.7.3"))

    def entries() -> tuple[Asking, Asking]:
        return Asking.of(low, ref, DEFAULT), Asking.of(high, ref, DEFAULT)

    for low_ideal, high_ideal in ((10, 40), (60, 90)):  # both under, then both over guarantee
        low.ideal, high.ideal = R(low_ideal, low_ideal), R(high_ideal, high_ideal)
        lo, hi = entries()
        assert modern(hi, lo) < 0 < modern(lo, hi)
        # without priorities (2.7.3) the less served queue comes first
        assert legacy(lo, hi) < 0 < legacy(hi, lo)
    low.ideal, high.ideal = R(40, 40), R(60, 60)  # one under, one over: the one under first
    lo, hi = entries()
    assert modern(lo, hi) < 0
    low.guaranteed = R(0, 0)
    assert Asking.of(low, ref, DEFAULT).ratio == NO_GUARANTEE_RATIO


def test_zero_guarantee_queues_only_share_what_is_left() -> None:
    """Nothing left after the weighted pass: the zero-guarantee leaf is not re-initialised and
    keeps the ideal it had (0 on a fresh record), so all its use is to be preempted."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 100, 100, pending=100)
    builder.queue("root.z", 0, 100)
    builder.run(builder.app("root.a"), 80)
    builder.run(builder.app("root.z"), 20)
    tree = trees_of(builder.build())[DEFAULT_PARTITION]
    assert memory(tree, "ideal") == {"root.a": 100, "root.z": 0}
    assert memory(tree, "to_be_preempted") == {"root.a": 0, "root.z": 20}


def test_targets_are_scaled_down_to_the_budget() -> None:
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 50, 100)
    builder.queue("root.b", 25, 100)
    builder.queue("root.c", 25, 100, pending=50)
    builder.run(builder.app("root.a"), 70)
    builder.run(builder.app("root.b"), 30)
    tree = trees_of(builder.build(), budget=R(10, 10))[DEFAULT_PARTITION]
    # c climbs 8, 14, 18, 20, 22, 23, 24 and drops out on a rounded offer of 0; a takes the
    # last unit: ideal a 51, b 25, c 24. Unscaled targets a 19, b 5 (need 24 > budget 10):
    # scale (float) 10/24 = 0.41666666, so 19 x 0.4167 -> 7 and 5 x 0.4167 -> 2 (truncated)
    assert memory(tree, "ideal") == {"root.a": 51, "root.b": 25, "root.c": 24}
    assert memory(tree, "to_be_preempted") == {"root.a": 7, "root.b": 2, "root.c": 0}


def test_keep_floor_min_of_demand_and_guarantee() -> None:
    """A queue is never asked below min(used + pending, guaranteed), even where its ideal is
    lower (here the other queue's untouchable use pushes the ideal down)."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 50, 100, disabled=True)
    builder.queue("root.b", 50, 100)
    builder.run(builder.app("root.a"), 60)
    builder.run(builder.app("root.b"), 40)
    snapshot = builder.build()
    tree = trees_of(snapshot, budget=BIG)[DEFAULT_PARTITION]
    b = tree.queues["root.b"]
    assert b.ideal.memory == 40 and b.to_be_preempted.memory == 0


def test_dead_zone_and_natural_termination() -> None:
    """``testDeadzone``-like: 43 used on a guarantee of 40 is inside 40 x 1.1 = 44."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 40, 100)
    builder.queue("root.b", 60, 100, pending=60)
    builder.run(builder.app("root.a"), 43)
    builder.run(builder.app("root.b"), 57)
    snapshot = builder.build()
    trees = list(trees_of(snapshot).values())
    compute_to_obtain(trees, snapshot.leaves, DEFAULT, R(100, 100), HARNESS, IdealMode())
    a = trees[0].queues["root.a"]
    assert a.to_be_preempted.memory == 3 and a.to_obtain.memory == 0
    outside = HARNESS.replace(max_ignored_over_capacity=0.0, natural_termination_factor=0.5)
    compute_to_obtain(trees, snapshot.leaves, DEFAULT, R(100, 100), outside, IdealMode())
    assert a.to_obtain.memory == 2  # 3 x 0.5 = 1.5, rounded half up
    compute_to_obtain(trees, snapshot.leaves, DEFAULT, R(100, 100), outside, IdealMode(reserved=True))
    assert a.to_obtain.memory == 3  # reserved mode: no natural termination


# --- properties ---------------------------------------------------------------------------------


@st.composite
def single_level(draw: st.DrawFn) -> ClusterSnapshot:
    """root(100) over 1-5 preemptable leaves with guarantees summing to at most 100 and use
    summing to at most 100."""
    count = draw(st.integers(min_value=1, max_value=5))
    guarantees = draw(st.lists(st.integers(min_value=0, max_value=40), min_size=count, max_size=count))
    used = draw(st.lists(st.integers(min_value=0, max_value=40), min_size=count, max_size=count))
    if sum(guarantees) > 100 or sum(used) > 100:
        guarantees = [g // 3 for g in guarantees]
        used = [u // 3 for u in used]
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    for i in range(count):
        path = f"root.q{i}"
        maximum = draw(st.integers(min_value=max(guarantees[i], 1), max_value=100))
        builder.queue(path, guarantees[i], maximum, pending=draw(st.integers(min_value=0, max_value=60)))
        if used[i]:
            builder.run(builder.app(path), used[i])
    return builder.build()


@settings(max_examples=80)
@given(single_level(), st.booleans())
def test_fixpoint_hands_out_at_most_the_parent_and_never_takes_back(snapshot: ClusterSnapshot, balance: bool) -> None:
    mode = IdealMode(balance=balance)
    tree = trees_of(snapshot, mode=mode)[DEFAULT_PARTITION]
    reference = tree.root.ideal
    leaves = [q for q in tree.queues.values() if q.leaf]
    starts = {q.path: initial_ideal(q, reference, DEFAULT, mode).memory for q in leaves}
    assert sum(q.ideal.memory for q in leaves) <= max(reference.memory, sum(starts.values()))
    for q in leaves:
        assert q.ideal.memory >= starts[q.path]
        assert q.ideal.memory <= max(starts[q.path], q.maximum.memory, q.used.memory)
        assert q.ideal.memory <= max(starts[q.path], q.used.memory + q.pending.memory)
        if not balance:
            assert q.ideal.memory <= max(starts[q.path], q.used.memory, q.guaranteed.memory)


@settings(max_examples=80)
@given(single_level(), st.integers(min_value=0, max_value=100))
def test_targets_keep_the_floor_and_fit_the_budget(snapshot: ClusterSnapshot, budget: int) -> None:
    """A.6: no queue is asked to go below max(min(used + pending, guaranteed), ideal), and the
    per-level scaling keeps the targets within the budget."""
    tree = trees_of(snapshot, budget=R(budget, budget))[DEFAULT_PARTITION]
    leaves = [q for q in tree.queues.values() if q.leaf]
    for q in leaves:
        target = q.to_be_preempted.memory
        floor = max(min(q.used.memory + q.pending.memory, q.guaranteed.memory), q.ideal.memory)
        assert target >= 0
        assert q.used.memory - target >= min(q.used.memory, floor)
    assert sum(q.to_be_preempted.memory for q in leaves) <= budget


# --- rules no upstream case pins ------------------------------------------------------------------


def test_shares_are_single_precision() -> None:
    """Shares are Java floats: 5/6 is 0.83333331, so an offer of 3 x 5/6 = 2.4999999 rounds
    half-up to 2, not 3. a and b tie (both at their guarantee) and are offered in one round:
    a gets 2, b the last 1 (exact shares would give a 3 and b nothing)."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 9}).node("n1", total=9)
    builder.queue(ROOT, 9, 9)
    builder.queue("root.a", 5, 9, pending=3)
    builder.queue("root.b", 1, 9, pending=3)
    builder.run(builder.app("root.a"), 5)
    builder.run(builder.app("root.b"), 1)
    tree = trees_of(builder.build(), mode=IdealMode(balance=True))[DEFAULT_PARTITION]
    assert memory(tree, "ideal") == {"root.a": 7, "root.b": 2}


def test_an_offer_never_exceeds_what_is_still_unassigned() -> None:
    """a and b tie and share 3 half and half: both offers round(1.5) = 2, but after a takes 2
    only 1 is left, so b's offer is cut to 1."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 9}).node("n1", total=9)
    builder.queue(ROOT, 9, 9)
    builder.queue("root.a", 1, 9, pending=5)
    builder.queue("root.b", 1, 9, pending=5)
    builder.run(builder.app("root.a"), 3)
    builder.run(builder.app("root.b"), 3)
    tree = trees_of(builder.build(), mode=IdealMode(balance=True))[DEFAULT_PARTITION]
    assert memory(tree, "ideal") == {"root.a": 5, "root.b": 4}


def reserved_demand() -> ClusterSnapshot:
    """a (15) uses 12 and wants 3; b (90) uses 85 and its pending 5 is all reserved."""
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 15, 100, pending=3)
    builder.queue("root.b", 90, 100, used=85, pending=5, reserved=5)
    builder.run(builder.app("root.a"), 12)
    return builder.build()


def test_asking_counts_plain_pending_but_offers_pending_net_of_reserved() -> None:
    """Unassigned 3. b asks (85 < 85 + 5 plain pending), so a's share is only 15/105 and its
    offer round(3 x 0.14) = 0 drops it out; b then accepts nothing net of its reservation. In
    reserved mode b's offer counts plain pending and b takes the 3."""
    normal = trees_of(reserved_demand())[DEFAULT_PARTITION]
    assert memory(normal, "ideal") == {"root.a": 12, "root.b": 85}
    reserved = trees_of(reserved_demand(), mode=IdealMode(reserved=True))[DEFAULT_PARTITION]
    assert memory(reserved, "ideal") == {"root.a": 12, "root.b": 88}


def test_keep_floor_shows_in_drf_targets() -> None:
    """DRF: a uses <60, 10> on a guarantee of <50, 50>, so its ideal starts at
    componentwiseMin = <50, 10>. The floor min(used + pending, guaranteed) = <50, 50> is the
    larger keep, and the target is used - keep = <10, -40> (with the ideal alone: <10, 0>)."""
    builder = ClusterBuilder({DEFAULT_PARTITION: (100, 100)}).node("n1", total=(100, 100))
    builder.queue(ROOT, (100, 100), (100, 100))
    builder.queue("root.a", (50, 50), (100, 100), used=(60, 10))
    builder.queue("root.b", (50, 50), (100, 100), used=(50, 90))
    tree = trees_of(builder.build(), calc=DRF)[DEFAULT_PARTITION]
    a = tree.queues["root.a"]
    assert a.ideal == R(50, 10)
    assert a.to_be_preempted == R(10, -40)


def test_a_zero_guarantee_ideal_carries_over_when_nothing_is_left() -> None:
    """Normal FIFO: 1 is left for zero-guarantee c, whose ideal becomes 1 (target 2). The
    balance selector's fixpoint hands out everything, so c is not re-initialised and keeps
    ideal 1 from the first selector (target 2 again, not 3)."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 10}).node("n1", total=10)
    builder.queue(ROOT, 10, 10)
    builder.queue("root.a", 6, 10, pending=10)
    builder.queue("root.b", 4, 10, pending=10)
    builder.queue("root.c", 0, 10)
    builder.run(builder.app("root.a"), 4)
    builder.run(builder.app("root.b"), 3)
    builder.run(builder.app("root.c"), 3)
    result = one_round(builder.build(), HARNESS.replace(preemption_to_balance_enabled=True))
    fifo, balance = result.selectors
    assert fifo.targets[("root.c", "")].ideal.memory == 1
    assert balance.targets[("root.a", "")].ideal.memory == 7
    assert balance.targets[("root.c", "")].ideal.memory == 1
    assert balance.targets[("root.c", "")].to_be_preempted.memory == 2


def _tie_cluster() -> ClusterSnapshot:
    """Issue 12's example of a tie: one 50:50 node; parent p guaranteed 12:12 whose one leaf
    uses 2:2 and asks 23:44; leaf a guaranteed 34:33 using 48:48; leaf c guaranteed 4:5, idle."""
    builder = ClusterBuilder({DEFAULT_PARTITION: (50, 50)})
    builder.node("n1", total=(50, 50))
    builder.queue(ROOT, guaranteed=(50, 50))
    builder.queue("root.p", guaranteed=(12, 12))
    builder.queue("root.p.b", guaranteed=(12, 12), pending=(23, 44))
    builder.queue("root.a", guaranteed=(34, 33))
    builder.queue("root.c", guaranteed=(4, 5))
    builder.run(builder.app("root.p.b"), 2, size=(1, 1))
    builder.run(builder.app("root.a"), 48, size=(1, 1))
    return builder.build()


def test_a_tie_is_served_in_the_java_heap_order() -> None:
    """When p catches up with a (both at ratio 1), a is at the heap's root: p was polled alone
    and added back behind it. Serving a first leaves p one 1:1 short of what tree order gave
    it, so 11 of a's containers are marked, not 12 (Hadoop's answer for this cluster)."""
    result = one_round(_tie_cluster(), HARNESS, calc=DRF)
    marked = [e.container for e in result.events if e.kind == EventType.MARK_CONTAINER_FOR_PREEMPTION]
    assert len(marked) == 11 and {c.queue for c in marked} == {"root.a"}


def _asking(*queues: tuple[tuple[int, int], float]) -> list[TempQueue]:
    records = []
    for order, (guaranteed, capacity) in enumerate(queues):
        record = TempQueue(f"root.q{order}", DEFAULT_PARTITION, R(100, 100), order)
        record.guaranteed, record.absolute_capacity = R(*guaranteed), capacity
        records.append(record)
    return records


def test_yarn_11073_shares_by_capacity_only_where_a_zero_guarantee_meets_a_non_zero_total() -> None:
    """Hadoop 3.4's ``resetCapacity``: vcores, where q0 is guaranteed 0 with a capacity and the
    total is 4, go by capacity; memory, where nobody is guaranteed 0, keeps ``g / sum g``."""
    asking = _asking(((10, 0), 0.01), ((30, 4), 0.03))
    shares = capacity_share_types(asking, asking[0].guaranteed + asking[1].guaranteed)
    assert (shares.absolute, shares.even) == ((1,), ())
    assert shares.apply(asking[0], [0.25, 0.0], 2) == [0.25, java_float_div(0.01, 0.04)]


def test_yarn_11073_shares_a_type_with_no_guarantee_evenly() -> None:
    """Both queues guaranteed 0 vcores: the total is 0, so each gets 1/2 of the vcores (not
    its capacity share, 1/4 and 3/4)."""
    asking = _asking(((10, 0), 0.01), ((30, 0), 0.03))
    shares = capacity_share_types(asking, asking[0].guaranteed + asking[1].guaranteed)
    assert (shares.absolute, shares.even) == ((), (1,))
    assert shares.apply(asking[0], [0.25, 0.0], 2) == [0.25, 0.5]


def test_yarn_11073_leaves_a_zero_guarantee_without_capacity_alone() -> None:
    """q0 is guaranteed 0 vcores but has no absolute capacity either: the default share."""
    asking = _asking(((10, 0), 0.0), ((30, 4), 0.03))
    shares = capacity_share_types(asking, asking[0].guaranteed + asking[1].guaranteed)
    assert (shares.absolute, shares.even) == ((), ())


def test_yarn_11073_shares_every_type_evenly_when_no_queue_has_a_capacity() -> None:
    asking = _asking(((10, 1), 0.0), ((30, 4), 0.0), ((20, 5), 0.0))
    shares = capacity_share_types(asking, asking[0].guaranteed + asking[1].guaranteed + asking[2].guaranteed)
    assert (shares.absolute, shares.even) == ((), (0, 1))
    assert shares.apply(asking[2], [0.3, 0.5], 3) == [java_float_div(1.0, 3), java_float_div(1.0, 3)]
