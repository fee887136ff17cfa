"""Sending states between processes: pickle, with each dataclass carrying its compared fields.

A model's state may cache its hash in a field that takes no part in comparison (the
scheduler's states do): that value belongs to the process that computed it (strings and
``None`` hash differently in each), and a dataclass with slots cannot even be pickled before
the cache is filled. :func:`dumps` therefore writes a dataclass as its class and its compared
fields only, and :func:`loads` rebuilds it without running ``__init__``, leaving every cache
empty for the receiving process to fill. Everything else pickles as usual.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
from typing import Any


def _rebuild(kind: type, names: tuple[str, ...], values: tuple[Any, ...]) -> Any:
    """A dataclass instance of ``kind`` with ``names`` set to ``values`` (caches left empty)."""
    value: Any = object.__new__(kind)
    for name, item in zip(names, values):
        object.__setattr__(value, name, item)
    return value


class _WirePickler(pickle.Pickler):
    """A pickler that writes dataclasses as their compared fields (see the module docstring)."""

    def __init__(self, buffer: io.BytesIO) -> None:
        super().__init__(buffer, protocol=5)
        self._fields: dict[type, tuple[str, ...] | None] = {}

    def reducer_override(self, value: Any) -> Any:
        """Dataclasses by class and compared fields; the rest as usual."""
        kind = type(value)
        names = self._fields.get(kind, ())
        if names == ():
            names = self._fields[kind] = (
                tuple(f.name for f in dataclasses.fields(value) if f.compare)
                if dataclasses.is_dataclass(value) and not isinstance(value, type) and _caches(value)
                else None
            )
        if names is None:
            return NotImplemented
        return _rebuild, (kind, names, tuple(getattr(value, name) for name in names))


def _caches(value: Any) -> bool:
    """Whether a dataclass has fields left out of comparison (caches), or uses slots."""
    return hasattr(type(value), "__slots__") or any(not f.compare for f in dataclasses.fields(value))


def dumps(value: Any) -> bytes:
    """``value`` pickled for another process (see the module docstring)."""
    buffer = io.BytesIO()
    _WirePickler(buffer).dump(value)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """The value :func:`dumps` wrote."""
    return pickle.loads(data)
