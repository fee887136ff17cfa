"""The two resource calculators over terms (semantics A.13), for both backends.

The Default calculator looks at memory only, so its encodings carry one component (memory);
every figure the policy derives from memory alone is then exact, and the other components
never influence a Default decision (the equivalence test compares memory).

DRF carries memory and vcores. Its comparisons divide by the reference resource in
``double``; the encoding compares the exact quotients by cross-multiplying instead. That is
the same answer whenever two distinct quotients ``a / r`` and ``b / s`` of integers of
magnitude at most ``N`` are further apart than double rounding can blur (relative gap at least
``N^-2``, far above ``2^-52`` for the bounds used), and equal quotients round to the same
double (docs/proofs.md, "Floats").

The queue-ordering ratio ``ideal / guaranteed`` is a ``float`` quotient; :meth:`Calc.ratio`
returns it as an exact fraction. Comparing two such fractions gives the float comparison for
magnitudes up to 32: distinct fractions ``p/q`` with ``p, q <= N^2`` differ relatively by at
least ``N^-4 >= 2^-20``, more than the three roundings (two ``double``, one ``float``) can
close, and equal fractions (whose reduced numerator has at most 10 significant bits) cannot
straddle a ``float`` rounding boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.checks.symbolic.arith import Arith, Cond, Term, Vec, equal, zero


@dataclass(frozen=True)
class Ratio:
    """``num / den`` with ``den > 0``, or the "no guarantee" ratio ``Integer.MAX_VALUE``
    (``big``), which is above every finite ratio of the bound."""

    num: Term
    den: Term
    big: Cond


@dataclass(frozen=True)
class Calc:
    """Calculator operations over terms. ``dominant`` selects DRF (two components) over the
    Default calculator (one component, memory)."""

    A: Arith
    dominant: bool

    @property
    def dims(self) -> int:
        """Components per resource in this encoding."""
        return 2 if self.dominant else 1

    def zero(self) -> Vec:
        """The zero resource."""
        return zero(self.A, self.dims)

    def compare(self, ref: Vec, a: Vec, b: Vec) -> tuple[Cond, Cond]:
        """``(a < b, a > b)`` relative to ``ref`` (semantics A.13)."""
        A = self.A
        if not self.dominant:
            return a[0] < b[0], a[0] > b[0]
        same = equal(A, a, b)
        zero_ref = A.any(r == 0 for r in ref)
        a_bigger = A.any(x > y for x, y in zip(a, b))
        b_bigger = A.any(x < y for x, y in zip(a, b))
        # shares a_i / ref_i over the common denominator ref_0 * ref_1
        a0, a1 = a[0] * ref[1], a[1] * ref[0]
        b0, b1 = b[0] * ref[1], b[1] * ref[0]
        a_dom, a_sub = A.max(a0, a1), A.min(a0, a1)
        b_dom, b_sub = A.max(b0, b1), A.min(b0, b1)
        share_less = A.any((a_dom < b_dom, A.all((a_dom == b_dom, a_sub < b_sub))))
        share_more = A.any((a_dom > b_dom, A.all((a_dom == b_dom, a_sub > b_sub))))
        less = A.ite(zero_ref, A.all((b_bigger, A.neg(a_bigger))), share_less)
        more = A.ite(zero_ref, A.all((a_bigger, A.neg(b_bigger))), share_more)
        return A.all((A.neg(same), less)), A.all((A.neg(same), more))

    def less(self, ref: Vec, a: Vec, b: Vec) -> Cond:
        """``a < b``."""
        return self.compare(ref, a, b)[0]

    def greater(self, ref: Vec, a: Vec, b: Vec) -> Cond:
        """``a > b``."""
        return self.compare(ref, a, b)[1]

    def min(self, ref: Vec, a: Vec, b: Vec) -> Vec:
        """The smaller whole resource, ``a`` on a tie (``Resources.min``)."""
        more = self.greater(ref, a, b)
        return tuple(self.A.ite(more, y, x) for x, y in zip(a, b))

    def max(self, ref: Vec, a: Vec, b: Vec) -> Vec:
        """The larger whole resource, ``a`` on a tie (``Resources.max``)."""
        less = self.less(ref, a, b)
        return tuple(self.A.ite(less, y, x) for x, y in zip(a, b))

    def positive(self, ref: Vec, a: Vec) -> Cond:
        """``a > 0``."""
        return self.greater(ref, a, self.zero())

    def any_major_positive(self, a: Vec) -> Cond:
        """``isAnyMajorResourceAboveZero``: memory > 0 (Default), some component > 0 (DRF)."""
        return self.A.any(x > 0 for x in a)

    def largest_share(self, ref: Vec, a: Vec) -> Term:
        """DRF's largest ``a_i / ref_i`` (starting from 0), scaled by ``ref_0 * ref_1``; for
        the Default calculator, memory itself. Only meaningful for a reference with no zero
        component."""
        A = self.A
        if not self.dominant:
            return a[0]
        return A.max(A.num(0), A.max(a[0] * ref[1], a[1] * ref[0]))

    def ratio(self, ref: Vec, a: Vec, b: Vec) -> Ratio:
        """``divide(ref, a, b)`` as a fraction for the queue ordering, where ``b > 0``
        (semantics A.5.1: ``ideal / guaranteed``)."""
        return Ratio(self.largest_share(ref, a), self.largest_share(ref, b), self.A.any(()))


def ratio_less(A: Arith, x: Ratio, y: Ratio) -> Cond:
    """``x < y`` for two ratios."""
    finite = x.num * y.den < y.num * x.den
    return A.ite(x.big, A.any(()), A.ite(y.big, A.all(()), finite))


def ratio_equal(A: Arith, x: Ratio, y: Ratio) -> Cond:
    """``x == y`` for two ratios."""
    finite = x.num * y.den == y.num * x.den
    return A.ite(x.big, y.big, A.ite(y.big, A.any(()), finite))


def ratio_at_least_one(A: Arith, x: Ratio) -> Cond:
    """``x >= 1``."""
    return A.any((x.big, x.num >= x.den))
