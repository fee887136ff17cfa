"""The port of ``java.util.PriorityQueue`` behaves as the JDK's: the expected arrays and poll
orders below were printed by ``java.util.PriorityQueue`` (OpenJDK 17) for the same calls."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.impl.java.priority_queue import JavaPriorityQueue


@dataclass(eq=False)
class Entry:
    """An element ordered by ``key`` alone (equal keys tie), named for the assertions."""

    key: int
    name: str


def by_key(a: Entry, b: Entry) -> int:
    return (a.key > b.key) - (a.key < b.key)


def entries(keys: list[int]) -> list[Entry]:
    return [Entry(k, chr(ord("a") + i)) for i, k in enumerate(keys)]


def names(queue: JavaPriorityQueue[Entry]) -> list[str]:
    return [f"{e.name}{e.key}" for e in queue]


def drain(queue: JavaPriorityQueue[Entry]) -> list[str]:
    out = []
    while queue:
        e = queue.poll()
        assert e is not None
        out.append(f"{e.name}{e.key}")
    return out


def test_integers_sift_up_into_the_jdk_array() -> None:
    queue = JavaPriorityQueue(lambda a, b: (a > b) - (a < b), [5, 3, 8, 1])
    assert list(queue) == [1, 3, 8, 5]
    assert [queue.poll() for _ in range(4)] == [1, 3, 5, 8]
    assert queue.poll() is None and queue.peek() is None


def test_three_equal_elements_come_out_a_c_b() -> None:
    """No tie-break: the last element moved to the root stays there on a tie."""
    assert drain(JavaPriorityQueue(by_key, entries([1, 1, 1]))) == ["a1", "c1", "b1"]


def test_polling_and_adding_back_equal_elements() -> None:
    """The fixpoint's pattern: poll the head and add it back, twice, among five ties."""
    queue = JavaPriorityQueue(by_key, entries([1, 1, 1, 1, 1]))
    for _ in range(2):
        head = queue.poll()
        assert head is not None
        queue.add(head)
    assert names(queue) == ["a1", "b1", "c1", "d1", "e1"]
    assert drain(queue) == ["a1", "e1", "d1", "c1", "b1"]


def test_mixed_keys_with_ties() -> None:
    queue = JavaPriorityQueue(by_key, entries([3, 1, 3, 2, 1, 3, 2]))
    assert names(queue) == ["b1", "e1", "g2", "a3", "d2", "f3", "c3"]
    assert drain(queue) == ["b1", "e1", "d2", "g2", "a3", "c3", "f3"]


def test_remove_at_sifts_the_last_element_down_or_up() -> None:
    items = [Entry(1, "a"), Entry(9, "b"), Entry(2, "c"), Entry(10, "d"), Entry(11, "e"), Entry(3, "f"), Entry(4, "g")]
    queue = JavaPriorityQueue(by_key, items)
    assert names(queue) == ["a1", "b9", "c2", "d10", "e11", "f3", "g4"]
    assert queue.remove_item(items[3])  # g4 replaces d10 and rises above b9
    assert names(queue) == ["a1", "g4", "c2", "b9", "e11", "f3"]
    assert queue.remove_item(items[0])  # f3 replaces the root and sinks below c2
    assert names(queue) == ["c2", "g4", "f3", "b9", "e11"]
    assert not queue.remove_item(items[0])


def test_remove_on_an_empty_queue_is_an_error() -> None:
    with pytest.raises(IndexError):
        JavaPriorityQueue(by_key).remove()


@given(st.lists(st.tuples(st.booleans(), st.integers(0, 4)), max_size=40))
def test_every_poll_returns_a_least_element(operations: list[tuple[bool, int]]) -> None:
    """Under any mix of adds and polls the head is a least element of what is held (checked
    against a plain list, not the heap)."""
    queue: JavaPriorityQueue[Entry] = JavaPriorityQueue(by_key)
    held: list[Entry] = []
    for index, (is_add, key) in enumerate(operations):
        if is_add or not held:
            entry = Entry(key, str(index))
            queue.add(entry)
            held.append(entry)
        else:
            head = queue.poll()
            assert head is not None and head.key == min(e.key for e in held)
            held.remove(head)
        assert len(queue) == len(held) and sorted(e.name for e in queue) == sorted(e.name for e in held)
