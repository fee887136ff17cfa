"""Both backends build the same numbers: the z3 formula of the encoding, with every input
fixed, has exactly the concrete evaluator's ideals, and admits its targets and amounts (the
float scale's rounding is the one choice left open to the solver). Run at the bound of the
drawn domain, so a bit-vector width too small to hold an intermediate value would show here
(``Domain.width``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.symbolic.arith import Concrete, Symbolic, SymbolicInt
from yarnspec.checks.symbolic.domain import Bound, Domain, declare
from yarnspec.checks.symbolic.fixpoint import State
from yarnspec.checks.symbolic.level_proof import concrete_view, fixpoint_of, view_of
from yarnspec.checks.symbolic.model import Child, Level

from .levels import Drawn, instances


def _fix(written_terms: Level, values: Level) -> list[Any]:
    """``term == value`` for every written input."""
    found: list[Any] = []

    def vec(terms: tuple[Any, ...], numbers: tuple[int, ...]) -> None:
        found.extend(t == n for t, n in zip(terms, numbers))

    vec(written_terms.resource, values.resource)
    vec(written_terms.budget, values.budget)
    for t, v in zip(written_terms.children, values.children):
        assert isinstance(t, Child) and isinstance(v, Child)
        for name in ("guaranteed", "maximum", "used", "pending", "reserved", "killable"):
            vec(getattr(t, name), getattr(v, name))
        found.append(t.disabled == v.disabled)
        found.append(t.priority == v.priority)
    return found


def _steps(domain: Domain, level: Level) -> int:
    """How many steps the concrete fixpoint takes to be done."""
    fp = fixpoint_of(domain, Concrete(), level)
    state: State = fp.initial_state()
    count = 0
    while not state.done:
        state = fp.step(state)
        count += 1
    return count


def _same(A: Symbolic, terms: tuple[tuple[Any, ...], ...], numbers: tuple[tuple[int, ...], ...]) -> Any:
    return A.all(t == n for tv, nv in zip(terms, numbers) for t, n in zip(tv, nv))


def _check_backend(drawn: Drawn, backend: str) -> None:
    domain = replace(drawn.domain, backend=backend)  # type: ignore[arg-type]
    concrete = concrete_view(domain, drawn.instance.level, with_targets=True)
    declared = declare(domain)
    A = declared.A
    fp = fixpoint_of(domain, A, declared.instance.level)
    state = fp.initial_state()
    for _ in range(_steps(domain, drawn.instance.level)):
        state = fp.step(state)
    view = view_of(domain, fp, state, with_targets=True)
    base = [*declared.constraints, *_fix(declared.instance.written, drawn.instance.written), *A.side]
    solver = z3.Solver()
    solver.add(*base)
    ideal_known = A.all((state.done, _same(A, state.ideal, concrete.state.ideal)))
    assert solver.check(A.neg(ideal_known)) == z3.unsat, "the formula allows other ideals"
    amounts = A.all((_same(A, view.targets, concrete.targets), _same(A, view.obtain, concrete.obtain)))
    assert solver.check(amounts) == z3.sat, "the formula rules out the concrete amounts"


@settings(max_examples=25)
@given(instances(max_children=3, max_size=5), st.sampled_from(("int", "bv")))
def test_z3_with_fixed_inputs_gives_the_concrete_numbers(drawn: Drawn, backend: str) -> None:
    """Both z3 theories agree with the concrete evaluator on fixed inputs."""
    _check_backend(drawn, backend)


def test_the_bit_vector_width_holds_the_largest_product_at_the_bound() -> None:
    """``Domain.width`` leaves room for the DRF cross-products at the largest figures, and a
    constant beyond the width is refused rather than wrapped."""
    domain = Domain(True, Bound(4, 8))
    A = Symbolic(domain.width())
    A.num(4 * 8**4)
    with pytest.raises(ValueError, match="does not fit"):
        A.num(1 << domain.width())


@pytest.mark.parametrize("A", [Symbolic(10), SymbolicInt()], ids=["bv", "int"])
def test_every_operation_agrees_with_the_concrete_backend(A: Symbolic) -> None:
    """Floor division and remainder (negative operands included), table look-up and
    relation membership give the concrete backend's value on every small operand."""
    C = Concrete()
    table = {x: 3 * x - 1 for x in range(-4, 5)}
    pairs = frozenset({(1, 2), (3, 4), (0, 4)})
    checks = []
    for a in range(-9, 10):
        for b in range(1, 5):
            na, nb = A.num(a), A.num(b)
            checks.append(A.floor_div(na, nb) == C.floor_div(a, b))
            checks.append(A.floor_mod(na, nb) == C.floor_mod(a, b))
            checks.append(A.member(pairs, na, nb) == C.member(pairs, a, b))
        if a in table:
            checks.append(A.lookup(table, A.num(a)) == C.lookup(table, a))
    solver = z3.Solver()
    solver.add(z3.Not(z3.And(checks)))
    assert solver.check() == z3.unsat
