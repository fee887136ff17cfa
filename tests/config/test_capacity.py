"""The queue tree read from capacity-scheduler.xml: shape, inheritance, shares, every rule."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from yarnspec.impl.config.capacity import parse_resource, read_queue_tree
from yarnspec.impl.config.hadoop_xml import HadoopConfiguration, format_configuration
from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.config.scheduler import SchedulerConfiguration, load_scheduler_configuration
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource, f32

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"

BASE = {"root.queues": "a,b", "root.a.capacity": "60", "root.b.capacity": "40"}


def _full(props: Mapping[str, str | None]) -> dict[str, str]:
    """Short keys (``root.a.capacity``) to full ones; ``None`` drops a key of BASE."""
    return {(k if k.startswith("yarn.") else PREFIX + k): v for k, v in props.items() if v is not None}


def write(tmp_path: Path, props: Mapping[str, str | None], name: str = "capacity-scheduler.xml") -> Path:
    path = tmp_path / name
    path.write_text(format_configuration(_full(props)), encoding="utf-8")
    return path


def load(tmp_path: Path, props: Mapping[str, str | None], **kwargs: Any) -> SchedulerConfiguration:
    return load_scheduler_configuration([write(tmp_path, {**BASE, **props})], **kwargs)


def tree_of(props: Mapping[str, str | None]) -> Any:
    return read_queue_tree(HadoopConfiguration.of(_full({**BASE, **props})))


def line_of(path: Path, key: str) -> int:
    """The line of ``<property>`` holding ``key``, counted from the written text."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines.index(f"    <name>{key}</name>")  # the <property> line is the one before (1-based: same index)


# -- the example and the tree's shape --------------------------------------------------------


def test_example_configuration_loads() -> None:
    conf = load_scheduler_configuration([EXAMPLES / "capacity-scheduler.xml", EXAMPLES / "yarn-site.xml"])
    tree = conf.queues
    assert [q.path for q in tree] == ["root", "root.prod", "root.prod.etl", "root.prod.serving", "root.dev"]
    assert tree.leaves == ("root.prod.etl", "root.prod.serving", "root.dev")
    assert tree.labels == ("gpu",)
    assert tree["root.prod"].children == ("root.prod.etl", "root.prod.serving")
    assert tree["root.prod.etl"].accessible_labels == {"gpu"}  # inherited from root.prod
    assert tree["root.dev"].accessible_labels == frozenset()  # a space: no labels
    assert tree["root.prod.serving"].disable_preemption and not tree["root.prod.etl"].disable_preemption
    assert tree["root.prod.serving"].max_am_percent == 0.2 and tree["root.dev"].max_am_percent == 0.1
    assert tree["root.prod.etl"].user_limit_factor == 2 and tree["root.prod.etl"].minimum_user_limit_percent == 50
    assert tree["root.dev"].ordering_policy == "fair" and tree["root.prod"].ordering_policy == "priority-utilization"
    assert conf.warnings == ()


def test_absolute_capacities_multiply_down_the_tree_in_java_floats() -> None:
    tree = tree_of(
        {
            "root.a.queues": "x,y",
            "root.a.x.capacity": "40",
            "root.a.y.capacity": "60",
            "root.a.x.maximum-capacity": "50",
        }
    )
    x = tree["root.a.x"].at("")
    assert x.relative == f32(0.4)
    assert x.absolute == f32(f32(0.4) * f32(0.6))
    assert x.absolute != 0.4 * 0.6  # the float product, not the double one
    assert x.absolute_maximum == f32(0.5)
    assert tree["root.b"].at("").absolute_maximum == 1.0


def test_labelled_capacities_and_an_unconfigured_label() -> None:
    tree = tree_of(
        {
            "root.accessible-node-labels.x.capacity": "100",
            "root.a.accessible-node-labels.x.capacity": "25",
            "root.a.accessible-node-labels.x.maximum-capacity": "50",
            "root.b.accessible-node-labels.x.capacity": "75",
        }
    )
    a = tree["root.a"].at("x")
    assert (a.absolute, a.absolute_maximum) == (f32(0.25), f32(0.5))
    assert tree["root.b"].at("x").absolute_maximum == 1.0  # default 100 for a configured label
    assert tree["root.a"].at("y").absolute_maximum == 0.0  # no settings: nothing


