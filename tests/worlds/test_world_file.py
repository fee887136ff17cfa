"""World files: compiled into scenarios, explored, traced, replayed; bad ones are one clear line."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from yarnspec.checks import cli
from yarnspec.checks.worlds.world_arguments import load_world
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource

PROJECT = Path(__file__).resolve().parents[2]
CLUSTER = PROJECT / "docs" / "examples" / "cluster"

#: Seed 003 as a world file, on an inline one-queue configuration.
SEED003 = """
name = "seed003"
story = "one queue, a small and a large node, async multi-node placement"

[configuration.properties]
"yarn.scheduler.capacity.root.queues" = "a"
"yarn.scheduler.capacity.root.a.capacity" = 100

[scheduler]
async = true
multi_node = true

[[nodes]]
memory = 4
vcores = 4

[[nodes]]
memory = 8
vcores = 8

[[apps]]
name = "app1"
queue = "a"
am = { memory = 1, vcores = 1 }
requests = [{ priority = 1, memory = 4, vcores = 1 }]

[environment]
events = ["submit", "ask", "complete", "release", "cancel", "finish-app", "tick"]

[bounds]
max_clock_ms = 1000
max_proposals = 2
max_ask = 1
max_containers = 4

[variants.yarn-8127]
commit = "yarn-8127"

[variants.yarn-10259]
commit = "yarn-8127"
multi_node_reserve = "yarn-10259"

[[questions]]
name = "starves"
property = "reservation-progress"
expect = "violated"
variants = ["yarn-8127"]

[[questions]]
name = "fixed"
property = "reservation-progress"
# YARN-10259 never reserves here: the property's premise is never reached
expect = "vacuous"
variants = ["yarn-10259"]
"""


def write(tmp_path: Path, text: str, name: str = "world.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_world_compiles_with_units_and_questions(tmp_path: Path) -> None:
    loaded = load_world(write(tmp_path, SEED003))
    scenario = loaded.scenario
    assert [v.name for v in scenario.variants] == ["starves@yarn-8127", "fixed@yarn-10259"]
    assert [v.expected for v in scenario.variants] == ["violated", "vacuous"]
    assert "1 unit = 1024 MB, 1 vcore (the minimum allocation)" in scenario.story
    world = loaded.worlds["yarn-10259"]
    assert [n.capacity for n in world.nodes] == [Resource.of(4096, 4), Resource.of(8192, 8)]
    assert (
        world.variants.yarn_10259
        and not world.variants.yarn_10293
        and world.settings.async_scheduling
        and world.settings.multi_node
    )
    assert scenario.quiet == frozenset() and not world.bounds.node_churn  # node events: off through the bounds


def test_units_scale_every_size(tmp_path: Path) -> None:
    text = SEED003.replace("[scheduler]", "[units]\nmemory_mb = 2048\nvcores = 2\n\n[scheduler]")
    loaded = load_world(write(tmp_path, text))
    world = loaded.worlds["yarn-8127"]
    assert world.nodes[0].capacity == Resource.of(8192, 8)
    assert world.apps[0].requests[1].capability == Resource.of(8192, 2)
    assert loaded.units.describe() == "1 unit = 2048 MB, 2 vcores"


def test_explore_world_traces_replays_and_emits_a_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = write(tmp_path, SEED003)
    trace, emitted = tmp_path / "trace.json", tmp_path / "test_emitted.py"
    argv = [
        "explore",
        "--world",
        str(world),
        "--variant",
        "starves@yarn-8127",
        "--trace-out",
        str(trace),
        "--emit-test",
        str(emitted),
    ]
    status, out, _ = run(argv, capsys)
    assert status == 0 and "verdict: violated, as expected (violated)" in out
    assert (
        json.loads(trace.read_text())["parameters"]["world"] == "world:seed003/starves@yarn-8127"
    )  # no path: the world is carried
    status, out, _ = run(["replay", str(trace)], capsys)
    assert status == 0 and "replayed" in out
    spec = importlib.util.spec_from_file_location("emitted", emitted)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_buggy_variant_still_shows_the_counterexample()


def test_explore_world_list_and_fixed_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = write(tmp_path, SEED003)
    status, out, _ = run(["explore", "--world", str(world), "--list"], capsys)
    assert status == 0 and "fixed@yarn-10259" in out and "expected vacuous" in out
    status, out, _ = run(["explore", "--world", str(world), "--variant", "fixed@yarn-10259"], capsys)
    assert (
        status == 0
        and "verdict: vacuous: the premise never holds in any reachable state (exhaustive), as expected (vacuous)"
        in out
    )


def test_check_adds_world_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = write(tmp_path, SEED003)
    status, out, _ = run(["check", "--worlds-only", "--world", str(world), "--json"], capsys)
    document = json.loads(out)
    assert status == 0 and [s["suite"] for s in document["suites"]] == [f"world/{world}"]
    assert document["suites"][0]["passed"] == 2


def test_check_explores_a_world_at_its_fast_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``check --world`` runs the file's ``fast`` bounds (on top of ``[explore]``), as it does
    the built-in scenarios; ``explore --world`` keeps the ``[explore]`` bounds."""
    world = write(tmp_path, SEED003 + "\n[explore]\nfast = { max_depth = 3 }\n")
    status, out, _ = run(["check", "--worlds-only", "--world", str(world), "--json"], capsys)
    variants = json.loads(out)["suites"][0]["variants"]
    assert {v["bounds"] for v in variants} == {"depth 3"}, variants
    status, out, _ = run(["explore", "--world", str(world), "--variant", "fixed@yarn-10259"], capsys)
    assert "holds (exhaustive)" in out


