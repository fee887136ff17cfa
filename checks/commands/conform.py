"""``yarnspec conform [PATH...] [--builtin]``: replay Hadoop's and Spark's own test cases kept
as data (:mod:`yarnspec.checks.conformance`) and print one line per case and a summary, or one
JSON document with ``--json``. Exit status 1 when any case failed."""

from __future__ import annotations

import argparse
import json
import sys

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.paths import BUILTIN_CASES
from yarnspec.impl.errors import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument("paths", nargs="*", metavar="PATH", help="case files or folders of them")
    parser.add_argument(
        "--builtin", action="store_true", help="also the cases shipped with yarnspec (Hadoop's intra-queue tests)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of lines")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print warnings on explanatory keys")


def run(args: argparse.Namespace) -> int:
    """Replay the cases; returns the exit status (an :class:`InputError` propagates to the CLI)."""
    paths = [*args.paths, *([BUILTIN_CASES] if args.builtin else [])]
    if not paths:
        raise InputError("<command line>", "conform", "give case files or folders, or --builtin for the shipped cases")
    walk = runner.walk_case_files(paths)
    for skipped in walk.skipped:
        print(f"yarnspec: warning: skipped a folder that cannot be read: {skipped}", file=sys.stderr)
    outcomes = [runner.run_one(path) for path in walk.files]
    if args.json:
        print(json.dumps(runner.to_json(outcomes), indent=2))
    else:
        for outcome in outcomes:
            print(runner.format_line(outcome))
            if args.verbose:
                for warning in outcome.warnings:
                    print(f"            warning: {warning}")
        print(runner.summarise(outcomes).line)
    return 1 if runner.summarise(outcomes).failed else 0
