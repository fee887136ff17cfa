"""The toy model: apps allocating and releasing containers on nodes.

``nodes`` nodes of capacity ``capacity`` and ``apps`` apps; an app holds at most one container
per node. ``allocate(a, n)`` is enabled when ``a`` holds nothing on ``n`` and ``n`` has room;
``release(a, n)`` when ``a`` holds a container on ``n``. Each node keeps its ``used`` count as
explicit state beside the set of apps holding it, so the invariant "used equals the number of
holders" is a real check. With 5 nodes, 4 apps and capacity 3 there are 15**5 = 759,375
reachable states and 14,175,000 transitions (TLC and SPIN agree); nodes are interchangeable and
so are apps, which symmetry reduction exploits.

Variants: ``correct``, and ``broken-release``, whose release forgets to decrement ``used`` when
the node is full (the check meant for allocation copied into release), so the invariant fails
after ``capacity`` allocations on one node and one release.

A state is one ``int``: node ``i`` owns a field of ``apps + used_bits`` bits at offset
``i * width``: the low ``apps`` bits are the set of holders, the rest is ``used``. The
successor function looks up, per node, a table from the node's field to its (action, delta)
pairs, so a transition costs one addition.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence

from yarnspec.checks.explore.arguments import whole_number
from yarnspec.impl.errors import InputError
from yarnspec.spec.transition_system import (
    Invariant,
    JSONValue,
    Progress,
    TransitionSystem,
    always_eventually,
    leads_to,
)

#: An action: ``(kind, app, node)`` with kind 0 for allocate and 1 for release.
ToyAction = tuple[int, int, int]

VARIANTS = ("correct", "broken-release")
#: The largest number of nodes, apps or capacity (checked before anything is built).
MAX_SIZE = 64
_KINDS = ("allocate", "release")


class _FieldTable(dict[int, tuple[tuple[ToyAction, int], ...]]):
    """For one node: a node field -> the enabled actions there, each with the state delta.
    Filled on first use, so large ``apps`` do not pay for fields that are never reached."""

    def __init__(self, compute: Callable[[int], tuple[tuple[ToyAction, int], ...]]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, field: int) -> tuple[tuple[ToyAction, int], ...]:
        entry = self._compute(field)
        self[field] = entry
        return entry


class ToyModel(TransitionSystem[int, ToyAction]):
    """The allocate/release toy model (see the module docstring)."""

    name = "toy-allocate-release"

    def __init__(self, nodes: int = 5, apps: int = 4, capacity: int = 3, variant: str = "correct") -> None:
        for place, value in (("nodes", nodes), ("apps", apps), ("capacity", capacity)):
            whole_number("toy model", place, value, 1, MAX_SIZE)
        if variant not in VARIANTS:
            raise InputError("toy model", "variant", f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
        self.nodes, self.apps, self.capacity, self.variant = nodes, apps, capacity, variant
        self.parameters: Mapping[str, JSONValue] = {"nodes": nodes, "apps": apps, "capacity": capacity}
        self._width = apps + capacity.bit_length()
        self._field_mask = (1 << self._width) - 1
        self._holders_mask = (1 << apps) - 1
        self._actions = {
            (kind, app, node): (kind, app, node) for kind in (0, 1) for app in range(apps) for node in range(nodes)
        }
        self._shifts = tuple(node * self._width for node in range(nodes))
        self._tables = tuple(
            (shift, _FieldTable(self._field_transitions(node))) for node, shift in enumerate(self._shifts)
        )
        self._app_perms: tuple[tuple[int, ...], ...] | None = None

    # -- fields ---------------------------------------------------------------------------

    def _field(self, holders: int, used: int) -> int:
        return holders | used << self.apps

    def _split(self, field: int) -> tuple[int, int]:
        return field & self._holders_mask, field >> self.apps

    def _field_transitions(self, node: int) -> Callable[[int], tuple[tuple[ToyAction, int], ...]]:
        shift = self._shifts[node]

        def compute(field: int) -> tuple[tuple[ToyAction, int], ...]:
            holders, used = self._split(field)
            out = []
            for app in range(self.apps):
                bit = 1 << app
                if holders & bit:
                    freed = 0 if self.variant == "broken-release" and used >= self.capacity else 1
                    after = self._field(holders & ~bit, used - freed)
                    out.append((self._actions[1, app, node], (after - field) << shift))
                elif used < self.capacity:
                    after = self._field(holders | bit, used + 1)
                    out.append((self._actions[0, app, node], (after - field) << shift))
            # allocations first, then releases, each by app: a fixed, readable order
            out.sort(key=lambda pair: (pair[0][0], pair[0][1]))
            return tuple(out)

        return compute

    def fields(self, state: int) -> list[tuple[int, int]]:
        """The ``(holders bitmask, used)`` of every node of ``state``."""
        mask = self._field_mask
        return [self._split((state >> shift) & mask) for shift in self._shifts]

    def encode(self, fields: Sequence[tuple[int, int]]) -> int:
        """The state whose node ``i`` has ``fields[i] = (holders bitmask, used)``."""
        return sum(self._field(holders, used) << shift for (holders, used), shift in zip(fields, self._shifts))

    # -- the transition system ------------------------------------------------------------

    def initial_states(self) -> list[int]:
        """One initial state: every node empty."""
        return [0]

    def successors(self, state: int) -> list[tuple[ToyAction, int]]:
        """Per node in order: its allocations by app, then its releases by app."""
        mask = self._field_mask
        return [
            (action, state + delta) for shift, table in self._tables for action, delta in table[(state >> shift) & mask]
        ]

    def action_label(self, action: ToyAction) -> str:
        """``allocate(a1, n3)`` or ``release(a1, n3)``."""
        kind, app, node = action
        return f"{_KINDS[kind]}(a{app}, n{node})"

    def action_class(self, action: ToyAction) -> str:
        """One class per kind and node (``release@n2``), so fairness can be asked per node."""
        kind, _, node = action
        return f"{_KINDS[kind]}@n{node}"

    def action_kinds(self) -> tuple[str, ...]:
        """``allocate`` and ``release``."""
        return _KINDS

    def classes(self, kind: str) -> frozenset[str]:
        """Every action class of one kind (``"allocate"`` or ``"release"``), one per node."""
        return frozenset(f"{kind}@n{node}" for node in range(self.nodes))

    def invariants(self) -> tuple[Invariant[int], ...]:
        """``used-matches-holders``: each node's used equals the number of apps holding it."""
        return (Invariant("used-matches-holders", self._used_mismatch, "a node's used equals its number of holders"),)

    def _used_mismatch(self, state: int) -> str | None:
        for node, (holders, used) in enumerate(self.fields(state)):
            count = holders.bit_count()
            if used != count:
                return f"n{node}: used is {used} but {count} app(s) hold it"
        return None

    def progress(self) -> tuple[Progress[int], ...]:
        """Two progress properties: one that holds, one violated by a fair loop.

        ``n0-full-drains``: node n0 at capacity leads to n0 below capacity, assuming weak
        fairness of releases on n0 (they stay enabled while n0 is full, so one is taken).
        ``cluster-empties``: the cluster is empty infinitely often, assuming weak fairness of
        every release: violated, because allocations may refill a node as fast as releases
        empty it.
        """

        def n0_full(state: int) -> bool:
            return self.fields(state)[0][1] >= self.capacity

        return (
            leads_to("n0-full-drains", n0_full, lambda state: not n0_full(state), {"release@n0"}),
            always_eventually("cluster-empties", lambda state: state == 0, self.classes("release")),
        )

    def canonical(self, state: int) -> int:
        """The least encoding over all renamings of apps, with node fields sorted.

        Sorting the node fields makes nodes interchangeable; taking the least result over the
        ``apps!`` permutations of holder bits makes apps interchangeable. Both renamings map
        reachable states to reachable states and keep ``used``, so the invariant's verdict is
        the same on every state of a class. (Fields sorted largest first compare as lists in
        the same order as their packed encodings, so only the winner is packed.)
        """
        if self._app_perms is None:
            self._app_perms = self._build_app_perms()
        mask = self._field_mask
        raw = [(state >> shift) & mask for shift in self._shifts]
        best = min(sorted(map(perm.__getitem__, raw), reverse=True) for perm in self._app_perms)
        top = self._shifts[-1]
        return sum(field << (top - shift) for field, shift in zip(best, self._shifts))

    def _build_app_perms(self) -> tuple[tuple[int, ...], ...]:
        """For each renaming of apps, the image of every node field (indexed by the field)."""
        perms = []
        for order in itertools.permutations(range(self.apps)):
            image = []
            for field in range(1 << self._width):
                holders, used = self._split(field)
                moved = sum(1 << order[app] for app in range(self.apps) if holders >> app & 1)
                image.append(self._field(moved, used))
            perms.append(tuple(image))
        return tuple(perms)

    def state_json(self, state: int) -> JSONValue:
        """``{"n0": {"used": 1, "holders": ["a2"]}, ...}``."""
        return {
            f"n{node}": {"used": used, "holders": [f"a{app}" for app in _bits(holders)]}
            for node, (holders, used) in enumerate(self.fields(state))
        }


def _bits(mask: int) -> Iterator[int]:
    position = 0
    while mask:
        if mask & 1:
            yield position
        mask >>= 1
        position += 1
