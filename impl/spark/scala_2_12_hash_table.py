"""The iteration order of Scala 2.12's mutable hash tables: ``HashTable`` (behind
``mutable.HashMap``) and ``FlatHashTable`` (behind ``mutable.HashSet``).

Spark 3.x's default builds (and every 2.x and 3.0/3.1 release) run on Scala 2.12, whose tables
differ from 2.13's (:mod:`yarnspec.impl.spark.scala_hash_map`) in every respect that decides
the order, so they are simulated here slot by slot rather than described by a sort key.

Both tables spread a key's hash with ``improve(h, seed) = rotateRight(byteswap32(h), seed)``,
where ``byteswap32(v) = reverseBytes(v * 0x9e3775cd) * 0x9e3775cd`` (32-bit), and take the
*top* bits of the result as the slot.

``HashTable`` (a ``HashMap``): 16 buckets, the seed fixed at ``bitCount(15) = 4`` for the
table's life; hash ``key.##``; a new key is put at the *head* of its bucket, and once the size
exceeds ``length * 0.75`` the table doubles, re-inserting the old buckets from the last one down
(each from its head, again at the heads); iteration goes from the last bucket down to the first,
each from its head.

``FlatHashTable`` (a ``HashSet``): open addressing over 32 slots, hash ``elem.hashCode``, linear
probing; once the size reaches ``length * 0.45`` the table doubles, the seed becomes
``bitCount(length - 1)`` and the old slots are re-added from the first up; removal shifts later
entries of the probe run back; iteration goes from the first slot up.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

from yarnspec.impl.spark.scala_hash_map import scala_hash

K = TypeVar("K", bound=Hashable)

_MASK = 0xFFFFFFFF


def byteswap32(value: int) -> int:
    """``scala.util.hashing.byteswap32`` on 32 bits (returned unsigned)."""
    hc = (value * 0x9E3775CD) & _MASK
    hc = int.from_bytes(hc.to_bytes(4, "big"), "little")
    return (hc * 0x9E3775CD) & _MASK


def improve(hcode: int, seed: int) -> int:
    """``HashUtils.improve``: ``rotateRight(byteswap32(hcode), seed)`` (unsigned)."""
    value = byteswap32(hcode)
    rotation = seed % 32
    return ((value >> rotation) | (value << (32 - rotation))) & _MASK


def java_hash_code(key: object) -> int:
    """Java's ``hashCode`` of a boxed element: ``String.hashCode``, ``Long.hashCode`` for an
    integer (``(v ^ (v >>> 32)).toInt``; the value itself for a non-negative ``Int``)."""
    if isinstance(key, int) and not isinstance(key, bool):
        unsigned = key & 0xFFFFFFFFFFFFFFFF
        folded = (unsigned ^ (unsigned >> 32)) & _MASK
        return folded - (1 << 32) if folded & 0x80000000 else folded
    return scala_hash(key)


class HashTable212(Generic[K]):
    """Scala 2.12's chained ``HashTable`` (the layout of a ``mutable.HashMap``)."""

    def __init__(self) -> None:
        self.buckets: list[list[K]] = [[] for _ in range(16)]
        self.keys: set[K] = set()
        self.seed = (16 - 1).bit_count()

    @property
    def length(self) -> int:
        """The number of buckets."""
        return len(self.buckets)

    def _index(self, key: K, length: int) -> int:
        ones = length - 1
        leading_zeros = 32 - ones.bit_length()
        return (improve(scala_hash(key), self.seed) >> leading_zeros) & ones

    def before_update(self) -> None:
        """2.12 grows after an insertion, never before an update."""

    def insert(self, key: K) -> None:
        """``addEntry0``: at the head of its bucket; grow when the size passes 3/4."""
        self.buckets[self._index(key, self.length)].insert(0, key)
        self.keys.add(key)
        if len(self.keys) > self.length * 750 // 1000:
            self._resize(2 * self.length)

    def _resize(self, length: int) -> None:
        old = self.buckets
        self.buckets = [[] for _ in range(length)]
        for chain in reversed(old):
            for key in chain:
                self.buckets[self._index(key, length)].insert(0, key)

    def remove(self, key: K) -> None:
        """``removeEntry``: unlink the key."""
        self.buckets[self._index(key, self.length)].remove(key)
        self.keys.discard(key)

    def order(self) -> list[K]:
        """``entriesIterator``: buckets from the last down, each from its head."""
        return [key for chain in reversed(self.buckets) for key in chain]


class FlatHashTable212(Generic[K]):
    """Scala 2.12's open-addressing ``FlatHashTable`` (the layout of a ``mutable.HashSet``)."""

    def __init__(self) -> None:
        self.slots: list[K | None] = [None] * 32
        self.size = 0
        self.seed = (32 - 1).bit_count()

    @property
    def length(self) -> int:
        """The number of slots."""
        return len(self.slots)

    def _index(self, key: K) -> int:
        ones = self.length - 1
        return (improve(java_hash_code(key), self.seed) >> (32 - ones.bit_count())) & ones

    def _find(self, key: K) -> int | None:
        h = self._index(key)
        while self.slots[h] is not None:
            if self.slots[h] == key:
                return h
            h = (h + 1) % self.length
        return None

    def before_update(self) -> None:
        """2.12 grows after an insertion, never before an update."""

    def insert(self, key: K) -> None:
        """``addEntry`` of a new element: the first free slot from its index; grow when the
        size reaches 0.45 of the slots."""
        h = self._index(key)
        while self.slots[h] is not None:
            h = (h + 1) % self.length
        self.slots[h] = key
        self.size += 1
        if self.size >= self.length * 450 // 1000:
            self._grow()

    def _grow(self) -> None:
        old = self.slots
        self.slots = [None] * (2 * len(old))
        self.size = 0
        self.seed = (self.length - 1).bit_count()
        for key in old:
            if key is not None:
                self.insert(key)

    def remove(self, key: K) -> None:
        """``removeElem``: empty the slot, shifting later entries of the run back into it."""
        h0 = self._find(key)
        if h0 is None:
            return
        length = self.length
        half = length >> 1

        def precedes(i: int, j: int) -> bool:
            return j - i < half if i <= j else i - j > half

        h1 = (h0 + 1) % length
        while self.slots[h1] is not None:
            moved = self.slots[h1]
            assert moved is not None
            h2 = self._index(moved)
            if h2 != h1 and precedes(h2, h0):
                self.slots[h0] = moved
                h0 = h1
            h1 = (h1 + 1) % length
        self.slots[h0] = None
        self.size -= 1

    def order(self) -> list[K]:
        """``iterator``: the slots from the first up."""
        return [key for key in self.slots if key is not None]
