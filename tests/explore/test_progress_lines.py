"""Progress lines of ``yarnspec explore`` when stderr is not a terminal (issue 26): a plain line
every interval (10 s by default, the first one interval in), naming states, depth, states/s and
the time elapsed. The interval is shortened for the test through ``YARNSPEC_PROGRESS_EVERY``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from yarnspec.checks.commands.explore import DEFAULT_PROGRESS_EVERY
from yarnspec.checks.explore.progress import PROGRESS_EVERY_VARIABLE, log_interval_from_environment

_LINE = re.compile(r"explore: [0-9,]+ states, depth [0-9]+, frontier [0-9,]+, [0-9,]+ states/s, [0-9,]+ s")


def test_a_subprocess_with_a_pipe_for_stderr_gets_progress_lines() -> None:
    environment = dict(os.environ, **{PROGRESS_EVERY_VARIABLE: "0.05"})
    command = [
        str(Path(sys.executable).with_name("yarnspec")),
        "explore",
        "async-double-commit",
        "--max-states",
        "3000",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, env=environment, timeout=300, stdin=subprocess.DEVNULL
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("explore: ")]
    assert lines, done.stderr
    assert all(_LINE.fullmatch(line) for line in lines), lines
    assert "\r" not in done.stderr


def test_the_default_interval_is_ten_seconds() -> None:
    assert DEFAULT_PROGRESS_EVERY == 10


@pytest.mark.parametrize(
    ("value", "expected"), [(None, 10.0), ("0.5", 0.5), ("x", 10.0), ("0", 10.0), ("nan", 10.0), ("-1", 10.0)]
)
def test_the_environment_variable_replaces_the_interval_only_when_it_is_a_positive_number(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: float
) -> None:
    if value is None:
        monkeypatch.delenv(PROGRESS_EVERY_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(PROGRESS_EVERY_VARIABLE, value)
    assert log_interval_from_environment(10.0) == expected
    assert log_interval_from_environment(None) is None
