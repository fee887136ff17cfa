"""The README's two commands are the ones CI and users run: keep them true."""

from __future__ import annotations

import re

from .conftest import PROJECT_ROOT


def _readme_commands() -> list[str]:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


#: What the tests need from the system (the viewer's browser test, the DOT test, the JDK that
#: compiles and runs the adapter to the real Spark and the Java example adapter, Go for the Go
#: example adapter), installed from Debian when absent (CI runs
#: as root on a fresh Debian machine).
SYSTEM_PACKAGES = (
    "(command -v chromium >/dev/null && command -v dot >/dev/null && command -v javac >/dev/null && command -v go >/dev/null"
    " || (apt-get update -q && apt-get install -y -q chromium graphviz openjdk-17-jdk-headless golang-go))"
)


def test_readme_has_two_commands_with_the_same_setup() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    check, tests = commands
    assert check.endswith(" && .venv/bin/yarnspec check")
    setup = check.removesuffix(" && .venv/bin/yarnspec check")
    assert tests == f"{SYSTEM_PACKAGES} && {setup} && .venv/bin/pytest", "the tests set up as the main job does, after the system packages"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci
