"""Benchmark: time to verdict and states explored for every named scenario and variant.

Run as ``.venv/bin/python benchmarks/scenarios.py`` (``--fast`` for the scenarios' fast bounds,
``--only NAME`` for one scenario). Each variant is explored at its scenario's bounds
(:mod:`yarnspec.spec.worlds.catalogue`) exactly as ``yarnspec check`` does
(:func:`yarnspec.checks.suites.scenarios.explore_variant`), one after another in this process.

Prints one line per variant (scenario, variant, property, expected and computed verdict,
whether they match, distinct states, transitions, depth, wall and CPU seconds, states per
second, bounds) and, as its LAST line, one JSON object with the same figures and the totals.
The exit status is 1 when any verdict does not match its expectation.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from yarnspec.checks.explore import ExploreResult
from yarnspec.checks.suites.scenarios import describe_bounds, explore_variant
from yarnspec.spec.worlds.catalogue import SCENARIOS


def run(fast: bool, only: str | None) -> list[dict[str, Any]]:
    """Explore every variant (of ``only`` when given); the figures of each."""
    figures = []
    for scenario in SCENARIOS.values():
        if only is not None and scenario.name != only:
            continue
        bounds = scenario.fast if fast else scenario.bounds
        for variant in scenario.variants:
            started = time.process_time()
            outcome = explore_variant(scenario, variant, bounds)
            cpu = time.process_time() - started
            assert isinstance(outcome.result, ExploreResult)
            stats = outcome.result.stats
            figures.append(
                {
                    "scenario": scenario.name,
                    "variant": variant.name,
                    "property": variant.property,
                    "expected": variant.expected,
                    "verdict": outcome.verdict.text,
                    "matches": outcome.agree,
                    "distinct_states": stats.distinct_states,
                    "transitions": stats.transitions,
                    "depth": stats.depth,
                    "seconds": round(stats.seconds, 3),
                    "cpu_seconds": round(cpu, 3),
                    "states_per_second": round(stats.distinct_states / stats.seconds) if stats.seconds else 0,
                    "bounds": describe_bounds(bounds),
                    "counterexample_steps": None if outcome.trace is None else len(outcome.trace.steps) - 1,
                }
            )
    return figures


def main() -> int:
    """Run, print the table and the JSON line; 1 if a verdict does not match."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="use the scenarios' fast bounds (as yarnspec check --fast)")
    parser.add_argument("--only", choices=list(SCENARIOS), help="one scenario only")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = run(args.fast, args.only)
    total = time.perf_counter() - started
    header = f"{'scenario':<23} {'variant':<30} {'expected':<9} {'match':<5} {'states':>7} {'transitions':>11} {'depth':>5} {'seconds':>7} {'CPU s':>6} {'states/s':>8}  verdict / bounds"
    print(header)
    for f in figures:
        print(
            f"{f['scenario']:<23} {f['variant']:<30} {f['expected']:<9} {'yes' if f['matches'] else 'NO':<5} "
            f"{f['distinct_states']:>7,} {f['transitions']:>11,} {f['depth']:>5} {f['seconds']:>7.2f} "
            f"{f['cpu_seconds']:>6.2f} {f['states_per_second']:>8,}  {f['verdict']} / {f['bounds']}"
        )
    mismatches = sum(not f["matches"] for f in figures)
    print(
        f"{len(figures)} variants, {mismatches} mismatches, {sum(f['distinct_states'] for f in figures):,} states, "
        f"{total:.1f} s in all (load average {os.getloadavg()[0]:.1f})"
    )
    print(
        json.dumps(
            {
                "benchmark": "scenarios",
                "bounds": "fast" if args.fast else "default",
                "variants": figures,
                "total_seconds": round(total, 2),
                "mismatches": mismatches,
                "load_average": round(os.getloadavg()[0], 2),
            }
        )
    )
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
