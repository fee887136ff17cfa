"""``yarnspec config FILE...``: read a real configuration, validate it, print what the model sees.

FILE is a capacity-scheduler.xml and optionally a yarn-site.xml, in any order. The output is
the queue tree (path, capacity, absolute capacity, maximum, labels, whether preemption is
disabled, priority, AM share), each queue's capacities per node label, the effective
preemption settings, the allocation limits and any warnings; ``--json`` prints the same as
one document. With ``--partition`` (the cluster's partitions) the labels are checked against
the cluster and each queue's guaranteed and maximum resources are added, as the preemption
policy's snapshot would hold them. A fault in a file is an ``InputError`` (one line, exit 2).

Keys the model does not read are sorted out (:mod:`.config_lint`): unknown keys (with a "did you
mean") and settings whose feature the model does not cover are warnings; ``--strict`` makes
any warning exit 1. Every warning has a stable id (``[label-star]`` in text, ``"id"`` in JSON);
``--allow ID[=KEY-GLOB]`` and ``--allow-file FILE`` accept known warnings
(:mod:`.allow_list`): they are counted, not shown, and do not fail ``--strict``. ``--diff OLD NEW`` compares two capacity-scheduler.xml files
(:mod:`.config_diff`), any FILE given then being a yarn-site.xml read with both.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from typing import Any

from yarnspec.checks.commands.number_options import whole_number_argument
from yarnspec.checks.configuration.allow_list import AllowRule, allow_rules, is_allowed
from yarnspec.checks.configuration.diff import ConfigDiff, diff, preemption_settings
from yarnspec.checks.configuration.lint import LintFinding, all_warnings, lint
from yarnspec.impl.cluster import Partition, Queue
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.config.capacity import NO_LABEL, LabelCapacity, QueueConfig
from yarnspec.impl.config.getters import LONG_RANGE
from yarnspec.impl.config.scheduler import SchedulerConfiguration, load_scheduler_configuration
from yarnspec.impl.config.warning import ConfigWarning
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.resources import Resource

_PARTITION = re.compile(
    r"(?P<label>[^=]*)=(?P<memory>[0-9]+):(?P<vcores>[0-9]+)(?::(?P<kind>exclusive|non-exclusive))?"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="capacity-scheduler.xml and optionally yarn-site.xml, in any order"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when there is any warning")
    parser.add_argument(
        "--diff",
        nargs=2,
        metavar=("OLD", "NEW"),
        help="compare two capacity-scheduler.xml files (FILEs are yarn-site.xml read with both): which queues' "
        "resources change, and whether yarn rmadmin -refreshQueues would refuse the change (exit 1)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="WARNING-ID[=KEY-GLOB]",
        help="accept a known warning (of every key, or of the keys the glob matches): counted, not shown, "
        "and not failing --strict (repeatable)",
    )
    parser.add_argument(
        "--allow-file",
        action="append",
        default=[],
        metavar="FILE",
        help="a file of --allow rules, one a line, # comments (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    parser.add_argument(
        "-D",
        "--define",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a system property for ${NAME} in values (repeatable)",
    )
    parser.add_argument(
        "--partition",
        action="append",
        default=[],
        metavar="LABEL=MEMORY:VCORES[:non-exclusive]",
        help="a partition of the cluster, LABEL empty for the default one (repeatable); adds each "
        "queue's guaranteed and maximum resources",
    )


def run(args: argparse.Namespace) -> int:
    """Load, validate and print; returns the exit status (an ``InputError`` propagates)."""
    system_properties = parse_definitions(args.define)
    partitions = parse_partitions(args.partition)
    known_labels = [p.name for p in partitions] if partitions else None
    rules = allow_rules(args.allow, args.allow_file)
    if args.diff:
        return _run_diff(args, system_properties, partitions, known_labels, rules)
    if not args.files:
        raise InputError(
            "command line", "FILE", "give capacity-scheduler.xml (and optionally yarn-site.xml), or --diff OLD NEW"
        )
    conf = load_scheduler_configuration(args.files, system_properties=system_properties, known_labels=known_labels)
    queues = queues_for_snapshot(conf, partitions) if partitions else []
    findings = lint(conf)
    if args.json:
        print(json.dumps(to_json(conf, queues, findings, rules), indent=2))
    else:
        print(format_report(conf, queues, findings, rules))
    shown, _ = split_warnings(all_warnings(conf, findings), rules)
    if args.strict and shown:
        if not args.json:
            print(
                f"\nExit 1 (--strict): {_count(len(shown), 'warning')} not allowed (accept known ones with --allow ID or --allow-file FILE)."
            )
        return 1
    return 0


def split_warnings(
    warnings: Sequence[ConfigWarning], rules: Sequence[AllowRule]
) -> tuple[list[ConfigWarning], list[ConfigWarning]]:
    """The warnings no rule allows, and those some rule allows."""
    flags = [is_allowed(rules, w.id, w.key) for w in warnings]
    return [w for w, flag in zip(warnings, flags) if not flag], [w for w, flag in zip(warnings, flags) if flag]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _allowed_line(allowed: Sequence[ConfigWarning]) -> str:
    by_id: dict[str, int] = {}
    for warning in allowed:
        by_id[warning.id] = by_id.get(warning.id, 0) + 1
    ids = ", ".join(f"{warning_id} x{number}" for warning_id, number in sorted(by_id.items()))
    return f"{_count(len(allowed), 'warning')} allowed ({ids})"


def _warning_json(warning: ConfigWarning) -> dict[str, str]:
    return {"id": warning.id, "key": warning.key, "text": str(warning)}


def _run_diff(
    args: argparse.Namespace,
    system_properties: dict[str, str],
    partitions: list[Partition],
    known_labels: list[str] | None,
    rules: Sequence[AllowRule],
) -> int:
    old_path, new_path = args.diff
    old = load_scheduler_configuration(
        [old_path, *args.files], system_properties=system_properties, known_labels=known_labels
    )
    try:
        new = load_scheduler_configuration(
            [new_path, *args.files], system_properties=system_properties, known_labels=known_labels
        )
    except InputError as exc:
        result = {"old": old_path, "new": new_path, "refused": True, "error": str(exc), "changes": [], "refusals": []}
        print(json.dumps(result, indent=2) if args.json else f"Refused: NEW does not load: {exc}")
        return 1
    result_diff = diff(old, new, partitions)
    old_warnings = split_warnings(all_warnings(old, lint(old)), rules)
    new_warnings = split_warnings(all_warnings(new, lint(new)), rules)
    reasons = []
    if result_diff.refusals:
        reasons.append("yarn rmadmin -refreshQueues would refuse NEW")
    if args.strict and new_warnings[0]:
        reasons.append(f"--strict and NEW has {_count(len(new_warnings[0]), 'warning')} not allowed")
    if args.json:
        document = diff_json(old_path, new_path, result_diff)
        for name, (shown, allowed) in (("old", old_warnings), ("new", new_warnings)):
            document[f"{name}_warnings"] = [_warning_json(w) for w in shown]
            document[f"{name}_allowed"] = [_warning_json(w) for w in allowed]
        document["exit_reasons"] = reasons
        print(json.dumps(document, indent=2))
    else:
        print(format_diff(old_path, new_path, result_diff))
        for name, path, (shown, allowed) in (("OLD", old_path, old_warnings), ("NEW", new_path, new_warnings)):
            if shown or allowed:
                print(f"\nWarnings of {name} ({path})")
                print("\n".join(f"  [{w.id}] {w}" for w in shown))
                if allowed:
                    print(f"  {_allowed_line(allowed)}")
        if reasons:
            print(f"\nExit 1: {'; '.join(reasons)}.")
    return 1 if reasons else 0


def format_diff(old: str, new: str, result: ConfigDiff) -> str:
    """The diff as text: one block per queue, then the verdict."""
    lines = [f"From {old} to {new}", ""]
    if not result.changes:
        lines.append("No queue changes.")
    if result.settings:
        lines += ["Scheduler-wide changes", *(f"  {line}" for line in result.settings)]
    for change in result.changes:
        lines.append(f"  {change.path}: {change.change}")
        lines += [f"    {detail}" for detail in change.details]
    lines.append("")
    if result.refusals:
        lines.append("Refused by yarn rmadmin -refreshQueues (the running queues keep the old configuration):")
        lines += [f"  {r.path}: {r.reason}" for r in result.refusals]
    else:
        lines.append("Accepted by yarn rmadmin -refreshQueues (queue hierarchy rules of Hadoop 3.4).")
    return "\n".join(lines)


def diff_json(old: str, new: str, result: ConfigDiff) -> dict[str, Any]:
    """The diff as plain JSON values."""
    return {
        "old": old,
        "new": new,
        "refused": bool(result.refusals),
        "changes": [{"queue": c.path, "change": c.change, "details": list(c.details)} for c in result.changes],
        "settings": list(result.settings),
        "refusals": [{"queue": r.path, "reason": r.reason} for r in result.refusals],
    }


def parse_definitions(items: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` items of ``-D`` to a mapping."""
    result: dict[str, str] = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals or not name.strip():
            raise InputError("command line", "-D", f"expected NAME=VALUE, found {item!r}")
        result[name.strip()] = value
    return result


