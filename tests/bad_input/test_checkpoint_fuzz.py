"""Malformed checkpoints never crash, hang, run code or resume wrongly (issue 31).

The fuzz family of the checkpoint format: Hypothesis picks a valid checkpoint (one worker, two
worker processes, fingerprints with coverage), a kind of damage or forgery and a seed
(``checkpoint_fuzz.mutate``); the resume goes through the real entry point in-process with an
alarm, and must be one named error line with exit 2 or a resume (with the uninterrupted run's
counts, unless the file was forged with its digest recomputed). Every kind is also run once
on its own, a few through a real process with a timeout, and outputs naming FIFOs are refused
in a real process without blocking.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .checkpoint_fuzz import GO_ON_TO, KINDS, SCENARIO, STOP_AT, Base, make_bases, mutate, run_one
from .fuzz import PROJECT_ROOT

CLI = [sys.executable, "-c", "import sys; from yarnspec.checks.cli import main; sys.exit(main())"]
GOOD = ("ok", "error")


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> list[Base]:
    return make_bases(tmp_path_factory.mktemp("bases"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(base=st.integers(0, 2), kind=st.sampled_from(KINDS), seed=st.integers(0, 2**32 - 1))
def test_a_mutated_checkpoint_is_one_named_error_or_a_correct_resume(
    bases: list[Base], tmp_path_factory: pytest.TempPathFactory, base: int, kind: str, seed: int
) -> None:
    folder = tmp_path_factory.mktemp("mutants")
    mutant = mutate(bases[base], random.Random(seed), folder, 0, kind)
    outcome, detail = run_one(bases[base], mutant)
    assert outcome in GOOD, detail


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_of_damage_is_refused_by_name(bases: list[Base], tmp_path: Path, kind: str) -> None:
    """Every kind on every base, with a fixed seed: the damage kinds are errors (a damaged
    checkpoint never resumes), the forgeries errors or resumes."""
    for number, base in enumerate(bases):
        mutant = mutate(base, random.Random(31 + number), tmp_path, number, kind)
        outcome, detail = run_one(base, mutant)
        assert outcome in GOOD, detail
        if kind in ("flip-body", "truncate", "append", "deep-header", "endless-header", "other-options", "resealed-pickle",
                    "older-pickle", "resealed-crafted", "resealed-swap"):  # fmt: skip
            assert outcome == "error", f"{kind} on {base.name}: {detail}"


def test_a_forged_pickle_runs_no_code(bases: list[Base], tmp_path: Path) -> None:
    for number, kind in enumerate(("resealed-pickle", "older-pickle")):
        mutant = mutate(bases[0], random.Random(number), tmp_path, number, kind)
        outcome, detail = run_one(bases[0], mutant)
        assert outcome == "error", detail
        assert mutant.marker is not None and not mutant.marker.exists()
        assert ("does not start with YSD1" if kind == "resealed-pickle" else "checkpoint version 3") in detail


def _process(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=timeout, cwd=PROJECT_ROOT)


@pytest.mark.parametrize("kind", ["resealed-crafted", "deep-header", "flip-body"])
def test_in_a_real_process_a_malformed_checkpoint_is_one_line(bases: list[Base], tmp_path: Path, kind: str) -> None:
    base = bases[1]  # two worker processes
    mutant = mutate(base, random.Random(7), tmp_path, 0, kind)
    result = _process([*SCENARIO, *mutant.options, "--max-states", GO_ON_TO, "--resume", str(mutant.path)])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[-2000:]
    assert result.stderr.startswith(f"yarnspec: error: {mutant.path}: --resume: ")


@pytest.mark.parametrize(
    "option", ["--trace-out", "--emit-test", "--html", "--dot", "--itf", "--checkpoint", "--resume"]
)
def test_in_a_real_process_an_output_or_checkpoint_naming_a_fifo_is_refused_at_once(
    tmp_path: Path, option: str
) -> None:
    """A FIFO (and a link to one) blocked for ever; now one line, before any work."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for path in (fifo, link):
        result = _process(["explore", "async-double-commit", "--variant", "pre-8127", option, str(path)], timeout=30)
        assert result.returncode == 2, result.stderr
        assert result.stderr == f"yarnspec: error: {path}: {option}: is not a regular file (a named pipe)\n"


@pytest.mark.parametrize(
    ("option", "device"), [("--resume", "/dev/zero"), ("--checkpoint", "/dev/null"), ("--trace-out", "/dev/null")]
)
def test_a_device_is_refused_as_a_checkpoint_or_an_output(tmp_path: Path, option: str, device: str) -> None:
    link = tmp_path / "device"
    link.symlink_to(device)
    for path in (device, str(link)):
        result = _process(["explore", "async-double-commit", "--variant", "pre-8127", option, path], timeout=30)
        assert result.returncode == 2
        assert result.stderr == f"yarnspec: error: {path}: {option}: is not a regular file (a character device)\n"


@pytest.mark.parametrize(
    "option", ["--html", "--dot", "--itf", "--trace-out", "--emit-test", "--checkpoint", "--resume"]
)
def test_an_empty_output_path_is_an_error_not_silence(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    from yarnspec.checks.cli import main

    assert main(["explore", "async-double-commit", "--variant", "pre-8127", "--max-states", STOP_AT, option, ""]) == 2
    assert capsys.readouterr().err == f"yarnspec: error: command line: {option}: an empty path: name a file\n"


def test_show_refuses_an_empty_or_fifo_output_before_reading_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from yarnspec.checks.cli import main

    fifo = tmp_path / "pipe.html"
    os.mkfifo(fifo)
    assert main(["show", str(tmp_path / "missing.json"), "--html", ""]) == 2
    assert capsys.readouterr().err == "yarnspec: error: command line: --html: an empty path: name a file\n"
    assert main(["show", str(tmp_path / "missing.json"), "--html", str(fifo)]) == 2
    assert capsys.readouterr().err == f"yarnspec: error: {fifo}: --html: is not a regular file (a named pipe)\n"
