"""The float lemmas the encodings rest on, checked exhaustively against the reference's own
float functions at the bounds the tests and the default proofs use (docs/proofs.md, "Floats")."""

from __future__ import annotations

import pytest

from yarnspec.checks.symbolic.arith import Concrete
from yarnspec.checks.symbolic.floats import (
    check_offer_facts,
    check_offer_lemma,
    factor_table,
    natural_termination_rule,
    offer_closed_form,
    quotient_times,
    share_rounding,
)
from yarnspec.impl.calculator import DefaultCalculator, DominantCalculator
from yarnspec.impl.resources import Resource, java_float_div


@pytest.mark.parametrize("dominant", [False, True], ids=["default", "dominant"])
def test_the_offer_closed_form_is_the_reference_offer_at_the_bound(dominant: bool) -> None:
    """``roundUp(u x (float) num / den)`` equals the integer closed form with the rounding
    table for every amount, share numerator and denominator of the K=4, S=6 bound (the
    closed form's tie and exactness corrections included)."""
    assert check_offer_lemma(dominant, max_u=24, max_num=6, max_den=24) == []


@pytest.mark.parametrize("dominant", [False, True], ids=["default", "dominant"])
def test_the_offer_facts_hold_for_the_reference(dominant: bool) -> None:
    """The coarser offer lemma (used when offers are abstracted) holds for every offer."""
    assert check_offer_facts(dominant, max_u=16, max_den=16) == []


def test_the_rounding_table_knows_which_shares_round_down() -> None:
    """1/3 is stored above its value in single precision and 5/6 below; 1/2 is exact."""
    table = share_rounding(6, 6)
    assert (1, 3) in table.up and (5, 6) in table.down
    assert (1, 2) not in table.up | table.down


def test_the_rounding_corrections_are_needed() -> None:
    """Exact rationals would be wrong here: ``3 x 5/6 = 2.5`` rounds half up to 3, but the
    float share is below 5/6 and the reference offers 2; DRF's ``ceil(3 x 1/3) = 1`` becomes 2
    because the float 1/3 is above 1/3. The closed form gives the reference's numbers."""
    A = Concrete()
    table = share_rounding(6, 6)
    default = DefaultCalculator().multiply_round_up(Resource.of(3, 3), java_float_div(5, 6)).memory
    dominant = DominantCalculator().multiply_round_up(Resource.of(3, 3), java_float_div(1, 3)).memory
    assert (default, dominant) == (2, 2)
    assert offer_closed_form(A, False, 3, 5, 6, table) == 2
    assert offer_closed_form(A, True, 3, 1, 3, table) == 2


@pytest.mark.parametrize("x", range(-12, 13))
@pytest.mark.parametrize("num,den", [(1, 3), (2, 3), (5, 7), (3, 10), (7, 9), (1, 1)])
def test_truncating_by_a_float_quotient_matches_the_reference(x: int, num: int, den: int) -> None:
    """``(long)(x * (float) num/den)`` with the table's direction is the reference's
    ``multiply_truncate`` of the DRF scale."""
    A = Concrete()
    table = share_rounding(12, 12)
    below = (num, den) in table.down
    scale = DominantCalculator().divide(Resource.of(12, 12), Resource.of(num, num), Resource.of(den, den))
    assert quotient_times(A, x, num, den, below) == Resource.of(x, x).multiply_truncate(scale).memory


@pytest.mark.parametrize("dominant", [False, True], ids=["default", "dominant"])
def test_the_natural_termination_table_is_the_reference_rounding(dominant: bool) -> None:
    """Every entry of the tabulated ``amount x factor`` is the reference calculator's."""
    calc = DominantCalculator() if dominant else DefaultCalculator()
    table = factor_table(0, 40, natural_termination_rule(dominant, 0.2))
    for amount, value in table.items():
        assert calc.multiply_round_up(Resource.of(amount, amount), 0.2).memory == value
    assert table[3] == 1  # 0.6 rounds up either way; pins the table against a silent 0
