"""Malformed checkpoints for ``yarnspec explore --resume``, and a campaign over them (issue 31).

A few valid checkpoints are written first (:func:`make_bases`: one worker; two worker
processes; fingerprints with coverage), each with the counts an uninterrupted run reaches.
:func:`mutate` then damages one in one of :data:`KINDS` ways:

- *damage* (what a disk, a copy or an editor does): bytes flipped in the header or the body,
  a truncation, bytes appended, a JSON edit of the header (``fuzz.mutate_json``: wrong types,
  huge numbers, deep nesting, UTF-16, a cut), a path that is not a plain file
  (``fuzz.odd_path``), a header nested 100,000 deep, a header line without end;
- *forgery* (what someone crafting a file does): the same damage with the digest recomputed
  (``resealed``) so that the body's decoder and the checks behind it are reached: tag bytes
  set at random, bytes inserted, counts changed, segments swapped, hand-made segments
  (classes outside the model's packages or with other fields, references and lengths beyond
  the data, nesting 10,000 deep, integers out of range, unhashable set members), decoded
  segments edited (frontier indices, parent links, keys, coverage) and written back, and a
  pickle that would create a file when unpickled.

:func:`run_one` runs the resume through the real entry point in-process (``fuzz.run_cli``:
an alarm detects a hang) and classifies it: ``error`` (one named line, exit 2), ``ok``
(resumed) or a bad outcome. A resume of *damage* must end with the uninterrupted counts
(``wrong`` otherwise); a forgery may resume with other counts (the digest protects against
damage, not against a forger: the checks only make sure a forged file runs no code, crashes
nothing and hangs nothing). A forged pickle that ran would leave its marker file (``ran``).

Run as a program (``python tests/bad_input/checkpoint_fuzz.py [N] [SEED]``) it runs a
campaign of N inputs (default 500) with a fresh seed unless one is given, and prints the
outcomes per kind, then the bad ones.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.checks.cli import main
from yarnspec.checks.explore import checkpoint as checkpoint_format
from yarnspec.checks.explore import state_data
from yarnspec.impl.input_files import shown_name

if __package__:
    from .fuzz import mutate_json, odd_path, run_cli
else:  # run as a program: fuzz.py is beside this file
    from fuzz import mutate_json, odd_path, run_cli

SCENARIO = ["explore", "async-double-commit", "--variant", "yarn-8127"]
#: The bases: a name and the options a checkpoint is written and resumed with.
BASE_OPTIONS = {"one": [], "two": ["--workers", "2"], "fingerprints": ["--fingerprint", "--coverage"]}
#: The bound a checkpoint stops at, and the one a resume goes on to.
STOP_AT, GO_ON_TO = "60", "140"
PICKED = ("distinct_states", "transitions", "depth", "verdict")


@dataclass(frozen=True)
class Base:
    """A valid checkpoint: its options, bytes and the counts of an uninterrupted run."""

    name: str
    options: list[str]
    data: bytes
    expected: dict[str, Any]


@dataclass(frozen=True)
class Mutant:
    """One malformed input: its kind, whether it was resealed (a forgery), the path to resume
    from, the options to resume with and the marker a forged pickle would create."""

    kind: str
    forged: bool
    path: Path
    options: list[str]
    marker: Path | None = None


def _quiet(argv: list[str]) -> tuple[int, str]:
    """``yarnspec argv`` in-process: its status and stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(argv)
    return status, out.getvalue()


def resumed_counts(path: Path, options: list[str]) -> dict[str, Any] | None:
    """The counts a resume from ``path`` reports (``None`` when it does not resume)."""
    status, out = _quiet([*SCENARIO, *options, "--max-states", GO_ON_TO, "--json", "--resume", str(path)])
    return {name: json.loads(out)[name] for name in PICKED} if status in (0, 1) else None


