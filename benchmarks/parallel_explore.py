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
  would be about ``N / f``: an estimate, printed as such. The work is not spread quite evenly,
  so a second estimate divides the one-worker CPU by the busiest worker's search CPU plus the
  coordinator's (still leaving out that the workers wait for each other at every level's end).

Then one JSON line.

``--profile`` prints, after each N-worker run, the seconds each process spent per phase
(:mod:`yarnspec.checks.explore.timing`).

    python benchmarks/parallel_explore.py [--workers 2] [--full] [--no-symmetry] [--repeat K] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.explore import ExploreResult, explore
from yarnspec.checks.explore.backends import ProcessBackend
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.parallel import explore_partitioned
from yarnspec.checks.explore.partition import SearchOptions

SMALL = "async-double-commit/yarn-8127"
FULL = "no-leak/yarn-8127"


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Recording(ProcessBackend):
    """Local processes whose figures (each worker's search CPU among them) are kept."""

    figures: list[Any] = []

    def call(self, method: str, arguments: Sequence[tuple[Any, ...] | None]) -> list[Any]:
        """As usual; the answers to ``figures`` are kept."""
        answers = super().call(method, arguments)
        if method == "figures":
            _Recording.figures = answers
        return answers


def _recording(count: int, source: ModelSource, options: SearchOptions) -> ProcessBackend:
    """The backend factory of the N-worker run."""
    return _Recording(count, source, options)


@dataclass
class _Run:
    """One measured run: its result, wall and CPU seconds (all processes), the coordinator's
    CPU and each worker's search CPU (none for one worker)."""

    result: ExploreResult
    seconds: float
    cpu: float
    coordinator_cpu: float = 0.0
    workers_cpu: tuple[float, ...] = ()


def _one_worker(source: ModelSource, symmetry: bool) -> _Run:
    """The one-worker search."""
    started, cpu_started = time.perf_counter(), time.process_time()
    result = explore(source.build(), symmetry=symmetry, check_progress=False, show_progress=False)
    return _Run(result, time.perf_counter() - started, time.process_time() - cpu_started)


def _workers(source: ModelSource, symmetry: bool, workers: int, profile: bool = False) -> _Run:
    """The partitioned search in ``workers`` local processes."""
    children_before = _children_cpu()
    started, cpu_started = time.perf_counter(), time.process_time()
    result = explore_partitioned(
        source, workers=workers, backend=_recording, symmetry=symmetry, show_progress=False, profile=profile
    )
    seconds, coordinator_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    cpu = coordinator_cpu + _children_cpu() - children_before
    return _Run(result, seconds, cpu, coordinator_cpu, tuple(figure[2] for figure in _Recording.figures))


def main() -> None:
    """Run both (``--repeat`` times, alternately; the least CPU of each kept) and print the comparison."""
    parser = argparse.ArgumentParser(description="one worker against N on one exhaustive run")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="no-leak --exhaustive (256,323 states)")
    parser.add_argument(
        "--no-symmetry", dest="symmetry", action="store_false", help="explore without symmetry reduction"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs of each, alternately; the one with the least CPU is kept"
    )
    parser.add_argument("--profile", action="store_true", help="print where each N-worker run spent its time to stderr")
    args = parser.parse_args()
    world = FULL if args.full else SMALL
    source = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": world})
    ones, manys = [], []
    for _ in range(max(1, args.repeat)):
        ones.append(_one_worker(source, args.symmetry))
        manys.append(_workers(source, args.symmetry, args.workers, args.profile))
    first, second = min(ones, key=lambda run: run.cpu), min(manys, key=lambda run: run.cpu)
    one, many = first.result, second.result
    one_seconds, one_cpu = first.seconds, first.cpu
    many_seconds, many_cpu = second.seconds, second.cpu
    coordinator_cpu, workers_cpu = second.coordinator_cpu, second.workers_cpu
    figures = [(r.stats.distinct_states, r.stats.transitions, r.stats.depth, r.verdict.status) for r in (one, many)]
    agree = figures[0] == figures[1]
    print(
        f"{world} exhaustive, symmetry {'on' if args.symmetry else 'off'}, {os.cpu_count()} CPUs (shared; load {os.getloadavg()[0]:.1f}); least CPU of {args.repeat} run(s) each"
    )
    for label, (states, transitions, depth, verdict), seconds, cpu in (
        ("1 worker", figures[0], one_seconds, one_cpu),
        (f"{args.workers} workers", figures[1], many_seconds, many_cpu),
    ):
        print(f"  {label:<10} {states:,} states, {transitions:,} transitions, depth {depth}, {verdict}, "
              f"{seconds:.1f} s wall, {cpu:.1f} s CPU (all processes)")  # fmt: skip
    speedup = one_seconds / many_seconds
    overhead = many_cpu / one_cpu
    estimate = args.workers / overhead
    busiest = max(workers_cpu)
    balanced = one_cpu / (busiest + coordinator_cpu)
    print(f"  counts agree: {agree}")
    print(f"  wall-clock speed-up: {speedup:.2f}x (of the runs kept, on a shared machine)")
    print(f"  CPU overhead factor f: {overhead:.2f} ({args.workers} workers' CPU / one worker's CPU)")
    print(
        f"  workers' search CPU: {', '.join(f'{cpu:.1f}' for cpu in workers_cpu)} s; coordinator {coordinator_cpu:.1f} s"
    )
    print(f"  estimated speed-up on {args.workers} idle cores: {estimate:.2f}x ({args.workers} / f), "
          f"{balanced:.2f}x (one worker's CPU / (busiest worker + coordinator)); estimates, not measurements")  # fmt: skip
    print(json.dumps({
        "benchmark": "parallel_explore", "world": world, "symmetry": args.symmetry, "workers": args.workers, "repeat": args.repeat,
        "one_worker": {"states": figures[0][0], "transitions": figures[0][1], "depth": figures[0][2],
                       "seconds": round(one_seconds, 3), "cpu_seconds": round(one_cpu, 3)},
        "parallel": {"states": figures[1][0], "transitions": figures[1][1], "depth": figures[1][2],
                     "seconds": round(many_seconds, 3), "cpu_seconds": round(many_cpu, 3)},
        "counts_agree": agree, "speedup": round(speedup, 3), "cpu_overhead": round(overhead, 3),
        "workers_cpu_seconds": [round(cpu, 3) for cpu in workers_cpu], "coordinator_cpu_seconds": round(coordinator_cpu, 3),
        "estimated_speedup": round(estimate, 3), "estimated_speedup_busiest": round(balanced, 3),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
