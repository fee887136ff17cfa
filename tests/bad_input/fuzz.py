"""Seeded malformed inputs for ``yarnspec`` and the classification of what each one does.

Four families, each made by mutating real inputs: configuration XML (the shipped examples),
case files (the shipped examples and the shared conformance cases, read at run time), traces
(the shipped trace and a toy-model trace) and command lines. :func:`run_cli` runs one input
through the real entry point (``checks/cli.py`` ``main``) in-process with stdout and stderr
captured and an alarm as the hang detector, and classifies the outcome:

- ``ok``: exit 0, 1, 3 or 4 (an answer: as expected, violated or a case that failed, not
  refuted, vacuous), every error line one line;
- ``error``: exit 2 with exactly one stderr line, ``yarnspec: error: ...``, naming the input;
- ``traceback``: an exception escaped ``main``;
- ``hang``: the alarm went off;
- ``multi-line`` / ``unnamed``: an error over several lines, or one that names neither the
  file nor the option.

Run as a program (``python tests/bad_input/fuzz.py [N] [SEED]``) it runs a campaign of N inputs
per family and prints the counts per family and outcome, and the first bad outcomes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from yarnspec.checks.cli import main
from yarnspec.checks.conformance.paths import default_conformance_dir
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.checks.explore.trace import build_trace
from yarnspec.impl.input_files import shown_name

PROJECT_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = PROJECT_ROOT / "docs" / "examples"
FAMILIES = ("config", "case", "trace", "argv")
GOOD = ("ok", "error")

#: Values that replace a JSON node: wrong types, out-of-range numbers, other scripts' digits.
BAD_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    "x",
    "",
    "\n",
    1.5,
    -5,
    -1,
    0,
    2**31,
    2**63,
    2**64,
    10**29,
    -(10**29),
    1e308,
    -1e308,
    1e-320,
    [],
    {},
    [[[]]],
    {"a": 1},
    [None],
    ["x", 1],
    "\u0665\u0660",
    "1_024",
    "\uff16\uff10",
    "NaN",
    "0x10",
    "-inf",
)
#: Values that replace a configuration value (the number grammar's hard cases among them).
BAD_TEXTS = (
    "",
    " ",
    "x",
    "-1",
    "1_024",
    "\uff16\uff10",
    "\u0665\u0660",
    "0x10",
    "0.5f",
    "100d",
    "1e999",
    "NaN",
    "Infinity",
    "9223372036854775808",
    "2147483648",
    "-0",
    "1e-50",
    "true",
    "TRUE ",
    "[memory=1]",
    "[memory=99999999999999999999]",
    "2w",
    "-1w",
    "${undefined}",
    "${x}${x}",
    "a,,b",
    "prod, dev",
    "\u00a050",
    "50%",
    "5" * 400,
    "\u0000",
)
#: Option values that no option accepts.
BAD_ARGUMENTS = (
    "\u0661,\u0662",
    "\u00b2,2",
    "-1",
    "1_0",
    "",
    " ",
    "9" * 5000,
    "1e3",
    "0x10",
    "\n",
    "nan",
    "x",
    "\u0665",
    "99999999999999999999999",
    "1,2,3",
    ",",
    "\udcff",
    "-",
    "0,0",
    "9,999",
)


@dataclass(frozen=True)
class Outcome:
    """What one input did: ``kind`` is one of the module docstring's classes."""

    kind: str
    detail: str


