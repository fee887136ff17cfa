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
from yarnspec.checks.explore.trace import Trace

HOLDS = "holds"
BOUNDED = "bounded"
VIOLATED = "violated"
UNCHECKED = "unchecked"
SAMPLED = "sampled"


@dataclass(frozen=True)
class Verdict:
    """A verdict: ``status`` for programs (one of the constants above), ``text`` for people.

    ``holds (exhaustive)``: every reachable state was visited. ``holds up to depth D / N states
    (bounded)``: a bound stopped the search; all states within ``D`` steps of an initial state
    (``N`` states in all) were checked, and nothing is claimed beyond. ``violated``: a
    counterexample was found and is real whatever the bounds.
    """

    status: str
    text: str

    @staticmethod
    def holds() -> Verdict:
        """Every reachable state was visited and nothing is violated."""
        return Verdict(HOLDS, "holds (exhaustive)")

    @staticmethod
    def bounded(depth: int, states: int) -> Verdict:
        """No violation within the explored part, which a bound cut short."""
        return Verdict(BOUNDED, f"holds up to depth {depth} / {states} states (bounded)")

    @staticmethod
    def violated() -> Verdict:
        """A counterexample was found."""
        return Verdict(VIOLATED, "violated")

    @staticmethod
    def unchecked(reason: str) -> Verdict:
        """The property was not checked, for the reason given."""
        return Verdict(UNCHECKED, f"not checked ({reason})")


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
    """The result for one progress property: a lasso counterexample when violated."""

    name: str
    description: str
    verdict: Verdict
    counterexample: Trace | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "name": self.name,
            "description": self.description,
            "status": self.verdict.status,
            "verdict": self.verdict.text,
            "counterexample": None if self.counterexample is None else self.counterexample.to_json(),
        }


@dataclass(frozen=True)
class ExploreResult:
    """The outcome of :func:`yarnspec.checks.explore.explore`.

    ``verdict`` covers the invariants and deadlock (``violation`` is their shortest
    counterexample) and, when checked, the progress properties in ``properties``; ``notes``
    says what the run changed or left out (symmetry turned off for liveness, say).
    ``coverage`` counts actions per kind when asked; ``collision_probability`` is set in
    fingerprint mode (:func:`yarnspec.checks.explore.fingerprint.collision_probability`);
    ``workers`` is the number of partitions the search ran in.
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

    def to_json(self) -> dict[str, Any]:
        """JSON-able form (the CLI prints it with ``--json``)."""
        return {
            "model": self.model,
            "parameters": dict(self.parameters),
            "variant": self.variant,
            "status": self.verdict.status,
            "verdict": self.verdict.text,
            "violation": None if self.violation is None else self.violation.to_json(),
            "properties": [result.to_json() for result in self.properties],
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
        """A readable report: verdict, statistics, notes, property verdicts, counterexamples
        (with ``full``, every step's whole state)."""
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
        lines += [f"  {result.description}: {result.verdict.text}" for result in self.properties]
        if self.violation is not None:
            lines.append(self.violation.format(full))
        lines += [result.counterexample.format(full) for result in self.properties if result.counterexample is not None]
        return "\n".join(lines)
