"""Proofs about one level of the ideal allocation and its preemption amounts, by induction over
the fixpoint's steps.

A :class:`LevelProperty` states a *goal* about a finished level (its ideals and, if it needs
them, targets and amounts to obtain) and, where the goal needs it, a strengthening of the
common invariant (:func:`core_invariant`). Its proof is three obligations over every input of
the domain: the invariant holds in the initial state (*base*), is kept by a step from any
state where it holds (*step*; the state is free, not reached from some input, so this covers
every number of iterations), and implies the goal once the level is done (*close*). Since
the fixpoint always ends (the ``termination`` property), the goal then holds for every input.

When an obligation fails, a real counterexample is searched for by unrolling the step from
the initial state (:func:`search_query`); a model found is replayed on the concrete evaluator
and on the reference implementation (:mod:`.replay`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from yarnspec.checks.symbolic.arith import Arith, Concrete, Cond, Symbolic, Vec, add, equal, fits, total
from yarnspec.checks.symbolic.calc import Calc
from yarnspec.checks.symbolic.domain import Backend, Declared, Domain, Instance, declare
from yarnspec.checks.symbolic.fixpoint import Fixpoint, State
from yarnspec.checks.symbolic.model import Abstraction, Level
from yarnspec.checks.symbolic.prover import Obligation
from yarnspec.checks.symbolic.replay import ChildFigures, reference_figures
from yarnspec.checks.symbolic.targets import Targets


@dataclass(frozen=True)
class LevelView:
    """What a goal reads about a level: the fixpoint (inputs and derived figures), its state
    (finished, for a goal), and, when computed, targets and amounts to obtain."""

    fp: Fixpoint
    state: State
    targets: tuple[Vec, ...] = ()
    obtain: tuple[Vec, ...] = ()

    @property
    def A(self) -> Arith:
        """The backend."""
        return self.fp.A

    @property
    def calc(self) -> Calc:
        """The calculator."""
        return self.fp.calc

    @property
    def level(self) -> Level:
        """The inputs."""
        return self.fp.level


Goal = Callable[[LevelView], Cond]
Strengthening = Callable[[Fixpoint, State], "list[tuple[str, Cond]]"]


def no_strengthening(fp: Fixpoint, state: State) -> list[tuple[str, Cond]]:
    """The common invariant alone."""
    return []


@dataclass(frozen=True)
class LevelProperty:
    """A property of a finished level (module docstring).

    ``statement``: the property in plain words. ``targets``: whether the goal reads targets
    and amounts to obtain. ``finding``: for a property as first stated that the real code
    does not have, the explanation and the name of the corrected property (such a property is
    expected to end in a counterexample and is not in the default catalogue). ``any_ideal``:
    the goal is proved for every ideal whatsoever, not only the fixpoint's (one obligation,
    no induction; a stronger statement). ``backend``: the z3 theory tried first (the other is
    the fallback).
    """

    name: str
    statement: str
    goal: Goal
    strengthening: Strengthening = no_strengthening
    targets: bool = False
    finding: str = ""
    any_ideal: bool = False
    backend: Backend | None = None


# --- the common invariant --------------------------------------------------------------------


def magnitude(domain: Domain) -> int:
    """A bound on the absolute value of every ideal and unassigned component in a reachable
    state (the initial ideals lie in ``-S..S``; what is unassigned starts within
    ``(K + 1) S`` of 0 and negative parts are taken back from ideals at most once per pass)."""
    k, s = domain.bound.children, domain.bound.size
    return (2 * k + 2) * s


Parts = list[tuple[str, Cond]]


def core_parts(fp: Fixpoint, state: State, domain: Domain) -> Parts:
    """The common invariant, part by part: only members of the running pass ask; outside the
    equal pass the zero-guarantee children sit at 0; a queue content with its initial ideal
    (not asking at first) keeps it; a finished level has no loop left to run
    (and did not skip the equal pass); the children's ideals plus what is unassigned make up
    the parent's resource; and, for bit-vectors, ranges that rule out overflow."""
    A = fp.A
    parts: Parts = []
    if domain.backend == "bv":
        bound = magnitude(domain)
        for q, vector in enumerate((*state.ideal, state.unassigned)):
            parts.append((f"range {q}", A.all(A.all((x >= -bound, x <= bound)) for x in vector)))
        # Initial ideals lie in -S..S, so the first pass starts with -K S <= unassigned <=
        # (K + 1) S and its offers only move it toward 0; the equal pass starts by taking
        # its members' initial ideals once. Without this the free state could sit at the
        # edge of the range and the start of the equal pass would step out of it.
        k, s = domain.bound.children, domain.bound.size
        first = A.all(A.all((x >= -k * s, x <= (k + 1) * s)) for x in state.unassigned)
        parts.append(("first-pass range of unassigned", A.implies(A.neg(state.equal_pass), first)))
    for q, weighted in enumerate(fp.weighted):
        member = A.ite(state.equal_pass, A.neg(weighted), weighted)
        parts.append(
            (
                f"only members that asked at first ask ({q})",
                A.implies(state.asking[q], A.all((member, fp.asks_at_first[q]))),
            )
        )
        sits_out = A.all((A.neg(state.equal_pass), A.neg(weighted)))
        parts.append(
            (f"zero-guarantee queues wait at 0 ({q})", A.implies(sits_out, A.all(x == 0 for x in state.ideal[q])))
        )
        content = A.all((A.neg(sits_out), A.neg(fp.asks_at_first[q])))
        parts.append(
            (
                f"a queue content at first keeps its start ({q})",
                A.implies(content, equal(A, state.ideal[q], fp.initial[q])),
            )
        )
    parts.append(("a finished level has no loop left to run", A.implies(state.done, A.neg(fp.guard(state)))))
    skipped = A.all((state.done, A.neg(state.equal_pass)))
    parts.append(("the equal pass runs when it should", A.implies(skipped, A.neg(fp.equal_pass_runs(state)))))
    whole = add(total(A, state.ideal, fp.calc.dims), state.unassigned)
    parts.append(
        (
            "ideals + unassigned = resource",
            A.all((fits(A, whole, fp.level.resource), fits(A, fp.level.resource, whole))),
        )
    )
    return parts


