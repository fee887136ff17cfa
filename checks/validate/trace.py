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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.checks.validate.answer_check import output_fault, value_fault
from yarnspec.checks.validate.engine import first_difference, reference_adapter, replay
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import parse_json, read_text, shown_name
from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer, Call


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
        return (
            f"not explained: step {self.first_unexplained} (line {self.line_number}) is not what the spec allows: "
            + "; ".join(self.why)
        )

    def to_json(self) -> dict[str, Any]:
        """The verdict as JSON."""
        return {
            "steps": self.steps,
            "explained": self.explained,
            "first_unexplained": self.first_unexplained,
            "line": self.line_number,
            "why": list(self.why),
        }


#: A log larger than this is refused unread (the trace limit of docs/errors.md).
MAX_LOG_BYTES = 64 * 1024 * 1024
#: A log of more decisions than this is refused (each is replayed on the reference).
MAX_LOG_STEPS = 50_000
#: Ops that set a session up: their answers are never compared, so a log of nothing else
#: checks nothing.
SESSION_OPS = frozenset({"hello", "reset"})
DISAGREEMENT_FORMAT = "yarnspec-disagreement/1"


def _entry(raw: Any, where: str, path: Path, contract: Contract) -> tuple[Call, Answer]:
    source = shown_name(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("op"), str) or not isinstance(raw.get("input"), dict):
        raise InputError(
            source, where, f"expected an object with 'op' (string) and 'input' (object), found {_kind(raw)}"
        )
    fault = value_fault(raw["input"])
    if fault is not None:
        raise InputError(source, f"{where}.input", fault)
    if isinstance(raw.get("output"), dict):
        fault = output_fault(contract.name, raw["op"], raw["output"])
        if fault is not None:
            raise InputError(source, f"{where}.output", fault)
        return Call(raw["op"], raw["input"]), Answer(output=raw["output"])
    if isinstance(raw.get("error"), str):
        return Call(raw["op"], raw["input"]), Answer(error=raw["error"])
    raise InputError(source, where, "expected 'output' (object) or 'error' (string)")


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object without them"
    return "null" if value is None else f"a JSON {type(value).__name__}"


def read_log(path: Path, contract: Contract) -> tuple[list[Call], list[Answer], list[int]]:
    """The calls, the logged answers and each one's line number (:class:`InputError` if bad,
    or if the log holds nothing the reference could be compared with)."""
    source = shown_name(path)
    text = read_text(path, MAX_LOG_BYTES)
    calls, answers, lines = [], [], []
    stripped = text.lstrip()
    if stripped.startswith("{") and f'"{DISAGREEMENT_FORMAT}"' in text:
        document = parse_json(text, source)
        entries = document.get("calls") if isinstance(document, dict) else None
        if not isinstance(entries, list):
            raise InputError(source, "calls", "expected a list of calls")
        for index, raw in enumerate(entries[: MAX_LOG_STEPS + 1]):
            if not isinstance(raw, dict):
                raise InputError(source, f"calls[{index}]", f"expected an object, found {_kind(raw)}")
            theirs = raw.get("implementation")
            if theirs is None:
                break  # the implementation faulted here: the answered prefix is the log
            if not isinstance(theirs, dict):
                raise InputError(source, f"calls[{index}].implementation", f"expected an object, found {_kind(theirs)}")
            call, answer = _entry({**raw, **theirs}, f"calls[{index}]", path, contract)
            calls.append(call)
            answers.append(answer)
            lines.append(index + 1)
    else:
        for number, raw_line in enumerate(text.splitlines(), 1):
            if not raw_line.strip():
                continue
            if len(calls) > MAX_LOG_STEPS:
                break
            try:
                raw = parse_json(raw_line, source)
            except InputError as exc:
                raise InputError(
                    source,
                    f"line {number}",
                    exc.fault + (f" (at {exc.place.replace('line 1 ', '')})" if exc.place else ""),
                ) from None
            call, answer = _entry(raw, f"line {number}", path, contract)
            calls.append(call)
            answers.append(answer)
            lines.append(number)
    if len(calls) > MAX_LOG_STEPS:
        raise InputError(source, "", f"more than {MAX_LOG_STEPS:,} decisions; refusing to replay them")
    if not calls:
        raise InputError(source, "", "the log has no decisions with an implementation's answer: nothing to check")
    if all(call.op in SESSION_OPS for call in calls):
        raise InputError(
            source,
            "",
            f"the log has only session set-up ({', '.join(sorted({c.op for c in calls}))}), whose answers are not compared: nothing to check",
        )
    return calls, answers, lines


def validate_trace(contract: Contract, path: Path) -> TraceVerdict:
    """Replay the log's calls on the reference and name the first step it cannot explain."""
    calls, logged, lines = read_log(path, contract)
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
