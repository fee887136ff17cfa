"""Run one proof: discharge its obligations or find, confirm and replay a counterexample.

A counterexample is a z3 model of the search query (the fixpoint unrolled from the initial
state to its end, with the goal false). Its inputs are run again on the concrete evaluator
(the goal must be false there too) and on the reference implementation (which shows whether
the real code has the failure), and written as a conformance case on request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from yarnspec.checks.symbolic import monotonicity
from yarnspec.checks.symbolic.arith import Concrete, Symbolic, width_for
from yarnspec.checks.symbolic.domain import Domain, Instance, declare, plain, realistic
from yarnspec.checks.symbolic.level_proof import (
    LevelProperty,
    concrete_view,
    fixpoint_of,
    holds,
    induction,
    reference_view,
    search_query,
    termination,
)
from yarnspec.checks.symbolic.model import QUEUE_NAMES, Level
from yarnspec.checks.symbolic.placement import (
    PlacementBound,
    PlacementCounterexample,
    PlacementProperty,
    PlacementTerms,
    hint_input,
    reference_holds,
    reference_requests,
)
from yarnspec.checks.symbolic.placement import obligation as placement_obligation
from yarnspec.checks.symbolic.prover import Solver, SolverAnswer, Verdict, total_seconds
from yarnspec.checks.symbolic.replay import ChildFigures, case_file

#: Unrolling depths tried, in order, when searching for a counterexample.
SEARCH_DEPTHS = (2, 4, 8)


@dataclass(frozen=True)
class Counterexample:
    """Inputs that break a goal, and what the encoding and the reference do on them."""

    instance: Instance
    encoding_breaks: bool
    reference_breaks: bool
    figures: tuple[ChildFigures, ...]
    case: dict[str, Any] | None = None

    def lines(self, dominant: bool) -> list[str]:
        """The counterexample as a readable queue configuration and the reference's figures."""
        level = self.instance.level
        out = [f"parent (root) resource {_fmt(level.resource)}, budget {_fmt(level.budget)}"]
        for index, (child, figures) in enumerate(zip(level.children, self.figures)):
            written = self.instance.written.children[index]
            flags = " preemption disabled" if child.disabled else ""
            out.append(
                f"  {QUEUE_NAMES[index]}: guaranteed {_fmt(child.guaranteed)}"
                + (
                    f" (written {_fmt(written.guaranteed[:1])} memory)"
                    if written.guaranteed != child.guaranteed
                    else ""
                )
                + f", max {_fmt(child.maximum)}, used {_fmt(child.used)}, pending {_fmt(child.pending)}"
                + (f", reserved {_fmt(child.reserved)}" if any(child.reserved) else "")
                + (f", killable {_fmt(child.killable)}" if any(child.killable) else "")
                + f", priority {child.priority}{flags}"
            )
            out.append(
                f"     reference: ideal {_fmt(figures.ideal)}, to preempt {_fmt(figures.to_be_preempted)},"
                f" to obtain {_fmt(figures.to_obtain)}"
            )
        verdict = (
            "reproduces the failure" if self.reference_breaks else "does NOT reproduce it (encoding and code differ)"
        )
        out.append(f"  replayed on the reference implementation: {verdict}")
        return out


@dataclass(frozen=True)
class ProofResult:
    """The outcome of one proof in one domain."""

    name: str
    statement: str
    domain: str
    verdict: Verdict
    seconds: float
    queries: int
    detail: str = ""
    counterexample: Counterexample | PlacementCounterexample | monotonicity.MonotonicityExample | None = None
    finding: str = ""
    answers: tuple[SolverAnswer, ...] = field(default=())

    def as_json(self, dominant: bool) -> dict[str, Any]:
        """A JSON-friendly summary."""
        data: dict[str, Any] = {
            "name": self.name,
            "statement": self.statement,
            "domain": self.domain,
            "verdict": self.verdict,
            "seconds": round(self.seconds, 2),
            "queries": self.queries,
        }
        if self.detail:
            data["detail"] = self.detail
        if self.finding:
            data["finding"] = self.finding
        if self.counterexample is not None:
            data["counterexample"] = self.counterexample.lines(dominant)
            data["reference_reproduces"] = self.counterexample.reference_breaks
        return data


def prove_level(
    domain: Domain, prop: LevelProperty, solver: Solver, depths: Sequence[int] = SEARCH_DEPTHS
) -> ProofResult:
    """Discharge ``prop``'s induction in ``domain`` (split by resource where the domain needs
    it); if an obligation fails, search the failing part of the domain for a real
    counterexample and replay it."""
    answers: list[SolverAnswer] = []
    for part in domain.resources():
        proved, tried = _discharge(part, prop, solver)
        answers.extend(tried)
        if not proved:
            return _search(domain, part, prop, solver, depths, answers, tried[-1])
    return ProofResult(
        prop.name,
        prop.statement,
        domain.describe(),
        "proved",
        total_seconds(answers),
        len(answers),
        finding=prop.finding,
        answers=tuple(answers),
    )


