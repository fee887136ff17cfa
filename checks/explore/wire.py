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


def _rebuild(kind: type, names: tuple[str, ...], values: tuple[Any, ...], defaults: tuple[tuple[str, Any], ...] = ()) -> Any:
    """A dataclass instance of ``kind`` with ``names`` set to ``values`` and the fields left
    out of comparison set to their ``defaults`` (or left empty)."""
    value: Any = object.__new__(kind)
    for name, item in (*zip(names, values), *defaults):
        object.__setattr__(value, name, item)
    return value


class _WirePickler(pickle.Pickler):
    """A pickler that writes dataclasses as their compared fields (see the module docstring)."""

    def __init__(self, buffer: io.BytesIO) -> None:
        super().__init__(buffer, protocol=5)
        self._fields: dict[type, tuple[tuple[str, ...], tuple[tuple[str, Any], ...]] | None] = {}

    def reducer_override(self, value: Any) -> Any:
        """Dataclasses by class and compared fields; the rest as usual."""
        kind = type(value)
        if kind not in self._fields:
            self._fields[kind] = _layout(value)
        layout = self._fields[kind]
        if layout is None:
            return NotImplemented
        names, defaults = layout
        return _rebuild, (kind, names, tuple(getattr(value, name) for name in names), defaults)


def _layout(value: Any) -> tuple[tuple[str, ...], tuple[tuple[str, Any], ...]] | None:
    """For a dataclass with fields left out of comparison (caches) or with slots, and no
    pickling of its own: its compared fields and the defaults of the others."""
    kind = type(value)
    if not dataclasses.is_dataclass(value) or isinstance(value, type) or "__reduce__" in vars(kind):
        return None
    every = dataclasses.fields(value)
    if not hasattr(kind, "__slots__") and all(f.compare for f in every):
        return None
    names = tuple(f.name for f in every if f.compare)
    defaults = tuple((f.name, f.default) for f in every if not f.compare and f.default is not dataclasses.MISSING)
    return names, defaults


def dumps(value: Any) -> bytes:
    """``value`` pickled for another process (see the module docstring)."""
    buffer = io.BytesIO()
    _WirePickler(buffer).dump(value)
    return buffer.getvalue()


def loads(data: bytes) -> Any:
    """The value :func:`dumps` wrote."""
    return pickle.loads(data)
