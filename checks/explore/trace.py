"""Counterexample traces: a JSON format and replay on a model (pytest files that replay them: :mod:`.emit`).

A trace names the model (name, parameters, variant), the violated property (its kind:
``invariant``, ``deadlock`` or ``progress``; its name; a message) and the steps: the first is an
initial state, each later one an action label and the state it leads to, states in the model's
JSON form (:meth:`TransitionSystem.state_json`). A progress counterexample is a lasso:
``loop_start`` is the step the last step returns to (the last state equals that step's state
and the loop repeats for ever); when ``loop_start`` is the last step, the behaviour stutters
there for ever. A trace of a user's world file also holds the world (``world``: the document,
its configuration files and their SHA-256, :mod:`.trace_world`), so it replays anywhere;
other traces have ``"world": null``. Version 1 (no ``world``; a world file named by its path)
is still read. Example, as written by :meth:`Trace.to_json`::

    {"format": "yarnspec-trace", "version": 2, "model": "toy-allocate-release",
     "parameters": {"nodes": 1, "apps": 2, "capacity": 1}, "variant": "broken-release",
     "kind": "invariant", "property": "used-matches-holders", "message": "n0: ...",
     "steps": [{"action": null, "state": {...}}, {"action": "allocate(a0, n0)", "state": {...}}],
     "loop_start": null, "world": null}
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.checks.explore.trace_world import EmbeddedWorld
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import read_json, shown_name
from yarnspec.spec.property_guard import PropertyRaised
from yarnspec.spec.transition_system import JSONValue, Progress, TransitionSystem

FORMAT = "yarnspec-trace"
VERSION = 2
#: The versions this yarnspec reads (1: before a world file was embedded).
READABLE = (1, 2)
KINDS = ("invariant", "deadlock", "progress")
#: Trace files larger than this are refused unread.
MAX_TRACE_BYTES = 64 * 1024 * 1024


class ReplayError(InputError):
    """A trace does not replay on the model: ``place`` names the step (``steps[3].action``)."""


@dataclass(frozen=True)
class Step:
    """One step of a trace: ``action`` is ``None`` for the initial state."""

    action: str | None
    state: JSONValue


@dataclass(frozen=True)
class Trace:
    """A counterexample (see the module docstring for the format)."""

    model: str
    parameters: Mapping[str, JSONValue]
    variant: str
    kind: str
    property: str
    message: str
    steps: tuple[Step, ...]
    loop_start: int | None = None
    #: the world file the trace is of, carried along (``None`` for a built-in scenario or a model)
    world: EmbeddedWorld | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON document of the trace."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "model": self.model,
            "parameters": dict(self.parameters),
            "variant": self.variant,
            "kind": self.kind,
            "property": self.property,
            "message": self.message,
            "steps": [{"action": step.action, "state": step.state} for step in self.steps],
            "loop_start": self.loop_start,
            "world": None if self.world is None else self.world.to_json(),
        }

    @staticmethod
    def from_json(data: Any, source: str = "<trace>") -> Trace:
        """Read a trace document, raising :class:`InputError` naming the place of any fault."""
        if not isinstance(data, dict):
            raise InputError(source, "", "a trace is a JSON object")
        if data.get("format") != FORMAT or data.get("version") not in READABLE:
            raise InputError(source, "format", f"not a {FORMAT} version {' or '.join(map(str, READABLE))} document")
        text = {key: _field(data, key, str, source) for key in ("model", "variant", "kind", "property", "message")}
        if text["kind"] not in KINDS:
            raise InputError(source, "kind", f"must be one of {', '.join(KINDS)}, got {text['kind']!r}")
        parameters = _field(data, "parameters", dict, source)
        raw_steps = _field(data, "steps", list, source)
        if not raw_steps:
            raise InputError(source, "steps", "a trace has at least one step (the initial state)")
        steps = []
        for index, raw in enumerate(raw_steps):
            place = f"steps[{index}]"
            if not isinstance(raw, dict) or set(raw) != {"action", "state"}:
                raise InputError(source, place, 'a step is an object with exactly "action" and "state"')
            action = raw["action"]
            if index == 0 and action is not None:
                raise InputError(source, f"{place}.action", "the first step is the initial state: its action is null")
            if index > 0 and not isinstance(action, str):
                raise InputError(source, f"{place}.action", f"must be an action label (a string), got {action!r}")
            steps.append(Step(action, raw["state"]))
        loop_start = data.get("loop_start")
        if loop_start is not None and (
            not isinstance(loop_start, int) or isinstance(loop_start, bool) or not 0 <= loop_start < len(steps)
        ):
            fault = f"must be null or a step index below {len(steps)}, got {loop_start!r}"
            raise InputError(source, "loop_start", fault)
        if (loop_start is None) == (text["kind"] == "progress"):
            raise InputError(source, "loop_start", "a progress trace has a loop_start, other traces do not")
        raw_world = data.get("world")
        world = None if raw_world is None else EmbeddedWorld.from_json(raw_world, source)
        return Trace(
            text["model"],
            parameters,
            text["variant"],
            text["kind"],
            text["property"],
            text["message"],
            tuple(steps),
            loop_start,
            world,
        )

    def dumps(self) -> str:
        """The trace as JSON text."""
        return json.dumps(self.to_json(), indent=1)

    def save(self, path: str | Path) -> Path:
        """Write the trace as JSON to ``path``."""
        target = Path(path)
        target.write_text(self.dumps() + "\n", encoding="utf-8")
        return target

    @staticmethod
    def load(path: str | Path) -> Trace:
        """Read a trace file; a missing file or bad JSON is an :class:`InputError`."""
        return Trace.from_json(read_json(path, MAX_TRACE_BYTES), shown_name(path))

    def format(self, full: bool = False) -> str:
        """The trace for a terminal: per step the action and what changed, with ``full`` the
        whole state too (:func:`yarnspec.checks.render.text.format_trace`)."""
        from yarnspec.checks.render.text import format_trace

        return format_trace(self, full)


def _field(data: dict[str, Any], key: str, kind: type, source: str) -> Any:
    if key not in data:
        raise InputError(source, key, "missing")
    if not isinstance(data[key], kind):
        raise InputError(source, key, f"must be a {'string' if kind is str else 'JSON ' + kind.__name__}")
    return data[key]


def _normal(value: JSONValue) -> JSONValue:
    """The value as it reads back from JSON (tuples become lists), for comparisons."""
    return json.loads(json.dumps(value))


def build_trace(
    model: TransitionSystem[Any, Any],
    kind: str,
    name: str,
    message: str,
    states: Sequence[Hashable],
    actions: Sequence[Hashable],
    loop_start: int | None = None,
) -> Trace:
    """A trace from concrete states and the actions between them (``len(states) == len(actions) + 1``)."""
    steps = [Step(None, _normal(model.state_json(states[0])))]
    for action, state in zip(actions, states[1:]):
        steps.append(Step(model.action_label(action), _normal(model.state_json(state))))
    parameters = _normal(dict(model.parameters))
    return Trace(model.name, parameters, model.variant, kind, name, message, tuple(steps), loop_start)


def replay(model: TransitionSystem[Any, Any], trace: Trace, source: str = "<trace>") -> str:
    """Re-execute ``trace`` on ``model`` and re-check the violated property.

    Every step must be enabled in the previous state and lead to the recorded state, and the
    property must still be violated (for a lasso: the loop closes, stays outside the goal and
    is fair). Returns a line saying what was reproduced; raises :class:`ReplayError` naming the
    step otherwise.
    """
    for place, ours, theirs in (
        ("model", model.name, trace.model),
        ("parameters", _normal(dict(model.parameters)), trace.parameters),
        ("variant", model.variant, trace.variant),
    ):
        if ours != theirs:
            raise ReplayError(source, place, f"the trace is for {theirs!r}, the model is {ours!r}")
    check_kind_matches_property(trace, source)
    states, actions = replay_states(model, trace, source)
    last = len(states) - 1
    if trace.kind == "invariant":
        invariant = _named(model.invariants(), trace.property, "invariant", source)
        message = invariant.check(states[-1])
        if message is None:
            fault = f"invariant {trace.property} holds here: the violation does not reproduce"
            raise ReplayError(source, f"steps[{last}]", fault)
        return f"invariant {trace.property} violated at step {last}: {message}"
    if trace.kind == "deadlock":
        if list(model.successors(states[-1])):
            raise ReplayError(source, f"steps[{last}]", "actions are enabled here: the deadlock does not reproduce")
        return f"deadlock at step {last}"
    prop = _named(model.progress(), trace.property, "progress property", source)
    if trace.loop_start is None:
        raise ReplayError(source, "loop_start", "a progress trace needs the step its loop returns to")
    return check_lasso(model, prop, states, actions, trace.loop_start, source)


#: The property name the explorer writes for a deadlock (``bfs``, ``simulate``, ``partition``).
DEADLOCK_PROPERTY = "deadlock"


def check_kind_matches_property(trace: Trace, source: str) -> None:
    """Refuse a trace whose ``kind`` and ``property`` disagree: the explorer writes a deadlock
    as kind and property ``deadlock``, so an invariant's or a progress property's trace whose
    kind was changed to ``deadlock`` (or the reverse) is not replayed as what it is not."""
    if (trace.kind == "deadlock") != (trace.property == DEADLOCK_PROPERTY):
        if trace.kind == "deadlock":
            fault = f"kind is 'deadlock' but the property is {trace.property!r}: a deadlock trace's property is {DEADLOCK_PROPERTY!r}"
        else:
            fault = (
                f"kind is {trace.kind!r} but the property is {DEADLOCK_PROPERTY!r}, which only a deadlock trace names"
            )
        raise ReplayError(source, "kind", fault)


def replay_states(model: TransitionSystem[Any, Any], trace: Trace, source: str) -> tuple[list[Any], list[Any]]:
    """The concrete states and actions the trace's steps name, checked step by step (a
    :class:`ReplayError` naming the first step that does not replay)."""
    first = trace.steps[0].state
    current = next((state for state in model.initial_states() if _normal(model.state_json(state)) == first), None)
    if current is None:
        raise ReplayError(source, "steps[0].state", "not an initial state of the model")
    states, actions = [current], []
    for index, step in enumerate(trace.steps[1:], start=1):
        enabled = list(model.successors(current))
        matching = [(action, target) for action, target in enabled if model.action_label(action) == step.action]
        if not matching:
            labels = ", ".join(model.action_label(action) for action, _ in enabled) or "none"
            fault = f"{step.action} is not enabled after step {index - 1} (enabled: {labels})"
            raise ReplayError(source, f"steps[{index}].action", fault)
        found = next((pair for pair in matching if _normal(model.state_json(pair[1])) == step.state), None)
        if found is None:
            reached = json.dumps(_normal(model.state_json(matching[0][1])), separators=(",", ":"))
            fault = f"{step.action} leads to {reached}, not to the recorded state"
            raise ReplayError(source, f"steps[{index}].state", fault)
        actions.append(found[0])
        current = found[1]
        states.append(current)
    return states, actions


def _named(items: Iterable[Any], name: str, what: str, source: str) -> Any:
    for item in items:
        if item.name == name:
            return item
    raise ReplayError(source, "property", f"the model has no {what} named {name!r}")


def _on_each_step(states: Sequence[Hashable], predicate: Any) -> list[bool]:
    """``predicate`` on every step's state; a registered property that raises is placed at the
    step (:class:`PropertyRaised`)."""
    found = []
    for index, state in enumerate(states):
        try:
            found.append(bool(predicate(state)))
        except PropertyRaised as exc:
            raise exc.at(f"steps[{index}]") from None
    return found


def fair_classes_enabled(model: TransitionSystem[Any, Any], state: Hashable, fair: frozenset[str]) -> set[str]:
    """The weakly fair classes with a step out of ``state`` that changes it (stuttering excluded)."""
    classes = {model.action_class(action) for action, target in model.successors(state) if target != state}
    return classes & fair


def check_lasso(
    model: TransitionSystem[Any, Any],
    prop: Progress[Any],
    states: Sequence[Hashable],
    actions: Sequence[Hashable],
    loop_start: int,
    source: str = "<lasso>",
) -> str:
    """Check that the lasso ``states`` (``actions[i]`` leads to ``states[i + 1]``; the last
    state loops back to ``loop_start``) violates ``prop`` under its fairness.

    The loop closes; from some step on, the premise has held once and the goal never holds
    (the loop included); and every weakly fair class is, somewhere on the loop, either taken or
    not enabled. A loop of no steps stutters at the last state, which is fair only when no
    fair class is enabled there.
    """
    last = len(states) - 1
    if loop_start < last and states[last] != states[loop_start]:
        fault = f"differs from the state of step {loop_start}: the loop does not close"
        raise ReplayError(source, f"steps[{last}].state", fault)
    outside = [not holds for holds in _on_each_step(states, prop.goal)]
    if not all(outside[loop_start:]):
        step = loop_start + outside[loop_start:].index(False)
        raise ReplayError(source, f"steps[{step}]", f"the goal of {prop.name} holds on the loop: not a violation")
    trigger = last
    while trigger > 0 and outside[trigger - 1]:
        trigger -= 1
    triggered = _on_each_step(states, prop.triggered)
    first = next((i for i in range(trigger, last + 1) if triggered[i]), None)
    if first is None:
        raise ReplayError(source, "steps", f"the premise of {prop.name} never holds where the goal stays false")
    loop = [states[i] for i in range(loop_start, last + 1)]
    taken = {
        model.action_class(actions[index - 1])
        for index in range(loop_start + 1, last + 1)
        if states[index - 1] != states[index]
    }
    for cls in sorted(prop.fair - taken):
        if all(cls in fair_classes_enabled(model, state, prop.fair) for state in loop):
            fault = f"unfair loop: {cls} is enabled throughout steps {loop_start}..{last} and never taken"
            raise ReplayError(source, "loop_start", fault)
    shape = f"stutters for ever at step {last}" if loop_start == last else f"loops over steps {loop_start}..{last}"
    return f"progress {prop.name} violated: triggered at step {first}, the goal never holds after, and the run {shape}"