BAD = [
    ("not toml", lambda t: t + "\n[[nodes]\n", "line", "not valid TOML"),
    (
        "unknown key",
        lambda t: t.replace('name = "seed003"', 'name = "seed003"\ncolour = "red"'),
        "$",
        "'colour' was unexpected",
    ),
    (
        "negative node",
        lambda t: t.replace("memory = 4\nvcores = 4", "memory = -4\nvcores = 4", 1),
        "$.nodes[0].memory",
        "minimum of 1",
    ),
    (
        "missing file",
        lambda t: t.replace(
            "[configuration.properties]", '[configuration]\nfiles = ["nope.xml"]\n[configuration.properties]'
        ),
        "configuration.files[0]",
        "nope.xml: no such file",
    ),
    ("unknown queue", lambda t: t.replace('queue = "a"', 'queue = "zz"'), "apps[0].queue", "no queue matches 'zz'"),
    (
        "unknown property",
        lambda t: t.replace('property = "reservation-progress"\nexpect', 'property = "fairness"\nexpect'),
        "questions[0].property",
        "unknown property 'fairness'",
    ),
    (
        "unknown variant",
        lambda t: t.replace('variants = ["yarn-8127"]', 'variants = ["yarn-9999"]'),
        "questions[0].variants[0]",
        "no variant 'yarn-9999'",
    ),
    (
        "bad setup",
        lambda t: t.replace("[bounds]", "[bounds]\n", 1).replace(
            "events = [", 'setup = ["submit(app1)", "launch(c7)"]\nevents = ['
        ),
        "environment.setup[1]",
        "'launch(c7)' is not enabled after the steps before it",
    ),
    (
        "bad unit",
        lambda t: t.replace("[scheduler]", "[units]\nmemory_mb = 1000\n\n[scheduler]"),
        "units.memory_mb",
        "not a multiple of the minimum allocation",
    ),
    (
        "bad config value",
        lambda t: t.replace(
            '"yarn.scheduler.capacity.root.a.capacity" = 100', '"yarn.scheduler.capacity.root.a.capacity" = "lots"'
        ),
        "yarn.scheduler.capacity.root.a.capacity",
        "lots",
    ),
    (
        "unknown partition",
        lambda t: t.replace("memory = 8\nvcores = 8", 'memory = 8\nvcores = 8\npartition = "gpu"'),
        "nodes[1].partition",
        "unknown partition 'gpu'",
    ),
]


@pytest.mark.parametrize("name, edit, place, fault", BAD, ids=[b[0] for b in BAD])
def test_bad_world_is_one_line(
    name: str, edit: object, place: str, fault: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert callable(edit)
    world = write(tmp_path, edit(SEED003))
    status, out, err = run(["explore", "--world", str(world)], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert str(world) in err and place in err and fault in err, err


def test_missing_world_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_world(tmp_path / "absent.toml")


def test_the_realistic_worlds_give_their_verdicts(capsys: pytest.CaptureFixture[str]) -> None:
    """The two questions of docs/your-cluster.md on the realistic configuration."""
    worlds = [str(CLUSTER / "world-gpu-reservation.toml"), str(CLUSTER / "world-preemption.toml")]
    status, out, _ = run(["check", "--worlds-only", "--world", *worlds, "--json"], capsys)
    rows = {(v["variant"], v["verdict"]) for s in json.loads(out)["suites"] for v in s["variants"]}
    assert rows == {
        ("gpu-reservation-progress@hadoop-3-2", "violated"),
        ("gpu-reservation-progress-fixed@yarn-10259", "vacuous"),
        ("reporting-gets-its-guarantee", "violated"),
    }
    assert status == 1  # the operator expected reporting to get its guarantee
