"""The named variants: ``hadoop-3`` (the current policy) and ``hadoop-2.7.3`` (seed 002) differ
only where a parameter of the same code says so; and settings the model does not cover are
refused with :class:`NotModelled`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.preemption.builders import DEFAULT, DRF, HARNESS, ClusterBuilder, marked_per_app, one_round, two_leaves
from yarnspec.impl.cluster import DEFAULT_PARTITION, ROOT, ClusterSnapshot
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.extras import update_extras
from yarnspec.impl.preemption.ideal import IdealMode, initial_ideal, offer
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import EventType
from yarnspec.impl.preemption.temp_queue import build_tree, partitions_of
from yarnspec.impl.resources import Resource

R = Resource.of
OLD = HARNESS.replace(variant="hadoop-2.7.3")
MARK = EventType.MARK_CONTAINER_FOR_PREEMPTION
KILL = EventType.MARK_CONTAINER_FOR_KILLABLE


def shared_label_cluster() -> ClusterSnapshot:
    """a's old app 1 runs 30 on x without asking for it; its newer app 2 runs 10 there by
    label; b wants x back: 20 to obtain from a in x."""
    builder = ClusterBuilder({DEFAULT_PARTITION: 100, "x": 100}, non_exclusive=["x"])
    builder.node("n1", "x", 100).node("n2", "", 100)
    builder.queue(ROOT, 100, 100).queue(ROOT, 100, 100, partition="x")
    builder.queue("root.a", 50, 100).queue("root.a", 20, 100, used=40, partition="x")
    builder.queue("root.b", 50, 100).queue("root.b", 80, 100, used=0, pending=80, partition="x")
    builder.run(builder.app("root.a"), 30, node="n1", label="")
    builder.run(builder.app("root.a"), 10, node="n1")
    return builder.build()


def test_no_ignore_exclusivity_pass_in_2_7_3() -> None:
    assert marked_per_app(one_round(shared_label_cluster())) == {1: 20}
    assert marked_per_app(one_round(shared_label_cluster(), OLD)) == {2: 10, 1: 10}


def test_reserved_containers_are_dropped_not_marked_in_2_7_3() -> None:
    builder = two_leaves(used=(90, 0), pending=(0, 20))
    builder.run(1, 2, size=5, reserved=True)
    snapshot = builder.build()
    new, old = one_round(snapshot), one_round(snapshot, OLD)
    for result in (new, old):
        assert [e.kind for e in result.events[:2]] == [EventType.KILL_RESERVED_CONTAINER] * 2
    assert sum(c.reserved for c in new.selected) == 2 and len(new.selected) == 12
    # 2.7.3 counts the dropped reservations against the 20 but marks only running containers
    assert not any(c.reserved for c in old.selected) and len(old.selected) == 10


def test_natural_termination_rounds_up_in_3_and_truncates_in_2_7_3() -> None:
    snapshot = two_leaves(used=(100, 0), pending=(0, 3)).build()
    half = HARNESS.replace(natural_termination_factor=0.5, max_ignored_over_capacity=0.0)
    assert len(one_round(snapshot, half).selected) == 2  # 3 x 0.5 = 1.5 -> 2
    assert len(one_round(snapshot, half.replace(variant="hadoop-2.7.3")).selected) == 1  # -> 1


def test_2_7_3_re_marks_every_round_and_kills_strictly_after_the_wait() -> None:
    snapshot = two_leaves(used=(100, 0), pending=(0, 10)).build()
    first = one_round(snapshot, OLD, now_ms=0)
    again = one_round(snapshot, OLD, now_ms=10000, state=first.state)
    assert [e.kind for e in again.events] == [MARK] * 10  # re-sent; 10000 is not past the wait
    assert dict(again.state.marks) == dict(first.state.marks)  # the first mark time is kept
    late = one_round(snapshot, OLD, now_ms=10001, state=again.state)
    assert [e.kind for e in late.events] == [KILL] * 10
    assert [e.kind for e in one_round(snapshot, HARNESS, now_ms=10000, state=first.state).events] == [KILL] * 10


def test_2_7_3_has_no_leaf_cap_so_satisfied_queues_are_balanced() -> None:
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.a", 30, 100, pending=50)
    builder.queue("root.b", 30, 100, pending=50)
    builder.queue("root.c", 40, 100)
    builder.run(builder.app("root.a"), 40)
    builder.run(builder.app("root.b"), 60)
    snapshot = builder.build()
    assert one_round(snapshot).selected == ()
    assert marked_per_app(one_round(snapshot, OLD)) == {2: 10}


def test_initial_ideal_and_offer_differ_by_variant() -> None:
    builder = ClusterBuilder({DEFAULT_PARTITION: (100, 100)})
    builder.queue(ROOT, (100, 100), (100, 100))
    builder.queue("root.a", (50, 50), (55, 100), used=(60, 10))
    snapshot = builder.build()
    tree = build_tree(snapshot, partitions_of(snapshot)[0], 2)
    a = tree.queues["root.a"]
    ref = R(100, 100)
    assert initial_ideal(a, ref, DRF, IdealMode()) == R(50, 10)  # componentwise min(g, used)
    assert initial_ideal(a, ref, DRF, IdealMode(variant="hadoop-2.7.3")) == R(50, 50)  # the guarantee
    a.ideal = R(50, 10)
    a.pending = a.pending_net_reserved = R(30, 30)
    # room <5, 90>; Hadoop 3 caps componentwise (balance mode: without the leaf cap)
    assert offer(a, R(10, 10), ref, DRF, IdealMode(balance=True)) == R(5, 10)
    a.ideal = R(50, 10)
    # 2.7.3 takes calculator minima of whole resources: <10, 10> beats the room <5, 90>
    assert offer(a, R(10, 10), ref, DRF, IdealMode(variant="hadoop-2.7.3")) == R(10, 10)


def test_2_7_3_parents_have_no_preemptable_extra() -> None:
    builder = ClusterBuilder().node("n1", total=100)
    builder.queue(ROOT, 100, 100)
    builder.queue("root.p", 40, 100)
    builder.queue("root.p.a", 20, 100)
    builder.queue("root.p.b", 20, 100)
    builder.queue("root.c", 60, 100, pending=30)
    builder.run(builder.app("root.p.a"), 50)
    builder.run(builder.app("root.p.b"), 20)
    snapshot = builder.build()
    for variant, preemptable in (("hadoop-3", 30), ("hadoop-2.7.3", 0)):
        tree = build_tree(snapshot, partitions_of(snapshot)[0], 2)
        update_extras(tree.root, DEFAULT, variant)  # type: ignore[arg-type]
        assert tree.queues["root.p.a"].preemptable.memory == 30
        assert tree.queues["root.p"].preemptable.memory == preemptable
        assert tree.queues["root.p"].untouchable.memory == 0


# --- settings the model refuses -------------------------------------------------------------------


def test_the_unmodelled_feature_is_refused_with_the_setting_name() -> None:
    config = HARNESS.replace(underutilized_preemption_enabled=True)
    with pytest.raises(NotModelled, match="underutilized-preemption.enabled"):
        one_round(two_leaves().build(), config)


@pytest.mark.parametrize("setting", ["intra_queue_enabled", "lazy_preemption_enabled"])
def test_intra_queue_and_lazy_preemption_are_no_longer_refused(setting: str) -> None:
    result = one_round(two_leaves().build(), HARNESS.replace(**{setting: True}))
    assert result.selectors[-1].name == ("intra-queue" if setting == "intra_queue_enabled" else "fifo")


@pytest.mark.parametrize(
    "setting",
    [
        "select_based_on_reserved_containers",
        "additional_res_balance_based_on_reserved_containers",
        "preemption_to_balance_enabled",
        "conservative_drf",
        "intra_queue_enabled",
        "lazy_preemption_enabled",
    ],
)
def test_settings_2_7_3_does_not_have_are_refused(setting: str) -> None:
    with pytest.raises(NotModelled, match="2.7.3"):
        one_round(two_leaves().build(), OLD.replace(**{setting: True}))
    one_round(two_leaves().build(), HARNESS.replace(**{setting: True}))  # fine in Hadoop 3


def test_unknown_variant_and_bad_clock_and_app_outside_a_leaf() -> None:
    snapshot = two_leaves().build()
    with pytest.raises(NotModelled, match="hadoop-9"):
        one_round(snapshot, PreemptionConfig(variant="hadoop-9"))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="now_ms"):
        edit_schedule(snapshot, HARNESS, DEFAULT, "10")  # type: ignore[arg-type]
    builder = two_leaves()
    builder.app(ROOT)
    with pytest.raises(InputError, match=r"application 2: queue root is not a leaf queue"):
        one_round(builder.build())


# --- properties --------------------------------------------------------------------------------------


@settings(max_examples=60)
@given(
    used=st.integers(min_value=0, max_value=100),
    reserved=st.integers(min_value=0, max_value=3),
    pending=st.integers(min_value=0, max_value=100),
    factor=st.sampled_from([0.2, 0.5, 1.0]),
)
def test_2_7_3_never_marks_reservations_and_takes_no_more_than_3(
    used: int, reserved: int, pending: int, factor: float
) -> None:
    """From one over-using leaf with unit containers: 2.7.3 truncates where Hadoop 3 rounds up
    and counts reservations without marking them, so it never selects more than Hadoop 3."""
    builder = two_leaves(used=(used - min(used, reserved), 0), pending=(0, pending))
    if used and reserved:
        builder.run(1, min(used, reserved), reserved=True)
    snapshot = builder.build()
    config = HARNESS.replace(natural_termination_factor=factor)
    new = one_round(snapshot, config)
    old = one_round(snapshot, config.replace(variant="hadoop-2.7.3"))
    assert not any(c.reserved for c in old.selected)
    assert len(old.selected) <= len(new.selected)
    assert {c.app_id for c in old.selected} <= {1}
