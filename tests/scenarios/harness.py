"""The ``explore`` and ``replay`` sub-commands wired exactly as the snippet proposed for
``checks/cli.py`` does (the same parser class and the same handling of :class:`InputError`),
so the tests run the commands as the ``yarnspec`` program will.

Run as a program (``python tests/scenarios/harness.py explore --list``) it behaves like
``yarnspec`` restricted to the two commands, which the subprocess tests use to see stderr and
exit status as a user would.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
from collections.abc import Sequence

from yarnspec.checks import explore_command, replay_command
from yarnspec.checks.cli import EXIT_USAGE, _Parser
from yarnspec.impl.errors import InputError


def build_parser() -> argparse.ArgumentParser:
    """``yarnspec`` with the ``explore`` and ``replay`` sub-commands."""
    parser = _Parser(prog="yarnspec")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    explore = sub.add_parser("explore", help="explore a named scenario (or --list them)")
    explore_command.add_arguments(explore)
    explore.set_defaults(func=explore_command.run)
    replay = sub.add_parser("replay", help="replay a counterexample trace on its model")
    replay_command.add_arguments(replay)
    replay.set_defaults(func=replay_command.run)
    return parser


def main(argv: Sequence[str]) -> int:
    """Parse and run; an :class:`InputError` is one line on stderr and exit 2, as in ``cli.main``."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except InputError as exc:
        print(f"yarnspec: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return status


def run(*argv: str) -> tuple[int, str, str]:
    """Run in-process: the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
