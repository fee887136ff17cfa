"""The one safe way yarnspec reads a user's file: configuration XML, case files, traces.

Every reader goes through :func:`read_bytes` (then :func:`read_text` and :func:`parse_json`),
so every file gets the same checks before and while it is read, each ending in one
:class:`InputError` naming the file and what is wrong with it:

- the path must name a regular file: a directory, a dangling link, a link loop, a FIFO, a
  socket or a device is refused *before* opening (a FIFO would block for ever), and the file
  is opened non-blocking and checked again, so a swap between the check and the open changes
  nothing;
- a file larger than the caller's limit is refused unread;
- text must be UTF-8 (a UTF-8 byte-order mark is allowed); a UTF-16 file or invalid bytes are
  named with the byte offset and line;
- JSON is nested at most :data:`MAX_JSON_DEPTH` levels, an integer literal has at most
  :data:`MAX_INTEGER_DIGITS` digits, and ``NaN`` / ``Infinity`` / an overflowing number are
  refused (none is JSON);
- TOML (:func:`read_toml`, world files) has the same depth limit, and every integer must fit a
  Java ``long`` (TOML's own range) whatever Python's int-to-text digit limit is;
- :func:`check_integers` refuses, at its JSON place, an integer outside a stated range (the
  model's Java ``long``), for formats whose numbers the model takes as they are (snapshots).

Names in messages go through :func:`shown_name`, which quotes a name that holds a line break,
another control character or bytes that are not UTF-8, so one error stays one line and can be
printed on any terminal.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from yarnspec.impl.config.getters import LONG_RANGE
from yarnspec.impl.errors import InputError

#: JSON deeper than this is refused (real cases and traces are under 12 levels).
MAX_JSON_DEPTH = 100
#: Integer literals longer than this are refused before Python converts them (a Java long has 19).
MAX_INTEGER_DIGITS = 30

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

_KINDS = (
    (stat.S_ISDIR, "is a directory, not a file"),
    (stat.S_ISFIFO, "is not a regular file (a named pipe)"),
    (stat.S_ISSOCK, "is not a regular file (a socket)"),
    (stat.S_ISCHR, "is not a regular file (a character device)"),
    (stat.S_ISBLK, "is not a regular file (a block device)"),
)


def shown_name(path: str | Path) -> str:
    """``path`` for a message: as written when it is plain printable text, else quoted with
    escapes (``'a\\nb.json'``), so a name cannot split a line or fail to print."""
    text = os.fspath(path)
    if text.isprintable() and text == text.strip() and not _has_surrogates(text):
        return text
    return ascii(text)


def _has_surrogates(text: str) -> bool:
    return any("\ud800" <= char <= "\udfff" for char in text)


def _fault_of(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "no such file"
    if exc.errno == errno.ENAMETOOLONG:
        return "the path is too long for the file system"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.ENOTDIR:
        return "a part of the path is not a folder"
    return f"cannot read: {exc.strerror or exc}"


def path_kind_fault(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a file (``"is a directory, not a file"``, ``"is a
    dangling link"``, ...), or ``None`` when it is a regular file."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError) as exc:
        return _fault_of(exc) if isinstance(exc, OSError) else "the path holds a NUL character"
    if stat.S_ISLNK(info.st_mode):
        try:
            info = os.stat(path)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return f"is a dangling link (to {shown_name(os.readlink(path))}, which does not exist)"
            return _fault_of(exc)
    for test, fault in _KINDS:
        if test(info.st_mode):
            return fault
    return None


def read_bytes(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (see the module
    docstring for what is refused)."""
    source = shown_name(path)
    fault = path_kind_fault(path)
    if fault is not None:
        raise InputError(source, "", fault)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(source, "", _fault_of(exc)) from None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(source, "", "is not a regular file")
        if info.st_size > limit:
            raise InputError(
                source, "", f"is {info.st_size:,} bytes, more than the limit of {limit:,}; refusing to read it"
            )
        try:
            data = stream.read(limit + 1)
        except OSError as exc:
            raise InputError(source, "", _fault_of(exc)) from None
    if len(data) > limit:
        raise InputError(source, "", f"is more than the limit of {limit:,} bytes; refusing to read it")
    return data


def decode_text(data: bytes, source: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped), or an :class:`InputError`
    naming the first bad byte and its line."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(source, "", "is UTF-16 text; save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            source,
            f"line {line}",
            f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} ({exc.reason})",
        ) from None


def read_text(path: str | Path, limit: int) -> str:
    """:func:`read_bytes` then :func:`decode_text`."""
    return decode_text(read_bytes(path, limit), shown_name(path))


