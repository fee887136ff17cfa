"""What changed between two states of a trace, entity by entity.

A model's JSON state (:meth:`TransitionSystem.state_json`) is read as groups of named entities:

* a top-level object whose values are all objects is a group (``"nodes": {"n0": {...}}``): each
  member is an entity named by the singular of the group and its key (``node n0``);
* a top-level list of objects with an ``"id"`` is a group keyed by id (``container c3``);
* so is any top-level object under a known group name (``"marks": {"c3": 2000}`` gives
  ``mark c3``);
* any other top-level value is one entity named by its key (``clock``, ``n0`` in the toy
  model); a list of plain values in it is compared as a multiset (``proposals``).

Empty groups (and empty objects) are left out: their members show up as added when they come.

An entity is added (``+``, with all its fields), removed (``-``) or changed: then only the
fields that differ are listed, nested objects by their dotted path (``used.gpu``; the empty key,
YARN's default partition, adds nothing to a path).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from yarnspec.spec.transition_system import JSONValue

#: Singular names of the groups the scheduler model's states hold.
SINGULAR = {"nodes": "node", "queues": "queue", "apps": "app", "containers": "container", "marks": "mark"}
#: The prefix of an id-keyed entity's name (``container c3``); ids of other groups print bare.
ID_PREFIX = {"containers": "c"}


@dataclass(frozen=True)
class Change:
    """One entity's change: ``kind`` is ``"+"`` (added), ``"-"`` (removed) or ``"~"`` (changed);
    ``group`` the top-level key it sits under (``nodes``), ``name`` its readable name
    (``node n0``), ``text`` what changed."""

    kind: str
    group: str
    name: str
    text: str

    def line(self) -> str:
        """The change as one line: ``node n0: used [0,0] -> [1024,1]``."""
        sign = "" if self.kind == "~" else f"{self.kind} "
        return f"{self.name}: {sign}{self.text}" if self.text else f"{self.name}: {self.kind}"

    def to_json(self) -> dict[str, str]:
        """JSON-able form."""
        return {"kind": self.kind, "group": self.group, "name": self.name, "text": self.text}


def compact(value: JSONValue) -> str:
    """A value as short text: JSON without spaces, strings bare at the top, an object holding
    only the default partition (``{"": [1024, 1]}``) as its value."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and list(value) == [""]:
        return compact(value[""])  # YARN's default partition: the figure alone
    return json.dumps(value, separators=(",", ":"))


def entities(state: JSONValue) -> dict[tuple[str, str], JSONValue]:
    """The state's entities by ``(group, name)`` in the state's order (see the module docstring)."""
    if not isinstance(state, Mapping):
        return {("state", "state"): state}
    found: dict[tuple[str, str], JSONValue] = {}
    for key, value in state.items():
        singular = SINGULAR.get(key, key)
        if not value and (key in SINGULAR or isinstance(value, Mapping)):
            continue  # an empty group: its members show up as added when they come
        if isinstance(value, Mapping) and (key in SINGULAR or all(isinstance(v, Mapping) for v in value.values())):
            for member, fields in value.items():
                found[(key, f"{singular} {member}")] = fields
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) and "id" in v for v in value):
            for item in value:
                fields = {k: v for k, v in item.items() if k != "id"}
                found[(key, f"{singular} {ID_PREFIX.get(key, '')}{item['id']}")] = fields
        else:
            found[(key, key)] = value
    return found


def describe(value: JSONValue) -> str:
    """All of an entity's fields as ``key value`` pairs (an added or listed entity)."""
    if isinstance(value, Mapping) and value:
        return ", ".join(f"{_path(k)} {compact(v)}".strip() for k, v in value.items())
    return compact(value)


def _path(*keys: str) -> str:
    return ".".join(k for k in keys if k)


def field_changes(old: JSONValue, new: JSONValue, prefix: str = "") -> list[str]:
    """The differing fields of one entity, nested objects by dotted path."""
    if old == new:
        return []
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        parts: list[str] = []
        for key in [*old, *(k for k in new if k not in old)]:
            place = _path(prefix, key)
            if key not in new:
                parts.append(f"{place} {compact(old[key])} -> none".strip())
            elif key not in old:
                parts.append(f"{place} none -> {compact(new[key])}".strip())
            else:
                parts += field_changes(old[key], new[key], place)
        return parts
    if (_labels(old) or old == []) and (_labels(new) or new == []):
        gone = Counter(map(compact, old)) - Counter(map(compact, new))
        came = Counter(map(compact, new)) - Counter(map(compact, old))
        if gone or came:
            listed = ", ".join([f"+{item}" for item in came.elements()] + [f"-{item}" for item in gone.elements()])
            return [f"{prefix} {listed}".strip()]
    return [f"{prefix} {compact(old)} -> {compact(new)}".strip()]


def _labels(value: JSONValue) -> bool:
    """Whether ``value`` is a list of plain values that are not all numbers (names, proposals),
    compared as a multiset; a list of numbers is a vector (a resource), compared as a whole."""
    if not isinstance(value, list) or not value:
        return False
    plain = all(not isinstance(item, (Mapping, list)) for item in value)
    numbers = all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in value)
    return plain and not numbers


def diff(old: JSONValue, new: JSONValue) -> list[Change]:
    """The changes from state ``old`` to state ``new``, in the new state's order (removed
    entities where they stood in the old one). An id-keyed member that only changed its id
    (the scheduler model renumbers containers by rank after one goes) is shown as
    ``container c8: now c6`` rather than as a change of every field."""
    before, after = entities(old), entities(new)
    renamed = _renumbered(before, after)
    moved_from = {target: source for source, target in renamed.items()}
    changes: list[Change] = []
    for key, value in after.items():
        group, name = key
        if key in moved_from:
            changes.append(Change("~", group, moved_from[key][1], f"now {name.split(' ', 1)[1]}"))
        elif key not in before or key in renamed:
            changes.append(Change("+", group, name, describe(value)))
        elif before[key] != value:
            changes.append(Change("~", group, name, ", ".join(field_changes(before[key], value))))
    for key, value in before.items():
        if (key not in after or key in moved_from) and key not in renamed:
            changes.append(Change("-", key[0], key[1], describe(value)))
    return changes


def _renumbered(
    before: dict[tuple[str, str], JSONValue], after: dict[tuple[str, str], JSONValue]
) -> dict[tuple[str, str], tuple[str, str]]:
    """Old key -> new key for id-keyed members (``ID_PREFIX`` groups) whose fields are the same
    under another id, among those not unchanged under their own id."""
    unmatched_old = [k for k in before if k[0] in ID_PREFIX and after.get(k) != before[k]]
    unmatched_new = [k for k in after if k[0] in ID_PREFIX and before.get(k) != after[k]]
    renamed: dict[tuple[str, str], tuple[str, str]] = {}
    for target in unmatched_new:
        source = next(
            (
                k
                for k in unmatched_old
                if k[0] == target[0] and k != target and k not in renamed and before[k] == after[target]
            ),
            None,
        )
        if source is not None:
            renamed[source] = target
    return renamed


def listing(state: JSONValue) -> list[str]:
    """Every entity of a state, one line each (how the initial state is shown)."""
    return [f"{name}: {describe(value)}" for (_, name), value in entities(state).items()]