def parse_partitions(items: Sequence[str]) -> list[Partition]:
    """``LABEL=MEMORY:VCORES[:non-exclusive]`` items of ``--partition`` (the default partition
    ``""`` is always exclusive in Hadoop)."""
    partitions = []
    for item in items:
        match = _PARTITION.fullmatch(item.strip())
        if match is None:
            raise InputError(
                "command line", "--partition", f"expected LABEL=MEMORY:VCORES[:non-exclusive], found {item!r}"
            )
        label = match["label"].strip()
        exclusive = match["kind"] != "non-exclusive"
        if label == NO_LABEL and not exclusive:
            raise InputError("command line", "--partition", f"the default partition is always exclusive: {item!r}")
        memory, vcores = (
            whole_number_argument(match[part], "command line", "--partition", 0, LONG_RANGE[1])
            for part in ("memory", "vcores")
        )
        partitions.append(Partition(label, Resource.of(memory, vcores), exclusive))
    return partitions


# -- text ------------------------------------------------------------------------------------


def format_report(
    conf: SchedulerConfiguration,
    queues: Sequence[Queue] = (),
    findings: Sequence[LintFinding] = (),
    rules: Sequence[AllowRule] = (),
) -> str:
    """The whole text report; warnings that ``rules`` allow are counted, not listed."""
    lines = [f"Files (in merge order): {', '.join(conf.sources)}"]
    not_modelled = [f for f in findings if f.kind == "not-modelled"]
    if not_modelled:
        lines += ["", "Not modelled (the model's answers do not account for these)"]
        lines += [f"  [{f.warning_id}] {f.location}: {f.key}: {f.message}" for f in not_modelled]
    lines += ["", "Queues"]
    lines += _table(
        ["path", "capacity", "abs cap %", "max", "abs max %", "labels", "preemption", "priority", "AM %", "state"],
        [_queue_row(conf, q) for q in conf.queues],
    )
    label_rows = [_label_row(q, label) for q in conf.queues for label in q.labels if label != NO_LABEL]
    if label_rows:
        lines += ["", "Node label capacities"]
        lines += _table(["path", "label", "capacity", "abs cap %", "max", "abs max %"], label_rows)
    if queues:
        lines += ["", "Guaranteed and maximum resources <memory, vcores> per partition"]
        rows = [
            [q.path, _label_name(name), str(part.guaranteed), str(part.maximum)]
            for q in queues
            for name, part in q.partitions.items()
        ]
        lines += _table(["path", "partition", "guaranteed", "maximum"], rows)
    lines += ["", "Scheduler"]
    lines.append(f"  resource calculator: {conf.calculator}")
    lines.append(f"  node labels enabled: {_yes(conf.node_labels_enabled)}")
    lines.append(f"  allocation: minimum {conf.allocation.minimum}, maximum {conf.allocation.maximum}")
    lines += ["", "Preemption"]
    lines.append(f"  monitor enabled: {_yes(conf.monitor_enabled)}")
    lines.append(f"  policies: {', '.join(conf.monitor_policies)}")
    active = "yes" if conf.preemption_active else "no: the monitor does not run the preemption policy"
    lines.append(f"  preemption active: {active}")
    defaults = preemption_settings(PreemptionConfig())
    for name, value in preemption_settings(conf.preemption).items():
        note = "" if value == defaults[name] else "  (set)"
        lines.append(f"  {name}: {_value(value)}{note}")
    shown, allowed = split_warnings([w for w in all_warnings(conf, findings) if w.id != "not-modelled"], rules)
    if shown or allowed:
        lines += ["", "Warnings"]
        lines += [f"  [{warning.id}] {warning}" for warning in shown]
        if allowed:
            lines.append(f"  {_allowed_line(allowed)}")
    ignored = [f.key for f in findings if f.kind == "ignored"]
    if ignored:
        lines += ["", f"Hadoop settings the model does not read (no effect on its answers): {', '.join(ignored)}"]
    return "\n".join(lines)


