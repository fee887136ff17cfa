"""``yarnspec explain``: a step of a scheduler trace explained (waiting requests, the policy's
round there) and a lasso's loop in one sentence, also under ``yarnspec explore``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.explore.test_trace import counterexample
from yarnspec.checks import cli
from yarnspec.checks.explain.step_explanation import waiting_requests
from yarnspec.checks.worlds.world_arguments import load_world


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def livelock(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seed 002's lasso under blocked headroom (big-container-livelock, default)."""
    path = tmp_path_factory.mktemp("livelock") / "livelock.json"
    assert cli.main(["explore", "big-container-livelock", "--trace-out", str(path)]) == 0
    return path


def test_the_livelock_loop_is_explained_by_the_reservation(livelock: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explain", str(livelock)], capsys)
    assert status == 0
    loop = next(line for line in out.splitlines() if line.startswith("loop (steps 18..22): "))
    assert (
        "the reservation <2048, 2> counts as root.B's use" in loop and "the policy sees no under-served queue" in loop
    )
    assert "app_B's <2048, 2> request in root.B waits (reserved on n1, where <1024, 1> is free" in loop
    assert "step 18: tick (clock 3000 ms)" in out and "0 marked, 0 killed" in out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("  root")}
    assert rows["root.B"].split()[2:4] == ["3072,3", "3072,3"] and rows["root.B"].endswith("within its guarantee")


def test_a_step_before_the_loop_shows_the_round_that_marks(livelock: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explain", str(livelock), "--step", "11", "--json"], capsys)
    document = json.loads(out)
    assert status == 0 and document["step"] == 11 and document["loop_start"] == 18
    (waiting,) = document["waiting"]
    assert waiting["app"] == "app_B" and "root.B's limit is <2048, 1>" in waiting["why"]
    rows = {row["queue"]: row for row in document["policy"]["queues"]}
    assert rows["root.A"]["to_preempt"] == {"memory": 1024, "vcores": 1} and rows["root.B"]["why"].startswith(
        "under its guarantee"
    )
    assert [(e["event"], e["container"]) for e in document["policy"]["events"]] == [
        ("MARK_CONTAINER_FOR_PREEMPTION", "c2")
    ]


def test_an_allocation_step_gives_the_models_note(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explain", "docs/examples/traces/async-double-commit-pre-8127.json", "--step", "16"], capsys)
    assert status == 0 and "step 16: commit(reserve app1/r1 on n0)" in out and "  the step: committed reserve" in out
    assert "app1 r1 (root.a): 2 x <4096, 1>: reserved on n0, which has room now" in out
    assert "preemption: the world does not run the preemption monitor" in out and "loop" not in out


def test_explore_says_why_a_loop_never_progresses(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explore", "big-container-livelock", "--variant", "pre-4280"], capsys)
    line = next(line for line in out.splitlines() if line.startswith("why the loop never makes progress: "))
    assert (
        status == 0
        and "preemption kills 1 container(s)" in line
        and "app_A takes the freed room back at heartbeat(n2)" in line
    )
    assert out.index("why the loop") < out.index("verdict:")
    status, out, _ = run(["explore", "big-container-livelock", "--json"], capsys)
    assert "counts as root.B's use" in json.loads(out)["loop_reason"]


@pytest.mark.parametrize("step", ["23", "-1", "x"])
def test_a_step_outside_the_trace_is_one_line(livelock: Path, step: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["explain", str(livelock), "--step", step], capsys)
    assert (
        status == 2
        and out == ""
        and err == f"yarnspec: error: explain: --step: expected a step from 0 to 22, got {step!r}\n"
    )


def test_a_trace_without_a_cluster_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toy = counterexample().save(tmp_path / "toy.json")
    status, out, err = run(["explain", str(toy)], capsys)
    assert status == 2 and "explain reads traces of the scheduler model" in err and len(err.splitlines()) == 1


#: One 2-unit node; app1's worker asks for 4 units (the set-up leaves it asking).
TOO_BIG = """
[configuration.properties]
"yarn.scheduler.capacity.root.queues" = "a"
"yarn.scheduler.capacity.root.a.capacity" = 100

[[nodes]]
memory = 2
vcores = 2

[[apps]]
name = "app1"
queue = "a"
am = { memory = 1, vcores = 1 }
requests = [{ priority = 1, memory = 4, vcores = 1 }]

[environment]
setup = ["submit(app1)", "heartbeat(n0)", "launch(c0)", "ask(app1, r1)"]

[[questions]]
property = "invariants"
"""


def test_why_waiting_names_a_request_larger_than_every_node(tmp_path: Path) -> None:
    path = tmp_path / "too-big.toml"
    path.write_text(TOO_BIG, encoding="utf-8")
    scenario = load_world(path).scenario
    model = scenario.model(scenario.variants[0])
    (state,) = model.initial_states()
    (waiting,) = waiting_requests(model.world, state.scheduler)
    assert (waiting.app, waiting.request, waiting.resource.memory) == ("app1", 1, 4096)
    assert waiting.why == "larger than every registered node of its partition: it can never be allocated"
