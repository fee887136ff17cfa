"""A model given as an explicit transition table, for small hand-made graphs.

States are integers; each edge is ``[source, label, class, target]``; ``bad`` lists states
that violate the invariant ``no-bad-state``; each progress property is a JSON object
``{"name", "premise" (a list of states, or null for "always"), "goal" (a list of states),
"fair" (a list of classes)}``. Every argument is JSON-able, so ``parameters`` describes the
model completely and a trace of a table model can be replayed (and emitted as a test) with
``yarnspec.checks.explore.table:TableModel`` as the factory. The explorer's own tests use it
to put each pitfall of liveness checking in a graph of a few states.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.transition_system import (
    Invariant,
    JSONValue,
    Progress,
    TransitionSystem,
    always_eventually,
    leads_to,
)


@dataclass(frozen=True)
class Edge:
    """One row of the table; it is also the action (a cheap hashable value)."""

    source: int
    label: str
    cls: str
    target: int


class TableModel(TransitionSystem[int, Edge]):
    """An explicit transition system (see the module docstring)."""

    def __init__(
        self,
        initial: Sequence[int],
        edges: Sequence[Sequence[Any]],
        bad: Sequence[int] = (),
        progress: Sequence[Mapping[str, Any]] = (),
        variant: str = "",
        name: str = "table",
    ) -> None:
        source = f"table model {name}"
        self.name, self.variant = name, variant
        self._initial = [_state(value, source, f"initial[{i}]") for i, value in enumerate(initial)]
        self._edges: dict[int, list[tuple[Edge, int]]] = {}
        for i, row in enumerate(edges):
            if not isinstance(row, (list, tuple)) or len(row) != 4:
                raise InputError(source, f"edges[{i}]", "an edge is [source, label, class, target]")
            start, label, cls, end = row
            if not isinstance(label, str) or not isinstance(cls, str):
                raise InputError(source, f"edges[{i}]", "the label and the class are strings")
            edge = Edge(_state(start, source, f"edges[{i}][0]"), label, cls, _state(end, source, f"edges[{i}][3]"))
            self._edges.setdefault(edge.source, []).append((edge, edge.target))
        self._bad = frozenset(_state(value, source, f"bad[{i}]") for i, value in enumerate(bad))
        self._progress = tuple(_progress(entry, source, f"progress[{i}]") for i, entry in enumerate(progress))
        self.parameters: Mapping[str, JSONValue] = {
            "initial": list(self._initial),
            "edges": [list(row) for row in edges],
            "bad": sorted(self._bad),
            "progress": [dict(entry) for entry in progress],
        }

    def initial_states(self) -> list[int]:
        """The initial states as given."""
        return self._initial

    def successors(self, state: int) -> list[tuple[Edge, int]]:
        """The edges out of ``state`` in table order."""
        return self._edges.get(state, [])

    def action_label(self, action: Edge) -> str:
        """The edge's label."""
        return action.label

    def action_class(self, action: Edge) -> str:
        """The edge's class."""
        return action.cls

    def invariants(self) -> tuple[Invariant[int], ...]:
        """``no-bad-state``: no state listed in ``bad`` is reachable."""
        return (Invariant("no-bad-state", lambda state: f"state {state} is bad" if state in self._bad else None),)

    def progress(self) -> tuple[Progress[int], ...]:
        """The progress properties as given."""
        return self._progress

    def state_json(self, state: int) -> JSONValue:
        """The state number."""
        return state


def _state(value: Any, source: str, place: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(source, place, f"a state is an integer, got {value!r}")
    return value


def _progress(entry: Mapping[str, Any], source: str, place: str) -> Progress[int]:
    if not isinstance(entry, Mapping) or set(entry) != {"name", "premise", "goal", "fair"}:
        raise InputError(source, place, 'a progress property has exactly "name", "premise", "goal" and "fair"')
    name, premise, goal, fair = entry["name"], entry["premise"], entry["goal"], entry["fair"]
    if not isinstance(name, str) or not isinstance(goal, list):
        raise InputError(source, place, "name is a string and goal a list of states")
    if not isinstance(fair, list) or not all(isinstance(cls, str) for cls in fair):
        raise InputError(source, f"{place}.fair", "a list of action classes (strings)")
    goal_set = frozenset(_state(value, source, f"{place}.goal") for value in goal)
    if premise is None:
        return always_eventually(name, goal_set.__contains__, fair)
    if not isinstance(premise, list):
        raise InputError(source, f"{place}.premise", "a list of states, or null for always")
    premise_set = frozenset(_state(value, source, f"{place}.premise") for value in premise)
    return leads_to(name, premise_set.__contains__, goal_set.__contains__, fair)