def _discharge(domain: Domain, prop: LevelProperty, solver: Solver) -> tuple[bool, list[SolverAnswer]]:
    """The property's preferred backend first, the other if z3 gives up there or if the
    bit-vector proof fails only on its overflow bookkeeping (a ``range`` part, which the
    integer theory does not need)."""
    first = prop.backend or domain.backend
    answers: list[SolverAnswer] = []
    for backend in (first, "bv" if first == "int" else "int"):
        proved, tried = solver.discharge(induction(replace(domain, backend=backend), prop))
        answers.extend(tried)
        bookkeeping = backend == "bv" and "range" in tried[-1].name
        if proved or (tried[-1].result == "sat" and not bookkeeping):
            return proved, answers
    return False, answers


def find_counterexample(
    domain: Domain, prop: LevelProperty, solver: Solver, depths: Sequence[int] = SEARCH_DEPTHS
) -> ProofResult | None:
    """Search ``domain`` (not split) for inputs breaking ``prop``, without trying the proof
    first: unrolling depths in turn, plain inputs (:func:`.domain.plain`), then realistic
    ones (:func:`.domain.realistic`), then any inputs.
    The counterexample is replayed; ``None`` when none is found."""
    return _find(domain, domain, prop, solver, depths, [])


def _find(
    whole: Domain, part: Domain, prop: LevelProperty, solver: Solver, depths: Sequence[int], answers: list[SolverAnswer]
) -> ProofResult | None:
    for depth in depths:
        declared, constraints = search_query(part, prop, depth)
        tiers: tuple[tuple[str, list[Any]], ...] = (
            ("plain inputs", plain(declared)),
            ("realistic inputs", realistic(declared)),
            ("any inputs", []),
        )
        for label, extra in tiers:
            answer = solver.check(f"search (depth {depth}, {label})", [*constraints, *extra])
            answers.append(answer)
            if answer.result == "sat":
                example = confirm(part, prop, declared.read(answer.model))
                return ProofResult(
                    prop.name,
                    prop.statement,
                    whole.describe(),
                    "counterexample",
                    total_seconds(answers),
                    len(answers),
                    f"found at unrolling depth {depth} ({label})",
                    example,
                    prop.finding,
                    tuple(answers),
                )
    return None


def _search(
    whole: Domain,
    part: Domain,
    prop: LevelProperty,
    solver: Solver,
    depths: Sequence[int],
    answers: list[SolverAnswer],
    failed: SolverAnswer,
) -> ProofResult:
    found = _find(whole, part, prop, solver, depths, answers)
    if found is not None:
        return found
    where = f" (resource {part.resource})" if part.resource is not None and whole.resource is None else ""
    reason = f"obligation '{failed.name}'{where} is {failed.result}" + (f" ({failed.reason})" if failed.reason else "")
    detail = f"{reason}; no counterexample within {max(depths)} steps"
    return ProofResult(
        prop.name,
        prop.statement,
        whole.describe(),
        "unknown",
        total_seconds(answers),
        len(answers),
        detail,
        finding=prop.finding,
        answers=tuple(answers),
    )


def confirm(domain: Domain, prop: LevelProperty, instance: Instance) -> Counterexample:
    """Run the counterexample's inputs on the concrete evaluator and on the reference."""
    mine = concrete_view(domain, instance.level, prop.targets)
    theirs, figures = reference_view(domain, instance, prop.targets)
    return Counterexample(instance, not holds(prop, mine), not holds(prop, theirs), tuple(figures))


def with_case(example: Counterexample, domain: Domain, case_id: str, note: str) -> Counterexample:
    """The counterexample with its conformance case attached."""
    case = case_file(
        example.instance.written,
        domain.dominant,
        domain.settings,
        _budget_fraction(example.instance.level),
        domain.guarantee_rule,
        case_id,
        note,
    )
    return Counterexample(example.instance, example.encoding_breaks, example.reference_breaks, example.figures, case)


def write_case(example: Counterexample, path: Path) -> None:
    """Write the attached case file."""
    if example.case is None:
        raise ValueError("no case attached")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(example.case, indent=2) + "\n", encoding="utf-8")


def _budget_fraction(level: Level) -> float:
    """A ``total_preemption_per_round`` whose truncated product gives the level's budget on
    its resource, when one fraction does so for every type (else the whole resource)."""
    for fraction in _fractions(level):
        from yarnspec.impl.resources import f32

        if all(int(r * f32(fraction)) == b for r, b in zip(level.resource, level.budget)):
            return fraction
    return 1.0


def _fractions(level: Level) -> list[float]:
    candidates = [b / r for r, b in zip(level.resource, level.budget) if r]
    return [c for c in candidates if c > 0] + [1.0]


