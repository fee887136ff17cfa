"""Checkpoints of a long exhaustive search: write the frontier, the visited set and the
counters at the end of a level, and continue from them later.

A checkpoint file is data, never code (it is not a pickle): one JSON header line, then a body of
one segment per partition in the data encoding of :mod:`.state_data`.

The header says what the file is (``format``, ``version``), what search wrote it (the model's
identity: its factory, arguments and a SHA-256 digest of the world file it was read from; the
options that shape the stored states: symmetry, fingerprints, deadlock checking, coverage and
the number of partitions), the coordinator's ``counts`` (states stored, transitions, depth,
frontier, how states are routed) and the ``body``: its encoding, length, the length of each
partition's segment and a SHA-256 digest of the header's other fields (as canonical JSON) and
the body, so that a damaged or edited count is caught as well as a damaged state. The limits (``--max-depth``, ``--max-states``,
``--time-limit``) are not part of it: raising them is how a run is extended.

:meth:`Checkpoint.load` refuses, each with one :class:`InputError` naming the file and what is
wrong or what differs: a path that is not a regular file (a FIFO, a device, a folder), a file
that is not a checkpoint, a header that is not JSON or is too long, too deep or of the wrong
shape, another version, a checkpoint of another model, world file or options, a body that is
truncated or too long, and a digest that differs. The segments are then checked by the partitions
(:mod:`.partition_snapshot`, :meth:`.partition.Partition.restore`) and the counts across them
by the coordinator (:mod:`.parallel`) before the search goes on.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

from yarnspec.checks.explore.state_data import MAGIC
from yarnspec.checks.special_files import is_regular_descriptor, refuse_special
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import parse_json, shown_name

FORMAT = "yarnspec-explore-checkpoint"
#: Raised whenever the stored keys or their routing change meaning: 2 since the scheduler model's
#: symmetry keys became tuples of the state's own parts (issue 14, session 7), so a version-1
#: checkpoint's visited keys (or their fingerprints) would never match this version's keys;
#: 3 since states are routed by the model's partition key (a state's owner changed); 4 since
#: the body is data (:mod:`.state_data`), not a pickle, with its digest in the header.
VERSION = 4
#: The header line is at most this long (a real one is under a kilobyte).
MAX_HEADER_BYTES = 1 << 20
#: How states are routed to partitions (:mod:`.partition`).
ROUTINGS = ("hash", "fingerprint")
#: The largest count a header may hold.
MAX_COUNT = 2**63 - 1
_DIGEST = re.compile("[0-9a-f]{64}")
#: Makes the one error of a load from its fault.
Fault = Callable[[str], InputError]


@dataclass(frozen=True)
class Counts:
    """The coordinator's counters at the end of the level a checkpoint holds."""

    stored: int
    transitions: int
    depth: int
    complete_depth: int
    frontier: int
    routing: str


