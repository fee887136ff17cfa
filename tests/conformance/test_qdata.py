"""The qData notation parser (semantics B): tree, cluster, applications, containers, AM flags,
disable flags, the resource-string variant, precise errors, and every shared case's
``derived`` expansion compared with the parse."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.conformance import qdata
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.impl.calculator import calculator
from yarnspec.impl.resources import Resource

from ..conftest import CONFORMANCE_DIR

DEFAULT = calculator("default")
DOMINANT = calculator("dominant")
KEY_B = "yarn.scheduler.capacity.root.queueA.queueB.disable_preemption"


def rows(**overrides: list[Any]) -> dict[str, list[Any]]:
    """Root -> A(B, C), D(E, F) (the B.2 example), with figures that parse cleanly."""
    base: dict[str, list[Any]] = {
        "abs": [100, 50, 30, 20, 50, 25, 25],
        "maxCap": [100, 100, 100, 100, 100, 100, 100],
        "used": [100, 60, 40, 20, 40, 30, 10],
        "pending": [999, 999, 5, 0, 7, 3, 0],
        "reserved": [0, 0, 2, 0, 0, 0, 0],
        "apps": [9, 9, 2, 1, 9, 1, 1],
        "gran": [-1, -1, 3, 1, -1, 2, 1],
        "subqueues": [2, 2, 0, 0, 2, 0, 0],
    }
    base.update(overrides)
    return base


def parse(data: dict[str, Any], conf: dict[str, Any] | None = None, calc: Any = DEFAULT) -> qdata.QDataCluster:
    return qdata.parse_qdata(data, conf or {}, calc)


# --- tree (B.2) ---------------------------------------------------------------------------


def test_subqueues_row_rebuilds_the_tree_depth_first() -> None:
    snapshot = parse({"rows": rows()}).snapshot
    queues = snapshot.queues
    assert queues["root"].children == ("root.queueA", "root.queueD")
    assert queues["root.queueA"].children == ("root.queueA.queueB", "root.queueA.queueC")
    assert queues["root.queueD"].children == ("root.queueD.queueE", "root.queueD.queueF")
    assert snapshot.leaves == ("root.queueA.queueB", "root.queueA.queueC", "root.queueD.queueE", "root.queueD.queueF")
    assert queues["root.queueA.queueB"].parent == "root.queueA"
    assert not queues["root.queueA"].leaf and queues["root.queueA.queueC"].leaf


def test_a_chain_of_single_children_nests() -> None:
    data = {name: values[:4] for name, values in rows().items()}
    data["subqueues"] = [1, 1, 1, 0]
    data["gran"] = [-1, -1, -1, 1]
    data["apps"] = [1, 1, 1, 1]
    snapshot = parse({"rows": data}).snapshot
    assert list(snapshot.preorder()) == ["root", "root.queueA", "root.queueA.queueB", "root.queueA.queueB.queueC"]
    assert snapshot.leaves == ("root.queueA.queueB.queueC",)


@pytest.mark.parametrize(
    "subqueues, fault",
    [
        ([2, 2, 0, 0, 1, 0, 0], "column 6 has no parent"),
        ([2, 2, 0, 0, 2, 0, 1], "1 more queue(s) than there are columns"),
        ([0, 2, 0, 0, 2, 0, 0], "root must have at least one child"),
    ],
)
def test_inconsistent_subqueues_row_is_a_format_error(subqueues: list[int], fault: str) -> None:
    with pytest.raises(CaseFormatError) as caught:
        parse({"rows": rows(subqueues=subqueues)})
    assert caught.value.place.startswith("input.rows.subqueues")
    assert fault in caught.value.fault


# --- cluster and capacities (B.3) ----------------------------------------------------------


def test_cluster_is_the_sum_of_leaf_guarantees_not_roots() -> None:
    snapshot = parse({"rows": rows(abs=[200, 50, 30, 20, 50, 25, 24])}).snapshot
    assert snapshot.cluster_resource == Resource.of(99, 99)
    assert snapshot.partitions[""].resource == Resource.of(99, 99)
    assert [n.total for n in snapshot.nodes.values()] == [Resource.of(99, 99)]


def test_every_value_becomes_memory_and_vcores() -> None:
    figures = parse({"rows": rows()}).snapshot.queues["root.queueA.queueB"].at("")
    assert figures.guaranteed == Resource.of(30, 30)
    assert figures.maximum == Resource.of(100, 100)
    assert figures.used == Resource.of(40, 40)
    assert figures.reserved == Resource.of(2, 2)


def test_leaf_pending_net_of_reserved_clamps_at_zero_and_parents_sum_children() -> None:
    data = rows(pending=[999, 999, 5, 0, 7, 3, 0], reserved=[0, 0, 2, 4, 0, 0, 0])
    queues = parse({"rows": data}).snapshot.queues
    assert queues["root.queueA.queueB"].at("").pending_net_reserved == Resource.of(3, 3)
    assert queues["root.queueA.queueC"].at("").pending_net_reserved == Resource.of(0, 0)
    assert queues["root.queueA"].at("").pending == Resource.of(5, 5)  # the 999 cell is ignored
    assert queues["root.queueD"].at("").pending == Resource.of(3, 3)  # and so is the 7
    assert queues["root"].at("").pending == Resource.of(8, 8)
    assert queues["root"].at("").pending_net_reserved == Resource.of(6, 6)


# --- applications and containers (B.4) ---------------------------------------------------


def test_application_ids_run_left_to_right_over_leaves() -> None:
    parsed = parse({"rows": rows()})
    by_queue = {q: [a.app_id for a in apps] for q, apps in parsed.snapshot.apps_by_queue.items()}
    assert by_queue == {
        "root.queueA.queueB": [0, 1],
        "root.queueA.queueC": [2],
        "root.queueD.queueE": [3],
        "root.queueD.queueF": [4],
    }
    assert [a.test_constant for column in parsed.columns for a in column.apps] == [
        "appA",
        "appB",
        "appC",
        "appD",
        "appE",
    ]


def test_app_f_is_built_with_id_four_like_app_e() -> None:
    assert qdata.app_id_of_constant("appF", "x") == 4 == qdata.app_id_of_constant("appE", "x")
    assert qdata.constant_of_app_id(4) == "appE"
    assert qdata.constant_of_app_id(5) is None
    with pytest.raises(CaseFormatError, match="unknown application constant 'appG'"):
        qdata.app_id_of_constant("appG", "rounds[0].expect[0].app")


def test_containers_reserved_first_then_live_each_counting_up_to_the_apps_share() -> None:
    # queueB: used 40 over 2 apps -> 20 each, reserved 2 -> 1 each, container size 3
    parsed = parse({"rows": rows()})
    app0 = parsed.snapshot.containers_by_app[0]
    reserved = [c.container_id.number for c in app0 if c.reserved]
    live = [c.container_id.number for c in app0 if not c.reserved]
    assert reserved == [0]  # ceil(1 / 3)
    assert live == list(range(1, 8))  # ceil(20 / 3) = 7, ids continue after the reserved one
    assert all(c.resource == Resource.of(3, 3) and c.node == qdata.NODE for c in app0)
    layout = parsed.columns[2].apps[0]
    assert layout.used_per_app == Resource.of(20, 20)
    assert layout.reserved_per_app == Resource.of(1, 1)


def test_uneven_split_rounds_each_apps_share_up() -> None:
    parsed = parse({"rows": rows(used=[100, 61, 41, 20, 40, 30, 10], gran=[-1, -1, 1, 1, -1, 2, 1])})
    assert [len([c for c in parsed.snapshot.containers_by_app[a] if not c.reserved]) for a in (0, 1)] == [21, 21]


def test_without_set_am_container_every_container_has_priority_one_and_no_am() -> None:
    containers = parse({"rows": rows()}).snapshot.containers
    assert all(c.priority == 1 and not c.is_am for c in containers)


def test_set_am_container_marks_the_first_live_container_of_every_app() -> None:
    snapshot = parse({"rows": rows(), "set_am_container": True}).snapshot
    for app_id, containers in snapshot.containers_by_app.items():
        first_live = next(c for c in containers if not c.reserved)
        assert first_live.is_am and first_live.priority == 0, app_id
        assert all(not c.is_am and c.priority == 1 for c in containers if c is not first_live)


def test_am_percent_is_zero_unless_set_and_only_on_leaves() -> None:
    assert {q.max_am_percent for q in parse({"rows": rows()}).snapshot.queues.values()} == {0.0}
    queues = parse({"rows": rows(), "max_am_resource_percent": 0.5}).snapshot.queues
    assert queues["root.queueA.queueB"].max_am_percent == 0.5
    assert queues["root.queueA"].max_am_percent == 0.0


# --- disable flags (B.6) -------------------------------------------------------------------


def disabled(conf: dict[str, Any]) -> set[str]:
    return {q.path for q in parse({"rows": rows()}, conf).snapshot.queues.values() if q.preemption_disabled}


def test_disable_flags_inherit_from_the_nearest_explicit_ancestor() -> None:
    assert disabled({}) == set()
    assert disabled({KEY_B: True}) == {"root.queueA.queueB"}
    assert disabled({"yarn.scheduler.capacity.root.queueA.disable_preemption": "true"}) == {
        "root.queueA",
        "root.queueA.queueB",
        "root.queueA.queueC",
    }
    everything = {q for q in parse({"rows": rows()}).snapshot.queues}
    assert disabled({"yarn.scheduler.capacity.root.disable_preemption": True}) == everything


def test_an_explicit_false_on_a_child_re_enables_it() -> None:
    conf = {"yarn.scheduler.capacity.root.queueA.disable_preemption": True, KEY_B: "False"}
    assert disabled(conf) == {"root.queueA", "root.queueA.queueC"}


def test_a_disable_flag_that_is_not_a_boolean_names_the_key() -> None:
    with pytest.raises(CaseFormatError) as caught:
        disabled({KEY_B: "yes"})
    assert caught.value.place == f'conf["{KEY_B}"]'


# --- resource strings (B.5) ----------------------------------------------------------------


def vcore_input() -> dict[str, Any]:
    return {
        "variant": qdata.RESOURCE_STRINGS,
        "int_rows": {"maxCap": [100, 100, 100], "apps": [9, 1, 1], "subqueues": [2, 0, 0]},
        "resource_rows": {
            "abs": ["100:100", "50:50", "50:50"],
            "used": ["10:100", "10:100", "0"],
            "pending": ["1", "1", "10:100"],
            "reserved": ["0", "0", "0"],
            "gran": ["-1", "1:10", "1:10"],
        },
    }


def test_resource_strings_give_memory_and_vcores_and_a_single_number_means_no_vcores() -> None:
    assert qdata.parse_resource_string("7:3", "x") == Resource.of(7, 3)
    assert qdata.parse_resource_string("7", "x") == Resource.of(7, 0)
    snapshot = parse(vcore_input(), calc=DOMINANT).snapshot
    assert snapshot.cluster_resource == Resource.of(100, 100)
    assert snapshot.queues["root.queueA"].at("").maximum == Resource.of(100, 100)
    assert snapshot.queues["root.queueA"].at("").pending == Resource.of(1, 0)
    live = [c for c in snapshot.containers if not c.reserved]
    assert len(live) == 10 and {c.resource for c in live} == {Resource.of(1, 10)}


@pytest.mark.parametrize("text", ["1:2:3", "a:1", "", "1.5"])
def test_bad_resource_strings_name_the_cell(text: str) -> None:
    data = vcore_input()
    data["resource_rows"]["used"][1] = text
    with pytest.raises(CaseFormatError) as caught:
        parse(data, calc=DOMINANT)
    assert caught.value.place == "input.resource_rows.used[1]"


def test_rows_belong_to_their_variant() -> None:
    data = vcore_input()
    data["rows"] = rows()
    with pytest.raises(CaseFormatError, match="not with variant"):
        parse(data)
    with pytest.raises(Unsupported, match="variant 'other'"):
        parse({"rows": rows(), "variant": "other"})


# --- errors with precise places -------------------------------------------------------------


@pytest.mark.parametrize(
    "change, place, fault",
    [
        ({"used": [100, 60, -1, 20, 40, 30, 10]}, "input.rows.used[2]", "cannot be negative"),
        ({"used": [100, 60, 40, "x", 40, 30, 10]}, "input.rows.used[3]", "resource 'x'"),
        ({"apps": [9, 9, True, 1, 9, 1, 1]}, "input.rows.apps[2]", "expected an integer, found a boolean"),
        ({"apps": [9, 9, -2, 1, 9, 1, 1]}, "input.rows.apps[2]", ">= 0"),
        ({"gran": [-1, -1, 0, 1, -1, 2, 1]}, "input.rows.gran[2]", "positive container size"),
        ({"pending": [1, 2, 3]}, "input.rows.pending", "has 3 columns, but subqueues has 7"),
        ({"used": 5}, "input.rows.used", "expected a list"),
    ],
)
def test_bad_cells_name_row_and_column(change: dict[str, Any], place: str, fault: str) -> None:
    with pytest.raises(CaseFormatError) as caught:
        parse({"rows": rows(**change)})
    assert caught.value.place == place
    assert fault in caught.value.fault


def test_a_missing_row_is_named() -> None:
    data = rows()
    del data["gran"]
    with pytest.raises(CaseFormatError) as caught:
        parse({"rows": data})
    assert caught.value.place == "input.rows.gran"


def test_an_unknown_row_or_input_field_is_unsupported_not_ignored() -> None:
    with pytest.raises(Unsupported, match=r"input\.rows\.weight"):
        parse({"rows": rows(weight=[1] * 7)})
    with pytest.raises(Unsupported, match=r"input\.labels"):
        parse({"rows": rows(), "labels": []})


def test_explanatory_input_keys_are_ignored() -> None:
    parse({"rows": rows(), "queue_names_comment": "x", "derived": {"anything": 1}, "layout_note": "y"})


# --- the extra (dynamic parent) queue ----------------------------------------------------------


def test_extra_queue_is_a_childless_parent_under_its_parent() -> None:
    extra = {
        "path": "root.dynamicParent",
        "effective_min": "1 MB",
        "effective_max": "<1,1>",
        "used": 1024,
        "reserved": 1024,
    }
    snapshot = parse({"rows": rows(), "extra_queue": extra}).snapshot
    queue = snapshot.queues["root.dynamicParent"]
    assert not queue.leaf and queue.children == ()
    assert "root.dynamicParent" in snapshot.queues["root"].children
    assert "root.dynamicParent" not in snapshot.leaves
    assert queue.at("").guaranteed == Resource.of(1, 0)
    assert queue.at("").maximum == Resource.of(1, 1)
    assert queue.at("").used == Resource.of(1024, 0)


@pytest.mark.parametrize(
    "extra, place",
    [
        ({"path": "root.queueA.queueB.x"}, "input.extra_queue.path"),
        ({"path": "root.queueA"}, "input.extra_queue.path"),
        ({"path": "root.x", "used": "lots"}, "input.extra_queue.used"),
    ],
)
def test_bad_extra_queue_is_named(extra: dict[str, Any], place: str) -> None:
    with pytest.raises(CaseFormatError) as caught:
        parse({"rows": rows(), "extra_queue": extra})
    assert caught.value.place == place


# --- derived: every shared qdata case --------------------------------------------------------


def _qdata_cases() -> list[Path]:
    folder = CONFORMANCE_DIR / "hadoop-preemption"
    return sorted(p for p in folder.rglob("*.json") if json.loads(p.read_text())["notation"] == "qdata")


QDATA_CASES = _qdata_cases()


def _load(path: Path) -> tuple[dict[str, Any], qdata.QDataCluster]:
    case = json.loads(path.read_text())
    return case, parse(case["input"], case["conf"], calculator(case["resource_calculator"]))


def test_the_shared_folder_has_qdata_cases() -> None:
    assert len(QDATA_CASES) >= 20


@pytest.mark.parametrize("path", QDATA_CASES, ids=[p.stem for p in QDATA_CASES])
def test_parse_agrees_with_the_cases_derived_expansion(path: Path) -> None:
    case, parsed = _load(path)
    assert qdata.derived_mismatches(parsed, case["input"].get("derived", {})) == []


def test_a_wrong_derived_value_is_reported_with_its_place() -> None:
    case, parsed = _load(
        CONFORMANCE_DIR / "hadoop-preemption/TestProportionalCapacityPreemptionPolicy/testSkipAMContainer.json"
    )
    derived = copy.deepcopy(case["input"]["derived"])
    derived["cluster_memory"] += 1
    derived["queues"][1]["apps"][2]["live_containers"] += 1
    derived["queues"][1]["apps"][0]["container_ids"]["live"] = [1, 25]
    found = qdata.derived_mismatches(parsed, derived)
    assert len(found) == 3
    assert found[0].startswith("input.derived.cluster_memory:")
    assert found[1].startswith("input.derived.queues[1].apps[0].container_ids.live:")
    assert found[2].startswith("input.derived.queues[1].apps[2].live_containers:")


# --- properties -----------------------------------------------------------------------------


@st.composite
def qdata_inputs(draw: st.DrawFn) -> dict[str, Any]:
    """A random tree (children counts in pre-order) with random figures per column."""
    subqueues: list[int] = []

    def grow(depth: int) -> None:
        index = len(subqueues)
        subqueues.append(0)
        if depth < 3 and (depth == 0 or draw(st.booleans())):
            count = draw(st.integers(1, 3))
            subqueues[index] = count
            for _ in range(count):
                grow(depth + 1)

    grow(0)
    width = len(subqueues)
    numbers = st.lists(st.integers(0, 60), min_size=width, max_size=width)
    return {
        "rows": {
            "abs": draw(numbers),
            "maxCap": draw(numbers),
            "used": draw(numbers),
            "pending": draw(numbers),
            "reserved": draw(numbers),
            "apps": draw(st.lists(st.integers(0, 3), min_size=width, max_size=width)),
            "gran": draw(st.lists(st.integers(1, 7), min_size=width, max_size=width)),
            "subqueues": subqueues,
        },
        "set_am_container": draw(st.booleans()),
    }


@settings(max_examples=60)
@given(qdata_inputs())
def test_parse_keeps_column_order_app_shares_and_container_counts(data: dict[str, Any]) -> None:
    table = data["rows"]
    parsed = parse(data)
    snapshot = parsed.snapshot
    assert list(snapshot.preorder()) == [column.path for column in parsed.columns]
    leaves = [col for col in range(len(table["subqueues"])) if col > 0 and table["subqueues"][col] == 0]
    assert snapshot.cluster_resource.memory == sum(table["abs"][col] for col in leaves)
    expected_ids = 0
    for col in leaves:
        apps = snapshot.apps_by_queue.get(parsed.columns[col].path, ())
        assert [a.app_id for a in apps] == list(range(expected_ids, expected_ids + table["apps"][col]))
        expected_ids += table["apps"][col]
        for app in apps:
            containers = snapshot.containers_by_app.get(app.app_id, ())
            k, size = table["apps"][col], table["gran"][col]
            live = [c for c in containers if not c.reserved]
            assert len(live) == math.ceil(math.ceil(table["used"][col] / k) / size)
            assert len(containers) - len(live) == math.ceil(math.ceil(table["reserved"][col] / k) / size)
            assert [c.container_id.number for c in containers] == list(range(len(containers)))
            assert sum(c.is_am for c in containers) == (1 if data["set_am_container"] and live else 0)
    assert len(snapshot.apps) == expected_ids
