"""Resource vectors: memory (MB), vcores and any further registered resource types.

A :class:`Resource` is an immutable tuple of integers in a fixed type order: index 0 is memory,
1 is vcores, further indices follow :class:`ResourceTypes` (Hadoop's resource-types
registry, e.g. ``res1`` or ``yarn.io/gpu``). Vectors of different lengths combine as if the
shorter one had zeros, so a plain ``<memory, vcores>`` works everywhere.

Arithmetic here is exact integer arithmetic componentwise; everything that depends on a
calculator (comparisons, min/max, division, rounding) is in :mod:`yarnspec.impl.calculator`.
The helpers at the end reproduce Java's number rules where Hadoop relies on them: single
precision (``float``) results, IEEE division by zero, and the saturating ``(long)`` cast.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from operator import add, itemgetter, le, sub

MEMORY = "memory-mb"
VCORES = "vcores"

#: Java's ``Long.MAX_VALUE`` / ``Long.MIN_VALUE``: where a ``(long)`` cast saturates.
LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)


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


class Resource(tuple[int, ...]):
    """An immutable resource vector ``(memory, vcores, *extra)``.

    A tuple of its components, so that hashing and equality (the explorer's most frequent
    operations on states) run in C rather than as generated Python methods. Arithmetic is
    componentwise (``+`` adds vectors; it does not concatenate). ``Resource((1, 2))`` builds
    one from its components; :attr:`values` is the plain tuple of them.
    """

    __slots__ = ()

    @staticmethod
    def of(memory: int, vcores: int = 0, *extra: int) -> Resource:
        """A resource from its components in type order."""
        return Resource((int(memory), int(vcores), *(int(e) for e in extra)))

    #: The components in type order, as a plain tuple (a slice: read in C, no Python call).
    values: property = property(itemgetter(slice(None)), doc="The components in type order, as a plain tuple.")

    @property
    def memory(self) -> int:
        """Memory in MB."""
        return self[0]

    @property
    def vcores(self) -> int:
        """Virtual cores."""
        return self[1] if len(self) > 1 else 0

    def get(self, index: int) -> int:
        """Component ``index`` (0 where the vector is shorter)."""
        return self[index] if index < len(self) else 0

    # Addition, subtraction and negation are the model checker's most frequent operations: plain
    # <memory, vcores> pairs take a direct path.

    def __add__(self, other: Resource) -> Resource:  # type: ignore[override]
        if len(self) == 2 == len(other):
            return Resource((self[0] + other[0], self[1] + other[1]))
        if len(self) == len(other):
            return Resource(tuple(map(add, self, other)))
        return Resource(tuple(x + y for x, y in zip_longest(self, other, fillvalue=0)))

    def __sub__(self, other: Resource) -> Resource:
        if len(self) == 2 == len(other):
            return Resource((self[0] - other[0], self[1] - other[1]))
        if len(self) == len(other):
            return Resource(tuple(map(sub, self, other)))
        return Resource(tuple(x - y for x, y in zip_longest(self, other, fillvalue=0)))

    def __neg__(self) -> Resource:
        if len(self) == 2:
            return Resource((-self[0], -self[1]))
        return Resource(tuple(-x for x in self))

    def __mul__(self, other: object) -> Resource:
        raise TypeError("a Resource is not repeated: use multiply_truncate to scale it")

    __rmul__ = __mul__

    def __repr__(self) -> str:
        return f"Resource(values={tuple(self)!r})"

    def component_min(self, other: Resource) -> Resource:
        """Componentwise minimum (Hadoop ``Resources.componentwiseMin``)."""
        return Resource(tuple(min(a, b) for a, b in zip_longest(self, other, fillvalue=0)))

    def component_max(self, other: Resource) -> Resource:
        """Componentwise maximum (Hadoop ``Resources.componentwiseMax``)."""
        return Resource(tuple(max(a, b) for a, b in zip_longest(self, other, fillvalue=0)))

    def clamp_min_zero(self) -> Resource:
        """Every negative component set to 0 (``componentwiseMax(r, none)``)."""
        if all(a >= 0 for a in self):
            return self
        return Resource(tuple(max(a, 0) for a in self))

    def multiply_truncate(self, factor: float | Sequence[float]) -> Resource:
        """Each component times ``factor`` (one number or one per component), truncated toward
        zero and saturated as Java's ``(long)`` cast does (Hadoop ``Resources.multiply``)."""
        factors = _factors(factor, len(self))
        return Resource(tuple(java_long(a * f) for a, f in zip(self, factors)))

    def padded(self, width: int) -> Resource:
        """The same vector with zeros appended up to ``width`` components (never shortened).

        Hadoop resources always carry every registered type; padding makes a calculator see a
        missing type as the 0 it stands for (for DRF a zero in the reference resource changes
        the comparison rule, semantics A.13)."""
        missing = width - len(self)
        return self if missing <= 0 else Resource((*self, *(0,) * missing))

    def with_zeros_as(self, value: int) -> Resource:
        """Every component that is exactly 0 replaced by ``value`` (the FIFO selector's
        ``0 -> -1`` step before trying a container, semantics A.8)."""
        if 0 not in self:
            return self
        return Resource(tuple(value if a == 0 else a for a in self))

    def is_zero(self) -> bool:
        """Every component is 0."""
        return all(a == 0 for a in self)

    def fits_all(self, other: Resource) -> bool:
        """Every component of self is <= the same component of ``other``."""
        a, b = self, other
        if len(a) == len(b):
            return all(map(le, a, b))
        return all(x <= y for x, y in zip_longest(a, b, fillvalue=0))

    def __str__(self) -> str:
        inner = ", ".join(str(v) for v in self)
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
_F32_PACK = _F32.pack
_F32_UNPACK = _F32.unpack


def f32(value: float) -> float:
    """``value`` rounded to IEEE single precision, as a Java ``float`` holds it.

    Hadoop computes shares and queue ratios in ``float``; rounding here keeps the same ties.
    Infinities and NaN pass through; finite values beyond the float range become infinities.
    """
    try:
        result: float = _F32_UNPACK(_F32_PACK(value))[0]
    except OverflowError:
        return math.inf if value > 0 else -math.inf
    return result


def java_double_div(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` in Java ``double``: x/0 is +-Infinity for x != 0 and NaN for
    0/0 (or NaN operands), instead of Python's ``ZeroDivisionError``."""
    if denominator == 0:
        if numerator == 0 or numerator != numerator:
            return math.nan
        negative = (numerator < 0) != (math.copysign(1.0, denominator) < 0)
        return -math.inf if negative else math.inf
    return numerator / denominator


def java_float_div(numerator: float, denominator: float) -> float:
    """``(float) numerator / denominator`` with Java's IEEE rules (single precision)."""
    return f32(java_double_div(f32(numerator), f32(denominator)))


def java_long(value: float) -> int:
    """Java's ``(long) value``: truncation toward zero, NaN becomes 0, out-of-range values
    saturate at ``Long.MIN_VALUE`` / ``Long.MAX_VALUE``."""
    if value != value:
        return 0
    if value >= LONG_MAX:
        return LONG_MAX
    if value <= LONG_MIN:
        return LONG_MIN
    return int(value)


def java_ceil_long(value: float) -> int:
    """Java's ``(long) Math.ceil(value)``."""
    if value != value or value in (math.inf, -math.inf):
        return java_long(value)
    return java_long(float(math.ceil(value)))


def double_compare_key(value: float) -> tuple[int, float]:
    """A sort key that orders doubles as Java's ``Double.compare`` does: NaN after everything
    (including +Infinity) and equal to itself."""
    return (1, 0.0) if value != value else (0, value)
