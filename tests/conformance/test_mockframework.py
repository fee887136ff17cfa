"""The string-notation parser (semantics C): partitions, nodes, the queue tree with
per-partition figures and options, applications and their containers, resource strings, and
one precise message per malformed expression."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.conformance import mockframework as mf
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.impl.cluster import ContainerId
from yarnspec.impl.resources import Resource, ResourceTypes

TWO = ResourceTypes()
THREE = ResourceTypes(("res1",))

LABELS = "=100,true;x=50,false;"
NODES = "n1=x;n2= res=40;n3="
QUEUES = "root(=[100 100 60 10],x=[50 50 40 5]);-a(=[60 100 50 10 4],x=[0 0 40 5]){priority=2};--a1(=[60 100 50 10]);-b(=[40 100 10 0]){disable_preemption=true}"
APPS = "a1\t(1,1,n2,,2,false)(3,2,n1,,1,false)(2,5,n2,,1,true);root.b\t(4,1,n3,,3,false);a1\t(1,3,n1,x,2,false)"


def make(**fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"labelsConfig": LABELS, "nodesConfig": NODES, "queuesConfig": QUEUES, "appsConfig": APPS}
    data.update(fields)
    return data


def parse(conf: Mapping[str, Any] | None = None, **fields: Any) -> mf.MockCluster:
    return mf.parse_mockframework(make(**fields), conf or {})


# --- resources (C.3) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, types, expected",
    [
        ("5", TWO, Resource.of(5, 1)),
        ("0", TWO, Resource.of(0, 0)),
        ("5:3", TWO, Resource.of(5, 3)),
        ("5:0", TWO, Resource.of(5, 0)),
        ("5:3:2", THREE, Resource.of(5, 3, 2)),
        ("5:3", THREE, Resource.of(5, 3)),
    ],
)
def test_resource_strings(text: str, types: ResourceTypes, expected: Resource) -> None:
    assert mf.parse_resource(text, types) == expected


@pytest.mark.parametrize(
    "text, fault",
    [
        ("5:3:2", "the registered types are memory-mb, vcores"),
        ("5:x", "not whole numbers"),
        ("-5", "not whole numbers"),
        ("", "not whole numbers"),
    ],
)
def test_bad_resource_strings(text: str, fault: str) -> None:
    with pytest.raises(ValueError, match=fault):
        mf.parse_resource(text, TWO)


def test_registered_types_come_from_resource_types_and_extra_resource_types() -> None:
    assert mf.resource_types({"resource_types": ["memory-mb", "vcores", "res1"]}, "input") == THREE
    assert mf.resource_types({"extra_resource_types": [{"name": "res1", "units": ""}]}, "input") == THREE
    with pytest.raises(CaseFormatError, match="differ from resource_types"):
        mf.resource_types(
            {"resource_types": ["memory-mb", "vcores", "res1"], "extra_resource_types": [{"name": "gpu"}]}, "input"
        )
    with pytest.raises(CaseFormatError, match="must start with"):
        mf.resource_types({"resource_types": ["vcores", "memory-mb"]}, "input")


# --- partitions and nodes (C.1, C.2) -------------------------------------------------------------


def test_partitions_with_resource_and_exclusivity() -> None:
    snapshot = parse().snapshot
    assert snapshot.partitions[""].resource == Resource.of(100, 1) and snapshot.partitions[""].exclusive
    assert snapshot.partitions["x"].resource == Resource.of(50, 1) and not snapshot.partitions["x"].exclusive
    assert snapshot.cluster_resource == Resource.of(150, 2)


def test_nodes_with_partition_and_optional_resource() -> None:
    nodes = parse().snapshot.nodes
    assert (nodes["n1"].partition, nodes["n1"].total) == ("x", Resource.of(0, 0))
    assert (nodes["n2"].partition, nodes["n2"].total) == ("", Resource.of(40, 1))
    assert nodes["n3"].partition == ""


# --- queues (C.3) -----------------------------------------------------------------------------


def test_queue_tree_from_dashes() -> None:
    queues = parse().snapshot.queues
    assert queues["root"].children == ("root.a", "root.b")
    assert queues["root.a"].children == ("root.a.a1",)
    assert [q for q in queues if queues[q].leaf] == ["root.a.a1", "root.b"]
    assert queues["root.a.a1"].parent == "root.a"


def test_queue_figures_per_partition_with_optional_reserved() -> None:
    queues = parse().snapshot.queues
    a = queues["root.a"]
    assert a.at("").guaranteed == Resource.of(60, 1)
    assert a.at("").maximum == Resource.of(100, 1)
    assert a.at("").used == Resource.of(50, 1)
    assert a.at("").pending == Resource.of(10, 1)
    assert a.at("").reserved == Resource.of(4, 1)
    assert a.at("x").guaranteed == Resource.of(0, 0)
    assert queues["root.b"].at("").reserved == Resource.of(0, 0)
    assert queues["root.b"].at("x").used == Resource.of(0, 0)  # partition not listed: zero


def test_pending_net_of_reserved_is_not_clamped() -> None:
    queues = parse(
        queuesConfig="root(=[100 100 60 10]);-a(=[60 100 50 2:1 5:3]);-b(=[40 100 10 0])", appsConfig=""
    ).snapshot.queues
    assert queues["root.a"].at("").pending_net_reserved == Resource.of(-3, -2)


def test_options_priority_and_disable_preemption() -> None:
    queues = parse().snapshot.queues
    assert queues["root.a"].priority == 2 and queues["root"].priority == 0
    assert queues["root.b"].preemption_disabled and not queues["root.a"].preemption_disabled


def test_conf_disable_flag_applies_to_the_exact_path_only_and_the_option_overrides_it() -> None:
    key = "yarn.scheduler.capacity.{}.disable_preemption"
    queues = parse({key.format("root.a"): True, key.format("root.b"): "false"}).snapshot.queues
    assert queues["root.a"].preemption_disabled
    assert not queues["root.a.a1"].preemption_disabled  # no inheritance in this harness (C.5)
    assert queues["root.b"].preemption_disabled  # the {disable_preemption=true} option wins


def test_a_queue_followed_by_a_sibling_with_children_is_a_childless_parent() -> None:
    """C.3: leaf-ness looks at the next expression of a different depth."""
    config = "root(=[100 100 0 0]);-a(=[50 100 0 0]);-b(=[50 100 0 0]);--b1(=[50 100 0 0])"
    queues = parse(queuesConfig=config, appsConfig="b1\t(1,1,n2,,1,false)").snapshot.queues
    assert not queues["root.a"].leaf and queues["root.a"].children == ()
    assert queues["root.b"].children == ("root.b.b1",)
    assert queues["root.b.b1"].leaf


# --- applications and containers (C.4) --------------------------------------------------------------


def test_applications_are_numbered_from_one_in_order_with_their_tokens() -> None:
    parsed = parse()
    assert [(a.app_id, a.queue) for a in parsed.snapshot.apps.values()] == [
        (1, "root.a.a1"),
        (2, "root.b"),
        (3, "root.a.a1"),
    ]
    assert dict(parsed.app_tokens) == {1: "a1", 2: "root.b", 3: "a1"}
    container = parsed.snapshot.containers_by_app[2][0]
    assert parsed.queue_string(container) == "root.b"


def test_container_numbers_run_across_specs_and_container_one_is_the_am() -> None:
    containers = parse().snapshot.containers_by_app[1]
    assert [c.container_id for c in containers] == [ContainerId(1, n) for n in (1, 2, 3, 4)]
    assert [c.is_am for c in containers] == [True, False, False, False]
    assert [c.priority for c in containers] == [1, 1, 3, 2]
    assert [c.node for c in containers] == ["n2", "n2", "n1", "n2"]
    assert [c.resource for c in containers] == [Resource.of(1, 1)] * 2 + [Resource.of(2, 1), Resource.of(5, 1)]


def test_reserved_containers_are_flagged() -> None:
    containers = parse().snapshot.containers_by_app[1]
    assert [c.reserved for c in containers] == [False, False, False, True]


def test_application_priority_is_its_last_specs() -> None:
    apps = parse().snapshot.apps
    assert apps[1].priority == 2 and apps[2].priority == 4


def test_an_empty_label_on_a_labelled_node_ignores_exclusivity() -> None:
    snapshot = parse().snapshot
    on_x = [c for c in snapshot.containers if snapshot.node_partition(c) == "x"]
    assert {(c.app_id, c.label) for c in on_x} == {(1, ""), (3, "x")}


def test_user_and_pending_fields_are_optional() -> None:
    apps = parse(appsConfig="a1\t(1,1,n2,,1,false,5:5,alice);b\t(1,1,n2,,1,false,0)").snapshot.apps
    assert apps[1].user == "alice" and apps[2].user == "user"


def test_an_app_with_zero_containers_still_exists() -> None:
    parsed = parse(appsConfig="a1\t(1,0:0,n2,,0,false)")
    assert list(parsed.snapshot.apps) == [1] and parsed.snapshot.containers == ()


def test_intra_queue_only_inputs_are_accepted_and_unknown_inputs_are_not() -> None:
    parsed = parse(None, **{"user_limit_stub_for_root.a.a1": "20:20 (a comment)"})
    assert parsed.snapshot.queues["root.a.a1"].at("").user_limits == {"user": Resource.of(20, 20)}
    with pytest.raises(CaseFormatError, match=r"user_limit_stub_for_root\.a: 'root\.a' names no single leaf"):
        parse(None, **{"user_limit_stub_for_root.a": "20:20"})
    with pytest.raises(Unsupported, match=r"input\.nodeLabels"):
        parse(nodeLabels="x")


def test_harness_user_limits_pending_and_user_limit_percent() -> None:
    """The harness's user limit: the leaf's default-partition capacity divided, rounded up, by
    its number of users, or by 100 / percent from the applications' third field; pending is
    summed over an application's specs and asked in its last spec's label."""
    queues = "root(=[100 100 100 0]);-a(=[40 100 30 0]);-b(=[60 100 0 0])"
    apps = "a\t(1,1,n3,,10,false,5,u1)(1,1,n3,,5,false,2,u1);a\t(1,1,n3,,15,false,0,u2);a\t(1,1,n3,,0,false,0,u3)"
    parsed = parse(None, labelsConfig="=100,true;", nodesConfig="n3=", queuesConfig=queues, appsConfig=apps)
    limits = parsed.snapshot.queues["root.a"].at("").user_limits
    assert limits == {"u1": Resource.of(14, 1), "u2": Resource.of(14, 1), "u3": Resource.of(14, 1)}  # ceil(40 / 3)
    assert parsed.snapshot.apps[1].pending_at("") == Resource.of(7, 1) + Resource.of(0, 1)
    with_percent = apps.replace("(1,1,n3,,0,false,0,u3)", "(1,1,n3,,0,false,0,u3)\t25")
    parsed = parse(None, labelsConfig="=100,true;", nodesConfig="n3=", queuesConfig=queues, appsConfig=with_percent)
    assert parsed.snapshot.queues["root.a"].at("").user_limits["u1"] == Resource.of(10, 1)  # 40 / (100 / 25)


def test_three_resource_types() -> None:
    parsed = mf.parse_mockframework(
        {
            "labelsConfig": "=30:18:6,true;",
            "nodesConfig": "n1= res=30:18:6;",
            "queuesConfig": "root(=[30:18:6 30:18:6 12:12:6 1:1:1]);-a(=[10:6:2 10:6:2 6:6:3 0:0:0])",
            "appsConfig": "a\t(1,2:2:1,n1,,3,false)",
            "resource_types": ["memory-mb", "vcores", "res1"],
        },
        {},
    )
    assert parsed.snapshot.resource_types == THREE
    assert parsed.snapshot.queues["root.a"].at("").used == Resource.of(6, 6, 3)
    assert {c.resource for c in parsed.snapshot.containers} == {Resource.of(2, 2, 1)}


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, text, fragment",
    [
        (
            "queuesConfig",
            "root(=[100 100 0 0]);-a(=[50 100 0 0]);-b(=[100 200 0)",
            "expression 2 '-b(=[100 200 0)': cannot read partition entry at '=[100 200 0'",
        ),
        (
            "queuesConfig",
            "root(=[100 100 0 0]);-a(=[50 100 0])",
            "expression 1 '-a(=[50 100 0])': partition '': expected 4 or 5 resources",
        ),
        ("queuesConfig", "root(=[100 100 0 0]);-a(z=[50 100 0 0])", "partition 'z' is not in labelsConfig"),
        ("queuesConfig", "root(=[100 100 0 0]);-a(=[50 100 0 0],=[1 1 1 1])", "partition '' is given twice"),
        ("queuesConfig", "-a(=[50 100 0 0])", "the first queue must be the root"),
        ("queuesConfig", "root(=[1 1 0 0]);-a(=[1 1 0 0]);-a(=[1 1 0 0])", "queue 'root.a' is defined twice"),
        ("queuesConfig", "root(=[1 1 0 0]);-a(=[1 1 0 0]){priority=high}", "priority must be an integer"),
        ("queuesConfig", "root(=[1 1 0 0]);-a(=[1 1 a 0])", "resource 'a' is not whole numbers"),
        ("labelsConfig", "=100,maybe", "exclusivity must be true or false"),
        ("labelsConfig", "=100", "expected 'name=resource,exclusive'"),
        ("nodesConfig", "n1=y", "partition 'y' is not in labelsConfig"),
        ("nodesConfig", "n1= cpu=4", "unknown node option 'cpu=4'"),
        ("nodesConfig", "n1=;n1=", "node 'n1' is defined twice"),
        ("appsConfig", "a1 (1,1,n2,,1,false)", "expected the queue, a TAB"),
        ("appsConfig", "zz\t(1,1,n2,,1,false)", "no queue 'zz' in queuesConfig"),
        ("appsConfig", "a\t(1,1,n2,,1,false)", "'root.a' is not a leaf queue"),
        ("appsConfig", "a1\t(1,1,n9,,1,false)", "node 'n9' is not in nodesConfig"),
        ("appsConfig", "a1\t(1,1,n2,,many,false)", "repeat must be a whole number"),
        ("appsConfig", "a1\t(1,1,n2,,1)", "expected 6 to 8 fields"),
        ("appsConfig", "a1\t(1,1,n2,,1,false", "expected one or more"),
        ("appsConfig", "a1\t(1,1,n2,q,1,false)", "label 'q' is not a partition"),
    ],
)
def test_malformed_strings_name_field_expression_and_text(field: str, text: str, fragment: str) -> None:
    with pytest.raises(CaseFormatError) as caught:
        parse(None, **{field: text})
    message = str(caught.value)
    assert message.startswith(f"input.{field}: expression ")
    assert fragment in message


def test_unknown_queue_option_is_unsupported() -> None:
    with pytest.raises(Unsupported, match="queue option 'weight'"):
        parse(queuesConfig="root(=[1 1 0 0]);-a(=[1 1 0 0]){weight=3}", appsConfig="")


def test_missing_or_mistyped_fields_name_the_place() -> None:
    data = make()
    del data["nodesConfig"]
    with pytest.raises(CaseFormatError, match=r"^input\.nodesConfig: missing required field"):
        mf.parse_mockframework(data, {})
    with pytest.raises(CaseFormatError, match=r"^input\.appsConfig: expected a string"):
        parse(appsConfig=["a1"])


def test_an_ambiguous_short_name_is_an_error() -> None:
    config = "root(=[1 1 0 0]);-a(=[1 1 0 0]);--x(=[1 1 0 0]);-b(=[1 1 0 0]);--x(=[1 1 0 0])"
    with pytest.raises(CaseFormatError, match="ambiguous: root.a.x, root.b.x"):
        parse(queuesConfig=config, appsConfig="x\t(1,1,n2,,1,false)")
    parse(queuesConfig=config, appsConfig="root.b.x\t(1,1,n2,,1,false)")


# --- properties ---------------------------------------------------------------------------------


@st.composite
def queue_trees(draw: st.DrawFn) -> list[tuple[int, str, tuple[int, int, int, int, int]]]:
    """(depth, name, figures) in pre-order; every parent has at least one child."""
    lines: list[tuple[int, str, tuple[int, int, int, int, int]]] = []
    figures = st.tuples(*[st.integers(0, 500)] * 5)

    def grow(depth: int, name: str) -> None:
        lines.append((depth, name, draw(figures)))
        if depth < 3 and (depth == 0 or draw(st.booleans())):
            for i in range(draw(st.integers(1, 3))):
                grow(depth + 1, f"{name[0] if depth else 'q'}{depth}{i}")

    grow(0, "root")
    return lines


@settings(max_examples=60)
@given(queue_trees())
def test_rendered_trees_parse_back_to_the_same_shape_and_figures(
    lines: list[tuple[int, str, tuple[int, int, int, int, int]]],
) -> None:
    text = ";".join(f"{'-' * depth}{name}(=[{' '.join(str(v) for v in f)}])" for depth, name, f in lines)
    queues = parse(queuesConfig=text, appsConfig="").snapshot.queues
    assert len(queues) == len(lines)
    paths: list[str] = []
    for position, (depth, name, figures) in enumerate(lines):
        parent = next((paths[p] for p in range(position - 1, -1, -1) if lines[p][0] < depth), None)
        path = name if parent is None else f"{parent}.{name}"
        paths.append(path)
        queue = queues[path]
        assert queue.parent == parent
        if position + 1 < len(lines) and lines[position + 1][0] > depth:
            assert queue.children and not queue.leaf
        # C.3: the next expression at a different depth decides (a harness quirk included)
        next_depth = next((d for d, _, _ in lines[position + 1 :] if d != depth), depth)
        assert queue.leaf == (next_depth <= depth)
        one = queue.at("")
        as_resource = [Resource.of(v, 1) if v else Resource.of(0, 0) for v in figures]
        assert [one.guaranteed, one.maximum, one.used, one.pending, one.reserved] == as_resource
        assert one.pending_net_reserved == as_resource[3] - as_resource[4]


@settings(max_examples=100)
@given(st.lists(st.integers(0, 10**9), min_size=1, max_size=3))
def test_resource_strings_round_trip(values: list[int]) -> None:
    parsed = mf.parse_resource(":".join(map(str, values)), THREE)
    if len(values) == 1:
        assert parsed == (Resource.of(values[0], 1) if values[0] else Resource.of(0, 0))
    else:
        assert parsed == Resource.of(*values)
