"""Traces in the Informal Trace Format (ITF), the JSON that Apalache writes and Quint reads
(https://apalache-mc.org/docs/adr/015adr-trace.html).

A document has ``#meta`` (the format, the source, the model and its parameters, the property
violated), ``vars`` (the state's top-level fields, plus ``action`` and ``step``), ``states``
(each with ``#meta: {"index": i}``) and, for a lasso, ``loop``: the index of the state the last
one returns to.

Values are encoded as ITF says: numbers within JavaScript's safe integers as numbers, other
integers as ``{"#bigint": "..."}``; strings and booleans as they are; lists as arrays; objects
whose keys are field names (valid identifiers) as records; the groups of a scheduler state
(``nodes``, ``queues``, ``apps``, ``marks``: keyed by names that come and go) and objects with
other keys (a partition ``""``) as ``{"#map": [[key, value], ...]}``; a float or
``null``, which ITF has no form for, as ``{"#unserializable": "..."}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from yarnspec.checks.explore.trace import Trace
from yarnspec.checks.render.diff import SINGULAR
from yarnspec.spec.transition_system import JSONValue

SAFE = 2**53 - 1
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def value(data: JSONValue, keyed_by_name: bool = False) -> Any:
    """One JSON value in ITF's encoding (see the module docstring); ``keyed_by_name``: an
    object is a map whatever its keys (a group of nodes, queues, apps or marks)."""
    if isinstance(data, bool) or isinstance(data, str):
        return data
    if isinstance(data, int):
        return data if -SAFE <= data <= SAFE else {"#bigint": str(data)}
    if isinstance(data, (list, tuple)):
        return [value(item) for item in data]
    if isinstance(data, Mapping):
        if data and not keyed_by_name and all(_NAME.match(key) for key in data):
            return {key: value(item) for key, item in data.items()}
        return {"#map": [[key, value(item)] for key, item in data.items()]}
    return {"#unserializable": repr(data)}


def to_itf(trace: Trace) -> dict[str, Any]:
    """The trace as an ITF document."""
    states = []
    for index, step in enumerate(trace.steps):
        fields = step.state if isinstance(step.state, Mapping) else {"state": step.state}
        encoded: dict[str, Any] = {"#meta": {"index": index}, "action": step.action or "init", "step": index}
        encoded.update({key: value(item, key in SINGULAR) for key, item in fields.items()})
        states.append(encoded)
    variables = list(dict.fromkeys(key for state in states for key in state if key != "#meta"))
    document: dict[str, Any] = {
        "#meta": {
            "format": "ITF",
            "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
            "source": "yarnspec",
            "description": f"counterexample: {trace.kind} {trace.property} violated: {trace.message}",
            "model": trace.model,
            "variant": trace.variant,
            "parameters": value(dict(trace.parameters)),
        },
        "vars": variables,
        "states": states,
    }
    if trace.loop_start is not None:
        document["loop"] = trace.loop_start
    return document
