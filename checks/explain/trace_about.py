"""What a trace is about, in plain words, for the head of the trace viewer: the property (its
description, not only its name), the world's own explanation of the question (its ``why``),
the outcome, and for a lasso why its loop never makes progress.

The viewer shows these first; the counterexample's detailed message (where the premise holds,
which fairness classes are enabled or taken on the loop) goes below them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from yarnspec.checks.explain.step_explanation import lasso_reason
from yarnspec.checks.explore.trace import Trace
from yarnspec.checks.worlds.plugins import find_any_scenario
from yarnspec.checks.worlds.world_arguments import is_world_title, variant_of_embedded_world, variant_of_world_title
from yarnspec.impl.errors import InputError
from yarnspec.spec.transition_system import TransitionSystem
from yarnspec.spec.worlds.scenario import ScenarioVariant

#: A deadlock's property in plain words (the model has no object for it).
DEADLOCK = "some step is always possible: the system never comes to a halt"


@dataclass(frozen=True)
class TraceAbout:
    """The head of a trace viewer: ``property`` in plain words, the world's ``why`` (empty when
    the trace names no world), the ``outcome`` and, for a lasso, ``loop``: why it never makes
    progress (empty otherwise)."""

    property: str
    why: str
    outcome: str
    loop: str = ""

    def to_json(self) -> dict[str, str]:
        """JSON-able form (the viewer's ``about``)."""
        return {"property": self.property, "why": self.why, "outcome": self.outcome, "loop": self.loop}


def about_trace(
    trace: Trace, model: TransitionSystem[Any, Any], source: str = "<trace>", variant: ScenarioVariant | None = None
) -> TraceAbout:
    """What ``trace`` (replayed on ``model``) is about; ``variant`` is the scenario variant it
    was found in (looked up from the trace's title when not given)."""
    chosen = variant or _variant_of(trace, source)
    return TraceAbout(_property_text(trace, model), "" if chosen is None else chosen.evidence, _outcome(trace),
                      lasso_reason(model, trace, source) or "")  # fmt: skip


def _property_text(trace: Trace, model: TransitionSystem[Any, Any]) -> str:
    if trace.kind == "deadlock":
        return DEADLOCK
    found = model.progress() if trace.kind == "progress" else model.invariants()
    description = next((p.description for p in found if p.name == trace.property), "")
    return f"{trace.property}: {description}" if description else trace.property


def _outcome(trace: Trace) -> str:
    steps = len(trace.steps) - 1
    if trace.loop_start is None:
        return (
            f"violated at step {steps}: {trace.message}"
            if trace.kind == "invariant"
            else f"{trace.kind} at step {steps}"
        )
    if trace.loop_start == steps:
        return f"violated: after {steps} steps the run stutters at step {steps} for ever"
    return f"violated: after {trace.loop_start} steps, steps {trace.loop_start}..{steps} repeat for ever"


def _variant_of(trace: Trace, source: str) -> ScenarioVariant | None:
    """The scenario variant a trace's title names, or ``None`` (a model without scenarios, a
    world that cannot be read again)."""
    title = trace.parameters.get("world")
    if not isinstance(title, str):
        return None
    try:
        if trace.world is not None:
            return variant_of_embedded_world(trace.world, title, source)[1]
        if is_world_title(title):
            return variant_of_world_title(title, source)[1]
        name, _, variant = title.partition("/")
        return find_any_scenario(name, source, "parameters.world").variant(variant, source)
    except InputError:
        return None
