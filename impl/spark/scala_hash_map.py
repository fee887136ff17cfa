"""The iteration order of Scala 2.13's ``scala.collection.mutable.HashMap`` and ``HashSet``.

Spark keeps its pending-task lists, its task-info map and its running-task set in these
collections, and several of its answers depend on the order in which it walks them (which rack
list is built first, which exhausted keys are cleaned up, which lost task is queued again
first). Python's ``dict`` walks in insertion order; Scala 2.13's hash table does not. This
module reproduces the Scala order exactly, so the model can walk its collections the way Spark
does (:class:`yarnspec.impl.spark.collection_order.CollectionOrder` names the choice).

How Scala 2.13 orders a mutable hash table (``mutable.HashMap`` and ``mutable.HashSet`` share
the layout):

* a key's hash is ``key.##`` (Java's ``String.hashCode`` for a string; the value itself for an
  ``Int`` or for a ``Long`` that fits in an ``Int``, else ``(v ^ (v >>> 32)).toInt``), then
  *improved* as ``h ^ (h >>> 16)``;
* the table has a power-of-two length (16 by default) and a key lives in bucket
  ``improved & (length - 1)``; within a bucket the nodes are kept sorted by improved hash (as a
  signed 32-bit int), and a key whose hash equals an existing node's goes after it;
* an insertion first grows the table to twice its length when ``size + 1 >= length * 0.75``
  (``put``/``update`` and ``HashSet.add`` check this even when the key is already present;
  ``getOrElseUpdate`` only when it is absent); growing splits each bucket in order, so the
  rules above still describe the order; removal never shrinks the table;
* iteration walks the buckets from 0 upwards and each bucket from its head.

So the order is: by bucket index, then by signed improved hash, then by insertion (only keys
with equal hashes keep their insertion order).

Scala 2.12's tables (chained ``HashTable`` and open-addressing ``FlatHashTable``, with a seeded
index) are in :mod:`yarnspec.impl.spark.scala_2_12_hash_table`; the map and set classes here
take either.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, MutableMapping, MutableSet
from typing import Generic, Protocol, TypeVar

from yarnspec.impl.java.hash_code import INT_MASK, java_string_hash, signed_int

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: ``HashMap.defaultInitialCapacity`` and ``defaultLoadFactor`` (the same for ``HashSet``).
DEFAULT_INITIAL_CAPACITY = 16
DEFAULT_LOAD_FACTOR = 0.75


def scala_hash(key: object) -> int:
    """Scala's ``key.##`` for the key types Spark uses here: strings (executor ids, hosts,
    racks), ``Int`` task indices and ``Long`` task ids (``Statics.longHash``: the value when it
    fits in an ``Int``, else ``(v ^ (v >>> 32)).toInt``)."""
    if isinstance(key, str):
        return java_string_hash(key)
    if isinstance(key, int) and not isinstance(key, bool):
        if -(1 << 31) <= key < (1 << 31):
            return key
        unsigned = key & 0xFFFFFFFFFFFFFFFF
        return signed_int(unsigned ^ (unsigned >> 32))
    raise TypeError(f"no Scala hash modelled for {type(key).__name__} keys")


def improve_hash(original: int) -> int:
    """``HashMap.improveHash``: ``h ^ (h >>> 16)`` on 32 bits, as a signed int."""
    unsigned = original & INT_MASK
    return signed_int(unsigned ^ (unsigned >> 16))


def table_size_for(capacity: int) -> int:
    """``tableSizeFor``: twice the highest power of two at most ``max(capacity - 1, 4)``."""
    highest = 1 << (max(capacity - 1, 4).bit_length() - 1)
    return min(highest * 2, 1 << 30)


class KeyTable(Protocol[K]):
    """How a Scala hash table lays out its keys, as far as the iteration order goes."""

    @property
    def length(self) -> int:
        """The number of buckets (or slots)."""

    def before_update(self) -> None:
        """What the table does before an ``update`` / ``add`` looks for its key."""

    def insert(self, key: K) -> None:
        """Place a key that is not present yet."""

    def remove(self, key: K) -> None:
        """Take out a present key."""

    def order(self) -> list[K]:
        """The keys in iteration order."""


class HashTable213(Generic[K]):
    """Scala 2.13's table (``mutable.HashMap`` and ``mutable.HashSet`` share it): each key's
    improved hash and insertion stamp, the table length, and the iteration order."""

    def __init__(
        self, initial_capacity: int = DEFAULT_INITIAL_CAPACITY, load_factor: float = DEFAULT_LOAD_FACTOR
    ) -> None:
        self.load_factor = load_factor
        self.length = table_size_for(initial_capacity)
        self.entries: dict[K, tuple[int, int]] = {}
        self._stamp = 0
        self._order: list[K] | None = []

    @property
    def threshold(self) -> int:
        """``newThreshold``: the size at which the next insertion grows the table."""
        return int(self.length * self.load_factor)

    def before_update(self) -> None:
        """Double the table when one more entry would reach the threshold (checked before
        every ``update`` and ``add``, as Scala's ``put0`` and ``add`` do, and before the
        insertion of ``getOrElseUpdate``)."""
        if len(self.entries) + 1 >= self.threshold:
            self.length *= 2
            self._order = None

    def insert(self, key: K) -> None:
        """Record a key that is not present yet."""
        self.entries[key] = (improve_hash(scala_hash(key)), self._stamp)
        self._stamp += 1
        self._order = None

    def remove(self, key: K) -> None:
        """Forget a present key (the table keeps its length)."""
        del self.entries[key]
        if self._order is not None:
            self._order.remove(key)

    def order(self) -> list[K]:
        """The keys in Scala's iteration order: bucket, then signed hash, then insertion."""
        if self._order is None:
            mask = self.length - 1
            entries = self.entries
            self._order = sorted(entries, key=lambda k: (entries[k][0] & mask, entries[k][0], entries[k][1]))
        return self._order


