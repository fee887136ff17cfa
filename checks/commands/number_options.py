"""Numbers typed on the command line, read one way for every option.

A number is ASCII digits only (a ``-`` at most, no ``+``, no ``_``, no other script's digits:
``'١'`` or ``'²'`` would pass Python's ``int`` or ``str.isdigit`` but are refused here) within a
stated range, so an option can neither crash the conversion nor ask for an absurd amount of
work. A decimal (seconds) is the same digits with at most one ``.``: no exponent, no ``nan``,
no ``inf``, and at most :data:`MAX_SECONDS`.

Options read at parse time take :class:`WholeNumber` or :class:`Seconds` as their argparse
``type``; options read later call :func:`whole_number_argument`. :func:`strict_numbers` gives
every option still declared with Python's ``int`` or ``float`` the strict grammar, so no
sub-command takes ``'+2'``, ``'1_0'``, ``'nan'`` or ``'1e308'``.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

from yarnspec.impl.config.getters import LONG_RANGE
from yarnspec.impl.errors import InputError

#: More digits than this is refused before conversion (beyond a Java long either way).
_MAX_DIGITS = 19
_DIGITS = re.compile("-?[0-9]+")
_DECIMAL = re.compile(r"(?:[0-9]{1,12}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})")
#: The most seconds an option takes (11.6 days): below every OS timer's range (``poll`` takes
#: a C ``int`` of milliseconds), far above any sensible timeout.
MAX_SECONDS = 1_000_000


def whole_number_argument(text: str, source: str, option: str, lowest: int, highest: int) -> int:
    """``text`` as a whole number in ``[lowest, highest]``; otherwise an :class:`InputError`
    naming ``source`` and ``option``."""
    stripped = text.strip(" \t")
    if not _DIGITS.fullmatch(stripped):
        raise InputError(source, option, f"expected a whole number, got {_shown(text)}")
    if len(stripped.lstrip("-")) > _MAX_DIGITS:
        bound = f">= {lowest}" if stripped.startswith("-") else f"<= {highest}"
        raise InputError(source, option, f"expected a whole number {bound}, got {_shown(text)}")
    value = int(stripped)
    if value < lowest:
        raise InputError(source, option, f"expected a whole number >= {lowest}, got {value}")
    if value > highest:
        raise InputError(source, option, f"expected a whole number <= {highest}, got {value}")
    return value


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def seconds_argument(text: str, source: str, option: str, lowest: float, highest: float) -> float:
    """``text`` as seconds in ``[lowest, highest]``: ASCII digits with at most one ``.`` (no
    sign, exponent, ``_``, ``nan`` or ``inf``); otherwise an :class:`InputError`."""
    stripped = text.strip(" \t")
    if not _DECIMAL.fullmatch(stripped):
        raise InputError(
            source,
            option,
            f"expected seconds as ASCII digits with at most one '.' (like 30 or 2.5), got {_shown(text)}",
        )
    value = float(stripped)
    if not lowest <= value <= highest:
        raise InputError(source, option, f"expected seconds in {lowest:g}..{highest:g}, got {stripped}")
    return value


@dataclass(frozen=True)
class WholeNumber:
    """An argparse ``type``: :func:`whole_number_argument` in ``[lowest, highest]``; a fault
    is argparse's one-line usage error naming the option."""

    lowest: int = LONG_RANGE[0]
    highest: int = LONG_RANGE[1]

    def __call__(self, text: str) -> int:
        try:
            return whole_number_argument(text, "", "", self.lowest, self.highest)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.fault) from None


@dataclass(frozen=True)
class Seconds:
    """An argparse ``type``: :func:`seconds_argument` in ``[lowest, highest]``."""

    lowest: float = 0.0
    highest: float = MAX_SECONDS

    def __call__(self, text: str) -> float:
        try:
            return seconds_argument(text, "", "", self.lowest, self.highest)
        except InputError as exc:
            raise argparse.ArgumentTypeError(exc.fault) from None


def strict_numbers(parser: argparse.ArgumentParser) -> None:
    """Give every option of ``parser`` declared with ``type=int`` the :class:`WholeNumber`
    grammar (a Java ``long``) and every one with ``type=float`` the :class:`Seconds` grammar
    (every float option yarnspec has is a timeout), so Python's lenient ``int('+2')``,
    ``int('1_0')``, ``int('١')`` and ``float('nan')`` never read a command line."""
    for action in parser._actions:
        if action.type is int:
            action.type = WholeNumber()
        elif action.type is float:
            action.type = Seconds()
