"""Running z3: obligations, their verdicts and times.

An :class:`Obligation` is a set of constraints that must be unsatisfiable (the domain, the
premises, and the negation of what is claimed). A proof is a list of obligations; it is
*proved* when z3 answers ``unsat`` to each, has a *counterexample* when a search query is
satisfiable (its model is the counterexample), and is *unknown* when z3 gives up (time limit)
or an induction obligation fails without a real counterexample being found.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import z3  # type: ignore[import-untyped]

Verdict = Literal["proved", "counterexample", "unknown"]


@dataclass(frozen=True)
class Obligation:
    """``constraints`` must be unsatisfiable; ``name`` says which step of a proof it is."""

    name: str
    constraints: Sequence[Any]


@dataclass(frozen=True)
class SolverAnswer:
    """z3's answer to one query: ``unsat``, ``sat`` (with the model) or ``unknown``."""

    name: str
    result: Literal["unsat", "sat", "unknown"]
    seconds: float
    model: Any = None
    reason: str = ""


@dataclass
class Solver:
    """A z3 front end with a per-query time limit (milliseconds, 0 = none)."""

    timeout_ms: int = 0
    answers: list[SolverAnswer] = field(default_factory=list)

    def check(self, name: str, constraints: Sequence[Any]) -> SolverAnswer:
        """Ask z3 whether ``constraints`` can all hold."""
        solver = z3.Solver()
        if self.timeout_ms:
            solver.set("timeout", self.timeout_ms)
        solver.add(*constraints)
        started = time.perf_counter()
        result = solver.check()
        seconds = time.perf_counter() - started
        if result == z3.unsat:
            answer = SolverAnswer(name, "unsat", seconds)
        elif result == z3.sat:
            answer = SolverAnswer(name, "sat", seconds, solver.model())
        else:
            answer = SolverAnswer(name, "unknown", seconds, reason=str(solver.reason_unknown()))
        self.answers.append(answer)
        return answer

    def discharge(self, obligations: Sequence[Obligation]) -> tuple[bool, list[SolverAnswer]]:
        """Check every obligation in order, stopping at the first that is not ``unsat``;
        ``(all unsat, answers)``."""
        answers = []
        for obligation in obligations:
            answer = self.check(obligation.name, obligation.constraints)
            answers.append(answer)
            if answer.result != "unsat":
                return False, answers
        return True, answers


def total_seconds(answers: Sequence[SolverAnswer]) -> float:
    """The solver time of a list of answers."""
    return sum(a.seconds for a in answers)