@dataclass(frozen=True)
class Checkpoint:
    """A search between two levels: the ``header`` naming the search (see the module
    docstring), the coordinator's ``counts`` and one segment per partition."""

    header: dict[str, Any]
    counts: Counts
    partitions: list[bytes]

    @staticmethod
    def check_writable(path: str | Path) -> None:
        """An :class:`InputError` unless a checkpoint can be written at ``path``: its temporary
        file is made and removed at once, so that a run is refused at its start, not when its
        first checkpoint is due (perhaps hours later). A FIFO, a device or a folder is refused."""
        target = Path(path)
        if os.fspath(path) and target.is_dir():
            raise InputError(str(path), "--checkpoint", "is a folder: name a file")
        refuse_special(path, "--checkpoint")
        temporary = _temporary(target)
        refuse_special(temporary, "--checkpoint")
        try:
            with open(temporary, "xb"):
                pass
            temporary.unlink()
        except FileExistsError:  # left by an interrupted write: replaced when a checkpoint is written
            if not os.access(temporary, os.W_OK) or not os.access(temporary.parent, os.W_OK):
                raise InputError(str(path), "--checkpoint", f"cannot write: {temporary} is not writable") from None
        except OSError as exc:
            raise InputError(str(path), "--checkpoint", f"cannot write: {exc.strerror}") from None

    def save(self, path: str | Path) -> None:
        """Write the file (to a temporary name first, so an interrupted write leaves the
        previous checkpoint whole)."""
        target = Path(path)
        temporary = _temporary(target)
        body = b"".join(self.partitions)
        described: dict[str, Any] = {
            **self.header,
            "counts": asdict(self.counts),
            "body": {
                "encoding": MAGIC.decode(),
                "bytes": len(body),
                "segments": [len(segment) for segment in self.partitions],
            },
        }
        described["body"]["sha256"] = _digest(described, body)
        refuse_special(target, "--checkpoint")
        try:
            with _open_new(temporary) as out:
                out.write(json.dumps(described, sort_keys=True).encode() + b"\n")
                out.write(body)
            os.replace(temporary, target)
        except OSError as exc:
            raise InputError(str(path), "--checkpoint", f"cannot write: {exc.strerror}") from None

    @staticmethod
    def load(path: str | Path, expected: dict[str, Any]) -> Checkpoint:
        """Read a checkpoint written for the ``expected`` header; one :class:`InputError`
        for a missing, special, foreign, damaged or mismatching file (see the module
        docstring)."""
        source = shown_name(path)
        refuse_special(path, "--resume", must_exist=True)

        def fault(text: str) -> InputError:
            return InputError(source, "--resume", text)

        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise fault(f"cannot read: {exc.strerror}") from None
        with os.fdopen(descriptor, "rb") as stream:
            if not is_regular_descriptor(descriptor):
                raise fault("is not a regular file")
            size = os.fstat(descriptor).st_size
            first = stream.readline(MAX_HEADER_BYTES + 1)
            header = _header(first, fault)
            counts = _counts(header.get("counts"), fault)
            body = _body(header.get("body"), header.get("partitions"), fault)
            for name, value in expected.items():
                difference = _difference(name, header.get(name), value)
                if difference is not None:
                    raise fault(difference)
            length, digest, segments = body
            held = size - len(first)
            if held < length:
                raise fault(f"truncated: the header announces {length:,} bytes of body, the file holds {held:,}")
            if held > length:
                raise fault(f"{held - length:,} bytes after the body the header announces (not one whole checkpoint)")
            data = stream.read(length)
        if len(data) != length or _digest(header, data) != digest:
            raise fault(
                "damaged: the SHA-256 digest of the header and body is not the one in the header (corrupt or edited)"
            )
        parts, start = [], 0
        for segment in segments:
            parts.append(data[start : start + segment])
            start += segment
        return Checkpoint(header, counts, parts)


