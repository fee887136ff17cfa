"""One request to an implementation and its answer: the unit every contract is compared in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Call", "Answer"]


@dataclass(frozen=True)
class Call:
    """An ``op`` with its JSON ``input`` (the process protocol's request without the id)."""

    op: str
    input: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The call as it is written into replayable files."""
        return {"op": self.op, "input": self.input}


@dataclass(frozen=True)
class Answer:
    """An implementation's answer to one call: an ``output`` object, or an ``error`` text (the
    implementation refused the input; compared with whether the reference refused it too)."""

    output: dict[str, Any] | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The answer as the process protocol writes it (without the id)."""
        return {"error": self.error} if self.error is not None else {"output": self.output}
