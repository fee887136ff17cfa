"""The iteration order of a Java ``java.util.HashMap`` (JDK 8 and later), for models that walk
one: buckets in index order, and within a bucket the order the keys went in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

_INITIAL_CAPACITY = 16
_LOAD_FACTOR = 0.75


def capacity_for(size: int) -> int:
    """The table size after ``size`` insertions into a default ``new HashMap<>()``: 16,
    doubled each time the size passes three quarters of it (``HashMap.resize``)."""
    capacity = _INITIAL_CAPACITY
    while size > capacity * _LOAD_FACTOR:
        capacity *= 2
    return capacity


def bucket(hash_code: int, capacity: int) -> int:
    """``(h ^ (h >>> 16)) & (capacity - 1)`` for a key whose ``hashCode()`` is ``hash_code``."""
    h = hash_code & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)


def hash_map_order(keys: Sequence[T], hash_code: Callable[[T], int]) -> list[T]:
    """``keys``, listed in insertion order, as a ``HashMap`` holding them iterates them
    (a bucket of eight or more keys is a tree in Java; its order is not modelled)."""
    capacity = capacity_for(len(keys))
    ranked = sorted(range(len(keys)), key=lambda i: (bucket(hash_code(keys[i]), capacity), i))
    return [keys[i] for i in ranked]