def test_maximum_minus_one_means_100() -> None:
    assert tree_of({"root.a.maximum-capacity": "-1"})["root.a"].at("").absolute_maximum == 1.0


@pytest.mark.parametrize(
    ("a", "b", "c", "valid"),
    [
        ("33.33", "33.33", "33.33", True),
        ("33.32", "33.32", "33.32", True),
        ("33.3", "33.3", "33.3", False),
        ("50", "25", "25.06", False),
    ],
)
def test_children_sum_tolerance_is_hadoops(a: str, b: str, c: str, valid: bool) -> None:
    props = {"root.queues": "a,b,c", "root.a.capacity": a, "root.b.capacity": b, "root.c.capacity": c}
    if valid:
        tree_of(props)
    else:
        with pytest.raises(InputError, match="sum to"):
            tree_of(props)


def test_children_may_sum_to_zero_under_a_zero_parent_or_when_allowed() -> None:
    zero_parent = {
        "root.a.capacity": "100",
        "root.b.capacity": "0",
        "root.b.queues": "x,y",
        "root.b.x.capacity": "0",
        "root.b.y.capacity": "0",
    }
    assert tree_of(zero_parent)["root.b.x"].at("").absolute == 0.0
    allowed = {"root.a.queues": "x", "root.a.x.capacity": "0", "root.a.allow-zero-capacity-sum": "true"}
    tree_of(allowed)
    with pytest.raises(InputError, match="sum to 0, not 100"):
        tree_of({"root.a.queues": "x", "root.a.x.capacity": "0"})


def test_weights_are_normalised_among_siblings() -> None:
    tree = tree_of({"root.a.capacity": "1w", "root.b.capacity": "3w", "root.a.maximum-capacity": "50"})
    assert tree["root.a"].mode == "weight"
    assert tree["root.a"].at("").absolute == 0.25 and tree["root.b"].at("").absolute == 0.75
    assert tree["root.a"].at("").absolute_maximum == 0.5
    with pytest.raises(InputError, match="absolute capacity 75% is above the absolute maximum 50%"):
        tree_of({"root.a.capacity": "1w", "root.b.capacity": "3w", "root.b.maximum-capacity": "50"})


def test_absolute_resources_are_read() -> None:
    tree = tree_of(
        {
            "root.a.capacity": "[memory=2Gi, vcores=2]",
            "root.b.capacity": "[memory-mb=1024]",
            "root.a.maximum-capacity": "[memory=4096,vcores=4]",
        }
    )
    a = tree["root.a"].at("")
    assert tree["root.a"].mode == "absolute"
    assert a.capacity.resource == Resource.of(2048, 2) and a.maximum.resource == Resource.of(4096, 4)
    assert tree["root.b"].at("").capacity.resource == Resource.of(1024, 0)
    assert a.absolute is None  # depends on the cluster


def test_parse_resource_units_and_faults() -> None:
    assert parse_resource("[memory=1Ti]") == Resource.of(1024 * 1024, 0)
    for text, fault in (
        ("[]", "empty"),
        ("[memory]", "name=value"),
        ("[memory=1,memory=2]", "twice"),
        ("[vcores=2Gi]", "unit"),
    ):
        with pytest.raises(ValueError, match=fault):
            parse_resource(text)


# -- inheritance -----------------------------------------------------------------------------


def test_disable_preemption_is_inherited_unless_set() -> None:
    tree = tree_of(
        {
            "root.a.disable_preemption": "true",
            "root.a.queues": "x,y",
            "root.a.x.capacity": "50",
            "root.a.y.capacity": "50",
            "root.a.y.disable_preemption": "false",
        }
    )
    assert [tree[p].disable_preemption for p in ("root", "root.a", "root.a.x", "root.a.y", "root.b")] == [
        False,
        True,
        True,
        False,
        False,
    ]


