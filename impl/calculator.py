"""Hadoop's two resource calculators, with the exact semantics the preemption policy relies on.

``DefaultResourceCalculator`` looks at memory only; ``DominantResourceCalculator`` (DRF)
compares dominant shares of a reference ("cluster") resource. The operations and their
rounding are those of semantics A.13; the policy never compares resources any other way.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal

from .resources import Resource, f32, java_float_div

CalculatorName = Literal["default", "dominant"]

#: Hadoop class names accepted for ``yarn.scheduler.capacity.resource-calculator``.
CALCULATOR_CLASSES: dict[str, CalculatorName] = {
    "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator": "default",
    "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator": "dominant",
}


class ResourceCalculator(ABC):
    """The calculator interface: comparisons relative to a reference resource and rounding."""

    name: CalculatorName

    @abstractmethod
    def compare(self, ref: Resource, a: Resource, b: Resource) -> int:
        """-1, 0 or 1 as ``a`` is smaller than, equal to or larger than ``b`` relative to ``ref``."""

    @abstractmethod
    def divide(self, ref: Resource, a: Resource, b: Resource) -> float:
        """``a / b`` as a Java float (used for the queue ratio ``ideal / guaranteed``)."""

    @abstractmethod
    def ratio(self, a: Resource, b: Resource) -> float:
        """``a / b`` without a reference (used for the reserved selector's node cost)."""

    @abstractmethod
    def fits_in(self, a: Resource, b: Resource) -> bool:
        """Whether ``a`` fits in ``b``."""

    @abstractmethod
    def any_major_positive(self, r: Resource) -> bool:
        """Hadoop ``isAnyMajorResourceAboveZero``."""

    @abstractmethod
    def any_major_nonpositive(self, r: Resource) -> bool:
        """Hadoop ``isAnyMajorResourceZeroOrNegative`` (the conservative-DRF rule)."""

    @abstractmethod
    def multiply_round_up(self, r: Resource, factor: float | Sequence[float]) -> Resource:
        """``roundUp(r x factor)``: the offer of the fixpoint and the natural-termination amount."""

    def less(self, ref: Resource, a: Resource, b: Resource) -> bool:
        """``a < b``."""
        return self.compare(ref, a, b) < 0

    def less_equal(self, ref: Resource, a: Resource, b: Resource) -> bool:
        """``a <= b``."""
        return self.compare(ref, a, b) <= 0

    def greater(self, ref: Resource, a: Resource, b: Resource) -> bool:
        """``a > b``."""
        return self.compare(ref, a, b) > 0

    def greater_equal(self, ref: Resource, a: Resource, b: Resource) -> bool:
        """``a >= b``."""
        return self.compare(ref, a, b) >= 0

    def min(self, ref: Resource, a: Resource, b: Resource) -> Resource:
        """The smaller of the two whole resources (``a`` on a tie, as Hadoop ``Resources.min``)."""
        return a if self.compare(ref, a, b) <= 0 else b

    def max(self, ref: Resource, a: Resource, b: Resource) -> Resource:
        """The larger of the two whole resources (``a`` on a tie, as Hadoop ``Resources.max``)."""
        return a if self.compare(ref, a, b) >= 0 else b


class DefaultCalculator(ResourceCalculator):
    """Memory only (Hadoop ``DefaultResourceCalculator``)."""

    name: CalculatorName = "default"

    def compare(self, ref: Resource, a: Resource, b: Resource) -> int:
        return (a.memory > b.memory) - (a.memory < b.memory)

    def divide(self, ref: Resource, a: Resource, b: Resource) -> float:
        return java_float_div(a.memory, b.memory)

    def ratio(self, a: Resource, b: Resource) -> float:
        return java_float_div(a.memory, b.memory)

    def fits_in(self, a: Resource, b: Resource) -> bool:
        return a.memory <= b.memory

    def any_major_positive(self, r: Resource) -> bool:
        return r.memory > 0

    def any_major_nonpositive(self, r: Resource) -> bool:
        return r.memory <= 0

    def multiply_round_up(self, r: Resource, factor: float | Sequence[float]) -> Resource:
        """Memory ``(long)(memory x f + 0.5)``; vcores become 1 when memory > 0, else 0
        (semantics A.13; vcores never matter to this calculator)."""
        f = factor if isinstance(factor, (int, float)) else factor[0]
        memory = math.floor(r.memory * f + 0.5)
        return Resource.of(memory, 1 if memory > 0 else 0)


class DominantCalculator(ResourceCalculator):
    """Dominant resource fairness (Hadoop ``DominantResourceCalculator``)."""

    name: CalculatorName = "dominant"

    def compare(self, ref: Resource, a: Resource, b: Resource) -> int:
        """Semantics A.13: equal resources compare 0; with a zero component in ``ref``, the
        componentwise dominance rule; otherwise shares of ``ref`` compared largest first (with
        two types: the larger shares, then the smaller)."""
        if a.values == b.values or _padded(a, len(b)) == _padded(b, len(a)):
            return 0
        width = max(len(ref), len(a), len(b))
        if any(ref.get(i) == 0 for i in range(width)):
            a_bigger = any(a.get(i) > b.get(i) for i in range(width))
            b_bigger = any(a.get(i) < b.get(i) for i in range(width))
            if a_bigger and not b_bigger:
                return 1
            if b_bigger and not a_bigger:
                return -1
            return 0
        a_shares = sorted((a.get(i) / ref.get(i) for i in range(width)), reverse=True)
        b_shares = sorted((b.get(i) / ref.get(i) for i in range(width)), reverse=True)
        for x, y in zip(a_shares, b_shares):
            if x != y:
                return 1 if x > y else -1
        return 0

    def _dominant_share(self, ref: Resource, r: Resource) -> float:
        width = max(len(ref), len(r))
        return max(java_float_div(r.get(i), ref.get(i)) for i in range(width))

    def divide(self, ref: Resource, a: Resource, b: Resource) -> float:
        """Largest share of ``a`` over largest share of ``b`` (float)."""
        return java_float_div(self._dominant_share(ref, a), self._dominant_share(ref, b))

    def ratio(self, a: Resource, b: Resource) -> float:
        """The largest per-type ratio ``a_i / b_i`` (a type with ``b_i = 0`` counts as 0)."""
        width = max(len(a), len(b))
        best = 0.0
        for i in range(width):
            denominator = b.get(i)
            share = f32(a.get(i) / denominator) if denominator else 0.0
            best = max(best, share)
        return best

    def fits_in(self, a: Resource, b: Resource) -> bool:
        return a.fits_all(b)

    def any_major_positive(self, r: Resource) -> bool:
        return any(v > 0 for v in r.values)

    def any_major_nonpositive(self, r: Resource) -> bool:
        return any(v <= 0 for v in r.values)

    def multiply_round_up(self, r: Resource, factor: float | Sequence[float]) -> Resource:
        """Per type ``ceil(r_i x f_i)``."""
        factors = [float(factor)] * len(r) if isinstance(factor, (int, float)) else factor
        return Resource(tuple(math.ceil(v * (factors[i] if i < len(factors) else 0.0)) for i, v in enumerate(r.values)))


def _padded(r: Resource, width: int) -> tuple[int, ...]:
    return r.values + (0,) * max(0, width - len(r.values))


def calculator(name: CalculatorName) -> ResourceCalculator:
    """The calculator for ``"default"`` or ``"dominant"``."""
    return DominantCalculator() if name == "dominant" else DefaultCalculator()
