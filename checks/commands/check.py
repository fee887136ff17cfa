"""``yarnspec check``: run every built-in suite and print one row per suite.

A suite is anything that yields a :class:`SuiteResult`: a conformance family, a property suite
over generated inputs, and (later) explored scenarios and proofs. The table's columns are suite,
cases/properties, passed, failed, unsupported; the exit status is non-zero when any failed.
A conformance family with no cases (an installed wheel ships none; the cases live in
``../shared/conformance``) is a row marked not run, with how to point ``check`` at cases.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from yarnspec.checks.commands.accept_option import accepted_outcomes, add_accept_argument
from yarnspec.checks.commands.number_options import WholeNumber
from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.paths import BUILTIN_CASES, default_conformance_dir
from yarnspec.checks.render.text_table import aligned
from yarnspec.impl.errors import InputError

if TYPE_CHECKING:
    from yarnspec.checks.suites.scenarios import ScenarioRow
    from yarnspec.spec.worlds.catalogue import Scenario


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
    variants: tuple[ScenarioRow, ...] = ()
    #: the suite had nothing to run (a conformance family without cases): neither passed nor failed
    not_run: bool = False


@dataclass(frozen=True)
class Suite:
    """A named built-in suite; ``run`` gets the parsed arguments."""

    name: str
    run: Callable[[argparse.Namespace], SuiteResult]


def _conformance_suite(family: str, shipped: bool = False) -> Suite:
    """A row for one family of conformance cases: the shared folder's, or (``shipped``) the
    ones shipped with the package."""
    name = f"conformance/{family}" + (" (shipped)" if shipped else "")

    def run(args: argparse.Namespace) -> SuiteResult:
        started = time.perf_counter()
        base: Path | None = BUILTIN_CASES if shipped else args.conformance
        if base is not None and not base.is_dir():
            raise_missing(family, base)
        folder = base / family if base else None
        if folder is None or not folder.is_dir():
            return _not_run(f"conformance/{family}", family, base)
        outcomes = runner.run_all([folder])
        summary = runner.summarise(outcomes)
        notes = [
            f"{verdict.lower()}: " + ", ".join(ids[:3]) + (" ..." if len(ids) > 3 else "")
            for verdict in ("FAIL", "UNSUPPORTED")
            if (ids := [o.case_id for o in outcomes if o.verdict.value == verdict])
        ]
        return SuiteResult(
            suite=name,
            kind="cases",
            total=len(outcomes),
            passed=summary.passed,
            failed=summary.failed,
            unsupported=summary.unsupported,
            seconds=time.perf_counter() - started,
            note="; ".join(notes),
        )

    return Suite(name, run)


#: How to point ``check`` at the shared cases, said when a family has none.
CASES_HINT = (
    "give --conformance PATH (a folder with hadoop-preemption/ and spark-locality/) or set YARNSPEC_CONFORMANCE"
)


def _not_run(suite: str, family: str, base: Path | None) -> SuiteResult:
    """The row of a conformance family with no cases here (an installed wheel ships none)."""
    where = f"no {family}/ in {base}" if base else "no conformance cases found"
    return SuiteResult(suite, "cases", 0, 0, 0, 0, 0.0, f"not run: {where}; {CASES_HINT}", not_run=True)


def raise_missing(family: str, base: Path | None) -> NoReturn:
    """Stop with a clear error when the conformance folder is not there."""
    from yarnspec.impl.errors import InputError

    where = str(base / family) if base else "../shared/conformance"
    raise InputError(where, "", "conformance folder not found (give --conformance PATH)")


@dataclass(frozen=True)
class PropertyTally:
    """One property's result in a property suite: how often checked and violated, and the
    first counterexample (how to replay it)."""

    name: str
    checked: int
    violated: int
    counterexample: str = ""


def _property_suite(name: str, tally: Callable[[argparse.Namespace], list[PropertyTally]]) -> Suite:
    """A row for a property suite: one property passes when it was checked and never violated;
    a property never checked in the run counts as unsupported (it would hold vacuously)."""

    def run(args: argparse.Namespace) -> SuiteResult:
        started = time.perf_counter()
        tallies = tally(args)
        failed = [t for t in tallies if t.violated]
        unchecked = [t for t in tallies if not t.checked]
        notes = [f"{t.name} violated: {t.counterexample.splitlines()[0] if t.counterexample else ''}" for t in failed]
        notes += [f"{t.name} never checked" for t in unchecked]
        return SuiteResult(
            suite=name,
            kind="properties",
            total=len(tallies),
            passed=len(tallies) - len(failed) - len(unchecked),
            failed=len(failed),
            unsupported=len(unchecked),
            seconds=time.perf_counter() - started,
            note="; ".join(notes),
        )

    return Suite(name, run)


def _preemption_properties(args: argparse.Namespace) -> list[PropertyTally]:
    from yarnspec.checks.suites import preemption as preemption_suite

    outcomes = preemption_suite.run(args.examples, args.seed)
    return [PropertyTally(o.name, o.checked, o.violated, o.counterexample) for o in outcomes]


def _scheduler_invariants(args: argparse.Namespace) -> list[PropertyTally]:
    """The scheduler model's invariant catalogue over seeded random walks: ``--examples`` / 30
    (at least 1) rounds, each one walk of up to 150 steps per variant and per named world,
    checked after every step. A violation the variant is known to have (the ``pre-8127``
    leak) is counted apart and does not fail the row."""
    from yarnspec.checks.suites import scheduler as scheduler_suite

    walks = max(1, args.examples // 30)
    outcomes = scheduler_suite.run(walks, args.seed)
    return [PropertyTally(o.name, o.checked, o.violated, o.counterexample) for o in outcomes]


def _scenario_suite(name: str) -> Suite:
    """A row per named scenario: each of its variants explored at the fast bounds, passing
    when the verdict is the one the scenario expects (``yarnspec explore --list``)."""

    def run(args: argparse.Namespace) -> SuiteResult:
        from yarnspec.checks.suites import scenarios as scenario_suite

        started = time.perf_counter()
        rows = scenario_suite.scenario_rows(fast=True, names=[name], accepted=args.accept)
        return _variant_result(f"scenario/{name}", rows, started)

    return Suite(f"scenario/{name}", run)


def _world_suite(path: str) -> Suite:
    """A row per world file (``--world``): each question explored at the file's fast bounds
    (its ``[explore]`` bounds with ``fast`` on top, as the built-in scenarios run here),
    passing when the verdict is the one the question expects."""

    def run(args: argparse.Namespace) -> SuiteResult:
        from yarnspec.checks.suites import scenarios as scenario_suite
        from yarnspec.checks.worlds.world_arguments import load_world

        started = time.perf_counter()
        scenario = load_world(path).scenario
        return _variant_result(
            f"world/{path}", scenario_suite.variant_rows(scenario, scenario.fast, args.accept), started
        )

    return Suite(f"world/{path}", run)


def _plugin_suite(scenario: Scenario) -> Suite:
    """A row per scenario another project registers (``--plugins``), at its default bounds."""

    def run(args: argparse.Namespace) -> SuiteResult:
        from yarnspec.checks.suites import scenarios as scenario_suite

        started = time.perf_counter()
        return _variant_result(
            f"plugin/{scenario.name}", scenario_suite.variant_rows(scenario, scenario.bounds, args.accept), started
        )

    return Suite(f"plugin/{scenario.name}", run)


def _variant_result(suite: str, rows: list[ScenarioRow], started: float) -> SuiteResult:
    """The row of a scenario or world: its variants, failing those whose verdict is not the
    expected one."""
    wrong = [r for r in rows if not r.matches]
    return SuiteResult(
        suite=suite,
        kind="variants",
        total=len(rows),
        passed=len(rows) - len(wrong),
        failed=len(wrong),
        unsupported=0,
        seconds=time.perf_counter() - started,
        note="; ".join(f"{r.variant}: {r.verdict}, expected {r.expected}" for r in wrong),
        variants=tuple(rows),
    )


def _proof_suite() -> Suite:
    """One row for the z3 proofs at their small check bounds (``yarnspec prove`` runs them at
    the larger default bounds): passing when proved."""

    def run(args: argparse.Namespace) -> SuiteResult:
        from yarnspec.checks.commands import prove as prove_command

        (row,) = prove_command.check_rows()
        return SuiteResult(
            suite=PROOF_SUITE, kind="proofs", total=row.total, passed=row.proved, failed=row.failed,
            unsupported=0, seconds=row.seconds, note=row.note,
        )  # fmt: skip

    return Suite(PROOF_SUITE, run)


#: The name of the proofs' row.
PROOF_SUITE = "proofs/z3"


def builtin_suites() -> list[Suite]:
    """Every suite ``check`` runs, in table order."""
    from yarnspec.spec.worlds.catalogue import SCENARIOS

    return [
        _conformance_suite("hadoop-preemption"),
        _conformance_suite("spark-locality"),
        _conformance_suite("hadoop-preemption", shipped=True),
        _conformance_suite("hadoop-preemption-fair-share", shipped=True),
        _conformance_suite("hadoop-lazy-preemption", shipped=True),
        _property_suite("properties/preemption-round", _preemption_properties),
        _property_suite("properties/scheduler-model", _scheduler_invariants),
        *(_scenario_suite(name) for name in SCENARIOS),
        _proof_suite(),
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``check`` sub-command's options."""
    parser.add_argument(
        "--conformance",
        type=Path,
        default=None,
        metavar="PATH",
        help="the shared conformance folder (default: ../shared/conformance)",
    )
    parser.add_argument(
        "--examples",
        type=WholeNumber(1),
        default=300,
        metavar="N",
        help="generated examples per property suite (default 300)",
    )
    parser.add_argument(
        "--seed", type=WholeNumber(), default=0, metavar="S", help="seed of the generated examples (default 0)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument(
        "--world",
        action="extend",
        nargs="+",
        default=[],
        metavar="FILE",
        help="add a row per world file: its questions explored at its fast bounds",
    )
    parser.add_argument(
        "--plugins",
        action="store_true",
        help="add a row per scenario other projects register (entry points yarnspec.scenarios)",
    )
    parser.add_argument("--worlds-only", action="store_true", help="run only the --world rows, not the built-in suites")
    parser.add_argument(
        "--strict", action="store_true", help="a --world file's warnings (implausible sizes) are errors (exit 2)"
    )
    add_accept_argument(parser)