def make_bases(folder: Path) -> list[Base]:
    """One valid checkpoint per entry of :data:`BASE_OPTIONS`, with its expected counts."""
    bases = []
    for name, options in BASE_OPTIONS.items():
        path = folder / f"base-{name}.ckpt"
        status, _ = _quiet([*SCENARIO, *options, "--max-states", STOP_AT, "--checkpoint", str(path)])
        assert status == 0 and path.exists(), name
        status, out = _quiet([*SCENARIO, *options, "--max-states", GO_ON_TO, "--json"])
        expected = {key: json.loads(out)[key] for key in PICKED}
        bases.append(Base(name, options, path.read_bytes(), expected))
    return bases


def split(data: bytes) -> tuple[dict[str, Any], list[bytes]]:
    """A valid checkpoint's header and segments."""
    first, body = data.split(b"\n", 1)
    header = json.loads(first)
    segments, start = [], 0
    for length in header["body"]["segments"]:
        segments.append(body[start : start + length])
        start += length
    return header, segments


def reseal(header: dict[str, Any], segments: list[bytes]) -> bytes:
    """A checkpoint of ``header`` and ``segments`` with its lengths and digest made to match
    (what a forger does)."""
    body = b"".join(segments)
    described = {**header, "body": {"encoding": "YSD1", "bytes": len(body), "segments": [len(s) for s in segments]}}
    described["body"]["sha256"] = checkpoint_format._digest(described, body)
    return json.dumps(described, sort_keys=True).encode() + b"\n" + body


def _flip(data: bytes, rng: random.Random, start: int = 0, end: int | None = None) -> bytes:
    changed = bytearray(data)
    end = len(data) if end is None else end
    for _ in range(rng.randint(1, 4)):
        if end > start:
            place = rng.randrange(start, end)
            changed[place] ^= 1 << rng.randrange(8)
    return bytes(changed)


def _crafted_segment(rng: random.Random) -> bytes:
    """A hand-made segment that the decoder must refuse (see the module docstring)."""
    head = state_data._Encoder()
    value = bytearray()
    choice = rng.randrange(10)
    table: list[Any] = [
        ("namedtuple", "yarnspec.impl.scheduler.state", "Usage", ("used", "reserved", "pending", "am_used"))
    ]
    if choice == 0:
        table = [("namedtuple", "os", "stat_result", ("st_mode",))]
    elif choice == 1:
        table = [("dataclass", "builtins", "eval", ())]
    elif choice == 2:
        table = [("namedtuple", "yarnspec.impl.scheduler.state", "Usage", ("used",))]
    elif choice == 3:
        table = [("enum", "yarnspec.impl.scheduler.state", "AppPhase", ())]
        value += bytes([12, 0, 5, 7]) + b"UNKNOWN"  # a record of class 0 whose value is no phase
    elif choice == 4:
        value += bytes([7]) * 10_000 + bytes([0])  # tuples 10,000 deep
    elif choice == 5:
        value += bytes([13, 0xFF, 0xFF, 0x7F])  # a reference to value 2**21 - 1
    elif choice == 6:
        value += bytes([8, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])  # a list of 2**32 - 1 items
    elif choice == 7:
        value += bytes([3, 9]) + (2**70).to_bytes(9, "little", signed=True)
    elif choice == 8:
        value += bytes([9, 1, 8, 0])  # a set holding a list
    else:
        value += bytes([12, rng.randrange(1, 128)])  # a record of a class not in the table
    head.value(table)
    return state_data.MAGIC + bytes(head.out) + bytes(value)


