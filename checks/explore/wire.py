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
import enum
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


#: Interned records a channel's tables may hold before the sender starts them afresh.
CHANNEL_LIMIT = 250_000
_FRESH, _GOING_ON = b"\x01", b"\x00"


def _new(number: int, kind: type, names: tuple[str, ...], values: tuple[Any, ...], defaults: tuple[tuple[str, Any], ...]) -> Any:
    """A marker: a record sent for the first time on a channel (see :class:`ChannelEncoder`)."""
    raise RuntimeError("read channel messages with ChannelDecoder")


def _ref(number: int) -> Any:
    """A marker: a record sent earlier on the same channel (see :class:`ChannelEncoder`)."""
    raise RuntimeError("read channel messages with ChannelDecoder")


def _named_tuple(kind: type) -> bool:
    """Whether ``kind`` is a named tuple class (a tuple with named fields)."""
    return issubclass(kind, tuple) and isinstance(getattr(kind, "_fields", None), tuple)


def _internable(kind: type) -> bool:
    """Whether records of ``kind`` are interned: frozen hashable dataclasses, named tuples, and
    enums."""
    if isinstance(kind, enum.EnumMeta) or _named_tuple(kind):
        return True
    params = getattr(kind, "__dataclass_params__", None)
    return params is not None and params.frozen and kind.__hash__ is not None


class _ChannelPickler(pickle.Pickler):
    """Writes each record (frozen dataclass, named tuple or enum) once per channel, then by its
    number."""

    def __init__(self, buffer: io.BytesIO, tables: dict[type, dict[Any, int]], encoder: ChannelEncoder) -> None:
        super().__init__(buffer, protocol=5)
        self._tables, self._encoder = tables, encoder
        self._kinds: dict[type, tuple[tuple[str, ...], tuple[tuple[str, Any], ...]] | None] = {}

    def reducer_override(self, value: Any) -> Any:
        """A known record by number; a new one by number, class and compared fields."""
        kind = type(value)
        if kind not in self._kinds:
            self._kinds[kind] = _fields(kind, value) if _internable(kind) else None
        layout = self._kinds[kind]
        if layout is None:
            return NotImplemented
        table = self._tables.setdefault(kind, {})
        try:
            number = table.get(value)
        except TypeError:  # a frozen record holding something unhashable
            self._kinds[kind] = None
            return NotImplemented
        if number is not None:
            return _ref, (number,)
        number = table[value] = self._encoder.count
        self._encoder.count += 1
        names, defaults = layout
        if not names and isinstance(value, enum.Enum):
            return _new, (number, kind, names, (value.value,), defaults)
        return _new, (number, kind, names, tuple(getattr(value, name) for name in names), defaults)


def _fields(kind: type, value: Any) -> tuple[tuple[str, ...], tuple[tuple[str, Any], ...]]:
    """An enum: no fields (it is sent by value); a named tuple: its fields; a dataclass: its
    compared fields and the defaults of the others (caches)."""
    if isinstance(value, enum.Enum):
        return (), ()
    if _named_tuple(kind):
        return kind._fields, ()  # type: ignore[attr-defined]
    every = dataclasses.fields(value)
    names = tuple(f.name for f in every if f.compare)
    defaults = tuple((f.name, f.default) for f in every if not f.compare and f.default is not dataclasses.MISSING)
    return names, defaults


class ChannelEncoder:
    """The sending end of one ordered channel between two processes.

    States sent between workers share most of their records (nodes, applications, usages), and
    so do the states sent on one channel over a run. The encoder numbers every frozen record
    (dataclass, named tuple or enum) it sends: the first time it writes the record's class and compared
    fields, afterwards only its number; the :class:`ChannelDecoder` at the other end keeps the
    records it rebuilt by number and hands out the same object again. So each record crosses a
    channel once (until the tables are started afresh past :data:`CHANNEL_LIMIT` records, which
    bounds their memory), and the receiver's states share records as the sender's do. Every
    message must reach the decoder, in order.

    Records are looked up by equality (per class), as the search itself tells states apart:
    a record equal to one sent before arrives as that one. So, as for fingerprints
    (:mod:`.fingerprint`), a state must not hold equal values of different types in the same
    place (``1`` and ``True``, an ``IntEnum`` member and its int); the shipped models do not.
    Looking records up by identity instead would be exact without that rule, but the models
    rebuild many equal records, and it sent twice the bytes at six times the cost."""

    def __init__(self) -> None:
        self.count = 0
        self._tables: dict[type, dict[Any, int]] = {}

    def encode(self, value: Any) -> bytes:
        """One message holding ``value``."""
        flag = _GOING_ON
        if self.count > CHANNEL_LIMIT:
            self._tables, self.count, flag = {}, 0, _FRESH
        buffer = io.BytesIO()
        buffer.write(flag)
        _ChannelPickler(buffer, self._tables, self).dump(value)
        return buffer.getvalue()


class _ChannelUnpickler(pickle.Unpickler):
    """Reads the markers of :class:`_ChannelPickler` with the decoder's records."""

    def __init__(self, data: io.BytesIO, decoder: ChannelDecoder) -> None:
        super().__init__(data)
        self._decoder = decoder

    def find_class(self, module: str, name: str) -> Any:
        """The decoder's methods for the two markers; other globals as usual."""
        if module == __name__ and name == "_new":
            return self._decoder.rebuild
        if module == __name__ and name == "_ref":
            return self._decoder.records.__getitem__
        return super().find_class(module, name)


class ChannelDecoder:
    """The receiving end of one channel (see :class:`ChannelEncoder`)."""

    def __init__(self) -> None:
        self.records: dict[int, Any] = {}

    def decode(self, data: bytes) -> Any:
        """The value of one message, read in the order sent."""
        if data[:1] == _FRESH:
            self.records = {}
        buffer = io.BytesIO(data)
        buffer.seek(1)
        return _ChannelUnpickler(buffer, self).load()

    def rebuild(
        self, number: int, kind: type, names: tuple[str, ...], values: tuple[Any, ...], defaults: tuple[tuple[str, Any], ...]
    ) -> Any:
        """Record ``number``: an enum member by value, a named tuple of ``values``, or a
        dataclass with its compared ``names`` set to ``values`` and its caches to their
        ``defaults`` (see :func:`_rebuild`)."""
        record: Any
        if isinstance(kind, enum.EnumMeta):
            record = kind(values[0])
        elif _named_tuple(kind):
            record = tuple.__new__(kind, values)
        else:
            record = _rebuild(kind, names, values, defaults)
        self.records[number] = record
        return record
