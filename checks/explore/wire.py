"""Sending states between processes: pickle, with each dataclass carrying its compared fields.

A model's state may cache its hash in a field that takes no part in comparison (the
scheduler's states do): that value belongs to the process that computed it (strings and
``None`` hash differently in each), and a dataclass with slots cannot even be pickled before
the cache is filled. :func:`dumps` therefore writes a dataclass as its class and its compared
fields only, and :func:`loads` rebuilds it without running ``__init__``, leaving every cache
empty for the receiving process to fill. Everything else pickles as usual.

Only yarnspec's own processes read what this module writes, at once: the pipes between the
coordinator and its worker processes, and Ray's object store between its actors. Nothing here
is written to or read from a file, and nothing a user passes is unpickled: checkpoints are
written in the data encoding of :mod:`.state_data`.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import pickle
from collections.abc import Callable
from operator import attrgetter
from typing import Any


def _rebuild(
    kind: type, names: tuple[str, ...], values: tuple[Any, ...], defaults: tuple[tuple[str, Any], ...] = ()
) -> Any:
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
#: Records of a class a channel looks up before it may decide to send that class plain.
PLAIN_AFTER = 512
#: A class whose records were sent before fewer than once in this many look-ups is sent plain.
PLAIN_RATIO = 16
_FRESH, _GOING_ON = b"\x01", b"\x00"


def _new(
    number: int, kind: type, names: tuple[str, ...], values: tuple[Any, ...], defaults: tuple[tuple[str, Any], ...]
) -> Any:
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


class _Kind:
    """How one channel sends the records of one class: the fields written, the records sent
    so far by number, and how often a look-up found one (see :class:`ChannelEncoder`)."""

    def __init__(self, kind: type, value: Any) -> None:
        self.kind = kind
        self.names, self.defaults = _fields(kind, value)
        self.values: Callable[[Any], tuple[Any, ...]]
        self.plainly: Callable[[Any], Any]
        """The reduction of a record sent plain: a named tuple as its class and items, a
        dataclass as :func:`dumps` writes it (compared fields), an enum as usual."""
        if isinstance(value, enum.Enum):
            self.values = lambda record: (record.value,)
            self.plainly = lambda record: NotImplemented
        elif _named_tuple(kind):
            self.values = tuple
            self.plainly = lambda record: (tuple.__new__, (kind, tuple(record)))
        else:
            if len(self.names) >= 2:
                self.values = attrgetter(*self.names)  # a tuple of the fields, in C
            else:
                self.values = lambda record: tuple(getattr(record, name) for name in self.names)
            self.plainly = lambda record: (_rebuild, (kind, self.names, self.values(record), self.defaults))
        self.table: dict[Any, int] = {}
        self.lookups = self.hits = 0
        self.plain = False


class _ChannelPickler(pickle.Pickler):
    """Writes each record (frozen dataclass, named tuple or enum) once per channel, then by its
    number; records of a class that hardly repeats, plain."""

    def __init__(self, buffer: io.BytesIO, encoder: ChannelEncoder) -> None:
        super().__init__(buffer, protocol=5)
        self._encoder, self._kinds = encoder, encoder.kinds

    def reducer_override(self, value: Any) -> Any:
        """A known record by number; a new one by number, class and compared fields."""
        kind = type(value)
        try:
            layout = self._kinds[kind]
        except KeyError:
            layout = self._kinds[kind] = _Kind(kind, value) if _internable(kind) else None
        if layout is None:
            return NotImplemented
        if layout.plain:
            return layout.plainly(value)
        try:
            number = layout.table.get(value)
        except TypeError:  # a frozen record holding something unhashable
            self._kinds[kind] = None
            return NotImplemented
        layout.lookups += 1
        if number is not None:
            layout.hits += 1
            return _ref, (number,)
        if layout.lookups >= PLAIN_AFTER and layout.hits * PLAIN_RATIO < layout.lookups:
            # Nearly every record of this class is new (a whole state is): looking each up
            # costs hashing the record and all it holds, and keeping it costs memory, for nothing.
            layout.plain, layout.table = True, {}
            return layout.plainly(value)
        encoder = self._encoder
        number = layout.table[value] = encoder.count
        encoder.count += 1
        return _new, (number, kind, layout.names, layout.values(value), layout.defaults)


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

    A class whose records hardly ever repeat on the channel (the states themselves: each is
    sent once) is sent plain once :data:`PLAIN_AFTER` of its records were looked up and fewer
    than one in :data:`PLAIN_RATIO` was found: class and compared fields each time, never
    numbered, so never hashed (hashing a state hashes every record in it, which the encoder
    then looks up one by one anyway).

    Records are looked up by equality (per class), as the search itself tells states apart:
    a record equal to one sent before arrives as that one. So, as for fingerprints
    (:mod:`.fingerprint`), a state must not hold equal values of different types in the same
    place (``1`` and ``True``, an ``IntEnum`` member and its int); the shipped models do not.
    Looking records up by identity instead would be exact without that rule, but the models
    rebuild many equal records, and it sent twice the bytes at six times the cost."""

    def __init__(self) -> None:
        self.count = 0
        self.kinds: dict[type, _Kind | None] = {}

    def encode(self, value: Any) -> bytes:
        """One message holding ``value``."""
        flag = _GOING_ON
        if self.count > CHANNEL_LIMIT:
            for layout in self.kinds.values():
                if layout is not None:
                    layout.table = {}
            self.count, flag = 0, _FRESH
        buffer = io.BytesIO()
        buffer.write(flag)
        _ChannelPickler(buffer, self).dump(value)
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
        self,
        number: int,
        kind: type,
        names: tuple[str, ...],
        values: tuple[Any, ...],
        defaults: tuple[tuple[str, Any], ...],
    ) -> Any:
        """Record ``number`` (see :func:`_record`), kept for the references to it."""
        record = self.records[number] = _record(kind, names, values, defaults)
        return record


def _record(kind: type, names: tuple[str, ...], values: tuple[Any, ...], defaults: tuple[tuple[str, Any], ...]) -> Any:
    """An enum member by value, a named tuple of ``values``, or a dataclass with its compared
    ``names`` set to ``values`` and its caches to their ``defaults`` (see :func:`_rebuild`)."""
    if isinstance(kind, enum.EnumMeta):
        return kind(values[0])
    if _named_tuple(kind):
        return tuple.__new__(kind, values)
    return _rebuild(kind, names, values, defaults)
