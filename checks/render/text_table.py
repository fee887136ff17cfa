"""Aligned plain-text tables, as the commands print them."""

from __future__ import annotations

from collections.abc import Sequence


def aligned(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    """The header, a rule of dashes and the body, each column padded to its widest cell
    (trailing blanks stripped)."""
    widths = [max(len(cell) for cell in column) for column in zip(header, *body)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in (header, *body)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines
