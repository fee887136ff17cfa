"""Random-walk simulation for worlds too large to explore exhaustively.

Each walk starts from an initial state and takes up to ``max_steps`` steps, each chosen
uniformly among the enabled actions by one ``random.Random(seed)``, so the same seed gives the
same walks, the same verdict and the same trace. Every state visited is checked against the
invariants (and for deadlock); the first violation ends the run with its trace, in the same
format as the explorer's (:mod:`.trace`), replayable with :func:`.trace.replay`. Walks are not
shortest counterexamples, and finding none proves nothing: the verdict is "not refuted", cut
by the walks (:attr:`~yarnspec.spec.outcome.Limit.WALKS`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.explore.arguments import whole_number
from yarnspec.checks.explore.result import Verdict
from yarnspec.checks.explore.trace import Trace, build_trace
from yarnspec.impl.errors import InputError
from yarnspec.spec.outcome import Limit, Outcome
from yarnspec.spec.transition_system import Invariant, TransitionSystem, first_violation


@dataclass(frozen=True)
class SimulationResult:
    """The outcome of :func:`simulate`: the verdict, the first violation's trace, and figures
    (``steps`` taken in all, ``distinct_states`` among the states visited)."""

    model: str
    parameters: Mapping[str, Any]
    variant: str
    seed: int
    walks: int
    max_steps: int
    verdict: Verdict
    violation: Trace | None
    steps: int
    distinct_states: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "model": self.model,
            "parameters": dict(self.parameters),
            "variant": self.variant,
            "seed": self.seed,
            "walks": self.walks,
            "max_steps": self.max_steps,
            **self.verdict.to_json(),
            "violation": None if self.violation is None else self.violation.to_json(),
            "steps": self.steps,
            "distinct_states": self.distinct_states,
            "seconds": self.seconds,
        }


def simulate(
    model: TransitionSystem[Any, Any], *, seed: int, walks: int = 100, max_steps: int = 100, deadlock: bool = True
) -> SimulationResult:
    """Run ``walks`` seeded random walks of at most ``max_steps`` steps and check the invariants
    (and deadlock, unless ``deadlock=False``) on every state visited."""
    for place, value, lowest in (("seed", seed, 0), ("walks", walks, 1), ("max_steps", max_steps, 0)):
        whole_number("simulate", place, value, lowest)
    rng = random.Random(seed)
    initial = list(model.initial_states())
    if not initial:
        raise InputError(model.name, "initial_states", "the model has no initial state")
    invariants = tuple(model.invariants())
    started = time.perf_counter()
    visited: set[Any] = set()
    taken = 0
    violation: Trace | None = None
    for _ in range(walks):
        states = [rng.choice(initial)]
        actions: list[Any] = []
        fault = _fault(invariants, states[0])
        while fault is None:
            visited.add(states[-1])
            if len(actions) == max_steps:
                break
            enabled = list(model.successors(states[-1]))
            if not enabled:
                fault = ("deadlock", "deadlock", "no action is enabled") if deadlock else None
                break
            action, state = rng.choice(enabled)
            actions.append(action)
            states.append(state)
            taken += 1
            fault = _fault(invariants, state)
        if fault is not None:
            violation = build_trace(model, *fault, states, actions)
            break
    verdict = (
        Verdict.violated()
        if violation is not None
        else Verdict(
            Outcome.NOT_REFUTED,
            f"not refuted: no violation in {walks} walks of up to {max_steps} steps (simulation, seed {seed})",
            Limit.WALKS,
            max_steps,
            len(visited),
        )
    )
    return SimulationResult(
        model.name,
        dict(model.parameters),
        model.variant,
        seed,
        walks,
        max_steps,
        verdict,
        violation,
        taken,
        len(visited),
        round(time.perf_counter() - started, 3),
    )


def _fault(invariants: tuple[Invariant[Any], ...], state: Any) -> tuple[str, str, str] | None:
    found = first_violation(invariants, state)
    return None if found is None else ("invariant", *found)
