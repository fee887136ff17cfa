"""Running ``yarnspec`` in-process for the command tests: the real parser and entry point
(``checks/cli.py``), with stdout, stderr and the exit status captured.

Run as a program (``python tests/scenarios/harness.py explore --list``) it is ``yarnspec``
itself, which the subprocess tests use to see stderr and exit status as a user would.
"""

from __future__ import annotations

import contextlib
import io
import sys

from yarnspec.checks.cli import build_parser, main

__all__ = ["build_parser", "main", "run"]


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
