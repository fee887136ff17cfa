"""Vacuity as part of the search: how many stored states satisfy each property's premise.

A progress property ``P ~> Q`` whose premise ``P`` never holds, or an invariant written as an
implication ("for every reservation, ...") whose antecedent is never reached, holds without
having been put to the test. The explorer counts, for every such property, the states it
stores where the premise holds, in the same pass that checks the invariants (vacuity detection
as hardware model checkers do it, not a second run): :class:`PremiseCounter` is called on each
new state, and :class:`PremiseCount` is what a result reports.

Premises that are the same function (several invariants sharing "a reservation exists") are
evaluated once per state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.spec.transition_system import Invariant, Progress

#: ``PremiseCount.kind`` of an invariant's premise.
INVARIANT = "invariant"
#: ``PremiseCount.kind`` of a progress property's premise.
PROGRESS = "progress"


@dataclass(frozen=True)
class PremiseCount:
    """How many stored states satisfied the premise of the property ``name`` (``kind``
    ``invariant`` or ``progress``); ``premise`` says the premise in words (empty when the model gives none)."""

    name: str
    kind: str
    premise: str
    states: int

    @property
    def reached(self) -> bool:
        """Whether some state satisfied the premise."""
        return self.states > 0

    def line(self) -> str:
        """``premise of NAME (PREMISE): reached in N states`` or ``... never reached``."""
        words = f" ({self.premise})" if self.premise else ""
        if self.reached:
            return f"premise of {self.name}{words}: reached in {self.states:,} states"
        return f"premise of {self.name}{words}: never reached in the states searched, so it was never put to the test"

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "property": self.name,
            "kind": self.kind,
            "premise": self.premise,
            "states": self.states,
            "reached": self.reached,
        }


@dataclass
class PremiseCounter:
    """Counts the states satisfying each premise; :meth:`add` is called once per new state."""

    names: tuple[tuple[str, str, str], ...]  # (property, kind, premise text), per premise
    checks: tuple[Callable[[Any], bool], ...]  # the distinct premise functions
    slot: tuple[int, ...]  # per premise, its function's index in ``checks``
    hits: list[int]  # per distinct function, the states where it held

    @staticmethod
    def of(invariants: Sequence[Invariant[Any]], progress: Sequence[Progress[Any]]) -> PremiseCounter | None:
        """A counter for the invariants' and progress properties' premises; ``None`` when no
        property has one (the search then pays nothing)."""
        names: list[tuple[str, str, str]] = []
        functions: list[Callable[[Any], bool]] = []
        slot: list[int] = []
        wanted = [(i.name, INVARIANT, i.premise.text, i.premise.holds) for i in invariants if i.premise is not None]
        wanted += [(p.name, PROGRESS, "", p.premise) for p in progress if p.premise is not None]
        for name, kind, text, holds in wanted:
            if holds not in functions:
                functions.append(holds)
            names.append((name, kind, text))
            slot.append(functions.index(holds))
        if not names:
            return None
        return PremiseCounter(tuple(names), tuple(functions), tuple(slot), [0] * len(functions))

    def add(self, state: Any) -> None:
        """Count ``state`` for every premise it satisfies."""
        hits = self.hits
        for index, holds in enumerate(self.checks):
            if holds(state):
                hits[index] += 1

    def counts(self) -> tuple[PremiseCount, ...]:
        """One count per premise, in the order the properties were given."""
        return tuple(
            PremiseCount(name, kind, text, self.hits[at]) for (name, kind, text), at in zip(self.names, self.slot)
        )
