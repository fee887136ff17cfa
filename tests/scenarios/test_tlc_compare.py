"""``benchmarks/tlc_compare.py``: bad input fails in one line with status 2 (never a
traceback), and TLC's statistics are translated into the explorer's terms."""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "tlc_compare.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tlc_compare", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tlc_compare"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


tlc_compare = _load()


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "YARNSPEC_TLA2TOOLS"}
    return subprocess.run(
        [sys.executable, str(BENCHMARK), *arguments], env=env, capture_output=True, text=True, timeout=60
    )


def _fails_cleanly(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tlc_compare: "), done.stderr
    for word in words:
        assert word in lines[0]


def _fake_jar(path: Path, entry: str = "tlc2/TLC.class") -> Path:
    with zipfile.ZipFile(path, "w") as jar:
        jar.writestr(entry, b"\xca\xfe\xba\xbe")
    return path


def test_without_tlc_it_says_how_to_get_it() -> None:
    _fails_cleanly(_run(), "--tla2tools", "YARNSPEC_TLA2TOOLS", "docs/exploring-at-scale.md")


def test_the_environment_variable_names_tlc(tmp_path: Path) -> None:
    env = dict(os.environ, YARNSPEC_TLA2TOOLS=str(tmp_path / "absent.jar"))
    done = subprocess.run([sys.executable, str(BENCHMARK)], env=env, capture_output=True, text=True, timeout=60)
    _fails_cleanly(done, "absent.jar", "no such file")


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    _fails_cleanly(_run("--tla2tools", str(tmp_path / "nowhere")), "nowhere", "no such file or folder")


def test_a_folder_without_tlc_is_refused(tmp_path: Path) -> None:
    _fails_cleanly(_run("--tla2tools", str(tmp_path)), "tlc2/TLC.class")


def test_a_file_that_is_not_a_jar_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "tla2tools.jar"
    text.write_text("not a zip")
    _fails_cleanly(_run("--tla2tools", str(text)), "not a jar")


def test_a_jar_without_tlc_is_refused(tmp_path: Path) -> None:
    jar = _fake_jar(tmp_path / "other.jar", "org/example/Main.class")
    _fails_cleanly(_run("--tla2tools", str(jar)), "other.jar", "tlc2/TLC.class")


def test_a_missing_java_is_named(tmp_path: Path) -> None:
    jar = _fake_jar(tmp_path / "tla2tools.jar")
    _fails_cleanly(_run("--tla2tools", str(jar), "--java", str(tmp_path / "no-java")), "--java", "no-java")


def test_repeat_must_be_positive(tmp_path: Path) -> None:
    _fails_cleanly(_run("--tla2tools", str(_fake_jar(tmp_path / "t.jar")), "--repeat", "0"), "--repeat")


def test_a_bad_repeat_is_argparses_usage_error() -> None:
    done = _run("--repeat", "x")
    assert done.returncode == 2 and "Traceback" not in done.stderr and "--repeat" in done.stderr


TLC_DONE = """\
Starting... (2026-11-25 18:21:09)
Computing initial states...
Finished computing initial states: {initial} distinct state{plural} generated at 2026-11-25 18:21:10.
Model checking completed. No error has been found.
{generated:,} states generated, {distinct:,} distinct states found, 0 states left on queue.
The depth of the complete state graph search is {depth}.
"""

TLC_VIOLATED = """\
Finished computing initial states: 1 distinct state generated at 2026-11-25 18:21:10.
Error: Invariant NodeUsedIsSum is violated.
Error: The behavior up to this point is:
412 states generated, 120 distinct states found, 33 states left on queue.
The depth of the complete state graph search is 21.
"""


@given(
    initial=st.integers(1, 50),
    transitions=st.integers(0, 10**9),
    distinct=st.integers(1, 10**8),
    depth=st.integers(1, 500),
)
def test_tlc_counts_become_the_explorers(initial: int, transitions: int, distinct: int, depth: int) -> None:
    output = TLC_DONE.format(
        initial=initial,
        plural="" if initial == 1 else "s",
        generated=initial + transitions,
        distinct=distinct,
        depth=depth,
    )
    assert tlc_compare.parse_tlc(output) == ("holds", distinct, transitions, depth - 1)


def test_a_violated_invariant_is_read_as_violated() -> None:
    assert tlc_compare.parse_tlc(TLC_VIOLATED) == ("violated", 120, 411, 20)


@pytest.mark.parametrize(
    "output",
    [
        "",
        "Error: TLC threw an unexpected exception.",
        TLC_DONE.format(initial=1, plural="", generated=5, distinct=5, depth=3).replace(
            "Model checking completed. No error has been found.\n", ""
        ),
    ],
)
def test_output_without_a_result_is_refused(output: str) -> None:
    with pytest.raises(ValueError):
        tlc_compare.parse_tlc(output)


def test_a_tlc_run_is_measured_and_its_counts_translated(tmp_path: Path) -> None:
    """A stand-in ``java`` that prints TLC's final lines: the run's command reaches it with the
    world's spec, config, workers and a metadir, and its counts come back translated."""
    record = tmp_path / "arguments"
    java = tmp_path / "java"
    output = TLC_DONE.format(initial=1, plural="", generated=268_725, distinct=33_118, depth=39)
    java.write_text(f"#!/bin/sh\necho \"$@\" > {record}\ncat <<'EOF'\n{output}EOF\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    figures = tlc_compare.run_tlc(str(java), "/some/tla2tools.jar", 2)
    assert (figures.verdict, figures.distinct_states, figures.transitions, figures.depth) == (
        "holds",
        33_118,
        268_724,
        38,
    )
    assert figures.tool == "TLC, 2 workers" and figures.wall_seconds > 0 and figures.peak_rss_mib > 0
    arguments = record.read_text().split()
    assert arguments[:5] == ["-XX:+UseParallelGC", "-cp", "/some/tla2tools.jar", "tlc2.TLC", "-workers"]
    assert arguments[5] == "2" and "-metadir" in arguments
    assert arguments[-3:] == ["-config", "AsyncDoubleCommit.cfg", "AsyncDoubleCommit.tla"]


def test_a_tlc_failure_is_one_line(tmp_path: Path) -> None:
    java = tmp_path / "java"
    java.write_text("#!/bin/sh\necho 'Error: could not find or load main class tlc2.TLC' >&2\nexit 1\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(tlc_compare.UsageError, match="could not find or load main class"):
        tlc_compare.run_tlc(str(java), "/some/tla2tools.jar", 1)


def _figures(tool: str, wall: float, cpu: float = 4.0, rss: float = 100.0, states: int = 33_118) -> object:
    return tlc_compare.Figures(tool, "holds", states, 268_724, 38, wall, cpu, rss, wall - 0.3)


def test_the_explorer_runs_with_one_worker_and_with_two() -> None:
    one, two = tlc_compare.yarnspec_command(1), tlc_compare.yarnspec_command(2)
    assert "--workers" not in one and one[-1] == "--json"
    assert two[two.index("--workers") + 1] == "2" and two[-1] == "--json"
    assert one[3:-1] == ["explore", *tlc_compare.EXPLORE] == [a for a in two[3:-1] if a not in ("--workers", "2")]


def test_ratios_put_each_run_against_each_and_the_fastest_on_two_cores() -> None:
    best = {
        "tlc1": _figures("TLC, 1 worker", 3.0, cpu=4.8, rss=500.0),
        "tlc2": _figures("TLC, 2 workers", 3.6, cpu=5.4, rss=520.0),
        "yarnspec": _figures("yarnspec, 1 worker", 4.2, cpu=4.2, rss=72.0),
        "yarnspec2": _figures("yarnspec, 2 workers", 2.7, cpu=5.1, rss=150.0, states=33_117),
    }
    found = tlc_compare.ratios(best)
    assert set(found) == {"yarnspec/tlc1", "yarnspec/tlc2", "yarnspec2/tlc1", "yarnspec2/tlc2", "two_cores"}
    assert found["yarnspec/tlc1"] == {"wall": 1.4, "cpu": 0.88, "rss": 0.14, "same_counts": True}
    assert found["yarnspec2/tlc2"]["wall"] == 0.75 and found["yarnspec2/tlc2"]["same_counts"] is False
    # the fastest of each: ours with two workers (2.7 s) against TLC with one (3.0 s)
    assert found["two_cores"] == {"wall": 0.9, "cpu": 1.06, "rss": 0.3, "same_counts": False}


def test_the_warm_up_fills_the_bytecode_cache_even_where_caching_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = tlc_compare.bytecode_cached(tmp_path)
    assert "PYTHONDONTWRITEBYTECODE" not in env and env["PYTHONPYCACHEPREFIX"] == str(tmp_path)
    tlc_compare.warm_up(env)
    compiled = {path.name.split(".")[0] for path in tmp_path.rglob("*.pyc")}
    assert {"bfs", "model", "accounting"} <= compiled
