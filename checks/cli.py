"""The ``yarnspec`` command: one sub-command per job.

Every user error (bad arguments, bad files) ends in one line on stderr naming the file, the
place and the fault, and a non-zero exit; never a traceback. With ``--json`` that line is a
JSON document too: ``{"error": {"source": ..., "place": ..., "fault": ..., "message": ...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from yarnspec.impl.errors import InputError

from . import check as check_command
from . import config_command, explore_command, preempt_command, prove_command, replay_command, show_command
from .conformance import runner
from .validate.spark import fetch_command as spark_fetch_command
from .validate import command as validate_command
from .paths import BUILTIN_CASES

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit 2."""

    #: errors as JSON (the command line asks for ``--json``): :class:`_JSONParser`
    json_errors = False

    def error(self, message: str) -> None:  # type: ignore[override]
        if self.json_errors:
            self.exit(EXIT_USAGE, _json_error(self.prog, "", message) + "\n")
        self.exit(EXIT_USAGE, f"yarnspec: error: {self.prog}: {message}\n")


class _JSONParser(_Parser):
    """The parser of a command line with ``--json``: a usage error is a JSON document."""

    json_errors = True


def _json_error(source: str, place: str, fault: str) -> str:
    """An error as the one-line JSON document ``--json`` prints on stderr."""
    message = ": ".join(part for part in (source, place, fault) if part)
    return json.dumps({"error": {"source": source, "place": place, "fault": fault, "message": message}})


def version() -> str:
    """The installed distribution's version."""
    try:
        return metadata.version("yarnspec")
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown"


def _cmd_conform(args: argparse.Namespace) -> int:
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
    return EXIT_FAILED if runner.summarise(outcomes).failed else EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    return check_command.run(args)


def build_parser(json_errors: bool = False) -> argparse.ArgumentParser:
    """The argument parser of every sub-command (``json_errors``: usage errors as JSON)."""
    kind = _JSONParser if json_errors else _Parser
    parser = kind(prog="yarnspec", description="Model-checked specification of YARN scheduling.")
    parser.add_argument("--version", action="version", version=f"yarnspec {version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=kind)

    conform = sub.add_parser("conform", help="replay Hadoop's and Spark's own test cases kept as data")
    conform.add_argument("paths", nargs="*", metavar="PATH", help="case files or folders of them")
    conform.add_argument("--builtin", action="store_true", help="also the cases shipped with yarnspec (Hadoop's intra-queue tests)")
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

    show = sub.add_parser("show", help="print a saved trace step by step with what changed; draw it (--html, --dot, --itf)")
    show_command.add_arguments(show)
    show.set_defaults(func=show_command.run)

    preempt = sub.add_parser("preempt", help="explain what the preemption policy would do on a cluster snapshot")
    preempt_command.add_arguments(preempt)
    preempt.set_defaults(func=preempt_command.run)

    prove = sub.add_parser("prove", help="run the z3 proofs of the arithmetic cores (or --list them)")
    prove_command.add_arguments(prove)
    prove.set_defaults(func=prove_command.run)

    check = sub.add_parser("check", help="run every built-in suite and print a table")
    check_command.add_arguments(check)
    check.set_defaults(func=_cmd_check)

    spark_fetch = sub.add_parser("spark-fetch", help="fetch Spark's jars and compile the adapter to the real Spark")
    spark_fetch_command.add_arguments(spark_fetch)
    spark_fetch.set_defaults(func=spark_fetch_command.run)
    validate = sub.add_parser("validate", help="validate another implementation of a contract against the spec")
    validate_command.add_arguments(validate)
    validate.set_defaults(func=validate_command.run)

    validate_trace = sub.add_parser("validate-trace", help="check a log of an implementation's decisions against the spec")
    validate_command.add_trace_arguments(validate_trace)
    validate_trace.set_defaults(func=validate_command.run_trace)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``yarnspec`` console script; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        # a name that is not valid UTF-8 (a surrogate escape) prints escaped, never raises
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    words = list(sys.argv[1:] if argv is None else argv)
    json_errors = "--json" in words
    args = build_parser(json_errors).parse_args(words)
    try:
        status: int = args.func(args)
    except InputError as exc:
        if json_errors:
            print(_json_error(exc.source, exc.place, exc.fault), file=sys.stderr)
        else:
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
