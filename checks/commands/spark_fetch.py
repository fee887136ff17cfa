"""``yarnspec spark-fetch [VERSION]``: download Spark's jars (PyPI's ``pyspark`` source
distribution, about 430 MB) into the cache, compile yarnspec's adapter against them, and print
where both are and how long each part took. Nothing to do when both are there already."""

from __future__ import annotations

import argparse
from pathlib import Path

from yarnspec.checks.validate.spark.adapter import DEFAULT_VERSION, fetch_and_compile, spark_process_command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument(
        "version", nargs="?", default=DEFAULT_VERSION, help=f"Spark release (default {DEFAULT_VERSION})"
    )
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="cache folder (default ~/.cache/yarnspec/spark/VERSION)"
    )


def run(args: argparse.Namespace) -> int:
    """Fetch, compile, report; an :class:`InputError` (no JDK, no such release) propagates."""
    report = fetch_and_compile(args.version, args.cache_dir)
    install = report.install
    print(f"jars:    {install.jars_dir} ({report.fetch_seconds:.1f} s)")
    print(f"adapter: {install.classes_dir} ({report.compile_seconds:.1f} s)")
    print("command: " + " ".join(spark_process_command(args.version, args.cache_dir)))
    return 0
