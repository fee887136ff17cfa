"""Hadoop ``Configuration``'s typed getters: which strings each one accepts, and as what.

Hadoop reads a number with Java's parsers, so a value is accepted exactly when the getter the
upstream code calls accepts it. Each function below is one getter, written once and used for
every key that Hadoop reads with it (``docs/configuration.md`` lists the keys); each returns
``None`` for a string Hadoop refuses (Hadoop then throws ``NumberFormatException``).

- :func:`get_int` / :func:`get_long` (``Configuration.getInt`` / ``getLong``): the value is
  trimmed as Java's ``String.trim`` does (only characters up to U+0020, so a no-break space
  stays and is refused); ``0x``/``0X`` after an optional ``-`` selects hexadecimal
  (``Configuration.getHexDigits``); then ``Integer.parseInt`` / ``Long.parseLong``: an optional
  ASCII ``+`` or ``-``, then digits as ``Character.digit`` reads them. That includes every
  Unicode decimal digit of the Basic Multilingual Plane (``６０`` and ``٥٠`` are 60 and 50) and,
  in hexadecimal, full-width Latin letters; it excludes ``_``, spaces inside, a ``.``, an
  exponent, and values outside the Java type.
- :func:`get_float` / :func:`get_double` (``Float.parseFloat`` / ``Double.parseDouble``):
  trimmed the same way; an optional sign; ASCII digits with an optional ``.`` and exponent,
  or a hexadecimal float (``0x1.8p1``); an optional ``f``/``F``/``d``/``D`` suffix; ``NaN``
  and ``Infinity``. Unicode digits and ``_`` are refused. A decimal beyond the float range
  reads as infinity in Java; yarnspec refuses ``NaN`` and infinities (:func:`finite`), since
  no setting it reads means anything with them.
- :func:`get_boolean` (``Configuration.getBoolean``): ``true`` or ``false`` compared as Java's
  ``String.equalsIgnoreCase`` compares (so ``falſe``, with a long s, is false); Hadoop logs a
  warning and falls back to the default for anything else, yarnspec refuses it.
- :func:`get_strings` (``StringUtils.getStrings``): split at commas, empty pieces dropped,
  nothing trimmed; :func:`get_trimmed_strings` (``StringUtils.getTrimmedStrings``): trimmed,
  split at commas and newlines with white space around them, trailing empty pieces dropped.
"""

from __future__ import annotations

import math
import re
import unicodedata

#: The ranges of Java's ``int`` and ``long``.
INT_RANGE = (-(2**31), 2**31 - 1)
LONG_RANGE = (-(2**63), 2**63 - 1)

_FLOAT = re.compile(
    r"[+-]?(?:NaN|Infinity"
    r"|0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)"
)
#: Java's regular-expression ``\s`` (without UNICODE_CHARACTER_CLASS).
_JAVA_SPACE = "[ \t\n\x0b\f\r]*"
_TRIMMED_SEPARATOR = re.compile(f"{_JAVA_SPACE}[,\n]{_JAVA_SPACE}")


