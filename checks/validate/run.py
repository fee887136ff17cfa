"""``yarnspec validate``'s four phases against one implementation.

1. **conformance**: the family's cases (``../shared/conformance`` or ``--cases``) replayed
   through the adapter; answers compared with the reference's on the same calls (the reference
   passes these cases), and a placement case's upstream ``expect.nodes`` checked directly;
2. **differential**: Hypothesis-generated inputs; the first disagreement is shrunk to a minimal
   input and shown with both answers;
3. **invariants**: the contract's invariants on every answer the implementation gave (checked
   inside every other phase, reported on their own line);
4. **model-based** (stateful contracts): seeded simulation traces, each step chosen from what
   the reference's state allows, replayed step by step; observations compared after each step.

The first finding of a phase ends that phase (one shrunk example is worth more than many).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky

from yarnspec.checks.conformance.paths import default_conformance_dir
from yarnspec.checks.conformance.runner import find_case_files, load_case
from yarnspec.checks.validate.adapter import Adapter, StartFault
from yarnspec.checks.validate.engine import Finding, ReferenceFault, check
from yarnspec.checks.validate.families import Family
from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer, Call

#: Steps per model-based trace.
TRACE_LENGTH = 20
#: One model-based trace per this many ``--examples``.
TRACES_PER = 5
#: Conformance stops after this many faulted cases (each restarted the process).
MAX_FAULTS = 3


@dataclass
class PhaseResult:
    """One phase: how many runs, how many skipped or unsupported, and the findings."""

    name: str
    runs: int = 0
    skipped: list[str] = field(default_factory=list)
    unsupported: int = 0
    findings: list[Finding] = field(default_factory=list)
    #: Output fields the implementation gave (top level and inside lists of objects).
    fields: set[str] = field(default_factory=set)

    @property
    def checked(self) -> int:
        """Runs whose answers were compared (not unsupported by the adapter)."""
        return self.runs - self.unsupported

    def saw(self, answers: tuple[Answer, ...]) -> None:
        """Note the fields of ``answers`` (for the report's "compared" line)."""
        for answer in answers:
            for key, value in (answer.output or {}).items():
                self.fields.add(key)
                if isinstance(value, list):
                    self.fields.update(k for item in value if isinstance(item, dict) for k in item)


@dataclass
class Options:
    """The command's knobs."""

    cases: list[Path] | None
    examples: int
    seed: int


def conformance(contract: Contract, family: Family, adapter: Adapter, paths: list[Path]) -> PhaseResult:
    """Phase 1 (module docstring)."""
    result = PhaseResult("conformance")
    for path in find_case_files(paths):
        case = load_case(path)
        if not family.owns(case):
            continue
        label = str(case.get("id", path.stem))
        try:
            calls = family.case_calls(case)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:  # a malformed user case
            calls = f"malformed case ({type(exc).__name__}: {exc})"
        if isinstance(calls, str):
            result.skipped.append(f"{label}: {calls}")
            continue
        result.runs += 1
        try:
            checked = check(contract, adapter, "conformance", label, calls)
        except ReferenceFault as exc:
            result.runs -= 1
            result.skipped.append(f"{label}: {exc}")
            continue
        result.saw(checked.answers)
        if checked.unsupported:
            result.unsupported += 1
            continue
        finding = checked.finding
        refusal = _refusal(finding)
        if refusal is not None:
            # an upstream case may build its set-up from test doubles an implementation does
            # not have (Spark's FakeTaskScheduler): a case it refuses is not run, and said so
            result.runs -= 1
            result.skipped.append(f"{label}: refused by the implementation: {refusal}")
            continue
        if finding is None:
            broken = family.case_expectations(case, checked.answers)
            if broken:
                finding = Finding("conformance", label, tuple(calls), (), checked.answers, tuple(broken), 0, "upstream")
        if finding is not None:
            result.findings.append(finding)
        if sum(f.kind == "fault" for f in result.findings) >= MAX_FAULTS:
            result.skipped.append(f"stopped after {MAX_FAULTS} faulted cases")
            break
    return result


def _refusal(finding: Finding | None) -> str | None:
    """The implementation's error text when ``finding`` is only that it refused a call the
    reference answered (a conformance case it cannot set up); ``None`` otherwise."""
    if finding is None or finding.kind != "disagreement" or finding.step is None:
        return None
    if finding.step >= len(finding.implementation) or finding.step >= len(finding.reference):
        return None
    theirs, ours = finding.implementation[finding.step], finding.reference[finding.step]
    return theirs.error if theirs.error is not None and ours.error is None else None


class _Found(Exception):
    """Raised inside the Hypothesis test so that it shrinks."""


class _StartFailed(BaseException):
    """Raised inside the Hypothesis test when the adapter cannot start (a fault at ``hello``):
    not an ``Exception``, so Hypothesis neither shrinks nor replays it (each replay would start
    the adapter again and wait for its start timeout); the :class:`StartFault` is re-raised
    outside."""


class _ShrinkBudgetSpent(BaseException):
    """Raised inside the Hypothesis test to end shrinking at once (not an ``Exception``, so
    Hypothesis does not take it for a failure to shrink: it leaves the run). Generating a
    candidate costs as much as replaying it for long traces, so candidates must stop too."""


def differential(contract: Contract, family: Family, adapter: Adapter, options: Options) -> PhaseResult:
    """Phase 2 (module docstring): Hypothesis finds, shrinks and replays the minimal input last,
    so the finding kept is the shrunk one. A family with a ``shrink_budget`` stops shrinking
    after that many candidates (long scheduler traces); the smallest failing input by then is
    kept."""
    result = PhaseResult("differential")
    latest: list[Finding] = []
    faulted: list[Finding] = []
    start_faults: list[StartFault] = []
    shrinks = [0]

    def guard(value: int) -> int:
        """Runs before every candidate is generated: once a finding is being shrunk, counts the
        candidates and ends the run when the family's budget is spent."""
        if latest and family.shrink_budget is not None:
            if shrinks[0] >= family.shrink_budget:
                raise _ShrinkBudgetSpent()
            shrinks[0] += 1
        return value

    @hypothesis_seed(options.seed)
    @settings(
        max_examples=options.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,
    )
    @given(st.just(0).map(guard).flatmap(lambda _: family.inputs()))
    def one(calls: list[Call]) -> None:
        if faulted:  # a fault is not shrunk: every later example fails at once, adapter unused
            raise _Found()
        result.runs += not latest  # shrinking replays are not counted
        try:
            checked = check(contract, adapter, "differential", "generated input", calls)
        except StartFault as exc:
            start_faults.append(exc)
            raise _StartFailed() from None
        result.saw(checked.answers)
        if checked.unsupported:
            result.unsupported += 1
        if checked.finding is not None:
            latest.append(checked.finding)
            if checked.finding.kind == "fault":
                faulted.append(checked.finding)
            raise _Found()

    try:
        one()
    except _StartFailed:
        raise start_faults[0] from None
    except (_Found, _ShrinkBudgetSpent, Flaky):  # Flaky: Hypothesis noticing the budget's stop
        result.findings.append(faulted[0] if faulted else latest[-1])
    return result


def model_based(contract: Contract, family: Family, adapter: Adapter, options: Options) -> PhaseResult:
    """Phase 4 (module docstring); ``max(1, examples // TRACES_PER)`` traces."""
    result = PhaseResult("model-based")
    assert family.simulate is not None
    for index in range(max(1, options.examples // TRACES_PER)):
        trace_seed = options.seed + index
        calls = family.simulate(trace_seed, family.trace_length or TRACE_LENGTH)
        result.runs += 1
        checked = check(contract, adapter, "model-based", f"trace seed {trace_seed}", calls)
        result.saw(checked.answers)
        if checked.unsupported:
            result.unsupported += 1
        if checked.finding is not None:
            result.findings.append(checked.finding)
            break
    return result


def run_phases(contract: Contract, family: Family, adapter: Adapter, options: Options) -> list[PhaseResult]:
    """Every phase that applies, in order (conformance only where cases carry the contract,
    model-based only for stateful contracts); a fault in one phase stops the run."""
    default = default_conformance_dir()
    paths = options.cases if options.cases is not None else ([default] if default is not None else [])
    phases = [lambda: differential(contract, family, adapter, options)]
    if family.case_kinds:  # a contract no conformance case carries has no conformance phase
        phases.insert(0, lambda: conformance(contract, family, adapter, paths))
    if family.simulate is not None:
        phases.append(lambda: model_based(contract, family, adapter, options))
    results: list[PhaseResult] = []
    for phase in phases:
        result = phase()
        if (
            result.name == "conformance"
            and options.cases is None
            and not (result.runs or result.skipped or result.findings)
        ):
            continue  # no shared case carries this contract (node-sorting): no conformance phase
        results.append(result)
        if any(f.kind == "fault" for f in result.findings):
            break
    return results
