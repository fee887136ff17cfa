"""The docs show real output: every ```console block in ``docs/*.md`` that starts with
``$ yarnspec ...`` is re-run here and must print what the page shows. Each command runs in a
temporary folder laid out as the project root (links to its entries, and ``../shared``), so a
command that writes a file by a relative name, such as ``--trace-out livelock.json``, writes it
there and not into the tree. Output is compared by structure rather than timings: decimal
numbers (seconds, memory) and rates are masked, and runs of spaces or of a table's dashes count
as one, since a timing of another width moves a table's columns on a loaded machine. Counts
(states, steps) stay exact. A non-zero exit is shown as a last line ``[exit N]``.

After a deliberate change of output, refresh the pages with
``.venv/bin/python tests/test_guide.py --update``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DOCS = PROJECT_ROOT / "docs"
BLOCK = re.compile(r"```console\n\$ (yarnspec [^\n]*)\n(.*?)```", re.S)
DECIMAL = re.compile(r"\d+\.\d+")
#: figures that change from run to run although they are whole numbers
RATE = re.compile(r"[\d,]+ states/s")
#: a table's padding and rules, which follow the widest (timing) cell
PADDING = re.compile(r"[ \t]+")
RULE = re.compile(r"-{2,}")


@contextlib.contextmanager
def _project_layout() -> Iterator[Path]:
    """A temporary folder laid out as the project root is seen by the docs' commands: a link to
    each entry of the root (``docs/``, ``checks/``, ...), and ``../shared`` beside it linked to the
    shared folder. A file a command writes by a relative name lands in the temporary folder."""
    with tempfile.TemporaryDirectory(prefix="yarnspec-docs-") as scratch:
        root = Path(scratch) / PROJECT_ROOT.name
        root.mkdir()
        for entry in PROJECT_ROOT.iterdir():
            if entry.name not in (".git", ".venv"):
                (root / entry.name).symlink_to(entry)
        shared = PROJECT_ROOT.parent / "shared"
        if shared.exists():
            (Path(scratch) / "shared").symlink_to(shared)
        yield root


def render(command: str) -> str:
    """Run one ``yarnspec ...`` command line in-process from a temporary copy of the project
    root's layout (:func:`_project_layout`); its stdout and stderr as the guide shows them."""
    from yarnspec.checks.cli import main

    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    with _project_layout() as root:
        os.chdir(root)
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
    masked = DECIMAL.sub("N.N", RATE.sub("N states/s", text))
    return "\n".join(PADDING.sub(" ", RULE.sub("--", line)).rstrip() for line in masked.rstrip().splitlines())


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _blocks() -> list[tuple[str, str, str]]:
    return [
        (page.name, command, shown)
        for page in _pages()
        for command, shown in BLOCK.findall(page.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("page, command, shown", _blocks(), ids=[f"{p}: {c}" for p, c, _ in _blocks()])
def test_docs_output_is_real(page: str, command: str, shown: str) -> None:
    assert _mask(render(command)) == _mask(shown)


def test_the_guide_has_examples() -> None:
    assert any(page == "guide.md" for page, _, _ in _blocks())


def test_guide_covers_every_subcommand() -> None:
    from yarnspec.checks.cli import build_parser

    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices  # type: ignore[union-attr]
    documented = {command.split()[1] for _, command, _ in _blocks()}
    assert set(choices) <= documented


def _update(names: list[str]) -> None:
    for page in _pages():
        if names and page.name not in names:
            continue
        text = page.read_text(encoding="utf-8")
        new = BLOCK.sub(lambda m: f"```console\n$ {m.group(1)}\n{render(m.group(1))}```", text)
        if new != text:
            page.write_text(new, encoding="utf-8")


if __name__ == "__main__" and "--update" in sys.argv:
    # ``--update [PAGE.md ...]``: refresh the named pages, or every page
    _update([a for a in sys.argv[1:] if a.endswith(".md")])
