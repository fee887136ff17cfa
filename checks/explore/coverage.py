"""Coverage per action kind: how often each kind fired and in how many states it was enabled.

As TLC's coverage report does for the actions of a specification, this shows which parts of
a model a run exercised: a kind that no explored state enables (``launch`` in a world without
a launch step, say) is flagged, since every property checked says nothing about it. A kind
comes from :meth:`yarnspec.spec.transition_system.TransitionSystem.action_kind`; the kinds a
model can take from :meth:`~yarnspec.spec.transition_system.TransitionSystem.action_kinds`.

Counts are over the states expanded: ``fired`` counts the transitions of each kind (every
enabled action is taken once per expanded state in an exhaustive search), ``enabled`` the
expanded states with at least one action of that kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from yarnspec.spec.transition_system import TransitionSystem, kind_of, kinds_of


@dataclass
class Coverage:
    """Counts per action kind (see the module docstring); ``kinds`` are the model's kinds."""

    kinds: tuple[str, ...] = ()
    fired: Counter[str] = field(default_factory=Counter)
    enabled: Counter[str] = field(default_factory=Counter)

    @staticmethod
    def of(model: TransitionSystem[Any, Any]) -> Coverage:
        """Empty counts for ``model``'s kinds."""
        return Coverage(tuple(kinds_of(model)))

    def count(self, model: TransitionSystem[Any, Any], successors: Sequence[tuple[Any, Any]]) -> None:
        """Count the actions enabled in one expanded state."""
        here = Counter(kind_of(model, action) for action, _ in successors)
        self.fired.update(here)
        self.enabled.update(here.keys())

    def merge(self, others: Iterable[Coverage]) -> Coverage:
        """These counts plus ``others``' (the partitions of a parallel search)."""
        total = Coverage(self.kinds, Counter(self.fired), Counter(self.enabled))
        for other in others:
            total.fired.update(other.fired)
            total.enabled.update(other.enabled)
        return total

    def never_enabled(self) -> list[str]:
        """The model's kinds that no expanded state enabled."""
        return [kind for kind in self.kinds if not self.enabled[kind]]

    def rows(self) -> list[tuple[str, int, int]]:
        """``(kind, fired, enabled)`` for the model's kinds in its order, then any other kind seen."""
        seen = list(self.kinds) + sorted(set(self.fired) - set(self.kinds))
        return [(kind, self.fired[kind], self.enabled[kind]) for kind in seen]

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "kinds": [
                {"kind": kind, "fired": fired, "enabled_states": enabled} for kind, fired, enabled in self.rows()
            ],
            "never_enabled": self.never_enabled(),
        }

    def format(self) -> str:
        """A table: one line per kind, never-enabled kinds flagged."""
        rows = self.rows()
        width = max((len(kind) for kind, _, _ in rows), default=4)
        lines = [
            "  coverage per action kind (fired: transitions taken; enabled: states where it was enabled):",
            f"    {'kind':<{width}}  {'fired':>12}  {'enabled':>12}",
        ]
        for kind, fired, enabled in rows:
            flag = "  NEVER ENABLED" if not enabled else ""
            lines.append(f"    {kind:<{width}}  {fired:>12,}  {enabled:>12,}{flag}")
        return "\n".join(lines)
