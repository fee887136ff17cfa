"""``benchmarks/scenarios.py`` runs and ends with one JSON object of the figures it printed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from yarnspec.spec.worlds.catalogue import SCENARIOS

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "scenarios.py"


def test_the_benchmark_prints_rows_and_a_json_last_line() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARK), "--only", "big-container-livelock"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    figures = json.loads(lines[-1])
    assert figures["benchmark"] == "scenarios" and figures["bounds"] == "default" and figures["mismatches"] == 0
    variants = [(f["scenario"], f["variant"]) for f in figures["variants"]]
    assert variants == [("big-container-livelock", v.name) for v in SCENARIOS["big-container-livelock"].variants]
    for f in figures["variants"]:
        assert f["distinct_states"] > 0 and f["matches"] and f["counterexample_steps"] > 0
        row = next(line for line in lines[1:-2] if line.split()[:2] == [f["scenario"], f["variant"]])
        assert f"{f['distinct_states']:,}" in row.split()
    assert lines[-2].startswith(f"{len(variants)} variants, 0 mismatches")
