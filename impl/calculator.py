"""Hadoop's two resource calculators, with the exact semantics the preemption policy relies on.

``DefaultResourceCalculator`` looks at memory only; ``DominantResourceCalculator`` (DRF)
compares dominant shares of a reference ("cluster") resource. The operations and their
rounding are those of semantics A.13; the policy never compares resources any other way.

Java number rules are kept where they change results: shares in ``double`` or ``float`` as
Hadoop computes them, IEEE division by zero (Infinity / NaN instead of an exception), and the
saturating ``(long)`` cast.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from operator import gt, lt, truediv
from types import MappingProxyType
from typing import Literal

from yarnspec.impl.resources import Resource, f32, java_ceil_long, java_double_div, java_float_div, java_long

CalculatorName = Literal["default", "dominant"]

#: Hadoop class names accepted for ``yarn.scheduler.capacity.resource-calculator``.
CALCULATOR_CLASSES: Mapping[str, CalculatorName] = MappingProxyType(
    {
        "org.apache.hadoop.yarn.util.resource.DefaultResourceCalculator": "default",
        "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator": "dominant",
    }
)


class ResourceCalculator(ABC):
    """The calculator interface: comparisons relative to a reference resource and rounding."""

    name: CalculatorName

    @abstractmethod
    def compare(self, ref: Resource, a: Resource, b: Resource) -> int:
        """-1, 0 or 1 as ``a`` is smaller than, equal to or larger than ``b`` relative to ``ref``."""

    @abstractmethod
    def divide(self, ref: Resource, a: Resource, b: Resource) -> float:
        """``a / b`` as a Java float (used for the queue ratio ``ideal / guaranteed`` and the
        per-level scaling factor)."""

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
    def divide_and_ceil(self, r: Resource, by: int) -> Resource:
        """``r`` split into ``by`` parts, rounded up (``divideAndCeil(Resource, int)``)."""

    @abstractmethod
    def any_major_nonpositive(self, r: Resource) -> bool:
        """Hadoop ``isAnyMajorResourceZeroOrNegative`` (the conservative-DRF rule)."""

    @abstractmethod
    def multiply_round_up(self, r: Resource, factor: float | Sequence[float]) -> Resource:
        """``roundUp(r x factor)``: the offer of the fixpoint and the natural-termination amount."""

    def contributes(self, ref: Resource, amount: Resource, size: Resource) -> bool:
        """Whether taking ``size`` off ``amount`` lowers its positive part:
        ``componentwiseMax(amount - size, 0) < componentwiseMax(amount, 0)`` (the FIFO
        selector's "positive contribution" test, semantics A.8)."""
        return self.less(ref, (amount - size).clamp_min_zero(), amount.clamp_min_zero())

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

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class DefaultCalculator(ResourceCalculator):
    """Memory only (Hadoop ``DefaultResourceCalculator``)."""

    name: CalculatorName = "default"

    def compare(self, ref: Resource, a: Resource, b: Resource) -> int:
        """By memory alone; ``ref`` is ignored."""
        x, y = a.values[0], b.values[0]
        return (x > y) - (x < y)

    def divide(self, ref: Resource, a: Resource, b: Resource) -> float:
        """``(float) a.memory / b.memory`` (Infinity or NaN when ``b.memory`` is 0)."""
        return java_float_div(a.memory, b.memory)

    def ratio(self, a: Resource, b: Resource) -> float:
        """``(float) a.memory / b.memory``."""
        return java_float_div(a.memory, b.memory)

    def contributes(self, ref: Resource, amount: Resource, size: Resource) -> bool:
        """``max(amount.memory - size.memory, 0) < max(amount.memory, 0)``."""
        left = amount.values[0]
        return max(left - size.values[0], 0) < max(left, 0)

    def fits_in(self, a: Resource, b: Resource) -> bool:
        """``a.memory <= b.memory``."""
        return a.memory <= b.memory

    def any_major_positive(self, r: Resource) -> bool:
        """Memory > 0."""
        return r.memory > 0

    def any_major_nonpositive(self, r: Resource) -> bool:
        """Memory <= 0."""
        return r.memory <= 0

    def multiply_round_up(self, r: Resource, factor: float | Sequence[float]) -> Resource:
        """Memory ``(long)(memory x f + 0.5)`` (half up; ``f`` is the memory factor); vcores
        become 1 when that memory is > 0, else 0; any further type 0 (semantics A.13, Hadoop
        ``createResource(memory)``). The vector keeps the width of ``r``."""
        f = factor if isinstance(factor, (int, float)) else factor[0]
        memory = java_long(r.memory * f + 0.5)
        return Resource((memory, 1 if memory > 0 else 0) + (0,) * max(0, len(r) - 2))

    def divide_and_ceil(self, r: Resource, by: int) -> Resource:
        """Memory ``divideAndCeil(memory, by)``; vcores 1 when that is > 0, else 0
        (``DefaultResourceCalculator.divideAndCeil(Resource, int)``)."""
        memory = _long_divide_and_ceil(r.memory, by)
        return Resource((memory, 1 if memory > 0 else 0) + (0,) * max(0, len(r) - 2))


class DominantCalculator(ResourceCalculator):
    """Dominant resource fairness (Hadoop ``DominantResourceCalculator``)."""

    name: CalculatorName = "dominant"

    def compare(self, ref: Resource, a: Resource, b: Resource) -> int:
        """Semantics A.13: equal resources compare 0; with a zero component in ``ref``, the
        componentwise dominance rule; otherwise shares of ``ref`` (in double) compared largest
        first (with two types: the larger shares, then the smaller)."""
        av, bv, rv = a.values, b.values, ref.values
        width = len(rv)
        if len(av) != width or len(bv) != width:
            width = max(width, len(av), len(bv))
            av = av + (0,) * (width - len(av))
            bv = bv + (0,) * (width - len(bv))
            rv = rv + (0,) * (width - len(rv))
        if av == bv:
            return 0
        if 0 in rv:
            a_bigger = any(map(gt, av, bv))
            b_bigger = any(map(lt, av, bv))
            if a_bigger == b_bigger:
                return 0
            return 1 if a_bigger else -1
        if width == 2:
            a0, a1, b0, b1 = av[0] / rv[0], av[1] / rv[1], bv[0] / rv[0], bv[1] / rv[1]
            a_dom, a_sub = (a1, a0) if a1 > a0 else (a0, a1)
            b_dom, b_sub = (b1, b0) if b1 > b0 else (b0, b1)
            if a_dom != b_dom:
                return 1 if a_dom > b_dom else -1
            if a_sub != b_sub:
                return 1 if a_sub > b_sub else -1
            return 0
        a_shares = sorted(map(truediv, av, rv), reverse=True)
        b_shares = sorted(map(truediv, bv, rv), reverse=True)
        for x, y in zip(a_shares, b_shares):
            if x != y:
                return 1 if x > y else -1
        return 0

    @staticmethod
    def _largest_share(ref: Resource, r: Resource) -> float:
        """The largest ``r_i / ref_i`` in double, starting from 0 and skipping NaN (0/0), as
        Hadoop's ``calculateShares`` keeps its running maximum."""
        width = max(len(ref), len(r))
        largest = 0.0
        for i in range(width):
            share = java_double_div(r.get(i), ref.get(i))
            if share > largest:
                largest = share
        return largest

    def divide(self, ref: Resource, a: Resource, b: Resource) -> float:
        """``(float)(largest share of a / largest share of b)``."""
        return f32(java_double_div(self._largest_share(ref, a), self._largest_share(ref, b)))

    def ratio(self, a: Resource, b: Resource) -> float:
        """The largest per-type ``(float) a_i / b_i``; a type with ``b_i = 0`` gives Infinity
        (or NaN for 0/0, which then wins as Java's ``ratio > tmp ? ratio : tmp`` does)."""
        width = max(len(a), len(b))
        result = 0.0
        for i in range(width):
            tmp = java_float_div(a.get(i), b.get(i))
            result = result if result > tmp else tmp
        return result

    def fits_in(self, a: Resource, b: Resource) -> bool:
        """Every ``a_i <= b_i``."""
        return a.fits_all(b)

    def any_major_positive(self, r: Resource) -> bool:
        """Some component > 0."""
        return max(r.values) > 0

    def any_major_nonpositive(self, r: Resource) -> bool:
        """Some component <= 0."""
        return min(r.values) <= 0

    def multiply_round_up(self, r: Resource, factor: float | Sequence[float]) -> Resource:
        """Per type ``(long) ceil(r_i x f_i)`` (a missing factor counts as 0)."""
        if isinstance(factor, (int, float)):
            return Resource(tuple(java_ceil_long(v * factor) for v in r.values))
        return Resource(
            tuple(java_ceil_long(v * (factor[i] if i < len(factor) else 0.0)) for i, v in enumerate(r.values))
        )

    def divide_and_ceil(self, r: Resource, by: int) -> Resource:
        """Per type ``divideAndCeil(r_i, by)`` (``DominantResourceCalculator``)."""
        return Resource(tuple(_long_divide_and_ceil(v, by) for v in r.values))


def _long_divide_and_ceil(a: int, b: int) -> int:
    """Hadoop ``ResourceCalculator.divideAndCeil(long, long)``: ``(a + b - 1) / b`` in Java
    long arithmetic (truncating), 0 when ``b`` is 0."""
    if b == 0:
        return 0
    q = abs(a + b - 1) // abs(b)
    return q if (a + b - 1 >= 0) == (b > 0) else -q


def calculator(name: CalculatorName) -> ResourceCalculator:
    """The calculator for ``"default"`` or ``"dominant"``."""
    return DominantCalculator() if name == "dominant" else DefaultCalculator()