def _edited_segment(segment: bytes, rng: random.Random, partitions: int) -> bytes:
    """A valid segment decoded, edited in one place and written back (see the module docstring)."""
    held = state_data.decode(segment, ["yarnspec"])
    choice = rng.randrange(8)
    if choice == 0 and held["frontier"]:
        rank, _, state = held["frontier"][0]
        held["frontier"][0] = (rank, rng.choice((-1, len(held["parent_part"]), 10**9)), state)
    elif choice == 1 and held["frontier"]:
        held["frontier"].reverse()
    elif choice == 2 and held["parent_part"]:
        held["parent_part"][rng.randrange(len(held["parent_part"]))] = rng.choice((partitions, 7, -2))
    elif choice == 3 and held["parent_index"]:
        held["parent_index"][rng.randrange(len(held["parent_index"]))] = rng.choice((10**6, -5))
    elif choice == 4 and held["position"]:
        held["position"][rng.randrange(len(held["position"]))] = rng.choice((10**6, 2**31))
    elif choice == 5 and held["frontier"]:
        rank, index, state = held["frontier"][-1]
        held["frontier"][-1] = (
            rank,
            index,
            rng.choice((None, 7, "x", (1, 2), state[0] if isinstance(state, tuple) else 0)),
        )
    elif choice == 6:
        held["index"] = rng.choice((1, -1, "0", None))
    elif isinstance(held["seen"], set) and held["seen"]:
        held["seen"].pop()
    else:
        held["coverage"] = {"kinds": ("x",), "fired": {"x": -1}, "enabled": {}}
    return state_data.encode(held)


def _pickle_body(marker: Path) -> bytes:
    """A pickle that creates ``marker`` when it is unpickled."""

    class Payload:
        def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
            return (os.system, (f"touch {marker}",))

    return pickle.dumps(Payload(), protocol=5)


#: The kinds of mutation, forged ones marked.
KINDS = (
    "flip-header", "flip-body", "truncate", "append", "header-json", "odd-path", "deep-header", "endless-header",
    "other-options", "resealed-tags", "resealed-insert", "resealed-counts", "resealed-swap", "resealed-crafted",
    "resealed-edited", "resealed-pickle", "older-pickle",
)  # fmt: skip


def mutate(base: Base, rng: random.Random, folder: Path, number: int, kind: str | None = None) -> Mutant:
    """One malformed checkpoint made from ``base`` (of ``kind``, else one chosen at random),
    written under ``folder``."""
    kind = kind or rng.choice(KINDS)
    data, options, forged = base.data, base.options, kind.startswith("resealed") or kind == "older-pickle"
    header, segments = split(data)
    path = folder / f"mutant{number}.ckpt"
    marker = None
    end_of_header = data.index(b"\n")
    if kind == "flip-header":
        data = _flip(data, rng, 0, end_of_header)
    elif kind == "flip-body":
        data = _flip(data, rng, end_of_header + 1)
    elif kind == "truncate":
        data = data[: rng.randrange(len(data))]
    elif kind == "append":
        data = data + rng.randbytes(rng.randint(1, 64))
    elif kind == "header-json":
        data = mutate_json(header, rng) + b"\n" + b"".join(segments)
    elif kind == "odd-path":
        path = odd_path(folder, rng, ".ckpt", data)
    elif kind == "deep-header":
        data = b"[" * 100_000 + b"\n" + data
    elif kind == "endless-header":
        data = b"{" + b" " * (checkpoint_format.MAX_HEADER_BYTES + 10)
    elif kind == "other-options":
        options = rng.choice(
            ([*options, "--no-symmetry"], [*options, "--coverage"] if "--coverage" not in options else [])
        )
        if not options:
            options = ["--workers", "3"]
    elif kind == "resealed-tags":
        index = rng.randrange(len(segments))
        changed = bytearray(segments[index])
        for _ in range(rng.randint(1, 3)):
            changed[rng.randrange(4, len(changed))] = rng.randrange(0, 20)
        segments[index] = bytes(changed)
        data = reseal(header, segments)
    elif kind == "resealed-insert":
        index = rng.randrange(len(segments))
        place = rng.randrange(4, len(segments[index]))
        segments[index] = segments[index][:place] + rng.randbytes(rng.randint(1, 8)) + segments[index][place:]
        data = reseal(header, segments)
    elif kind == "resealed-counts":
        counts = header["counts"]
        name = rng.choice(sorted(counts))
        counts[name] = rng.choice(
            (0, -1, 1, counts[name] + 1 if isinstance(counts[name], int) else 1, "fingerprint", 2**64, None)
        )
        data = reseal(header, segments)
    elif kind == "resealed-swap":
        segments.reverse()
        if len(segments) == 1:
            segments = [segments[0], segments[0]]
            header["partitions"] = 2
        data = reseal(header, segments)
    elif kind == "resealed-crafted":
        segments[rng.randrange(len(segments))] = _crafted_segment(rng)
        data = reseal(header, segments)
    elif kind == "resealed-edited":
        index = rng.randrange(len(segments))
        segments[index] = _edited_segment(segments[index], rng, len(segments))
        data = reseal(header, segments)
    elif kind in ("resealed-pickle", "older-pickle"):
        marker = folder / f"ran{number}"
        if kind == "older-pickle":
            header["version"] = 3
        data = reseal(header, [_pickle_body(marker)] + [b""] * (len(segments) - 1))
    else:
        raise ValueError(kind)
    if kind != "odd-path":
        path.write_bytes(data)
    return Mutant(kind, forged, path, options, marker)