# --- building the obligations ----------------------------------------------------------------


def fixpoint_of(domain: Domain, A: Arith, level: Level) -> Fixpoint:
    """The fixpoint of ``level`` in ``domain`` on backend ``A`` (with the domain's
    abstraction; the concrete evaluator is exact whatever it is)."""
    return Fixpoint(Calc(A, domain.dominant), level, domain.mode, domain.rounding, domain.abstraction)


def _with_side(A: Arith, obligations: list[Obligation]) -> list[Obligation]:
    """Add the facts of every abstracted value to each obligation."""
    side = list(A.side) if isinstance(A, Symbolic) else []
    return [Obligation(o.name, [*o.constraints, *side]) for o in obligations]


def targets_of(domain: Domain, fp: Fixpoint) -> Targets:
    """The amounts encoding for the same level."""
    return Targets(
        fp.calc, fp.level, domain.mode, domain.settings, domain.magnitude + magnitude(domain), domain.bound.size
    )


def view_of(domain: Domain, fp: Fixpoint, state: State, with_targets: bool) -> LevelView:
    """A view of ``state``, with targets and amounts when asked for."""
    if not with_targets:
        return LevelView(fp, state)
    targets = targets_of(domain, fp)
    tbp = targets.to_be_preempted(state.ideal)
    return LevelView(fp, state, tbp, targets.to_obtain(tbp))


def free_state(A: Symbolic, dims: int, children: int, prefix: str) -> State:
    """A state whose every figure is a fresh variable."""
    ideal = tuple(tuple(A.var(f"{prefix}ideal.{q}.{i}") for i in range(dims)) for q in range(children))
    asking = tuple(A.bool_var(f"{prefix}asking.{q}") for q in range(children))
    unassigned = tuple(A.var(f"{prefix}unassigned.{i}") for i in range(dims))
    return State(ideal, asking, unassigned, A.bool_var(f"{prefix}equal_pass"), A.bool_var(f"{prefix}done"))


def invariant_parts(domain: Domain, prop: LevelProperty, fp: Fixpoint, state: State) -> Parts:
    """The common invariant and the property's strengthening, part by part."""
    return [*core_parts(fp, state, domain), *prop.strengthening(fp, state)]


