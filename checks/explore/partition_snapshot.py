"""What one partition holds between two levels, as a checkpoint stores it, and its checks.

A partition (:mod:`.partition`) keeps its visited keys, a parent link per stored state
(partition, index, position in the parent's successor list) and its frontier
``(rank, local index, state)``; with ``--coverage`` also its counts. :func:`encode_held` writes
them as one segment of the data encoding (:mod:`.state_data`; fingerprints as a packed array);
:func:`decode_held` reads one back and checks its shape and every figure that can be checked
without the model: the fields and their types, one parent link per stored key, links to
partitions that exist, initial states' positions among the initial states, frontier ranks in
order and indices in range, coverage for the model's kinds. Each fault is a
:class:`~.state_data.FormatError` saying what is wrong. The checks that need the model (a
frontier state's key is visited and owned here, the model can expand it) are the partition's
(:meth:`.partition.Partition.restore`); the checks across partitions (the counts, links into
another partition) are the coordinator's (:mod:`.parallel`), from each partition's
:class:`Restored` summary.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.explore.coverage import Coverage
from yarnspec.checks.explore.state_data import FormatError, brief, decode, encode

#: The parent partition of an initial state (as :data:`.partition.ROOT`).
ROOT = -1
#: The fields of a segment and the array type code of each link array.
FIELDS = ("index", "seen", "parent_part", "parent_index", "position", "frontier", "coverage")
LINK_CODES = {"parent_part": "i", "parent_index": "q", "position": "I"}


@dataclass
class Held:
    """A partition's state between levels (see the module docstring)."""

    seen: set[Hashable]
    parent_part: array[int]
    parent_index: array[int]
    position: array[int]
    frontier: list[tuple[int, int, Any]]
    coverage: Coverage | None


@dataclass(frozen=True)
class Restored:
    """What a partition reports after a restore: its stored states and frontier, the number
    of states each partition must hold for its links to point at one (``needed``, per
    partition), and the fault that refused the segment (``None`` when it was taken)."""

    stored: int = 0
    frontier: int = 0
    needed: tuple[int, ...] = ()
    fault: str | None = None


def encode_held(index: int, held: Held, fingerprints: bool) -> bytes:
    """One segment holding partition ``index``'s ``held`` state."""
    coverage = held.coverage
    return encode({
        "index": index,
        "seen": array("Q", held.seen) if fingerprints else held.seen,
        "parent_part": held.parent_part, "parent_index": held.parent_index, "position": held.position,
        "frontier": held.frontier,
        "coverage": None if coverage is None else {
            "kinds": coverage.kinds, "fired": dict(coverage.fired), "enabled": dict(coverage.enabled),
        },
    })  # fmt: skip


def decode_held(
    data: bytes,
    index: int,
    count: int,
    fingerprints: bool,
    kinds: tuple[str, ...] | None,
    initial: int,
    roots: Iterable[str],
) -> Held:
    """Partition ``index``'s state (of ``count`` partitions) from a segment, checked as the
    module docstring says: ``kinds`` are the model's action kinds when coverage is counted
    (else ``None``), ``initial`` the number of its initial states, ``roots`` the packages its
    records come from. A :class:`FormatError` for any fault."""
    value = decode(data, roots)
    if not isinstance(value, dict) or set(value) != set(FIELDS):
        raise FormatError(f"not a partition's state (the fields {', '.join(FIELDS)})")
    if value["index"] != index or type(value["index"]) is not int:
        raise FormatError(f"holds partition {brief(value['index'])}, stored in place {index}")
    seen = value["seen"]
    if fingerprints:
        if not isinstance(seen, array) or seen.typecode != "Q":
            raise FormatError("seen: not an array of 64-bit fingerprints")
        seen = set(seen)
    elif not isinstance(seen, set):
        raise FormatError("seen: not a set of keys")
    for name, code in LINK_CODES.items():
        if not isinstance(value[name], array) or value[name].typecode != code:
            raise FormatError(f"{name}: not an array of type code {code!r}")
        if len(value[name]) != len(seen):
            raise FormatError(f"{name}: {len(value[name]):,} entries for {len(seen):,} stored keys")
    parent_part, parent_index, position = value["parent_part"], value["parent_index"], value["position"]
    _check_links(parent_part, parent_index, position, count, initial)
    frontier = _frontier(value["frontier"], len(seen))
    return Held(seen, parent_part, parent_index, position, frontier, _coverage(value["coverage"], kinds))


def needed_states(held: Held, count: int) -> tuple[int, ...]:
    """How many states each partition must hold for ``held``'s parent links to point at one."""
    needed = [0] * count
    for part, index in zip(held.parent_part, held.parent_index):
        if part != ROOT and index >= needed[part]:
            needed[part] = index + 1
    return tuple(needed)


def _check_links(
    parent_part: array[int], parent_index: array[int], position: array[int], count: int, initial: int
) -> None:
    for place, (part, index, where) in enumerate(zip(parent_part, parent_index, position)):
        if part == ROOT:
            if index != 0 or where >= initial:
                raise FormatError(
                    f"state {place}: an initial state at position {where} of {initial} (parent index {index})"
                )
        elif not 0 <= part < count or index < 0:
            raise FormatError(
                f"state {place}: a parent link to state {index} of partition {part}, of {count} partitions"
            )


def _frontier(frontier: Any, stored: int) -> list[tuple[int, int, Any]]:
    if not isinstance(frontier, list):
        raise FormatError("frontier: not a list")
    last = -1
    indices: set[int] = set()
    for place, entry in enumerate(frontier):
        shape = isinstance(entry, tuple) and len(entry) == 3 and all(type(part) is int for part in entry[:2])
        if not shape:
            raise FormatError(f"frontier[{place}]: not (rank, index, state)")
        rank, index, _ = entry
        if rank <= last:
            raise FormatError(f"frontier[{place}]: rank {rank} after rank {last} (ranks must rise)")
        if not 0 <= index < stored or index in indices:
            raise FormatError(f"frontier[{place}]: index {index} (of {stored} stored, each once)")
        last = rank
        indices.add(index)
    return frontier


def _coverage(value: Any, kinds: tuple[str, ...] | None) -> Coverage | None:
    if kinds is None:
        if value is not None:
            raise FormatError("coverage: counts in a checkpoint of a search without coverage")
        return None
    if not isinstance(value, dict) or set(value) != {"enabled", "fired", "kinds"}:
        raise FormatError("coverage: not (kinds, fired, enabled)")
    if value["kinds"] != kinds:
        raise FormatError("coverage: counted for other action kinds than this model's")
    counters: list[Counter[str]] = []
    for name in ("fired", "enabled"):
        counts = value[name]
        valid = isinstance(counts, dict) and all(
            isinstance(k, str) and type(n) is int and n >= 0 for k, n in counts.items()
        )
        if not valid:
            raise FormatError(f"coverage: {name} is not counts per action kind")
        counters.append(Counter(counts))
    return Coverage(kinds, *counters)
