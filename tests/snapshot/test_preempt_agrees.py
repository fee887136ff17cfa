"""``yarnspec preempt`` and the conformance runner on one cluster description: the same numbers.

The description (``example_cluster.EXAMPLE``) is written out as a plain snapshot, a REST
bundle and a mockframework case. ``preempt --json`` runs on both snapshots; its per-queue
figures and its events become the case's ``state_asserts`` and ``expect`` entries, and the
conformance runner, which builds its cluster from the mockframework strings, must pass it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks import cli
from yarnspec.checks.conformance import runner
from yarnspec.impl.config.scheduler import load_scheduler_configuration
from yarnspec.impl.preemption.config import KNOWN_KEYS

from .example_cluster import CONFIG, EXAMPLE, EXAMPLES, documents, dumps
from .source import mockframework_input, plain, rest

FIELDS = {
    "idealAssigned": "ideal",
    "toBePreempted": "to_preempt",
    "actuallyToBePreempted": "to_obtain",
    "guaranteed": "guaranteed",
    "used": "used",
}
EVENTS = ("MARK_CONTAINER_FOR_PREEMPTION", "MARK_CONTAINER_FOR_KILLABLE")


def preempt_json(snapshot: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    argv = [
        "preempt",
        "--config",
        str(CONFIG[0]),
        "--yarn-site",
        str(CONFIG[1]),
        "--snapshot",
        str(snapshot),
        "--json",
        *extra,
    ]
    assert cli.main(argv) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    return result


def app_and_number(name: str) -> tuple[int, int]:
    """``container_1_39`` (plain) and ``container_e07_<ts>_0001_01_000039`` (REST) -> (1, 39)."""
    parts = name.split("_")
    return int(parts[1] if len(parts) == 3 else parts[-3]), int(parts[-1])


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def case_from_report(report: dict[str, Any]) -> dict[str, Any]:
    """A mockframework case asserting every figure and event count ``preempt`` printed."""
    conf = load_scheduler_configuration(CONFIG)
    properties = {key: conf.properties.get(key) for key in KNOWN_KEYS if conf.properties.get(key) is not None}
    rounds = []
    counts: dict[tuple[int, str], int] = {}
    for entry in report["rounds"]:
        for event in entry["events"]:
            app = app_and_number(event["container"])[0]
            counts[(app, event["event"])] = counts.get((app, event["event"]), 0) + 1
        expect = [
            {"app": app, "event": kind, "count": counts.get((app, kind), 0)}
            for app in range(1, len(EXAMPLE.apps) + 1)
            for kind in EVENTS
        ]
        state = [
            {"queue": row["queue"], "partition": row["partition"], "field": name, **row[attribute]}
            for row in entry["queues"]
            if row["leaf"]
            for name, attribute in FIELDS.items()
        ]
        rounds.append({"clock_ms": entry["clock_ms"], "expect": expect, "state_asserts": state})
    return {
        "id": "preempt-agrees",
        "source": {"repo": "local", "path": "tests/snapshot/test_preempt_agrees.py"},
        "notation": "mockframework",
        "resource_calculator": conf.calculator,
        "conf": properties,
        "input": mockframework_input(EXAMPLE, conf),
        "rounds": rounds,
    }


def test_both_snapshot_formats_give_the_same_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = load_scheduler_configuration(CONFIG)
    from_plain = preempt_json(write(tmp_path / "plain.json", plain(EXAMPLE)), capsys)
    from_rest = preempt_json(write(tmp_path / "rest.json", rest(EXAMPLE, conf)), capsys)
    for report in (from_plain, from_rest):
        for entry in report["rounds"]:
            for event in entry["events"]:
                event["container"] = app_and_number(event["container"])
        report.pop("snapshot")
    assert from_plain == from_rest
    assert sum(len(r["events"]) for r in from_plain["rounds"]) > 0


def test_preempt_numbers_pass_the_conformance_runner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = preempt_json(write(tmp_path / "plain.json", plain(EXAMPLE)), capsys, "--rounds", "4")
    kinds = {e["event"] for r in report["rounds"] for e in r["events"]}
    assert kinds == set(EVENTS)  # marks in round 1, kills in round 4: both are checked
    case = write(tmp_path / "case.json", case_from_report(report))
    [outcome] = runner.run_all([case])
    assert outcome.verdict is runner.CaseVerdict.PASS, outcome.detail


def test_a_changed_figure_fails_the_runner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The agreement test can fail: one ideal off by 1 MB is a FAIL."""
    report = preempt_json(write(tmp_path / "plain.json", plain(EXAMPLE)), capsys, "--rounds", "1")
    row = next(r for r in report["rounds"][0]["queues"] if r["queue"] == "root.prod.etl")
    row["ideal"]["memory"] += 1
    case = write(tmp_path / "case.json", case_from_report(report))
    [outcome] = runner.run_all([case])
    assert outcome.verdict is runner.CaseVerdict.FAIL and "idealAssigned of root.prod.etl" in outcome.detail


def test_examples_are_current() -> None:
    for name, document in documents().items():
        assert (EXAMPLES / name).read_text(encoding="utf-8") == dumps(document), (
            f"run python -m tests.snapshot.example_cluster ({name})"
        )
