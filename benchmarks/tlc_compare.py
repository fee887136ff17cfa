"""Benchmark: yarnspec's explorer against TLC on the same world, in one run.

Run as ``.venv/bin/python benchmarks/tlc_compare.py --tla2tools PATH`` (or set
``YARNSPEC_TLA2TOOLS``): ``PATH`` is TLC's ``tla2tools.jar`` or a folder of its compiled classes
(docs/exploring-at-scale.md, "Comparing with TLC", says how to get or build one). Four runs
of the ``async-double-commit`` world, variant ``yarn-8127``, are measured, interleaved
``--repeat N`` times so that the load of a shared machine falls on all alike:

* TLC with ``-workers 1`` and with ``-workers 2`` on ``benchmarks/tla/AsyncDoubleCommit.tla``
  (our own TLA+ text of the world), each in a fresh ``-metadir``;
* ``yarnspec explore async-double-commit --variant yarn-8127 --no-symmetry --exhaustive``
  of this tree, with one worker and with ``--workers 2``.

Each is a fresh process; the figures are its wall-clock and CPU seconds (user + system, from
``wait4``) and peak RSS, so start-up (the JVM and TLA+ parsing, Python imports and the model
build) counts on both sides. TLC's classes come compiled in its jar; the explorer's modules are
compiled once, by an untimed short run, into a bytecode cache in a temporary folder (as pip
compiles an installed package's), even on a machine that sets ``PYTHONDONTWRITEBYTECODE``.
The explorer's own search seconds are shown too. The best (least wall) of the repeats is kept
per run; ratios are yarnspec / TLC (above 1: TLC is faster),
each of the explorer's runs against each of TLC's, and the best of each tool on two cores
(either worker count) against each other. The peak RSS of the explorer with two workers is
the sum of its processes' peaks (as it reports it), not the largest process's.

The counts must correspond, or the exit status is 1: TLC's distinct states are the explorer's;
TLC's "states generated" counts the initial states too, so it is the explorer's transitions
plus TLC's initial states; TLC's depth counts states on the longest path, one more than the
explorer's steps; both find every invariant holding. Prints the table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "benchmarks" / "tla" / "AsyncDoubleCommit.tla"
CONFIG = SPEC.with_suffix(".cfg")
ENV_VAR = "YARNSPEC_TLA2TOOLS"
TLC_MAIN = "tlc2/TLC.class"
EXPLORE = ["async-double-commit", "--variant", "yarn-8127", "--no-symmetry", "--exhaustive"]
#: A short run of the same world, which imports what the measured runs import.
WARM_UP = ["async-double-commit", "--variant", "yarn-8127", "--no-symmetry", "--max-depth", "1"]
HOW_TO_GET_TLC = (
    f"no TLC given: pass --tla2tools PATH or set {ENV_VAR} to tla2tools.jar or a folder of its classes "
    "(docs/exploring-at-scale.md, 'Comparing with TLC', says how to get or build one)"
)


class UsageError(Exception):
    """Bad input to the benchmark: reported as one line on stderr, exit status 2."""


@dataclass
class Measured:
    """One finished process: its output and what it cost."""

    output: str
    errors: str
    returncode: int
    wall_seconds: float
    cpu_seconds: float
    peak_rss_mib: float


@dataclass
class Figures:
    """One run's result in the explorer's terms (TLC's counts translated, see the module
    docstring) and its cost."""

    tool: str
    verdict: str
    distinct_states: int
    transitions: int
    depth: int
    wall_seconds: float
    cpu_seconds: float
    peak_rss_mib: float
    search_seconds: float | None = None

    @property
    def states_per_second(self) -> float:
        """Distinct states per wall-clock second of the whole process."""
        return self.distinct_states / self.wall_seconds

    def as_json(self) -> dict[str, Any]:
        """The figures with the derived rate, rounded for the JSON line."""
        out = asdict(self)
        out["states_per_second"] = round(self.states_per_second, 1)
        for key in ("wall_seconds", "cpu_seconds", "search_seconds", "peak_rss_mib"):
            if out[key] is not None:
                out[key] = round(out[key], 3)
        return out


def measure(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> Measured:
    """Run ``command`` to its end and measure its wall time, CPU time and peak RSS (the
    child's own resource usage, from ``wait4``)."""
    with tempfile.TemporaryFile("w+") as output, tempfile.TemporaryFile("w+") as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=errors, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        output.seek(0)
        errors.seek(0)
        texts = output.read(), errors.read()
    rss_mib = usage.ru_maxrss / 1024  # kilobytes on Linux
    return Measured(*texts, process.returncode, wall, usage.ru_utime + usage.ru_stime, rss_mib)


# -- TLC ------------------------------------------------------------------------------------


def tlc_classpath(given: str | None) -> str:
    """The TLC class path from ``--tla2tools`` or the environment, checked to hold TLC."""
    if not given:
        raise UsageError(f"--tla2tools: {HOW_TO_GET_TLC}")
    path = Path(given).expanduser()
    if path.is_dir():
        if not (path / TLC_MAIN).is_file():
            raise UsageError(f"--tla2tools: {path}: a folder without {TLC_MAIN} (not TLC's classes)")
    elif path.is_file():
        try:
            with zipfile.ZipFile(path) as jar:
                if TLC_MAIN not in jar.namelist():
                    raise UsageError(f"--tla2tools: {path}: a jar without {TLC_MAIN} (not tla2tools.jar)")
        except zipfile.BadZipFile:
            raise UsageError(f"--tla2tools: {path}: not a jar file") from None
    else:
        raise UsageError(f"--tla2tools: {path}: no such file or folder")
    return str(path.resolve())


_GENERATED = re.compile(r"([\d,]+) states generated, ([\d,]+) distinct states found, ([\d,]+) states left on queue")
_INITIAL = re.compile(r"Finished computing initial states: ([\d,]+) distinct states? generated")
_DEPTH = re.compile(r"The depth of the complete state graph search is (\d+)\.")
_VIOLATED = re.compile(r"Error: Invariant (\S+) is violated")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def parse_tlc(output: str) -> tuple[str, int, int, int]:
    """TLC's verdict, distinct states, transitions and depth in the explorer's terms: states
    generated less the initial states, and the depth less one (TLC counts the states on the
    longest path). ``ValueError`` if the output has no final statistics."""
    generated, initial, depth = _GENERATED.search(output), _INITIAL.search(output), _DEPTH.search(output)
    if generated is None or initial is None:
        raise ValueError("TLC printed no final state counts")
    if "Model checking completed. No error has been found." in output:
        verdict = "holds"
    elif _VIOLATED.search(output):
        verdict = "violated"
    else:
        raise ValueError("TLC neither completed nor reported a violated invariant")
    transitions = _number(generated.group(1)) - _number(initial.group(1))
    return verdict, _number(generated.group(2)), transitions, (int(depth.group(1)) - 1) if depth else 0


def run_tlc(java: str, classpath: str, workers: int) -> Figures:
    """One TLC run of the world with ``workers`` workers, in a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="yarnspec-tlc-") as folder:
        work = Path(folder)
        shutil.copy(SPEC, work)
        shutil.copy(CONFIG, work)
        command = [
            java, "-XX:+UseParallelGC", "-cp", classpath, "tlc2.TLC", "-workers", str(workers),
            "-metadir", str(work / "states"), "-config", CONFIG.name, SPEC.name,
        ]  # fmt: skip
        done = measure(command, work)
    try:
        verdict, states, transitions, depth = parse_tlc(done.output)
    except ValueError as fault:
        tail = " | ".join((done.output + done.errors).strip().splitlines()[-3:])
        raise UsageError(f"TLC ({classpath}, {workers} worker(s)): {fault}; it ended with: {tail}") from None
    return Figures(_name("TLC", workers), verdict, states, transitions, depth,
                   done.wall_seconds, done.cpu_seconds, done.peak_rss_mib)  # fmt: skip


# -- yarnspec ---------------------------------------------------------------------------------


def yarnspec_command(workers: int, explore: list[str] = EXPLORE) -> list[str]:
    """The ``yarnspec explore --json`` command of this tree's code (``explore``'s arguments) with
    ``workers`` workers."""
    parallel = ["--workers", str(workers)] if workers > 1 else []
    return [
        sys.executable,
        "-c",
        "from yarnspec.checks.cli import main; raise SystemExit(main())",
        "explore",
        *explore,
        *parallel,
        "--json",
    ]


def bytecode_cached(folder: Path) -> dict[str, str]:
    """The environment of the explorer's runs: its modules' bytecode cached under ``folder``
    (as an installed package's is: pip compiles it), even where the machine turns caching off
    with ``PYTHONDONTWRITEBYTECODE``; filled by :func:`warm_up`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPATH": str(ROOT / ".typecheck"), "PYTHONPYCACHEPREFIX": str(folder)}


def warm_up(env: dict[str, str]) -> None:
    """One untimed short run of the explorer, which compiles every module it imports into the
    bytecode cache of ``env``."""
    done = measure(yarnspec_command(1, WARM_UP), ROOT, env)
    if done.returncode != 0:
        tail = done.errors.strip().splitlines()[-1:] or ["nothing on stderr"]
        raise UsageError(f"yarnspec explore (warm-up) failed: {tail[0]}")


def run_yarnspec(env: dict[str, str], workers: int = 1) -> Figures:
    """One ``yarnspec explore --json`` run of this tree's code with ``workers`` workers, in
    ``env``. Its CPU time counts the worker processes (``wait4`` adds the children the explorer
    waited for); its peak RSS is the explorer's own figure for all its processes when it has
    workers."""
    command = yarnspec_command(workers)
    done = measure(command, ROOT, env)
    try:
        document = json.loads(done.output)
    except json.JSONDecodeError:
        tail = done.errors.strip().splitlines()[-1:] or ["nothing on stderr"]
        raise UsageError(f"{' '.join(['yarnspec', *command[3:]])} printed no JSON: {tail[0]}") from None
    stats = document["stats"]
    rss_mib = done.peak_rss_mib if workers == 1 else max(done.peak_rss_mib, stats["peak_rss_bytes"] / 2**20)
    return Figures(_name("yarnspec", workers), document["verdict"], stats["distinct_states"], stats["transitions"],
                   stats["depth"], done.wall_seconds, done.cpu_seconds, rss_mib, stats["seconds"])  # fmt: skip


def _name(tool: str, workers: int) -> str:
    """``TLC, 1 worker``, ``yarnspec, 2 workers``, ..."""
    return f"{tool}, {workers} worker{'s' if workers > 1 else ''}"


# -- the comparison ---------------------------------------------------------------------------


def fastest(runs: list[Figures]) -> Figures:
    """The run with the least wall-clock time."""
    return min(runs, key=lambda f: f.wall_seconds)


def agree(tlc: Figures, yarnspec: Figures) -> bool:
    """Whether TLC and the explorer reached the same states, transitions, depth and verdict."""
    return (tlc.verdict, tlc.distinct_states, tlc.transitions, tlc.depth) == (
        yarnspec.verdict, yarnspec.distinct_states, yarnspec.transitions, yarnspec.depth
    )  # fmt: skip


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line (``UsageError`` on a bad value)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--tla2tools",
        default=os.environ.get(ENV_VAR),
        help=f"tla2tools.jar or a folder of TLC's classes (default: ${ENV_VAR})",
    )
    parser.add_argument("--repeat", type=int, default=1, help="rounds of the four runs, interleaved (default 1)")
    parser.add_argument("--java", default="java", help="the Java launcher (default: java on PATH)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        raise UsageError(f"--repeat: {args.repeat}: must be at least 1")
    args.classpath = tlc_classpath(args.tla2tools)
    java = shutil.which(args.java)
    if java is None:
        raise UsageError(f"--java: {args.java}: no such program (TLC needs Java 11 or later)")
    args.java = str(Path(java).resolve())  # TLC runs in a folder of its own
    return args


def main(argv: list[str] | None = None) -> int:
    """Run TLC and the explorer interleaved, print the figures; 1 if the counts differ, 2 on
    bad input."""
    try:
        args = parse_arguments(argv)
        runs: dict[str, list[Figures]] = {name: [] for name in RUNS}
        with tempfile.TemporaryDirectory(prefix="yarnspec-bytecode-") as cache:
            env = bytecode_cached(Path(cache))
            warm_up(env)
            for _ in range(args.repeat):
                runs["tlc1"].append(run_tlc(args.java, args.classpath, 1))
                runs["tlc2"].append(run_tlc(args.java, args.classpath, 2))
                runs["yarnspec"].append(run_yarnspec(env, 1))
                runs["yarnspec2"].append(run_yarnspec(env, 2))
    except UsageError as fault:
        print(f"tlc_compare: {fault}", file=sys.stderr)
        return 2
    best = {name: fastest(found) for name, found in runs.items()}
    report(best, runs, args.repeat)
    return 0 if all(agree(best[tlc], best[ours]) for tlc in TLC_RUNS for ours in OUR_RUNS) else 1


#: The runs of a round: TLC's and the explorer's, one worker and two.
TLC_RUNS, OUR_RUNS = ("tlc1", "tlc2"), ("yarnspec", "yarnspec2")
RUNS = (*TLC_RUNS, *OUR_RUNS)


def ratio(ours: Figures, tlc: Figures) -> dict[str, float | bool]:
    """Our wall, CPU and peak RSS over TLC's, and whether the counts agree."""
    return {
        "wall": round(ours.wall_seconds / tlc.wall_seconds, 2),
        "cpu": round(ours.cpu_seconds / tlc.cpu_seconds, 2),
        "rss": round(ours.peak_rss_mib / tlc.peak_rss_mib, 2),
        "same_counts": agree(tlc, ours),
    }


def ratios(best: dict[str, Figures]) -> dict[str, dict[str, float | bool]]:
    """Each of our runs against each of TLC's (``yarnspec2/tlc1``: ours with two workers over
    TLC's one), and ``two_cores``: the faster of ours over the faster of TLC's."""
    found = {f"{ours}/{tlc}": ratio(best[ours], best[tlc]) for ours in OUR_RUNS for tlc in TLC_RUNS}
    found["two_cores"] = ratio(*_two_cores(best))
    return found


def _two_cores(best: dict[str, Figures]) -> tuple[Figures, Figures]:
    """The faster of our runs and the faster of TLC's."""
    return fastest([best[n] for n in OUR_RUNS]), fastest([best[n] for n in TLC_RUNS])


def report(best: dict[str, Figures], runs: dict[str, list[Figures]], repeat: int) -> None:
    """The human table, the ratios and the JSON line."""
    print(f"async-double-commit/yarn-8127, no symmetry, exhaustive: best of {repeat} interleaved round(s)\n")
    print(
        f"{'run':<20} {'verdict':<8} {'states':>7} {'transitions':>11} {'depth':>5} {'wall s':>7} {'CPU s':>7} {'states/s':>9} {'RSS MiB':>8}"
    )
    for figures in best.values():
        print(
            f"{figures.tool:<20} {figures.verdict:<8} {figures.distinct_states:>7,} {figures.transitions:>11,} {figures.depth:>5} "
            f"{figures.wall_seconds:>7.2f} {figures.cpu_seconds:>7.2f} {figures.states_per_second:>9,.0f} {figures.peak_rss_mib:>8.1f}"
        )
    searches = ", ".join(f"{best[n].search_seconds:.2f} s ({best[n].tool})" for n in OUR_RUNS)
    print(f"(yarnspec's own search time: {searches}; wall, CPU and RSS are whole processes;")
    print(" yarnspec's modules were compiled into a bytecode cache before the rounds, as an installed package's are)\n")
    compared = ratios(best)
    for pair, figures in compared.items():
        if pair == "two_cores":
            ours, tlc = _two_cores(best)
            title = f"two cores, fastest of each ({ours.tool} / {tlc.tool})"
        else:
            ours_name, tlc_name = pair.split("/")
            title = f"{best[ours_name].tool} / {best[tlc_name].tool}"
        counts = "same states, transitions, depth and verdict" if figures["same_counts"] else "COUNTS DIFFER"
        print(
            f"{title}: wall {figures['wall']:.2f}x, CPU {figures['cpu']:.2f}x, peak RSS {figures['rss']:.2f}x; {counts}"
        )
    print(
        json.dumps(
            {
                "benchmark": "tlc_compare",
                "world": "async-double-commit/yarn-8127",
                "repeat": repeat,
                "best": {name: figures.as_json() for name, figures in best.items()},
                "all_wall_seconds": {name: [round(f.wall_seconds, 3) for f in found] for name, found in runs.items()},
                "yarnspec_over_tlc": compared,
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
