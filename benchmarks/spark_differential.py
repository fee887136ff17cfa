"""Differential run of yarnspec's Spark model against the real Spark classes.

Seeded random dispatch scenarios (``spark-dispatch``) and placement inputs
(``spark-placement``) go through the real Spark (yarnspec's adapter over the jars of PyPI's
``pyspark`` distribution, fetched and compiled at first use) and through the model; the
script prints how many disagree, tallied by the first differing field, and the first
disagreements shrunk to a few steps as case-like JSON. The last line is one JSON object with
the figures.

Run: ``.venv/bin/python benchmarks/spark_differential.py --scenarios 1000 --placement 1000``.

``--model-root DIR`` takes the model (``impl/``) from another checkout, e.g. a worktree that
fixes it, while this checkout's runner and adapter do the driving::

    .venv/bin/python benchmarks/spark_differential.py --model-root /work/wt-spark-fidelity
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType


class _ModelFrom(importlib.abc.MetaPathFinder):
    """Import ``yarnspec.impl`` (and below) from another checkout's ``impl/`` folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == "yarnspec.impl":
            return importlib.machinery.PathFinder.find_spec(fullname, [str(self.root)])
        return None


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=1000, help="random dispatch scenarios (default 1000)")
    parser.add_argument("--placement", type=int, default=1000, help="random placement inputs (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first scenario (default 0)")
    parser.add_argument("--show", type=int, default=3, help="disagreements to shrink and print (default 3)")
    parser.add_argument("--version", default=None, help="Spark release (default: the adapter's)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="where jars and classes are cached")
    parser.add_argument("--variant", default=None, help="the model's dispatch variant (default: the model's default)")
    parser.add_argument("--model-root", type=Path, default=None, help="take yarnspec's impl/ from this checkout")
    parser.add_argument("--out", type=Path, default=None, help="also write every disagreement (JSON lines) here")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run both differentials and print the report."""
    args = _arguments(argv)
    if args.model_root is not None:
        sys.meta_path.insert(0, _ModelFrom(args.model_root.resolve()))
    from yarnspec.checks.validate.spark import adapter, differential
    from yarnspec.impl import spark as model_package
    from yarnspec.impl.errors import InputError

    version = args.version or adapter.DEFAULT_VERSION
    try:
        command = adapter.spark_process_command(version, args.cache_dir)
    except InputError as exc:
        print(f"spark_differential: error: {exc}", file=sys.stderr)
        return 2
    from yarnspec.checks.validate.spark.model import default_variant

    print(f"model: {Path(model_package.__file__).parent} (variant {args.variant or default_variant()})")
    figures: dict[str, object] = {"spark_version": version, "seed": args.seed}
    if args.scenarios:
        with differential.spark_adapter(command, "spark-dispatch") as process:
            report = differential.run_dispatch(
                differential.SparkDriver(process),
                args.scenarios,
                args.seed,
                args.show,
                lambda: differential.ModelDriver(args.variant),
            )
        print(
            f"spark-dispatch: {report.scenarios} random scenarios ({report.steps} steps, seeds {args.seed}.."
            f"{args.seed + report.scenarios - 1}): {len(report.disagreements)} disagree "
            f"({100 * report.rate:.1f}%), {report.seconds:.1f} s"
        )
        for name, count in report.by_first_difference.most_common():
            print(f"  first difference in {name}: {count}")
        for found in report.disagreements[: args.show]:
            print(json.dumps(found.to_json()))
        if args.out is not None:
            with open(args.out, "w", encoding="utf-8") as out:
                for found in report.disagreements:
                    out.write(json.dumps(found.to_json()) + "\n")
        figures.update(
            dispatch_scenarios=report.scenarios,
            dispatch_steps=report.steps,
            dispatch_disagreements=len(report.disagreements),
            dispatch_rate=round(report.rate, 4),
            dispatch_by_first_difference=dict(report.by_first_difference),
            dispatch_seconds=round(report.seconds, 1),
        )
    if args.placement:
        with differential.spark_adapter(command, "spark-placement") as process:
            placement = differential.run_placement(process, args.placement, args.seed)
        print(
            f"spark-placement: {placement.inputs} random inputs ({placement.ordered} with a meaningful host order): "
            f"{len(placement.node_disagreements)} disagree on nodes, {placement.rack_disagreements} on rack sets, "
            f"{placement.seconds:.1f} s"
        )
        for payload, spark, model in placement.node_disagreements[: args.show]:
            print(json.dumps({"input": payload, "spark": spark, "model": model}))
        figures.update(
            placement_inputs=placement.inputs,
            placement_ordered=placement.ordered,
            placement_node_disagreements=len(placement.node_disagreements),
            placement_rack_disagreements=placement.rack_disagreements,
            placement_seconds=round(placement.seconds, 1),
        )
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
