"""``yarnspec prove``: run the z3 proofs of the arithmetic cores and print their verdicts.

Each proof has a qualified name: ``default/<property>`` and ``dominant/<property>`` for the
ideal allocation and the preemption amounts of one level under each calculator
(:mod:`yarnspec.checks.symbolic.properties`), ``<calculator>/fixpoint-terminates``, and
``placement/<property>`` for Spark's container placement counts. A bare property name selects
it under every calculator that has it. Without names the whole catalogue runs; the
*findings* (properties as first stated that the real code does not have) run only when named
or with ``--findings``.

Per proof the command prints the name, the domain and bound, the verdict (``proved``,
``counterexample`` with the inputs and what the reference implementation computed on them, or
``unknown``) and the solver's seconds. It exits 0 only when every proof run is proved, 1
otherwise, and 2 for a bad argument. See docs/proofs.md.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from yarnspec.checks.commands.number_options import whole_number_argument
from yarnspec.checks.symbolic import monotonicity
from yarnspec.checks.symbolic.domain import VARIANTS, Bound, Domain, Variant, parse_bound, variant_rule
from yarnspec.checks.symbolic.level_proof import LevelProperty
from yarnspec.checks.symbolic.placement import (
    PLACEMENT_PROPERTIES,
    PlacementBound,
    PlacementProperty,
    placement_bound_of,
)
from yarnspec.checks.symbolic.properties import catalogue, findings
from yarnspec.checks.symbolic.prover import Solver
from yarnspec.checks.symbolic.runner import (
    TERMINATION_NAME,
    TERMINATION_STATEMENT,
    Counterexample,
    ProofResult,
    prove_level,
    prove_monotonicity,
    prove_placement,
    prove_termination,
    with_case,
    write_case,
)
from yarnspec.impl.errors import InputError

_SOURCE = "prove"
CALCULATORS = ("default", "dominant")

#: The bounds a plain ``yarnspec prove`` uses (docs/proofs.md gives their solver times).
DEFAULT_BOUNDS: dict[str, Bound] = {"default": Bound(4, 4), "dominant": Bound(2, 3)}
#: The bound of the ``tiny-queue`` runs: small, since the point is the counterexample.
TINY_QUEUE_BOUND = Bound(2, 2)
DEFAULT_PLACEMENT_BOUND = PlacementBound(hosts=5, containers=12, need=8)
#: Monotonicity unrolls two runs of the fixpoint, so its bounds are smaller.
MONOTONICITY_BOUNDS: dict[str, Bound] = {"default": Bound(3, 3), "dominant": Bound(2, 3)}
MONOTONICITY_FINDING = (
    "False under DRF: when the queues' starting ideals overshoot the parent in one type (use beyond "
    "the parent, which non-preemptable queues can hold), what is unassigned is negative there; an offer "
    "is capped componentwise by what is unassigned, so a queue that asks is handed a negative amount in "
    "that type, while the same queue not asking keeps its start. No corrected monotonicity is claimed "
    "for DRF; the floor min(used, guaranteed) when the starts fit is proved "
    "(dominant/ideal-floor-with-guarantee-when-starts-fit)."
)

#: The bounds of the ``yarnspec check`` row, per calculator and for the placement proofs
#: (``K,S`` there: K hosts, 2S requests, needs up to S); kept well under a minute.
CHECK_BOUNDS: dict[str, Bound] = {"default": Bound(2, 3), "dominant": Bound(1, 2), "placement": Bound(3, 3)}

Runner = Callable[[Bound | None, Variant, Solver], ProofResult]


@dataclass(frozen=True)
class ProofSpec:
    """One runnable proof: qualified name, statement, default bound, whether it is a finding,
    and how to run it at a bound (``None``: its default) under a variant."""

    name: str
    statement: str
    default_bound: str
    finding: bool
    calculator: str | None
    run: Runner


def _level_spec(calculator: str, prop: LevelProperty, finding: bool) -> ProofSpec:
    def run(bound: Bound | None, variant: Variant, solver: Solver) -> ProofResult:
        return prove_level(_domain(calculator, bound or _level_bound(calculator, variant), variant), prop, solver)

    return ProofSpec(
        f"{calculator}/{prop.name}", prop.statement, str(DEFAULT_BOUNDS[calculator]), finding, calculator, run
    )


def _termination_spec(calculator: str) -> ProofSpec:
    def run(bound: Bound | None, variant: Variant, solver: Solver) -> ProofResult:
        return prove_termination(_domain(calculator, bound or _level_bound(calculator, variant), variant), solver)

    return ProofSpec(
        f"{calculator}/{TERMINATION_NAME}",
        TERMINATION_STATEMENT,
        str(DEFAULT_BOUNDS[calculator]),
        False,
        calculator,
        run,
    )


def _monotonicity_spec(calculator: str) -> ProofSpec:
    dominant = calculator == "dominant"
    finding = MONOTONICITY_FINDING if dominant else ""
    defaults = MONOTONICITY_BOUNDS[calculator]

    def run(bound: Bound | None, variant: Variant, solver: Solver) -> ProofResult:
        chosen = bound or (TINY_QUEUE_BOUND if variant_rule(variant).capacity_guarantees else defaults)
        return prove_monotonicity(Domain(dominant, chosen, variant), solver, finding)

    return ProofSpec(
        f"{calculator}/{monotonicity.NAME}", monotonicity.STATEMENT, str(defaults), dominant, calculator, run
    )


def _placement_spec(prop: PlacementProperty) -> ProofSpec:
    def run(bound: Bound | None, variant: Variant, solver: Solver) -> ProofResult:
        return prove_placement(placement_bound_of(bound) if bound else DEFAULT_PLACEMENT_BOUND, prop, solver)

    return ProofSpec(f"placement/{prop.name}", prop.statement, str(DEFAULT_PLACEMENT_BOUND), False, None, run)


def _domain(calculator: str, bound: Bound, variant: Variant) -> Domain:
    """The domain of a level proof: integers first for the Default calculator, bit-vectors
    first for DRF (the faster theory for each, measured; the other is the fallback)."""
    dominant = calculator == "dominant"
    return Domain(dominant, bound, variant, backend="bv" if dominant else "int")


def _level_bound(calculator: str, variant: Variant) -> Bound:
    return TINY_QUEUE_BOUND if variant_rule(variant).capacity_guarantees else DEFAULT_BOUNDS[calculator]


def all_proofs() -> list[ProofSpec]:
    """Every proof the command knows, catalogue first, findings last."""
    specs: list[ProofSpec] = []
    for calculator in CALCULATORS:
        dominant = calculator == "dominant"
        specs.extend(_level_spec(calculator, p, False) for p in catalogue(dominant))
        specs.append(_termination_spec(calculator))
    specs.append(_monotonicity_spec("default"))
    specs.extend(_placement_spec(p) for p in PLACEMENT_PROPERTIES)
    for calculator in CALCULATORS:
        specs.extend(_level_spec(calculator, p, True) for p in findings(calculator == "dominant"))
    specs.append(_monotonicity_spec("dominant"))
    return specs


def select(names: Sequence[str], with_findings: bool, variant: Variant) -> list[ProofSpec]:
    """The proofs to run: the named ones (qualified, or a bare name under every calculator
    that has it), else the catalogue (plus the findings when asked). Under ``tiny-queue``
    the placement proofs, which no guarantee reaches, are left out. :class:`InputError` for
    an unknown name."""
    specs = all_proofs()
    if not names:
        chosen = [s for s in specs if with_findings or not s.finding]
    else:
        chosen = []
        for index, name in enumerate(names):
            matches = [s for s in specs if s.name == name or s.name.split("/", 1)[1] == name]
            if not matches:
                known = ", ".join(sorted({s.name.split("/", 1)[1] for s in specs}))
                raise InputError(_SOURCE, f"NAME[{index}]", f"no proof named {name!r} (known: {known})")
            chosen.extend(m for m in matches if m not in chosen)
    if variant_rule(variant).capacity_guarantees:
        chosen = [s for s in chosen if s.calculator is not None]
        if not chosen:
            raise InputError(
                _SOURCE,
                "--variant",
                "the placement proofs do not read guarantees: run them without --variant tiny-queue",
            )
    return chosen


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``yarnspec prove``."""
    parser.add_argument("names", nargs="*", metavar="NAME", help="proofs to run (default: the catalogue; see --list)")
    parser.add_argument("--list", action="store_true", help="list the proofs with their statements and default bounds")
    parser.add_argument(
        "--variant", default="hadoop-3", help=f"guarantee rule: {', '.join(VARIANTS)} (default hadoop-3)"
    )
    parser.add_argument(
        "--bound", help="K,S: children per level and largest figure (placement: K hosts, 2S requests, need S)"
    )
    parser.add_argument(
        "--findings", action="store_true", help="also run the properties as first stated that the code does not have"
    )
    parser.add_argument("--timeout", default="120", help="seconds per solver query (default 120; 0 = none)")
    parser.add_argument(
        "--case-out", type=Path, help="write the first replayed level counterexample as a conformance case file"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of lines")


#: z3 takes its timeout in milliseconds as an unsigned 32-bit number: about 49 days at most.
MAX_TIMEOUT_SECONDS = 4_294_967


@dataclass(frozen=True)
class ProveOptions:
    """The validated arguments."""

    names: tuple[str, ...]
    variant: Variant
    bound: Bound | None
    findings: bool
    timeout_ms: int
    case_out: Path | None
    json: bool


def options(args: argparse.Namespace) -> ProveOptions:
    """Validate the parsed arguments; :class:`InputError` naming the option otherwise."""
    variant = str(args.variant)
    if variant not in VARIANTS:
        raise InputError(_SOURCE, "--variant", f"expected one of {', '.join(VARIANTS)}, found {variant!r}")
    bound = parse_bound(args.bound, "--bound") if args.bound is not None else None
    seconds = whole_number_argument(str(args.timeout), _SOURCE, "--timeout", 0, MAX_TIMEOUT_SECONDS)
    return ProveOptions(
        tuple(args.names), variant, bound, bool(args.findings), seconds * 1000, args.case_out, bool(args.json)
    )


def run(args: argparse.Namespace) -> int:
    """Run ``yarnspec prove``; the exit code (0 only when every proof run is proved)."""
    opts = options(args)
    specs = select(opts.names, opts.findings, opts.variant)
    if args.list:
        listed = specs if opts.names or opts.findings else all_proofs()
        if opts.json:
            proofs = [
                {"name": s.name, "default_bound": str(s.default_bound), "finding": s.finding, "statement": s.statement}
                for s in listed
            ]
            print(json.dumps({"proofs": proofs}, indent=2))
            return 0
        for spec in listed:
            tag = " (finding: false for the real code as stated)" if spec.finding else ""
            print(f"{spec.name}  [default bound {spec.default_bound}]{tag}\n    {spec.statement}")
        return 0
    results: list[tuple[ProofSpec, ProofResult]] = []
    case_written: Path | None = None
    for spec in specs:
        result = spec.run(opts.bound, opts.variant, Solver(timeout_ms=opts.timeout_ms))
        if opts.case_out is not None and case_written is None:
            result, case_written = _maybe_write_case(spec, result, opts)
        results.append((spec, result))
        if not opts.json:
            print("\n".join(_lines(spec, result)), flush=True)
    proved = sum(1 for _, r in results if r.verdict == "proved")
    summary = f"{proved} proved, {len(results) - proved} not proved, of {len(results)} ({sum(r.seconds for _, r in results):.1f} s solver)"
    if opts.json:
        print(
            json.dumps(
                {
                    "results": [_json(s, r) for s, r in results],
                    "summary": summary,
                    "case_file": str(case_written) if case_written else None,
                },
                indent=2,
            )
        )
    else:
        if opts.case_out is not None:
            print(
                f"case file: {case_written}"
                if case_written
                else "case file: none written (no level counterexample replayed)"
            )
        print(summary)
    return 0 if proved == len(results) else 1


def _maybe_write_case(spec: ProofSpec, result: ProofResult, opts: ProveOptions) -> tuple[ProofResult, Path | None]:
    """Attach and write the case file of a level counterexample the reference reproduces."""
    example = result.counterexample
    if not isinstance(example, Counterexample) or not example.reference_breaks or opts.case_out is None:
        return result, None
    dominant = spec.calculator == "dominant"
    domain = Domain(dominant, opts.bound or _level_bound(spec.calculator or "default", opts.variant), opts.variant)
    note = f"yarnspec prove {spec.name} --variant {opts.variant}: counterexample replayed on the reference; the expectations are what the reference does."
    with_file = with_case(example, domain, spec.name.replace("/", "-"), note)
    write_case(with_file, opts.case_out)
    return replace(result, counterexample=with_file), opts.case_out


def _lines(spec: ProofSpec, result: ProofResult) -> list[str]:
    finding = " [finding]" if spec.finding else ""
    out = [
        f"{result.verdict.upper():<15} {spec.name}{finding}  ({result.domain}; {result.seconds:.1f} s, {result.queries} queries)"
    ]
    if result.detail:
        out.append(f"    {result.detail}")
    if result.counterexample is not None:
        out.extend("    " + line for line in result.counterexample.lines(spec.calculator == "dominant"))
    if spec.finding and result.verdict == "counterexample":
        out.append(f"    expected: {result.finding}")
    return out


def _json(spec: ProofSpec, result: ProofResult) -> dict[str, Any]:
    data = result.as_json(spec.calculator == "dominant")
    data["name"] = spec.name
    data["is_finding"] = spec.finding
    return data


@dataclass(frozen=True)
class CheckRow:
    """The ``yarnspec check`` row of the proofs."""

    name: str
    total: int
    proved: int
    failed: int
    seconds: float
    note: str = ""


def check_rows() -> list[CheckRow]:
    """The catalogue at the small :data:`CHECK_BOUNDS` (placement at
    :data:`CHECK_PLACEMENT_BOUND`), one row; a proof not proved is counted as failed and
    named in the note."""
    started = time.perf_counter()
    results: list[tuple[ProofSpec, ProofResult]] = []
    for spec in select((), False, "hadoop-3"):
        bound = CHECK_BOUNDS[spec.calculator or "placement"]
        results.append((spec, spec.run(bound, "hadoop-3", Solver(timeout_ms=60_000))))
    failed = [s.name for s, r in results if r.verdict != "proved"]
    bounds = ", ".join(f"{c} {b}" for c, b in CHECK_BOUNDS.items() if c != "placement")
    note = f"bounds: {bounds}, placement {placement_bound_of(CHECK_BOUNDS['placement'])}"
    if failed:
        note += "; not proved: " + ", ".join(failed)
    return [
        CheckRow(
            "z3 proofs", len(results), len(results) - len(failed), len(failed), time.perf_counter() - started, note
        )
    ]
