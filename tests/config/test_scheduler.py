"""The whole scheduler configuration: file roles and order, calculator, monitor, limits."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from yarnspec.impl.config.hadoop_xml import format_configuration
from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.config.keys import MONITOR_ENABLE, MONITOR_POLICIES, RESOURCE_CALCULATOR
from yarnspec.impl.config.keys import PREEMPTION_PREFIX as PREEMPTION
from yarnspec.impl.config.scheduler import (
    PREEMPTION_POLICY_CLASS,
    load_scheduler_configuration,
)
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource

QUEUES = {PREFIX + "root.queues": "a", PREFIX + "root.a.capacity": "100"}


def write(tmp_path: Path, name: str, props: Mapping[str, str], final: tuple[str, ...] = ()) -> Path:
    path = tmp_path / name
    path.write_text(format_configuration(props, final=final), encoding="utf-8")
    return path


def test_files_are_told_apart_and_merged_yarn_site_first(tmp_path: Path) -> None:
    cs = write(
        tmp_path,
        "cs-prod.xml",
        {**QUEUES, PREEMPTION + "observe_only": "true", PREEMPTION + "monitoring_interval": "1000"},
    )
    site = write(
        tmp_path,
        "rm.xml",
        {PREEMPTION + "observe_only": "false", PREEMPTION + "monitoring_interval": "5000"},
        final=(PREEMPTION + "monitoring_interval",),
    )
    for order in ([cs, site], [site, cs]):
        conf = load_scheduler_configuration(order)
        assert conf.sources == (str(site), str(cs))
        assert conf.preemption.observe_only is True  # capacity-scheduler.xml wins ...
        assert conf.preemption.monitoring_interval_ms == 5000  # ... unless yarn-site's is final
        assert any("is final at" in w for w in conf.warnings)


def test_a_capacity_scheduler_file_is_required(tmp_path: Path) -> None:
    site = write(tmp_path, "yarn-site.xml", {MONITOR_ENABLE: "true"})
    with pytest.raises(InputError, match="no capacity-scheduler.xml given"):
        load_scheduler_configuration([site])


def test_defaults(tmp_path: Path) -> None:
    conf = load_scheduler_configuration([write(tmp_path, "capacity-scheduler.xml", QUEUES)])
    assert conf.calculator == "default"
    assert not conf.monitor_enabled and not conf.preemption_active
    assert conf.monitor_policies == (PREEMPTION_POLICY_CLASS,)
    assert conf.allocation.minimum == Resource.of(1024, 1) and conf.allocation.maximum == Resource.of(8192, 4)
    assert conf.preemption.total_preemption_per_round == 0.1 and conf.preemption.max_wait_before_kill_ms == 15000
    assert conf.preemption_disabled("root.a")  # the monitor is off


def test_monitor_and_policies(tmp_path: Path) -> None:
    cs = write(tmp_path, "capacity-scheduler.xml", QUEUES)
    other = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.QueueManagementDynamicEditPolicy"
    on = load_scheduler_configuration([cs, write(tmp_path, "yarn-site.xml", {MONITOR_ENABLE: "true"})])
    assert on.preemption_active and not on.preemption_disabled("root.a")
    only_other = write(tmp_path, "yarn-site.xml", {MONITOR_ENABLE: "true", MONITOR_POLICIES: other})
    conf = load_scheduler_configuration([cs, only_other])
    assert not conf.preemption_active
    assert any("does not run ProportionalCapacityPreemptionPolicy" in w for w in conf.warnings)


def test_substitution_and_system_properties_reach_every_setting(tmp_path: Path) -> None:
    site = write(
        tmp_path,
        "yarn-site.xml",
        {
            "nm.memory": "16384",
            "yarn.scheduler.maximum-allocation-mb": "${nm.memory}",
            "yarn.scheduler.maximum-allocation-vcores": "${cores}",
        },
    )
    conf = load_scheduler_configuration(
        [write(tmp_path, "capacity-scheduler.xml", QUEUES), site], system_properties={"cores": "12"}
    )
    assert conf.allocation.maximum == Resource.of(16384, 12)


def test_labels_without_node_labels_enabled_warn(tmp_path: Path) -> None:
    cs = write(
        tmp_path,
        "capacity-scheduler.xml",
        {
            **QUEUES,
            PREFIX + "root.accessible-node-labels.x.capacity": "100",
            PREFIX + "root.a.accessible-node-labels.x.capacity": "100",
        },
    )
    assert any("yarn.node-labels.enabled is not true" in w for w in load_scheduler_configuration([cs]).warnings)
    site = write(tmp_path, "yarn-site.xml", {"yarn.node-labels.enabled": "true"})
    assert load_scheduler_configuration([cs, site]).warnings == ()


SITE_FAILURES = [
    (
        RESOURCE_CALCULATOR,
        "org.example.MyCalculator",
        "expected one of org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator",
    ),
    (
        "yarn.resourcemanager.scheduler.class",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler",
        "not modelled",
    ),
    (MONITOR_ENABLE, "on", "true or false"),
    (PREEMPTION + "total_preemption_per_round", "lots", "expected a number"),
    (PREEMPTION + "max_wait_before_kill", "-1", "milliseconds >= 0"),
    ("yarn.scheduler.minimum-allocation-mb", "-1", "whole number >= 0"),
    ("yarn.scheduler.maximum-allocation-mb", "512", "below yarn.scheduler.minimum-allocation-mb=1024"),
    ("yarn.scheduler.maximum-allocation-vcores", "0", "below yarn.scheduler.minimum-allocation-vcores=1"),
    ("yarn.node-labels.enabled", "maybe", "true or false"),
]


@pytest.mark.parametrize(("key", "value", "fault"), SITE_FAILURES, ids=[f[0].rsplit(".", 1)[-1] for f in SITE_FAILURES])
def test_bad_site_values_name_file_line_property_and_value(tmp_path: Path, key: str, value: str, fault: str) -> None:
    cs = write(tmp_path, "capacity-scheduler.xml", QUEUES)
    site = write(tmp_path, "yarn-site.xml", {"yarn.resourcemanager.hostname": "rm", key: value})
    with pytest.raises(InputError) as caught:
        load_scheduler_configuration([cs, site])
    message = str(caught.value)
    assert message.startswith(f"{site}:7: {key}: "), message  # the second <property> is on line 7
    assert repr(value) in message and fault in message, message
