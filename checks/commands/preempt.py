"""``yarnspec preempt``: what the preemption policy would do on a cluster snapshot, explained.

The configuration (``--config`` capacity-scheduler.xml, ``--yarn-site`` yarn-site.xml) gives
guarantees, maxima and the policy's settings; the snapshot (a plain one or a REST bundle,
``docs/your-cluster.md``) gives usage and demand. The first round is explained queue by queue;
the rounds after it (``--rounds``, by default until the first marks would be killed) are
summarised by their new marks and their kills. A snapshot with a container on a label its queue
cannot access, or a queue above its maximum, is explained with a warning on stderr per case
(:mod:`..snapshot.sanity`: Hadoop reaches both states legitimately). Each round names its selectors with their kill
waits, where each queue's ideal stops and what the round's budget cut. ``--json`` prints
everything as one document.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from yarnspec.checks.commands.config import parse_definitions
from yarnspec.checks.commands.number_options import WholeNumber
from yarnspec.checks.explain.preemption_round import QueueRow, RoundReport, default_rounds, explain
from yarnspec.checks.render.text_table import aligned
from yarnspec.checks.snapshot import load_snapshot
from yarnspec.checks.snapshot.limits import SnapshotLimits
from yarnspec.checks.snapshot.sanity import snapshot_warnings
from yarnspec.impl.config.scheduler import SchedulerConfiguration, load_scheduler_configuration
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.fifo_selector import FIFO_BALANCE
from yarnspec.impl.preemption.result import EventType
from yarnspec.impl.resources import Resource

MARK = EventType.MARK_CONTAINER_FOR_PREEMPTION
KILL = EventType.MARK_CONTAINER_FOR_KILLABLE
KILL_RESERVED = EventType.KILL_RESERVED_CONTAINER
#: The most policy rounds ``--rounds`` asks for (each prints a line; more is not an explanation).
MAX_ROUNDS = 10_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument("--config", required=True, metavar="CS.xml", help="capacity-scheduler.xml")
    parser.add_argument("--yarn-site", metavar="Y.xml", help="yarn-site.xml (preemption settings may sit there)")
    parser.add_argument("--snapshot", required=True, metavar="S.json", help="a plain snapshot or a REST bundle")
    parser.add_argument(
        "--rounds",
        type=WholeNumber(1, MAX_ROUNDS),
        metavar="N",
        help="policy rounds to run (default: until the first marks are killed)",
    )
    parser.add_argument(
        "--clock", type=WholeNumber(0), default=0, metavar="MS", help="the logical clock of the first round (default 0)"
    )
    parser.add_argument(
        "-D",
        "--define",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a system property for ${NAME} in values",
    )
    parser.add_argument(
        "--snapshot-limit",
        action="append",
        default=[],
        metavar="NAME=N",
        help="raise a snapshot size limit: queues, nodes, apps or containers (docs/errors.md)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Load, run the rounds, print; returns the exit status."""
    files = [args.config] + ([args.yarn_site] if args.yarn_site else [])
    conf = load_scheduler_configuration(files, system_properties=parse_definitions(args.define))
    loaded = load_snapshot(
        args.snapshot, conf, SnapshotLimits().raised(args.snapshot_limit, "command line", "--snapshot-limit")
    )
    warnings = snapshot_warnings(loaded.snapshot, conf, loaded.name)
    for warning in warnings:
        print(f"preempt: warning: {args.snapshot}: {warning}", file=sys.stderr)
    rounds = args.rounds or default_rounds(conf.preemption)
    try:
        reports = explain(loaded, conf, rounds, args.clock)
    except NotModelled as exc:
        raise InputError(", ".join(conf.sources), "", f"not modelled: {exc}") from None
    if args.json:
        print(json.dumps({**to_json(conf, args.snapshot, reports), "snapshot_warnings": warnings}, indent=2))
    else:
        print(format_report(conf, args.snapshot, reports))
    return 0


def format_report(conf: SchedulerConfiguration, snapshot: str, reports: list[RoundReport]) -> str:
    """The text report: settings, the first round in full, the later rounds in brief."""
    settings = conf.preemption
    first = reports[0]
    lines = [
        f"Configuration: {', '.join(conf.sources)}; snapshot: {snapshot}",
        f"Resources are <memory MB, vcores>; calculator: {conf.calculator}.",
        f"Policy: every {settings.monitoring_interval_ms} ms, at most {settings.total_preemption_per_round} of the cluster "
        f"per round, natural_termination_factor {settings.natural_termination_factor}, max_ignored_over_capacity "
        f"{settings.max_ignored_over_capacity}, kill {settings.max_wait_before_kill_ms} ms after the mark.",
    ]
    if not conf.preemption_active:
        lines.append("Note: this configuration does not run the preemption policy (monitor off); shown as if it did.")
    lines += ["", f"Round 1 at {first.clock_ms} ms (selectors: {', '.join(first.selectors)}; budget {first.budget})"]
    lines += [f"  {line}" for line in kill_wait_lines(first, settings)]
    lines.append("")
    lines += format_round(first)
    if len(reports) > 1:
        lines += ["", "Next rounds (killed containers are gone; nothing else changes): new marks and kills"]
        for report in reports[1:]:
            lines.append(f"  round {report.number} at {report.clock_ms} ms: {_event_summary(report)}")
            lines += [f"    {_event_line(e)}" for e in report.events if e.kind is not MARK or e.new]
            lines += [f"    {line}" for line in budget_cut_lines(report)]
    return "\n".join(lines)


