"""Checkpoints: a run stopped by a bound (or the time limit) and resumed ends with the counts
of an uninterrupted run; a checkpoint of another model or other options is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.cli import main
from yarnspec.checks.explore.backends import InlineBackend
from yarnspec.checks.explore.checkpoint import VERSION, Checkpoint
from yarnspec.checks.explore.model_source import ModelSource, toy_source
from yarnspec.checks.explore.parallel import explore_partitioned
from yarnspec.impl.errors import InputError


def inline(count: int, source: ModelSource, options: Any) -> InlineBackend:
    """All partitions in this process."""
    return InlineBackend(count, source, options)


def counts(result: Any) -> tuple[int, int, int, str]:
    """The figures a resumed run must reproduce."""
    return result.stats.distinct_states, result.stats.transitions, result.stats.depth, result.verdict.text


@pytest.mark.parametrize("bound", [{"max_states": 60}, {"max_depth": 2}])
@pytest.mark.parametrize("count", [1, 3])
def test_a_resumed_run_ends_with_the_uninterrupted_counts(tmp_path: Path, bound: dict[str, int], count: int) -> None:
    source = toy_source(3, 3, 2)
    whole = explore_partitioned(source, workers=count, backend=inline, coverage=True, show_progress=False)
    saved = tmp_path / "run.ckpt"
    first = explore_partitioned(source, workers=count, backend=inline, coverage=True, show_progress=False,
                                checkpoint=str(saved), **bound)  # fmt: skip
    assert first.verdict.status == "bounded" and saved.exists()
    assert any("checkpoint" in note for note in first.notes)
    resumed = explore_partitioned(source, workers=count, backend=inline, coverage=True, show_progress=False, resume=str(saved))
    assert counts(resumed) == counts(whole)
    assert resumed.coverage is not None and whole.coverage is not None
    assert resumed.coverage.fired == whole.coverage.fired and resumed.coverage.enabled == whole.coverage.enabled


def test_a_checkpoint_of_another_model_or_options_is_refused(tmp_path: Path) -> None:
    saved = tmp_path / "run.ckpt"
    explore_partitioned(toy_source(3, 3, 2), backend=inline, max_states=20, checkpoint=str(saved), show_progress=False)
    with pytest.raises(InputError, match=r"written for model .* this run has"):
        explore_partitioned(toy_source(3, 3, 3), backend=inline, resume=str(saved), show_progress=False)
    with pytest.raises(InputError, match="written for symmetry false, this run has true"):
        explore_partitioned(toy_source(3, 3, 2), backend=inline, symmetry=True, resume=str(saved), show_progress=False)
    with pytest.raises(InputError, match="written for partitions 1, this run has 2"):
        explore_partitioned(toy_source(3, 3, 2), workers=2, backend=inline, resume=str(saved), show_progress=False)


def test_a_foreign_or_damaged_file_is_one_error(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello\n")
    with pytest.raises(InputError, match="not a yarnspec explore checkpoint"):
        explore_partitioned(toy_source(2, 2, 1), backend=inline, resume=str(other), show_progress=False)
    saved = tmp_path / "run.ckpt"
    explore_partitioned(toy_source(3, 3, 2), backend=inline, max_states=20, checkpoint=str(saved), show_progress=False)
    saved.write_bytes(saved.read_bytes()[:-40])
    with pytest.raises(InputError, match="damaged"):
        explore_partitioned(toy_source(3, 3, 2), backend=inline, resume=str(saved), show_progress=False)
    with pytest.raises(InputError, match="cannot read"):
        explore_partitioned(toy_source(3, 3, 2), backend=inline, resume=str(tmp_path / "none"), show_progress=False)


def test_a_checkpoint_of_an_older_key_scheme_is_refused(tmp_path: Path) -> None:
    """Keys of another version would never match this version's: resuming must stop, not
    silently explore visited states again."""
    saved = tmp_path / "run.ckpt"
    explore_partitioned(toy_source(3, 3, 2), backend=inline, max_states=20, checkpoint=str(saved), show_progress=False)
    first, rest = saved.read_bytes().split(b"\n", 1)
    older = json.loads(first) | {"version": VERSION - 1}
    saved.write_bytes(json.dumps(older).encode() + b"\n" + rest)
    with pytest.raises(InputError, match=f"checkpoint version {VERSION - 1}, this yarnspec reads {VERSION}"):
        explore_partitioned(toy_source(3, 3, 2), backend=inline, resume=str(saved), show_progress=False)


def test_the_command_line_stops_resumes_and_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = str(tmp_path / "adc.ckpt")
    arguments = ["explore", "async-double-commit", "--variant", "yarn-8127", "--json"]
    assert main([*arguments, "--max-states", "400"]) == 0
    whole = capsys.readouterr().out
    assert main([*arguments, "--max-states", "150", "--checkpoint", saved]) == 0
    capsys.readouterr()
    assert main([*arguments, "--max-states", "400", "--resume", saved]) == 0
    resumed = capsys.readouterr().out
    import json

    pick = lambda text: {k: json.loads(text)[k] for k in ("distinct_states", "transitions", "depth", "verdict")}  # noqa: E731
    assert pick(resumed) == pick(whole)
    assert main(["explore", "async-double-commit", "--variant", "pre-8127", "--resume", saved]) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "--resume" in error and "pre-8127" in error


@pytest.mark.parametrize("where", ["missing-folder/run.ckpt", "."])
def test_a_checkpoint_that_cannot_be_written_is_refused_at_the_start(
    tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused before the search starts (not when the first checkpoint is due): no worker is
    started, nothing is written, one line names the path."""
    target = tmp_path / where
    arguments = ["explore", "no-leak", "--exhaustive", "--checkpoint", str(target)]
    assert main(arguments) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert str(target) in captured.err and "--checkpoint" in captured.err
    assert ("is a folder" if where == "." else "cannot write") in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_checking_a_checkpoint_path_leaves_nothing_behind(tmp_path: Path) -> None:
    Checkpoint.check_writable(tmp_path / "run.ckpt")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "run.ckpt.partial").write_bytes(b"left by an interrupted write")
    Checkpoint.check_writable(tmp_path / "run.ckpt")  # replaced when a checkpoint is written
    assert [p.name for p in tmp_path.iterdir()] == ["run.ckpt.partial"]
