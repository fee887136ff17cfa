"""What an implementation may answer: the limits every answer is held to before anything
compares it, whether it came from a process (a line of JSON) or a Python adapter (a dict).

* a process's answer line is at most :data:`MAX_ANSWER_BYTES` bytes and UTF-8;
* JSON nests at most :data:`~yarnspec.impl.input_files.MAX_JSON_DEPTH` levels (the shared
  reader's limit; real answers nest under 8) and holds no ``NaN`` / ``Infinity``;
* every integer is within the model's range, a Java ``long`` (:data:`LONG_MIN` ..
  :data:`LONG_MAX`): the reference takes Hadoop's and Spark's ``long`` values, so a larger
  number cannot mean anything the spec describes;
* a Python adapter's answer holds only JSON values (dicts with string keys, lists, strings,
  finite numbers, booleans, ``None``);
* the output fits the op's definition in ``protocol.schema.json``.

Each check returns one line saying where and what is wrong (``None`` when the answer is fine),
which the adapter turns into an :class:`~.adapter.AdapterFault`.
"""

from __future__ import annotations

import math
from typing import Any

from yarnspec.checks.conformance.case_fields import LONG_MAX, LONG_MIN
from yarnspec.checks.validate.schema import output_definition, schema_fault
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import MAX_JSON_DEPTH, parse_json

#: A process's answer line longer than this is a fault (the largest real answers, scheduler
#: observations of big worlds, are a few kB).
MAX_ANSWER_BYTES = 8 * 1024 * 1024


def _where(path: list[str | int]) -> str:
    return "".join(f"[{p!r}]" for p in path) or "(top level)"


def value_fault(value: Any) -> str | None:
    """Why ``value`` is not a JSON value the model can take (module docstring), or ``None``.
    Iterative, so no nesting depth can exhaust Python's stack."""
    pending: list[tuple[Any, list[str | int]]] = [(value, [])]
    while pending:
        item, path = pending.pop()
        if len(path) > MAX_JSON_DEPTH:
            return f"nested deeper than {MAX_JSON_DEPTH} levels"
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, int):
            if not LONG_MIN <= item <= LONG_MAX:
                digits = (
                    len(str(abs(item))) if item.bit_length() < 4000 else f"about {int(item.bit_length() * 0.30103):,}"
                )
                return f"{_where(path)}: an integer of {digits} digits is beyond the model's range (a Java long, -2^63 .. 2^63-1)"
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return f"{_where(path)}: {item} is not a JSON number"
            continue
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{_where(path)}: a key of type {type(key).__name__} ({key!r:.40}); JSON keys are strings"
                pending.append((child, [*path, key]))
            continue
        if isinstance(item, (list, tuple)):
            pending.extend((child, [*path, index]) for index, child in enumerate(item))
            continue
        return f"{_where(path)}: a {type(item).__name__}, not a JSON value"
    return None


def parse_answer_line(data: bytes) -> tuple[Any, str | None]:
    """A process's answer line parsed (``(value, None)``) or why it cannot be (``(None,
    fault)``): too long, not UTF-8, not JSON, beyond the limits of the module docstring."""
    if len(data) > MAX_ANSWER_BYTES:
        return None, f"the answer is {len(data):,} bytes, more than the limit of {MAX_ANSWER_BYTES:,}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"the answer is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}"
    try:
        value = parse_json(text, "answer")
    except InputError as exc:
        if exc.fault.startswith("not valid JSON"):
            return None, "the answer is not a JSON line"
        return None, f"the answer is refused: {exc.fault}"
    fault = value_fault(value)
    return (None, f"the answer is refused: {fault}") if fault is not None else (value, None)


def output_fault(contract: str, op: str, output: Any) -> str | None:
    """Why an op's ``output`` cannot be compared: not a JSON value within the limits, or not
    the op's schema definition (``None``: it can)."""
    fault = value_fault(output)
    if fault is not None:
        return f"the output is refused: {fault}"
    definition = output_definition(contract, op)
    if definition is None:
        return None
    fault = schema_fault(definition, output)
    return None if fault is None else f"the output breaks the protocol schema ({definition}) at {fault}"
