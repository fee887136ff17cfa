"""``java.util.PriorityQueue`` with a comparator, element for element.

Hadoop keeps the asking queues of the ideal allocation in a ``java.util.PriorityQueue``
(``AbstractPreemptableResourceCalculator.computeFixpointAllocation``) with a comparator that
has no tie-break, so among equal elements the order in which ``poll`` returns them is the
heap's: it depends on the history of ``add`` and ``poll`` calls, not on insertion order alone
(three equal elements added as a, b, c come out as a, c, b). Python's ``heapq`` breaks ties
differently, so the model uses this port of the JDK's binary heap instead: the same array, the
same ``siftUp`` / ``siftDown`` rules (an element moves only past strictly greater ones), the
same ``removeAt``, and iteration in array order (``PriorityQueue.iterator``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")

Comparator = Callable[[T, T], int]


class JavaPriorityQueue(Generic[T]):
    """A binary min-heap ordered by ``comparator`` (negative: the first goes first), with
    the operations and tie behaviour of ``java.util.PriorityQueue``."""

    def __init__(self, comparator: Comparator[T], items: Iterable[T] = ()) -> None:
        """An empty queue, then ``add`` of each of ``items`` in order."""
        self._compare = comparator
        self._queue: list[T] = []
        for item in items:
            self.add(item)

    @classmethod
    def of_heap(cls, comparator: Comparator[T], array: Iterable[T]) -> JavaPriorityQueue[T]:
        """A queue whose heap array is ``array`` as given (taken from :meth:`array` of a queue
        with the same comparator and elements)."""
        queue = cls(comparator)
        queue._queue = list(array)
        return queue

    def array(self) -> tuple[T, ...]:
        """The heap array (slot 0 is the head)."""
        return tuple(self._queue)

    def __len__(self) -> int:
        return len(self._queue)

    def __bool__(self) -> bool:
        return bool(self._queue)

    def __iter__(self) -> Iterator[T]:
        """The elements in array order, as ``PriorityQueue.iterator`` returns them."""
        return iter(list(self._queue))

    def add(self, item: T) -> None:
        """``add`` / ``offer``: append at the end and sift up."""
        self._queue.append(item)
        self._sift_up(len(self._queue) - 1, item)

    def peek(self) -> T | None:
        """The head (``None`` when empty)."""
        return self._queue[0] if self._queue else None

    def poll(self) -> T | None:
        """Remove and return the head (``None`` when empty): the last element moves to the
        root and sifts down."""
        if not self._queue:
            return None
        result = self._queue[0]
        last = self._queue.pop()
        if self._queue:
            self._sift_down(0, last)
        return result

    def remove(self) -> T:
        """``AbstractQueue.remove``: :meth:`poll`, but an empty queue is an error."""
        if not self._queue:
            raise IndexError("remove from an empty priority queue")
        result = self.poll()
        assert result is not None
        return result

    def remove_item(self, item: T) -> bool:
        """``remove(Object)``: the first element (in array order) equal to ``item`` is
        removed by :meth:`remove_at`; whether one was found."""
        for index, element in enumerate(self._queue):
            if element == item:
                self.remove_at(index)
                return True
        return False

    def remove_at(self, index: int) -> T | None:
        """``removeAt(i)``: the last element takes slot ``i`` and sifts down, or, if it
        stayed there, up. Returns that moved element when it went up past ``i`` (the
        iterator needs to know), else ``None``."""
        last = self._queue.pop()
        if index == len(self._queue):
            return None
        self._sift_down(index, last)
        if self._queue[index] is last:
            self._sift_up(index, last)
            if self._queue[index] is not last:
                return last
        return None

    def _sift_up(self, k: int, item: T) -> None:
        """``siftUpUsingComparator``: move up while strictly less than the parent."""
        queue = self._queue
        while k > 0:
            parent = (k - 1) >> 1
            above = queue[parent]
            if self._compare(item, above) >= 0:
                break
            queue[k] = above
            k = parent
        queue[k] = item

    def _sift_down(self, k: int, item: T) -> None:
        """``siftDownUsingComparator``: move down while strictly greater than the lesser
        child (the left one on a tie)."""
        queue = self._queue
        size = len(queue)
        half = size >> 1
        while k < half:
            child = 2 * k + 1
            smaller = queue[child]
            right = child + 1
            if right < size and self._compare(smaller, queue[right]) > 0:
                child = right
                smaller = queue[child]
            if self._compare(item, smaller) <= 0:
                break
            queue[k] = smaller
            k = child
        queue[k] = item
