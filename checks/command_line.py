"""Numbers typed on the command line, read one way for every option.

A number is ASCII digits only (no sign, no ``_``, no other script's digits: ``'١'`` or ``'²'``
would pass Python's ``int`` or ``str.isdigit`` but are refused here) within a stated range, so
an option can neither crash the conversion nor ask for an absurd amount of work.
"""

from __future__ import annotations

import re

from yarnspec.impl.errors import InputError

#: More digits than this is refused before conversion (every range below is far smaller).
_MAX_DIGITS = 18
_WHOLE = re.compile(f"[0-9]{{1,{_MAX_DIGITS}}}")


def whole_number_argument(text: str, source: str, option: str, lowest: int, highest: int) -> int:
    """``text`` as a whole number in ``[lowest, highest]``; otherwise an :class:`InputError`
    naming ``source`` and ``option``."""
    stripped = text.strip(" \t")
    if not _WHOLE.fullmatch(stripped):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise InputError(source, option, f"expected a whole number {lowest}..{highest} in ASCII digits, found {shown!r}")
    value = int(stripped)
    if not lowest <= value <= highest:
        raise InputError(source, option, f"expected a whole number {lowest}..{highest}, found {value}")
    return value
