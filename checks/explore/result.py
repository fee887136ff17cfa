"""What an exploration returns: the verdict, the counterexample if any, the progress-property
results and the statistics, each with a ``to_json()`` for the CLI and the benchmarks."""

from __future__ import annotations

import json
import resource
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from yarnspec.checks.explore.coverage import Coverage
from yarnspec.checks.explore.fingerprint import FINGERPRINT_BITS
from yarnspec.checks.explore.premises import PremiseCount
from yarnspec.checks.explore.trace import Trace
from yarnspec.spec.outcome import Limit, Outcome

HOLDS = Outcome.HOLDS
NOT_REFUTED = Outcome.NOT_REFUTED
VIOLATED = Outcome.VIOLATED
VACUOUS = Outcome.VACUOUS
UNCHECKED = Outcome.UNCHECKED


@dataclass(frozen=True)
class Verdict:
    """A verdict: ``status`` for programs (an :class:`~yarnspec.spec.outcome.Outcome`), ``text``
    for people; for a search cut short, the ``limit`` that cut it and how far it got (``depth``,
    ``states``).

    ``holds (exhaustive)``: every reachable state was visited. ``not refuted: the depth limit
    cut the search at depth D, N states``: a limit stopped the search; all states within ``D``
    steps of an initial state (``N`` states in all) were checked, and nothing is claimed beyond.
    ``violated``: a counterexample was found and is real whatever the limits. ``vacuous``: the
    property's premise never held in a state the search met.
    """

    status: Outcome
    text: str
    limit: Limit | None = None
    depth: int | None = None
    states: int | None = None

    @staticmethod
    def holds() -> Verdict:
        """Every reachable state was visited and nothing is violated."""
        return Verdict(Outcome.HOLDS, "holds (exhaustive)")

    @staticmethod
    def not_refuted(limit: Limit, depth: int, states: int) -> Verdict:
        """No violation within the explored part, which ``limit`` cut short."""
        return Verdict(
            Outcome.NOT_REFUTED,
            f"not refuted: {limit.phrase} cut the search {_reach(depth, states)}",
            limit,
            depth,
            states,
        )

    @staticmethod
    def violated() -> Verdict:
        """A counterexample was found."""
        return Verdict(Outcome.VIOLATED, "violated")

    @staticmethod
    def vacuous(limit: Limit | None, depth: int, states: int) -> Verdict:
        """The premise never held in the ``states`` states met (all of them, when ``limit`` is
        ``None``; else within the part ``limit`` left)."""
        within = (
            "in any reachable state (exhaustive)"
            if limit is None
            else f"in the part searched ({limit.phrase} cut it {_reach(depth, states)})"
        )
        return Verdict(Outcome.VACUOUS, f"vacuous: the premise never holds {within}", limit, depth, states)

    @staticmethod
    def unchecked(reason: str) -> Verdict:
        """The property was not checked, for the reason given."""
        return Verdict(Outcome.UNCHECKED, f"not checked ({reason})")

    def short(self) -> str:
        """The outcome's word, with the limit and how far the search got when one cut it:
        ``not-refuted (depth limit: depth 14, 773 states)`` (``check``'s table)."""
        if self.limit is None:
            return self.status.value
        return f"{self.status.value} ({self.limit.value} limit: {_reach(self.depth or 0, self.states or 0).removeprefix('at ')})"

    def to_json(self) -> dict[str, Any]:
        """The status, the text and, for a search cut short, the limit and how far it got."""
        document: dict[str, Any] = {"status": self.status.value, "verdict": self.text}
        if self.limit is not None:
            document["limit"] = {"kind": self.limit.value, "depth": self.depth, "states": self.states}
        return document


def _reach(depth: int, states: int) -> str:
    """``at depth 3, 127 states``."""
    return f"at depth {depth}, {states:,} states"


def cut_verdict(limit: Limit | None, depth: int, states: int) -> Verdict:
    """The verdict of a search that found nothing: ``holds`` when no ``limit`` cut it."""
    return Verdict.holds() if limit is None else Verdict.not_refuted(limit, depth, states)


