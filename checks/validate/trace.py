"""``yarnspec validate-trace CONTRACT LOG``: is a log of an implementation's decisions a
behaviour the spec allows?

The log is JSON lines, one decision per line: ``{"op", "input", "output"}`` (or ``"error"``
instead of ``output``), the session's ``reset`` first for a stateful contract. A
``*.disagreement.json`` file written by ``validate`` is read too (its calls with the
implementation's answers). The calls are replayed on the reference; the first step whose
logged answer the reference's does not match under the contract's comparison (or whose answers
break an invariant) is the step the spec cannot explain.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer, Call

from yarnspec.checks.validate.engine import first_difference, reference_adapter, replay


@dataclass(frozen=True)
class TraceVerdict:
    """How far the spec explains the log."""

    steps: int
    explained: bool
    first_unexplained: int | None = None
    line_number: int | None = None
    why: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        """The one-line verdict."""
        if self.explained:
            return f"explained: all {self.steps} steps are a behaviour the spec allows"
        return f"not explained: step {self.first_unexplained} (line {self.line_number}) is not what the spec allows: " + "; ".join(self.why)

    def to_json(self) -> dict[str, Any]:
        """The verdict as JSON."""
        return {"steps": self.steps, "explained": self.explained, "first_unexplained": self.first_unexplained, "line": self.line_number, "why": list(self.why)}


def _entry(raw: Any, where: str, path: Path) -> tuple[Call, Answer]:
    if not isinstance(raw, dict) or not isinstance(raw.get("op"), str) or not isinstance(raw.get("input"), dict):
        raise InputError(str(path), where, "expected an object with 'op' (string) and 'input' (object)")
    if isinstance(raw.get("output"), dict):
        return Call(raw["op"], raw["input"]), Answer(output=raw["output"])
    if isinstance(raw.get("error"), str):
        return Call(raw["op"], raw["input"]), Answer(error=raw["error"])
    raise InputError(str(path), where, "expected 'output' (object) or 'error' (string)")


def read_log(path: Path) -> tuple[list[Call], list[Answer], list[int]]:
    """The calls, the logged answers and each one's line number (:class:`InputError` if bad)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), "", f"cannot read: {exc}") from None
    calls, answers, lines = [], [], []
    stripped = text.lstrip()
    if stripped.startswith("{") and '"format": "yarnspec-disagreement/1"' in text:
        document = json.loads(text)
        for index, raw in enumerate(document.get("calls", [])):
            if raw.get("implementation") is None:
                break
            call, answer = _entry({**raw, **raw["implementation"]}, f"calls[{index}]", path)
            calls.append(call)
            answers.append(answer)
            lines.append(index + 1)
        return calls, answers, lines
    for number, raw_line in enumerate(text.splitlines(), 1):
        if not raw_line.strip():
            continue
        try:
            raw = json.loads(raw_line)
        except json.JSONDecodeError as exc:
            raise InputError(str(path), f"line {number}", f"not a JSON line: {exc.msg}") from None
        call, answer = _entry(raw, f"line {number}", path)
        calls.append(call)
        answers.append(answer)
        lines.append(number)
    if not calls:
        raise InputError(str(path), "", "the log has no decisions")
    return calls, answers, lines


def validate_trace(contract: Contract, path: Path) -> TraceVerdict:
    """Replay the log's calls on the reference and name the first step it cannot explain."""
    calls, logged, lines = read_log(path)
    ours = replay(reference_adapter(contract), calls)
    if ours.fault is not None:
        raise InputError(str(path), "", f"the reference cannot replay this log: {ours.fault}")
    difference = first_difference(contract, calls, ours.answers, logged)
    if difference is not None:
        return TraceVerdict(len(calls), False, difference.step, lines[difference.step], difference.lines)
    assert contract.invariants is not None
    broken = contract.invariants(calls, logged)
    if broken:
        return TraceVerdict(len(calls), False, None, None, tuple(broken))
    return TraceVerdict(len(calls), True)
