"""The rules of task dispatch that changed between Spark releases (semantics 8): each is a
field of :class:`DispatchVariant`, and :data:`VARIANTS` names the combinations of real
releases (``docs/spark-dispatch.md`` has the table)."""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from yarnspec.impl.spark.collection_order import CollectionOrder
from yarnspec.impl.spark.percentile_heap import PercentileHeap34


class SpeculationMedian(enum.Enum):
    """How ``checkSpeculatableTasks`` reads the "median" of the successful durations ``d``
    (sorted ascending, ``n`` of them)."""

    #: Before 2.2 (SPARK-16929): ``d[min(round(0.5 * n), n - 1)]`` with Java's half-up
    #: rounding, over a sorted copy of every successful attempt's duration.
    SORTED_ROUNDED_HALF = "sorted-rounded-half"
    #: 2.2 to 3.3 (``MedianHeap``, SPARK-16929): the mean of the two middle values when ``n`` is
    #: even, else the middle one.
    AVERAGE_OF_MIDDLE = "average-of-middle"
    #: 3.4 (``PercentileHeap``, SPARK-41530): the same up to 50 durations; from 51 on, odd
    #: counts also average two values (:mod:`yarnspec.impl.spark.percentile_heap`). Depends on
    #: the order the durations came in.
    PERCENTILE_HEAP_3_4 = "percentile-heap-3.4"
    #: 3.5 and later (SPARK-42528 removed the averaging): ``d[n // 2]``, the upper middle.
    UPPER_MIDDLE = "upper-middle"

    def of(self, durations: Sequence[int]) -> float:
        """The median this rule gives for ``durations`` (not empty, in the order they came)."""
        if self is SpeculationMedian.PERCENTILE_HEAP_3_4:
            return PercentileHeap34.of(durations)
        ordered = sorted(durations)
        n = len(ordered)
        if self is SpeculationMedian.UPPER_MIDDLE:
            return float(ordered[n // 2])
        if self is SpeculationMedian.AVERAGE_OF_MIDDLE:
            if n % 2 == 0:
                return (ordered[n // 2 - 1] + ordered[n // 2]) / 2.0
            return float(ordered[n // 2])
        return float(ordered[min(math.floor(0.5 * n + 0.5), n - 1)])


@dataclass(frozen=True)
class DispatchVariant:
    """The rules that changed between Spark releases (semantics 8), one field each.

    The defaults are the rules of current Spark (4.0), walking Spark's hash maps in the
    canonical insertion order; :data:`VARIANTS` names real releases, each with the collection
    order of its Scala build (see ``docs/spark-dispatch.md``).
    """

    #: ``spark.locality.wait.legacyResetOnTaskLaunch``: every launch from an offer whose cap is
    #: not ``NO_PREF`` resets the wait timer and moves the level to the launched task's
    #: (semantics 5.5 step 5). Always so before 3.1; since 3.1 (SPARK-18886) off by default and
    #: the scheduler resets instead (semantics 5.6).
    legacy_reset_on_task_launch: bool = False
    #: SPARK-4939 (1.3): a level with no task left is passed without waiting.
    skip_levels_without_tasks: bool = True
    #: SPARK-31837 (3.1): after recomputing the levels, move to a newly added, more local level.
    jump_to_new_best_level: bool = True
    #: SPARK-32653 (3.1): decommissioning executors (and hosts) no longer count as alive.
    decommission_aware_liveness: bool = True
    #: SPARK-39955 (3.4): losing the executor of a task that never reported RUNNING does not
    #: count towards that task's failures.
    launching_loss_not_counted: bool = True
    #: SPARK-26755 (3.0): speculative copies are queued in per-locality lists like regular
    #: tasks; before, one set of speculatable indices was scanned level by level.
    per_locality_speculation: bool = True
    #: How the median successful duration is read (:class:`SpeculationMedian`).
    speculation_median: SpeculationMedian = SpeculationMedian.UPPER_MIDDLE
    #: ``spark.speculation.multiplier`` and ``spark.speculation.quantile`` when unset: 1.5 and
    #: 0.75 up to 3.5, 3.0 and 0.9 since 4.0 (SPARK-47720).
    default_speculation_multiplier: float = 3.0
    default_speculation_quantile: float = 0.9
    #: The order in which Spark's ``HashMap`` / ``HashSet`` s are walked (pending lists per
    #: executor, host and rack, task infos, running tasks, held barrier tasks).
    collection_order: CollectionOrder = CollectionOrder.INSERTION


_SPARK_3_4 = DispatchVariant(
    speculation_median=SpeculationMedian.PERCENTILE_HEAP_3_4,
    default_speculation_multiplier=1.5,
    default_speculation_quantile=0.75,
    collection_order=CollectionOrder.SCALA_2_12,
)
_SPARK_3_1 = replace(
    _SPARK_3_4, launching_loss_not_counted=False, speculation_median=SpeculationMedian.AVERAGE_OF_MIDDLE
)
_SPARK_3_0 = replace(
    _SPARK_3_1, legacy_reset_on_task_launch=True, jump_to_new_best_level=False, decommission_aware_liveness=False
)
_SPARK_2_2 = replace(_SPARK_3_0, per_locality_speculation=False, collection_order=CollectionOrder.INSERTION)
_SPARK_2_0 = replace(_SPARK_2_2, speculation_median=SpeculationMedian.SORTED_ROUNDED_HALF)

#: Named variants for real Spark releases (semantics 8); ``docs/spark-dispatch.md`` has the
#: table. Spark 4.0 walks its hash maps in Scala 2.13's order, the 3.x variants in Scala
#: 2.12's (their default builds; a ``_2.13`` build of 3.2-3.5 is the same variant with
#: ``collection_order=CollectionOrder.SCALA_2_13``); 2.x and 1.x (Scala 2.10 / 2.11 / 2.12
#: builds) are walked in insertion order, which is not their real order.
VARIANTS: Mapping[str, DispatchVariant] = MappingProxyType(
    {
        "spark-4.0": DispatchVariant(collection_order=CollectionOrder.SCALA_2_13),
        "spark-3.5": replace(_SPARK_3_4, speculation_median=SpeculationMedian.UPPER_MIDDLE),
        "spark-3.4": _SPARK_3_4,
        "spark-3.1-3.3": _SPARK_3_1,
        "spark-3.0": _SPARK_3_0,
        "spark-2.2-2.4": _SPARK_2_2,
        "spark-2.0-2.1": _SPARK_2_0,
        "spark-1.2": replace(_SPARK_2_0, skip_levels_without_tasks=False),
    }
)

#: The variant a case or a command uses when none is named.
DEFAULT_VARIANT = "spark-4.0"
