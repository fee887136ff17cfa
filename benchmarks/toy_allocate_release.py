"""Benchmark: explore the full toy model (5 nodes, 4 apps, node capacity 3) without and with
symmetry, and compare the explorer's memory per state with a Python set of tuples.

Run as ``.venv/bin/python benchmarks/toy_allocate_release.py``. Each measurement runs in a fresh
process, so each peak memory figure is its own. Without symmetry the explorer must report
exactly 759,375 states and 14,175,000 transitions (TLC and SPIN agree); with symmetry, the
number of classes of states under renaming nodes and apps, counted here independently by
Burnside's lemma. The exit status is 1 when a count differs. The last line is one JSON object
with every figure.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

from yarnspec.checks.explore import explore
from yarnspec.checks.explore.result import peak_rss_bytes
from yarnspec.checks.explore.toy import ToyModel

NODES, APPS, CAPACITY = 5, 4, 3
EXPECTED_PLAIN = (759_375, 14_175_000)


def symmetry_classes(nodes: int, apps: int, capacity: int) -> int:
    """Classes of states under renaming nodes and apps, by Burnside's lemma: the average over
    every pair of renamings of the number of states they leave unchanged. A state is fixed when
    each cycle of the node renaming carries one set of holders that the app renaming, applied
    once per node of the cycle, maps back onto itself."""
    holder_sets = [frozenset(c) for k in range(min(apps, capacity) + 1) for c in itertools.combinations(range(apps), k)]
    total = 0
    for node_perm in itertools.permutations(range(nodes)):
        cycles, seen = [], set()
        for start in range(nodes):
            length, node = 0, start
            while node not in seen:
                seen.add(node)
                node, length = node_perm[node], length + 1
            if length:
                cycles.append(length)
        for app_perm in itertools.permutations(range(apps)):
            fixed = 1
            for length in cycles:
                count = 0
                for holders in holder_sets:
                    image = holders
                    for _ in range(length):
                        image = frozenset(app_perm[app] for app in image)
                    count += image == holders
                fixed *= count
            total += fixed
    return total // (math.factorial(nodes) * math.factorial(apps))


def measure_explore(symmetry: bool) -> dict[str, object]:
    """Explore the full toy model in this process and return its figures."""
    result = explore(ToyModel(NODES, APPS, CAPACITY), symmetry=symmetry, check_progress=False, show_progress=False)
    figures: dict[str, object] = dict(result.to_json()["stats"])
    figures["verdict"] = result.verdict.text
    return figures


def measure_set_of_tuples() -> dict[str, object]:
    """Every toy state as a tuple of ten small ints (holders bitmask and used per node) in a
    Python set: the baseline a simple explorer would use."""
    fields = [(holders, holders.bit_count()) for holders in range(1 << APPS) if holders.bit_count() <= CAPACITY]
    states = {tuple(value for field in combo for value in field) for combo in itertools.product(fields, repeat=NODES)}
    size = sys.getsizeof(states) + sum(map(sys.getsizeof, states))
    return {
        "states": len(states),
        "bytes": size,
        "bytes_per_state": round(size / len(states), 1),
        "peak_rss_bytes": peak_rss_bytes(),
    }


def in_fresh_process(task: str) -> dict[str, object]:
    """Run ``task`` in a new interpreter and read the JSON it prints."""
    done = subprocess.run([sys.executable, __file__, "--task", task], capture_output=True, text=True, check=True)
    figures: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


TASKS = {
    "plain": lambda: measure_explore(False),
    "symmetry": lambda: measure_explore(True),
    "tuples": measure_set_of_tuples,
}


def main() -> int:
    """Run the three measurements, print a table and the JSON line; 1 when a count is wrong."""
    plain, reduced, tuples = (in_fresh_process(task) for task in ("plain", "symmetry", "tuples"))
    classes = symmetry_classes(NODES, APPS, CAPACITY)
    exact_plain = (plain["distinct_states"], plain["transitions"]) == EXPECTED_PLAIN
    exact_reduced = reduced["distinct_states"] == classes
    print(f"toy model: {NODES} nodes, {APPS} apps, capacity {CAPACITY}")
    print(
        f"{'symmetry':<9}{'distinct':>10}{'transitions':>13}{'seconds':>9}{'CPU s':>7}{'states/s':>10}"
        f"{'peak MiB':>10}{'bytes/state':>13}  expected"
    )
    for name, figures, expected, exact in (
        ("off", plain, "759,375 / 14,175,000", exact_plain),
        ("on", reduced, f"{classes:,} classes (Burnside)", exact_reduced),
    ):
        print(
            f"{name:<9}{figures['distinct_states']:>10,}{figures['transitions']:>13,}{figures['seconds']:>9.2f}"
            f"{figures['cpu_seconds']:>7.2f}"
            f"{figures['states_per_second']:>10,.0f}{figures['peak_rss_bytes'] / 2**20:>10.1f}"  # type: ignore[operator]
            f"{figures['bytes_per_state']:>13.1f}  {expected}: {'exact' if exact else 'MISMATCH'}"
        )
    ratio = plain["bytes_per_state"] / tuples["bytes_per_state"]  # type: ignore[operator]
    print(
        f"baseline: the same {tuples['states']:,} states as a Python set of tuples take {tuples['bytes_per_state']} "
        f"bytes/state; the explorer's store (set of int states plus parent links) takes {ratio:.0%} of that"
    )
    print(
        json.dumps(
            {
                "benchmark": "toy_allocate_release",
                "model": {"nodes": NODES, "apps": APPS, "capacity": CAPACITY},
                "without_symmetry": plain,
                "with_symmetry": reduced,
                "expected_symmetry_classes": classes,
                "exact": exact_plain and exact_reduced,
                "set_of_tuples_bytes_per_state": tuples["bytes_per_state"],
                "store_vs_set_of_tuples": round(ratio, 3),
            }
        )
    )
    return 0 if exact_plain and exact_reduced else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--task":
        print(json.dumps(TASKS[sys.argv[2]]()))
        sys.exit(0)
    sys.exit(main())
