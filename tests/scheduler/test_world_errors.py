"""A bad world gives one InputError naming the place and the fault, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.scheduler.helpers import PREFIX, gb
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import configuration_from_properties
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import Variants, variants
from yarnspec.impl.scheduler.world import build_world

PROPS = {PREFIX + "root.queues": "a,b", PREFIX + "root.a.capacity": "50", PREFIX + "root.b.capacity": "50"}
NODES = [NodeSpec("n0", gb(8, 8))]
APPS = [AppSpec("app", "a", gb(1), (RequestSpec(1, gb(2)),))]


def build(**changes: Any) -> None:
    arguments: dict[str, Any] = {
        "configuration": configuration_from_properties({**PROPS, **changes.pop("props", {})}),
        "partitions": [PartitionSpec("")],
        "nodes": NODES,
        "apps": APPS,
    }
    arguments.update(changes)
    build_world(**arguments)


CASES: list[tuple[str, Callable[[], None], str, str]] = [
    (
        "unknown node partition",
        lambda: build(nodes=[NodeSpec("n0", gb(8), partition="x")]),
        "nodes[0].partition",
        "unknown partition 'x'",
    ),
    (
        "duplicate node",
        lambda: build(nodes=[NodeSpec("n0", gb(8)), NodeSpec("n0", gb(4))]),
        "nodes[1].name",
        "unique node name",
    ),
    ("no nodes", lambda: build(nodes=[]), "nodes", "at least one node"),
    ("zero capacity", lambda: build(nodes=[NodeSpec("n0", Resource.of(0, 4))]), "nodes[0].capacity", "memory > 0"),
    ("no default partition", lambda: build(partitions=[PartitionSpec("x")]), "partitions", "default partition"),
    ("unknown queue", lambda: build(apps=[AppSpec("app", "zz", gb(1))]), "apps[0].queue", "no queue matches 'zz'"),
    ("parent queue", lambda: build(apps=[AppSpec("app", "root", gb(1))]), "apps[0].queue", "not a leaf"),
    (
        "priority 0",
        lambda: build(apps=[AppSpec("app", "a", gb(1), (RequestSpec(0, gb(1)),))]),
        "apps[0].requests[0].priority",
        ">= 1",
    ),
    (
        "too large",
        lambda: build(apps=[AppSpec("app", "a", gb(1), (RequestSpec(1, gb(9)),))]),
        "apps[0].requests[0].capability",
        "maximum allocation",
    ),
    (
        "not normalised",
        lambda: build(apps=[AppSpec("app", "a", Resource.of(1500, 1))]),
        "apps[0].am",
        "multiple of the minimum allocation",
    ),
    (
        "unknown locality",
        lambda: build(apps=[AppSpec("app", "a", gb(1), (RequestSpec(1, gb(1), locality="nx"),))]),
        "apps[0].requests[0].locality",
        "'nx'",
    ),
    (
        "unknown label",
        lambda: build(apps=[AppSpec("app", "a", gb(1), (RequestSpec(1, gb(1), label="x"),))]),
        "apps[0].requests[0].label",
        "unknown partition 'x'",
    ),
    (
        "one key, two sizes",
        lambda: build(apps=[AppSpec("app", "a", gb(1), (RequestSpec(1, gb(1)), RequestSpec(1, gb(2), locality="n0")))]),
        "apps[0].requests[1]",
        "one scheduler key",
    ),
    (
        "bad commit variant",
        lambda: build(variants=variants("yarn-9999")),
        "variants.commit",
        "unknown commit check 'yarn-9999'",
    ),  # type: ignore[arg-type]
    (
        "bad reservation rule",
        lambda: build(variants=variants(reserve="yarn-1")),
        "variants.reserve",
        "unknown reservation rule 'yarn-1'",
    ),  # type: ignore[arg-type]
    (
        "bad headroom rule",
        lambda: build(variants=variants(headroom="none")),
        "variants.headroom",
        "unknown headroom rule 'none'",
    ),  # type: ignore[arg-type]
    (
        "rule not a boolean",
        lambda: build(variants=Variants(yarn_8127="yes")),
        "variants.yarn_8127",
        "expected true or false",
    ),  # type: ignore[arg-type]
    (
        "rule without its base",
        lambda: build(variants=Variants(yarn_10293=True)),
        "variants.yarn_10293",
        "yarn_10293 needs yarn_10259",
    ),
    (
        "nested rule without its base",
        lambda: build(variants=Variants(yarn_4280=False)),
        "variants.yarn_8804",
        "yarn_8804 needs yarn_4280",
    ),
    ("bad bound", lambda: build(bounds=Bounds(max_proposals=0)), "bounds.max_proposals", "whole number >= 1"),
    (
        "pre-8127 with multi-node",
        lambda: build(variants=variants("pre-8127"), props={PREFIX + "multi-node-placement-enabled": "true"}),
        "variants.yarn_8127",
        "no Hadoop release",
    ),
    (
        "unknown sorting policy",
        lambda: build(
            props={
                PREFIX + "multi-node-placement-enabled": "true",
                PREFIX + "multi-node-sorting.policy.default.class": "x.Foo",
            }
        ),
        PREFIX + "multi-node-sorting.policy.default.class",
        "multi-node lookup policy",
    ),
    (
        "unmodelled ordering",
        lambda: build(props={PREFIX + "root.a.ordering-policy": "fifo-with-partitions"}),
        PREFIX + "root.a.ordering-policy",
        "not modelled",
    ),
    (
        "unmodelled preemption",
        lambda: build(
            props={
                "yarn.resourcemanager.scheduler.monitor.enable": "true",
                "yarn.scheduler.capacity.ordering-policy.priority-utilization.underutilized-preemption.enabled": "true",
            }
        ),
        "preemption",
        "under-utilized queues is not modelled",
    ),
]


@pytest.mark.parametrize(("name", "make", "place", "fault"), CASES, ids=[c[0] for c in CASES])
def test_bad_world_names_place_and_fault(name: str, make: Callable[[], None], place: str, fault: str) -> None:
    with pytest.raises(InputError) as raised:
        make()
    assert raised.value.place == place
    assert fault in raised.value.fault


def test_a_stopped_queue_takes_no_applications() -> None:
    with pytest.raises(InputError, match="STOPPED"):
        build(props={PREFIX + "root.a.state": "STOPPED"})


def test_a_good_world_builds() -> None:
    build()