def _queue_row(conf: SchedulerConfiguration, queue: QueueConfig) -> list[str]:
    default = queue.at(NO_LABEL)
    labels = ",".join(sorted(queue.accessible_labels)) or "-"
    if queue.default_label_expression:
        labels += f" (default {queue.default_label_expression})"
    disabled = conf.preemption_disabled(queue.path)
    preemption = "disabled" if disabled else "on"
    if disabled and not queue.disable_preemption:
        preemption = "disabled (monitor off)"
    return [
        queue.path,
        str(default.capacity),
        _percent(default.absolute),
        str(default.maximum),
        _percent(default.absolute_maximum),
        labels,
        preemption,
        str(queue.priority),
        _percent(queue.max_am_percent),
        queue.state,
    ]


def _label_row(queue: QueueConfig, label: str) -> list[str]:
    capacity = queue.at(label)
    return [
        queue.path,
        label,
        str(capacity.capacity),
        _percent(capacity.absolute),
        str(capacity.maximum),
        _percent(capacity.absolute_maximum),
    ]


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    return [
        "  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [headers, *rows]
    ]


def _percent(fraction: float | None) -> str:
    """A share as a percentage with at most 3 decimals; ``-`` when it depends on the cluster."""
    if fraction is None:
        return "-"
    text = f"{fraction * 100:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _label_name(label: str) -> str:
    return label if label else '""'


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _value(value: object) -> str:
    if isinstance(value, bool):
        return _yes(value)
    return str(value)


