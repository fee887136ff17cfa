"""The README's two commands are the ones CI and users run: keep them true."""

from __future__ import annotations

import re

from .conftest import PROJECT_ROOT


def _readme_commands() -> list[str]:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_has_two_commands_with_the_same_setup() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    setups = {command.rsplit(" && ", 1)[0] for command in commands}
    assert len(setups) == 1, "both commands must set up the same way"
    assert commands[0].endswith("yarnspec check")
    assert commands[1].endswith("pytest")


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci
