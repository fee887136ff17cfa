"""The ``tiny-queue`` guarantee rule (YARN-11073): a queue's guarantee read as a percentage of
its partition and truncated per type, which gives a small queue 0 vcores of guarantee and makes
the pre-3.4.0 policy preempt it on an idle cluster; the ``yarn-11073`` rule (the same
guarantees, Hadoop 3.4.0's shares) does not. The default rule (``effective``) is unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.cluster import DEFAULT_PARTITION, Partition
from yarnspec.impl.errors import NotModelled
from yarnspec.impl.preemption.config import GUARANTEE_RULES, PreemptionConfig
from yarnspec.impl.preemption.context import RoundContext
from yarnspec.impl.preemption.result import EventType
from yarnspec.impl.preemption.temp_queue import build_tree, tiny_queue_guarantee
from yarnspec.impl.resources import Resource

from .builders import DEFAULT, DRF, HARNESS, ClusterBuilder, one_round

#: The cluster of the YARN-11073 report: 168 GB and 48 vcores.
CLUSTER = Resource.of(172032, 48)


def test_one_percent_of_the_reported_cluster_truncates_to_zero_vcores() -> None:
    """1% of <168 GB, 48 vcores> is <1.68 GB, 0.48 vcores>: Hadoop keeps <1720 MB, 0 vcores>."""
    assert tiny_queue_guarantee(Resource.of(1720, 1), CLUSTER) == Resource.of(1720, 0)
    # 19% keeps 9 of its 9.12 vcores; only memory decides the percentage.
    assert tiny_queue_guarantee(Resource.of(32686, 40), CLUSTER) == Resource.of(32686, 9)


def test_the_whole_partition_and_nothing_are_unchanged() -> None:
    """The root (100%) and a queue without guarantee keep their figures."""
    assert tiny_queue_guarantee(CLUSTER, CLUSTER) == CLUSTER
    assert tiny_queue_guarantee(Resource.of(0, 5), CLUSTER) == Resource.of(0, 0)
    assert tiny_queue_guarantee(Resource.of(10, 1), Resource.of(0, 4)) == Resource.of(0, 0)


def test_capacities_are_floats_so_a_product_can_lose_a_unit() -> None:
    """The capacity is a Java float: 137625 / 172032 stored in single precision times the
    partition comes to just under 137625, which truncates to 137624 (as in Hadoop)."""
    assert tiny_queue_guarantee(Resource.of(137625, 1), CLUSTER).memory == 137624


def _idle_cluster_with_a_tiny_queue() -> ClusterBuilder:
    """The YARN-11073 scenario: only the 1% queue runs (20 containers of <2500 MB, 1 vcore)."""
    builder = ClusterBuilder({DEFAULT_PARTITION: (172032, 48)})
    builder.node("n1", total=(172032, 48))
    builder.queue("root", guaranteed=(172032, 48))
    builder.queue("root.low", guaranteed=(1720, 1), pending=(2500, 1))
    builder.queue("root.mid", guaranteed=(32686, 9))
    builder.queue("root.high", guaranteed=(137625, 38))
    app = builder.app("root.low")
    builder.run(app, 20, size=(2500, 1))
    return builder


def test_the_tiny_queue_rule_preempts_on_an_idle_cluster() -> None:
    """Under ``tiny-queue`` the low queue's ideal keeps 0 vcores and its containers are marked
    although nothing else runs; with the guarantee as written nothing is marked."""
    snapshot = _idle_cluster_with_a_tiny_queue().build()
    truncated = one_round(snapshot, HARNESS.replace(guarantees="tiny-queue"), calc=DRF)
    marked = [e for e in truncated.events if e.kind is EventType.MARK_CONTAINER_FOR_PREEMPTION]
    assert len(marked) == 20
    target = truncated.selectors[0].targets[("root.low", DEFAULT_PARTITION)]
    assert target.guaranteed == Resource.of(1720, 0)
    assert target.ideal.vcores == 0 and target.to_be_preempted.vcores == 20
    effective = one_round(snapshot, HARNESS, calc=DRF)
    assert not effective.events


def test_the_default_rule_is_effective_and_reads_the_snapshot() -> None:
    """Default settings keep the snapshot's guarantee untouched."""
    assert PreemptionConfig().guarantees == "effective"
    assert GUARANTEE_RULES == ("effective", "tiny-queue", "yarn-11073")
    snapshot = _idle_cluster_with_a_tiny_queue().build()
    ctx = RoundContext.create(snapshot, PreemptionConfig(), DRF)
    assert ctx.trees[0].queues["root.low"].guaranteed == Resource.of(1720, 1)


