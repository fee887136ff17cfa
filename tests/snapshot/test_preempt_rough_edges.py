"""``yarnspec preempt`` names what shaped a round (issue 26): the round budget's cut of
to-preempt, where each queue's ideal stops, each selector's kill wait (``fifo-balance`` its
own), and the new marks of later rounds as well as their kills."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks import cli

from .example_cluster import CONFIG, EXAMPLE
from .source import plain

PROJECT = Path(__file__).resolve().parents[2]
CLUSTER = PROJECT / "docs" / "examples" / "cluster"
PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], site: Path, *extra: str) -> str:
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(plain(EXAMPLE)), encoding="utf-8")
    argv = ["preempt", "--config", str(CONFIG[0]), "--yarn-site", str(site), "--snapshot", str(snapshot), *extra]
    assert cli.main(argv) == 0
    return capsys.readouterr().out


def _site(tmp_path: Path, old: str, new: str) -> Path:
    site = tmp_path / "yarn-site.xml"
    text = CONFIG[1].read_text(encoding="utf-8")
    assert old in text
    site.write_text(text.replace(old, new, 1), encoding="utf-8")
    return site


def test_the_round_budget_cut_is_named_with_its_queue_and_amount(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = _site(tmp_path, "<value>0.15</value>", "<value>0.02</value>")
    document: dict[str, Any] = json.loads(_run(tmp_path, capsys, site, "--rounds", "1", "--json"))
    cut = {r["queue"]: r["budget_cut"] for r in document["rounds"][0]["queues"] if r["budget_cut"]["memory"] > 0}
    assert cut, document["rounds"][0]["queues"]
    text = _run(tmp_path, capsys, site, "--rounds", "1")
    for queue, amount in cut.items():
        assert (
            f'  round budget <15728, 7> (total_preemption_per_round) cut {queue}\'s to-preempt in "" by <{amount["memory"]}, '
            in text
        )
    # with the example's budget nothing is cut
    assert ") cut " not in _run(tmp_path, capsys, CONFIG[1], "--rounds", "1")


def test_each_queue_says_where_its_ideal_stops(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["preempt", "--config", str(CLUSTER / "capacity-scheduler.xml"), "--yarn-site", str(CLUSTER / "yarn-site.xml"),
            "--snapshot", str(CLUSTER / "rest-snapshot.json"), "--json", "--rounds", "1"]  # fmt: skip
    assert cli.main(argv) == 0
    rows = {(r["queue"], r["partition"]): r for r in json.loads(capsys.readouterr().out)["rounds"][0]["queues"]}
    assert rows[("root", "")]["capped_by"] == "maximum"
    reporting = rows[("root.prod.reporting", "")]
    assert reporting["capped_by"] == "demand"
    assert reporting["ideal"]["memory"] == reporting["used"]["memory"] + reporting["pending"]["memory"]
    nightly = rows[("root.eng.batch.nightly", "")]
    assert nightly["capped_by"] == "guarantee" and nightly["ideal"] == nightly["guaranteed"]
    assert rows[("root.prod", "")]["capped_by"] == "parent"


def test_each_selector_names_its_kill_wait(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _run(tmp_path, capsys, CONFIG[1], "--rounds", "1")
    assert "  fifo kills what it marked 6000 ms after the mark (max_wait_before_kill)" in text
    balance = f"<property><name>{PREFIX}preemption-to-balance-queue-after-satisfied.enabled</name><value>true</value></property>"
    site = _site(tmp_path, "</configuration>", balance + "</configuration>")
    text = _run(tmp_path, capsys, site, "--rounds", "1")
    assert "  fifo kills what it marked 6000 ms after the mark (max_wait_before_kill)" in text
    assert (
        "  fifo-balance kills what it marked 300000 ms after the mark "
        "(its own wait, preemption-to-balance-queue-after-satisfied.max-wait-before-kill)"
    ) in text
    document = json.loads(_run(tmp_path, capsys, site, "--rounds", "1", "--json"))
    assert document["rounds"][0]["kill_waits_ms"] == {"fifo": 6000, "fifo-balance": 300000}


def test_later_rounds_list_new_marks_as_well_as_kills(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _run(tmp_path, capsys, CONFIG[1], "--rounds", "8")
    later = text.split("Next rounds", 1)[1]
    round_5 = later.split("  round 5 at 8000 ms: 1 marked, 0 killed; 1 marked and waiting\n", 1)[1]
    assert round_5.startswith("    mark ")
    assert "    kill " in later.split("  round 5 ")[0]
    document = json.loads(_run(tmp_path, capsys, CONFIG[1], "--rounds", "8", "--json"))
    marks = [e for r in document["rounds"] for e in r["events"] if e["event"] == "MARK_CONTAINER_FOR_PREEMPTION"]
    assert marks and all(isinstance(e["new"], bool) for e in marks)
