"""Spark 3.4's PercentileHeap against the answers of the real class (spark-core_2.12-3.4.4,
from PyPI's pyspark 3.4.4), transcribed from a Java program that inserted the same values."""

from __future__ import annotations

from yarnspec.impl.spark.percentile_heap import PercentileHeap34
from yarnspec.impl.spark.taskset.dispatch_variant import VARIANTS, SpeculationMedian

#: 77 values of java.util.Random(7).nextInt(1000), in insertion order.
RANDOM_77 = [
    236,
    164,
    485,
    44,
    380,
    254,
    968,
    649,
    850,
    534,
    200,
    712,
    708,
    911,
    495,
    662,
    961,
    738,
    307,
    279,
    842,
    924,
    883,
    51,
    718,
    4,
    239,
    400,
    576,
    811,
    123,
    73,
    679,
    891,
    535,
    492,
    818,
    506,
    646,
    234,
    325,
    880,
    673,
    47,
    333,
    395,
    512,
    289,
    276,
    652,
    12,
    245,
    194,
    170,
    844,
    452,
    208,
    565,
    226,
    157,
    674,
    525,
    896,
    829,
    272,
    305,
    820,
    105,
    529,
    347,
    454,
    652,
    637,
    720,
    114,
    396,
    980,
]


def test_small_counts_are_the_usual_median() -> None:
    assert PercentileHeap34.of([0, 1000]) == 500.0
    assert PercentileHeap34.of([3, 1, 2]) == 2.0
    assert PercentileHeap34.of(range(50)) == 24.5


def test_from_51_values_odd_counts_average_two() -> None:
    assert PercentileHeap34.of(range(51)) == 24.5  # the median is 25
    assert PercentileHeap34.of(range(101)) == 49.5  # the median is 50
    assert PercentileHeap34.of(range(60, -1, -1)) == 30.5  # the median is 30
    assert PercentileHeap34.of(RANDOM_77) == 493.5  # the median is 495


def test_the_3_4_variant_uses_it_and_3_3_does_not() -> None:
    assert VARIANTS["spark-3.4"].speculation_median is SpeculationMedian.PERCENTILE_HEAP_3_4
    assert VARIANTS["spark-3.1-3.3"].speculation_median is SpeculationMedian.AVERAGE_OF_MIDDLE
    durations = list(range(60, -1, -1))
    assert SpeculationMedian.PERCENTILE_HEAP_3_4.of(durations) == 30.5
    assert SpeculationMedian.AVERAGE_OF_MIDDLE.of(durations) == 30.0
    assert SpeculationMedian.UPPER_MIDDLE.of(durations) == 30.0
