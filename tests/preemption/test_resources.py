"""Resource vectors and the Java number helpers (``impl/resources.py``)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.resources import (
    LONG_MAX,
    LONG_MIN,
    ZERO,
    Resource,
    ResourceTypes,
    double_compare_key,
    f32,
    java_ceil_long,
    java_double_div,
    java_float_div,
    java_long,
    total,
)

small = st.integers(min_value=-1000, max_value=1000)
vectors = st.lists(small, min_size=1, max_size=4).map(lambda v: Resource(tuple(v)))


def test_of_and_accessors() -> None:
    r = Resource.of(10, 3, 7)
    assert (r.memory, r.vcores, r.get(2), r.get(5), len(r)) == (10, 3, 7, 0, 3)
    assert Resource((5,)).vcores == 0


def test_arithmetic_pads_the_shorter_vector_with_zeros() -> None:
    assert Resource.of(1, 2) + Resource.of(1, 1, 5) == Resource.of(2, 3, 5)
    assert Resource.of(1, 2) - Resource.of(1, 1, 5) == Resource.of(0, 1, -5)
    assert -Resource.of(1, -2) == Resource.of(-1, 2)


def test_componentwise_min_max_and_clamp() -> None:
    a, b = Resource.of(5, -1, 3), Resource.of(2, 4)
    assert a.component_min(b) == Resource.of(2, -1, 0)
    assert a.component_max(b) == Resource.of(5, 4, 3)
    assert a.clamp_min_zero() == Resource.of(5, 0, 3)


def test_multiply_truncates_toward_zero_per_component() -> None:
    assert Resource.of(7, -7).multiply_truncate(0.5) == Resource.of(3, -3)
    assert Resource.of(10, 10, 10).multiply_truncate([0.25, 0.5]) == Resource.of(2, 5, 0)
    # 40 x 1.1 is 44.000000000000004 in double: truncation gives 44 (the dead zone of testDeadzone)
    assert Resource.of(40, 40).multiply_truncate(1.0 + 0.1) == Resource.of(44, 44)


def test_padding_and_zero_replacement() -> None:
    assert Resource.of(1, 2).padded(3) == Resource.of(1, 2, 0)
    assert Resource.of(1, 2, 3).padded(2) == Resource.of(1, 2, 3)
    assert Resource.of(5, 0, 0).with_zeros_as(-1) == Resource.of(5, -1, -1)
    unchanged = Resource.of(5, 1)
    assert unchanged.with_zeros_as(-1) is unchanged


def test_zero_and_fit() -> None:
    assert ZERO.is_zero() and Resource.of(0, 0, 0).is_zero() and not Resource.of(0, 1).is_zero()
    assert Resource.of(1, 2).fits_all(Resource.of(1, 2, 0))
    assert not Resource.of(1, 2, 1).fits_all(Resource.of(1, 2))
    assert total([Resource.of(1, 2), Resource.of(3, 4, 5)]) == Resource.of(4, 6, 5)
    assert total([]) == ZERO


def test_resource_types_index() -> None:
    types = ResourceTypes(("res1",))
    assert types.names == ("memory-mb", "vcores", "res1")
    assert types.index("res1") == 2
    with pytest.raises(KeyError):
        types.index("gpu")


def test_f32_rounds_to_single_precision() -> None:
    assert f32(0.1) != 0.1 and abs(f32(0.1) - 0.1) < 1e-8
    assert f32(1e39) == math.inf and f32(-1e39) == -math.inf
    assert math.isnan(f32(math.nan))
    assert f32(0.5) == 0.5


def test_java_division_by_zero() -> None:
    assert java_double_div(1, 0) == math.inf
    assert java_double_div(-1, 0) == -math.inf
    assert math.isnan(java_double_div(0, 0))
    assert java_float_div(1, 3) == f32(1 / 3)
    assert java_float_div(5, 0) == math.inf
    assert math.isnan(java_float_div(0, 0))


def test_java_long_cast() -> None:
    assert java_long(2.9) == 2 and java_long(-2.9) == -2
    assert java_long(math.nan) == 0
    assert java_long(math.inf) == LONG_MAX and java_long(-math.inf) == LONG_MIN
    assert java_ceil_long(2.1) == 3 and java_ceil_long(-2.9) == -2 and java_ceil_long(math.nan) == 0
    assert Resource.of(5, 5).multiply_truncate(math.inf) == Resource.of(LONG_MAX, LONG_MAX)


def test_double_compare_key_orders_nan_last() -> None:
    values = [math.nan, 2.0, math.inf, -1.0]
    assert sorted(values, key=double_compare_key)[:3] == [-1.0, 2.0, math.inf]
    assert double_compare_key(math.nan) == double_compare_key(math.nan)


@settings(max_examples=60)
@given(vectors, vectors)
def test_add_then_subtract_is_identity_on_the_padded_vector(a: Resource, b: Resource) -> None:
    width = max(len(a), len(b))
    assert (a + b) - b == a.padded(width)


@settings(max_examples=60)
@given(vectors, vectors)
def test_min_plus_max_is_the_sum(a: Resource, b: Resource) -> None:
    assert a.component_min(b) + a.component_max(b) == a + b
    assert a.component_min(b).fits_all(a) and a.component_min(b).fits_all(b)
    assert a.fits_all(a.component_max(b)) and b.fits_all(a.component_max(b))


@settings(max_examples=60)
@given(vectors, st.floats(min_value=0, max_value=4, allow_nan=False))
def test_multiply_truncate_never_grows_the_magnitude_beyond_the_product(r: Resource, factor: float) -> None:
    for value, product in zip(r.values, r.multiply_truncate(factor).values):
        assert abs(product) <= abs(value * factor) < abs(product) + 1
