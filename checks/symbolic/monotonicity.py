"""Monotonicity in pending: more pending for one queue never lowers that queue's ideal.

The property relates two runs of the fixpoint, on a level and on a copy of it in which one
queue (``q``) has at least as much pending, so it is not an invariant of one run. It is proved
by bounded unrolling instead of induction: first that every input of the domain finishes
within ``depth`` steps (*ends within depth*, for both copies), then that after ``depth`` steps
the queue's ideal in the copy is not below its ideal in the original (*not lowered*). Together they
cover every input of the domain. The copy is built by the same term-building code
(:class:`.fixpoint.Fixpoint`), so the equivalence tests vouch for both runs.

A model of the goal's negation is replayed on the reference implementation: both levels are
run there and the queue's two ideals compared.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from yarnspec.checks.symbolic.arith import Arith, Cond, Symbolic, Vec
from yarnspec.checks.symbolic.calc import Calc
from yarnspec.checks.symbolic.domain import Declared, Domain, Instance, declare, evaluate, model_value, plain, realistic
from yarnspec.checks.symbolic.fixpoint import Fixpoint, State
from yarnspec.checks.symbolic.level_proof import fixpoint_of, reference_view
from yarnspec.checks.symbolic.model import QUEUE_NAMES, Level
from yarnspec.checks.symbolic.prover import Obligation, Solver, SolverAnswer, Verdict

NAME = "more-pending-never-lowers-ideal"
STATEMENT = (
    "Giving one queue more pending (everything else equal) never lowers that queue's ideal "
    "assignment, per resource type."
)


@dataclass(frozen=True)
class Pair:
    """A level, the copy with more pending for queue ``queue``, and both fixpoints unrolled."""

    declared: Declared
    queue: int
    more: Instance
    first: State
    second: State
    constraints: list[Any]
    calc: Calc


def unrolled(fp: Fixpoint, depth: int) -> State:
    """The state after ``depth`` steps from the initial state."""
    state = fp.initial_state()
    for _ in range(depth):
        state = fp.step(state)
    return state


def pair(domain: Domain, queue: int, depth: int) -> Pair:
    """The two runs of ``domain``'s level, with queue ``queue``'s pending raised in the copy
    to any value between its pending and the bound."""
    declared = declare(domain)
    A = declared.A
    child = declared.instance.level.children[queue]
    extra = tuple(A.var(f"more_pending.{i}") for i in range(domain.dims))
    constraints = [*declared.constraints]
    constraints.extend(p <= x for p, x in zip(child.pending, extra))
    constraints.extend(x <= domain.bound.size for x in extra)
    more = Instance(
        _with_pending(declared.instance.level, queue, extra), _with_pending(declared.instance.written, queue, extra)
    )
    first = unrolled(fixpoint_of(domain, A, declared.instance.level), depth)
    second = unrolled(fixpoint_of(domain, A, more.level), depth)
    return Pair(declared, queue, more, first, second, constraints, Calc(A, domain.dominant))


def _with_pending(level: Level, queue: int, pending: Vec) -> Level:
    children = tuple(replace(c, pending=pending) if i == queue else c for i, c in enumerate(level.children))
    return replace(level, children=children)


def lowered(A: Arith, p: Pair) -> Cond:
    """Whether the copy's ideal for the queue is below the original's in some type."""
    before, after = p.first.ideal[p.queue], p.second.ideal[p.queue]
    return A.any(y < x for x, y in zip(before, after))


def ends_within(p: Pair) -> Obligation:
    """Both runs are done after the unrolled steps (for every input)."""
    A = p.declared.A
    unfinished = A.neg(A.all((p.first.done, p.second.done)))
    return Obligation(f"queue {QUEUE_NAMES[p.queue]}: ends within the depth", [*p.constraints, *_side(A), unfinished])


def not_lowered(p: Pair) -> Obligation:
    """After the unrolled steps, the queue's ideal is not lowered."""
    A = p.declared.A
    return Obligation(
        f"queue {QUEUE_NAMES[p.queue]}: not lowered",
        [*p.constraints, *_side(A), p.first.done, p.second.done, lowered(A, p)],
    )


def _side(A: Arith) -> list[Any]:
    return list(A.side) if isinstance(A, Symbolic) else []


