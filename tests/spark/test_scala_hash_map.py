"""The Scala 2.13 hash-table order emulation against orders printed by the real
``scala.collection.mutable.HashMap`` / ``HashSet`` (scala-library 2.13.16, the one Spark 4.0.1
ships), transcribed from a small Java program that called them with the same operations."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from yarnspec.impl.spark.collection_order import CollectionOrder, get_or_else_update, new_map, new_set
from yarnspec.impl.spark.scala_hash_map import (
    InsertionSet,
    ScalaHashMap,
    ScalaHashSet,
    java_string_hash,
    scala_hash,
    table_size_for,
)


def _map(keys: object) -> ScalaHashMap[object, int]:
    mapping: ScalaHashMap[object, int] = ScalaHashMap()
    for key in keys:  # type: ignore[attr-defined]
        mapping[key] = 0
    return mapping


def test_java_string_hash_codes() -> None:
    assert java_string_hash("host1") == 99467145
    assert java_string_hash("hostZ") == 99467186
    assert java_string_hash("polygenelubricants") == -2147483648
    assert java_string_hash("") == 0
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112


def test_long_hash_folds_values_outside_int() -> None:
    assert scala_hash(7) == 7
    assert scala_hash(-1) == -1
    assert scala_hash(5_000_000_000) == 705032705  # java.lang.Long.hashCode(5000000000L)
    assert scala_hash(-(1 << 40)) == -256


def test_hosts_of_the_rack_example_walk_host1_first() -> None:
    # Spark adds task 1 (host2) before task 0 (host1); Scala walks host1 first anyway.
    assert list(_map(["host2", "host1"])) == ["host1", "host2"]
    assert list(_map(["hostZ", "host1"])) == ["host1", "hostZ"]


def test_mixed_string_keys() -> None:
    keys = ["exec9", "exec10", "exec1", "exec2", "exec3", "host3", "rack1", "rack2", "/default-rack", "host10", "host0"]
    assert list(_map(keys)) == [
        "exec10",
        "exec3",
        "host0",
        "exec2",
        "host3",
        "exec1",
        "/default-rack",
        "host10",
        "rack1",
        "exec9",
        "rack2",
    ]


def test_growth_and_removal() -> None:
    mapping = _map(range(30, 13, -1))
    assert list(mapping) == list(range(14, 31))
    assert mapping.table_length == 32
    del mapping[20]
    mapping[47] = 0
    mapping[15] = 1
    assert list(mapping) == [14, 15, 47, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]


def test_wrap_around_in_a_table_of_16_and_update_of_a_present_key_grows() -> None:
    mapping = _map(range(14, 25))
    assert mapping.table_length == 16
    assert list(mapping) == [16, 17, 18, 19, 20, 21, 22, 23, 24, 14, 15]
    mapping[14] = 1  # Scala's update checks the threshold before looking for the key
    assert mapping.table_length == 32
    assert list(mapping) == list(range(14, 25))


def test_get_or_else_update_of_a_present_key_does_not_grow() -> None:
    mapping = _map(range(5, 16))
    assert mapping.get_or_else_update(5, lambda: 9) == 0
    assert mapping.table_length == 16
    mapping[21] = 0
    assert list(mapping) == [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 21]


def test_big_and_negative_long_keys() -> None:
    assert list(_map([5_000_000_000, -1, 65536, 65537, 1 << 40])) == [-1, 1 << 40, 65537, 65536, 5_000_000_000]


def test_equal_hashes_keep_insertion_order() -> None:
    keys = ["polygenelubricants", "Aa", "BB", "executor_host1_3", "hdfs_cache_host1"]
    assert list(_map(keys)) == keys
    assert list(_map(["BB", "Aa"])) == ["BB", "Aa"]


def test_hash_set_order() -> None:
    elements: ScalaHashSet[int] = ScalaHashSet()
    for i in range(40, -1, -3):
        elements.add(i)
    assert list(elements) == [1, 34, 4, 37, 7, 40, 10, 13, 16, 19, 22, 25, 28, 31]
    elements.discard(40)
    elements.add(100)
    assert list(elements) == [1, 34, 4, 100, 37, 7, 10, 13, 16, 19, 22, 25, 28, 31]


def test_table_size_for() -> None:
    assert [table_size_for(c) for c in (0, 1, 5, 16, 17, 33)] == [8, 8, 8, 16, 32, 64]


def test_factories_pick_the_order() -> None:
    assert isinstance(new_map(CollectionOrder.SCALA_2_13), ScalaHashMap)
    assert type(new_map(CollectionOrder.INSERTION)) is dict
    assert isinstance(new_set(CollectionOrder.SCALA_2_13), ScalaHashSet)
    assert isinstance(new_set(CollectionOrder.INSERTION), InsertionSet)
    plain: dict[str, list[int]] = {}
    get_or_else_update(plain, "a", list).append(1)
    get_or_else_update(plain, "a", list).append(2)
    assert plain == {"a": [1, 2]}


_KEYS = st.one_of(st.integers(-(1 << 40), 1 << 40), st.text(max_size=6))
_OPS = st.lists(st.tuples(st.booleans(), _KEYS), max_size=60)


@given(_OPS)
def test_map_behaves_as_a_map_and_orders_by_bucket_then_hash(ops: list[tuple[bool, object]]) -> None:
    mapping: ScalaHashMap[object, int] = ScalaHashMap()
    reference: dict[object, int] = {}
    for i, (insert, key) in enumerate(ops):
        if insert:
            mapping[key] = i
            reference[key] = i
        else:
            mapping.pop(key, None)
            reference.pop(key, None)
    assert dict(mapping.items()) == reference
    assert sorted(map(repr, mapping)) == sorted(map(repr, reference))
    mask = mapping.table_length - 1

    # computed here from Java's rules, not with the module's helpers
    def improved(key: object) -> int:
        if isinstance(key, str):
            h = 0
            data = key.encode("utf-16-be")
            for j in range(0, len(data), 2):
                h = (31 * h + ((data[j] << 8) | data[j + 1])) & 0xFFFFFFFF
        else:
            v = key & 0xFFFFFFFFFFFFFFFF  # type: ignore[operator]
            h = v & 0xFFFFFFFF if -(1 << 31) <= key < (1 << 31) else (v ^ (v >> 32)) & 0xFFFFFFFF  # type: ignore[operator]
        h ^= h >> 16
        return h - (1 << 32) if h & 0x80000000 else h

    positions = [(improved(k) & mask, improved(k)) for k in mapping]
    assert positions == sorted(positions)
    # the load factor: never 3/4 full
    assert len(mapping) < mapping.table_length * 0.75 or len(mapping) == 0
