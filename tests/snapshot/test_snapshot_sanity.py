"""Snapshots Hadoop reaches only in passing (issue 26): a container on a label its queue cannot
access, and a queue above its maximum. Both are legitimate in Hadoop (a node's label changed
under running containers; a refresh lowered a maximum), so ``preempt`` explains the snapshot
and prints one warning line per case on stderr, naming the container or the queue."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yarnspec.checks import cli

from .example_cluster import CONFIG, NODES
from .source import Source, SourceApp, first_fit, plain


def _preempt(tmp_path: Path, capsys: pytest.CaptureFixture[str], *apps: tuple[str, str, int]) -> tuple[int, str, str]:
    used: dict[str, list[int]] = {}
    source = Source(
        NODES,
        tuple(
            SourceApp(queue, "u", first_fit(NODES, [(label, 2048, 1, 0)] + [(label, 8192, 2, 1)] * count, used), ())
            for queue, label, count in apps
        ),
    )
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(plain(source)), encoding="utf-8")
    argv = [
        "preempt",
        "--config",
        str(CONFIG[0]),
        "--yarn-site",
        str(CONFIG[1]),
        "--snapshot",
        str(snapshot),
        "--rounds",
        "1",
    ]
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_a_container_on_a_label_its_queue_cannot_access_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _preempt(
        tmp_path, capsys, ("root.eng.batch.nightly", "gpu", 1), ("root.eng.ml.training", "gpu", 2)
    )
    assert status == 0 and "Round 1" in out
    lines = err.splitlines()
    assert len(lines) == 2 and all(
        line.startswith(f"preempt: warning: {tmp_path / 's.json'}: container ") for line in lines
    )
    assert all(
        "of root.eng.batch.nightly runs on gpu-01.example.com:8041 in label 'gpu', which root.eng.batch.nightly cannot access"
        in line
        for line in lines
    )


def test_a_queue_above_its_maximum_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # root.prod's maximum is 80 % of the default partition's <524288, 256>
    status, out, err = _preempt(tmp_path, capsys, ("root.prod.etl", "", 52))
    assert status == 0 and "Round 1" in out
    lines = err.splitlines()
    assert lines and all(line.startswith("preempt: warning: ") for line in lines)
    assert any('queue root.prod uses <428032, 105> in "", above its maximum <419430, 204>' in line for line in lines), (
        lines
    )


def test_the_example_snapshot_has_no_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _preempt(tmp_path, capsys, ("root.prod.etl", "", 10), ("root.eng.ml.training", "gpu", 3))
    assert status == 0 and err == ""
