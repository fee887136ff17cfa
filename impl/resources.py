"""Resource vectors: memory (MB), vcores and any further registered resource types.

A :class:`Resource` is an immutable tuple of integers in a fixed type order: index 0 is memory,
1 is vcores, further indices follow :class:`ResourceTypes` (Hadoop's resource-types
registry, e.g. ``res1`` or ``yarn.io/gpu``). Vectors of different lengths combine as if the
shorter one had zeros, so a plain ``<memory, vcores>`` works everywhere.

Arithmetic here is exact integer arithmetic componentwise; everything that depends on a
calculator (comparisons, min/max, division, rounding) is in :mod:`yarnspec.impl.calculator`.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import zip_longest

MEMORY = "memory-mb"
VCORES = "vcores"


@dataclass(frozen=True)
class ResourceTypes:
    """The registered resource types, in index order (memory and vcores always first)."""

    extra: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """All type names, index order."""
        return (MEMORY, VCORES, *self.extra)

    def index(self, name: str) -> int:
        """The index of a type name; ``KeyError`` if it is not registered."""
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(name) from None


@dataclass(frozen=True, slots=True)
class Resource:
    """An immutable resource vector ``values = (memory, vcores, *extra)``."""

    values: tuple[int, ...]

    @staticmethod
    def of(memory: int, vcores: int = 0, *extra: int) -> Resource:
        """A resource from its components in type order."""
        return Resource((int(memory), int(vcores), *(int(e) for e in extra)))

    @property
    def memory(self) -> int:
        """Memory in MB."""
        return self.values[0]

    @property
    def vcores(self) -> int:
        """Virtual cores."""
        return self.values[1] if len(self.values) > 1 else 0

    def __len__(self) -> int:
        return len(self.values)

    def get(self, index: int) -> int:
        """Component ``index`` (0 where the vector is shorter)."""
        return self.values[index] if index < len(self.values) else 0

    def __add__(self, other: Resource) -> Resource:
        return Resource(tuple(a + b for a, b in zip_longest(self.values, other.values, fillvalue=0)))

    def __sub__(self, other: Resource) -> Resource:
        return Resource(tuple(a - b for a, b in zip_longest(self.values, other.values, fillvalue=0)))

    def __neg__(self) -> Resource:
        return Resource(tuple(-a for a in self.values))

    def component_min(self, other: Resource) -> Resource:
        """Componentwise minimum (Hadoop ``Resources.componentwiseMin``)."""
        return Resource(tuple(min(a, b) for a, b in zip_longest(self.values, other.values, fillvalue=0)))

    def component_max(self, other: Resource) -> Resource:
        """Componentwise maximum (Hadoop ``Resources.componentwiseMax``)."""
        return Resource(tuple(max(a, b) for a, b in zip_longest(self.values, other.values, fillvalue=0)))

    def clamp_min_zero(self) -> Resource:
        """Every negative component set to 0."""
        return Resource(tuple(max(a, 0) for a in self.values))

    def multiply_truncate(self, factor: float | Sequence[float]) -> Resource:
        """Each component times ``factor`` (one number or one per component), truncated toward
        zero as Java's ``(long)`` cast does (Hadoop ``Resources.multiply``)."""
        factors = _factors(factor, len(self.values))
        return Resource(tuple(int(a * f) for a, f in zip(self.values, factors)))

    def is_zero(self) -> bool:
        """Every component is 0."""
        return all(a == 0 for a in self.values)

    def fits_all(self, other: Resource) -> bool:
        """Every component of self is <= the same component of ``other``."""
        return all(a <= b for a, b in zip_longest(self.values, other.values, fillvalue=0))

    def __str__(self) -> str:
        inner = ", ".join(str(v) for v in self.values)
        return f"<{inner}>"


ZERO = Resource((0, 0))


def total(resources: Iterable[Resource]) -> Resource:
    """The sum of any number of resources (``ZERO`` for none)."""
    result = ZERO
    for resource in resources:
        result = result + resource
    return result


def _factors(factor: float | Sequence[float], length: int) -> Sequence[float]:
    if isinstance(factor, (int, float)):
        return [float(factor)] * length
    return [factor[i] if i < len(factor) else 0.0 for i in range(length)]


_F32 = struct.Struct("f")


def f32(value: float) -> float:
    """``value`` rounded to IEEE single precision, as a Java ``float`` holds it.

    Hadoop computes shares and queue ratios in ``float``; rounding here keeps the same ties.
    Infinities and NaN pass through.
    """
    if value != value or value in (float("inf"), float("-inf")):
        return value
    try:
        result: float = _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")
    return result


def java_float_div(numerator: float, denominator: float) -> float:
    """``(float) numerator / denominator`` with Java's IEEE rules: x/0 is +-Infinity for x != 0
    and NaN for 0/0, instead of Python's ``ZeroDivisionError``."""
    if denominator == 0:
        if numerator == 0:
            return float("nan")
        return float("inf") if numerator > 0 else float("-inf")
    return f32(f32(numerator) / f32(denominator))
