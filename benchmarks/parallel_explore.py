"""One worker against ``--workers N`` on the same exhaustive run, measured side by side.

By default the world is ``async-double-commit --variant yarn-8127`` with symmetry (11,082
states): big enough for the workers to pay for their start, small enough for a minute or two.
``--full`` runs issue 14's ``no-leak --exhaustive`` (256,323 states; many minutes with one
worker on a shared two-core machine). Prints each run's figures, whether the counts agree and
the measured speed-up (wall clock, one run each, worker start-up included), then one JSON line.

    python benchmarks/parallel_explore.py [--workers 2] [--full]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from yarnspec.checks.explore import explore
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.parallel import explore_partitioned

SMALL = "async-double-commit/yarn-8127"
FULL = "no-leak/yarn-8127"


def main() -> None:
    """Run both and print the comparison."""
    parser = argparse.ArgumentParser(description="one worker against N on one exhaustive run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="no-leak --exhaustive (256,323 states)")
    args = parser.parse_args()
    world = FULL if args.full else SMALL
    source = ModelSource("yarnspec.spec.scenarios:scenario_model", {"world": world})
    started = time.perf_counter()
    one = explore(source.build(), symmetry=True, check_progress=False, show_progress=False)
    one_seconds = time.perf_counter() - started
    started = time.perf_counter()
    many = explore_partitioned(source, workers=args.workers, symmetry=True, show_progress=False)
    many_seconds = time.perf_counter() - started
    figures = [(r.stats.distinct_states, r.stats.transitions, r.stats.depth, r.verdict.status) for r in (one, many)]
    print(f"{world} exhaustive, symmetry on, {os.cpu_count()} CPUs (shared)")
    for label, (states, transitions, depth, verdict), seconds, cpu in (
        ("1 worker", figures[0], one_seconds, one.stats.cpu_seconds),
        (f"{args.workers} workers", figures[1], many_seconds, many.stats.cpu_seconds),
    ):
        print(f"  {label:<10} {states:,} states, {transitions:,} transitions, depth {depth}, {verdict}, "
              f"{seconds:.1f} s wall, {cpu:.1f} s CPU")  # fmt: skip
    speedup = one_seconds / many_seconds
    print(f"  counts agree: {figures[0] == figures[1]}; speed-up {speedup:.2f}x (wall clock, one run each)")
    print(json.dumps({
        "benchmark": "parallel_explore", "world": world, "workers": args.workers,
        "one_worker": {"states": figures[0][0], "transitions": figures[0][1], "depth": figures[0][2], "seconds": round(one_seconds, 3)},
        "parallel": {"states": figures[1][0], "transitions": figures[1][1], "depth": figures[1][2], "seconds": round(many_seconds, 3)},
        "counts_agree": figures[0] == figures[1], "speedup": round(speedup, 3),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