def kill_wait_lines(report: RoundReport, settings: PreemptionConfig) -> list[str]:
    """Each selector's kill wait, and where it comes from."""
    lines = []
    for name, wait in report.kill_waits:
        source = "max_wait_before_kill"
        if name == FIFO_BALANCE and wait == settings.preemption_to_balance_max_wait_ms:
            source = "its own wait, preemption-to-balance-queue-after-satisfied.max-wait-before-kill"
        lines.append(f"{name} kills what it marked {wait} ms after the mark ({source})")
    return lines


def budget_cut_lines(report: RoundReport) -> list[str]:
    """A line per queue whose to-preempt the round's budget (``total_preemption_per_round``) cut."""
    return [
        f"round budget {report.budget} (total_preemption_per_round) cut {row.queue}'s to-preempt in "
        f"{_partition(row.partition)} by {row.budget_cut}, to {row.to_preempt}"
        for row in report.rows
        if not row.budget_cut.is_zero()
    ]


def _partition(name: str) -> str:
    return name or '""'


def format_round(report: RoundReport) -> list[str]:
    """One round as text lines: the queues' table (indented), then its events."""
    header = [
        "queue",
        "partition",
        "guaranteed",
        "used",
        "pending",
        "ideal",
        "capped by",
        "to-preempt",
        "to-obtain",
        "selected",
        "why",
    ]
    lines = ["  " + line for line in aligned(header, [_row(r) for r in report.rows])]
    lines += ["  capped by: where the ideal stops: maximum (capacity), demand (used + pending), guarantee (the fifo "
              "pass offers a leaf at most max(used, guaranteed)), parent (what its parent had left)"]  # fmt: skip
    lines += [f"  {line}" for line in budget_cut_lines(report)]
    lines += ["", _event_summary(report)]
    return lines + [f"  {_event_line(e)}" for e in report.events]


def _row(row: QueueRow) -> list[str]:
    figures = [row.guaranteed, row.used, row.pending, row.ideal, row.to_preempt]
    leaf_figures = [row.to_obtain, row.selected] if row.leaf else [None, None]
    return [
        row.queue,
        _partition(row.partition),
        *(_resource(r) for r in figures[:4]),
        row.cap,
        _resource(row.to_preempt),
        *("" if r is None else _resource(r) for r in leaf_figures),
        row.why,
    ]


def _resource(resource: Resource) -> str:
    return f"{resource.memory},{resource.vcores}" if not resource.is_zero() else "0"


def _event_summary(report: RoundReport) -> str:
    new = sum(1 for e in report.events if e.kind is MARK and e.new)
    marked = report.count(MARK)
    parts = [f"{marked} marked" + ("" if new == marked else f" ({new} new)"), f"{report.count(KILL)} killed"]
    if report.count(KILL_RESERVED):
        parts.append(f"{report.count(KILL_RESERVED)} reservations dropped")
    return ", ".join(parts) + f"; {report.still_marked} marked and waiting"


def _event_line(event: Any) -> str:
    verb = {MARK: "mark", KILL: "kill", KILL_RESERVED: "drop reservation"}[event.kind]
    return f"{verb} {event.container} ({event.queue} on {event.node}, {event.resource}) by {event.selector}"


def _resource_json(resource: Resource) -> dict[str, int]:
    return {"memory": resource.memory, "vcores": resource.vcores}


def to_json(conf: SchedulerConfiguration, snapshot: str, reports: list[RoundReport]) -> dict[str, Any]:
    """The report as plain JSON values; every round with every row."""
    return {
        "sources": list(conf.sources),
        "snapshot": snapshot,
        "units": {"memory": "MB", "vcores": "vcores"},
        "rounds": [round_json(r) for r in reports],
    }


def round_json(r: RoundReport) -> dict[str, Any]:
    """One round as plain JSON values, every row and event."""
    return {
        "round": r.number,
        "clock_ms": r.clock_ms,
        "budget": _resource_json(r.budget),
        "selectors": list(r.selectors),
        "kill_waits_ms": dict(r.kill_waits),
        "queues": [
            {
                "queue": row.queue,
                "partition": row.partition,
                "leaf": row.leaf,
                **{
                    name: _resource_json(getattr(row, name))
                    for name in (
                        "guaranteed",
                        "maximum",
                        "used",
                        "pending",
                        "ideal",
                        "to_preempt",
                        "to_obtain",
                        "selected",
                    )
                },
                "why": row.why,
                "capped_by": row.cap,
                "budget_cut": _resource_json(row.budget_cut),
            }
            for row in r.rows
        ],
        "events": [
            {
                "event": e.kind.value,
                "selector": e.selector,
                "container": e.container,
                "queue": e.queue,
                "node": e.node,
                "resource": _resource_json(e.resource),
                "new": e.new,
            }
            for e in r.events
        ],
        "still_marked": r.still_marked,
    }
