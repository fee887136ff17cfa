"""``yarnspec validate CONTRACT --impl IMPL`` and ``yarnspec validate-trace CONTRACT LOG``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from yarnspec.checks.validate.adapter import StartFault
from yarnspec.checks.validate.families import family_of
from yarnspec.checks.validate.findings_out import check_out_folder, write_file
from yarnspec.checks.validate.hypothesis_storage import private_storage
from yarnspec.checks.validate.load import load_adapter
from yarnspec.checks.validate.run import TRACES_PER, Options, PhaseResult, run_phases
from yarnspec.checks.validate.trace import validate_trace
from yarnspec.impl.errors import InputError
from yarnspec.spec.contracts import Contract, contract_named
from yarnspec.spec.contracts.observable import FieldRule

EXIT_OK, EXIT_FOUND, EXIT_FAULT = 0, 1, 2
#: Nothing was compared: the adapter answered every call as unsupported (``unknown op``).
EXIT_NOTHING_CHECKED = 3
NOTHING_CHECKED = "RESULT: nothing checked: the implementation answered every call as unsupported (unknown op); nothing was compared with the spec"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``validate``'s arguments."""
    parser.add_argument(
        "contract",
        metavar="CONTRACT",
        help="spark-placement, spark-dispatch, preemption-round, candidate-selector, node-sorting or scheduler",
    )
    parser.add_argument(
        "--impl",
        required=True,
        metavar="IMPL",
        help="python:MOD:ATTR, process:COMMAND..., spark:VERSION, reference, or an entry-point name",
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="conformance case files or folders (default: ../shared/conformance)",
    )
    parser.add_argument(
        "--examples",
        type=int,
        default=100,
        metavar="N",
        help=f"Hypothesis examples of the differential phase (model-based: N/{TRACES_PER} traces); default 100",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed of the generated inputs and traces (default 0)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="per-request timeout of a process adapter (default 30)",
    )
    parser.add_argument(
        "--start-timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="timeout of a process adapter's hello, compiling included (default 300)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the folder disagreement files go to, made if missing (default validate-out/)",
    )


def add_trace_arguments(parser: argparse.ArgumentParser) -> None:
    """``validate-trace``'s arguments."""
    parser.add_argument("contract", metavar="CONTRACT")
    parser.add_argument("log", type=Path, metavar="LOG", help="JSON lines: {op, input, output|error} per decision")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Run ``validate`` and print its report; the exit status (0 agree, 1 found, 2 fault)."""
    if args.examples < 1:
        raise InputError("<command line>", "--examples", f"must be >= 1, found {args.examples}")
    contract = contract_named(args.contract)
    family = family_of(contract.name)
    out = args.out or Path("validate-out")
    check_out_folder(out)
    with private_storage():
        adapter = load_adapter(args.impl, contract, args.timeout, args.start_timeout)
        try:
            phases = run_phases(contract, family, adapter, Options(args.cases, args.examples, args.seed))
        except StartFault as exc:
            print(f"yarnspec: adapter {args.impl}: {exc}", file=sys.stderr)
            return EXIT_FAULT
        finally:
            adapter.close()
    written = _write(phases, contract.name, args.impl, out, family)
    findings = [f for phase in phases for f in phase.findings]
    if args.json:
        document = _json(phases, written, contract.name, args.impl)
        document["compared"], document["not_compared"] = compared(phases, contract.rules)
        print(json.dumps(document, indent=2))
    else:
        _print(phases, written, contract, args.impl)
    faults = [f for f in findings if f.kind == "fault"]
    if faults:
        print(f"yarnspec: adapter {args.impl}: {faults[0].lines[0]}", file=sys.stderr)
        return EXIT_FAULT
    if findings:
        return EXIT_FOUND
    return EXIT_NOTHING_CHECKED if nothing_checked(phases) else EXIT_OK


def nothing_checked(phases: list[PhaseResult]) -> bool:
    """Whether no run of any phase was compared (every one unsupported by the adapter, or
    none at all): such a run must not pass as agreeing."""
    return not any(phase.findings for phase in phases) and sum(phase.checked for phase in phases) == 0


def _write(phases: list[PhaseResult], contract: str, impl: str, out: Path, family: Any) -> dict[int, tuple[str, ...]]:
    """Each finding as a replayable file and a case file; the paths by finding's id."""
    written: dict[int, tuple[str, ...]] = {}
    findings = [f for phase in phases for f in phase.findings]
    if all(f.kind == "fault" for f in findings):
        return written
    for number, finding in enumerate((f for f in findings if f.kind != "fault"), 1):
        replay = out / f"{contract}-{number}.disagreement.json"
        write_file(replay, json.dumps(finding.to_json(contract, impl), indent=2) + "\n")
        if family.to_case is None:
            written[id(finding)] = (str(replay),)
            continue
        case_path = out / f"{contract}-{number}.case.json"
        case = family.to_case(f"validate.{contract}-{number}", finding.calls, finding.reference or ())
        write_file(case_path, json.dumps(case, indent=2) + "\n")
        written[id(finding)] = (str(replay), str(case_path))
    return written


