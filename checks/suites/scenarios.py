"""Running the named scenarios (:mod:`yarnspec.spec.worlds.catalogue`) and judging their verdicts.

:func:`explore_variant` and :func:`simulate_variant` run one scenario variant and return a
:class:`ScenarioOutcome`: the verdict of the variant's property, whether it agrees with the
expected one, the figures and the counterexample. Computed verdicts meet expected ones here,
by the rule of :func:`yarnspec.spec.outcome.satisfies`; ``yarnspec explore`` prints an
outcome and ``yarnspec check`` shows one row per variant (:func:`scenario_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from yarnspec.checks.explore import ExploreResult, SimulationResult, Trace, explore, simulate
from yarnspec.checks.explore.result import Verdict
from yarnspec.checks.render.text_table import aligned
from yarnspec.spec.outcome import Outcome, exit_status, satisfies
from yarnspec.spec.worlds.catalogue import INVARIANTS, SCENARIOS, ExploreBounds, Scenario, ScenarioVariant

#: Why a simulation leaves a progress property alone.
SIMULATION_CHECKS_INVARIANTS = "a simulation checks the invariants only; progress properties need exploring"


@dataclass(frozen=True)
class ScenarioOutcome:
    """One run of a scenario variant: ``property`` checked (in a simulation, the invariants),
    ``expected`` and computed ``verdict``, whether they ``agree``, the figures, the
    counterexample (``trace``) and the engine's full result (``result``). ``accepted`` are the
    outcomes the user accepted on purpose in place of ``holds`` (``--accept``)."""

    scenario: Scenario
    variant: ScenarioVariant
    mode: str
    property: str
    expected: str
    verdict: Verdict
    agree: bool
    distinct_states: int
    transitions: int
    depth: int | None
    seconds: float
    trace: Trace | None
    result: ExploreResult | SimulationResult
    bounds: ExploreBounds | None = None
    notes: tuple[str, ...] = ()
    accepted: frozenset[Outcome] = frozenset()

    def exit_status(self) -> int:
        """0 when the verdict agrees with the expected one (or is accepted), else the
        outcome's own status (docs/exploring.md, Outcomes)."""
        return exit_status(self.verdict.status, self.agree)

    def to_json(self) -> dict[str, Any]:
        """The ``yarnspec explore --json`` document."""
        result = self.result
        document: dict[str, Any] = {
            "scenario": self.scenario.name,
            "variant": self.variant.name,
            "story": self.scenario.story,
            "source": self.scenario.source,
            "mode": self.mode,
            "property": self.property,
            "expected": self.expected,
            "verdict": self.verdict.status,
            "verdict_text": self.verdict.text,
            "limit": self.verdict.to_json().get("limit"),
            "accepted": sorted(self.accepted),
            "agrees": self.agree,
            "exit_status": self.exit_status(),
            "distinct_states": self.distinct_states,
            "transitions": self.transitions,
            "depth": self.depth,
            "seconds": self.seconds,
            "model": {"name": result.model, "parameters": dict(result.parameters), "variant": result.variant},
            "notes": list(self.notes),
        }
        if isinstance(result, ExploreResult):
            asked = self.bounds or ExploreBounds()
            # symmetry as the explorer applied it (it turns symmetry off for progress)
            document["bounds"] = asked.to_json() | {"symmetry": result.stats.symmetry}
            document["properties"] = [
                {"name": p.name, **p.verdict.to_json(), "premise_states": p.premise_states} for p in result.properties
            ]
            document["premises"] = [count.to_json() for count in result.premises]
            explored = result.to_json()
            document["stats"] = explored["stats"]
            document |= {name: explored[name] for name in ("workers", "coverage", "fingerprints") if name in explored}
        else:
            document["simulation"] = {"seed": result.seed, "walks": result.walks, "max_steps": result.max_steps}
        document["trace"] = None if self.trace is None else self.trace.to_json()
        return document

    def judgement(self) -> str:
        """One line: the verdict and whether it is the expected (or an accepted) one."""
        if self.agree and self.verdict.status in self.accepted and self.verdict.status != self.expected:
            return (
                f"verdict: {self.verdict.text}; {self.expected} was expected, {self.verdict.status} accepted (--accept)"
            )
        if self.agree:
            return f"verdict: {self.verdict.text}, as expected ({self.expected})"
        return f"verdict: {self.verdict.text}, but {self.expected} was expected: MISMATCH"


def explore_variant(
    scenario: Scenario,
    variant: ScenarioVariant,
    bounds: ExploreBounds | None = None,
    show_progress: bool | None = False,
    time_limit: int | None = None,
    progress_every: float | None = None,
    accepted: Iterable[Outcome] = (),
) -> ScenarioOutcome:
    """Explore one variant within ``bounds`` (default: the scenario's) and judge the verdict of
    its property. For a progress property, a safety violation leaves it unchecked, which never
    agrees (the trace is then the safety counterexample). ``accepted`` outcomes stand for
    ``holds`` (:func:`yarnspec.spec.outcome.satisfies`)."""
    bounds = bounds or scenario.bounds
    result = explore(
        scenario.model(variant),
        max_depth=bounds.max_depth,
        max_states=bounds.max_states,
        symmetry=bounds.symmetry,
        show_progress=show_progress,
        time_limit=time_limit,
        progress_every=progress_every,
    )
    return judge_explored(scenario, variant, bounds, result, accepted)


