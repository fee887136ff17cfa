"""Which order the model walks Spark's Scala hash maps and sets in: a named choice of the
dispatch variant (``DispatchVariant.collection_order``)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, MutableMapping, MutableSet
from typing import Any, TypeVar

from yarnspec.impl.spark.scala_2_12_hash_table import FlatHashTable212, HashTable212
from yarnspec.impl.spark.scala_hash_map import InsertionSet, ScalaHashMap, ScalaHashSet

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class CollectionOrder(enum.Enum):
    """The order in which the model walks Spark's hash maps and sets.

    ``INSERTION`` is the canonical order (Python's ``dict``): easy to read and to reason
    about, but not what any Spark build does. ``SCALA_2_13`` is the order of Scala 2.13's
    mutable hash tables (Spark 4.x and the ``_2.13`` builds of 3.2-3.5); ``SCALA_2_12`` that of
    Scala 2.12's (the default builds of 3.x, and 3.0 / 3.1, which have no other).
    """

    INSERTION = "insertion"
    SCALA_2_13 = "scala-2.13-hashmap"
    SCALA_2_12 = "scala-2.12-hashmap"


def new_map(order: CollectionOrder) -> MutableMapping[Any, Any]:
    """An empty map for a Scala ``new HashMap`` walked in ``order``."""
    if order is CollectionOrder.SCALA_2_13:
        return ScalaHashMap()
    if order is CollectionOrder.SCALA_2_12:
        return ScalaHashMap(HashTable212())
    return {}


def new_set(order: CollectionOrder) -> MutableSet[Any]:
    """An empty set for a Scala ``new HashSet`` walked in ``order``."""
    if order is CollectionOrder.SCALA_2_13:
        return ScalaHashSet()
    if order is CollectionOrder.SCALA_2_12:
        return ScalaHashSet(FlatHashTable212())
    return InsertionSet()


def get_or_else_update(mapping: MutableMapping[K, V], key: K, default: Callable[[], V]) -> V:
    """Scala's ``getOrElseUpdate`` on either kind of map."""
    if isinstance(mapping, ScalaHashMap):
        return mapping.get_or_else_update(key, default)
    if key not in mapping:
        mapping[key] = default()
    return mapping[key]