def format_table(rows: list[SuiteResult]) -> str:
    """The results as an aligned text table."""
    header = ("suite", "kind", "total", "passed", "failed", "unsupported", "seconds")
    body = [
        (r.suite, r.kind, str(r.total), str(r.passed), str(r.failed), str(r.unsupported), f"{r.seconds:.2f}")
        for r in rows
    ]
    notes = [f"{r.suite}: {r.note}" for r in rows if r.note]
    return "\n".join(aligned(header, body) + notes)


def run(args: argparse.Namespace) -> int:
    """Run the suites, print the table (or JSON) and return the exit status."""
    if args.conformance is None:
        args.conformance = default_conformance_dir()
    if args.worlds_only and not args.world:
        raise InputError("command line", "--worlds-only", "give at least one --world FILE")
    args.accept = accepted_outcomes(args.accept, "check")
    from yarnspec.checks.worlds.world_arguments import load_world

    if args.strict and not args.world:
        raise InputError("command line", "--strict", "applies only with --world FILE")
    for path in args.world:
        load_world(path, warn=True, strict=args.strict)  # a bad world file fails before any suite runs
    suites = [] if args.worlds_only else builtin_suites()
    suites += [_world_suite(path) for path in args.world]
    if args.plugins:
        from yarnspec.checks.worlds.plugins import plugin_scenarios

        suites += [_plugin_suite(scenario) for scenario in plugin_scenarios().values()]
    rows = [suite.run(args) for suite in suites]
    not_run = [r.suite for r in rows if r.not_run]
    if args.json:
        print(
            json.dumps(
                {"suites": [asdict(r) for r in rows], "failed": sum(r.failed for r in rows), "not_run": not_run},
                indent=2,
            )
        )
    else:
        print(format_table(rows))
        variants = [v for r in rows for v in r.variants]
        if variants:
            from yarnspec.checks.suites.scenarios import format_rows

            print(f"\nscenario variants (fast bounds):\n{format_rows(variants)}\n")
        failed = sum(r.failed for r in rows)
        skipped = f", {len(not_run)} suites not run ({', '.join(not_run)})" if not_run else ""
        print(
            f"{sum(r.passed for r in rows)} passed, {failed} failed, {sum(r.unsupported for r in rows)} unsupported{skipped}"
        )
    return 1 if any(r.failed for r in rows) else 0
