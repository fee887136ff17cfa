"""A campaign of malformed inputs over issue 31's formats: world files, plain snapshots, REST
snapshots, ``mockrm`` cases and every sub-command's numbers.

Each input is a seeded mutation of a real one (``tests/bad_input/format_fuzz.py``), run
in-process through the real entry point with an alarm as the per-input deadline
(``tests/bad_input/fuzz.py`` ``run_cli``), and classified: an answer, one named error line, a
traceback, a hang (the deadline passed), an error over several lines, or one that names neither
the file nor the option. Prints the counts per family, the first bad outcomes, then one JSON
line with every figure.

    .venv/bin/python benchmarks/bad_input_campaign.py --count 500            # a fresh seed
    .venv/bin/python benchmarks/bad_input_campaign.py --count 500 --seed 31 --family world
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from tests.bad_input.format_fuzz import FORMAT_FAMILIES, make_input, seeds_of  # noqa: E402
from tests.bad_input.fuzz import GOOD, run_cli  # noqa: E402


def campaign(family: str, count: int, seed: int, deadline: int, folder: Path) -> tuple[Counter[str], list[str], float]:
    """Run ``count`` inputs of ``family``; the outcome counts, the bad outcomes' details and the
    slowest input's seconds."""
    rng = random.Random(f"{family}:{seed}")
    seeds = seeds_of(family)
    kinds: Counter[str] = Counter()
    bad: list[str] = []
    slowest = 0.0
    for index in range(count):
        made = make_input(family, rng, folder, index, seeds)
        started = time.monotonic()
        outcome = run_cli(made.argv, made.names, seconds=deadline)
        slowest = max(slowest, time.monotonic() - started)
        kinds[outcome.kind] += 1
        if outcome.kind not in GOOD:
            bad.append(outcome.detail[-1500:])
    return kinds, bad, slowest


def main() -> None:
    """Parse the options, run the campaign, print the figures and the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=500, help="inputs per family (default 500)")
    parser.add_argument("--seed", type=int, default=None, help="the seed (default: a fresh one, printed)")
    parser.add_argument(
        "--deadline", type=int, default=60, help="seconds an input may run before it counts as a hang (default 60)"
    )
    parser.add_argument(
        "--family", action="append", choices=FORMAT_FAMILIES, help="run only these families (default: all)"
    )
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    families = args.family or list(FORMAT_FAMILIES)
    print(f"seed {seed}, {args.count} inputs per family, deadline {args.deadline} s", flush=True)
    figures: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for family in families:
            folder = Path(tmp) / family
            folder.mkdir()
            started = time.monotonic()
            kinds, bad, slowest = campaign(family, args.count, seed, args.deadline, folder)
            seconds = time.monotonic() - started
            figures[family] = {"outcomes": dict(kinds), "tracebacks": kinds["traceback"], "hangs": kinds["hang"],
                               "other_bad": len(bad) - kinds["traceback"] - kinds["hang"], "seconds": round(seconds, 1),
                               "slowest_input_seconds": round(slowest, 1)}  # fmt: skip
            print(f"{family:9} {dict(kinds)}  {seconds:.0f} s (slowest input {slowest:.1f} s)", flush=True)
            for detail in bad[:3]:
                print(f"  {detail}", flush=True)
    total = {key: sum(int(f[key]) for f in figures.values()) for key in ("tracebacks", "hangs", "other_bad")}  # type: ignore[call-overload]
    print(
        json.dumps(
            {
                "seed": seed,
                "count_per_family": args.count,
                "deadline_seconds": args.deadline,
                "families": figures,
                **total,
            }
        )
    )


if __name__ == "__main__":
    main()