def run_one(base: Base, mutant: Mutant, seconds: int = 20) -> tuple[str, str]:
    """Resume from the mutant through the real entry point; the outcome's class and detail:
    ``error``, ``ok``, or a bad one (``traceback``, ``hang``, ``multi-line``, ``unnamed``,
    ``wrong``, ``ran``)."""
    argv = [*SCENARIO, *mutant.options, "--max-states", GO_ON_TO, "--resume", str(mutant.path)]
    outcome = run_cli(argv, (str(mutant.path), shown_name(mutant.path), "--resume", "--checkpoint"), seconds)
    if mutant.marker is not None and mutant.marker.exists():
        return "ran", f"{argv!r}: the pickle ran"
    if outcome.kind == "ok" and not mutant.forged:
        counts = resumed_counts(mutant.path, mutant.options)
        if counts != base.expected:
            return "wrong", f"{argv!r}: resumed with {counts}, an uninterrupted run has {base.expected}"
    return outcome.kind, outcome.detail


def campaign(count: int, seed: int, folder: Path) -> Counter[tuple[str, str]]:
    """``count`` mutants from seed ``seed``: the outcomes per ``(kind, class)``; the bad ones'
    details are printed."""
    rng = random.Random(seed)
    bases = make_bases(folder)
    outcomes: Counter[tuple[str, str]] = Counter()
    for number in range(count):
        base = rng.choice(bases)
        mutant = mutate(base, rng, folder, number)
        kind, detail = run_one(base, mutant)
        outcomes[(mutant.kind, kind)] += 1
        if kind not in ("ok", "error"):
            print(f"BAD {kind} ({mutant.kind}, base {base.name}): {detail[:2000]}", file=sys.stderr)
    return outcomes


def _main(argv: list[str]) -> int:
    import tempfile

    count = int(argv[0]) if argv else 500
    seed = int(argv[1]) if len(argv) > 1 else int.from_bytes(os.urandom(4), "big")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        outcomes = campaign(count, seed, Path(folder))
    print(f"checkpoint campaign: {count} inputs, seed {seed}, {time.perf_counter() - started:.0f} s")
    for (kind, outcome), number in sorted(outcomes.items()):
        print(f"  {kind:<18} {outcome:<10} {number}")
    bad = {outcome: number for (_, outcome), number in outcomes.items() if outcome not in ("ok", "error")}
    totals = Counter(outcome for (_, outcome) in outcomes.elements())
    print(f"totals: {dict(sorted(totals.items()))}; tracebacks {totals['traceback']}, hangs {totals['hang']}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
