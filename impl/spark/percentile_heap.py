"""Spark 3.4's ``PercentileHeap`` (SPARK-41530), the median of the successful task durations
that ``checkSpeculatableTasks`` reads in 3.4.x.

It keeps a lower and an upper half. An insertion goes to the upper half when the value is
greater than the current answer, else to the lower half (the first one to the upper half),
then one element moves across if that brings the halves' *deviation*
``lower * (1 - p) - upper * p`` strictly closer to 0. The answer is the mean of the two heads
when both halves are non-empty and ``|deviation| / size < 0.01``, else the head of the larger
half. With ``p = 0.5`` this is the usual median up to 50 values; from 51 on, halves that differ
by one already pass the 0.01 test, so the answer is the mean of the middle value and its
neighbour in the smaller half. Spark 3.5 (SPARK-42528) replaced it by the upper middle.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable


class PercentileHeap34:
    """The two halves as sorted lists (only their contents and heads matter)."""

    def __init__(self, percentage: float = 0.5) -> None:
        self.percentage = percentage
        self.lower: list[float] = []
        self.upper: list[float] = []

    def _deviation(self, lower: int, upper: int) -> float:
        return lower * (1 - self.percentage) - upper * self.percentage

    def percentile(self) -> float:
        """The current answer (the halves must not both be empty)."""
        size = len(self.lower) + len(self.upper)
        deviation = self._deviation(len(self.lower), len(self.upper))
        if self.lower and self.upper and abs(deviation / size) < 0.01:
            return (self.upper[0] + self.lower[-1]) / 2.0
        return self.upper[0] if deviation < 0 else self.lower[-1]

    def insert(self, value: float) -> None:
        """Add one value and rebalance."""
        if not self.lower and not self.upper:
            bisect.insort(self.lower if self.percentage < 0.5 else self.upper, float(value))
            return
        bisect.insort(self.upper if value > self.percentile() else self.lower, float(value))
        deviation = self._deviation(len(self.lower), len(self.upper))
        if deviation > 0 and abs(self._deviation(len(self.lower) - 1, len(self.upper) + 1)) < deviation:
            bisect.insort(self.upper, self.lower.pop())
        elif deviation < 0 and abs(self._deviation(len(self.lower) + 1, len(self.upper) - 1)) < abs(deviation):
            bisect.insort(self.lower, self.upper.pop(0))

    @classmethod
    def of(cls, values: Iterable[float]) -> float:
        """The answer after inserting ``values`` in order."""
        heap = cls()
        for value in values:
            heap.insert(value)
        return heap.percentile()