class _JSONFault(ValueError):
    """A literal the JSON reader refuses (raised inside the decoder, turned into InputError)."""


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise _JSONFault(f"an integer of {len(text.lstrip('-')):,} digits (at most {MAX_INTEGER_DIGITS} are read)")
    return int(text)


def _decimal(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _JSONFault(f"the number {text[:40]} is too large for a double")
    return value


def _constant(text: str) -> Any:
    raise _JSONFault(f"{text} is not a JSON number")


def parse_json(text: str, source: str) -> Any:
    """Parse JSON text with the limits of the module docstring; any fault is an
    :class:`InputError` naming ``source`` and the line and column where there is one."""
    try:
        value = json.loads(text, parse_int=_integer, parse_float=_decimal, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}") from None
    except _JSONFault as exc:
        raise InputError(source, "", f"not accepted as JSON input: {exc}") from None
    except RecursionError:
        raise InputError(source, "", f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise InputError(source, "", f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (iteratively: no recursion limit)."""
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                children = item.values() if isinstance(item, dict) else item
                pending.extend((child, depth + 1) for child in children)
    return deepest


def read_json(path: str | Path, limit: int) -> Any:
    """A JSON file, read with every check of the module docstring."""
    return parse_json(read_text(path, limit), shown_name(path))


def _places(value: Any) -> Iterator[tuple[str, Any, int]]:
    """Every value in a parsed document with its JSON place (``$.a[2].b``) and depth, walked
    iteratively (no recursion limit), never below :data:`MAX_JSON_DEPTH` + 1 levels."""
    pending: list[tuple[str, Any, int]] = [("$", value, 0)]
    while pending:
        place, item, depth = pending.pop()
        yield place, item, depth
        if depth > MAX_JSON_DEPTH:
            continue
        if isinstance(item, dict):
            pending.extend(
                (f"{place}.{key}" if _plain_key(key) else f"{place}[{key!r}]", child, depth + 1)
                for key, child in reversed(item.items())
            )
        elif isinstance(item, list):
            pending.extend((f"{place}[{index}]", child, depth + 1) for index, child in reversed(list(enumerate(item))))


def _plain_key(key: object) -> bool:
    return isinstance(key, str) and _PLAIN_KEY.fullmatch(key) is not None


def check_document(value: Any, source: str, bounds: tuple[int, int] = LONG_RANGE) -> None:
    """Refuse a parsed document nested deeper than :data:`MAX_JSON_DEPTH` levels, or holding an
    integer outside ``bounds`` (default: a Java ``long``), naming the first such place. A first
    walk only looks (a big snapshot has millions of values); the places are spelled out only
    when there is a fault to name."""
    if _within(value, bounds):
        return
    low, high = bounds
    for place, item, depth in _places(value):
        if depth > MAX_JSON_DEPTH:
            raise InputError(source, "", f"nested deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(item, int) and not isinstance(item, bool) and not low <= item <= high:
            raise InputError(
                source,
                place,
                f"the integer {_short_number(item)} is outside the model's range {low}..{high} (a Java long)",
            )


def _within(value: Any, bounds: tuple[int, int]) -> bool:
    """Whether every integer of ``value`` is within ``bounds`` and it nests at most
    :data:`MAX_JSON_DEPTH` levels (iteratively, building nothing)."""
    low, high = bounds
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict) or isinstance(item, list):
            if depth >= MAX_JSON_DEPTH and item:
                return False
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, int)))
        elif isinstance(item, int) and not isinstance(item, bool) and not low <= item <= high:
            return False
    return True


def _short_number(value: int) -> str:
    """An integer for a message: in full when short, else its sign, first digits and length
    (never a conversion of thousands of digits)."""
    if -(10**30) < value < 10**30:
        return str(value)
    return f"{'-' if value < 0 else ''}of about {int(abs(value).bit_length() * 0.30103) + 1:,} digits"


#: The largest world file (TOML) read; shipped worlds are a few KB.
MAX_TOML_BYTES = 4 * 1024 * 1024


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text: a syntax error names its line and column; nesting beyond
    :data:`MAX_JSON_DEPTH` levels and an integer outside a Java ``long`` (TOML's range) are
    refused by name."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        place = ""
        if "(at " in message:
            message, _, where = message.rpartition(" (at ")
            place = where.rstrip(")")
        raise InputError(source, place, f"not valid TOML: {message}") from None
    except RecursionError:
        raise InputError(source, "", f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # int() of a literal beyond Python's int-to-text digit limit
        raise InputError(
            source, "", f"an integer literal too long to read ({str(exc).split(':')[0]}); integers must fit a Java long"
        ) from None
    check_document(document, source)
    return document


def read_toml(path: str | Path, limit: int = MAX_TOML_BYTES) -> dict[str, Any]:
    """A TOML file, read with every check of the module docstring."""
    return parse_toml(read_text(path, limit), shown_name(path))
