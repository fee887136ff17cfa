"""Spark's locality vocabulary: the five ``TaskLocality`` levels and the three kinds of
``TaskLocation`` a task can prefer (semantics 1).

Levels are ordered best first; "level A is allowed under cap C" means ``A <= C``. ``NO_PREF``
sits between node and rack: tasks without a preference are tried after node-local ones and
before rack-local ones.

A task location has a host and, for the executor kind, an executor id. Its string form is the
one Spark parses in ``TaskLocation.apply(str)``: ``hdfs_cache_<host>`` for a block cached in
memory by HDFS, ``executor_<host>_<executorId>`` for a block held by one executor (split at the
first ``_`` after the prefix, so a host cannot contain ``_`` but an executor id can), and the
plain host otherwise.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from yarnspec.impl.errors import InputError

_SOURCE = "<task location>"

#: The prefixes of the string forms (Spark's ``inMemoryLocationTag`` / ``executorLocationTag``).
HDFS_CACHE_TAG = "hdfs_cache_"
EXECUTOR_TAG = "executor_"


class TaskLocality(enum.IntEnum):
    """The locality levels with Spark's ordinals, best first."""

    PROCESS_LOCAL = 0
    NODE_LOCAL = 1
    NO_PREF = 2
    RACK_LOCAL = 3
    ANY = 4

    @classmethod
    def parse(cls, name: str, place: str = "", source: str = "<locality level>") -> TaskLocality:
        """The level named ``name`` (``"NODE_LOCAL"``...); an unknown name is an
        :class:`InputError` at ``place`` listing the valid names."""
        try:
            return cls[name]
        except (KeyError, TypeError):
            valid = ", ".join(level.name for level in cls)
            raise InputError(source, place, f"unknown locality level {name!r} (valid: {valid})") from None


def is_allowed(cap: TaskLocality, level: TaskLocality) -> bool:
    """Spark's ``TaskLocality.isAllowed(constraint, condition)``: ``level`` is at least as local
    as ``cap``."""
    return level <= cap


class LocationKind(enum.Enum):
    """The three kinds of task preference, named as the case files name them."""

    HOST = "host"
    EXECUTOR = "executor"
    HDFS_CACHE = "hdfs_cache"


@dataclass(frozen=True)
class HostTaskLocation:
    """Any executor on ``host`` (a block on that host's disk)."""

    host: str

    @property
    def kind(self) -> LocationKind:
        """Always :attr:`LocationKind.HOST`."""
        return LocationKind.HOST

    def __str__(self) -> str:
        return self.host


@dataclass(frozen=True)
class ExecutorCacheTaskLocation:
    """One executor, ``executor_id`` on ``host`` (a block cached by that executor)."""

    host: str
    executor_id: str

    @property
    def kind(self) -> LocationKind:
        """Always :attr:`LocationKind.EXECUTOR`."""
        return LocationKind.EXECUTOR

    def __str__(self) -> str:
        return f"{EXECUTOR_TAG}{self.host}_{self.executor_id}"


@dataclass(frozen=True)
class HDFSCacheTaskLocation:
    """A block HDFS caches in memory on ``host``: process-local for every executor alive on the
    host when the task is queued, node-local for the host (semantics 5.1)."""

    host: str

    @property
    def kind(self) -> LocationKind:
        """Always :attr:`LocationKind.HDFS_CACHE`."""
        return LocationKind.HDFS_CACHE

    def __str__(self) -> str:
        return f"{HDFS_CACHE_TAG}{self.host}"


TaskLocation = HostTaskLocation | ExecutorCacheTaskLocation | HDFSCacheTaskLocation


def _need_name(value: str, what: str, text: str, place: str) -> str:
    if value == "":
        raise InputError(_SOURCE, place, f"{text!r}: empty {what}")
    return value


def parse_task_location(text: str, place: str = "") -> TaskLocation:
    """Parse Spark's string form of a task location (``TaskLocation.apply(str)``).

    ``hdfs_cache_h`` -> HDFS-cached on ``h``; ``executor_h_e`` -> executor ``e`` on ``h`` (split
    at the first ``_`` after the prefix); anything else -> the host itself. Spark accepts an
    empty host or executor id here; this model rejects them as the input fault they are, and
    rejects ``executor_h`` without an executor id as Spark does ("Illegal executor location
    format").
    """
    if not isinstance(text, str):
        raise InputError(_SOURCE, place, f"a task location must be a string, found {text!r}")
    if text.startswith(HDFS_CACHE_TAG):
        return HDFSCacheTaskLocation(_need_name(text[len(HDFS_CACHE_TAG) :], "host", text, place))
    if text.startswith(EXECUTOR_TAG):
        rest = text[len(EXECUTOR_TAG) :]
        host, sep, executor_id = rest.partition("_")
        if not sep:
            raise InputError(
                _SOURCE, place, f"{text!r}: illegal executor location, expected executor_<host>_<executorId>"
            )
        return ExecutorCacheTaskLocation(
            _need_name(host, "host", text, place), _need_name(executor_id, "executor id", text, place)
        )
    return HostTaskLocation(_need_name(text, "host", text, place))


def task_location_from_fields(fields: Mapping[str, Any], place: str = "") -> TaskLocation:
    """A task location from its object form ``{kind: host|executor|hdfs_cache, host,
    executor?}`` (the case-file form); a missing or misspelt field is an :class:`InputError`."""
    if not isinstance(fields, Mapping):
        raise InputError(_SOURCE, place, f"a task location must be an object or a string, found {fields!r}")
    raw_kind = fields.get("kind")
    try:
        kind = LocationKind(raw_kind)
    except ValueError:
        valid = ", ".join(k.value for k in LocationKind)
        raise InputError(_SOURCE, f"{place}.kind", f"unknown location kind {raw_kind!r} (valid: {valid})") from None
    allowed = {"kind", "host", "executor"} if kind is LocationKind.EXECUTOR else {"kind", "host"}
    for key in fields:
        if key not in allowed:
            raise InputError(_SOURCE, f"{place}.{key}", f"not a field of a {kind.value} location")
    host = fields.get("host")
    if not isinstance(host, str) or host == "":
        raise InputError(_SOURCE, f"{place}.host", f"expected a non-empty host name, found {host!r}")
    if kind is LocationKind.HOST:
        return HostTaskLocation(host)
    if kind is LocationKind.HDFS_CACHE:
        return HDFSCacheTaskLocation(host)
    executor_id = fields.get("executor")
    if not isinstance(executor_id, str) or executor_id == "":
        raise InputError(_SOURCE, f"{place}.executor", f"expected a non-empty executor id, found {executor_id!r}")
    return ExecutorCacheTaskLocation(host, executor_id)