def judge_explored(
    scenario: Scenario,
    variant: ScenarioVariant,
    bounds: ExploreBounds,
    result: ExploreResult,
    accepted: Iterable[Outcome] = (),
) -> ScenarioOutcome:
    """The outcome of an exploration of one variant (by any engine) within ``bounds``: a
    question about one registered invariant whose premise the search never reached is
    vacuous."""
    trace = result.violation
    if not scenario.checks_progress(variant):
        verdict = result.verdict
        premise = next((c for c in result.premises if c.name == variant.property), None)
        if premise is not None and not premise.reached and verdict.status != Outcome.VIOLATED:
            verdict = Verdict.vacuous(verdict.limit, _reached_depth(result), result.stats.distinct_states)
    else:
        found = next((p for p in result.properties if p.name == variant.property), None)
        if found is None:
            raise ValueError(f"{scenario.title(variant)}: the model has no progress property {variant.property!r}")
        verdict = found.verdict
        trace = trace or found.counterexample
    stats = result.stats
    chosen = frozenset(accepted)
    return ScenarioOutcome(
        scenario,
        variant,
        "explore",
        variant.property,
        variant.expected,
        verdict,
        satisfies(verdict.status, variant.expected, chosen),
        stats.distinct_states,
        stats.transitions,
        stats.depth,
        stats.seconds,
        trace,
        result,
        bounds,
        result.notes,
        chosen,
    )


def _reached_depth(result: ExploreResult) -> int:
    """The depth a result's verdict reports: the limit's, else the deepest state stored."""
    return result.verdict.depth if result.verdict.depth is not None else result.stats.depth


def simulate_variant(
    scenario: Scenario,
    variant: ScenarioVariant,
    seed: int,
    walks: int,
    max_steps: int,
    accepted: Iterable[Outcome] = (),
) -> ScenarioOutcome:
    """Seeded random walks of one variant; the invariants are checked (a variant whose
    property is a progress property expects them to hold). Finding nothing is ``not-refuted``,
    which meets an expected ``holds`` only when accepted."""
    result = simulate(scenario.model(variant), seed=seed, walks=walks, max_steps=max_steps)
    progress = scenario.checks_progress(variant)
    expected = Outcome.HOLDS if progress else variant.expected
    notes = (f"{variant.property} not checked: {SIMULATION_CHECKS_INVARIANTS}",) if progress else ()
    chosen = frozenset(accepted)
    return ScenarioOutcome(
        scenario,
        variant,
        "simulate",
        INVARIANTS if progress else variant.property,
        expected,
        result.verdict,
        satisfies(result.verdict.status, expected, chosen),
        result.distinct_states,
        result.steps,
        None,
        result.seconds,
        result.violation,
        result,
        None,
        notes,
        chosen,
    )


# -- rows of ``yarnspec check`` -------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioRow:
    """One scenario variant in ``yarnspec check``: the expected and computed verdicts, whether
    they match, the figures, and a one-line summary of the counterexample (if any)."""

    scenario: str
    variant: str
    property: str
    expected: str
    verdict: str
    status: str
    matches: bool
    states: int
    transitions: int
    seconds: float
    bounds: str
    counterexample: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return asdict(self)


def describe_bounds(bounds: ExploreBounds) -> str:
    """``exhaustive``, ``depth 14``, ``3,000 states, symmetry``..."""
    parts = [
        f"depth {bounds.max_depth}" if bounds.max_depth is not None else "",
        f"{bounds.max_states:,} states" if bounds.max_states is not None else "",
    ]
    text = ", ".join(p for p in parts if p) or "exhaustive"
    return f"{text}, symmetry" if bounds.symmetry else text


def describe_trace(trace: Trace | None) -> str:
    """A counterexample in a few words: what it breaks and its length."""
    if trace is None:
        return ""
    steps = len(trace.steps) - 1
    if trace.loop_start is None:
        return f"{trace.kind} {trace.property} after {steps} steps"
    loop = steps - trace.loop_start
    shape = "stutters" if loop == 0 else f"{loop}-step loop"
    return f"{trace.property}: lasso, {trace.loop_start}-step prefix, {shape}"


def scenario_rows(
    fast: bool, names: Sequence[str] | None = None, accepted: Iterable[Outcome] = ()
) -> list[ScenarioRow]:
    """Explore every variant of every scenario (or of those ``names``d) at the scenario's
    ``fast`` or default bounds and judge each verdict; one row per variant, in catalogue order."""
    rows = []
    for scenario in SCENARIOS.values():
        if names is not None and scenario.name not in names:
            continue
        rows += variant_rows(scenario, scenario.fast if fast else scenario.bounds, accepted)
    return rows


def variant_rows(scenario: Scenario, bounds: ExploreBounds, accepted: Iterable[Outcome] = ()) -> list[ScenarioRow]:
    """Explore every variant of ``scenario`` within ``bounds``; one judged row per variant."""
    rows = []
    for variant in scenario.variants:
        outcome = explore_variant(scenario, variant, bounds, accepted=accepted)
        rows.append(
            ScenarioRow(
                scenario.name,
                variant.name,
                variant.property,
                variant.expected,
                outcome.verdict.short(),
                outcome.verdict.status,
                outcome.agree,
                outcome.distinct_states,
                outcome.transitions,
                round(outcome.seconds, 3),
                describe_bounds(bounds),
                describe_trace(outcome.trace),
            )
        )
    return rows


def format_rows(rows: Sequence[ScenarioRow]) -> str:
    """The rows as an aligned text table."""
    header = ("scenario", "variant", "property", "expected", "verdict", "match", "states", "seconds", "bounds")
    body = [
        (
            r.scenario,
            r.variant,
            r.property,
            r.expected,
            r.verdict,
            "yes" if r.matches else "NO",
            f"{r.states:,}",
            f"{r.seconds:.2f}",
            r.bounds,
        )
        for r in rows
    ]
    return "\n".join(aligned(header, body))
