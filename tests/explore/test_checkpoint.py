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
    assert first.verdict.status == "not-refuted" and saved.exists()
    assert any("checkpoint" in note for note in first.notes)
    resumed = explore_partitioned(
        source, workers=count, backend=inline, coverage=True, show_progress=False, resume=str(saved)
    )
    assert counts(resumed) == counts(whole)
    assert resumed.coverage is not None and whole.coverage is not None
    assert resumed.coverage.fired == whole.coverage.fired and resumed.coverage.enabled == whole.coverage.enabled


def test_a_checkpoint_of_another_model_or_options_is_refused(tmp_path: Path) -> None:
    saved = tmp_path / "run.ckpt"
    explore_partitioned(toy_source(3, 3, 2), backend=inline, max_states=20, checkpoint=str(saved), show_progress=False)
    with pytest.raises(InputError, match=r"written for model.arguments.capacity 2, this run has 3$"):
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
    with pytest.raises(InputError, match="truncated: the header announces"):
        explore_partitioned(toy_source(3, 3, 2), backend=inline, resume=str(saved), show_progress=False)
    with pytest.raises(InputError, match="no such file"):
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


@pytest.mark.parametrize("count", [1, 2])
def test_a_resume_with_fewer_max_states_than_the_checkpoint_holds_stops_at_once(tmp_path: Path, count: int) -> None:
    """Regression (issue 31): ``--workers 2`` resumed with a smaller ``--max-states`` ended in
    ``IndexError`` (a negative room for the level's cut). It now stops at once, not refuted, with
    the checkpoint's figures and a note."""
    source = toy_source(3, 3, 2)
    saved = tmp_path / "run.ckpt"
    first = explore_partitioned(
        source, workers=count, backend=inline, max_states=60, checkpoint=str(saved), show_progress=False
    )
    held = Checkpoint.load(saved, {}).counts
    resumed = explore_partitioned(
        source, workers=count, backend=inline, max_states=20, resume=str(saved), show_progress=False
    )
    assert resumed.verdict.status == "not-refuted"
    assert resumed.stats.distinct_states == held.stored and resumed.stats.depth == held.depth
    assert any(f"holds {held.stored:,} states, more than --max-states 20" in note for note in resumed.notes)
    assert first.stats.distinct_states == 60


