"""Every calculator operation of semantics A.13, for both calculators, with the edge cases the
policy meets: zero components in the reference, three or more resource types, half-up versus
ceiling rounding and Java's division by zero."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.calculator import (
    CALCULATOR_CLASSES,
    DefaultCalculator,
    DominantCalculator,
    ResourceCalculator,
    calculator,
)
from yarnspec.impl.resources import ZERO, Resource, f32

DEFAULT = DefaultCalculator()
DRF = DominantCalculator()
R = Resource.of

amounts = st.integers(min_value=0, max_value=200)
two = st.tuples(amounts, amounts).map(lambda t: Resource(t))
three = st.tuples(amounts, amounts, amounts).map(lambda t: Resource(t))
positive_ref = st.tuples(*(st.integers(min_value=1, max_value=300) for _ in range(3))).map(lambda t: Resource(t))


def test_factory_and_class_names() -> None:
    assert isinstance(calculator("default"), DefaultCalculator)
    assert isinstance(calculator("dominant"), DominantCalculator)
    assert set(CALCULATOR_CLASSES.values()) == {"default", "dominant"}


# --- compare ---------------------------------------------------------------------------------


def test_default_compares_memory_only() -> None:
    assert DEFAULT.compare(R(0, 0), R(5, 0), R(4, 100)) == 1
    assert DEFAULT.compare(R(0, 0), R(4, 1), R(4, 100)) == 0
    assert DEFAULT.less(R(1, 1), R(3, 9), R(4, 0))


def test_drf_compares_dominant_shares_then_the_other_share() -> None:
    ref = R(100, 10)
    assert DRF.compare(ref, R(10, 5), R(40, 1)) == 1  # 0.5 vs 0.4
    # equal dominant shares (0.5): the smaller shares decide, 0.2 vs 0.1
    assert DRF.compare(ref, R(20, 5), R(50, 1)) == 1
    assert DRF.compare(ref, R(50, 1), R(50, 1)) == 0


def test_drf_with_three_types_compares_sorted_shares_from_the_largest_down() -> None:
    ref = R(100, 100, 10)
    # largest shares tie (0.5), second largest 0.3 vs 0.2
    assert DRF.compare(ref, R(50, 30, 1), R(20, 50, 1)) == 1
    # first two tie, the smallest decides: 0.1 vs 0.2
    assert DRF.compare(ref, R(50, 30, 1), R(30, 50, 2)) == -1


def test_drf_with_a_zero_reference_component_uses_componentwise_dominance() -> None:
    ref = R(100, 0)
    assert DRF.compare(ref, R(5, 1), R(4, 1)) == 1
    assert DRF.compare(ref, R(4, 0), R(4, 1)) == -1
    assert DRF.compare(ref, R(5, 0), R(4, 1)) == 0  # neither dominates
    # a missing third type counts as a zero in the reference
    assert DRF.compare(R(100, 100, 0), R(1, 1), R(1, 1, 1)) == -1


def test_drf_equal_resources_compare_equal_even_with_padding() -> None:
    assert DRF.compare(R(100, 100), R(3, 4), R(3, 4, 0)) == 0


def test_drf_negative_components_against_zero() -> None:
    ref = R(100, 100)
    assert DRF.greater(ref, R(10, -5), ZERO)  # shares 0.1, -0.05: largest 0.1 > 0
    assert DRF.less_equal(ref, R(0, -6), ZERO)  # largest 0 ties, then -0.06 < 0


def test_min_and_max_return_whole_resources_first_on_ties() -> None:
    ref = R(100, 100)
    a, b = R(10, 50), R(50, 10)
    assert DRF.compare(ref, a, b) == 0  # shares 0.5 and 0.1 both ways
    assert DRF.min(ref, a, b) is a and DRF.max(ref, a, b) is a  # a tie returns the first
    assert DRF.min(ref, b, a) is b and DRF.max(ref, b, a) is b
    assert DEFAULT.min(ref, R(5, 99), R(6, 0)) == R(5, 99)
    assert DEFAULT.max(ref, R(5, 99), R(6, 0)) == R(6, 0)


# --- divide and ratio --------------------------------------------------------------------------


def test_default_divide_is_a_java_float_of_memory() -> None:
    assert DEFAULT.divide(R(1, 1), R(1, 0), R(3, 0)) == f32(1 / 3)
    assert DEFAULT.divide(R(1, 1), R(1, 0), R(0, 5)) == math.inf
    assert math.isnan(DEFAULT.divide(R(1, 1), R(0, 0), R(0, 5)))


def test_drf_divide_is_largest_share_over_largest_share() -> None:
    ref = R(100, 10)
    assert DRF.divide(ref, R(50, 1), R(20, 4)) == f32(0.5 / 0.4)
    assert DRF.divide(ref, R(50, 1), R(0, 0)) == math.inf
    assert math.isnan(DRF.divide(ref, ZERO, ZERO))
    # a zero reference component makes that share Infinity (x/0) or is skipped (0/0)
    assert DRF.divide(R(100, 0), R(50, 0), R(25, 0)) == 2.0
    assert DRF.divide(R(100, 0), R(50, 1), R(25, 0)) == math.inf


def test_ratio() -> None:
    assert DEFAULT.ratio(R(3, 100), R(2, 1)) == 1.5
    assert DRF.ratio(R(3, 9), R(2, 3)) == 3.0
    assert DRF.ratio(R(3, 1), R(2, 0)) == math.inf
    assert math.isnan(DRF.ratio(R(3, 0), R(2, 0)))  # 0/0 replaces the running maximum, as in Java


# --- fit and sign tests ------------------------------------------------------------------------


def test_fits_in() -> None:
    assert DEFAULT.fits_in(R(5, 100), R(5, 0))
    assert not DRF.fits_in(R(5, 100), R(5, 0))
    assert DRF.fits_in(R(5, 1), R(5, 1, 3))
    assert not DRF.fits_in(R(5, 1, 1), R(5, 1))


def test_major_resource_signs() -> None:
    assert DEFAULT.any_major_positive(R(1, -5)) and not DEFAULT.any_major_positive(R(0, 5))
    assert DEFAULT.any_major_nonpositive(R(0, 5)) and not DEFAULT.any_major_nonpositive(R(1, -5))
    assert DRF.any_major_positive(R(0, 5)) and not DRF.any_major_positive(R(0, -1))
    assert DRF.any_major_nonpositive(R(5, 5, 0)) and not DRF.any_major_nonpositive(R(5, 5, 1))


def test_positive_contribution() -> None:
    ref = R(100, 100, 100)
    # before <30, 10, 5>, after <20, 10, -10>: some positive type went down
    assert DRF.contributes(ref, R(30, 10, 5), R(10, 0, 15))
    # before <30, 10, 0>, after <30, 10, -15>: no positive type went down
    assert not DRF.contributes(ref, R(30, 10, 0), R(0, 0, 15))
    assert DEFAULT.contributes(ref, R(5, 0), R(10, 10))
    assert not DEFAULT.contributes(ref, R(0, 9), R(1, 1))


# --- rounding -----------------------------------------------------------------------------------


def test_default_round_up_is_half_up_on_memory() -> None:
    assert DEFAULT.multiply_round_up(R(45, 45), 0.5) == R(23, 1)  # 22.5 -> 23
    assert DEFAULT.multiply_round_up(R(45, 45), 0.49) == R(22, 1)  # 22.05 -> 22
    assert DEFAULT.multiply_round_up(R(3, 3), 0.15) == R(0, 0)  # 0.45 -> 0, and no vcore
    assert DEFAULT.multiply_round_up(R(10, 10, 10), [0.5, 0.1, 0.1]) == R(5, 1, 0)


def test_drf_round_up_is_a_ceiling_per_type() -> None:
    assert DRF.multiply_round_up(R(45, 45), 0.5) == R(23, 23)
    assert DRF.multiply_round_up(R(45, 10), [0.49, 0.01]) == R(23, 1)  # 22.05 -> 23, 0.1 -> 1
    assert DRF.multiply_round_up(R(10, 10, 10), [1.0, 0.5]) == R(10, 5, 0)
    assert DRF.multiply_round_up(R(-5, 5), 0.5) == R(-2, 3)


# --- properties ---------------------------------------------------------------------------------


@pytest.mark.parametrize("calc", [DEFAULT, DRF], ids=["default", "dominant"])
@settings(max_examples=80)
@given(ref=three, a=three, b=three)
def test_compare_is_antisymmetric_and_min_max_agree(
    calc: ResourceCalculator, ref: Resource, a: Resource, b: Resource
) -> None:
    assert calc.compare(ref, a, b) == -calc.compare(ref, b, a)
    assert calc.compare(ref, a, a) == 0
    low, high = calc.min(ref, a, b), calc.max(ref, a, b)
    assert {low, high} <= {a, b}
    assert calc.less_equal(ref, low, high)


@settings(max_examples=80)
@given(ref=positive_ref, a=three, b=three, c=three)
def test_drf_order_is_transitive_with_a_positive_reference(
    ref: Resource, a: Resource, b: Resource, c: Resource
) -> None:
    if DRF.less_equal(ref, a, b) and DRF.less_equal(ref, b, c):
        assert DRF.less_equal(ref, a, c)


@settings(max_examples=80)
@given(ref=two, a=two, b=two)
def test_default_ignores_everything_but_memory(ref: Resource, a: Resource, b: Resource) -> None:
    flipped = Resource((a.memory, b.vcores))
    assert DEFAULT.compare(ref, a, b) == DEFAULT.compare(ref, flipped, b)
    assert DEFAULT.fits_in(a, b) == (a.memory <= b.memory)


@settings(max_examples=80)
@given(r=three, factor=st.floats(min_value=0, max_value=1))
def test_drf_round_up_is_the_smallest_integer_at_or_above_the_product(r: Resource, factor: float) -> None:
    for value, rounded in zip(r.values, DRF.multiply_round_up(r, factor).values):
        assert rounded - 1 < value * factor <= rounded


@settings(max_examples=80)
@given(r=two, factor=st.floats(min_value=0, max_value=1))
def test_default_round_up_is_within_half_of_the_product(r: Resource, factor: float) -> None:
    rounded = DEFAULT.multiply_round_up(r, factor)
    assert abs(rounded.memory - r.memory * factor) <= 0.5
    assert rounded.vcores == (1 if rounded.memory > 0 else 0)


@settings(max_examples=80)
@given(ref=positive_ref, a=three, b=three)
def test_drf_fit_implies_not_greater(ref: Resource, a: Resource, b: Resource) -> None:
    if DRF.fits_in(a, b):
        assert DRF.less_equal(ref, a, b)
