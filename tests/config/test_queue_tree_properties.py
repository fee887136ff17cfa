"""Random valid queue trees written as XML and read back: the invariants of the tree.

Each generated tree lists random children with random percentages (tenths of a percent that
sum to exactly 100 per parent), optional maximums >= the capacity and optional
``disable_preemption`` flags, written in a shuffled property order. Read back, the tree has the
generated shape; absolute capacities are the products of the percentages along the path;
siblings' absolute capacities sum to their parent's; the preemption switch is the nearest
explicit one on the path; and the policy queues built for a random partition have guarantees
that are the truncated products and add up to their parent's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.cluster import Partition
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.capacity import read_queue_tree
from yarnspec.impl.config.hadoop_xml import HadoopConfiguration, format_configuration, parse_configuration
from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.config.keys import MONITOR_ENABLE
from yarnspec.impl.config.scheduler import scheduler_configuration
from yarnspec.impl.resources import Resource


@dataclass(frozen=True)
class Generated:
    """A generated tree: the properties and, per path, what the test expects."""

    properties: list[tuple[str, str]]
    paths: list[str]
    capacity: dict[str, float]  # percent
    maximum: dict[str, float]  # percent
    flag: dict[str, bool | None]  # explicit disable_preemption or None


@st.composite
def queue_trees(draw: st.DrawFn) -> Generated:
    props: dict[str, str] = {}
    paths = ["root"]
    capacity = {"root": 100.0}
    maximum = {"root": 100.0}
    flag: dict[str, bool | None] = {"root": draw(st.sampled_from([None, True, False]))}
    if flag["root"] is not None:
        props["root.disable_preemption"] = str(flag["root"]).lower()

    def grow(path: str, depth: int) -> None:
        count = draw(st.integers(1 if path == "root" else 0, 3 if depth < 3 else 0))
        if count == 0:
            return
        names = draw(
            st.lists(
                st.from_regex(r"[a-z][a-z0-9_-]{0,5}", fullmatch=True), min_size=count, max_size=count, unique=True
            )
        )
        cuts = sorted(draw(st.lists(st.integers(0, 1000), min_size=count - 1, max_size=count - 1)))
        tenths = [high - low for low, high in zip([0, *cuts], [*cuts, 1000])]
        props[f"{path}.queues"] = ",".join(names)
        for name, share in zip(names, tenths):
            child = f"{path}.{name}"
            paths.append(child)
            capacity[child] = share / 10
            props[f"{child}.capacity"] = f"{share / 10:g}"
            maximum[child] = 100.0
            if draw(st.booleans()):
                maximum[child] = draw(st.integers(share, 1000)) / 10
                props[f"{child}.maximum-capacity"] = f"{maximum[child]:g}"
            flag[child] = draw(st.sampled_from([None, True, False]))
            if flag[child] is not None:
                props[f"{child}.disable_preemption"] = str(flag[child]).lower()
            grow(child, depth + 1)

    grow("root", 0)
    items = draw(st.permutations([(PREFIX + k, v) for k, v in props.items()]))
    return Generated(list(items), paths, capacity, maximum, flag)


def _read(generated: Generated) -> HadoopConfiguration:
    text = format_configuration(generated.properties)
    return HadoopConfiguration.merge([parse_configuration(text, "generated.xml")])


def _ancestry(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@settings(max_examples=60)
@given(queue_trees())
def test_read_back_tree_has_the_generated_shape_shares_and_switches(generated: Generated) -> None:
    tree = read_queue_tree(_read(generated))
    assert [q.path for q in tree] == generated.paths
    for queue in tree:
        share = queue.at("")
        chain = _ancestry(queue.path)
        expected = math.prod(generated.capacity[p] / 100 for p in chain)
        expected_max = math.prod(generated.maximum[p] / 100 for p in chain)
        assert share.absolute is not None and share.absolute_maximum is not None
        assert math.isclose(share.absolute, expected, rel_tol=1e-5, abs_tol=1e-7)
        assert math.isclose(share.absolute_maximum, expected_max, rel_tol=1e-5, abs_tol=1e-7)
        assert share.absolute <= share.absolute_maximum
        explicit = [generated.flag[p] for p in chain if generated.flag[p] is not None]
        assert queue.disable_preemption == (explicit[-1] if explicit else False)
        if queue.children:
            total = sum(tree[c].at("").absolute or 0.0 for c in queue.children)
            assert math.isclose(total, share.absolute, rel_tol=1e-5, abs_tol=1e-7)


@settings(max_examples=40)
@given(queue_trees(), st.integers(0, 10**6), st.integers(0, 10**4))
def test_built_guarantees_are_truncated_products_that_add_up(generated: Generated, memory: int, vcores: int) -> None:
    conf = scheduler_configuration(_read(generated))
    partition = Partition("", Resource.of(memory, vcores))
    queues = {q.path: q for q in queues_for_snapshot(conf, [partition])}
    for path, queue in queues.items():
        figures = queue.at("")
        share = math.prod(generated.capacity[p] / 100 for p in _ancestry(path))
        for got, whole in zip(figures.guaranteed.values, partition.resource.values):
            assert abs(got - whole * share) <= 1 + whole * 1e-5
            assert 0 <= got <= whole
        assert figures.guaranteed.fits_all(figures.maximum) and figures.maximum.fits_all(partition.resource)
        assert queue.preemption_disabled is True  # the monitor is off in these files
        if queue.children:
            for index in range(2):
                children = sum(queues[c].at("").guaranteed.get(index) for c in queue.children)
                parent = figures.guaranteed.get(index)
                assert parent - len(queue.children) - 1 <= children <= parent + 1


@settings(max_examples=20)
@given(queue_trees())
def test_the_monitor_switch_decides_whether_the_queue_flag_counts(generated: Generated) -> None:
    text = format_configuration([*generated.properties, (MONITOR_ENABLE, "true")])
    conf = scheduler_configuration(HadoopConfiguration.merge([parse_configuration(text, "g.xml")]))
    for queue in conf.queues:
        assert conf.preemption_disabled(queue.path) == queue.disable_preemption
