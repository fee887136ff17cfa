"""Traces: the JSON round trip, replay (and tampered traces rejected naming the step), bad
trace files, the emitted pytest file, and the live progress line."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.explore import ReplayError, Trace, emit_test, explore, replay
from yarnspec.checks.explore.progress import ProgressLine
from yarnspec.checks.explore.table import TableModel
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.impl.errors import InputError

MESSAGE = "n0: used is 2 but 1 app(s) hold it"


def broken() -> ToyModel:
    return ToyModel(2, 3, 2, variant="broken-release")


def counterexample() -> Trace:
    trace = explore(broken(), check_progress=False).violation
    assert trace is not None
    return trace


def lasso_model() -> TableModel:
    progress = [{"name": "granted", "premise": [1], "goal": [2], "fair": ["sched", "mon"]}]
    edges = [[0, "request", "env", 1], [1, "wait", "env", 3], [3, "back", "mon", 1], [1, "grant", "sched", 2]]
    return TableModel([0], edges, progress=progress)


def lasso() -> Trace:
    (result,) = explore(lasso_model(), deadlock=False).properties
    assert result.counterexample is not None
    return result.counterexample


def test_json_round_trip(tmp_path: Path) -> None:
    for trace in (counterexample(), lasso()):
        assert Trace.from_json(json.loads(trace.dumps())) == trace
        assert Trace.load(trace.save(tmp_path / "trace.json")) == trace


def test_trace_holds_model_identity_and_readable_steps() -> None:
    data = counterexample().to_json()
    assert (data["model"], data["variant"], data["parameters"]) == (
        "toy-allocate-release",
        "broken-release",
        {"nodes": 2, "apps": 3, "capacity": 2},
    )
    actions = [step["action"] for step in data["steps"]]
    assert actions == [None, "allocate(a0, n0)", "allocate(a1, n0)", "release(a0, n0)"]
    assert data["steps"][-1]["state"]["n0"] == {"used": 2, "holders": ["a1"]}
    text = counterexample().format()
    assert text.splitlines()[0] == f"counterexample: invariant used-matches-holders violated: {MESSAGE}"
    # the last step shows only what changed: the holder went, the used figure stayed (the bug)
    assert text.splitlines()[-2:] == ["    3   release(a0, n0)", "          n0: holders -a0"]
    assert lasso().format().splitlines()[-1] == "  then back to step 1: steps 2..3 repeat for ever"


def test_replay_reproduces_each_kind() -> None:
    assert replay(broken(), counterexample()) == f"invariant used-matches-holders violated at step 3: {MESSAGE}"
    assert replay(lasso_model(), lasso()).startswith("progress granted violated: triggered at step 1")
    deadlock = explore(TableModel([0], [[0, "a", "x", 1]])).violation
    assert deadlock is not None and replay(TableModel([0], [[0, "a", "x", 1]]), deadlock) == "deadlock at step 1"


def tampered(trace: Trace, change: Any) -> Trace:
    data = copy.deepcopy(trace.to_json())
    change(data)
    return Trace.from_json(data)


def set_in(data: Any, path: list[Any], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


@pytest.mark.parametrize(
    "path, value, place, fragment",
    [
        (["steps", 2, "action"], "allocate(a0, n0)", "steps[2].action", "allocate(a0, n0) is not enabled after step 1"),
        (["steps", 2, "action"], "allocate(a1, n1)", "steps[2].state", "allocate(a1, n1) leads to"),
        (["steps", 3, "state", "n0", "used"], 1, "steps[3].state", "release(a0, n0) leads to"),
        (["steps", 0, "state", "n1", "used"], 1, "steps[0].state", "not an initial state"),
        (["variant"], "correct", "variant", "the trace is for 'correct'"),
        (["parameters", "apps"], 4, "parameters", "the trace is for"),
        (["property"], "no-such", "property", "no invariant named 'no-such'"),
    ],
)
def test_tampered_trace_is_rejected_naming_the_step(path: list[Any], value: Any, place: str, fragment: str) -> None:
    trace = tampered(counterexample(), lambda data: set_in(data, path, value))
    with pytest.raises(ReplayError) as caught:
        replay(broken(), trace)
    assert caught.value.place == place
    assert fragment in caught.value.fault
    assert isinstance(caught.value, InputError)


def test_a_trace_whose_violation_no_longer_happens_is_rejected() -> None:
    shortened = tampered(counterexample(), lambda data: data["steps"].pop())
    with pytest.raises(ReplayError) as caught:
        replay(broken(), shortened)
    assert caught.value.place == "steps[2]" and "holds here" in caught.value.fault


def test_tampered_lassos_are_rejected() -> None:
    unclosed = tampered(lasso(), lambda data: set_in(data, ["loop_start"], 0))
    with pytest.raises(ReplayError, match="loop does not close"):
        replay(lasso_model(), unclosed)
    # a loop 1 -> 3 -> 1 where sched is enabled in 3 too: the same lasso is now unfair
    edges = lasso_model().parameters["edges"] + [[3, "grant", "sched", 2]]
    unfair_model = TableModel([0], edges, progress=lasso_model().parameters["progress"])
    moved = tampered(lasso(), lambda data: set_in(data, ["parameters"], dict(unfair_model.parameters)))
    with pytest.raises(ReplayError, match="unfair loop: sched is enabled throughout steps 1..3 and never taken"):
        replay(unfair_model, moved)


@pytest.mark.parametrize(
    "change, place",
    [
        (lambda d: d.pop("model"), "model"),
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d.update(kind="liveness"), "kind"),
        (lambda d: d.update(steps=[]), "steps"),
        (lambda d: d["steps"][1].update(action=3), "steps[1].action"),
        (lambda d: d["steps"][0].update(action="go"), "steps[0].action"),
        (lambda d: d["steps"][1].pop("state"), "steps[1]"),
        (lambda d: d.update(loop_start=0), "loop_start"),
        (lambda d: d.update(loop_start=99), "loop_start"),
        (lambda d: d.update(parameters=[]), "parameters"),
    ],
)
def test_malformed_trace_names_the_place(change: Any, place: str) -> None:
    data = copy.deepcopy(counterexample().to_json())
    change(data)
    with pytest.raises(InputError) as caught:
        Trace.from_json(data, "t.json")
    assert caught.value.place == place and caught.value.source == "t.json"


def test_unreadable_trace_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing.json: no such file"):
        Trace.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  oops", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        Trace.load(bad)
    assert caught.value.place == "line 2 column 3"


def run_pytest(path: Path) -> subprocess.CompletedProcess[str]:
    (path.parent / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path.parent,
    )


def test_emitted_tests_run_and_pass(tmp_path: Path) -> None:
    first = emit_test(counterexample(), tmp_path / "test_toy_trace.py", "yarnspec.checks.explore.toy:ToyModel")
    second = emit_test(lasso(), tmp_path / "test_lasso_trace.py", "yarnspec.checks.explore.table:TableModel")
    assert "def test_buggy_variant_still_shows_the_counterexample()" in first.read_text(encoding="utf-8")
    outcome = run_pytest(tmp_path)
    assert outcome.returncode == 0, outcome.stdout + outcome.stderr
    assert "2 passed" in outcome.stdout
    assert second.exists()


def test_emitted_test_fails_once_the_behaviour_changes(tmp_path: Path) -> None:
    trace = tampered(counterexample(), lambda data: set_in(data, ["steps", 3, "state", "n0", "used"], 1))
    path = emit_test(trace, tmp_path / "test_changed.py", "yarnspec.checks.explore.toy:ToyModel")
    outcome = run_pytest(path)
    assert outcome.returncode == 1
    assert "steps[3].state: release(a0, n0) leads to" in outcome.stdout


def test_emit_test_checks_the_factory(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        emit_test(counterexample(), tmp_path / "test_x.py", "ToyModel")
    assert caught.value.place == "factory"


# -- the progress line --------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_redraws_at_most_once_per_interval() -> None:
    stream, clock = io.StringIO(), FakeClock()
    line = ProgressLine(stream, enabled=True, interval=0.5, clock=clock)
    clock.now = 2.0
    line.update(1000, 3, 250)
    line.update(2000, 4, 10)  # too soon: not drawn
    clock.now = 4.0
    line.update(4000, 5, 20)
    drawn = stream.getvalue().split("\r")[1:]
    assert drawn == [
        "explore: 1,000 states, depth 3, frontier 250, 500 states/s",
        "explore: 4,000 states, depth 5, frontier 20, 1,000 states/s",
    ]
    line.close()
    assert stream.getvalue().endswith("\r" + " " * len(drawn[-1]) + "\r")


def test_progress_line_is_off_when_not_a_terminal_or_asked() -> None:
    for line in (ProgressLine(io.StringIO()), ProgressLine(io.StringIO(), enabled=False)):
        line.update(10, 1, 1)
        line.close()
        assert isinstance(line.stream, io.StringIO) and line.stream.getvalue() == ""


def test_explore_draws_progress_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    explore(ToyModel(4, 3, 2), check_progress=False, show_progress=True)
    err = capsys.readouterr().err
    assert "explore: " in err and "states/s" in err and err.endswith("\r")
