"""The ``yarnspec`` command: one sub-command per job.

Every user error (bad arguments, bad files) ends in one line on stderr naming the file, the
place and the fault, and a non-zero exit; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from yarnspec.impl.errors import InputError

from . import check as check_command
from . import config_command, explore_command, prove_command, replay_command
from .conformance import runner

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"yarnspec: error: {self.prog}: {message}\n")


def _cmd_conform(args: argparse.Namespace) -> int:
    walk = runner.walk_case_files(args.paths)
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
    return EXIT_FAILED if runner.summarise(outcomes).failed else EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    return check_command.run(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    parser = _Parser(prog="yarnspec", description="Model-checked specification of YARN scheduling.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    conform = sub.add_parser("conform", help="replay Hadoop's and Spark's own test cases kept as data")
    conform.add_argument("paths", nargs="+", metavar="PATH", help="case files or folders of them")
    conform.add_argument("--json", action="store_true", help="print one JSON document instead of lines")
    conform.add_argument("-v", "--verbose", action="store_true", help="also print warnings on explanatory keys")
    conform.set_defaults(func=_cmd_conform)

    config = sub.add_parser(
        "config", help="read and validate capacity-scheduler.xml / yarn-site.xml and print the queue tree"
    )
    config_command.add_arguments(config)
    config.set_defaults(func=config_command.run)

    explore = sub.add_parser("explore", help="explore a named scenario (or --list them)")
    explore_command.add_arguments(explore)
    explore.set_defaults(func=explore_command.run)

    replay = sub.add_parser("replay", help="replay a counterexample trace on the model it names")
    replay_command.add_arguments(replay)
    replay.set_defaults(func=replay_command.run)

    prove = sub.add_parser("prove", help="run the z3 proofs of the arithmetic cores (or --list them)")
    prove_command.add_arguments(prove)
    prove.set_defaults(func=prove_command.run)

    check = sub.add_parser("check", help="run every built-in suite and print a table")
    check_command.add_arguments(check)
    check.set_defaults(func=_cmd_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``yarnspec`` console script; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        # a name that is not valid UTF-8 (a surrogate escape) prints escaped, never raises
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except InputError as exc:
        message = str(exc).replace("\r", "\\r").replace("\n", "\\n")  # one error, one line
        print(f"yarnspec: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("yarnspec: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``yarnspec ... | head``): stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    return status


if __name__ == "__main__":
    sys.exit(main())
