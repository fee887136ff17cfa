"""Mutation score of ``yarnspec validate``: every mutant under ``tests/validate/mutants`` is
validated (all phases: conformance cases, differential, invariants, model-based), then again
with the generated phases only (no conformance cases), to show what the generators find on
their own.

Run: ``.venv/bin/python benchmarks/mutants.py [--examples N] [--seed S] [--family CONTRACT]...``. Prints one line per
mutant (the phase that caught it first, or MISSED), then the scores, then, as the last line,
one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "validate"))

from mutants import candidate_selector, dispatch, node_sorting, placement, preemption, scheduler  # noqa: E402

from yarnspec.checks.validate.families import family_of  # noqa: E402
from yarnspec.checks.validate.python_adapter import PythonAdapter  # noqa: E402
from yarnspec.checks.validate.run import Options, run_phases  # noqa: E402
from yarnspec.spec.contracts import contract_named  # noqa: E402

FAMILIES = {
    "spark-placement": placement.MUTANTS,
    "spark-dispatch": dispatch.MUTANTS,
    "preemption-round": preemption.MUTANTS,
    "candidate-selector": candidate_selector.MUTANTS,
    "node-sorting": node_sorting.MUTANTS,
    "scheduler": scheduler.MUTANTS,
}


def caught_by(contract_name: str, mutant: type, options: Options) -> str | None:
    """The phase whose finding came first, or ``None`` if the mutant passed."""
    contract = contract_named(contract_name)
    phases = run_phases(contract, family_of(contract_name), PythonAdapter(mutant, contract, mutant.__name__), options)
    return next((phase.name for phase in phases if phase.findings), None)


def main() -> int:
    """Run every mutant twice and print the scores."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--family", action="append", choices=sorted(FAMILIES), help="only these contracts (repeatable; default: all)"
    )
    args = parser.parse_args()
    figures: dict[str, object] = {"examples": args.examples, "seed": args.seed}
    started = time.perf_counter()
    totals = {"all": 0, "generated_only": 0}
    count = 0
    chosen = {name: mutants for name, mutants in FAMILIES.items() if not args.family or name in args.family}
    for contract, mutants in chosen.items():
        per_family = {"all": 0, "generated_only": 0}
        for mutant in mutants:
            count += 1
            first = caught_by(contract, mutant, Options(None, args.examples, args.seed))
            generated = caught_by(contract, mutant, Options([], args.examples, args.seed))
            per_family["all"] += first is not None
            per_family["generated_only"] += generated is not None
            print(
                f"{contract:<18} {mutant.__name__:<26} all phases: {first or 'MISSED':<12} generated only: {generated or 'MISSED'}"
            )
        figures[contract] = {"mutants": len(mutants), **per_family}
        for key in totals:
            totals[key] += per_family[key]
    figures["mutants"] = count
    figures["caught"] = totals["all"]
    figures["caught_generated_only"] = totals["generated_only"]
    figures["score"] = round(totals["all"] / count, 3)
    figures["score_generated_only"] = round(totals["generated_only"] / count, 3)
    figures["seconds"] = round(time.perf_counter() - started, 1)
    print(
        f"mutation score: {totals['all']}/{count} caught with all phases, "
        f"{totals['generated_only']}/{count} by the generated phases alone, in {figures['seconds']} s"
    )
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