@dataclass(frozen=True)
class MonotonicityExample:
    """A level and its copy with more pending where the queue's ideal drops, with the
    reference's ideals of that queue in both."""

    queue: int
    original: Instance
    more: Instance
    reference_before: tuple[int, ...]
    reference_after: tuple[int, ...]
    reference_breaks: bool

    def lines(self, dominant: bool = False) -> list[str]:
        """The two levels (as one, with the queue's two pendings) and the reference's ideals."""
        level = self.original.level
        name = QUEUE_NAMES[self.queue]
        out = [f"parent (root) resource {_fmt(level.resource)}"]
        for index, child in enumerate(level.children):
            pending = _fmt(child.pending)
            if index == self.queue:
                pending += f" -> {_fmt(self.more.level.children[index].pending)}"
            flags = " preemption disabled" if child.disabled else ""
            reserved = f", reserved {_fmt(child.reserved)}" if any(child.reserved) else ""
            out.append(
                f"  {QUEUE_NAMES[index]}: guaranteed {_fmt(child.guaranteed)}, max {_fmt(child.maximum)}, used {_fmt(child.used)}, "
                f"pending {pending}{reserved}, priority {child.priority}{flags}"
            )
        out.append(
            f"  reference: ideal of {name} {_fmt(self.reference_before)} -> {_fmt(self.reference_after)} with more pending"
        )
        verdict = (
            "reproduces the failure" if self.reference_breaks else "does NOT reproduce it (encoding and code differ)"
        )
        out.append(f"  replayed on the reference implementation: {verdict}")
        return out


def replay(domain: Domain, p: Pair, model: Any) -> MonotonicityExample:
    """Read both levels out of a model and run them on the reference."""
    value = partial(model_value, model)
    original = evaluate(p.declared.instance, value)
    more = evaluate(p.more, value)
    before = reference_view(domain, original, False)[0].state.ideal[p.queue]
    after = reference_view(domain, more, False)[0].state.ideal[p.queue]
    return MonotonicityExample(p.queue, original, more, before, after, any(y < x for x, y in zip(before, after)))


def depths(domain: Domain) -> range:
    """The unrolling depths tried, smallest first: from ``2K + 1`` to ``4K + 4``."""
    k = domain.bound.children
    return range(2 * k + 1, 4 * k + 5)


def prove(domain: Domain, solver: Solver) -> tuple[Verdict, list[SolverAnswer], str, MonotonicityExample | None]:
    """``(verdict, answers, detail, counterexample)`` for every input of ``domain``: per
    resource part, the smallest depth of :func:`depths` within which every run ends, then
    per queue the goal at that depth; a counterexample is looked for with plain inputs
    (:func:`.domain.plain`), then realistic ones (:func:`.domain.realistic`), first."""
    answers: list[SolverAnswer] = []
    used_depths = set()
    for part in domain.resources():
        where = f" (resource {part.resource})" if part.resource is not None and domain.resource is None else ""
        depth = None
        for candidate in depths(part):
            answer = solver.check(
                f"ends within {candidate} steps{where}", ends_within(pair(part, 0, candidate)).constraints
            )
            answers.append(answer)
            if answer.result == "unsat":
                depth = candidate
                break
        if depth is None:
            return "unknown", answers, f"some input{where} needs more than {max(depths(part))} steps", None
        used_depths.add(depth)
        for queue in range(part.bound.children):
            p = pair(part, queue, depth)
            checks = [ends_within(p)] if queue else []
            for obligation in [*checks, not_lowered(p)]:
                answer = solver.check(f"{obligation.name}{where}", obligation.constraints)
                answers.append(answer)
                if answer.result == "unsat":
                    continue
                if answer.result == "sat" and obligation.name.endswith("not lowered"):
                    model, label = answer.model, "any inputs"
                    for tier, extra in (
                        ("plain inputs", plain(p.declared)),
                        ("realistic inputs", realistic(p.declared)),
                    ):
                        simpler = solver.check(f"{obligation.name}{where}, {tier}", [*obligation.constraints, *extra])
                        answers.append(simpler)
                        if simpler.result == "sat":
                            model, label = simpler.model, tier
                            break
                    return (
                        "counterexample",
                        answers,
                        f"found at unrolling depth {depth}{where} ({label})",
                        replay(part, p, model),
                    )
                detail = f"obligation '{obligation.name}'{where} is {answer.result}" + (
                    f" ({answer.reason})" if answer.reason else ""
                )
                return "unknown", answers, detail, None
    return "proved", answers, f"every input ends within {max(used_depths)} steps", None


def _fmt(values: tuple[int, ...]) -> str:
    return "<" + ", ".join(str(v) for v in values) + ">" if len(values) > 1 else str(values[0])
