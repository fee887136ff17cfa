"""Checkpoints of a long exhaustive search: write the frontier, the visited set and the
counters at the end of a level, and continue from them later.

A checkpoint file is one JSON header line, then a pickle of the search (protocol 5). The header
says what the file is (``format``, ``version``) and what the search was: the model's identity
(its factory, arguments and a SHA-256 digest of the world file it was read from) and the
options that shape the stored states (symmetry, fingerprints, deadlock checking, coverage, the
number of partitions and how keys are routed to them). Resuming with a different model or
options is refused with one line naming the first difference. The limits (``--max-depth``,
``--max-states``, ``--time-limit``) are not part of it: raising them is how a run is extended.

A pickle runs code when read: resume only from checkpoints you wrote.
"""

from __future__ import annotations

import json
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.impl.errors import InputError

FORMAT = "yarnspec-explore-checkpoint"
#: Raised whenever the stored keys or their routing change meaning: 2 since the scheduler model's
#: symmetry keys became tuples of the state's own parts (issue 14, session 7), so a version-1
#: checkpoint's visited keys (or their fingerprints) would never match this version's keys;
#: 3 since states are routed by the model's partition key (a state's owner changed).
VERSION = 3


@dataclass(frozen=True)
class Checkpoint:
    """A search between two levels: the ``header`` (see the module docstring), the
    coordinator's ``counters`` and one snapshot per partition."""

    header: dict[str, Any]
    counters: dict[str, Any]
    partitions: list[dict[str, Any]]

    @staticmethod
    def check_writable(path: str | Path) -> None:
        """An :class:`InputError` unless a checkpoint can be written at ``path``: its temporary
        file is made and removed at once, so that a run is refused at its start, not when its
        first checkpoint is due (perhaps hours later)."""
        target = Path(path)
        if target.is_dir():
            raise InputError(str(path), "--checkpoint", "is a folder: name a file")
        temporary = target.with_name(target.name + ".partial")
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
        temporary = target.with_name(target.name + ".partial")
        try:
            with open(temporary, "wb") as out:
                out.write(json.dumps(self.header, sort_keys=True).encode() + b"\n")
                pickle.dump((self.counters, self.partitions), out, protocol=5)
            os.replace(temporary, target)
        except OSError as exc:
            raise InputError(str(path), "--checkpoint", f"cannot write: {exc.strerror}") from None

    @staticmethod
    def load(path: str | Path, expected: dict[str, Any]) -> Checkpoint:
        """Read a checkpoint written for the ``expected`` header; one :class:`InputError`
        for a missing, foreign, damaged or mismatching file."""
        source = str(path)
        try:
            with open(path, "rb") as stream:
                first = stream.readline()
                try:
                    header = json.loads(first)
                except ValueError:
                    header = None
                if not isinstance(header, dict) or header.get("format") != FORMAT:
                    raise InputError(source, "--resume", "not a yarnspec explore checkpoint")
                if header.get("version") != VERSION:
                    raise InputError(source, "--resume", f"checkpoint version {header.get('version')}, this yarnspec reads {VERSION}")
                for name, value in expected.items():
                    if header.get(name) != value:
                        raise InputError(
                            source, "--resume",
                            f"written for {name} {json.dumps(header.get(name))}, this run has {json.dumps(value)}",
                        )  # fmt: skip
                try:
                    counters, partitions = pickle.load(stream)
                except Exception:  # noqa: BLE001 - any unpickling fault means a damaged file
                    raise InputError(source, "--resume", "the checkpoint is damaged (truncated or corrupt)") from None
        except OSError as exc:
            raise InputError(source, "--resume", f"cannot read: {exc.strerror}") from None
        return Checkpoint(header, counters, partitions)


def header(model: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The header of a checkpoint of a search of ``model`` (its identity) with ``options``."""
    return {"format": FORMAT, "version": VERSION, "model": model, **options}
