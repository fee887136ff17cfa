"""The whole scheduler configuration read from ``capacity-scheduler.xml`` and ``yarn-site.xml``.

The ResourceManager's CapacityScheduler sees one configuration: yarn-site.xml with
capacity-scheduler.xml loaded on top (so the latter wins, unless a yarn-site.xml property is
final). :func:`load_scheduler_configuration` therefore accepts the files in any order, tells
them apart (by name, else by content: a file listing ``yarn.scheduler.capacity.root.queues`` is
a capacity-scheduler.xml) and merges yarn-site files first. It then reads the queue tree
(:mod:`.capacity`), the resource calculator, the preemption monitor (its switch, its policies
and :class:`PreemptionConfig`, whose keys may sit in either file), node labels and allocation
limits, each bad value an :class:`InputError` naming file, line, property and value.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from yarnspec.impl.calculator import CALCULATOR_CLASSES, CalculatorName
from yarnspec.impl.config.capacity import ROOT, QueueTree, queue_key, read_queue_tree
from yarnspec.impl.config.getters import java_trim
from yarnspec.impl.config.hadoop_xml import ConfigurationFile, HadoopConfiguration, read_configuration_file
from yarnspec.impl.config.keys import (
    CAPACITY_PREFIX,
    INTRA_QUEUE_DISABLE,
    MAXIMUM_ALLOCATION_MB,
    MAXIMUM_ALLOCATION_VCORES,
    MINIMUM_ALLOCATION_MB,
    MINIMUM_ALLOCATION_VCORES,
    MONITOR_ENABLE,
    MONITOR_POLICIES,
    NODE_LABELS_ENABLED,
    RESOURCE_CALCULATOR,
    SCHEDULER_CLASS,
)  # fmt: skip
from yarnspec.impl.config.warning import ConfigWarning
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.config import KNOWN_KEYS as PREEMPTION_KEYS
from yarnspec.impl.preemption.config import PolicyVariantName, PreemptionConfig
from yarnspec.impl.resources import Resource

DEFAULT_CALCULATOR_CLASS = "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator"
CAPACITY_SCHEDULER_CLASS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler"
PREEMPTION_POLICY_CLASS = (
    "org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity.ProportionalCapacityPreemptionPolicy"
)

#: ``(key, default)`` of the four scheduler allocation limits (Hadoop 3 defaults).
MIN_MEMORY = (MINIMUM_ALLOCATION_MB, 1024)
MIN_VCORES = (MINIMUM_ALLOCATION_VCORES, 1)
MAX_MEMORY = (MAXIMUM_ALLOCATION_MB, 8192)
MAX_VCORES = (MAXIMUM_ALLOCATION_VCORES, 4)

FileKind = Literal["capacity-scheduler", "yarn-site"]


@dataclass(frozen=True)
class AllocationLimits:
    """The smallest and largest container the scheduler hands out."""

    minimum: Resource
    maximum: Resource


@dataclass(frozen=True)
class SchedulerConfiguration:
    """Everything yarnspec reads from a real configuration.

    ``properties`` is the merged file content, kept to point at a property in later messages
    (for example a label the cluster does not have, see :mod:`.build`).
    """

    queues: QueueTree
    calculator: CalculatorName
    preemption: PreemptionConfig
    monitor_enabled: bool
    monitor_policies: tuple[str, ...]
    node_labels_enabled: bool
    allocation: AllocationLimits
    properties: HadoopConfiguration
    warnings: tuple[str, ...] = ()

    @property
    def sources(self) -> tuple[str, ...]:
        """The files read, in merge order."""
        return self.properties.sources

    @property
    def preemption_active(self) -> bool:
        """Whether the ResourceManager runs the preemption policy at all."""
        return self.monitor_enabled and PREEMPTION_POLICY_CLASS in self.monitor_policies

    def preemption_disabled(self, path: str) -> bool:
        """The queue's effective ``preemptionDisabled``: Hadoop treats every queue as
        non-preemptable while the scheduler monitor is off, else the queue's own (inherited)
        ``disable_preemption`` decides."""
        return not self.monitor_enabled or self.queues[path].disable_preemption

    def intra_queue_preemption_disabled(self, path: str) -> bool:
        """Whether intra-queue preemption is off for the queue (Hadoop
        ``AbstractCSQueue.isIntraQueueHierarchyPreemptionDisabled``): always while the
        monitor or intra-queue preemption is off, else the nearest explicit
        ``<path>.intra-queue-preemption.disable_preemption`` up the tree (default false)."""
        if not self.monitor_enabled or not self.preemption.intra_queue_enabled:
            return True
        current: str | None = path
        while current is not None:
            key = queue_key(current, INTRA_QUEUE_DISABLE)
            if self.properties.get_trimmed(key) is not None:
                return self.properties.get_bool(key, False)
            current = self.queues[current].parent
        return False

    def relative_priority(self, path: str) -> int:
        """The priority the policy compares (semantics A.2): the queue's priority when its
        parent orders children by ``priority-utilization``, else 0."""
        queue = self.queues[path]
        if queue.parent is None or self.queues[queue.parent].ordering_policy != "priority-utilization":
            return 0
        return queue.priority


def load_scheduler_configuration(
    paths: Sequence[str | Path],
    *,
    system_properties: Mapping[str, str] | None = None,
    environment: Mapping[str, str] | None = None,
    known_labels: Collection[str] | None = None,
    variant: PolicyVariantName = "hadoop-3",
) -> SchedulerConfiguration:
    """Read the files (in any order) and build the validated configuration.

    ``system_properties`` and ``environment`` resolve ``${name}`` and ``${env.NAME}``;
    ``known_labels``, when given, are the cluster's node labels and every label named must be
    one of them. ``variant`` selects the preemption policy's named behaviour.
    """
    files = [read_configuration_file(path) for path in paths]
    conf = merge_in_hadoop_order(files, system_properties=system_properties, environment=environment)
    return scheduler_configuration(conf, known_labels=known_labels, variant=variant)


def file_kind(conf_file: ConfigurationFile) -> FileKind:
    """Which file this is: by name when it says, else by content."""
    name = Path(conf_file.source).name
    if "capacity-scheduler" in name:
        return "capacity-scheduler"
    if "yarn-site" in name:
        return "yarn-site"
    return "capacity-scheduler" if CAPACITY_PREFIX + ROOT + ".queues" in conf_file.names() else "yarn-site"


def merge_in_hadoop_order(
    files: Sequence[ConfigurationFile],
    *,
    system_properties: Mapping[str, str] | None = None,
    environment: Mapping[str, str] | None = None,
) -> HadoopConfiguration:
    """Merge yarn-site files first, then capacity-scheduler files (each group in the given
    order), as the ResourceManager layers them."""
    ordered = [f for f in files if file_kind(f) == "yarn-site"] + [
        f for f in files if file_kind(f) == "capacity-scheduler"
    ]
    if not any(file_kind(f) == "capacity-scheduler" for f in files):
        names = ", ".join(f.source for f in files) or "no files"
        raise InputError(names, "", f"no capacity-scheduler.xml given: no file defines {CAPACITY_PREFIX}{ROOT}.queues")
    return HadoopConfiguration.merge(ordered, system_properties=system_properties, environment=environment)


def scheduler_configuration(
    conf: HadoopConfiguration,
    *,
    known_labels: Collection[str] | None = None,
    variant: PolicyVariantName = "hadoop-3",
) -> SchedulerConfiguration:
    """The validated configuration of an already merged set of properties."""
    _check_scheduler_class(conf)
    calculator = _calculator(conf)
    queues = read_queue_tree(conf, calculator, known_labels)
    monitor_enabled = conf.get_bool(MONITOR_ENABLE, False)
    policies = tuple(p for p in map(java_trim, conf.get_strings(MONITOR_POLICIES) or [PREEMPTION_POLICY_CLASS]) if p)
    node_labels = conf.get_bool(NODE_LABELS_ENABLED, False)
    warnings = list(queues.warnings)
    if queues.labels and not node_labels:
        warnings.append(
            ConfigWarning(
                "labels-disabled",
                NODE_LABELS_ENABLED,
                f"queues have settings for node labels ({', '.join(queues.labels)}) but {NODE_LABELS_ENABLED} "
                "is not true in the files given: Hadoop then has no labelled nodes",
            )
        )
    if monitor_enabled and PREEMPTION_POLICY_CLASS not in policies:
        warnings.append(
            ConfigWarning(
                "monitor-without-policy",
                MONITOR_POLICIES,
                f"{conf.location(MONITOR_POLICIES)}: {MONITOR_POLICIES}: the monitor is on but does not "
                "run ProportionalCapacityPreemptionPolicy, so nothing is preempted",
            )
        )
    return SchedulerConfiguration(
        queues=queues,
        calculator=calculator,
        preemption=_preemption(conf, variant),
        monitor_enabled=monitor_enabled,
        monitor_policies=policies,
        node_labels_enabled=node_labels,
        allocation=_allocation(conf),
        properties=conf,
        warnings=tuple(warnings),
    )


def _check_scheduler_class(conf: HadoopConfiguration) -> None:
    value = conf.get_trimmed(SCHEDULER_CLASS)
    if value is not None and value != CAPACITY_SCHEDULER_CLASS:
        raise conf.invalid(
            SCHEDULER_CLASS, f"not modelled: yarnspec models the CapacityScheduler ({CAPACITY_SCHEDULER_CLASS})"
        )


def _calculator(conf: HadoopConfiguration) -> CalculatorName:
    value = conf.get_trimmed(RESOURCE_CALCULATOR) or DEFAULT_CALCULATOR_CLASS
    if value not in CALCULATOR_CLASSES:
        raise conf.invalid(RESOURCE_CALCULATOR, f"expected one of {', '.join(CALCULATOR_CLASSES)}")
    return CALCULATOR_CLASSES[value]


def _preemption(conf: HadoopConfiguration, variant: PolicyVariantName) -> PreemptionConfig:
    """:meth:`PreemptionConfig.from_properties` on the substituted values; its error is moved to
    the file and line of the offending property."""
    values = {key: conf.get(key) for key in PREEMPTION_KEYS if key in conf}
    try:
        return PreemptionConfig.from_properties(values, source="<configuration>", variant=variant)
    except InputError as exc:
        raise conf.error(exc.place, exc.fault) from None


def _allocation(conf: HadoopConfiguration) -> AllocationLimits:
    """The limits, each >= 0, and neither maximum below its minimum."""
    amounts = {}
    # CapacitySchedulerConfiguration.getMinimumAllocation reads the minimum with getInt,
    # ResourceUtils.getAllocation the maximum with getLong.
    for key, default in (MIN_MEMORY, MIN_VCORES):
        amounts[key] = conf.get_int(key, default)
    for key, default in (MAX_MEMORY, MAX_VCORES):
        amounts[key] = conf.get_long(key, default)
    for key in amounts:
        if amounts[key] < 0:
            raise conf.invalid(key, "expected a whole number >= 0")
    for (low_key, _), (high_key, _) in ((MIN_MEMORY, MAX_MEMORY), (MIN_VCORES, MAX_VCORES)):
        if amounts[high_key] < amounts[low_key]:
            raise conf.invalid(high_key, f"the maximum is below {low_key}={amounts[low_key]}")
    return AllocationLimits(
        minimum=Resource.of(amounts[MIN_MEMORY[0]], amounts[MIN_VCORES[0]]),
        maximum=Resource.of(amounts[MAX_MEMORY[0]], amounts[MAX_VCORES[0]]),
    )
