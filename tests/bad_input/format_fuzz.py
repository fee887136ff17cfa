"""Malformed inputs for the formats added after the first bad-input wave (issue 31): world files
(TOML), plain snapshots, REST snapshots, ``mockrm`` cases and the numbers of every sub-command.

Each family mutates a real input (the shipped worlds, ``docs/examples/cluster/*.json``, the
shipped ``mockrm`` cases) and runs it through the real entry point with
:func:`.fuzz.run_cli`, which classifies the outcome (an answer, one named error line, a
traceback, a hang). :func:`make_input` turns one random generator into one input, so the
Hypothesis tests (``test_format_fuzz.py``) and the campaign
(``benchmarks/bad_input_campaign.py``) draw from the same mutations.
"""

from __future__ import annotations

import json
import math
import os
import random
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .fuzz import BAD_ARGUMENTS, BAD_VALUES, EXAMPLES, PROJECT_ROOT, _delete, _json_places, _replace, odd_path

#: The new families, in the order the campaign runs them.
FORMAT_FAMILIES = ("world", "snapshot", "rest", "mockrm", "numbers")
CLUSTER = EXAMPLES / "cluster"
MOCKRM_CASES = PROJECT_ROOT / "checks" / "conformance" / "cases" / "hadoop-lazy-preemption"
#: Integers at and beyond the model's edges (a Java int and long, Python's digit limit).
EDGE_INTEGERS = (2**31 - 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**9, 10**18, 20_000, 2_000)


@dataclass(frozen=True)
class FormatInput:
    """One malformed input: the command line and the names its error must mention."""

    argv: list[str]
    names: tuple[str, ...]


# -- TOML -----------------------------------------------------------------------------------


