"""The Java ``HashMap`` iteration order and ``ApplicationId.hashCode`` the fair-share rule
walks a user's applications in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from yarnspec.impl.java.hash_map import capacity_for, hash_map_order
from yarnspec.impl.preemption.application_id import application_id_hash


def test_capacity_doubles_past_three_quarters() -> None:
    assert [capacity_for(n) for n in (0, 12, 13, 24, 25)] == [16, 16, 32, 32, 64]


def test_integer_keys_go_by_bucket_then_insertion() -> None:
    # Integer.hashCode is the value: 17, 1 and 33 share bucket 1 of 16 and keep their
    # insertion order; 3 (bucket 3) comes before 20 (bucket 4).
    assert hash_map_order([17, 20, 1, 3, 33], lambda k: k) == [17, 1, 33, 3, 20]


def test_application_id_hash_in_java_int_arithmetic() -> None:
    # ApplicationId.newInstance(0L, id).hashCode() = 371237 * (371237 * 6521) + id, as an int.
    base = (371237 * 371237 * 6521) & 0xFFFFFFFF
    base = base - (1 << 32) if base >= 1 << 31 else base
    assert application_id_hash(1) == base + 1
    assert application_id_hash(7, cluster_timestamp=1 << 32) != application_id_hash(7)


@given(st.lists(st.integers(-(2**31), 2**31 - 1), unique=True, max_size=40))
def test_the_order_is_a_permutation_grouped_by_bucket(keys: list[int]) -> None:
    order = hash_map_order(keys, lambda k: k)
    assert sorted(order) == sorted(keys)
    capacity = capacity_for(len(keys))
    buckets = [((k & 0xFFFFFFFF) ^ ((k & 0xFFFFFFFF) >> 16)) & (capacity - 1) for k in order]
    assert buckets == sorted(buckets)