def java_trim(text: str) -> str:
    """``String.trim``: drop leading and trailing characters up to U+0020 (no others)."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def _java_digit(char: str, radix: int) -> int | None:
    """``Character.digit(char, radix)`` for one UTF-16 unit (a character above U+FFFF is two
    units to Java, neither a digit)."""
    code = ord(char)
    if code > 0xFFFF:
        return None
    if unicodedata.category(char) == "Nd":
        value = unicodedata.decimal(char)
    elif "A" <= char <= "Z" or "a" <= char <= "z":
        value = ord(char.upper()) - ord("A") + 10
    elif 0xFF21 <= code <= 0xFF3A or 0xFF41 <= code <= 0xFF5A:  # full-width Latin letters
        value = (code - 0xFF21 if code <= 0xFF3A else code - 0xFF41) + 10
    else:
        return None
    return value if value < radix else None


def java_parse_integer(text: str, radix: int, bounds: tuple[int, int]) -> int | None:
    """``Integer.parseInt`` / ``Long.parseLong`` (``bounds`` is the type's range), or ``None``."""
    negative = text[:1] == "-"
    digits = text[1:] if text[:1] in "+-" and text else text
    if not digits:
        return None
    low, high = bounds
    limit = -low if negative else high
    value = 0
    for char in digits:
        digit = _java_digit(char, radix)
        if digit is None:
            return None
        value = value * radix + digit
        if value > limit:
            return None
    return -value if negative else value


def _hadoop_integer(text: str, bounds: tuple[int, int]) -> int | None:
    """``getInt``/``getLong`` after ``getTrimmed``: ``Configuration.getHexDigits`` first."""
    value = java_trim(text)
    sign, rest = ("-", value[1:]) if value.startswith("-") else ("", value)
    if rest.startswith(("0x", "0X")):
        return java_parse_integer(sign + rest[2:], 16, bounds)
    return java_parse_integer(value, 10, bounds)


def get_int(text: str) -> int | None:
    """``Configuration.getInt`` on a value (see the module docstring)."""
    return _hadoop_integer(text, INT_RANGE)


def get_long(text: str) -> int | None:
    """``Configuration.getLong`` on a value (see the module docstring)."""
    return _hadoop_integer(text, LONG_RANGE)


def java_parse_double(text: str) -> float | None:
    """``Double.parseDouble`` (``Float.parseFloat`` has the same grammar), or ``None``."""
    value = java_trim(text)
    if not _FLOAT.fullmatch(value):
        return None
    body = value.rstrip("fFdD")
    if body.lstrip("+-").startswith(("0x", "0X")):
        return float.fromhex(body)
    return float(body.replace("Infinity", "inf").replace("NaN", "nan"))


def get_float(text: str) -> float | None:
    """``Configuration.getFloat`` on a value: the number as a Python float (a double; callers
    round to float where Hadoop computes in float), infinity where Java's float overflows."""
    value = java_parse_double(text)
    if value is None or math.isnan(value) or math.isinf(value):
        return value
    return value if abs(value) < 3.4028235677973366e38 else math.copysign(math.inf, value)


def get_double(text: str) -> float | None:
    """``Configuration.getDouble`` on a value."""
    return java_parse_double(text)


def finite(value: float | None) -> float | None:
    """``value`` when it is a finite number, else ``None`` (yarnspec refuses NaN and infinities)."""
    return value if value is not None and math.isfinite(value) else None


def _java_equals_ignore_case(left: str, right: str) -> bool:
    """``String.equalsIgnoreCase``: per UTF-16 unit, equal, or equal upper case, or equal lower
    case of the upper case."""
    if len(left) != len(right):
        return False
    for a, b in zip(left, right):
        if a == b:
            continue
        upper_a, upper_b = _java_upper(a), _java_upper(b)
        if upper_a == upper_b or upper_a.lower() == upper_b.lower():
            continue
        return False
    return True


def _java_upper(char: str) -> str:
    """``Character.toUpperCase`` for one character (a one-to-many mapping leaves it as is)."""
    upper = char.upper()
    return upper if len(upper) == 1 else char


def get_boolean(text: str) -> bool | None:
    """``Configuration.getBoolean`` on a value: ``None`` where Hadoop would use the default."""
    value = java_trim(text)
    if _java_equals_ignore_case(value, "true"):
        return True
    if _java_equals_ignore_case(value, "false"):
        return False
    return None


def get_strings(text: str) -> list[str]:
    """``StringUtils.getStrings``: the pieces between commas, empty ones dropped, untrimmed
    (Hadoop returns null for none; this returns an empty list)."""
    return [piece for piece in text.split(",") if piece]


def get_trimmed_strings(text: str) -> list[str]:
    """``StringUtils.getTrimmedStrings``: trimmed, split at commas and newlines with Java white
    space around them, trailing empty pieces dropped (leading and inner ones kept)."""
    value = java_trim(text)
    if not value:
        return []
    pieces = _TRIMMED_SEPARATOR.split(value)
    while pieces and not pieces[-1]:
        pieces.pop()
    return pieces
