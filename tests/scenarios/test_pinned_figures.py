"""Every scenario variant's figures, pinned: distinct states, transitions, depth, verdict and
the length of its counterexample, at the scenario's fast bounds, plus one exhaustive run
without symmetry (the world the TLA+ comparison used). A change to the model's structure or to
the explorer's speed must leave every figure unchanged; a change of behaviour must update
``pinned_figures.json`` on purpose, with ``python tests/scenarios/test_pinned_figures.py
--update``, and say why in its commit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.suites.scenarios import ScenarioOutcome, explore_variant
from yarnspec.spec.worlds.catalogue import SCENARIOS, ExploreBounds

PINNED = Path(__file__).with_name("pinned_figures.json")
#: Exhaustive runs pinned besides the fast bounds: (scenario, variant, bounds).
EXHAUSTIVE = [("async-double-commit", "yarn-8127", ExploreBounds(symmetry=False))]


def runs() -> list[tuple[str, str, str, ExploreBounds]]:
    """(key, scenario, variant, bounds) for every pinned run."""
    fast = [(f"{s.name}/{v.name}/fast", s.name, v.name, s.fast) for s in SCENARIOS.values() for v in s.variants]
    return fast + [(f"{s}/{v}/exhaustive-no-symmetry", s, v, b) for s, v, b in EXHAUSTIVE]


def figures(outcome: ScenarioOutcome) -> dict[str, Any]:
    """What is pinned of one run."""
    trace = outcome.trace
    return {
        "states": outcome.distinct_states,
        "transitions": outcome.transitions,
        "depth": outcome.depth,
        "verdict": outcome.verdict.status,
        "trace_steps": None if trace is None else len(trace.steps),
        "trace_property": None if trace is None else trace.property,
    }


def measure(scenario: str, variant: str, bounds: ExploreBounds) -> dict[str, Any]:
    """Run one pinned exploration."""
    s = SCENARIOS[scenario]
    return figures(explore_variant(s, s.variant(variant), bounds))


def pinned() -> dict[str, Any]:
    """The pinned figures, by run key."""
    return dict(json.loads(PINNED.read_text()))


@pytest.mark.parametrize("key, scenario, variant, bounds", runs(), ids=[r[0] for r in runs()])
def test_the_figures_are_the_pinned_ones(key: str, scenario: str, variant: str, bounds: ExploreBounds) -> None:
    assert key in pinned(), f"{key} is not pinned: run this file with --update"
    assert measure(scenario, variant, bounds) == pinned()[key]


def test_every_pinned_run_still_exists() -> None:
    assert sorted(pinned()) == sorted(r[0] for r in runs())


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/scenarios/test_pinned_figures.py --update")
    table = {key: measure(s, v, b) for key, s, v, b in runs()}
    PINNED.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    print(f"{len(table)} runs pinned in {PINNED}")
