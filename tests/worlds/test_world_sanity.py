"""Implausible sizes in a world file are warnings naming the key; ``--strict`` makes them errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from yarnspec.checks import cli
from yarnspec.checks.worlds.world_arguments import load_world

#: Two queues (90 % / 10 %) on 2048 MB units; {node} and {node2} are the nodes' memory in units,
#: {am} and {request} app1's sizes in units.
WORLD = """
[configuration.properties]
"yarn.scheduler.minimum-allocation-mb" = 2048
"yarn.scheduler.capacity.root.queues" = "a,b"
"yarn.scheduler.capacity.root.a.capacity" = 90
"yarn.scheduler.capacity.root.b.capacity" = 10

[[nodes]]
memory = {node}
vcores = 4

[[nodes]]
memory = {node2}
vcores = 4

[[apps]]
name = "app1"
queue = "{queue}"
am = {{ memory = {am}, vcores = 1 }}
requests = [{{ priority = 1, memory = {request}, vcores = 1 }}]

[[questions]]
property = "invariants"
"""


def world(tmp_path: Path, node: int = 4, queue: str = "a", am: int = 1, request: int = 1, node2: int = 4) -> Path:
    path = tmp_path / "world.toml"
    path.write_text(WORLD.format(node=node, queue=queue, am=am, request=request, node2=node2), encoding="utf-8")
    return path


def warnings(path: Path) -> list[tuple[str, str]]:
    return [(w.place, w.message) for w in load_world(path).warnings]


def test_a_plausible_world_has_no_warning(tmp_path: Path) -> None:
    assert warnings(world(tmp_path)) == []


def test_a_node_in_mb_by_mistake_says_what_it_was_read_as(tmp_path: Path) -> None:
    ((place, message),) = warnings(world(tmp_path, node=4096))
    assert place == "nodes[0].memory"
    assert message == (
        "4096 units read as 8,388,608 MB (1 unit = 2048 MB, 1 vcore (the minimum allocation)), 1,024 times the maximum "
        "allocation 8,192 MB; if 4096 was meant in MB, write memory = 2"
    )


def test_a_node_just_below_the_threshold_is_plausible(tmp_path: Path) -> None:
    assert warnings(world(tmp_path, node=399)) == []  # 399 x 2048 MB < 100 x 8192 MB
    assert [p for p, _ in warnings(world(tmp_path, node=400))] == ["nodes[0].memory"]


def test_a_guarantee_too_small_for_an_am_and_a_container(tmp_path: Path) -> None:
    # root.b: 10 % of 16 GB = 1638 MB, less than a 2048 MB AM plus a 2048 MB container
    ((place, message),) = warnings(world(tmp_path, queue="b"))
    assert place == "apps[0].queue"
    assert message.startswith(
        "root.b's guarantee at this world's size is <1638, 0>, less than app1's AM plus one container (<4096, 2>)"
    )


def test_a_request_larger_than_every_node(tmp_path: Path) -> None:
    found = warnings(world(tmp_path, node=2, node2=2, request=3))  # 6 GB, on 4 GB nodes
    assert (
        "apps[0].requests[0]",
        "<6144, 1> is larger than every node of its partition (the largest: <4096, 4>): never allocated",
    ) in found


def test_explore_prints_warnings_and_strict_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = world(tmp_path, node=4096)
    status = cli.main(["explore", "--world", str(path), "--max-depth", "1", "--accept", "not-refuted"])
    captured = capsys.readouterr()
    assert status == 0 and captured.err.startswith(
        f"yarnspec: warning: {path}: nodes[0].memory: 4096 units read as 8,388,608 MB"
    )
    status = cli.main(["explore", "--world", str(path), "--strict"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"yarnspec: error: {path}: nodes[0].memory: ") and captured.err.endswith(
        "(an error under --strict)\n"
    )
    assert (
        cli.main(
            ["explore", "--world", str(world(tmp_path)), "--strict", "--max-depth", "1", "--accept", "not-refuted"]
        )
        == 0
    )


def test_check_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = world(tmp_path, queue="b")
    status = cli.main(["check", "--worlds-only", "--world", str(path), "--strict"])
    captured = capsys.readouterr()
    assert status == 2 and captured.err.startswith(f"yarnspec: error: {path}: apps[0].queue: root.b's guarantee")
    assert cli.main(["explore", "no-leak", "--strict"]) == 2
    assert capsys.readouterr().err == "yarnspec: error: explore: --strict: applies only with --world FILE\n"