# -- JSON ------------------------------------------------------------------------------------


def to_json(
    conf: SchedulerConfiguration,
    queues: Sequence[Queue] = (),
    findings: Sequence[LintFinding] = (),
    rules: Sequence[AllowRule] = (),
) -> dict[str, Any]:
    """The report as plain JSON values (``warnings``: those no rule allows, ``allowed``: the
    others, each with its ``id``, ``key`` and ``text``)."""
    shown, allowed = split_warnings([w for w in all_warnings(conf, findings) if w.id != "not-modelled"], rules)
    document: dict[str, Any] = {
        "sources": list(conf.sources),
        "queues": [_queue_json(conf, q) for q in conf.queues],
        "resource_calculator": conf.calculator,
        "node_labels_enabled": conf.node_labels_enabled,
        "allocation": {
            "minimum": _resource_json(conf.allocation.minimum),
            "maximum": _resource_json(conf.allocation.maximum),
        },
        "preemption": {
            "monitor_enabled": conf.monitor_enabled,
            "policies": list(conf.monitor_policies),
            "active": conf.preemption_active,
            "settings": preemption_settings(conf.preemption),
        },
        "warnings": [_warning_json(w) for w in shown],
        "allowed": [_warning_json(w) for w in allowed],
        "not_modelled": [
            {"id": f.warning_id, "key": f.key, "location": f.location, "message": f.message}
            for f in findings
            if f.kind == "not-modelled"
        ],
        "ignored": [f.key for f in findings if f.kind == "ignored"],
    }
    if queues:
        document["resources"] = {
            q.path: {
                name: {"guaranteed": _resource_json(part.guaranteed), "maximum": _resource_json(part.maximum)}
                for name, part in q.partitions.items()
            }
            for q in queues
        }
    return document


def _queue_json(conf: SchedulerConfiguration, queue: QueueConfig) -> dict[str, Any]:
    return {
        "path": queue.path,
        "parent": queue.parent,
        "children": list(queue.children),
        "leaf": queue.leaf,
        "mode": queue.mode,
        "state": queue.state,
        "labels": {label: _label_json(capacity) for label, capacity in queue.labels.items()},
        "accessible_labels": sorted(queue.accessible_labels),
        "default_label_expression": queue.default_label_expression,
        "disable_preemption": queue.disable_preemption,
        "preemption_disabled": conf.preemption_disabled(queue.path),
        "priority": queue.priority,
        "relative_priority": conf.relative_priority(queue.path),
        "ordering_policy": queue.ordering_policy,
        "max_am_percent": queue.max_am_percent,
        "minimum_user_limit_percent": queue.minimum_user_limit_percent,
        "user_limit_factor": queue.user_limit_factor,
    }


def _label_json(capacity: LabelCapacity) -> dict[str, Any]:
    return {
        "capacity": str(capacity.capacity),
        "maximum": str(capacity.maximum),
        "relative": capacity.relative,
        "relative_maximum": capacity.relative_maximum,
        "absolute": capacity.absolute,
        "absolute_maximum": capacity.absolute_maximum,
    }


def _resource_json(resource: Resource) -> dict[str, int]:
    return {"memory": resource.memory, "vcores": resource.vcores}
