"""A data encoding of search states for checkpoints: tagged bytes, never code.

A checkpoint (:mod:`.checkpoint`) holds each partition's visited set, parent links and frontier.
It used to be a pickle, and reading a pickle runs whatever code its bytes name. This encoding
holds only data: each value is one tag byte and its contents, and reading it builds only

- ``None``, ``bool``, ``int`` (between ``-2**63`` and ``2**64 - 1``: the model's range and a
  64-bit fingerprint), ``float``, ``str`` (UTF-8), ``bytes``;
- ``tuple``, ``list``, ``set``, ``frozenset``, ``dict`` and ``array`` (type codes
  :data:`ARRAY_CODES`, stored as raw little-endian items);
- records of the model's own classes: a named tuple, another subclass of ``tuple`` that does
  not define ``__new__`` (a resource vector), a dataclass or an enum, named in the
  segment's class table by module and qualified name, found only in modules loaded already
  (nothing is imported) of the packages the caller allows (:func:`decode`'s ``roots``:
  yarnspec's and the model's), and only when its fields are exactly the ones listed. A dataclass is built with its compared fields set and its caches
  left empty, as :mod:`.wire` does, without running its ``__init__``; a tuple class with
  ``tuple.__new__``; an enum member by value.

A segment is ``magic, class table, value``. Tuples, records, frozensets and strings the encoder
meets more than once (by identity: successors share the unchanged parts of their parent) are
written once and then referred to by number, so a segment is about as small as a pickle.

Reading checks everything against the bytes at hand: a length larger than what is left, an
unknown tag, a reference to a value not read yet, nesting deeper than :data:`MAX_DEPTH`, a class
outside the allowed packages or with other fields, an integer out of range or bytes left over
are each one :class:`FormatError` saying what and at which byte offset. So a damaged or
crafted segment can neither run code, nor exhaust memory beyond its own size, nor recurse
without bound.
"""

from __future__ import annotations

import dataclasses
import enum
import struct
import sys
from array import array
from collections.abc import Callable, Collection, Iterable
from typing import Any

#: The first bytes of a segment (the encoding's name and version).
MAGIC = b"YSD1"
#: Containers nested deeper than this are refused (a scheduler state nests about 8 deep).
MAX_DEPTH = 100
#: The array type codes a segment may hold, with their item sizes.
ARRAY_CODES = {"i": 4, "I": 4, "q": 8, "Q": 8}
#: The integers a segment may hold: a Java long's range, and unsigned 64-bit fingerprints.
LOWEST, HIGHEST = -(2**63), 2**64 - 1

_NONE, _FALSE, _TRUE, _INT, _FLOAT, _STR, _BYTES = range(7)
_TUPLE, _LIST, _SET, _FROZENSET, _DICT, _RECORD, _REF, _ARRAY = range(7, 15)
#: Record kinds in the class table.
_NAMED_TUPLE, _TUPLE_CLASS, _DATACLASS, _ENUM = "namedtuple", "tuple", "dataclass", "enum"
_DOUBLE = struct.Struct("<d")
#: A tag byte from this one up is a small integer: ``tag - _SMALL``, 0 to 127 (most of a state).
_SMALL = 0x80


class FormatError(ValueError):
    """A segment that is not a valid encoding: the message says what, and where."""


def printable(text: str) -> str:
    """``text`` for a one-line message: as it is when printable, else escaped (``'A\\x0cp'``)."""
    return text if text.isprintable() else ascii(text)


def brief(value: Any) -> str:
    """A value read from a segment, for a message: its ``repr``, printable, at most 60 characters."""
    text = printable(repr(value))
    return text if len(text) <= 60 else text[:57] + "..."


def _varint(out: bytearray, number: int) -> None:
    while number >= 0x80:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)


def _named_tuple(kind: type) -> bool:
    return issubclass(kind, tuple) and isinstance(getattr(kind, "_fields", None), tuple)


def _layout(kind: type) -> tuple[str, tuple[str, ...]] | None:
    """How records of ``kind`` are written: ``(record kind, field names)``, or ``None`` when
    ``kind`` is not a record class this encoding knows."""
    if isinstance(kind, enum.EnumMeta):
        return _ENUM, ()
    if _named_tuple(kind):
        return _NAMED_TUPLE, tuple(kind._fields)  # type: ignore[attr-defined]
    if issubclass(kind, tuple) and "__new__" not in vars(kind):
        return _TUPLE_CLASS, ()
    if dataclasses.is_dataclass(kind):
        return _DATACLASS, tuple(f.name for f in dataclasses.fields(kind) if f.compare)
    return None