class ScalaHashMap(MutableMapping[K, V]):
    """A mutable map that iterates in the order of a Scala ``mutable.HashMap`` (2.13's table
    unless another :class:`KeyTable` is given).

    ``m[key] = value`` is Scala's ``update`` (2.13 may grow the table even when ``key`` is
    present); :meth:`get_or_else_update` is ``getOrElseUpdate``. Iteration must not overlap a
    change of the map, as in Scala.
    """

    def __init__(self, table: KeyTable[K] | None = None) -> None:
        self._table: KeyTable[K] = table if table is not None else HashTable213()
        self._values: dict[K, V] = {}

    @property
    def table_length(self) -> int:
        """The current length of the bucket array."""
        return self._table.length

    def __getitem__(self, key: K) -> V:
        return self._values[key]

    def __setitem__(self, key: K, value: V) -> None:
        self._table.before_update()
        if key not in self._values:
            self._table.insert(key)
        self._values[key] = value

    def get_or_else_update(self, key: K, default: Callable[[], V]) -> V:
        """The value of ``key``, inserting ``default()`` first when it is absent."""
        if key in self._values:
            return self._values[key]
        value = default()
        self._table.before_update()
        self._table.insert(key)
        self._values[key] = value
        return value

    def __delitem__(self, key: K) -> None:
        del self._values[key]
        self._table.remove(key)

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._table.order()))

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"ScalaHashMap({{{', '.join(f'{k!r}: {self._values[k]!r}' for k in self)}}})"


class ScalaHashSet(MutableSet[K]):
    """A mutable set that iterates in the order of a Scala ``mutable.HashSet`` (2.13's table
    unless another :class:`KeyTable` is given; 2.13's ``add`` may grow the table even when the
    element is present)."""

    def __init__(self, table: KeyTable[K] | None = None) -> None:
        self._table: KeyTable[K] = table if table is not None else HashTable213()
        self._items: set[K] = set()

    @property
    def table_length(self) -> int:
        """The current length of the bucket array."""
        return self._table.length

    def add(self, value: K) -> None:
        """Scala's ``add``."""
        self._table.before_update()
        if value not in self._items:
            self._table.insert(value)
            self._items.add(value)

    def discard(self, value: K) -> None:
        """Scala's ``remove`` (absent elements are ignored)."""
        if value in self._items:
            self._items.discard(value)
            self._table.remove(value)

    def __contains__(self, value: object) -> bool:
        return value in self._items

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._table.order()))

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"ScalaHashSet({list(self)!r})"


class InsertionSet(MutableSet[K]):
    """A set that iterates in insertion order (the canonical order)."""

    def __init__(self) -> None:
        self._items: dict[K, None] = {}

    def add(self, value: K) -> None:
        """Add ``value`` (kept at its first position when present)."""
        self._items[value] = None

    def discard(self, value: K) -> None:
        """Remove ``value`` if present."""
        self._items.pop(value, None)

    def __contains__(self, value: object) -> bool:
        return value in self._items

    def __iter__(self) -> Iterator[K]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)
