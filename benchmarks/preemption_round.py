"""Benchmark: seconds per ``edit_schedule`` round on synthetic clusters of three sizes.

Run as ``.venv/bin/python benchmarks/preemption_round.py`` (``--help`` for options). Each size
is a three-level queue tree with equal capacities on one exclusive partition. Every other leaf
uses 120% of its guarantee, the rest 50% with 60% of their guarantee pending, so the ideal
allocation asks for about 10% of the cluster back (docs/preemption.md, steps 3b and 3c); the
settings are the test harnesses' (per-round total and natural termination 1.0, kill wait 10 s), so the whole
10% is selected in the first round. Cluster built deterministically from a seed with the
shared builder :func:`yarnspec.checks.suites.strategies.build_snapshot`.

Prints one line per size (containers, leaves, nodes, median seconds per round over several
rounds with an advancing clock, peak memory of one round, containers selected) and, as its
LAST line, one JSON object with the same figures. ``--profile`` adds the cProfile hot spots of
one round at the largest size.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import resource
import statistics
import sys
import time
import tracemalloc
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.suites.strategies import QueueShape, build_snapshot
from yarnspec.impl.calculator import DefaultCalculator
from yarnspec.impl.cluster import ROOT, Application, ClusterSnapshot, Container, ContainerId, Node
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import PolicyState, RoundResult
from yarnspec.impl.resources import Resource


@dataclass(frozen=True)
class Size:
    """One benchmark size: the queue fan-out per level (three levels), nodes, containers."""

    name: str
    fanout: tuple[int, int, int]
    nodes: int
    containers: int
    rounds: int

    @property
    def leaves(self) -> int:
        """Leaf queues: the product of the fan-outs."""
        return self.fanout[0] * self.fanout[1] * self.fanout[2]


SIZES = (
    Size("small", (2, 2, 5), nodes=25, containers=1_000, rounds=7),
    Size("medium", (4, 5, 10), nodes=500, containers=20_000, rounds=5),
    Size("large", (10, 10, 10), nodes=5_000, containers=200_000, rounds=3),
)

CONFIG = PreemptionConfig(
    total_preemption_per_round=1.0, natural_termination_factor=1.0, max_wait_before_kill_ms=10_000
)
MB_PER_UNIT = 1024
#: Container sizes in units of 1024 MB with their weights (mean 2 units), vcores 1 or 2.
CONTAINER_UNITS = ((1, 4), (2, 4), (4, 2))
OVER, UNDER, UNDER_PENDING = 1.2, 0.5, 0.6
FILL = 0.85


def build_cluster(size: Size, seed: int = 7) -> ClusterSnapshot:
    """The synthetic cluster of one size, identical for the same seed."""
    rng = random.Random(seed)
    mean_units = sum(u * w for u, w in CONTAINER_UNITS) / sum(w for _, w in CONTAINER_UNITS)
    node_units = int(size.containers * mean_units / FILL / size.nodes) + 1
    nodes = [
        Node(f"n{i:05d}", "", Resource.of(node_units * MB_PER_UNIT, 2 * node_units), rack=f"/r{i // 40}")
        for i in range(size.nodes)
    ]
    cluster_units = node_units * size.nodes

    shapes, leaves = _queue_tree(size.fanout)
    guarantee_units = cluster_units / len(leaves)
    # Container counts per leaf in proportion to the target use (OVER or UNDER x guarantee).
    targets = [OVER if i % 2 == 0 else UNDER for i in range(len(leaves))]
    per_target = size.containers / sum(targets)
    apps: list[Application] = []
    containers: list[Container] = []
    demand: dict[tuple[str, str], Resource] = {}
    free = [node_units] * size.nodes
    cursor = 0
    for index, leaf in enumerate(leaves):
        count = round(targets[index] * per_target)
        if targets[index] == UNDER:
            pending = int(UNDER_PENDING * guarantee_units)
            demand[(leaf, "")] = Resource.of(pending * MB_PER_UNIT, pending)
        app_ids = [len(apps) + k + 1 for k in range(4)]
        apps.extend(Application(app_id, leaf, priority=0) for app_id in app_ids)
        numbers = dict.fromkeys(app_ids, 0)
        for k in range(count):
            app_id = app_ids[k % len(app_ids)]
            units = rng.choices([u for u, _ in CONTAINER_UNITS], weights=[w for _, w in CONTAINER_UNITS])[0]
            while free[cursor] < units:
                cursor = (cursor + 1) % size.nodes
            free[cursor] -= units
            numbers[app_id] += 1
            is_am = numbers[app_id] == 1
            containers.append(
                Container(
                    ContainerId(app_id, numbers[app_id]),
                    leaf,
                    nodes[cursor].node_id,
                    Resource.of(units * MB_PER_UNIT, 1 if units < 4 else 2),
                    priority=0 if is_am else rng.randint(1, 3),
                    is_am=is_am,
                )
            )
    return build_snapshot([("", True)], nodes, shapes, apps, containers, demand)


def _queue_tree(fanout: tuple[int, int, int]) -> tuple[list[QueueShape], list[str]]:
    """Root and three levels with equal capacities (the last child takes the rounding rest)."""
    shapes: list[QueueShape] = []
    leaves: list[str] = []

    def split(count: int) -> list[int]:
        share = 100 // count
        return [share] * (count - 1) + [100 - share * (count - 1)]

    def grow(path: str, depth: int, capacity: int) -> None:
        if depth == len(fanout):
            shapes.append(QueueShape(path, capacity={"": capacity}))
            leaves.append(path)
            return
        children = tuple(f"{path}.q{depth + 1}_{i}" for i in range(fanout[depth]))
        shapes.append(QueueShape(path, children=children, capacity={"": capacity}))
        for child, share in zip(children, split(len(children))):
            grow(child, depth + 1, share)

    grow(ROOT, 0, 100)
    return shapes, leaves


@dataclass(frozen=True)
class Measurement:
    """The figures of one size."""

    size: str
    containers: int
    leaves: int
    nodes: int
    rounds: int
    median_seconds: float
    min_seconds: float
    round_peak_mb: float
    selected_first_round: int
    build_seconds: float


def measure(size: Size, seed: int) -> Measurement:
    """Build the cluster, time ``size.rounds`` rounds 3 s apart, then one round under tracemalloc."""
    started = time.perf_counter()
    snapshot = build_cluster(size, seed)
    built = time.perf_counter() - started
    calc = DefaultCalculator()
    state = PolicyState()
    seconds: list[float] = []
    first: RoundResult | None = None
    for index in range(size.rounds):
        began = time.perf_counter()
        result = edit_schedule(snapshot, CONFIG, calc, index * CONFIG.monitoring_interval_ms, state)
        seconds.append(time.perf_counter() - began)
        first = first or result
        state = result.state
    tracemalloc.start()
    edit_schedule(snapshot, CONFIG, calc, 0, PolicyState())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return Measurement(
        size=size.name,
        containers=len(snapshot.containers),
        leaves=len(snapshot.leaves),
        nodes=len(snapshot.nodes),
        rounds=size.rounds,
        median_seconds=statistics.median(seconds),
        min_seconds=min(seconds),
        round_peak_mb=peak / 2**20,
        selected_first_round=len(first.selected) if first else 0,
        build_seconds=built,
    )


def profile(size: Size, seed: int, top: int = 25) -> str:
    """cProfile of one round at ``size``: the ``top`` functions by own time."""
    snapshot = build_cluster(size, seed)
    profiler = cProfile.Profile()
    profiler.enable()
    edit_schedule(snapshot, CONFIG, DefaultCalculator(), 0, PolicyState())
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; the last line printed is the JSON summary."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(s.name for s in SIZES), help="comma-separated: small,medium,large")
    parser.add_argument("--seed", type=int, default=7, help="seed of the synthetic clusters (default 7)")
    parser.add_argument("--profile", action="store_true", help="also print cProfile hot spots of the largest size")
    args = parser.parse_args(argv)
    by_name = {s.name: s for s in SIZES}
    wanted = [name.strip() for name in args.sizes.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in by_name]
    if unknown or not wanted:
        parser.error(f"--sizes: unknown size {', '.join(unknown) or '(none given)'}; choose from {', '.join(by_name)}")
    measurements = []
    print(
        f"{'size':<8}{'containers':>11}{'leaves':>8}{'nodes':>7}{'s/round (median)':>18}{'peak MB':>9}{'selected':>10}"
    )
    for name in wanted:
        m = measure(by_name[name], args.seed)
        measurements.append(m)
        print(
            f"{m.size:<8}{m.containers:>11}{m.leaves:>8}{m.nodes:>7}{m.median_seconds:>18.4f}"
            f"{m.round_peak_mb:>9.1f}{m.selected_first_round:>10}"
        )
    if args.profile:
        print(profile(by_name[wanted[-1]], args.seed))
    per_k = [m.median_seconds / m.containers * 1000 for m in measurements]
    summary: dict[str, Any] = {
        "benchmark": "preemption_round",
        "config": "total_preemption_per_round=1.0 natural_termination_factor=1.0 (test harness settings)",
        "sizes": [m.__dict__ for m in measurements],
        "ms_per_1k_containers": [round(x * 1000, 3) for x in per_k],
        "process_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