def peak_rss_bytes() -> int:
    """The peak resident memory of this process so far, in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports kilobytes


@dataclass(frozen=True)
class Stats:
    """Figures of one exploration.

    ``depth`` is the most steps from an initial state to a stored state (TLC counts states, so
    its "depth" is this plus one). ``store_bytes`` is the memory of the visited-state store
    (the set of canonical states and the parent links); ``bytes_per_state`` divides it by the
    distinct states. ``peak_rss_bytes`` is the peak resident memory of the whole process.
    ``seconds`` is wall-clock time of the search; ``cpu_seconds`` the processor time it used,
    which other jobs on a shared machine disturb less.
    """

    distinct_states: int
    transitions: int
    depth: int
    seconds: float
    cpu_seconds: float
    states_per_second: float
    store_bytes: int
    bytes_per_state: float
    peak_rss_bytes: int
    symmetry: bool

    def line(self) -> str:
        """The figures as one line."""
        return (
            f"{self.distinct_states:,} distinct states, {self.transitions:,} transitions, depth {self.depth}, "
            f"{self.seconds:.2f} s ({self.cpu_seconds:.2f} s CPU), {self.states_per_second:,.0f} states/s, "
            f"{self.bytes_per_state:.1f} bytes/state, peak RSS {self.peak_rss_bytes / 2**20:.1f} MiB, "
            f"symmetry {'on' if self.symmetry else 'off'}"
        )


@dataclass(frozen=True)
class PropertyResult:
    """The result for one progress property: a lasso counterexample when violated, and the
    number of stored states where its premise held (``None`` for ``[]<>Q``, whose premise is
    "always")."""

    name: str
    description: str
    verdict: Verdict
    counterexample: Trace | None = None
    premise_states: int | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "name": self.name,
            "description": self.description,
            **self.verdict.to_json(),
            "premise_states": self.premise_states,
            "counterexample": None if self.counterexample is None else self.counterexample.to_json(),
        }

    def line(self) -> str:
        """The property, its verdict and how often its premise held."""
        reached = "" if self.premise_states is None else f" [premise held in {self.premise_states:,} states]"
        return f"{self.description}: {self.verdict.text}{reached}"


@dataclass(frozen=True)
class ExploreResult:
    """The outcome of :func:`yarnspec.checks.explore.explore`.

    ``verdict`` covers the invariants and deadlock (``violation`` is their shortest
    counterexample) and, when checked, the progress properties in ``properties``; ``notes``
    says what the run changed or left out (symmetry turned off for liveness, say).
    ``coverage`` counts actions per kind when asked; ``collision_probability`` is set in
    fingerprint mode (:func:`yarnspec.checks.explore.fingerprint.collision_probability`);
    ``workers`` is the number of partitions the search ran in. ``premises`` counts the
    states where each invariant's premise held (:mod:`.premises`; empty when no invariant has
    one, or when the search did not count them: the partitioned search says so in a note).
    """

    model: str
    parameters: Mapping[str, Any]
    variant: str
    verdict: Verdict
    violation: Trace | None
    properties: tuple[PropertyResult, ...]
    stats: Stats
    notes: tuple[str, ...] = field(default=())
    coverage: Coverage | None = None
    collision_probability: float | None = None
    workers: int = 1
    premises: tuple[PremiseCount, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON-able form (the CLI prints it with ``--json``)."""
        return {
            "model": self.model,
            "parameters": dict(self.parameters),
            "variant": self.variant,
            **self.verdict.to_json(),
            "violation": None if self.violation is None else self.violation.to_json(),
            "properties": [result.to_json() for result in self.properties],
            "premises": [count.to_json() for count in self.premises],
            "stats": asdict(self.stats),
            "notes": list(self.notes),
        } | self._scale_json()

    def _scale_json(self) -> dict[str, Any]:
        """The parallel search's additions, present only when they apply."""
        extra: dict[str, Any] = {}
        if self.workers != 1:
            extra["workers"] = self.workers
        if self.coverage is not None:
            extra["coverage"] = self.coverage.to_json()
        if self.collision_probability is not None:
            extra["fingerprints"] = {"bits": FINGERPRINT_BITS, "collision_probability": self.collision_probability}
        return extra

    def report(self, full: bool = False) -> str:
        """A readable report: verdict, statistics, notes, the invariants whose premise was never
        reached, property verdicts, counterexamples (with ``full``, every step's whole state)."""
        identity = f"{self.model} ({self.variant or 'no variant'}) {json.dumps(dict(self.parameters))}"
        lines = [f"{identity}: {self.verdict.text}"]
        lines.append(f"  {self.stats.line()}")
        lines += [f"  note: {note}" for note in self.notes]
        if self.collision_probability is not None:
            lines.append(
                f"  fingerprints: {FINGERPRINT_BITS}-bit, probability of a collision {self.collision_probability:.1e} "
                f"(birthday estimate n(n-1)/2^{FINGERPRINT_BITS + 1})"
            )
        if self.coverage is not None:
            lines.append(self.coverage.format())
        lines += [f"  {count.line()}" for count in self.premises if not count.reached]
        lines += [f"  {result.line()}" for result in self.properties]
        if self.violation is not None:
            lines.append(self.violation.format(full))
        lines += [result.counterexample.format(full) for result in self.properties if result.counterexample is not None]
        return "\n".join(lines)
