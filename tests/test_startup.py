"""The ``yarnspec`` command imports what the sub-command it runs needs, and no more: a safety
run of ``yarnspec explore`` (the run ``benchmarks/tlc_compare.py`` times as a whole process)
loads neither the libraries of other sub-commands (z3, Hypothesis, the validation engine) nor
those it uses only for some runs (networkx for progress properties, Ray and the parallel
search for ``--workers``/``--ray``, jsonschema and the XML parser for users' files);
``yarnspec --help`` loads no sub-command at all. The parser built for one sub-command is the
one every sub-command's parser is part of."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from yarnspec.checks.cli import build_parser, main

#: Modules a safety run of a built-in scenario must not import.
NOT_FOR_A_SAFETY_RUN = (
    "networkx",
    "z3",
    "hypothesis",
    "ray",
    "yarnspec.checks.explore.parallel",
    "yarnspec.checks.symbolic",
    "yarnspec.checks.validate.engine",
    "yarnspec.checks.commands.config",
    # a built-in world is checked against its schema by a test, and its inline keys are plain text:
    # no jsonschema, no XML parser (whose xml.sax.saxutils loads urllib and http)
    "jsonschema",
    "defusedxml",
    "xml.sax.saxutils",
)

#: Prints, after a command line run in-process, its status and which of the named modules it loaded.
PROBE = """
import contextlib, io, json, sys
from yarnspec.checks.cli import main
arguments, names = json.loads(sys.argv[1]), json.loads(sys.argv[2])
with contextlib.redirect_stdout(io.StringIO()):
    try:
        status = main(arguments)
    except SystemExit as exc:
        status = exc.code
print(json.dumps({"status": status, "loaded": [name for name in names if name in sys.modules]}))
"""


def _loaded(arguments: list[str], names: list[str]) -> tuple[object, list[str]]:
    """The exit status of ``yarnspec ARGUMENTS`` in a fresh interpreter and which of ``names``
    it imported."""
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(arguments), json.dumps(names)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    found = json.loads(probe.stdout)
    return found["status"], found["loaded"]


def test_a_safety_run_imports_nothing_it_does_not_use() -> None:
    arguments = ["explore", "async-double-commit", "--variant", "yarn-8127", "--no-symmetry", "--max-states", "20"]
    status, loaded = _loaded(arguments, list(NOT_FOR_A_SAFETY_RUN))
    assert status == 0
    assert loaded == []


def test_help_imports_no_sub_command() -> None:
    modules = [f"yarnspec.checks.commands.{name}" for name in ("explore", "check", "conform", "validate")]
    modules.append("yarnspec.checks.validate")
    status, loaded = _loaded(["--help"], [*modules, "yarnspec.spec.worlds.catalogue", *NOT_FOR_A_SAFETY_RUN])
    assert status == 0
    assert loaded == []


def _choices() -> list[str]:
    """The sub-commands of the full parser."""
    action = next(a for a in build_parser()._actions if a.dest == "command")
    assert isinstance(action.choices, dict)
    return list(action.choices)


@pytest.mark.parametrize("command", _choices())
def test_a_sub_command_built_alone_has_the_options_of_the_full_parser(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``main`` builds only the options of the sub-command named; its help (every option, its
    default, its text) is the full parser's."""
    with pytest.raises(SystemExit) as alone:
        main([command, "--help"])
    shown_alone = capsys.readouterr().out
    with pytest.raises(SystemExit) as full:
        build_parser().parse_args([command, "--help"])
    assert alone.value.code == full.value.code == 0
    assert shown_alone == capsys.readouterr().out
    assert f"usage: yarnspec {command}" in shown_alone