class _Encoder:
    """Writes one segment (see the module docstring)."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.memo: dict[int, int] = {}
        self.kept: list[Any] = []  # every memoized value stays alive, so no id is reused
        self.classes: dict[type, tuple[int, str, tuple[str, ...]]] = {}
        self.writers: dict[type, Callable[[Any], None]] = {
            type(None): lambda value: self.out.append(_NONE),
            bool: lambda value: self.out.append(_TRUE if value else _FALSE),
            int: self.integer,
            float: self.double,
            str: self.text,
            bytes: self.raw,
            tuple: self.tuple_,
            list: lambda value: self.items(_LIST, value),
            set: lambda value: self.items(_SET, value),
            frozenset: self.frozen,
            dict: self.mapping,
            array: self.array_,
        }

    def value(self, value: Any) -> None:
        """Write ``value`` (by its exact type: a subclass of a built-in type is a record)."""
        writer = self.writers.get(type(value))
        if writer is None:
            self.record(value)
        else:
            writer(value)

    def _known(self, value: Any) -> bool:
        number = self.memo.get(id(value))
        if number is None:
            return False
        self.out.append(_REF)
        _varint(self.out, number)
        return True

    def _remember(self, value: Any) -> None:
        self.memo[id(value)] = len(self.kept)
        self.kept.append(value)

    def integer(self, value: int) -> None:
        if not LOWEST <= value <= HIGHEST:
            raise FormatError(f"the integer {value} is outside [{LOWEST}, {HIGHEST}]")
        if 0 <= value < 0x80:
            self.out.append(_SMALL | value)
            return
        size = (value.bit_length() + 8) // 8  # the bits and a sign bit
        self.out.append(_INT)
        self.out.append(size)
        self.out += value.to_bytes(size, "little", signed=True)

    def double(self, value: float) -> None:
        self.out.append(_FLOAT)
        self.out += _DOUBLE.pack(value)

    def text(self, value: str) -> None:
        if self._known(value):
            return
        data = value.encode("utf-8", "surrogatepass")
        self.out.append(_STR)
        _varint(self.out, len(data))
        self.out += data
        self._remember(value)

    def raw(self, value: bytes) -> None:
        self.out.append(_BYTES)
        _varint(self.out, len(value))
        self.out += value

    def items(self, tag: int, values: Collection[Any]) -> None:
        self.out.append(tag)
        _varint(self.out, len(values))
        self.sequence(values)

    def sequence(self, values: Iterable[Any]) -> None:
        """Each of ``values`` in turn (small integers written here, the rest by their writer)."""
        out, writers, record = self.out, self.writers, self.record
        for item in values:
            kind = type(item)
            if kind is int and 0 <= item < 0x80:  # the usual case, inline
                out.append(_SMALL | item)
                continue
            writer = writers.get(kind)
            if writer is None:
                record(item)
            else:
                writer(item)

    def tuple_(self, value: tuple[Any, ...]) -> None:
        if self._known(value):
            return
        self.items(_TUPLE, value)
        self._remember(value)

    def frozen(self, value: frozenset[Any]) -> None:
        if self._known(value):
            return
        self.items(_FROZENSET, value)
        self._remember(value)

    def mapping(self, value: dict[Any, Any]) -> None:
        self.out.append(_DICT)
        _varint(self.out, len(value))
        for key, item in value.items():
            self.value(key)
            self.value(item)

    def array_(self, value: array[Any]) -> None:
        if value.typecode not in ARRAY_CODES or value.itemsize != ARRAY_CODES[value.typecode]:
            raise FormatError(f"an array of type code {value.typecode!r} cannot be written")
        data = value if sys.byteorder == "little" else array(value.typecode, value)
        if sys.byteorder != "little":
            data.byteswap()
        self.out.append(_ARRAY)
        self.out += value.typecode.encode()
        _varint(self.out, len(value))
        self.out += data.tobytes()

    def record(self, value: Any) -> None:
        kind = type(value)
        if self._known(value):
            return
        entry = self.classes.get(kind)
        if entry is None:
            layout = _layout(kind)
            if layout is None or "<locals>" in kind.__qualname__:
                raise FormatError(f"a value of type {kind.__module__}.{kind.__qualname__} cannot be written")
            entry = self.classes[kind] = (len(self.classes), *layout)
        number, how, names = entry
        self.out.append(_RECORD)
        _varint(self.out, number)
        if how == _ENUM:
            self.value(value.value)
        elif how == _NAMED_TUPLE:
            self.sequence(value)
        elif how == _TUPLE_CLASS:
            _varint(self.out, len(value))
            self.sequence(value)
        else:
            self.sequence(getattr(value, name) for name in names)
        self._remember(value)


def encode(value: Any) -> bytes:
    """One segment holding ``value`` (see the module docstring); a :class:`FormatError` for a
    value this encoding cannot hold."""
    encoder = _Encoder()
    encoder.value(value)
    head = _Encoder()  # the class table, met while the value was written, goes first
    head.value([(how, kind.__module__, kind.__qualname__, names) for kind, (_, how, names) in encoder.classes.items()])
    return MAGIC + bytes(head.out) + bytes(encoder.out)


class _Decoder:
    """Reads one segment (see the module docstring)."""

    def __init__(self, data: bytes, roots: frozenset[str]) -> None:
        self.data, self.at, self.roots = bytes(data), len(MAGIC), roots
        self.end = len(self.data)
        self.memo: list[Any] = []
        self.classes: list[tuple[str, type, tuple[str, ...]]] = []

    def fail(self, fault: str) -> FormatError:
        return FormatError(f"byte {self.at}: {fault}")

    def byte(self) -> int:
        if self.at >= len(self.data):
            raise self.fail("the data ends early")
        value = self.data[self.at]
        self.at += 1
        return value

    def take(self, count: int) -> bytes:
        if count > len(self.data) - self.at:
            raise self.fail(f"{count:,} bytes announced, {len(self.data) - self.at:,} left")
        chunk = bytes(self.data[self.at : self.at + count])
        self.at += count
        return chunk

    def number(self) -> int:
        """A varint (a reference or a class number)."""
        data, at, end = self.data, self.at, self.end
        number = shift = 0
        while True:
            if at >= end:
                self.at = at
                raise self.fail("the data ends early")
            byte = data[at]
            at += 1
            number |= (byte & 0x7F) << shift
            if byte < 0x80:
                self.at = at
                return number
            shift += 7
            if shift > 63:
                self.at = at
                raise self.fail("a number of more than 64 bits")

    def count(self) -> int:
        """A varint length, at most the bytes left (each item takes at least one)."""
        at = self.at
        if at < self.end and self.data[at] < 0x80:  # one byte: the usual case
            self.at = at + 1
            number = self.data[at]
        else:
            number = self.number()
        if number > len(self.data) - self.at:
            raise self.fail(f"a length of {number:,} with {len(self.data) - self.at:,} bytes left")
        return number

    def value(self, depth: int) -> Any:
        at = self.at
        if at >= self.end:
            raise self.fail("the data ends early")
        tag = self.data[at]
        self.at = at + 1
        if tag >= _SMALL:
            return tag - _SMALL
        if tag == _REF:
            number = self.number()
            if number >= len(self.memo):
                raise self.fail(f"a reference to value {number}, of {len(self.memo)} read so far")
            return self.memo[number]
        if depth >= MAX_DEPTH:  # the top value is at depth 0
            raise self.fail(f"values nested deeper than {MAX_DEPTH} levels")
        if tag == _NONE:
            return None
        if tag in (_FALSE, _TRUE):
            return tag == _TRUE
        if tag == _INT:
            size = self.byte()
            if not 1 <= size <= 9:
                raise self.fail(f"an integer of {size} bytes (1 to 9)")
            number = int.from_bytes(self.take(size), "little", signed=True)
            if not LOWEST <= number <= HIGHEST:
                raise self.fail(f"the integer {number} is outside [{LOWEST}, {HIGHEST}]")
            return number
        if tag == _FLOAT:
            return _DOUBLE.unpack(self.take(8))[0]
        if tag == _STR:
            try:
                text = self.take(self.count()).decode("utf-8", "surrogatepass")
            except UnicodeDecodeError as exc:
                raise self.fail(f"a string that is not UTF-8 ({exc.reason})") from None
            self.memo.append(text)
            return text
        if tag == _BYTES:
            return self.take(self.count())
        if tag in (_TUPLE, _LIST, _SET, _FROZENSET):
            items = self.items(self.count(), depth + 1)
            if tag == _LIST:
                return items
            try:
                built: Any = tuple(items) if tag == _TUPLE else set(items) if tag == _SET else frozenset(items)
            except Exception:  # noqa: BLE001 - unhashable, or a record whose hash or equality fails
                raise self.fail("a set holding an unhashable value") from None
            if tag != _SET:
                self.memo.append(built)
            return built
        if tag == _DICT:
            pairs = [(self.value(depth + 1), self.value(depth + 1)) for _ in range(self.count())]
            try:
                return dict(pairs)
            except Exception:  # noqa: BLE001 - unhashable, or a record whose hash or equality fails
                raise self.fail("a dict with an unhashable key") from None
        if tag == _ARRAY:
            code = chr(self.byte())
            if code not in ARRAY_CODES:
                raise self.fail(f"an array of unknown type code {code!r}")
            length = self.count()
            packed = array(code)
            packed.frombytes(self.take(length * ARRAY_CODES[code]))
            if sys.byteorder != "little":
                packed.byteswap()
            return packed
        if tag == _RECORD:
            return self.record(depth)
        raise self.fail(f"unknown tag {tag}")

    def items(self, count: int, depth: int) -> list[Any]:
        """``count`` values (small integers read here, the rest by :meth:`value`)."""
        data, end, value, memo = self.data, self.end, self.value, self.memo
        items: list[Any] = []
        append = items.append
        for _ in range(count):
            at = self.at
            tag = data[at] if at < end else None
            if tag is not None and tag >= _SMALL:
                append(tag - _SMALL)
                self.at = at + 1
                continue
            if tag == _REF:  # a reference read here; a bad one is left to value(), which names it
                place, number, shift, byte = at + 1, 0, 0, 0x80
                while byte >= 0x80 and place < end and shift <= 63:
                    byte = data[place]
                    number |= (byte & 0x7F) << shift
                    place, shift = place + 1, shift + 7
                if byte < 0x80 and number < len(memo):
                    append(memo[number])
                    self.at = place
                    continue
            elif tag == _NONE:
                append(None)
                self.at = at + 1
                continue
            append(value(depth))
        return items

    def record(self, depth: int) -> Any:
        number = self.number()
        if number >= len(self.classes):
            raise self.fail(f"a record of class {number}, of {len(self.classes)} in the class table")
        how, kind, names = self.classes[number]
        if how == _ENUM:
            raw = self.value(depth + 1)
            try:
                member = kind(raw)
            except Exception:  # noqa: BLE001 - no member has this value
                raise self.fail(f"{brief(raw)} is not a value of {kind.__qualname__}") from None
            self.memo.append(member)
            return member
        size = self.count() if how == _TUPLE_CLASS else len(names)
        values = tuple(self.items(size, depth + 1))
        if how in (_NAMED_TUPLE, _TUPLE_CLASS):
            built: Any = tuple.__new__(kind, values)
        else:
            built = _dataclass(kind, names, values)
        self.memo.append(built)
        return built

    def table(self) -> None:
        """The class table: each entry resolved and checked (see the module docstring)."""
        entries = self.value(0)
        if not isinstance(entries, list):
            raise FormatError("the class table is not a list")
        for place, entry in enumerate(entries):
            self.classes.append(self.resolve(place, entry))
        self.memo = []  # the values' references count from the value on

    def resolve(self, place: int, entry: Any) -> tuple[str, type, tuple[str, ...]]:
        shape = isinstance(entry, tuple) and len(entry) == 4 and all(isinstance(part, str) for part in entry[:3])
        if not shape or not isinstance(entry[3], tuple) or not all(isinstance(name, str) for name in entry[3]):
            raise FormatError(f"class table entry {place} is not (kind, module, name, fields)")
        how, module, name, names = entry
        shown = printable(f"{module}.{name}")
        if module.partition(".")[0] not in self.roots:
            raise FormatError(f"class {shown} is outside the model's packages ({', '.join(sorted(self.roots))})")
        kind = _find(module, name)
        if kind is None:
            raise FormatError(f"class {shown} is not a class this model uses")
        layout = _layout(kind)
        if layout is None or layout[0] != how:
            raise FormatError(f"{shown} is not a {printable(how)}")
        if layout[1] != names:
            raise FormatError(
                f"{shown} has the fields {', '.join(layout[1]) or '(none)'}, the checkpoint lists {printable(', '.join(names)) or '(none)'}"
            )
        return how, kind, names


def _find(module: str, name: str) -> type | None:
    """The class ``name`` (a dotted qualified name) of ``module``, or ``None``. Only a module
    loaded already is looked in (the model's own modules are, once it is built): nothing is
    imported, so reading a segment runs no module's code."""
    found: Any = sys.modules.get(module)
    if found is None:
        return None
    for part in name.split("."):
        if part.startswith("__") or part == "<locals>":
            return None
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
    return found if isinstance(found, type) else None


def _dataclass(kind: type, names: tuple[str, ...], values: tuple[Any, ...]) -> Any:
    """A dataclass instance with its compared fields set and the others at their defaults."""
    built: Any = object.__new__(kind)
    for name, item in zip(names, values):
        object.__setattr__(built, name, item)
    for spare in dataclasses.fields(kind):
        if not spare.compare and spare.default is not dataclasses.MISSING:
            object.__setattr__(built, spare.name, spare.default)
    return built


def decode(data: bytes, roots: Iterable[str]) -> Any:
    """The value of one segment; records only of classes in the packages ``roots`` (top-level
    names such as ``"yarnspec"``); a :class:`FormatError` for anything else (see the module
    docstring)."""
    if bytes(data[: len(MAGIC)]) != MAGIC:
        raise FormatError(f"byte 0: does not start with {MAGIC.decode()}")
    decoder = _Decoder(data, frozenset(roots))
    decoder.table()
    value = decoder.value(0)
    if decoder.at != len(data):
        raise FormatError(f"byte {decoder.at}: {len(data) - decoder.at:,} bytes after the value")
    return value
