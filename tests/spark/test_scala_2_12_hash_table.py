"""The Scala 2.12 table emulation against orders printed by the real
``scala.collection.mutable.HashMap`` / ``HashSet`` of scala-library 2.12.18 (the one PyPI's
pyspark 3.5.9 ships), transcribed from a small Java program that called them with the same
operations."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from yarnspec.impl.spark.collection_order import CollectionOrder, new_map, new_set
from yarnspec.impl.spark.scala_2_12_hash_table import FlatHashTable212, HashTable212, byteswap32, java_hash_code
from yarnspec.impl.spark.scala_hash_map import ScalaHashMap, ScalaHashSet


def _map(keys: object) -> ScalaHashMap[object, int]:
    mapping: ScalaHashMap[object, int] = ScalaHashMap(HashTable212())
    for key in keys:  # type: ignore[attr-defined]
        mapping[key] = 0
    return mapping


def _set(elements: object) -> ScalaHashSet[int]:
    result: ScalaHashSet[int] = ScalaHashSet(FlatHashTable212())
    for element in elements:  # type: ignore[attr-defined]
        result.add(element)
    return result


def test_byteswap32_and_hash_codes() -> None:
    assert byteswap32(0) == 0
    assert byteswap32(1) == (int.from_bytes((0x9E3775CD).to_bytes(4, "big"), "little") * 0x9E3775CD) & 0xFFFFFFFF
    assert java_hash_code(5_000_000_000) == 705032705
    assert java_hash_code(-1) == 0  # Long.hashCode(-1L), unlike -1L.## == -1


def test_string_keys() -> None:
    assert list(_map(["host2", "host1"])) == ["host1", "host2"]
    assert list(_map(["hostZ", "host1"])) == ["host1", "hostZ"]
    keys = ["exec9", "exec10", "exec1", "exec2", "exec3", "host3", "rack1", "rack2", "/default-rack", "host10", "host0"]
    assert list(_map(keys)) == [
        "exec9",
        "exec3",
        "/default-rack",
        "exec10",
        "rack2",
        "host3",
        "exec2",
        "host0",
        "rack1",
        "host10",
        "exec1",
    ]


def test_long_keys_growth_and_removal() -> None:
    mapping = _map(range(30, 13, -1))
    assert list(mapping) == [23, 17, 26, 29, 20, 14, 22, 16, 25, 28, 19, 27, 18, 21, 30, 15, 24]
    del mapping[20]
    mapping[47] = 0
    mapping[15] = 1
    assert list(mapping) == [23, 17, 26, 47, 29, 14, 22, 16, 25, 28, 19, 27, 18, 21, 30, 15, 24]
    small = _map(range(14, 25))
    assert list(small) == [23, 17, 20, 14, 22, 16, 19, 18, 21, 24, 15]
    small[14] = 1  # 2.12 never grows on an update of a present key
    assert list(small) == [23, 17, 20, 14, 22, 16, 19, 18, 21, 24, 15]


def test_get_or_else_update_then_growth() -> None:
    mapping = _map(range(5, 16))
    mapping.get_or_else_update(5, lambda: 0)
    mapping[21] = 0
    assert list(mapping) == [8, 11, 14, 5, 13, 7, 10, 9, 21, 12, 15, 6]


def test_big_longs_and_equal_hashes_newest_first() -> None:
    assert list(_map([5_000_000_000, -1, 65536, 65537, 1 << 40])) == [-1, 1 << 40, 65537, 5_000_000_000, 65536]
    keys = ["polygenelubricants", "Aa", "BB", "executor_host1_3", "hdfs_cache_host1"]
    assert list(_map(keys)) == ["hdfs_cache_host1", "executor_host1_3", "BB", "Aa", "polygenelubricants"]


def test_string_growth_with_removal_and_reinsertion() -> None:
    mapping = _map(["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "e10", "e11", "e12", "e13", "h1", "h2"])
    del mapping["e5"]
    del mapping["h1"]
    mapping["e5"] = 1
    assert list(mapping) == ["e12", "e5", "h2", "e8", "e2", "e11", "e1", "e4", "e7", "e10", "e13", "e9", "e3", "e6"]


def test_flat_hash_set_probing_growth_and_backward_shift() -> None:
    elements = _set(range(40, -1, -3))
    assert list(elements) == [37, 16, 31, 1, 10, 25, 40, 4, 19, 34, 13, 28, 7, 22]
    elements.discard(40)
    elements.add(100)
    assert list(elements) == [37, 16, 31, 1, 10, 25, 4, 19, 34, 13, 100, 28, 7, 22]
    grown = _set(i * 7 for i in range(40))
    assert list(grown) == [
        0,
        161,
        154,
        133,
        126,
        105,
        98,
        77,
        273,
        252,
        70,
        49,
        245,
        224,
        42,
        21,
        203,
        217,
        196,
        14,
        175,
        168,
        147,
        140,
        119,
        112,
        91,
        266,
        84,
        63,
        259,
        238,
        56,
        35,
        231,
        210,
        28,
        7,
        189,
        182,
    ]
    for i in range(0, 40, 3):
        grown.discard(i * 7)
    assert list(grown) == [
        161,
        154,
        133,
        98,
        77,
        70,
        49,
        245,
        224,
        203,
        217,
        196,
        14,
        175,
        140,
        119,
        112,
        91,
        266,
        259,
        238,
        56,
        35,
        28,
        7,
        182,
    ]


def test_factories_pick_the_2_12_tables() -> None:
    assert isinstance(new_map(CollectionOrder.SCALA_2_12), ScalaHashMap)
    assert isinstance(new_set(CollectionOrder.SCALA_2_12), ScalaHashSet)
    assert list(new_map(CollectionOrder.SCALA_2_12)) == []


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 300)), max_size=120))
def test_set_keeps_every_element_findable_after_any_removals(ops: list[tuple[bool, int]]) -> None:
    table: FlatHashTable212[int] = FlatHashTable212()
    elements: ScalaHashSet[int] = ScalaHashSet(table)
    reference: set[int] = set()
    for insert, value in ops:
        if insert:
            elements.add(value)
            reference.add(value)
        else:
            elements.discard(value)
            reference.discard(value)
    assert sorted(elements) == sorted(reference)
    # every element is reachable by probing from its own index without crossing an empty slot
    slots = table.slots
    for value in reference:
        position = slots.index(value)
        h = table._index(value)
        while h != position:
            assert slots[h] is not None
            h = (h + 1) % len(slots)
    assert len(reference) < len(slots) * 0.45 or not reference


@given(
    st.lists(st.tuples(st.booleans(), st.one_of(st.integers(-(1 << 40), 1 << 40), st.text(max_size=5))), max_size=80)
)
def test_map_behaves_as_a_map(ops: list[tuple[bool, object]]) -> None:
    mapping: ScalaHashMap[object, int] = ScalaHashMap(HashTable212())
    reference: dict[object, int] = {}
    for i, (insert, key) in enumerate(ops):
        if insert:
            mapping[key] = i
            reference[key] = i
        else:
            mapping.pop(key, None)
            reference.pop(key, None)
    assert dict(mapping.items()) == reference
    assert len(list(mapping)) == len(reference)