class _Hang(BaseException):
    """Raised by the alarm: the input ran longer than its budget."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Hang()


def run_cli(argv: list[str], names: tuple[str, ...], seconds: int = 20) -> Outcome:
    """Run ``yarnspec argv`` in-process and classify it; an error must mention one of ``names``."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except SystemExit as exc:  # argparse's own exit
        status = exc.code if isinstance(exc.code, int) else 2
    except _Hang:
        return Outcome("hang", f"{argv!r} ran more than {seconds} s")
    except BaseException:  # noqa: BLE001 - any escape is the finding
        return Outcome("traceback", f"{argv!r}\n{traceback.format_exc()}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return classify(status, out.getvalue(), err.getvalue(), names, argv)


def classify(status: int, stdout: str, stderr: str, names: tuple[str, ...], argv: list[str]) -> Outcome:
    """The class of a finished run (see the module docstring)."""
    # warnings (a world's implausible sizes) may come before the one error line
    lines = [line for line in stderr.splitlines() if not line.startswith("yarnspec: warning: ")]
    if status == 2:
        if len(lines) != 1 or not lines[0].startswith("yarnspec: error: "):
            return Outcome("multi-line", f"{argv!r}: {stderr!r}")
        if not any(name in lines[0] for name in names):
            return Outcome("unnamed", f"{argv!r}: {lines[0]!r}")
        return Outcome("error", lines[0])
    if status in (0, 1, 3, 4):  # an answer: as expected, violated, not refuted, vacuous
        crashed = [line for line in stdout.splitlines() if "the policy raised" in line]
        if crashed:
            return Outcome("traceback", f"{argv!r}: {crashed[0]!r}")
        malformed = [line for line in stdout.splitlines() if "malformed case:" in line]
        if any(not any(name in line for name in names) for line in malformed):
            return Outcome("unnamed", f"{argv!r}: {malformed[0]!r}")
        return Outcome("ok", f"exit {status}" + (", malformed case" if malformed else ""))
    return Outcome("traceback", f"{argv!r}: exit {status}: {stderr[-500:]!r}")


# -- mutations -------------------------------------------------------------------------------


def _json_places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _json_places(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_places(item, (*path, index))


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


def _delete(value: Any, path: tuple[Any, ...]) -> Any:
    if len(path) == 1:
        copy = dict(value) if isinstance(value, dict) else list(value)
        del copy[path[0]]
        return copy
    return _replace(value, path[:1], _delete(value[path[0]], path[1:]))


def mutate_json(document: Any, rng: random.Random) -> bytes:
    """One mutation of a JSON document, as the bytes of the file."""
    places = list(_json_places(document))
    place = rng.choice(places)
    choice = rng.randrange(10)
    if choice <= 3:
        leaves = [p for p in places if not isinstance(_at(document, p), (dict, list))] or places
        target = rng.choice(leaves) if rng.random() < 0.7 else place  # mostly the numbers and names
        return json.dumps(_replace(document, target, rng.choice(BAD_VALUES))).encode()
    if choice == 4 and place:
        return json.dumps(_delete(document, place)).encode()
    if choice == 5:
        target = rng.choice(
            [p for p in places if not p] + [p for p in places if p and isinstance(_at(document, p), dict)]
        )
        return json.dumps(_replace(document, target, {**_at(document, target), "unknown_field": 1})).encode()
    text = json.dumps(document, indent=1)
    if choice == 6:
        return text[: rng.randrange(len(text))].encode()
    if choice == 7:
        depth = rng.choice((200, 5000, 100_000))
        return json.dumps(_replace(document, place, None)).replace("null", "[" * depth + "]" * depth, 1).encode()
    if choice == 8:
        return rng.choice((text.encode("utf-16"), text.encode() + b"\xff\xfe", b"\xef\xbb\xbf" + text.encode()))
    return json.dumps(_replace(document, place, 7)).replace(" 7", " " + "9" * rng.choice((31, 5000)), 1).encode()


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def mutate_xml(text: str, rng: random.Random) -> bytes:
    """One mutation of a Hadoop configuration file, as bytes."""
    values = [index for index in range(len(text)) if text.startswith("<value>", index)]
    choice = rng.randrange(8)
    if choice <= 3 and values:
        start = rng.choice(values) + len("<value>")
        end = text.index("</value>", start)
        return (text[:start] + _xml_escape(rng.choice(BAD_TEXTS)) + text[end:]).encode()
    if choice == 4:
        return text[: rng.randrange(len(text))].encode()
    if choice == 5:
        name = rng.choice(("klingon", "utf-16", "latin-1", "ebcdic"))
        return text.replace('encoding="UTF-8"', f'encoding="{name}"', 1).encode()
    if choice == 6:
        return (
            text.replace("<property>", "<property><bogus/>", 1).encode()
            if rng.random() < 0.5
            else text.encode() + b"\xff"
        )
    depth = rng.choice((100, 10_000))
    return text.replace("<configuration>", "<configuration>" + "<x>" * depth, 1).encode()


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("\u0000", "&#0;")


def odd_path(folder: Path, rng: random.Random, suffix: str, content: bytes) -> Path:
    """A path that is not a plain readable file, or a plain file under an awkward name."""
    kind = rng.randrange(6)
    if kind == 0:
        path = folder / f"fifo{rng.randrange(10**6)}{suffix}"
        os.mkfifo(path)
    elif kind == 1:
        path = folder / f"dir{rng.randrange(10**6)}{suffix}"
        path.mkdir()
    elif kind == 2:
        path = folder / f"dangling{rng.randrange(10**6)}{suffix}"
        path.symlink_to(folder / "nowhere")
    elif kind == 3:
        path = folder / f"new\nline{rng.randrange(10**6)}{suffix}"
        path.write_bytes(content)
    elif kind == 4:
        raw = os.fsencode(folder) + f"/bad\xff{rng.randrange(10**6)}".encode("latin-1") + suffix.encode()
        with open(raw, "wb") as stream:
            stream.write(content)
        path = Path(os.fsdecode(raw))
    else:
        path = folder / ("x" * 5000 + suffix)
    return path


# -- the families ----------------------------------------------------------------------------


def case_seeds() -> list[Any]:
    """The shipped example cases and the shared conformance cases."""
    files = sorted(EXAMPLES.glob("cases/*.json"))
    shared = default_conformance_dir()
    if shared is not None:
        files += sorted(shared.rglob("*.json"))
    return [json.loads(path.read_text(encoding="utf-8")) for path in files]


def trace_seeds() -> list[Any]:
    """The shipped trace and a toy-model counterexample."""
    model = ToyModel(nodes=1, apps=2, capacity=1, variant="broken-release")
    state = next(iter(model.initial_states()))
    states, actions = [state], []
    for _ in range(2):
        action, state = next(iter(model.successors(state)))
        states.append(state)
        actions.append(action)
    toy = build_trace(model, "invariant", "used-matches-holders", "m", states, actions).to_json()
    return [json.loads(path.read_text(encoding="utf-8")) for path in sorted(EXAMPLES.glob("traces/*.json"))] + [toy]


Input = tuple[list[str], tuple[str, ...]]


def _file_input(folder: Path, rng: random.Random, index: int, suffix: str, content: bytes) -> Path:
    if rng.random() < 0.1:
        return odd_path(folder, rng, suffix, content)
    path = folder / f"input{index}{suffix}"
    path.write_bytes(content)
    return path


def generate(family: str, count: int, seed: int, folder: Path) -> Iterator[Input]:
    """``count`` inputs of ``family`` (argv and the names an error must mention), files in ``folder``."""
    rng = random.Random(f"{family}:{seed}")
    makers: dict[str, Callable[[int], Input]] = {
        "config": lambda i: _config_input(folder, rng, i),
        "case": lambda i: _case_input(folder, rng, i, cases),
        "trace": lambda i: _trace_input(folder, rng, i, traces),
        "argv": lambda i: _argv_input(folder, rng),
    }
    cases = case_seeds() if family == "case" else []
    traces = trace_seeds() if family == "trace" else []
    for index in range(count):
        yield makers[family](index)


def _names(path: Path) -> tuple[str, ...]:
    return (shown_name(path), str(path)) if shown_name(path) != str(path) else (str(path),)


def _config_input(folder: Path, rng: random.Random, index: int) -> Input:
    seed = rng.choice(sorted(EXAMPLES.glob("*.xml")) + [EXAMPLES / "bad" / "capacity-scheduler.xml"])
    path = _file_input(folder, rng, index, ".xml", mutate_xml(seed.read_text(encoding="utf-8"), rng))
    other = EXAMPLES / ("yarn-site.xml" if "capacity" in seed.name else "capacity-scheduler.xml")
    return ["config", str(path), str(other)], _names(path)


def _case_input(folder: Path, rng: random.Random, index: int, cases: list[Any]) -> Input:
    path = _file_input(folder, rng, index, ".json", mutate_json(rng.choice(cases), rng))
    return ["conform", str(path)], _names(path)


def _trace_input(folder: Path, rng: random.Random, index: int, traces: list[Any]) -> Input:
    path = _file_input(folder, rng, index, ".json", mutate_json(rng.choice(traces), rng))
    return ["replay", str(path)], _names(path)


#: Command lines that are valid and quick, and where a bad value may go in each.
_COMMANDS: tuple[tuple[list[str], tuple[str, ...]], ...] = (
    (["explore", "async-double-commit", "--max-depth", "3"], ("--max-depth", "--max-states", "--variant", "SCENARIO")),
    (
        ["explore", "async-double-commit", "--simulate", "--walks", "2", "--steps", "3"],
        ("--seed", "--walks", "--steps"),
    ),
    (["prove", "--list"], ("--bound", "--timeout", "--variant")),
    (["config", str(EXAMPLES / "capacity-scheduler.xml")], ("--partition",)),
)


def _argv_input(folder: Path, rng: random.Random) -> Input:
    argv, options = rng.choice(_COMMANDS)
    option = rng.choice(options)
    value = rng.choice(BAD_ARGUMENTS)
    argv = list(argv)
    if option == "SCENARIO":
        argv[1] = value
        return argv, ("SCENARIO", "scenario")
    if option in argv:
        argv[argv.index(option) + 1] = value
    else:
        argv += [option, value]
    if option == "--bound" and "--list" in argv:
        argv.remove("--list")
    return argv, (option,)


def campaign(count: int, seed: int, folder: Path) -> dict[str, dict[str, list[str]]]:
    """Every family's outcomes: family -> kind -> details."""
    results: dict[str, dict[str, list[str]]] = {}
    for family in FAMILIES:
        sub = folder / family
        sub.mkdir()
        kinds: dict[str, list[str]] = {}
        for argv, names in generate(family, count, seed, sub):
            outcome = run_cli(argv, names)
            kinds.setdefault(outcome.kind, []).append(outcome.detail)
        results[family] = kinds
    return results


if __name__ == "__main__":
    import tempfile

    size = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed_value = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    with tempfile.TemporaryDirectory() as tmp:
        found = campaign(size, seed_value, Path(tmp))
    for family_name, kinds in found.items():
        print(family_name, {kind: len(details) for kind, details in kinds.items()})
        for kind, details in kinds.items():
            if kind not in GOOD:
                for detail in details[:3]:
                    print(f"  {kind}: {detail[-1500:]}")