def induction(domain: Domain, prop: LevelProperty) -> list[Obligation]:
    """The obligations of ``prop`` in ``domain``: the invariant holds initially (*base*), each
    of its parts is kept by a step from any state satisfying all of them (*step: part*), and
    it implies the goal at the end (*close*)."""
    declared = declare(domain)
    A = declared.A
    fp = fixpoint_of(domain, A, declared.instance.level)
    state = free_state(A, domain.dims, domain.bound.children, "s.")
    view = view_of(domain, fp, state, prop.targets)
    if prop.any_ideal:
        bound = magnitude(domain)
        ranges = [A.all((x >= -bound, x <= bound)) for vector in state.ideal for x in vector]
        return _with_side(A, [Obligation("for any ideal", [*declared.constraints, *ranges, A.neg(prop.goal(view))])])
    before = A.all(c for _, c in invariant_parts(domain, prop, fp, state))
    initial = A.all(c for _, c in invariant_parts(domain, prop, fp, fp.initial_state()))
    obligations = [
        Obligation("close", [*declared.constraints, before, state.done, A.neg(prop.goal(view))]),
        Obligation("base", [*declared.constraints, A.neg(initial)]),
    ]
    for label, after in invariant_parts(domain, prop, fp, fp.step(state)):
        obligations.append(Obligation(f"step: {label}", [*declared.constraints, before, A.neg(after)]))
    return _with_side(A, obligations)


def termination(domain: Domain) -> list[Obligation]:
    """The fixpoint ends: the common invariant is inductive and every step from a state that
    is not done lowers ``(pass, positive part of what is unassigned, asking queues)``
    lexicographically (the first pass ranks above the equal pass, which ranks above done)."""
    declared = declare(domain)
    A = declared.A
    fp = fixpoint_of(domain, A, declared.instance.level)
    state = free_state(A, domain.dims, domain.bound.children, "s.")
    parts = core_parts(fp, state, domain)
    before = A.all(c for _, c in parts)
    initial = A.all(c for _, c in core_parts(fp, fp.initial_state(), domain))
    obligations = [Obligation("base", [*declared.constraints, A.neg(initial)])]
    after = fp.step(state)
    for label, part in core_parts(fp, after, domain):
        obligations.append(Obligation(f"step: {label}", [*declared.constraints, before, A.neg(part)]))
    obligations.append(
        Obligation(
            "every step makes progress",
            [*declared.constraints, before, A.neg(state.done), A.neg(_lower(A, after, state))],
        )
    )
    return _with_side(A, obligations)


def _rank(A: Arith, state: State) -> tuple[Any, Any, Any]:
    phase = A.ite(state.done, A.num(0), A.ite(state.equal_pass, A.num(1), A.num(2)))
    left = sum((A.max(x, A.num(0)) for x in state.unassigned), A.num(0))
    return phase, left, A.count(state.asking)


def _lower(A: Arith, after: State, before: State) -> Cond:
    (p1, l1, n1), (p0, l0, n0) = _rank(A, after), _rank(A, before)
    return A.any((p1 < p0, A.all((p1 == p0, A.any((l1 < l0, A.all((l1 == l0, n1 < n0))))))))


def search_query(domain: Domain, prop: LevelProperty, depth: int) -> tuple[Declared, list[Any]]:
    """Inputs whose exact fixpoint is done after ``depth`` steps with the goal false."""
    domain = replace(domain, abstraction=Abstraction())
    declared = declare(domain)
    A = declared.A
    fp = fixpoint_of(domain, A, declared.instance.level)
    state = fp.initial_state()
    for _ in range(depth):
        state = fp.step(state)
    view = view_of(domain, fp, state, prop.targets)
    return declared, [*declared.constraints, state.done, A.neg(prop.goal(view))]


# --- concrete evaluation -------------------------------------------------------------------


def concrete_view(domain: Domain, level: Level, with_targets: bool) -> LevelView:
    """The encoding's own result on concrete inputs (the fixpoint run to its end)."""
    fp = fixpoint_of(domain, Concrete(), level)
    return view_of(domain, fp, fp.run(), with_targets)


def reference_view(domain: Domain, instance: Instance, with_targets: bool) -> tuple[LevelView, list[ChildFigures]]:
    """The reference implementation's result on the same inputs, as a view the goals can
    read (the ideals, targets and amounts are the reference's)."""
    figures = reference_figures(instance.written, domain.dominant, domain.mode, domain.settings, domain.guarantee_rule)
    fp = fixpoint_of(domain, Concrete(), instance.level)
    finished = fp.run()
    state = replace(finished, ideal=tuple(f.ideal for f in figures))
    if not with_targets:
        return LevelView(fp, state), figures
    return LevelView(fp, state, tuple(f.to_be_preempted for f in figures), tuple(f.to_obtain for f in figures)), figures


def holds(prop: LevelProperty, view: LevelView) -> bool:
    """The goal on a concrete view."""
    return bool(prop.goal(view))
