"""Benchmark: the explorer on the scheduler model, this tree against a baseline revision, in one run.

Run as ``.venv/bin/python benchmarks/explorer_speed.py`` (``--baseline REV``, default fa3abb9,
the main of issue 14's start; ``--repeat N`` runs of each, old and new interleaved so that the
load of a shared machine falls on both alike). Two runs are measured:

* ``async-double-commit --variant yarn-8127 --no-symmetry --exhaustive``: the run issue 14
  compares with TLC (33,118 states, 268,724 transitions);
* ``no-leak`` at its default bounds (symmetry on, so canonicalisation counts).

Each run is ``yarnspec explore ... --json`` in a fresh process whose ``PYTHONPATH`` points at a
tree's ``.typecheck`` folder (the links that name ``impl``, ``spec`` and ``checks`` as
``yarnspec.*``, as the package-dir mapping of ``pyproject.toml`` does), so the baseline,
extracted with ``git archive REV``, imports its own code. The figures are the explorer's own
(wall and CPU seconds of the search, distinct states per second) and the process's peak RSS;
the best of the repeats is kept per tree and the ratio is baseline / this tree (above 1:
faster now). Old and new must reach the same states, transitions and verdict, or the exit
status is 1. Prints the table, issue 14's TLC figures for reference (stated, not measured
here), then one JSON line last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BASELINE = "fa3abb9"

RUNS: dict[str, list[str]] = {
    "async-double-commit/yarn-8127 exhaustive, no symmetry": [
        "async-double-commit", "--variant", "yarn-8127", "--no-symmetry", "--exhaustive",
    ],
    "no-leak (default bounds)": ["no-leak"],
}  # fmt: skip

#: Issue 14's figures for the 33,118-state run, measured on this machine when it was filed (under
#: load: idle, TLC's one worker takes 2.4-3.1 s; see ``tlc_compare.py``).
TLC_REFERENCE = {
    "tlc_1_worker_seconds": 7.65,
    "yarnspec_then_seconds": 12.0,
    "tlc_2_workers_speedup_over_yarnspec_then": 2.2,
}


def explore_once(tree: Path, arguments: list[str]) -> dict[str, Any]:
    """One ``yarnspec explore --json`` run of the code in ``tree``: its verdict and statistics."""
    env = dict(os.environ, PYTHONPATH=str(tree / ".typecheck"))
    command = [sys.executable, "-c", "from yarnspec.checks.cli import main; raise SystemExit(main())"]
    done = subprocess.run(
        [*command, "explore", *arguments, "--json"], env=env, cwd=tree, capture_output=True, text=True, timeout=3600
    )
    if not done.stdout.strip():
        raise SystemExit(
            f"explorer_speed: {tree}: explore {' '.join(arguments)} printed nothing: {done.stderr.strip()}"
        )
    document = json.loads(done.stdout)
    stats = document["stats"]
    return {
        "verdict": document["verdict"],
        "distinct_states": stats["distinct_states"],
        "transitions": stats["transitions"],
        "depth": stats["depth"],
        "seconds": stats["seconds"],
        "cpu_seconds": stats["cpu_seconds"],
        "peak_rss_mib": round(stats["peak_rss_bytes"] / 2**20, 1),
    }


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest of several runs of one tree (wall time), with its states per second."""
    fastest = dict(min(runs, key=lambda r: r["seconds"]))
    fastest["states_per_second"] = round(fastest["distinct_states"] / fastest["seconds"], 1)
    fastest["all_seconds"] = [r["seconds"] for r in runs]
    return fastest


def same_counts(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether both trees reached the same states, transitions, depth and verdict."""
    return all(old[k] == new[k] for k in ("verdict", "distinct_states", "transitions", "depth"))


def main() -> int:
    """Extract the baseline, run both trees interleaved, print the figures; 1 on a count mismatch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--baseline", default=DEFAULT_BASELINE, help=f"the revision to compare with (default {DEFAULT_BASELINE})"
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each tree, old and new interleaved (default 1)")
    args = parser.parse_args()
    if args.repeat < 1:
        print("explorer_speed: --repeat: must be at least 1", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="yarnspec-baseline-") as folder:
        old_tree = Path(folder)
        archive = subprocess.run(["git", "archive", args.baseline], cwd=ROOT, capture_output=True)
        if archive.returncode != 0:
            print(f"explorer_speed: --baseline {args.baseline}: {archive.stderr.decode().strip()}", file=sys.stderr)
            return 2
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive.stdout, check=True)
        figures = []
        for title, arguments in RUNS.items():
            old_runs, new_runs = [], []
            for _ in range(args.repeat):
                old_runs.append(explore_once(old_tree, arguments))
                new_runs.append(explore_once(ROOT, arguments))
            old, new = best(old_runs), best(new_runs)
            figures.append(
                {
                    "run": title,
                    "old": old,
                    "new": new,
                    "same_counts": same_counts(old, new),
                    "speedup_wall": round(old["seconds"] / new["seconds"], 2),
                    "speedup_cpu": round(old["cpu_seconds"] / new["cpu_seconds"], 2),
                    "ratio_new_over_old_wall": round(new["seconds"] / old["seconds"], 3),
                }
            )
    report(figures, args.baseline, args.repeat)
    return 0 if all(f["same_counts"] for f in figures) else 1


def report(figures: list[dict[str, Any]], baseline: str, repeat: int) -> None:
    """The human table, the TLC context and the JSON line."""
    print(f"baseline {baseline} against this tree, best of {repeat} interleaved run(s) each\n")
    print(
        f"{'run':<55} {'tree':<8} {'states':>7} {'transitions':>11} {'wall s':>7} {'CPU s':>7} {'states/s':>9} {'RSS MiB':>8}"
    )
    for f in figures:
        for tree in ("old", "new"):
            r = f[tree]
            print(
                f"{f['run']:<55} {tree:<8} {r['distinct_states']:>7,} {r['transitions']:>11,} {r['seconds']:>7.2f} "
                f"{r['cpu_seconds']:>7.2f} {r['states_per_second']:>9,.0f} {r['peak_rss_mib']:>8.1f}"
            )
        counts = "same counts and verdict" if f["same_counts"] else "COUNTS DIFFER"
        print(
            f"{'':<55} new/old wall {f['ratio_new_over_old_wall']:.3f} (speedup {f['speedup_wall']:.2f}x wall, "
            f"{f['speedup_cpu']:.2f}x CPU); {counts}"
        )
    print(
        "\nFor reference (issue 14, stated, not measured here): TLC with 1 worker "
        f"{TLC_REFERENCE['tlc_1_worker_seconds']} s on the 33,118-state run against yarnspec's "
        f"{TLC_REFERENCE['yarnspec_then_seconds']} s then; TLC with 2 workers "
        f"{TLC_REFERENCE['tlc_2_workers_speedup_over_yarnspec_then']}x faster than yarnspec then. Those were measured "
        "on a loaded machine: benchmarks/tlc_compare.py runs TLC and this tree side by side."
    )
    print(
        json.dumps(
            {
                "benchmark": "explorer_speed",
                "baseline": baseline,
                "repeat": repeat,
                "runs": figures,
                "tlc_reference": TLC_REFERENCE,
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
