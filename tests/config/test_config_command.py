"""``yarnspec config``: the report on the example files, JSON, arguments, and the docs' copy."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from yarnspec.checks.commands import config as config_command
from yarnspec.impl.cluster import Partition
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE_ARGS = ["docs/examples/capacity-scheduler.xml", "docs/examples/yarn-site.xml"]
PARTITION_ARGS = ["--partition", "=102400:96", "--partition", "gpu=32768:32:non-exclusive"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    parser = argparse.ArgumentParser(prog="yarnspec config")
    config_command.add_arguments(parser)
    assert config_command.run(parser.parse_args(argv)) == 0
    return capsys.readouterr().out


@pytest.fixture(autouse=True)
def _in_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PROJECT)


def test_report_on_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = run([*EXAMPLE_ARGS, *PARTITION_ARGS], capsys)
    queue_table = out.split("\n\n")[1].splitlines()  # the first table: one row per queue
    rows = {line.split()[0]: line.split() for line in queue_table[2:]}
    assert rows["root.prod.etl"][:5] == ["root.prod.etl", "40", "28", "80", "80"]
    assert "disabled" in rows["root.prod.serving"]
    assert re.search(r"root\.prod\s+\"\"\s+<71679, 67>\s+<102400, 96>", out)  # 0.7f of the partition
    assert re.search(r"root\.dev\s+gpu\s+<0, 0>\s+<32768, 32>", out)  # non-exclusive: max is the whole
    assert "total_preemption_per_round: 0.2  (set)" in out
    assert "Warnings" not in out


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(run([*EXAMPLE_ARGS, "--json", *PARTITION_ARGS], capsys))
    queues = {q["path"]: q for q in document["queues"]}
    assert queues["root.prod.serving"]["preemption_disabled"] is True
    assert queues["root.prod"]["relative_priority"] == 1
    assert queues["root.prod.etl"]["labels"]["gpu"]["capacity"] == "30"
    assert document["preemption"]["active"] is True
    assert document["allocation"]["maximum"] == {"memory": 16384, "vcores": 8}
    assert document["resources"]["root.prod.etl"]["gpu"]["guaranteed"] == {"memory": 9830, "vcores": 9}


def test_system_property_definitions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "capacity-scheduler.xml"
    path.write_text(
        "<configuration><property><name>yarn.scheduler.capacity.root.queues</name><value>${q}</value></property>"
        "<property><name>yarn.scheduler.capacity.root.a.capacity</name><value>100</value></property></configuration>",
        encoding="utf-8",
    )
    assert "root.a" in run([str(path), "-D", "q=a"], capsys)
    with pytest.raises(InputError, match=r"\$\{q\} refers to a property that is not set"):
        run([str(path)], capsys)


@pytest.mark.parametrize(
    ("argv", "fault"),
    [
        (["-D", "novalue"], "-D: expected NAME=VALUE, found 'novalue'"),
        (["--partition", "gpu=lots"], "--partition: expected LABEL=MEMORY:VCORES[:non-exclusive], found 'gpu=lots'"),
        (["--partition", "=10:1:non-exclusive"], "the default partition is always exclusive"),
        (["--partition", "gpu=10:1"], "the default partition '' is missing"),
        (["--partition", "=10:1"], "label 'gpu' is not a node label of the cluster"),
    ],
)
def test_bad_arguments_are_one_line_errors(argv: list[str], fault: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError) as caught:
        run([*EXAMPLE_ARGS, *argv], capsys)
    assert fault in str(caught.value)


def test_partition_parsing() -> None:
    assert config_command.parse_partitions(["=100:4", " x=8:2:exclusive", "y=1:1:non-exclusive"]) == [
        Partition("", Resource.of(100, 4)),
        Partition("x", Resource.of(8, 2)),
        Partition("y", Resource.of(1, 1), exclusive=False),
    ]


def _doc_block(marker: str) -> str:
    text = (PROJECT / "docs" / "configuration.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- {marker} -->\n```text\n(.*?)```", text, re.S)
    assert match is not None, f"no block after <!-- {marker} --> in docs/configuration.md"
    return match.group(1)


def test_the_documented_output_is_the_real_output(capsys: pytest.CaptureFixture[str]) -> None:
    block = _doc_block("output: example")
    command, _, output = block.partition("\n")
    argv = command.removeprefix("$ yarnspec config ").split()
    assert run([a.strip("'") for a in argv], capsys) == output


def test_the_documented_error_is_the_real_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    block = _doc_block("output: error")
    monkeypatch.chdir(tmp_path)
    text = (PROJECT / "docs" / "examples" / "capacity-scheduler.xml").read_text(encoding="utf-8")
    dev = "root.dev.capacity</name>\n    <value>"
    assert dev + "30<" in text
    (tmp_path / "capacity-scheduler.xml").write_text(text.replace(dev + "30<", dev + "20<"), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        run(["capacity-scheduler.xml"], capsys)
    assert block.splitlines()[1] == f"yarnspec: error: {caught.value}"
