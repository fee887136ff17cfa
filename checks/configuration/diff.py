"""``yarnspec config --diff OLD NEW``: what changes for each queue between two configurations,
and whether the ResourceManager would refuse the change on ``yarn rmadmin -refreshQueues``.

The refusal rules are CapacityScheduler's (``CapacitySchedulerConfigValidator
.validateQueueHierarchy``, Hadoop 3.4; reached from ``CapacitySchedulerQueueManager
.reinitializeQueues``), with the running queues' states read from OLD:

- a queue of OLD missing from NEW may only go if it is STOPPED in OLD, or NEW still sets its
  ``state`` to STOPPED (before 3.4 only the first);
- a leaf may become a parent only if it is STOPPED in OLD or in NEW;
- a parent may not become an auto-creating ("managed") parent, nor a managed parent stop
  being one; a parent may become a leaf;
- NEW must itself be a valid configuration (every check ``yarnspec config`` makes).

Every setting the model reads is compared: per queue the capacities and maximum capacities
per label, the capacity mode, accessible labels, default label expression, ``disable_preemption``
(and whether preemption is in effect off), priority (and the priority the policy compares),
``maximum-am-resource-percent``, ``minimum-user-limit-percent``, ``user-limit-factor``,
``ordering-policy`` and state; scheduler-wide the resource calculator, the monitor and its
policies, node labels, the allocation limits and every preemption setting. A typo that resets
a setting to its default (``user-limit-factor 2 -> 1``) therefore shows as a change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Literal

from yarnspec.impl.cluster import Partition, Queue
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.capacity import QueueConfig
from yarnspec.impl.config.keys import CAPACITY_PREFIX
from yarnspec.impl.config.scheduler import SchedulerConfiguration
from yarnspec.impl.preemption.config import PreemptionConfig

QueueKind = Literal["leaf", "parent", "managed parent"]


@dataclass(frozen=True)
class QueueChange:
    """One queue added, removed or changed, with a line per changed figure."""

    path: str
    change: Literal["added", "removed", "changed"]
    details: tuple[str, ...]


@dataclass(frozen=True)
class Refusal:
    """Why the ResourceManager would refuse NEW for this queue."""

    path: str
    reason: str


@dataclass(frozen=True)
class ConfigDiff:
    """The queue changes from OLD to NEW and the refusals (none: the refresh goes through)."""

    changes: tuple[QueueChange, ...]
    refusals: tuple[Refusal, ...]
    settings: tuple[str, ...] = ()
    """Scheduler-wide settings that change, a line each (``resource calculator A -> B``)."""


#: The per-queue settings compared one by one: the Hadoop key (after the queue's path) and the
#: :class:`QueueConfig` field the model reads it into.
QUEUE_SETTINGS: tuple[tuple[str, str], ...] = (
    ("capacity mode", "mode"),
    ("accessible-node-labels", "accessible_labels"),
    ("default-node-label-expression", "default_label_expression"),
    ("disable_preemption", "disable_preemption"),
    ("priority", "priority"),
    ("maximum-am-resource-percent", "max_am_percent"),
    ("minimum-user-limit-percent", "minimum_user_limit_percent"),
    ("user-limit-factor", "user_limit_factor"),
    ("ordering-policy", "ordering_policy"),
)


def preemption_settings(config: PreemptionConfig) -> dict[str, Any]:
    """Every preemption setting by name; a named rule record (the intra-queue order policy, the
    fair-ordering rule, any later one) by its name."""
    values = {f.name: getattr(config, f.name) for f in fields(config)}
    return {
        name: value.name if is_dataclass(value) and hasattr(value, "name") else value for name, value in values.items()
    }


def shown_value(value: object) -> str:
    """A setting's value as a user reads it: ``2`` for 2.0, ``true``, a set as a sorted list."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    if isinstance(value, (frozenset, set)):
        return ",".join(sorted(value)) or "(none)"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "(none)"
    if value == "":
        return '""'
    return str(value)


def kind(queue: QueueConfig) -> QueueKind:
    """Leaf, parent, or a parent that creates its children (Hadoop's ManagedParentQueue)."""
    if queue.auto_create_children:
        return "managed parent"
    return "parent" if queue.children else "leaf"


def diff(old: SchedulerConfiguration, new: SchedulerConfiguration, partitions: Sequence[Partition] = ()) -> ConfigDiff:
    """Compare two loaded configurations; with ``partitions`` also the resources."""
    old_resources = _resources(old, partitions)
    new_resources = _resources(new, partitions)
    changes: list[QueueChange] = []
    refusals: list[Refusal] = []
    for queue in old.queues:
        replacement = new.queues.queues.get(queue.path)
        if replacement is None:
            changes.append(QueueChange(queue.path, "removed", (f"was {kind(queue)}, {queue.state}",)))
            refusal = _removal_refused(queue, new)
        else:
            details = _details(queue, replacement, old_resources.get(queue.path), new_resources.get(queue.path))
            details += _effective(old, new, queue.path)
            if details:
                changes.append(QueueChange(queue.path, "changed", details))
            refusal = _conversion_refused(queue, replacement)
        if refusal:
            refusals.append(Refusal(queue.path, refusal))
    for queue in new.queues:
        if queue.path not in old.queues.queues:
            changes.append(
                QueueChange(
                    queue.path,
                    "added",
                    (f"{kind(queue)}, capacity {queue.at('').capacity}, maximum {queue.at('').maximum}",),
                )
            )
    return ConfigDiff(tuple(changes), tuple(refusals), scheduler_changes(old, new))


