"""One worker against ``--workers N`` on the same exhaustive run, measured side by side.

By default the world is ``async-double-commit --variant yarn-8127`` with symmetry (11,082
states): big enough for the workers to pay for their start, small enough for a minute or two.
``--full`` runs issue 14's ``no-leak --exhaustive`` (256,323 states; many minutes with one
worker on a shared two-core machine); ``--no-symmetry`` turns symmetry off.

Two figures come out, because a shared machine makes wall-clock time unreliable:

* the **wall-clock speed-up** of N workers over one (one run each, worker start-up included),
  which is only meaningful when N cores are idle;
* the **CPU overhead factor** ``f``: the CPU seconds of every process of the N-worker run (the
  coordinator, and the workers from their start to their exit, read with
  ``getrusage(RUSAGE_CHILDREN)``) divided by the one-worker run's CPU seconds. It hardly
  depends on the machine's load. With N idle cores and the work spread evenly, the speed-up
  would be about ``N / f``: an estimate, printed as such (the workers also wait for each other
  at the end of every level, which it leaves out).

Then one JSON line.

    python benchmarks/parallel_explore.py [--workers 2] [--full] [--no-symmetry]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

from yarnspec.checks.explore import explore
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.parallel import explore_partitioned

SMALL = "async-double-commit/yarn-8127"
FULL = "no-leak/yarn-8127"


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    """Run both and print the comparison."""
    parser = argparse.ArgumentParser(description="one worker against N on one exhaustive run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="no-leak --exhaustive (256,323 states)")
    parser.add_argument("--no-symmetry", dest="symmetry", action="store_false", help="explore without symmetry reduction")
    args = parser.parse_args()
    world = FULL if args.full else SMALL
    source = ModelSource("yarnspec.spec.scenarios:scenario_model", {"world": world})
    started, cpu_started = time.perf_counter(), time.process_time()
    one = explore(source.build(), symmetry=args.symmetry, check_progress=False, show_progress=False)
    one_seconds, one_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    children_before = _children_cpu()
    started, cpu_started = time.perf_counter(), time.process_time()
    many = explore_partitioned(source, workers=args.workers, symmetry=args.symmetry, show_progress=False)
    many_seconds = time.perf_counter() - started
    many_cpu = time.process_time() - cpu_started + _children_cpu() - children_before
    figures = [(r.stats.distinct_states, r.stats.transitions, r.stats.depth, r.verdict.status) for r in (one, many)]
    agree = figures[0] == figures[1]
    print(f"{world} exhaustive, symmetry {'on' if args.symmetry else 'off'}, {os.cpu_count()} CPUs (shared; load {os.getloadavg()[0]:.1f})")
    for label, (states, transitions, depth, verdict), seconds, cpu in (
        ("1 worker", figures[0], one_seconds, one_cpu),
        (f"{args.workers} workers", figures[1], many_seconds, many_cpu),
    ):
        print(f"  {label:<10} {states:,} states, {transitions:,} transitions, depth {depth}, {verdict}, "
              f"{seconds:.1f} s wall, {cpu:.1f} s CPU (all processes)")  # fmt: skip
    speedup = one_seconds / many_seconds
    overhead = many_cpu / one_cpu
    estimate = args.workers / overhead
    print(f"  counts agree: {agree}")
    print(f"  wall-clock speed-up: {speedup:.2f}x (one run each, on a shared machine)")
    print(f"  CPU overhead factor f: {overhead:.2f} ({args.workers} workers' CPU / one worker's CPU)")
    print(f"  estimated speed-up on {args.workers} idle cores: {estimate:.2f}x ({args.workers} / f; an estimate, not a measurement)")
    print(json.dumps({
        "benchmark": "parallel_explore", "world": world, "symmetry": args.symmetry, "workers": args.workers,
        "one_worker": {"states": figures[0][0], "transitions": figures[0][1], "depth": figures[0][2],
                       "seconds": round(one_seconds, 3), "cpu_seconds": round(one_cpu, 3)},
        "parallel": {"states": figures[1][0], "transitions": figures[1][1], "depth": figures[1][2],
                     "seconds": round(many_seconds, 3), "cpu_seconds": round(many_cpu, 3)},
        "counts_agree": agree, "speedup": round(speedup, 3), "cpu_overhead": round(overhead, 3),
        "estimated_speedup": round(estimate, 3),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