def test_state_is_inherited_and_stopped_parents_stop_children() -> None:
    tree = tree_of({"root.a.state": "stopped", "root.a.queues": "x", "root.a.x.capacity": "100"})
    assert tree["root.a.x"].state == "STOPPED" and tree["root.b"].state == "RUNNING"


def test_default_label_expression_is_inherited_only_by_queues_with_all_parent_labels() -> None:
    tree = tree_of(
        {
            "root.a.accessible-node-labels": "l1,l2",
            "root.a.default-node-label-expression": "l1",
            "root.a.queues": "x,y",
            "root.a.x.capacity": "50",
            "root.a.y.capacity": "50",
            "root.a.y.accessible-node-labels": "l1",
        }
    )
    assert tree["root.a.x"].default_label_expression == "l1"
    assert tree["root.a.y"].default_label_expression == ""


def test_ordering_policies() -> None:
    tree = tree_of(
        {
            "root.ordering-policy": "priority-utilization",
            "root.a.queues": "x",
            "root.a.x.capacity": "100",
            "root.a.x.ordering-policy": "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy.FairOrderingPolicy",
        }
    )
    assert tree["root.a"].ordering_policy == "priority-utilization"  # a parent inherits its parent's
    assert tree["root.a.x"].ordering_policy == "fair"
    assert tree["root.b"].ordering_policy == "fifo"


def test_global_am_share_is_the_default() -> None:
    tree = tree_of({"maximum-am-resource-percent": "0.3", "root.a.maximum-am-resource-percent": "0.5"})
    assert (tree["root.a"].max_am_percent, tree["root.b"].max_am_percent) == (0.5, 0.3)


def test_a_queue_that_creates_children_is_not_a_leaf() -> None:
    tree = tree_of({"root.a.auto-create-child-queue.enabled": "true"})
    assert not tree["root.a"].leaf and tree.leaves == ("root.b",)


def test_known_labels_accept_the_configured_ones() -> None:
    props = {
        "root.a.accessible-node-labels": "gpu",
        "root.accessible-node-labels.gpu.capacity": "100",
        "root.a.accessible-node-labels.gpu.capacity": "100",
    }
    read_queue_tree(HadoopConfiguration.of(_full({**BASE, **props})), known_labels=["gpu", "ssd"])


# -- warnings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("props", "warning"),
    [
        ({"root.c.capacity": "10"}, "queue root.c is not in yarn.scheduler.capacity.root.queues (children: a, b)"),
        (
            {"root.a.accessible-node-labels.x.capacity": "100", "root.b.accessible-node-labels.x.capacity": "0"},
            "no queue is guaranteed anything in label 'x'",
        ),
        (
            {"root.a.queues": "x", "root.a.x.capacity": "100", "root.b.queues": "x", "root.b.x.capacity": "100"},
            "leaf name 'x' is used by root.a.x, root.b.x",
        ),
        ({"root.accessible-node-labels": "x"}, "ignored, root can use every label"),
        (
            {
                "root.accessible-node-labels.x.capacity": "100",
                "root.a.queues": "y",
                "root.a.y.capacity": "100",
                "root.a.y.accessible-node-labels.x.capacity": "100",
                "root.a.accessible-node-labels.x.capacity": None,
            },
            "root.a.y gets nothing in label 'x'",
        ),
    ],
)
def test_suspicious_but_valid_settings_warn(props: dict[str, str | None], warning: str) -> None:
    merged = {**BASE, **props}
    if props.get("root.a.accessible-node-labels.x.capacity", "") is None:
        del merged["root.a.accessible-node-labels.x.capacity"]
        merged["root.b.accessible-node-labels.x.capacity"] = "100"
    warnings = read_queue_tree(HadoopConfiguration.of(_full(merged))).warnings
    assert any(warning in w for w in warnings), warnings