def _fmt(values: Sequence[int]) -> str:
    return "<" + ", ".join(str(v) for v in values) + ">" if len(values) > 1 else str(values[0])


def prove_termination(domain: Domain, solver: Solver) -> ProofResult:
    """The fixpoint ends for every input of ``domain``, split by resource as the level proofs
    are: by the ranking argument of :func:`.level_proof.termination`, or, where that
    induction fails, and always under DRF (where a free state can accept an offer with a
    negative component, so the ranking does not decrease although no reachable state does
    that), by unrolling: every input is done within ``d`` steps for the smallest ``d`` of
    :func:`.monotonicity.depths` that z3 confirms."""
    answers: list[SolverAnswer] = []
    how = set()
    for part in domain.resources():
        failed = "DRF: unrolled directly"
        if not part.dominant:
            proved, tried = solver.discharge(termination(part))
            answers.extend(tried)
            if proved:
                how.add("ranking function")
                continue
            failed = f"ranking obligation '{tried[-1].name}' is {tried[-1].result}"
        where = f" (resource {part.resource})" if part.resource is not None and domain.resource is None else ""
        depth = _ends_within(part, solver, answers)
        if depth is None:
            detail = f"{failed}; some input{where} needs more than {max(monotonicity.depths(part))} steps"
            return ProofResult(
                TERMINATION_NAME,
                TERMINATION_STATEMENT,
                domain.describe(),
                "unknown",
                total_seconds(answers),
                len(answers),
                detail,
                answers=tuple(answers),
            )
        how.add(f"every input ends within {depth} steps")
    detail = "by " + " / ".join(sorted(how))
    return ProofResult(
        TERMINATION_NAME,
        TERMINATION_STATEMENT,
        domain.describe(),
        "proved",
        total_seconds(answers),
        len(answers),
        detail,
        answers=tuple(answers),
    )


def _ends_within(domain: Domain, solver: Solver, answers: list[SolverAnswer]) -> int | None:
    """The smallest unrolling depth after which every input's fixpoint is done, or None."""
    for depth in monotonicity.depths(domain):
        declared = declare(domain)
        fp = fixpoint_of(domain, declared.A, declared.instance.level)
        state = monotonicity.unrolled(fp, depth)
        side = list(declared.A.side)
        answer = solver.check(f"ends within {depth} steps", [*declared.constraints, *side, declared.A.neg(state.done)])
        answers.append(answer)
        if answer.result == "unsat":
            return depth
    return None


TERMINATION_NAME = "fixpoint-terminates"
TERMINATION_STATEMENT = (
    "The ideal-allocation fixpoint ends for every input: each step that is not the last lowers "
    "(pass, positive part of what is unassigned, number of asking queues) lexicographically."
)


def prove_placement(bound: PlacementBound, prop: PlacementProperty, solver: Solver) -> ProofResult:
    """Prove a placement property for every request count and need vector of ``bound``
    (bit-vectors); a model is replayed on the reference as a Spark hint map."""
    A = Symbolic(width_for(4 * max(bound.containers, bound.hosts) * max(bound.need, 1) + 4))
    obligation, count, needs = placement_obligation(A, bound, prop)
    answer = solver.check(obligation.name, obligation.constraints)
    domain = f"placement, {bound}"
    if answer.result == "unsat":
        return ProofResult(prop.name, prop.statement, domain, "proved", answer.seconds, 1, answers=(answer,))
    if answer.result == "unknown":
        return ProofResult(
            prop.name, prop.statement, domain, "unknown", answer.seconds, 1, answer.reason, answers=(answer,)
        )
    n = int(answer.model.eval(count, model_completion=True).as_signed_long())
    values = tuple(int(answer.model.eval(x, model_completion=True).as_signed_long()) for x in needs)
    encoded = tuple(PlacementTerms(Concrete(), n, values, bound.containers).requests())
    reference, _ = reference_requests(hint_input(n, values))
    example = PlacementCounterexample(
        n, values, encoded, tuple(reference), not reference_holds(prop, n, values, bound.containers)
    )
    return ProofResult(
        prop.name,
        prop.statement,
        domain,
        "counterexample",
        answer.seconds,
        1,
        "found by the solver",
        example,
        answers=(answer,),
    )


def prove_monotonicity(domain: Domain, solver: Solver, finding: str = "") -> ProofResult:
    """:func:`.monotonicity.prove` in ``domain`` (bit-vectors, the faster theory for the
    unrolled runs) as a :class:`ProofResult`."""
    verdict, answers, detail, example = monotonicity.prove(replace(domain, backend="bv"), solver)
    name, statement = monotonicity.NAME, monotonicity.STATEMENT
    return ProofResult(
        name,
        statement,
        domain.describe(),
        verdict,
        total_seconds(answers),
        len(answers),
        detail,
        example,
        finding,
        tuple(answers),
    )