def test_the_command_line_with_two_worker_processes_resumes_with_fewer_max_states(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = str(tmp_path / "adc.ckpt")
    arguments = ["explore", "async-double-commit", "--variant", "yarn-8127", "--workers", "2"]
    assert main([*arguments, "--max-states", "150", "--checkpoint", saved]) == 0
    capsys.readouterr()
    assert main([*arguments, "--max-states", "100", "--resume", saved, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["verdict"], result["distinct_states"], result["depth"]) == ("not-refuted", 132, 9)
    assert any("more than --max-states 100: nothing more was explored" in note for note in result["notes"])


def test_a_checkpoint_of_a_changed_world_file_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explore", "async-double-commit", "--print-world"]) == 0
    world = tmp_path / "world.toml"
    world.write_text(capsys.readouterr().out)
    saved = str(tmp_path / "w.ckpt")
    arguments = ["explore", "--world", str(world), "--variant", "yarn-8127"]
    assert main([*arguments, "--max-states", "60", "--checkpoint", saved]) == 0
    assert main([*arguments, "--max-states", "90", "--resume", saved]) == 0
    capsys.readouterr()
    world.write_text(world.read_text() + "\n# edited\n")
    assert main([*arguments, "--max-states", "90", "--resume", saved]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert f"--resume: the world file {world} changed since the checkpoint was written (its SHA-256 is " in error


def _rewrite(saved: Path, edit: Any, reseal: bool) -> None:
    """Edit the header of a checkpoint (with the digest recomputed when ``reseal``)."""
    from yarnspec.checks.explore.checkpoint import _digest

    first, body = saved.read_bytes().split(b"\n", 1)
    header = json.loads(first)
    edit(header)
    if reseal:
        header["body"]["sha256"] = _digest(header, body)
    saved.write_bytes(json.dumps(header, sort_keys=True).encode() + b"\n" + body)


def test_an_edited_count_is_damage_and_a_forged_one_fails_the_checks_across_partitions(tmp_path: Path) -> None:
    saved = tmp_path / "run.ckpt"
    explore_partitioned(
        toy_source(3, 3, 2), workers=3, backend=inline, max_states=60, checkpoint=str(saved), show_progress=False
    )
    original = saved.read_bytes()

    def more(header: dict[str, Any]) -> None:
        header["counts"]["stored"] += 1

    _rewrite(saved, more, reseal=False)
    with pytest.raises(InputError, match="damaged: the SHA-256 digest of the header and body"):
        explore_partitioned(toy_source(3, 3, 2), workers=3, backend=inline, resume=str(saved), show_progress=False)
    saved.write_bytes(original)
    _rewrite(saved, more, reseal=True)
    with pytest.raises(InputError, match=r"the partitions hold 46 states, the header counts 47$"):
        explore_partitioned(toy_source(3, 3, 2), workers=3, backend=inline, resume=str(saved), show_progress=False)


def test_states_routed_otherwise_are_refused_not_explored_twice(tmp_path: Path) -> None:
    """The routing is saved with the counts and restored; a checkpoint whose states would be
    owned by other partitions under its routing is refused (each would be visited again)."""
    saved = tmp_path / "run.ckpt"
    explore_partitioned(
        toy_source(3, 3, 2), workers=3, backend=inline, max_states=60, checkpoint=str(saved), show_progress=False
    )
    assert Checkpoint.load(saved, {}).counts.routing == "hash"

    def routed(header: dict[str, Any]) -> None:
        header["counts"]["routing"] = "fingerprint"

    _rewrite(saved, routed, reseal=True)
    with pytest.raises(
        InputError,
        match=r"--resume: partition \d: the frontier state of rank \d+ belongs to partition \d: it was routed otherwise",
    ):
        explore_partitioned(toy_source(3, 3, 2), workers=3, backend=inline, resume=str(saved), show_progress=False)


def test_the_file_is_a_json_header_and_data_segments(tmp_path: Path) -> None:
    saved = tmp_path / "run.ckpt"
    explore_partitioned(
        toy_source(3, 3, 2), workers=2, backend=inline, max_states=60, checkpoint=str(saved), show_progress=False
    )
    first, body = saved.read_bytes().split(b"\n", 1)
    header = json.loads(first)
    assert header["version"] == VERSION == 4 and header["body"]["encoding"] == "YSD1"
    assert header["counts"] == {
        "stored": 46,
        "transitions": 90,
        "depth": 2,
        "complete_depth": 2,
        "frontier": 36,
        "routing": "hash",
    }
    lengths = header["body"]["segments"]
    assert len(lengths) == 2 and sum(lengths) == len(body) == header["body"]["bytes"]
    assert body.startswith(b"YSD1") and body[lengths[0] :].startswith(b"YSD1")


def test_a_fault_of_the_model_on_resumed_states_is_one_line_and_in_a_fresh_run_is_not_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forged checkpoint whose parts fit together can still hold states the model fails on
    further on: on resume that is one line naming the checkpoint; without --resume the fault
    is the model's own and propagates as before."""
    from yarnspec.checks.explore.partition import SearchPartition

    saved = tmp_path / "run.ckpt"
    explore_partitioned(
        toy_source(3, 3, 2), workers=2, backend=inline, max_states=60, checkpoint=str(saved), show_progress=False
    )

    def failing(self: SearchPartition, deadline: float | None) -> Any:
        raise RuntimeError("no such node\nn9")

    monkeypatch.setattr(SearchPartition, "expand", failing)
    with pytest.raises(
        InputError, match=r"run.ckpt: --resume: the search failed on states from this checkpoint \(RuntimeError: n9\)"
    ):
        explore_partitioned(toy_source(3, 3, 2), workers=2, backend=inline, resume=str(saved), show_progress=False)
    with pytest.raises(RuntimeError, match="no such node"):
        explore_partitioned(toy_source(3, 3, 2), workers=2, backend=inline, show_progress=False)


def test_a_search_routed_by_fingerprint_resumes_routed_by_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the workers' hashes disagree the search routes states by fingerprint; that choice
    is saved with the counts and restored, so a resumed run's states keep their owners and
    the run ends with the uninterrupted counts (before, the resumed run routed by hash)."""
    from yarnspec.checks.explore.backends import ProcessBackend
    from yarnspec.checks.explore.partition import SearchPartition

    def disagreeing(self: SearchPartition, limit: int) -> list[int]:
        return [self.index]

    monkeypatch.setattr(SearchPartition, "probe", disagreeing)  # the forked workers inherit it

    def processes(count: int, source: ModelSource, options: Any) -> ProcessBackend:
        return ProcessBackend(count, source, options, method="fork")

    source = toy_source(3, 3, 2)
    whole = explore_partitioned(source, workers=2, backend=processes, show_progress=False)
    saved = tmp_path / "run.ckpt"
    explore_partitioned(source, workers=2, backend=processes, max_states=60, checkpoint=str(saved), show_progress=False)
    assert Checkpoint.load(saved, {}).counts.routing == "fingerprint"
    resumed = explore_partitioned(source, workers=2, backend=processes, resume=str(saved), show_progress=False)
    assert counts(resumed) == counts(whole)
