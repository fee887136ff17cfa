"""A trace of a world file carries the world: copied alone to another folder, it replays,
its emitted regression test passes, and it opens in the viewer; it holds no path."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from yarnspec.checks import cli
from yarnspec.checks.explore.trace import Trace
from yarnspec.impl.errors import InputError

PROJECT = Path(__file__).resolve().parents[2]
#: The docs' own world: it names a capacity-scheduler.xml and a yarn-site.xml beside it.
PREEMPTION = PROJECT / "docs" / "examples" / "cluster" / "world-preemption.toml"

#: A one-queue world (seed 003) with a fixed variant, so the emitted test has both tests.
SEED003 = """
name = "seed003"

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
expect = "violated"

[variants.yarn-10259]
commit = "yarn-8127"
multi_node_reserve = "yarn-10259"

[[questions]]
property = "reservation-progress"
"""


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def write_trace(world: Path, folder: Path, capsys: pytest.CaptureFixture[str], *options: str) -> tuple[Path, Path]:
    """Explore ``world`` and write its trace and regression test into ``folder``."""
    trace, emitted = folder / "trace.json", folder / "test_regression.py"
    status, out, err = run(
        ["explore", "--world", str(world), *options, "--trace-out", str(trace), "--emit-test", str(emitted)], capsys
    )
    assert "verdict: violated" in out, out + err
    return trace, emitted


def copied_alone(files: list[Path], elsewhere: Path) -> list[Path]:
    elsewhere.mkdir()
    return [Path(shutil.copy(f, elsewhere / f.name)) for f in files]


def run_pytest(path: Path) -> subprocess.CompletedProcess[str]:
    (path.parent / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        capture_output=True, text=True, timeout=300, cwd=path.parent,
    )  # fmt: skip


@pytest.mark.parametrize("which", ["seed003", "world-preemption"])
def test_a_trace_copied_alone_replays_emits_and_renders_elsewhere(
    which: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    written = tmp_path / "written"
    written.mkdir()
    if which == "seed003":
        world = written / "seed003.toml"
        world.write_text(SEED003, encoding="utf-8")
        trace, emitted = write_trace(world, written, capsys, "--variant", "yarn-8127")
    else:
        world = written / "world-preemption.toml"  # the docs' world and the two files it names, copied
        for name in ("world-preemption.toml", "capacity-scheduler.xml", "yarn-site.xml"):
            shutil.copy(PREEMPTION.parent / name, written / name)
        trace, emitted = write_trace(world, written, capsys)
    text = trace.read_text(encoding="utf-8")
    assert (
        str(tmp_path) not in text and "written" not in text and ".toml" not in text
    )  # no path of the world, absolute or relative
    document = json.loads(text)
    assert document["version"] == 2 and len(document["world"]["sha256"]) == 64
    assert str(tmp_path) not in emitted.read_text(encoding="utf-8")

    trace_copy, test_copy = copied_alone([trace, emitted], tmp_path / "elsewhere")
    shutil.rmtree(written)  # the world is gone: only the copies are left
    monkeypatch.chdir(trace_copy.parent)
    status, out, _ = run(["replay", trace_copy.name], capsys)
    assert status == 0 and f"replayed {len(document['steps']) - 1} steps of trace.json: progress" in out
    status, out, err = run(["show", trace_copy.name, "--html", "viewer.html"], capsys)
    assert status == 0 and "trace viewer written to viewer.html" in err
    assert 'id="trace-data"' in (trace_copy.parent / "viewer.html").read_text(encoding="utf-8")
    result = run_pytest(test_copy)
    passed = "2 passed" if which == "seed003" else "1 passed"
    assert result.returncode == 0 and passed in result.stdout, result.stdout + result.stderr


def test_an_edited_world_is_one_line_naming_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = tmp_path / "seed003.toml"
    world.write_text(SEED003, encoding="utf-8")
    trace, _ = write_trace(world, tmp_path, capsys, "--variant", "yarn-8127")
    document = json.loads(trace.read_text(encoding="utf-8"))
    document["world"]["document"]["nodes"][0]["memory"] = 5  # a bigger node, the digest unchanged
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document), encoding="utf-8")
    status, out, err = run(["replay", str(edited)], capsys)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith(f"yarnspec: error: {edited}: world.sha256: ") and "does not match the embedded world" in err
    with pytest.raises(InputError, match="world.sha256"):
        Trace.load(edited)


def test_a_version_1_trace_naming_its_world_by_path_still_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "seed003.toml"
    world.write_text(SEED003, encoding="utf-8")
    trace, _ = write_trace(world, tmp_path, capsys, "--variant", "yarn-8127")
    document = json.loads(trace.read_text(encoding="utf-8"))
    del document["world"]
    document |= {"version": 1, "parameters": document["parameters"] | {"world": f"world:{world}/yarn-8127"}}
    old = tmp_path / "old.json"
    old.write_text(json.dumps(document), encoding="utf-8")
    status, out, _ = run(["replay", str(old)], capsys)
    assert status == 0 and "replayed" in out
