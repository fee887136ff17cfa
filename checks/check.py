"""``yarnspec check``: run every built-in suite and print one row per suite.

A suite is anything that yields a :class:`SuiteResult`: a conformance family, a property suite
over generated inputs, and (later) explored scenarios and proofs. The table's columns are suite,
cases/properties, passed, failed, unsupported; the exit status is non-zero when any failed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NoReturn

from .conformance import runner
from .paths import default_conformance_dir


@dataclass(frozen=True)
class SuiteResult:
    """One row of the ``check`` table."""

    suite: str
    kind: str
    total: int
    passed: int
    failed: int
    unsupported: int
    seconds: float
    note: str = ""


@dataclass(frozen=True)
class Suite:
    """A named built-in suite; ``run`` gets the parsed arguments."""

    name: str
    run: Callable[[argparse.Namespace], SuiteResult]


def _conformance_suite(family: str) -> Suite:
    def run(args: argparse.Namespace) -> SuiteResult:
        started = time.perf_counter()
        base: Path | None = args.conformance
        folder = base / family if base else None
        if folder is None or not folder.is_dir():
            raise_missing(family, base)
        outcomes = runner.run_all([folder])
        summary = runner.summarise(outcomes)
        failed_ids = [o.case_id for o in outcomes if o.verdict.value == "FAIL"]
        return SuiteResult(
            suite=f"conformance/{family}",
            kind="cases",
            total=len(outcomes),
            passed=summary.passed,
            failed=summary.failed,
            unsupported=summary.unsupported,
            seconds=time.perf_counter() - started,
            note=("failed: " + ", ".join(failed_ids[:3]) + (" ..." if len(failed_ids) > 3 else "")) if failed_ids else "",
        )

    return Suite(f"conformance/{family}", run)


def raise_missing(family: str, base: Path | None) -> NoReturn:
    """Stop with a clear error when the conformance folder is not there."""
    from yarnspec.impl.errors import InputError

    where = str(base / family) if base else "../shared/conformance"
    raise InputError(where, "", "conformance folder not found (give --conformance PATH)")


def builtin_suites() -> list[Suite]:
    """Every suite ``check`` runs, in table order."""
    return [_conformance_suite("hadoop-preemption"), _conformance_suite("spark-locality")]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``check`` sub-command's options."""
    parser.add_argument(
        "--conformance",
        type=Path,
        default=None,
        metavar="PATH",
        help="the shared conformance folder (default: ../shared/conformance)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")


def format_table(rows: list[SuiteResult]) -> str:
    """The results as an aligned text table."""
    header = ("suite", "kind", "total", "passed", "failed", "unsupported", "seconds")
    body = [
        (r.suite, r.kind, str(r.total), str(r.passed), str(r.failed), str(r.unsupported), f"{r.seconds:.2f}")
        for r in rows
    ]
    widths = [max(len(cell) for cell in column) for column in zip(header, *body)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in (header, *body)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    notes = [f"{r.suite}: {r.note}" for r in rows if r.note]
    return "\n".join(lines + notes)


def run(args: argparse.Namespace) -> int:
    """Run the suites, print the table (or JSON) and return the exit status."""
    if args.conformance is None:
        args.conformance = default_conformance_dir()
    rows = [suite.run(args) for suite in builtin_suites()]
    if args.json:
        print(json.dumps({"suites": [asdict(r) for r in rows], "failed": sum(r.failed for r in rows)}, indent=2))
    else:
        print(format_table(rows))
        failed = sum(r.failed for r in rows)
        print(f"{sum(r.passed for r in rows)} passed, {failed} failed, {sum(r.unsupported for r in rows)} unsupported")
    return 1 if any(r.failed for r in rows) else 0
