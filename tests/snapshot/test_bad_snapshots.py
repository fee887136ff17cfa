"""Bad snapshots: every fault is one line on stderr naming the file and the place, exit 2."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks import cli
from yarnspec.impl.config.scheduler import load_scheduler_configuration

from .example_cluster import CONFIG, EXAMPLE
from .source import plain, rest

Doc = dict[str, Any]


def run_preempt(snapshot: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    argv = ["preempt", "--config", str(CONFIG[0]), "--yarn-site", str(CONFIG[1]), "--snapshot", str(snapshot), *extra]
    status = cli.main(argv)
    return status, capsys.readouterr().err


def _leaf_queue(doc: Doc, *names: str) -> Doc:
    queue = doc["scheduler"]["scheduler"]["schedulerInfo"]
    for name in names:
        queue = next(q for q in queue["queues"]["queue"] if q["queueName"] == name)
    return queue


def _zero_parent_usage(doc: Doc) -> None:
    for usage in _leaf_queue(doc, "prod")["resources"]["resourceUsagesByPartition"]:
        usage["used"] = {"memory": 0, "vCores": 0}


def _drop_containers(doc: Doc) -> None:
    doc["containers"].pop(next(iter(doc["containers"])))


def _shift_node_usage(doc: Doc) -> None:
    node = doc["nodes"]["nodes"]["node"][0]
    node["usedMemoryMB"] -= 1024
    node["availMemoryMB"] += 1024


PLAIN_FAULTS: list[tuple[str, Callable[[Doc], None], str, str]] = [
    ("negative memory", lambda d: d["nodes"][0].update(memory=-1), "$.nodes[0].memory", "less than the minimum"),
    ("unknown key", lambda d: d["apps"][0].update(colour="red"), "$.apps[0]", "colour"),
    ("wrong format", lambda d: d.update(format="yarnspec-snapshot/9"), "$.format", "yarnspec-snapshot/1"),
    (
        "container on unknown node",
        lambda d: d["apps"][0]["containers"][1].update(node="nowhere:1"),
        "$.apps[0].containers[1]",
        "nowhere:1",
    ),
    ("app in a parent queue", lambda d: d["apps"][0].update(queue="root.prod"), "$.apps[0].queue", "parent queue"),
    (
        "unknown queue",
        lambda d: d["apps"][0].update(queue="root.prod.nope"),
        "$.apps[0].queue",
        "not a configured queue",
    ),
    ("node over its total", lambda d: d["nodes"][0].update(memory=1024), "$.nodes[0]", "more than its total"),
    (
        "parent used left at 0",
        lambda d: d.update(queues=[{"path": "root.prod", "used": {"memory": 0, "vcores": 0}}]),
        "$.queues[0]",
        "a parent's used is the sum of its children's",
    ),
    (
        "leaf used wrong",
        lambda d: d.update(queues=[{"path": "root.prod.etl", "used": {"memory": 1, "vcores": 1}}]),
        "$.queues[0]",
        "its applications' containers add up to",
    ),
    (
        "duplicate container",
        lambda d: d["apps"][0]["containers"].append(dict(d["apps"][0]["containers"][1])),
        "$.apps[0].containers[39]",
        "listed twice",
    ),
    ("duplicate app id", lambda d: d["apps"][1].update(id=1), "$.apps[1]", "listed twice"),
    (
        "pending in an unknown partition",
        lambda d: d["apps"][3].update(pending={"partition": "fpga", "memory": 1, "vcores": 1}),
        "$.apps[3].pending",
        "'fpga'",
    ),
    (
        "node stated used wrong",
        lambda d: d["nodes"][0].update(used={"memory": 0, "vcores": 0}),
        "$.nodes[0]",
        "containers add up to",
    ),
]

REST_FAULTS: list[tuple[str, Callable[[Doc], None], str, str]] = [
    (
        "parent usage left at 0",
        _zero_parent_usage,
        "$.scheduler.scheduler.schedulerInfo.queues.queue[0]",
        "a parent's used is the sum",
    ),
    ("containers of an app missing", _drop_containers, "$.apps.apps.app[0]", "add the containers of its attempt"),
    ("node used wrong", _shift_node_usage, "$.nodes.nodes.node[0]", "says it uses"),
    (
        "queue not configured",
        lambda d: _leaf_queue(d, "adhoc", "sandbox").update(queuePath="root.adhoc.sandbox2"),
        "queue[1]",
        "not in the configuration",
    ),
    (
        "bad container id",
        lambda d: next(iter(d["containers"].values()))["container"][0].update(containerId="c1"),
        "$.containers",
        "does not match",
    ),
    (
        "app state missing",
        lambda d: d["apps"]["apps"]["app"][2].pop("state"),
        "$.apps.apps.app[2]",
        "'state' is a required property",
    ),
    (
        "not a capacity scheduler",
        lambda d: d["scheduler"]["scheduler"]["schedulerInfo"].update(type="fairScheduler"),
        "$.scheduler.scheduler.schedulerInfo.type",
        "capacityScheduler",
    ),
    (
        "allocation differs",
        lambda d: d["apps"]["apps"]["app"][1].update(allocatedMB=5),
        "$.apps.apps.app[1]",
        "says it has",
    ),
]


@pytest.mark.parametrize("name, mutate, place, fault", PLAIN_FAULTS, ids=[f[0] for f in PLAIN_FAULTS])
def test_bad_plain_snapshot(
    name: str, mutate: Callable[[Doc], None], place: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = copy.deepcopy(plain(EXAMPLE))
    mutate(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, err = run_preempt(path, capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith(f"yarnspec: error: {path}: {place}"), err
    assert fault in err, err


@pytest.mark.parametrize("name, mutate, place, fault", REST_FAULTS, ids=[f[0] for f in REST_FAULTS])
def test_bad_rest_snapshot(
    name: str, mutate: Callable[[Doc], None], place: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = copy.deepcopy(rest(EXAMPLE, load_scheduler_configuration(CONFIG)))
    mutate(document)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, err = run_preempt(path, capsys)
    assert status == 2
    assert err.count("\n") == 1 and f"{path}: " in err and place in err, err
    assert fault in err, err


@pytest.mark.parametrize(
    "text, place",
    [("{", "line 1 column 2"), ("[1]", "$"), ("{}", "$"), ("\xff", "line 1: is not UTF-8 text: byte 0xff at offset 0")],
)
def test_unreadable_snapshot(text: str, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(text.encode("latin-1"))
    status, err = run_preempt(path, capsys)
    assert status == 2 and err.startswith(f"yarnspec: error: {path}: {place}") and err.count("\n") == 1, err


def test_missing_snapshot_and_bad_rounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_preempt(tmp_path / "absent.json", capsys)
    assert status == 2 and "absent.json: no such file" in err
    path = tmp_path / "s.json"
    path.write_text(json.dumps(plain(EXAMPLE)), encoding="utf-8")
    with pytest.raises(SystemExit) as exited:  # refused by argparse, with the strict number grammar
        run_preempt(path, capsys, "--rounds", "0")
    err = capsys.readouterr().err
    assert (
        exited.value.code == 2
        and "argument --rounds: expected a whole number >= 1, got 0" in err
        and err.count("\n") == 1
    )


def test_an_accepted_application_without_containers_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the REST API reports -1 allocated and -1 running containers for an
    application that is ACCEPTED but not yet running; that is no inconsistency."""
    document = copy.deepcopy(rest(EXAMPLE, load_scheduler_configuration(CONFIG)))
    document["apps"]["apps"]["app"].append(
        {
            "id": "application_1732500000000_0099",
            "user": "new",
            "queue": "root.adhoc.sandbox",
            "state": "ACCEPTED",
            "allocatedMB": -1,
            "allocatedVCores": -1,
            "runningContainers": -1,
        }
    )
    path = tmp_path / "accepted.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    status, err = run_preempt(path, capsys, "--rounds", "1")
    assert status == 0, err
