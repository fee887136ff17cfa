"""The explorer's stops: a time limit (a partial, not refuted result with a note), running out of
memory (one line with the figures reached), and progress log lines when stderr is not a
terminal."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from yarnspec.checks.explore import explore
from yarnspec.checks.explore.bfs import OutOfMemory
from yarnspec.checks.explore.progress import ProgressLine
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.impl.errors import InputError

from ..scenarios.harness import run


class _Exhausting(ToyModel):
    """The toy model, but memory runs out after ``budget`` expansions."""

    def __init__(self, budget: int) -> None:
        super().__init__(3, 3, 2)
        self.budget = budget

    def successors(self, state: int) -> Iterator[tuple[tuple[int, int, int], int]]:
        self.budget -= 1
        if self.budget < 0:
            raise MemoryError
        return super().successors(state)


def test_running_out_of_memory_is_one_line_with_the_figures_reached() -> None:
    with pytest.raises(OutOfMemory) as caught:
        explore(_Exhausting(50), check_progress=False)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("explore: memory ran out after ")
    assert "distinct states, depth" in message and "--max-states" in message
    assert isinstance(caught.value, InputError)  # so the command prints it as one line, exit 2


def test_a_time_limit_gives_a_not_refuted_partial_result_with_a_note() -> None:
    full = explore(ToyModel(2, 3, 2), check_progress=False)
    limited = explore(ToyModel(5, 4, 3), check_progress=False, time_limit=1)
    assert full.verdict.status == "holds"
    assert limited.verdict.status == "not-refuted" and limited.verdict.limit == "time"
    assert limited.verdict.text.startswith("not refuted: the time limit cut the search at depth ")
    assert any("time limit of 1 s" in note for note in limited.notes)
    assert 0 < limited.stats.distinct_states < 15**5


def test_progress_is_a_log_line_every_interval_when_not_a_terminal() -> None:
    stream, now = io.StringIO(), [0.0]
    line = ProgressLine(stream, log_interval=10, clock=lambda: now[0])
    for second in range(0, 35):  # lines at 10, 20 and 30 s, none at the start
        now[0] = float(second)
        line.update(second * 100, 1, 5)
    line.close()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 3 and all(text.startswith("explore: ") and "\r" not in text for text in lines)
    quiet = io.StringIO()
    ProgressLine(quiet).update(1, 1, 1)  # no log interval: nothing on a non-terminal
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("value", ["0", "x", "\u0665", "1.5"])
def test_bad_time_limits_are_one_line(value: str) -> None:
    status, _, err = run("explore", "async-double-commit", "--time-limit", value)
    assert status == 2 and err.count("\n") == 1 and "--time-limit" in err