def test_no_warning_for_templates_and_global_keys() -> None:
    props = {
        "root.a.leaf-queue-template.capacity": "10",
        "maximum-applications": "100",
        "root.a.ordering-policy.fair.enable-size-based-weight": "true",
    }
    assert tree_of(props).warnings == ()


# -- every validation rule: one line naming file, line, property and value -------------------

FAILURES: list[tuple[str, dict[str, str | None], str, str, str]] = [
    # (id, changes to BASE, property at fault, value shown, fault)
    ("children-sum", {"root.b.capacity": "30"}, "root.queues", "root.b.capacity='30'", "sum to 90, not 100"),
    (
        "label-sum",
        {
            "root.accessible-node-labels.x.capacity": "100",
            "root.a.accessible-node-labels.x.capacity": "60",
            "root.b.accessible-node-labels.x.capacity": "30",
        },
        "root.queues",
        "x.capacity='30'",
        "for label 'x' sum to 90",
    ),
    (
        "max-below-capacity",
        {"root.a.maximum-capacity": "50"},
        "root.a.maximum-capacity",
        "'50'",
        "absolute capacity 60% is above the absolute maximum 50%",
    ),
    ("capacity-above-100", {"root.a.capacity": "120"}, "root.a.capacity", "'120'", "in [0, 100]"),
    ("negative-capacity", {"root.a.capacity": "-5"}, "root.a.capacity", "'-5'", "in [0, 100]"),
    ("non-numeric", {"root.a.capacity": "sixty"}, "root.a.capacity", "'sixty'", "expected a percentage"),
    ("percent-sign", {"root.a.capacity": "60%"}, "root.a.capacity", "'60%'", "without %"),
    ("root-capacity", {"root.capacity": "50"}, "root.capacity", "'50'", "always 100"),
    ("listed-missing", {"root.queues": "a,b,c"}, "root.queues", "'a,b,c'", "queue root.c is listed but no"),
    ("duplicate-child", {"root.queues": "a,b,a"}, "root.queues", "'a,b,a'", "'a' is listed twice"),
    ("bad-queue-name", {"root.queues": "a,b c"}, "root.queues", "'a,b c'", "without dots or spaces"),
    ("empty-queue-name", {"root.queues": "a, ,b"}, "root.queues", "'a, ,b'", "non-empty"),
    ("root-without-children", {"root.queues": " "}, "root.queues", "' '", "at least one child"),
    (
        "inaccessible-label",
        {
            "root.a.accessible-node-labels": "x",
            "root.accessible-node-labels.y.capacity": "100",
            "root.a.accessible-node-labels.y.capacity": "50",
            "root.b.accessible-node-labels.y.capacity": "50",
        },
        "root.a.accessible-node-labels.y.capacity",
        "'50'",
        "cannot access label 'y'",
    ),
    (
        "percent-and-resource",
        {"root.a.capacity": "[memory=1024,vcores=1]"},
        "root.b.capacity",
        "'40'",
        "sibling root.a's is a resource",
    ),
    ("percent-and-weight", {"root.b.capacity": "2w"}, "root.b.capacity", "'2w'", "root.b's capacity is a weight"),
    ("zero-weight", {"root.a.capacity": "0w", "root.b.capacity": "1w"}, "root.a.capacity", "'0w'", "weight > 0"),
    ("bad-weight", {"root.a.capacity": "xw", "root.b.capacity": "1w"}, "root.a.capacity", "'xw'", "like 2w"),
    (
        "weight-maximum",
        {"root.a.maximum-capacity": "2w"},
        "root.a.maximum-capacity",
        "'2w'",
        "weight cannot be a maximum",
    ),
    (
        "resource-number",
        {"root.a.capacity": "[memory=abc]", "root.b.capacity": "[memory=1]"},
        "root.a.capacity",
        "'[memory=abc]'",
        "not a whole number",
    ),
    (
        "resource-type",
        {"root.a.capacity": "[memory=1,yarn.io/gpu=1]", "root.b.capacity": "[memory=1]"},
        "root.a.capacity",
        "gpu=1]'",
        "'yarn.io/gpu' is not modelled",
    ),
    (
        "resource-max-below-min",
        {
            "root.a.capacity": "[memory=2048,vcores=2]",
            "root.a.maximum-capacity": "[memory=1024,vcores=2]",
            "root.b.capacity": "[memory=1]",
        },
        "root.a.maximum-capacity",
        "'[memory=1024,vcores=2]'",
        "below the capacity [memory=2048,vcores=2]",
    ),
    (
        "resource-children-sum",
        {
            "root.a.capacity": "[memory=4096,vcores=4]",
            "root.b.capacity": "[memory=1]",
            "root.a.queues": "x,y",
            "root.a.x.capacity": "[memory=3000,vcores=2]",
            "root.a.y.capacity": "[memory=2000,vcores=2]",
        },
        "root.a.queues",
        "root.a.y.capacity='[memory=2000,vcores=2]'",
        "sum to <5000, 4>, more than root.a's <4096, 4>",
    ),
    (
        "resource-child-max-above-parent",
        {
            "root.a.capacity": "[memory=4096,vcores=4]",
            "root.a.maximum-capacity": "[memory=8192,vcores=8]",
            "root.b.capacity": "[memory=1]",
            "root.a.queues": "x",
            "root.a.x.capacity": "[memory=1000,vcores=1]",
            "root.a.x.maximum-capacity": "[memory=9000,vcores=8]",
        },
        "root.a.x.maximum-capacity",
        "'[memory=9000,vcores=8]'",
        "above the parent root.a's maximum <8192, 8>",
    ),
    (
        "resource-parent-percent-child",
        {
            "root.a.capacity": "[memory=4096,vcores=4]",
            "root.b.capacity": "[memory=1]",
            "root.a.queues": "x",
            "root.a.x.capacity": "100",
        },
        "root.a.x.capacity",
        "'100'",
        "its parent root.a's is a resource",
    ),
    (
        "percent-max-on-resource",
        {"root.a.capacity": "[memory=1]", "root.b.capacity": "[memory=1]", "root.a.maximum-capacity": "50"},
        "root.a.maximum-capacity",
        "'50'",
        "ignores a percentage maximum",
    ),
    (
        "resource-max-on-percent",
        {"root.a.maximum-capacity": "[memory=1]"},
        "root.a.maximum-capacity",
        "'[memory=1]'",
        "not modelled",
    ),
    (
        "mixed-forms-in-a-queue",
        {"root.accessible-node-labels.x.capacity": "100", "root.a.accessible-node-labels.x.capacity": "[memory=1]"},
        "root.a.capacity",
        "'60'",
        "mixes percentage and resource capacities",
    ),
    (
        "labelled-max-minus-one",
        {
            "root.a.accessible-node-labels.x.capacity": "50",
            "root.b.accessible-node-labels.x.capacity": "50",
            "root.a.accessible-node-labels.x.maximum-capacity": "-1",
        },
        "root.a.accessible-node-labels.x.maximum-capacity",
        "'-1'",
        "in [0, 100]",
    ),
    (
        "running-under-stopped",
        {"root.a.state": "STOPPED", "root.a.queues": "x", "root.a.x.capacity": "100", "root.a.x.state": "RUNNING"},
        "root.a.x.state",
        "'RUNNING'",
        "parent root.a is STOPPED",
    ),
    ("bad-state", {"root.a.state": "PAUSED"}, "root.a.state", "'PAUSED'", "RUNNING or STOPPED"),
    ("leaf-ordering", {"root.a.ordering-policy": "lifo"}, "root.a.ordering-policy", "'lifo'", "leaf ordering policy"),
    (
        "parent-ordering",
        {"root.ordering-policy": "fifo"},
        "root.ordering-policy",
        "'fifo'",
        "parent queue ordering policy",
    ),
    (
        "labels-not-subset",
        {
            "root.a.queues": "x",
            "root.a.x.capacity": "100",
            "root.a.accessible-node-labels": "l1",
            "root.a.x.accessible-node-labels": "l1,l2",
        },
        "root.a.x.accessible-node-labels",
        "'l1,l2'",
        "labels l2 are not accessible to the parent root.a",
    ),
    (
        "star-under-restricted",
        {
            "root.a.queues": "x",
            "root.a.x.capacity": "100",
            "root.a.accessible-node-labels": "l1",
            "root.a.x.accessible-node-labels": "*",
        },
        "root.a.x.accessible-node-labels",
        "'*'",
        "more than the parent root.a may use",
    ),
    (
        "bad-label-name",
        {"root.a.accessible-node-labels": "-x"},
        "root.a.accessible-node-labels",
        "'-x'",
        "not a valid node label name",
    ),
    (
        "label-key-without-setting",
        {"root.a.accessible-node-labels.x": "5"},
        "root.a.accessible-node-labels.x",
        "'5'",
        "expected a property named yarn.scheduler.capacity.root.a.accessible-node-labels.<label>.<setting>",
    ),
    (
        "default-label-inaccessible",
        {"root.a.accessible-node-labels": "l1", "root.a.default-node-label-expression": "l2"},
        "root.a.default-node-label-expression",
        "'l2'",
        "cannot access label 'l2'",
    ),
    (
        "default-label-expression",
        {"root.a.default-node-label-expression": "l1&&l2"},
        "root.a.default-node-label-expression",
        "'l1&&l2'",
        "one node label name",
    ),
    ("priority", {"root.a.priority": "high"}, "root.a.priority", "'high'", "whole number"),
    (
        "am-share",
        {"root.a.maximum-am-resource-percent": "1.5"},
        "root.a.maximum-am-resource-percent",
        "'1.5'",
        "in [0, 1]",
    ),
    ("global-am-share", {"maximum-am-resource-percent": "-0.1"}, "maximum-am-resource-percent", "'-0.1'", "in [0, 1]"),
    ("user-limit-factor", {"root.a.user-limit-factor": "-2"}, "root.a.user-limit-factor", "'-2'", ">= 0 (or -1"),
    (
        "user-limit-percent",
        {"root.a.minimum-user-limit-percent": "150"},
        "root.a.minimum-user-limit-percent",
        "'150'",
        "in [0, 100]",
    ),
    ("disable-preemption", {"root.a.disable_preemption": "yes"}, "root.a.disable_preemption", "'yes'", "true or false"),
    (
        "substituted-value",
        {"root.b.capacity": "${b.share}", "yarn.b.share": "x"},
        "root.b.capacity",
        "'${b.share}'",
        "refers to a property that is not set",
    ),
]


