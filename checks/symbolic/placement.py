"""Spark's container placement strategy, steps 4-6 (semantics 3.2), and its count properties.

``localityOfRequestedContainers`` first turns the hints into a need per host (steps 1-3, in
``double``), then: ``free = max(0, n - sum(need))`` requests get no preference and come first;
the other ``aware = n - free`` are shaped by ``ratio_h = ceil(need_h * aware / max(need))``;
request ``k`` (0-based) lists the hosts whose ratio exceeds ``k`` (Spark's loop "take the hosts
with ratio > 0, then subtract 1 from every ratio").

The encoding takes the need per host as its input, so a proof covers every need vector in the
bound and therefore every hint map whose needs fall in it, whatever steps 1-3 computed. The
ratio's ``double`` arithmetic is exact here: ``need * aware`` is a small integer and the
ceiling of a quotient of integers below ``2^26`` is never moved by the division's rounding.
The reference expands the requests differently (by distinct thresholds, SPARK-18750); the
equivalence test compares the two on hint maps drawn at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yarnspec.checks.symbolic.arith import Arith, Concrete, Cond, Term
from yarnspec.checks.symbolic.domain import Bound
from yarnspec.checks.symbolic.prover import Obligation
from yarnspec.impl.spark.placement import PlacementInput, plan_placement


@dataclass(frozen=True)
class PlacementBound:
    """``hosts`` hint hosts, at most ``containers`` requests, needs up to ``need``."""

    hosts: int
    containers: int
    need: int

    def __str__(self) -> str:
        return f"hosts={self.hosts}, containers<={self.containers}, need<={self.need}"


class PlacementTerms:
    """Steps 4-6 over terms for ``count`` requested containers and the per-host ``needs``
    (hint order); positions ``0 .. slots - 1`` of the output are encoded."""

    def __init__(self, A: Arith, count: Term, needs: Sequence[Term], slots: int) -> None:
        self.A = A
        self.count = count
        self.needs = tuple(needs)
        self.slots = slots
        total = sum(self.needs, A.num(0))
        self.free = A.max(count - total, A.num(0))
        self.aware = count - self.free
        largest = A.num(0)
        for need in self.needs:
            largest = A.max(largest, need)
        safe = A.ite(largest > 0, largest, A.num(1))
        self.ratios = tuple(
            A.ite(self.aware > 0, A.num(0) - A.floor_div(A.num(0) - need * self.aware, safe), A.num(0))
            for need in self.needs
        )

    def present(self, i: int) -> Cond:
        """Output position ``i`` exists."""
        return self.count > i

    def without_locality(self, i: int) -> Cond:
        """Position ``i`` is a request with no preference."""
        return self.A.all((self.present(i), self.free > i))

    def lists(self, i: int, h: int) -> Cond:
        """Request ``i`` names host ``h``."""
        A = self.A
        return A.all((self.present(i), A.neg(self.free > i), self.ratios[h] > (A.num(i) - self.free)))

    def requests(self) -> list[tuple[int, ...] | None]:
        """Concrete only: the output, ``None`` for a request without preference, else the
        host indices it names."""
        out: list[tuple[int, ...] | None] = []
        for i in range(self.slots):
            if not self.present(i):
                break
            if self.without_locality(i):
                out.append(None)
            else:
                out.append(tuple(h for h in range(len(self.needs)) if self.lists(i, h)))
        return out


# --- properties ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PlacementProperty:
    """A property of the placement output, in words and as a goal."""

    name: str
    statement: str
    goal: object  # Callable[[Placement], Cond]


def _length(p: PlacementTerms) -> Cond:
    A = p.A
    return A.all((p.free >= 0, p.aware >= 0, p.free + p.aware == p.count))


def _nested(p: PlacementTerms) -> Cond:
    A = p.A
    parts = []
    for i in range(p.slots):
        for j in range(i + 1, p.slots):
            aware_both = A.all((A.neg(p.without_locality(i)), p.present(j), A.neg(p.without_locality(j))))
            for h in range(len(p.needs)):
                parts.append(A.implies(A.all((aware_both, p.lists(j, h))), p.lists(i, h)))
    return A.all(parts)


def _within_ratio(p: PlacementTerms) -> Cond:
    A = p.A
    return A.all(A.count(p.lists(i, h) for i in range(p.slots)) <= p.ratios[h] for h in range(len(p.needs)))


def _free_first(p: PlacementTerms) -> Cond:
    A = p.A
    parts = []
    for i in range(p.slots):
        aware_i = A.all((p.present(i), A.neg(p.without_locality(i))))
        parts.append(A.implies(aware_i, A.any(p.lists(i, h) for h in range(len(p.needs)))))
        for j in range(i + 1, p.slots):
            parts.append(A.implies(A.all((aware_i, p.present(j))), A.neg(p.without_locality(j))))
    return A.all(parts)


def _needless_absent(p: PlacementTerms) -> Cond:
    A = p.A
    return A.all(
        A.implies(need <= 0, A.all(A.neg(p.lists(i, h)) for i in range(p.slots))) for h, need in enumerate(p.needs)
    )


PLACEMENT_PROPERTIES: tuple[PlacementProperty, ...] = (
    PlacementProperty(
        "placement-length",
        "The output has exactly as many requests as asked for: free + aware = n, both >= 0.",
        _length,
    ),
    PlacementProperty(
        "placement-nested",
        "The node lists are nested: every later locality-aware request lists a subset of the hosts of every earlier one.",
        _nested,
    ),
    PlacementProperty(
        "placement-within-ratio",
        "No host appears in more requests than its scaled ratio ceil(need x aware / max need).",
        _within_ratio,
    ),
    PlacementProperty(
        "placement-free-first",
        "The requests without locality come first, and every locality-aware request names at least one host.",
        _free_first,
    ),
    PlacementProperty(
        "placement-needless-absent", "A host that needs no container appears in no request.", _needless_absent
    ),
)


def obligation(A: Arith, bound: PlacementBound, prop: PlacementProperty) -> tuple[Obligation, Term, tuple[Term, ...]]:
    """The query that must be unsatisfiable for ``prop`` (with the variables it declares)."""
    from yarnspec.checks.symbolic.arith import Symbolic

    assert isinstance(A, Symbolic)
    count = A.var("n")
    needs = tuple(A.var(f"need.{h}") for h in range(bound.hosts))
    constraints = [count >= 0, count <= bound.containers, *(x >= 0 for x in needs), *(x <= bound.need for x in needs)]
    placement = PlacementTerms(A, count, needs, bound.containers)
    goal = prop.goal(placement)  # type: ignore[operator]
    return Obligation(prop.name, [*constraints, A.neg(goal)]), count, needs


def placement_bound_of(bound: Bound) -> PlacementBound:
    """The placement bound used alongside a level bound (hosts = children)."""
    return PlacementBound(hosts=bound.children, containers=2 * bound.size, need=bound.size)


# --- the reference and counterexamples ---------------------------------------------------------


def hint_input(count: int, needs: Sequence[int]) -> PlacementInput:
    """A Spark input whose per-host need is exactly ``needs``: one task per needed executor
    on each host (1-core executors, 1-cpu tasks, nothing allocated or pending), so
    ``need_h = ceil(c_h x E / T) = c_h`` with ``E = T = sum(needs)``."""
    hosts = [(f"host{h}", int(n)) for h, n in enumerate(needs)]
    return PlacementInput.of(int(count), sum(int(n) for n in needs), hosts)


def reference_requests(inp: PlacementInput) -> tuple[list[tuple[int, ...] | None], tuple[int, ...]]:
    """The reference's output in the encoding's form (``None`` or host indices in hint
    order) and the needs it computed."""
    plan = plan_placement(inp)
    index = {host: h for h, (host, _) in enumerate(plan.need)}
    requests: list[tuple[int, ...] | None] = [
        None if p.nodes is None else tuple(index[n] for n in p.nodes) for p in plan.preferences
    ]
    return requests, tuple(n for _, n in plan.need)


@dataclass(frozen=True)
class PlacementCounterexample:
    """Inputs that break a placement property, and whether the reference shows it too."""

    count: int
    needs: tuple[int, ...]
    encoded: tuple[tuple[int, ...] | None, ...]
    reference: tuple[tuple[int, ...] | None, ...]
    reference_breaks: bool

    def lines(self, dominant: bool = False) -> list[str]:
        """The counterexample as Spark hints and both outputs (``dominant`` is ignored)."""
        hints = ", ".join(f"host{h}: {n}" for h, n in enumerate(self.needs))
        verdict = (
            "reproduces the failure" if self.reference_breaks else "does NOT reproduce it (encoding and code differ)"
        )
        return [
            f"numContainer {self.count}, hostToLocalTaskCount {{{hints}}} (1-core executors, nothing allocated or pending)",
            f"  encoded requests:   {_show(self.encoded)}",
            f"  reference requests: {_show(self.reference)}",
            f"  replayed on the reference implementation: {verdict}",
        ]


def reference_holds(prop: PlacementProperty, count: int, needs: Sequence[int], slots: int) -> bool:
    """Whether the goal holds for the reference's own output on :func:`hint_input`: the
    reference's requests are read into a concrete placement whose positions are theirs."""
    requests, computed = reference_requests(hint_input(count, needs))
    placement = PlacementTerms(Concrete(), count, computed, max(slots, count))
    if placement.requests() != requests:
        return False
    return bool(prop.goal(placement))  # type: ignore[operator]


def _show(requests: Sequence[tuple[int, ...] | None]) -> str:
    return "[" + ", ".join("any" if r is None else "{" + ",".join(f"host{h}" for h in r) + "}" for r in requests) + "]"