def toml_value(value: Any) -> str:
    """``value`` as TOML (inline tables and arrays), for the world-file mutations."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**4000 else "9" * 5000
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value if item is not None) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items() if v is not None) + "}"
        )
    return '""'


def toml_document(document: dict[str, Any]) -> str:
    """A whole document as TOML, one top-level key per line."""
    return "".join(
        f"{json.dumps(str(key))} = {toml_value(value)}\n" for key, value in document.items() if value is not None
    )


# -- mutations --------------------------------------------------------------------------------


def mutate_document(document: Any, rng: random.Random) -> Any:
    """One structural mutation of a parsed document: a value replaced by a bad one or an edge
    integer, a key deleted, an unknown key added, a list multiplied or nested deeply."""
    places = list(_json_places(document))
    place = rng.choice(places)
    choice = rng.randrange(8)
    if choice <= 2:
        leaves = [p for p in places if not isinstance(_at(document, p), (dict, list))] or places
        new = rng.choice(BAD_VALUES + EDGE_INTEGERS)
        return _replace(document, rng.choice(leaves), new)
    if choice == 3 and place:
        return _delete(document, place)
    if choice == 4:
        dicts = [p for p in places if isinstance(_at(document, p), dict)]
        target = rng.choice(dicts)
        return _replace(document, target, {**_at(document, target), "unknown_field": 1})
    if choice == 5:
        lists = [p for p in places if isinstance(_at(document, p), list) and _at(document, p)]
        if lists:
            target = rng.choice(lists)
            items = _at(document, target)
            return _replace(document, target, items * rng.choice((2, 50, 2_000)))
    if choice == 6:  # a marker that serialisation turns into nested brackets (no recursion here)
        nested = f"{_DEEP}{rng.choice((50, 200, 3_000))}"
        return _replace(document, place, nested) if place else {**document, "deep": nested}
    leaves = [
        p for p in places if isinstance(_at(document, p), int) and not isinstance(_at(document, p), bool)
    ] or places
    return _replace(document, rng.choice(leaves), rng.choice(EDGE_INTEGERS))


_DEEP = "\u0000DEEP"


def _deepen(text: str) -> str:
    """Replace the marker of :func:`mutate_document` with that many nested brackets."""
    marker = json.dumps(_DEEP)[:-1]
    while marker in text:
        start = text.index(marker)
        end = text.index('"', start + 1)
        depth = int(text[start + len(marker) : end])
        text = text[:start] + "[" * depth + "1" + "]" * depth + text[end + 1 :]
    return text


def mutate_text(text: str, rng: random.Random) -> bytes:
    """One textual mutation: cut short, a bad byte, UTF-16, a huge literal, a line break in a
    string."""
    choice = rng.randrange(5)
    if choice == 0:
        return text[: rng.randrange(len(text))].encode()
    if choice == 1:
        return text.encode() + rng.choice((b"\xff", b"\x00", b"\xc3"))
    if choice == 2:
        return text.encode("utf-16")
    if choice == 3:
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        at = rng.choice(digits) if digits else 0
        return (text[:at] + "9" * rng.choice((20, 400, 5_000)) + text[at:]).encode()
    quotes = [i for i, c in enumerate(text) if c == '"']
    at = rng.choice(quotes) + 1 if quotes else 0
    return (text[:at] + rng.choice(("\\n", "\u0661", "\u00b2", "\\u0000")) + text[at:]).encode()


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


# -- seeds -------------------------------------------------------------------------------------


def world_seeds() -> list[dict[str, Any]]:
    """The shipped example worlds that stand alone (no configuration files next to them)."""
    worlds = [tomllib.loads(path.read_text(encoding="utf-8")) for path in sorted((EXAMPLES / "worlds").glob("*.toml"))]
    return [world for world in worlds if "files" not in world.get("configuration", {})]


def json_seed(path: Path) -> Any:
    """A JSON example."""
    return json.loads(path.read_text(encoding="utf-8"))


def mockrm_seeds() -> list[Any]:
    """The shipped ``mockrm`` cases."""
    return [json_seed(path) for path in sorted(MOCKRM_CASES.rglob("*.json"))]


# -- inputs ------------------------------------------------------------------------------------


def _write(folder: Path, rng: random.Random, index: int, suffix: str, content: bytes) -> Path:
    """The input file: mostly a regular file, sometimes a FIFO, a link to ``/dev/zero``, a
    folder or an awkward name (:func:`.fuzz.odd_path`)."""
    roll = rng.random()
    if roll < 0.05:
        path = folder / f"zero{index}{suffix}"
        os.symlink("/dev/zero", path)
        return path
    if roll < 0.12:
        return odd_path(folder, rng, suffix, content)
    path = folder / f"input{index}{suffix}"
    path.write_bytes(content)
    return path


def _names(path: Path) -> tuple[str, ...]:
    from yarnspec.impl.input_files import shown_name

    return (shown_name(path), str(path))


def _document_bytes(document: Any, rng: random.Random, as_toml: bool) -> bytes:
    if rng.random() < 0.2:
        text = toml_document(document) if as_toml else json.dumps(document, indent=1)
        return mutate_text(text, rng)
    mutated = mutate_document(document, rng)
    if as_toml:
        return _deepen(toml_document(mutated if isinstance(mutated, dict) else {"x": mutated})).encode()
    return _deepen(json.dumps(mutated)).encode()


_PREEMPT = [
    "preempt",
    "--config",
    str(CLUSTER / "capacity-scheduler.xml"),
    "--yarn-site",
    str(CLUSTER / "yarn-site.xml"),
    "--snapshot",
]

#: Every numeric option of every sub-command, in a quick command line (a few stop at another
#: option's fault once the number is taken: the names such an error may mention follow).
NUMBER_OPTIONS: tuple[tuple[list[str], str], ...] = (
    (["explore", "async-double-commit", "--max-depth", "2"], "--max-depth"),
    (["explore", "async-double-commit", "--max-depth", "2"], "--max-states"),
    (["explore", "async-double-commit", "--simulate", "--walks", "1", "--steps", "2"], "--seed"),
    (["explore", "async-double-commit", "--simulate", "--walks", "1", "--steps", "2"], "--walks"),
    (["explore", "async-double-commit", "--simulate", "--walks", "1", "--steps", "2"], "--steps"),
    (["explore", "async-double-commit", "--max-depth", "2"], "--time-limit"),
    (["explore", "async-double-commit", "--max-depth", "2"], "--progress-every"),
    (["explore", "async-double-commit", "--max-depth", "2"], "--workers"),
    ([*_PREEMPT, str(CLUSTER / "snapshot.json")], "--rounds"),
    ([*_PREEMPT, str(CLUSTER / "snapshot.json")], "--clock"),
    (["prove", "--list"], "--timeout"),
    (["check", "--worlds-only"], "--seed"),
    (["check", "--worlds-only"], "--examples"),
    (["validate", "spark-placement", "--impl", "no-such-adapter"], "--timeout"),
    (["validate", "spark-placement", "--impl", "no-such-adapter"], "--start-timeout"),
    (["validate", "spark-placement", "--impl", "no-such-adapter"], "--seed"),
    (["validate", "spark-placement", "--impl", "no-such-adapter"], "--examples"),
    (
        ["show", str(EXAMPLES / "traces" / "async-double-commit-pre-8127.json"), "--dot", "/nonexistent/x.dot"],
        "--dot-limit",
    ),
)
#: Numbers the docs' grammar refuses (other scripts' digits, signs, separators, exponents,
#: not-a-number, beyond every range) and a few it takes.
BAD_NUMBERS = (
    *BAD_ARGUMENTS,
    "\u0661",
    "+2",
    "1_0",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "1e-308",
    "Infinity",
    "0x10",
    "\uff11",
    "9" * 19,
    "9223372036854775808",
    "-9223372036854775809",
    "1.5",
    ".5",
    "5.",
    "1,000",
    " 3",
    "3 ",
    "\t3",
    "\u00a03",
)


def make_input(family: str, rng: random.Random, folder: Path, index: int, seeds: list[Any]) -> FormatInput:
    """One malformed input of ``family`` (files written into ``folder``)."""
    if family == "numbers":
        argv, option = rng.choice(NUMBER_OPTIONS)
        argv = list(argv)
        value = rng.choice(BAD_NUMBERS)
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
        return FormatInput(argv, (option, "--impl", "--worlds-only", "x.dot"))
    document = rng.choice(seeds)
    if family == "world":
        path = _write(folder, rng, index, ".toml", _document_bytes(document, rng, as_toml=True))
        return FormatInput(["explore", "--world", str(path), "--max-states", "300"], _names(path))
    path = _write(folder, rng, index, ".json", _document_bytes(document, rng, as_toml=False))
    if family in ("snapshot", "rest"):
        return FormatInput([*_PREEMPT, str(path), "--rounds", "2"], _names(path))
    return FormatInput(["conform", str(path)], _names(path))


def seeds_of(family: str) -> list[Any]:
    """The real inputs ``family`` mutates."""
    if family == "world":
        return list(world_seeds())
    if family == "snapshot":
        return [json_seed(CLUSTER / "snapshot.json")]
    if family == "rest":
        return [json_seed(CLUSTER / "rest-snapshot.json")]
    if family == "mockrm":
        return mockrm_seeds()
    return []