@pytest.mark.parametrize(("changes", "key", "value", "fault"), [f[1:] for f in FAILURES], ids=[f[0] for f in FAILURES])
def test_each_rule_fails_with_one_line_naming_file_property_and_value(
    tmp_path: Path, changes: dict[str, str | None], key: str, value: str, fault: str
) -> None:
    path = write(tmp_path, {**BASE, **changes})
    full_key = PREFIX + key
    with pytest.raises(InputError) as caught:
        load_scheduler_configuration([path])
    message = str(caught.value)
    assert message.startswith(f"{path}:{line_of(path, full_key)}: {full_key}: "), message
    assert value in message and fault in message, message
    assert "\n" not in message


def test_root_without_queues_names_the_missing_property(tmp_path: Path) -> None:
    path = write(tmp_path, {"root.a.capacity": "100"})
    with pytest.raises(InputError, match=f"^{path}: {PREFIX}root.queues: not set"):
        load_scheduler_configuration([path])


def test_unknown_label_with_the_clusters_labels(tmp_path: Path) -> None:
    path = write(tmp_path, {**BASE, "root.a.accessible-node-labels": "gpu"})
    key = PREFIX + "root.a.accessible-node-labels"
    with pytest.raises(InputError) as caught:
        load_scheduler_configuration([path], known_labels=["ssd"])
    assert (
        str(caught.value)
        == f"{path}:{line_of(path, key)}: {key}: label 'gpu' is not a node label of the cluster (its labels: ssd)"
    )
