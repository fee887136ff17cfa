"""docs/guide.md shows real output: every ```console block that starts with ``$ yarnspec ...``
is re-run here (from the project root) and must print what the guide shows, with decimal
numbers (timings) masked. A non-zero exit is shown as a last line ``[exit N]``.

After a deliberate change of output, refresh the guide with
``.venv/bin/python tests/test_guide.py --update``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
GUIDE = PROJECT_ROOT / "docs" / "guide.md"
BLOCK = re.compile(r"```console\n\$ (yarnspec [^\n]*)\n(.*?)```", re.S)
DECIMAL = re.compile(r"\d+\.\d+")
#: figures that change from run to run although they are whole numbers
RATE = re.compile(r"[\d,]+ states/s")


def render(command: str) -> str:
    """Run one ``yarnspec ...`` command line in-process from the project root; its stdout and
    stderr as the guide shows them."""
    from yarnspec.checks.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(PROJECT_ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(shlex.split(command)[1:])
            except SystemExit as exc:
                status = int(exc.code or 0)
    finally:
        os.chdir(cwd)
    text = out.getvalue() + err.getvalue()
    if status:
        text += f"[exit {status}]\n"
    return text


def _mask(text: str) -> str:
    return DECIMAL.sub("N.N", RATE.sub("N states/s", text)).rstrip()


def _blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(GUIDE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("command, shown", _blocks(), ids=[c for c, _ in _blocks()])
def test_guide_output_is_real(command: str, shown: str) -> None:
    assert _mask(render(command)) == _mask(shown)


def test_guide_covers_every_subcommand() -> None:
    from yarnspec.checks.cli import build_parser

    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices  # type: ignore[union-attr]
    documented = {command.split()[1] for command, _ in _blocks()}
    assert set(choices) <= documented


def _update() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    text = BLOCK.sub(lambda m: f"```console\n$ {m.group(1)}\n{render(m.group(1))}```", text)
    GUIDE.write_text(text, encoding="utf-8")


if __name__ == "__main__" and "--update" in sys.argv:
    _update()