def test_an_unknown_rule_is_not_modelled() -> None:
    """A rule name the model does not know is refused, not silently read as another."""
    snapshot = _idle_cluster_with_a_tiny_queue().build()
    partition = Partition(DEFAULT_PARTITION, CLUSTER, True)
    with pytest.raises(NotModelled, match="guarantee rule 'percent'"):
        build_tree(snapshot, partition, 2, "percent")  # type: ignore[arg-type]


def test_a_configuration_selects_the_rule_by_its_key() -> None:
    """``yarnspec.preemption.guarantee-rule`` (not a Hadoop key: a model variant, as a case
    file's calculator is) selects the rule; a bad value names the key."""
    from yarnspec.impl.errors import InputError
    from yarnspec.impl.preemption.config import GUARANTEE_RULE_KEY

    assert PreemptionConfig.from_properties({GUARANTEE_RULE_KEY: "tiny-queue"}).guarantees == "tiny-queue"
    assert PreemptionConfig.from_properties({GUARANTEE_RULE_KEY: " effective "}).guarantees == "effective"
    with pytest.raises(InputError) as caught:
        PreemptionConfig.from_properties({GUARANTEE_RULE_KEY: "percent"}, source="conf")
    assert caught.value.place == GUARANTEE_RULE_KEY
    assert "expected one of effective, tiny-queue, yarn-11073, found 'percent'" in caught.value.fault


def test_the_fix_leaves_the_idle_cluster_alone() -> None:
    """Regression for YARN-11073 (Hadoop 3.4.0): with the same truncated guarantees, the vcore
    shares come from the capacities, the low queue's ideal covers its 20 vcores, and nothing
    is marked."""
    snapshot = _idle_cluster_with_a_tiny_queue().build()
    fixed = one_round(snapshot, HARNESS.replace(guarantees="yarn-11073"), calc=DRF)
    assert not fixed.events
    target = fixed.selectors[0].targets[("root.low", DEFAULT_PARTITION)]
    assert target.guaranteed == Resource.of(1720, 0)  # the guarantee still truncates ...
    assert target.ideal == Resource.of(50000, 20) and target.to_be_preempted.is_zero()  # ... the shares do not


@settings(max_examples=150, deadline=None)
@given(
    memory=st.integers(1024, 400_000),
    vcores=st.integers(1, 96),
    percents=st.lists(st.integers(1, 60), min_size=2, max_size=4).filter(lambda p: sum(p) <= 100),
    running=st.integers(1, 30),
    size=st.tuples(st.integers(1, 4096), st.integers(1, 4)),
    which=st.integers(0, 3),
)
def test_under_the_fix_a_lone_queue_on_an_idle_cluster_is_never_preempted(
    memory: int, vcores: int, percents: list[int], running: int, size: tuple[int, int], which: int
) -> None:
    """Property: one queue uses (within its maximum and the cluster) and asks for nothing more,
    every other queue is idle. Under ``yarn-11073`` no container is marked, with either
    calculator; under ``tiny-queue`` with DRF some such clusters are preempted (the bug, shown
    by the tests above and by ``yarnspec prove --variant tiny-queue``)."""
    used = (size[0] * running, size[1] * running)
    if used[0] > memory or used[1] > vcores:
        return
    builder = ClusterBuilder({DEFAULT_PARTITION: (memory, vcores)})
    builder.node("n1", total=(memory, vcores))
    builder.queue("root", guaranteed=(memory, vcores))
    for index, percent in enumerate(percents):
        builder.queue(f"root.q{index}", guaranteed=(memory * percent // 100, vcores * percent // 100))
    app = builder.app(f"root.q{which % len(percents)}")
    builder.run(app, running, size=size)
    snapshot = builder.build()
    for calc in (DEFAULT, DRF):
        result = one_round(snapshot, HARNESS.replace(guarantees="yarn-11073"), calc=calc)
        assert not result.events, (calc, result.events[:3])
