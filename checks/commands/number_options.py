"""Numbers typed on the command line, read one way for every option.

A number is ASCII digits only (a ``-`` at most, no ``_``, no other script's digits: ``'١'`` or ``'²'``
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
    negative = stripped.startswith("-") and _WHOLE.fullmatch(stripped[1:])
    if not _WHOLE.fullmatch(stripped) and not negative:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise InputError(source, option, f"expected a whole number, got {shown!r}")
    value = int(stripped)
    if value < lowest:
        raise InputError(source, option, f"expected a whole number >= {lowest}, got {value}")
    if value > highest:
        raise InputError(source, option, f"expected a whole number <= {highest}, got {value}")
    return value
