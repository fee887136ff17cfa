"""Java's float arithmetic in the encodings: exact integer closed forms plus rounding tables.

The policy computes a queue's share ``s = (float) g / T`` in single precision and offers
``roundUp(u * s)`` (half up for the Default calculator, ceiling for DRF); the amounts to
obtain use a ``double`` factor. The encodings never treat these as exact rationals. Instead:

* ``s`` differs from ``g / T`` by less than ``2^-24 * g / T`` (IEEE round to nearest). For
  ``|u| * g < 2^22`` the product ``u * s`` then lies closer to ``u * g / T`` than any integer
  or half-integer that ``u * g / T`` does not equal, so ``roundUp(u * s)`` equals the same
  rounding of the exact quotient, except when ``u * g / T`` sits exactly on the rounding
  boundary: there the result moves by one in the direction in which ``s`` was rounded.
  :func:`share_rounding` tabulates that direction for every ``(g, T)`` in the bound, computed
  with the reference implementation's own :func:`~yarnspec.impl.resources.java_float_div`;
  :func:`offer_closed_form` is the resulting integer formula, and :func:`check_offer_lemma`
  compares it exhaustively with the reference calculator for every input in the bound.
* A ``double`` factor times a small integer is tabulated value by value
  (:func:`factor_table`), again with the reference's own functions.
* The ratio of the queue ordering and the per-level scale are compared or multiplied; see
  :mod:`.calc` and :mod:`.targets`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from yarnspec.checks.symbolic.arith import Arith, Cond, Term
from yarnspec.impl.calculator import DefaultCalculator, DominantCalculator
from yarnspec.impl.resources import Resource, java_ceil_long, java_float_div, java_long


@dataclass(frozen=True)
class Rounding:
    """The pairs ``(num, den)`` for which ``(float) num / den`` is above (``up``) or below
    (``down``) the exact quotient; all other pairs in the bound are exact."""

    up: frozenset[tuple[int, int]]
    down: frozenset[tuple[int, int]]


@cache
def share_rounding(max_num: int, max_den: int) -> Rounding:
    """The rounding direction of ``java_float_div(num, den)`` for ``0 <= num <= max_num`` and
    ``1 <= den <= max_den``."""
    up: set[tuple[int, int]] = set()
    down: set[tuple[int, int]] = set()
    for den in range(1, max_den + 1):
        for num in range(0, max_num + 1):
            value = Fraction(java_float_div(num, den))
            exact = Fraction(num, den)
            if value > exact:
                up.add((num, den))
            elif value < exact:
                down.add((num, den))
    return Rounding(frozenset(up), frozenset(down))


def offer_closed_form(A: Arith, dominant: bool, u: Term, num: Term, den: Term, rounding: Rounding) -> Term:
    """``roundUp(u * ((float) num / den))`` as integers; 0 when ``den`` is 0 (a share of 0).

    Default calculator (half up; only used with ``u > 0``): ``floor((2 u num + den) / 2 den)``,
    one less on an exact tie when the share was rounded down. DRF (ceiling, any sign of
    ``u``): ``ceil(u num / den)``, one more on an exact quotient when the share's rounding
    pushed the product up (share rounded up and ``u > 0``, or down and ``u < 0``).
    """
    safe_den = A.ite(den == 0, A.num(1), den)
    if dominant:
        product = u * num
        ceiling = A.num(0) - A.floor_div(A.num(0) - product, safe_den)
        exact = A.floor_mod(product, safe_den) == 0
        pushed_up = A.any(
            (
                A.all((product > 0, A.member(rounding.up, num, den))),
                A.all((product < 0, A.member(rounding.down, num, den))),
            )
        )
        value = ceiling + A.ite(A.all((exact, pushed_up)), A.num(1), A.num(0))
    else:
        twice = u * num * 2 + safe_den
        half_up = A.floor_div(twice, safe_den * 2)
        tie = A.floor_mod(twice, safe_den * 2) == 0
        value = half_up - A.ite(A.all((tie, A.member(rounding.down, num, den))), A.num(1), A.num(0))
    return A.ite(den == 0, A.num(0), value)


def offer_facts(A: Arith, dominant: bool, u: Term, num: Term, den: Term) -> Callable[[Term], Cond]:
    """What an offer is known to be without its exact rounding (the offer lemma, checked by
    :func:`check_offer_facts`): 0 for a share of 0; for a positive amount ``u`` and a positive
    share (``0 < num <= den``) between 1 (DRF: the ceiling of a positive product) or 0
    (Default) and ``u``; for ``u <= 0`` (DRF only) between ``u`` and 0."""
    low_positive = 1 if dominant else 0

    def facts(value: Term) -> Cond:
        no_share = A.any((den == 0, num == 0))
        positive = A.all((A.neg(no_share), u > 0))
        return A.all(
            (
                A.implies(no_share, value == 0),
                A.implies(positive, A.all((value >= low_positive, value <= u))),
                A.implies(A.all((A.neg(no_share), u <= 0)), A.all((value >= u, value <= 0))),
            )
        )

    return facts


def check_offer_facts(dominant: bool, max_u: int, max_den: int) -> list[tuple[int, int, int]]:
    """Every ``(u, num, den)`` with ``0 <= num <= den <= max_den`` where the reference's offer
    breaks :func:`offer_facts` (empty when the lemma holds); ``u`` as in
    :func:`check_offer_lemma`."""
    from yarnspec.checks.symbolic.arith import Concrete

    A = Concrete()
    low = -max_u if dominant else 0
    return [
        (u, num, den)
        for den in range(0, max_den + 1)
        for num in range(0, max_den + 1)
        if num <= den or den == 0
        for u in range(low, max_u + 1)
        if not offer_facts(A, dominant, u, num, den)(reference_offer(dominant, u, num, den))
    ]


def reference_offer(dominant: bool, u: int, num: int, den: int) -> int:
    """What the reference calculator offers: ``multiply_round_up(<u>, java_float_div(num, den))``
    (memory for Default, the one component for DRF)."""
    share = java_float_div(num, den) if den != 0 else 0.0
    calc = DominantCalculator() if dominant else DefaultCalculator()
    return calc.multiply_round_up(Resource.of(u, u), [share, share]).values[0]


def check_offer_lemma(dominant: bool, max_u: int, max_num: int, max_den: int) -> list[tuple[int, int, int]]:
    """Every ``(u, num, den)`` in the bound where :func:`offer_closed_form` differs from the
    reference calculator (empty when the lemma holds). ``u`` ranges over ``0..max_u`` for the
    Default calculator (its offers are only made from a positive amount) and over
    ``-max_u..max_u`` for DRF."""
    from yarnspec.checks.symbolic.arith import Concrete

    A = Concrete()
    rounding = share_rounding(max_num, max_den)
    low = -max_u if dominant else 0
    failures = []
    for den in range(0, max_den + 1):
        for num in range(0, max_num + 1):
            for u in range(low, max_u + 1):
                if offer_closed_form(A, dominant, u, num, den, rounding) != reference_offer(dominant, u, num, den):
                    failures.append((u, num, den))
    return failures


def factor_table(low: int, high: int, rule: Callable[[int], int]) -> dict[int, int]:
    """``{x: rule(x)}`` for every integer ``x`` in ``low..high``."""
    return {x: rule(x) for x in range(low, high + 1)}


def natural_termination_rule(dominant: bool, factor: float) -> Callable[[int], int]:
    """One component of ``multiply_round_up(amount, factor)`` exactly as the reference
    computes it: half up (``(long)(x * f + 0.5)``, Default) or ``(long) ceil(x * f)`` (DRF),
    the product in ``double``."""
    if dominant:
        return lambda x: java_ceil_long(x * factor)
    return lambda x: java_long(x * factor + 0.5)


def truncate_rule(factor: float) -> Callable[[int], int]:
    """One component of ``multiply_truncate(factor)``: ``(long)(x * f)`` in ``double``."""
    return lambda x: java_long(x * factor)


def quotient_times(A: Arith, x: Term, num: Term, den: Term, rounds_toward_zero: Cond) -> Term:
    """``(long)(x * s)`` where ``s`` is a float within ``2^-23`` relative of ``num / den``
    (``den > 0``, ``num >= 0``): the exact truncated quotient, one unit nearer to zero when
    ``x * num / den`` is a non-zero integer and ``s`` was rounded toward zero
    (``rounds_toward_zero``)."""
    safe_den = A.ite(den == 0, A.num(1), den)
    magnitude = A.ite(x < 0, A.num(0) - x, x) * num
    truncated = A.floor_div(magnitude, safe_den)
    exact = A.all((A.floor_mod(magnitude, safe_den) == 0, magnitude != 0))
    truncated = truncated - A.ite(A.all((exact, rounds_toward_zero)), A.num(1), A.num(0))
    return A.ite(x < 0, A.num(0) - truncated, truncated)
