"""``yarnspec explore`` with --workers, --coverage, --fingerprint: the same verdicts and counts,
clear refusals, and Ctrl-C or the time limit give a partial result, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from yarnspec.checks.cli import main
from yarnspec.checks.explore.backends import ProcessBackend
from yarnspec.checks.explore.model_source import ModelSource
from yarnspec.checks.explore.parallel import explore_partitioned

ADC = ["explore", "async-double-commit", "--variant", "yarn-8127", "--max-states", "800", "--json"]


def outcome(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, object]:
    """The JSON document of one run."""
    assert main([*ADC, *extra]) == 0
    document: dict[str, object] = json.loads(capsys.readouterr().out)
    return document


def test_two_workers_agree_with_one_and_coverage_flags_kinds_never_enabled(capsys: pytest.CaptureFixture[str]) -> None:
    one = outcome(capsys)
    two = outcome(capsys, "--workers", "2", "--coverage")
    for name in ("distinct_states", "transitions", "depth", "verdict", "trace"):
        assert two[name] == one[name], name
    coverage = two["coverage"]
    assert isinstance(coverage, dict)
    rows = {row["kind"]: row for row in coverage["kinds"]}
    assert sum(row["fired"] for row in rows.values()) == two["transitions"]  # every level whole: a bound stopped it
    assert (
        "lose-node" in coverage["never_enabled"] and rows["lose-node"]["enabled_states"] == 0
    )  # the world has no node loss
    assert rows["commit"]["fired"] >= rows["commit"]["enabled_states"] > 0
    assert two["workers"] == 2


def test_fingerprint_mode_prints_the_collision_probability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "no-leak", "--max-depth", "5"]) == 0
    exact = capsys.readouterr().out
    assert main(["explore", "no-leak", "--max-depth", "5", "--fingerprint"]) == 0
    text = capsys.readouterr().out
    assert "381 distinct states, 2,422 transitions" in exact and "381 distinct states, 2,422 transitions" in text
    assert "fingerprints: 64-bit, probability of a collision 3.9e-15" in text  # 381 * 380 / 2**65


@pytest.mark.parametrize(
    "arguments, fault",
    [
        (
            ["explore", "reserved-starvation", "--workers", "2"],
            "--workers: variant yarn-8127 checks the progress property",
        ),
        (["explore", "no-leak", "--workers", "0"], "--workers"),
        (["explore", "no-leak", "--checkpoint-every", "5"], "--checkpoint-every: applies only with --checkpoint"),
        (["explore", "no-leak", "--simulate", "--workers", "2"], "--workers: does not apply to --simulate"),
        (["explore", "--list", "--coverage"], "--coverage: does not apply to --list"),
    ],
)
def test_bad_combinations_are_one_line(arguments: list[str], fault: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert fault in error and error.count("\n") == 1


def _run_and_interrupt(arguments: list[str]) -> tuple[int, str, str, list[str]]:
    """Start ``yarnspec`` in its own process group, send SIGINT to the group (as Ctrl-C does)
    once it logs progress; the exit status, output, errors and processes left in the group."""
    process = subprocess.Popen(
        [sys.executable, "-m", "yarnspec.checks.cli", *arguments, "--progress-every", "1"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert process.stderr is not None
    first = process.stderr.readline()  # the search is under way (every worker started)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    err = first + err
    left: list[str] = []
    for _ in range(20):  # the multiprocessing helper exits just after the coordinator
        left = subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout.split()
        if not left:
            break
        time.sleep(0.5)
    return process.returncode, out, err, left


@pytest.mark.parametrize("extra", [[], ["--workers", "2"]])
def test_ctrl_c_gives_a_partial_result_and_leaves_no_process(extra: list[str]) -> None:
    status, out, err, left = _run_and_interrupt(["explore", "no-leak", "--exhaustive", *extra])
    assert err.startswith("explore: ")
    assert "Traceback" not in err and "Traceback" not in out
    assert "interrupted (Ctrl-C)" in out and "not refuted: an interruption (Ctrl-C) cut the search at depth" in out
    assert " 0 distinct states" not in out
    assert status == 0 and left == []  # no-leak expects not-refuted


def test_the_time_limit_stops_the_workers_with_a_partial_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "no-leak", "--exhaustive", "--workers", "2", "--time-limit", "4"]) == 0
    out = capsys.readouterr().out
    assert "stopped at the time limit of 4 s" in out and "not refuted: the time limit cut the search" in out


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_states_whose_hash_differs_between_processes_are_routed_by_fingerprint(method: str) -> None:
    """Without symmetry the key is the scheduler state, which holds ``None`` (apps not yet
    submitted): its hash is its address, which differs between spawned processes, and the
    workers notice and route by fingerprint; forked workers share the address and route by hash."""
    source = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": "async-double-commit/pre-8127"})
    one = explore_partitioned(source, max_states=150, show_progress=False)
    two = explore_partitioned(
        source, workers=2, backend=lambda count, src, options: ProcessBackend(count, src, options, method),
        max_states=150, show_progress=False,
    )  # fmt: skip
    assert (two.stats.distinct_states, two.stats.transitions, two.stats.depth) == (
        one.stats.distinct_states,
        one.stats.transitions,
        one.stats.depth,
    )
    assert one.verdict.status == two.verdict.status == "not-refuted"
    assert one.verdict.limit == two.verdict.limit == "states"
    routed = any("routed by their 64-bit fingerprint" in note for note in two.notes)
    assert routed == (method == "spawn")
