"""The preemption amounts of one level: targets (semantics A.6) and amounts to obtain (A.7).

``to_be_preempted``: over the level, ``need = sum(used - ideal)`` over the children above
their ideal; if it exceeds the budget every target is scaled by ``divide(budget, need)``;
a child gives ``(used - killable - keep) x scale`` (truncated) where
``keep = max(min(used + pending, guaranteed), ideal)``.

``to_obtain``: 0 inside the dead zone (``used <= guaranteed x (1 + max_ignored_over_capacity)``,
the product truncated) and for a queue whose preemption is disabled; otherwise the target,
times the natural-termination factor rounded up (not in reserved mode).

The scale is a ``float`` quotient ``s`` of two resources. The encoding multiplies by the exact
quotient ``e`` and lets the solver choose, where ``x * e`` is a whole number, whether ``s``
was rounded below ``e`` (then ``(long)(x * s)`` is one less): a sound over-approximation of
the float, which the concrete evaluator resolves exactly. The ``double`` products with the
configured factors are tabulated value by value.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from yarnspec.checks.symbolic.arith import Arith, Cond, Term, Vec, add, choose, sub, total
from yarnspec.checks.symbolic.calc import Calc
from yarnspec.checks.symbolic.floats import factor_table, natural_termination_rule, quotient_times, truncate_rule
from yarnspec.checks.symbolic.model import Level, Mode, PolicySettings
from yarnspec.impl.calculator import DominantCalculator
from yarnspec.impl.resources import Resource, java_float_div


class Targets:
    """Targets and amounts to obtain for the children of ``level``, given their ideals.

    ``magnitude`` bounds the absolute value of any target component (the factor tables cover
    ``-magnitude..magnitude``); ``guarantee_limit`` bounds guarantee components (the dead-zone
    table).
    """

    def __init__(
        self, calc: Calc, level: Level, mode: Mode, settings: PolicySettings, magnitude: int, guarantee_limit: int
    ) -> None:
        self.calc = calc
        self.A: Arith = calc.A
        self.level = level
        self.mode = mode
        self.rounded = factor_table(
            -magnitude, magnitude, natural_termination_rule(calc.dominant, settings.natural_termination_factor)
        )
        self.threshold = factor_table(0, guarantee_limit, truncate_rule(1.0 + settings.max_ignored_over_capacity))

    def need(self, ideals: Sequence[Vec]) -> Vec:
        """``sum(used - ideal)`` over the children whose use compares above their ideal."""
        A, calc = self.A, self.calc
        ref = self.level.resource
        parts = (
            choose(A, calc.greater(ref, c.used, i), sub(c.used, i), calc.zero())
            for c, i in zip(self.level.children, ideals)
        )
        return total(A, parts, calc.dims)

    def keep(self, index: int, ideal: Vec) -> Vec:
        """``max(min(used + pending, guaranteed), ideal)``: what the child keeps at least."""
        calc = self.calc
        ref = self.level.resource
        child = self.level.children[index]
        return calc.max(ref, calc.min(ref, add(child.used, child.pending), child.guaranteed), ideal)

    def to_be_preempted(self, ideals: Sequence[Vec]) -> tuple[Vec, ...]:
        """Every child's target (A.6), scaled when the level's need exceeds the budget."""
        A, calc = self.A, self.calc
        ref = self.level.resource
        budget = self.level.budget
        need = self.need(ideals)
        over = calc.greater(ref, need, budget)
        num, den = calc.largest_share(ref, budget), calc.largest_share(ref, need)
        toward_zero = A.unknown("scale_rounded_down", lambda: self._scale_below(num, den, need))
        targets = []
        for index, (child, ideal) in enumerate(zip(self.level.children, ideals)):
            base = sub(child.used, child.killable)
            keep = self.keep(index, ideal)
            gap = sub(base, keep)
            scaled = tuple(A.ite(over, quotient_times(A, x, num, den, toward_zero), x) for x in gap)
            targets.append(choose(A, calc.greater(ref, base, keep), scaled, calc.zero()))
        return tuple(targets)

    def _scale_below(self, num: Term, den: Term, need: Vec) -> bool:
        """Concrete only: whether the reference's float scale lies below ``num / den``."""
        if den <= 0:
            return False
        ref = self.level.resource
        budget = self.level.budget
        if self.calc.dominant:
            scale = DominantCalculator().divide(_resource(ref), _resource(budget), _resource(need))
        else:
            scale = java_float_div(budget[0], need[0])
        return Fraction(scale) < Fraction(int(num), int(den))

    def to_obtain(self, targets: Sequence[Vec]) -> tuple[Vec, ...]:
        """Every child's amount to obtain (A.7; comparisons relative to the cluster)."""
        A, calc = self.A, self.calc
        ref = self.level.resource
        amounts = []
        for child, target in zip(self.level.children, targets):
            threshold = tuple(A.lookup(self.threshold, g) for g in child.guaranteed)
            outside = calc.greater(ref, child.used, threshold)
            amount = target
            if not self.mode.reserved:
                rounded = tuple(A.lookup(self.rounded, x) for x in target)
                amount = choose(A, calc.greater(ref, target, calc.zero()), rounded, target)
            keep_all: Cond = A.any((child.disabled, A.neg(outside)))
            amounts.append(choose(A, keep_all, calc.zero(), amount))
        return tuple(amounts)


def _resource(values: Vec) -> Resource:
    """A concrete two-component vector as a reference :class:`Resource`."""
    return Resource.of(int(values[0]), int(values[1]))
