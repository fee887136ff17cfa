"""Checking the numbers callers pass in (bounds, sizes, seeds), with one clear error each."""

from __future__ import annotations

from typing import Any

from yarnspec.impl.errors import InputError


def whole_number(source: str, place: str, value: Any, lowest: int, highest: int | None = None) -> int:
    """``value`` when it is an ``int`` (not a bool) of at least ``lowest`` (and at most
    ``highest`` when given); otherwise an :class:`InputError` naming ``source`` and ``place``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
        raise InputError(source, place, f"must be an integer >= {lowest}, got {value!r}")
    if highest is not None and value > highest:
        raise InputError(source, place, f"must be an integer <= {highest} (the model's limit), got {value!r}")
    return value
