"""A node-sorting adapter that supports no op: every call is answered "unknown op".

``yarnspec validate node-sorting --impl python:docs/examples/supports_nothing.py:SupportsNothing``
compares nothing with the spec, so it says "nothing checked" and exits 3 instead of
"agrees with the spec" (docs/validating.md, "Exit status").
"""

from __future__ import annotations

from typing import Any


class RefusedInput(Exception):
    """Raised to answer with an error (any exception class of this name does)."""


class SupportsNothing:
    """Has the contract's method, but refuses every call as an unknown op."""

    def sort_nodes(self, input: dict[str, Any]) -> dict[str, Any]:
        """Not implemented yet."""
        raise RefusedInput("unknown op sort_nodes")