def _phase_line(phase: PhaseResult) -> str:
    runs = {"conformance": "cases", "differential": "examples", "model-based": "traces"}[phase.name]
    verdict = (
        f"{len(phase.findings)} finding(s)" if phase.findings else "agree" if phase.checked else "nothing compared"
    )
    extra = f", {len(phase.skipped)} skipped" if phase.skipped else ""
    extra += f", {phase.unsupported} unsupported by the adapter" if phase.unsupported else ""
    return f"{phase.name:<13} {phase.runs} {runs}{extra}: {verdict}"


def compared(phases: list[PhaseResult], rules: tuple[FieldRule, ...]) -> tuple[list[str], list[str]]:
    """The contract's fields the implementation gave (compared) and the optional ones it left
    out (not compared)."""
    seen = set().union(*(phase.fields for phase in phases))
    given = [f"{r.name} ({r.comparison.value})" for r in rules if r.name in seen]
    left_out = [r.name for r in rules if r.optional and r.name not in seen]
    return given, left_out


def _print(phases: list[PhaseResult], written: dict[int, tuple[str, ...]], contract: Contract, impl: str) -> None:
    print(f"validate {contract.name} --impl {impl}")
    for phase in phases:
        print(_phase_line(phase))
    broken = [f for phase in phases for f in phase.findings if f.kind == "invariant"]
    print(f"{'invariants':<13} on every answer: {'hold' if not broken else f'{len(broken)} broken'}")
    given, left_out = compared(phases, contract.rules)
    print(f"{'compared':<13} {', '.join(given) or 'nothing'}")
    if left_out:
        print(f"{'not compared':<13} {', '.join(left_out)} (optional, absent from every answer)")
    for phase in phases:
        for finding in phase.findings:
            step = (
                ""
                if finding.step is None
                else f" at call {finding.step} ({finding.calls[finding.step].op})"
                if finding.step < len(finding.calls)
                else ""
            )
            print(f"{finding.kind.upper()} [{finding.phase}] {finding.label}{step}")
            for line in finding.lines:
                print(f"  {line}")
            if (
                finding.kind in ("disagreement", "invariant")
                and finding.step is not None
                and finding.step < len(finding.implementation)
            ):
                print(f"  input:          {json.dumps(finding.calls[finding.step].input, sort_keys=True)}")
                print(f"  reference:      {json.dumps(finding.reference[finding.step].to_json(), sort_keys=True)}")
                print(f"  implementation: {json.dumps(finding.implementation[finding.step].to_json(), sort_keys=True)}")
            if id(finding) in written:
                files = written[id(finding)]
                case_note = f"; {files[1]} (yarnspec conform)" if len(files) > 1 else ""
                print(f"  written: {files[0]} (replay: yarnspec validate-trace){case_note}")
    total = sum(len(phase.findings) for phase in phases)
    if nothing_checked(phases):
        print(NOTHING_CHECKED)
    else:
        print("RESULT: agrees with the spec" if total == 0 else f"RESULT: {total} finding(s)")


def _json(phases: list[PhaseResult], written: dict[int, tuple[str, ...]], contract: str, impl: str) -> dict[str, Any]:
    return {
        "contract": contract,
        "impl": impl,
        "phases": [
            {
                "name": p.name,
                "runs": p.runs,
                "skipped": p.skipped,
                "unsupported": p.unsupported,
                "findings": [{**f.to_json(contract, impl), "files": list(written.get(id(f), ()))} for f in p.findings],
            }
            for p in phases
        ],
        "agrees": not any(p.findings for p in phases) and not nothing_checked(phases),
        "checked": sum(p.checked for p in phases),
    }


def run_trace(args: argparse.Namespace) -> int:
    """Run ``validate-trace``; 0 when every step is explained, 1 otherwise."""
    contract = contract_named(args.contract)
    family_of(contract.name)
    verdict = validate_trace(contract, args.log)
    if args.json:
        print(json.dumps(verdict.to_json(), indent=2))
    else:
        print(verdict.line)
    return EXIT_OK if verdict.explained else EXIT_FOUND
