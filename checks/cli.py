"""The ``yarnspec`` command: one sub-command per job.

Every user error (bad arguments, bad files) ends in one line on stderr naming the file, the
place and the fault, and a non-zero exit; never a traceback. With ``--json`` that line is a
JSON document too: ``{"error": {"source": ..., "place": ..., "fault": ..., "message": ...}}``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import NamedTuple, NoReturn

from yarnspec.impl.errors import InputError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class _Command(NamedTuple):
    """A sub-command: its name, its one-line help, and where its options and handler are.

    The module is imported only when the parser is built for this sub-command (or for all, as
    tests and the docs' checks do), so ``yarnspec explore`` never loads z3, hypothesis or the
    validation engine, and ``yarnspec --help`` loads none of them."""

    name: str
    help: str
    module: str
    arguments: str = "add_arguments"
    run: str = "run"

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        """Import the module, add its options to ``parser`` and set its handler as ``func``."""
        from yarnspec.checks.commands.number_options import strict_numbers

        module = importlib.import_module(self.module)
        getattr(module, self.arguments)(parser)
        strict_numbers(parser)  # no option reads a number with Python's lenient int() or float()
        parser.set_defaults(func=getattr(module, self.run))


_COMMANDS: tuple[_Command, ...] = (
    _Command("conform", "replay Hadoop's and Spark's own test cases kept as data", "yarnspec.checks.commands.conform"),
    _Command(
        "config",
        "read and validate capacity-scheduler.xml / yarn-site.xml and print the queue tree",
        "yarnspec.checks.commands.config",
    ),
    _Command("explore", "explore a named scenario (or --list them)", "yarnspec.checks.commands.explore"),
    _Command("replay", "replay a counterexample trace on the model it names", "yarnspec.checks.commands.replay"),
    _Command(
        "show",
        "print a saved trace step by step with what changed; draw it (--html, --dot, --itf)",
        "yarnspec.checks.commands.show",
    ),
    _Command(
        "explain",
        "explain a step of a saved trace: what waits and why, the preemption round there, a lasso's loop",
        "yarnspec.checks.commands.explain",
    ),
    _Command(
        "preempt",
        "explain what the preemption policy would do on a cluster snapshot",
        "yarnspec.checks.commands.preempt",
    ),
    _Command("prove", "run the z3 proofs of the arithmetic cores (or --list them)", "yarnspec.checks.commands.prove"),
    _Command("check", "run every built-in suite and print a table", "yarnspec.checks.commands.check"),
    _Command(
        "spark-fetch",
        "fetch Spark's jars and compile the adapter to the real Spark",
        "yarnspec.checks.commands.spark_fetch",
    ),
    _Command(
        "validate",
        "validate another implementation of a contract against the spec",
        "yarnspec.checks.commands.validate",
    ),
    _Command(
        "validate-trace",
        "check a log of an implementation's decisions against the spec",
        "yarnspec.checks.commands.validate",
        arguments="add_trace_arguments",
        run="run_trace",
    ),
)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit 2."""

    #: errors as JSON (the command line asks for ``--json``): :class:`_JSONParser`
    json_errors = False

    def error(self, message: str) -> NoReturn:
        if self.json_errors:
            self.exit(EXIT_USAGE, _json_error(self.prog, "", message) + "\n")
        self.exit(EXIT_USAGE, f"yarnspec: error: {self.prog}: {message}\n")


class _JSONParser(_Parser):
    """The parser of a command line with ``--json``: a usage error is a JSON document."""

    json_errors = True


class _VersionAction(argparse.Action):
    """``--version``: the installed version, looked up only when asked (reading the
    distribution's metadata costs more than the rest of the start-up of ``--help``)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        print(f"yarnspec {version()}")
        parser.exit()


def _json_error(source: str, place: str, fault: str) -> str:
    """An error as the one-line JSON document ``--json`` prints on stderr."""
    message = ": ".join(part for part in (source, place, fault) if part)
    return json.dumps({"error": {"source": source, "place": place, "fault": fault, "message": message}})


def version() -> str:
    """The installed distribution's version."""
    from importlib import metadata

    try:
        return metadata.version("yarnspec")
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown"


def build_parser(json_errors: bool = False, only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every sub-command (``json_errors``: usage errors as JSON).

    With ``only`` (the sub-command a command line names), only that sub-command's options are
    built, so only its module is imported; the others are still listed by ``--help`` and
    accepted as choices."""
    kind = _JSONParser if json_errors else _Parser
    parser = kind(prog="yarnspec", description="Model-checked specification of YARN scheduling.")
    parser.add_argument("--version", action=_VersionAction, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=kind)
    for command in _COMMANDS:
        subparser = sub.add_parser(command.name, help=command.help)
        if only is None or only == command.name:
            command.add_to(subparser)
    return parser


def _command_word(words: Sequence[str]) -> str:
    """The sub-command a command line names: its first word that is not an option (``yarnspec``
    itself has no option taking a value). An unknown word is argparse's error to report."""
    return next((word for word in words if not word.startswith("-")), "")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``yarnspec`` console script; returns the exit status."""
    for stream in (sys.stdout, sys.stderr):
        # a name that is not valid UTF-8 (a surrogate escape) prints escaped, never raises
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    words = list(sys.argv[1:] if argv is None else argv)
    json_errors = "--json" in words
    args = build_parser(json_errors, only=_command_word(words)).parse_args(words)
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