def scheduler_changes(old: SchedulerConfiguration, new: SchedulerConfiguration) -> tuple[str, ...]:
    """The scheduler-wide settings the model reads that differ, a line each."""
    pairs: list[tuple[str, object, object]] = [
        ("resource calculator", old.calculator, new.calculator),
        ("monitor enabled", old.monitor_enabled, new.monitor_enabled),
        ("monitor policies", old.monitor_policies, new.monitor_policies),
        ("node labels enabled", old.node_labels_enabled, new.node_labels_enabled),
        ("minimum allocation", old.allocation.minimum, new.allocation.minimum),
        ("maximum allocation", old.allocation.maximum, new.allocation.maximum),
    ]
    before, after = preemption_settings(old.preemption), preemption_settings(new.preemption)
    pairs += [(f"preemption {name}", before[name], after[name]) for name in before]
    return tuple(f"{name} {shown_value(a)} -> {shown_value(b)}" for name, a, b in pairs if a != b)


def _effective(old: SchedulerConfiguration, new: SchedulerConfiguration, path: str) -> tuple[str, ...]:
    """What the policy reads of a queue beyond its own settings: whether preemption is in
    effect off (the monitor switch too) and the priority it compares."""
    lines = []
    if (
        old.preemption_disabled(path) != new.preemption_disabled(path)
        and old.queues[path].disable_preemption == new.queues[path].disable_preemption
    ):
        lines.append(
            f"preemption in effect {_on(old.preemption_disabled(path))} -> {_on(new.preemption_disabled(path))}"
        )
    if (
        old.relative_priority(path) != new.relative_priority(path)
        and old.queues[path].priority == new.queues[path].priority
    ):
        lines.append(f"priority the policy compares {old.relative_priority(path)} -> {new.relative_priority(path)}")
    return tuple(lines)


def _on(disabled: bool) -> str:
    return "off" if disabled else "on"


def _resources(conf: SchedulerConfiguration, partitions: Sequence[Partition]) -> Mapping[str, Queue]:
    if not partitions:
        return {}
    return {q.path: q for q in queues_for_snapshot(conf, partitions)}


def _removal_refused(queue: QueueConfig, new: SchedulerConfiguration) -> str:
    state_key = f"{CAPACITY_PREFIX}{queue.path}.state"
    new_state = (new.properties.get_trimmed(state_key) or "").upper()
    if queue.state == "STOPPED" or new_state == "STOPPED":
        return ""
    return (
        f"cannot be deleted: it is {queue.state}, not yet STOPPED (set {state_key} to STOPPED, "
        "refresh, let its applications finish, then remove it)"
    )


def _conversion_refused(old: QueueConfig, new: QueueConfig) -> str:
    before, after = kind(old), kind(new)
    if before == "parent" and after == "managed parent":
        return "a parent cannot become an auto-creating parent (it may have pre-configured children)"
    if before == "managed parent" and after != "managed parent":
        return "an auto-creating parent cannot stop being one (auto-create-child-queue.enabled must stay true)"
    if before == "leaf" and after != "leaf" and "STOPPED" not in (old.state, new.state):
        return f"a leaf cannot become a parent unless it is STOPPED (it is {old.state})"
    return ""


def _details(old: QueueConfig, new: QueueConfig, old_res: Queue | None, new_res: Queue | None) -> tuple[str, ...]:
    lines = []
    if kind(old) != kind(new):
        lines.append(f"{kind(old)} -> {kind(new)}")
    if old.state != new.state:
        lines.append(f"state {old.state} -> {new.state}")
    for label in sorted(set(old.labels) | set(new.labels)):
        name = f"label {label}: " if label else ""
        a, b = old.at(label), new.at(label)
        if str(a.capacity) != str(b.capacity) or a.absolute != b.absolute:
            lines.append(
                f"{name}capacity {a.capacity} -> {b.capacity} (absolute {_percent(a.absolute)} -> {_percent(b.absolute)})"
            )
        if str(a.maximum) != str(b.maximum) or a.absolute_maximum != b.absolute_maximum:
            lines.append(
                f"{name}maximum {a.maximum} -> {b.maximum} (absolute {_percent(a.absolute_maximum)} -> {_percent(b.absolute_maximum)})"
            )
    if old_res is not None and new_res is not None:
        for label in sorted(old_res.partitions.keys() | new_res.partitions.keys()):
            a_part, b_part = old_res.at(label), new_res.at(label)
            shown = label or '""'
            if a_part.guaranteed != b_part.guaranteed:
                lines.append(f"guaranteed in {shown}: {a_part.guaranteed} -> {b_part.guaranteed}")
            if a_part.maximum != b_part.maximum:
                lines.append(f"maximum in {shown}: {a_part.maximum} -> {b_part.maximum}")
    for key, attribute in QUEUE_SETTINGS:
        before, after = getattr(old, attribute), getattr(new, attribute)
        if before != after:
            lines.append(f"{key} {shown_value(before)} -> {shown_value(after)}")
    return tuple(lines)


def _percent(fraction: float | None) -> str:
    if fraction is None:
        return "-"
    return (f"{fraction * 100:.3f}".rstrip("0").rstrip(".") or "0") + "%"
