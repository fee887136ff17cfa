"""``yarnspec preempt``'s explanation: each reason a queue gives or keeps what it does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks import cli

from .example_cluster import CONFIG, EXAMPLE, NODES
from .source import Source, SourceApp, first_fit, plain

PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."


def _source(*specs: tuple[str, tuple[int, int], tuple[int, int], int, tuple[tuple[str, int, int], ...]]) -> Source:
    used: dict[str, list[int]] = {}
    apps = tuple(
        SourceApp(queue, "u", first_fit(NODES, [("", *am, 0)] + [("", *size, 1)] * count, used), pending)
        for queue, am, size, count, pending in specs
    )
    return Source(NODES, apps)


def preempt(
    tmp_path: Path, source: Source, capsys: pytest.CaptureFixture[str], yarn_site: Path = CONFIG[1], *extra: str
) -> dict[str, Any]:
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(plain(source)), encoding="utf-8")
    argv = [
        "preempt",
        "--config",
        str(CONFIG[0]),
        "--yarn-site",
        str(yarn_site),
        "--snapshot",
        str(snapshot),
        "--json",
        *extra,
    ]
    assert cli.main(argv) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def why(report: dict[str, Any], queue: str, partition: str = "", round_index: int = 0) -> str:
    row = next(
        r for r in report["rounds"][round_index]["queues"] if r["queue"] == queue and r["partition"] == partition
    )
    reason: str = row["why"]
    return reason


def test_dead_zone_disabled_and_under_guarantee(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = _source(
        ("root.prod.serving", (1024, 1), (8192, 4), 30, ()),
        ("root.prod.etl", (2048, 1), (4096, 2), 33, ()),
        ("root.eng.batch.nightly", (2048, 1), (4096, 2), 2, (("", 262144, 128),)),
    )
    report = preempt(tmp_path, source, capsys, CONFIG[1], "--rounds", "1")
    assert why(report, "root.prod.etl").startswith(
        "dead zone: used <= guaranteed x (1 + max_ignored_over_capacity 0.05) = <137625, 67>"
    )
    assert why(report, "root.prod.serving") == "over its guarantee, but preemption is disabled for it"
    assert why(report, "root.eng.batch.nightly") == "under its guarantee with demand: ideal grows by <41140, 20>"
    assert why(report, "root.adhoc.sandbox") == "within its guarantee"
    assert report["rounds"][0]["events"] == []


def test_round_budget_stops_selection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = tmp_path / "yarn-site.xml"
    text = CONFIG[1].read_text(encoding="utf-8")
    site.write_text(text.replace("<value>0.15</value>", "<value>0.02</value>"), encoding="utf-8")
    report = preempt(tmp_path, EXAMPLE, capsys, site, "--rounds", "1")
    assert report["rounds"][0]["budget"] == {"memory": 15728, "vcores": 7}
    reasons = {r["queue"]: r["why"] for r in report["rounds"][0]["queues"] if "round budget" in r["why"]}
    assert reasons, [r["why"] for r in report["rounds"][0]["queues"]]
    selected = sum(r["selected"]["memory"] for r in report["rounds"][0]["queues"] if r["leaf"])
    assert selected <= 15728


def test_text_report_names_marks_and_kills(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(plain(EXAMPLE)), encoding="utf-8")
    argv = [
        "preempt",
        "--config",
        str(CONFIG[0]),
        "--yarn-site",
        str(CONFIG[1]),
        "--snapshot",
        str(snapshot),
        "--rounds",
        "8",
    ]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "Round 1 at 0 ms (selectors: fifo; budget <117964, 52>)" in out
    assert "round 4 at 6000 ms: 0 marked, 7 killed; 0 marked and waiting" in out
    # after the kills the next round runs on the smaller cluster and marks again
    assert "round 5 at 8000 ms: 1 marked, 0 killed; 1 marked and waiting" in out