def header(model: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The header of a checkpoint of a search of ``model`` (its identity) with ``options``."""
    return {"format": FORMAT, "version": VERSION, "model": model, **options}


def _temporary(target: Path) -> Path:
    return target.with_name(target.name + ".partial")


def _open_new(path: Path) -> BinaryIO:
    """``path`` opened for writing afresh, without blocking: a FIFO put there after the checks
    is refused (``ENXIO``, or not a regular file) instead of waiting for a reader."""
    descriptor = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o666
    )
    if not is_regular_descriptor(descriptor):
        os.close(descriptor)
        raise InputError(str(path), "--checkpoint", "is not a regular file")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "wb")


def _digest(described: dict[str, Any], body: bytes) -> str:
    """The SHA-256 digest of a checkpoint: of its header without the digest (as canonical JSON:
    sorted keys), a line break and the body; so the counts are covered as well as the states."""
    rest = {**described, "body": {name: value for name, value in described["body"].items() if name != "sha256"}}
    digest = hashlib.sha256(json.dumps(rest, sort_keys=True).encode())
    digest.update(b"\n")
    digest.update(body)
    return digest.hexdigest()


def _shown(value: Any) -> str:
    """A header value for a message: JSON, cut to 120 characters."""
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _header(first: bytes, fault: Fault) -> dict[str, Any]:
    """The header line parsed and checked: format, version, the fields there are."""
    if not first.endswith(b"\n"):
        if len(first) > MAX_HEADER_BYTES:
            raise fault(f"not a yarnspec explore checkpoint (no header line in its first {MAX_HEADER_BYTES:,} bytes)")
        raise fault("not a yarnspec explore checkpoint (no header line)")
    try:
        parsed = parse_json(first.decode("utf-8"), "")
    except (InputError, UnicodeDecodeError) as exc:
        reason = exc.fault if isinstance(exc, InputError) else "not UTF-8"
        raise fault(f"not a yarnspec explore checkpoint (its header line: {reason})") from None
    if not isinstance(parsed, dict) or parsed.get("format") != FORMAT:
        raise fault("not a yarnspec explore checkpoint")
    version = parsed.get("version")
    if version != VERSION or type(version) is not int:
        older = (
            " (checkpoints before version 4 were pickles, which this yarnspec no longer reads: run the search again)"
        )
        hint = older if type(version) is int and 1 <= version < 4 else ""
        raise fault(f"checkpoint version {_shown(version)}, this yarnspec reads {VERSION}{hint}")
    known = {
        "format",
        "version",
        "model",
        "symmetry",
        "fingerprints",
        "deadlock",
        "coverage",
        "partitions",
        "counts",
        "body",
    }
    for name in sorted(parsed):
        if name not in known:
            raise fault(f"the header has a field {_shown(name)} that no checkpoint has")
    return parsed


def _whole(value: Any, place: str, fault: Fault, highest: int = MAX_COUNT) -> int:
    if type(value) is not int or not 0 <= value <= highest:
        raise fault(f"header {place}: expected a whole number from 0 to {highest}, found {_shown(value)}")
    return value


def _counts(value: Any, fault: Fault) -> Counts:
    """The header's ``counts``, checked."""
    names = ("stored", "transitions", "depth", "complete_depth", "frontier", "routing")
    if not isinstance(value, dict) or sorted(value) != sorted(names):
        raise fault(f"header counts: expected the fields {', '.join(names)}")
    numbers = {name: _whole(value[name], f"counts.{name}", fault) for name in names[:-1]}
    if value["routing"] not in ROUTINGS:
        raise fault(f"header counts.routing: expected one of {', '.join(ROUTINGS)}, found {_shown(value['routing'])}")
    counts = Counts(**numbers, routing=value["routing"])
    if counts.complete_depth > counts.depth or counts.frontier > counts.stored or counts.stored == 0:
        raise fault(f"header counts: inconsistent ({_shown(value)})")
    return counts


def _body(value: Any, partitions: Any, fault: Fault) -> tuple[int, str, list[int]]:
    """The header's ``body``: its length, digest and segment lengths, checked."""
    names = ("bytes", "encoding", "segments", "sha256")
    if not isinstance(value, dict) or sorted(value) != list(names):
        raise fault(f"header body: expected the fields {', '.join(names)}")
    if value["encoding"] != MAGIC.decode():
        raise fault(f"header body.encoding: {_shown(value['encoding'])}, this yarnspec reads {MAGIC.decode()}")
    length = _whole(value["bytes"], "body.bytes", fault)
    digest = value["sha256"]
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise fault(f"header body.sha256: expected 64 hexadecimal digits, found {_shown(digest)}")
    segments = value["segments"]
    if not isinstance(segments, list) or type(partitions) is not int or len(segments) != partitions:
        raise fault(f"header body.segments: expected one length per partition ({_shown(partitions)})")
    lengths = [_whole(segment, "body.segments", fault) for segment in segments]
    if sum(lengths) != length:
        raise fault(f"header body.segments: {sum(lengths):,} bytes in all, the body has {length:,}")
    return length, digest, lengths


def _difference(name: str, written: Any, wanted: Any) -> str | None:
    """What differs between the header's ``written`` value of ``name`` and this run's, naming
    the first differing field (``model.arguments.world``); ``None`` when they agree."""
    if isinstance(written, dict) and isinstance(wanted, dict):
        for key in [*wanted, *sorted(k for k in written if k not in wanted)]:
            difference = _difference(f"{name}.{key}", written.get(key), wanted.get(key))
            if difference is not None:
                if name == "model.files" and isinstance(written.get(key), str) and isinstance(wanted.get(key), str):
                    return (
                        f"the world file {key} changed since the checkpoint was written "
                        f"(its SHA-256 is {wanted[key][:16]}..., the checkpoint was written for {written[key][:16]}...)"
                    )
                return difference
        return None
    if json.dumps(written, sort_keys=True) == json.dumps(wanted, sort_keys=True):
        return None
    return f"written for {name} {_shown(written)}, this run has {_shown(wanted)}"
