"""Stable encodings and 64-bit fingerprints of explorer keys, the same in every process.

The parallel explorer sends each successor to the process that owns it, chosen by a hash of
its key (the state, or its canonical form with symmetry on). Python's ``hash`` cannot choose:
it differs between processes (strings are salted per process, and in Python 3.11 ``hash(None)``
is the address of ``None``). :class:`KeyEncoder` turns a key into bytes that depend only on its
value: ``pickle`` in fast mode (no memo, so sharing inside a value does not show), with
dataclasses reduced to their compared fields (a cached hash field is left out), named tuples
to their fields, and enums to their class and value. Equal keys give equal bytes and different keys different bytes, as
long as a key holds no ``set``/``frozenset`` (their order follows the salted hashes) and does
not mix equal values of different types (``1`` and ``True``); the shipped models' keys are
tuples, ints, strings, enums and dataclasses. :func:`fingerprint` is the first 8 bytes of the
BLAKE2b digest of those bytes.

Fingerprint mode (``--fingerprint``) stores these 64-bit fingerprints instead of the keys, as
TLC does. Two different states with the same fingerprint make the search treat the second as
visited, so it may miss states. :func:`collision_probability` gives the birthday estimate of
that risk for ``n`` distinct states: with ``N = 2**64`` values equally likely, the chance that
all ``n`` fingerprints differ is ``prod(1 - i/N for i < n) ~ exp(-n(n-1)/2N)``, so a collision
happens with probability ``1 - exp(-n(n-1)/2**65)``, about ``n**2 / 2**65`` while it is small.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import math
import pickle
from hashlib import blake2b
from typing import Any

#: Bits of a fingerprint.
FINGERPRINT_BITS = 64


def _value(*parts: object) -> None:
    """A marker callable: encodings are hashed, never unpickled (see :class:`KeyEncoder`)."""


class _ValuePickler(pickle.Pickler):
    """A pickler whose output depends only on the value (see the module docstring)."""

    def __init__(self, buffer: io.BytesIO) -> None:
        super().__init__(buffer, protocol=5)
        self.fast = True  # no memo: the bytes do not depend on object identity or sharing
        self._fields: dict[type, tuple[str, ...] | None] = {}

    def reducer_override(self, value: Any) -> Any:
        """Dataclasses by their compared fields, named tuples by their fields (the same bytes
        as a dataclass with those fields), enums by their value; the rest as usual."""
        kind = type(value)
        if kind not in self._fields:
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                self._fields[kind] = tuple(f.name for f in dataclasses.fields(value) if f.compare)
            elif issubclass(kind, tuple) and isinstance(getattr(kind, "_fields", None), tuple):
                self._fields[kind] = kind._fields  # type: ignore[attr-defined]
            else:
                self._fields[kind] = None
        names = self._fields[kind]
        if names is not None:
            return _value, (kind.__qualname__, tuple(getattr(value, name) for name in names))
        if isinstance(value, enum.Enum):
            return _value, (kind.__qualname__, value.value)
        return NotImplemented


class KeyEncoder:
    """Encodes keys as bytes that depend only on their value (see the module docstring).

    One encoder is reused for every key (it owns its buffer and its per-type field names)."""

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self._pickler = _ValuePickler(self._buffer)

    def encode(self, key: Any) -> bytes:
        """The bytes of ``key``."""
        buffer = self._buffer
        buffer.seek(0)
        buffer.truncate()
        self._pickler.dump(key)
        return buffer.getvalue()


def fingerprint(encoded: bytes) -> int:
    """The 64-bit fingerprint of an encoded key."""
    return int.from_bytes(blake2b(encoded, digest_size=FINGERPRINT_BITS // 8).digest(), "little")


def collision_probability(states: int) -> float:
    """The birthday estimate of the chance that two of ``states`` distinct states share a
    64-bit fingerprint: ``1 - exp(-n(n-1) / 2**65)``."""
    return -math.expm1(-states * (states - 1) / 2 ** (FINGERPRINT_BITS + 1))
