"""The inputs a proof quantifies over: bounds, variants, the z3 variables and their constraints.

A :class:`Domain` fixes the calculator, the bound (number of children ``K`` and the largest
figure ``S``), the selector mode and settings, and the *variant*:

* ``hadoop-3``: guarantees are whole resources as a configuration or a harness states them.
  Under DRF a guarantee is either 0 in every type or positive in every type.
* ``tiny-queue``: guarantees come from capacities, as Hadoop before 3.4.0 derives them for a
  percentage-configured queue (:func:`yarnspec.impl.preemption.temp_queue.tiny_queue_guarantee`,
  YARN-11073): each child has a memory guarantee ``m`` (the capacities summing to at most the
  whole), and the policy reads ``partition x ((float) m / partition.memory)``, truncated per
  type, so a small queue can hold 0 vcores of guarantee.

Within a domain every input ranges over (``S`` = the size): the root resource, each type in
``1..S``; per child, guarantee in ``0..S`` with the children's guarantees summing to at most
the root's per type, maximum between guarantee and the root resource, used, pending and
reserved in ``0..S``, killable in ``0..used``, priority in ``0..2``, preemption disabled or not;
the budget in ``0..root resource``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

import z3  # type: ignore[import-untyped]

from yarnspec.checks.symbolic.arith import Arith, Concrete, Symbolic, SymbolicInt, Term, Vec, width_for
from yarnspec.checks.symbolic.floats import Rounding, quotient_times, share_rounding
from yarnspec.checks.symbolic.model import QUEUE_NAMES, Abstraction, Child, Level, Mode, PolicySettings
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.variants import GuaranteeRule, GuaranteeRuleName, guarantee_rule

Backend = Literal["int", "bv"]
Variant = Literal["hadoop-3", "tiny-queue"]
VARIANTS: tuple[Variant, ...] = ("hadoop-3", "tiny-queue")
#: The reference policy's guarantee rule each variant encodes.
GUARANTEE_RULE_OF: Mapping[Variant, GuaranteeRuleName] = MappingProxyType(
    {"hadoop-3": "effective", "tiny-queue": "tiny-queue"}
)


def variant_rule(variant: Variant) -> GuaranteeRule:
    """The rules of the guarantee rule ``variant`` encodes."""
    return guarantee_rule(GUARANTEE_RULE_OF[variant])


PRIORITIES = 3


@dataclass(frozen=True)
class Bound:
    """``children`` leaves under the root; every figure at most ``size`` per type."""

    children: int
    size: int

    def __str__(self) -> str:
        return f"K={self.children}, S={self.size}"


@dataclass(frozen=True)
class Domain:
    """What a proof quantifies over (module docstring)."""

    dominant: bool
    bound: Bound
    variant: Variant = "hadoop-3"
    mode: Mode = field(default_factory=Mode)
    settings: PolicySettings = field(default_factory=PolicySettings)
    backend: Backend = "int"
    resource: tuple[int, ...] | None = None
    abstraction: Abstraction = field(default_factory=Abstraction)

    @property
    def dims(self) -> int:
        """Components per resource: memory (Default) or memory and vcores (DRF)."""
        return 2 if self.dominant else 1

    @property
    def calculator_name(self) -> str:
        """``default`` or ``dominant``."""
        return "dominant" if self.dominant else "default"

    @property
    def rounding(self) -> Rounding:
        """Float rounding directions of every share (and capacity) quotient in the bound."""
        k, s = self.bound.children, self.bound.size
        return share_rounding(s, max(k * s, s))

    @property
    def magnitude(self) -> int:
        """A bound on the absolute value of any target component."""
        return 8 * self.bound.size

    def width(self) -> int:
        """A bit-vector width no intermediate value of the encodings can overflow: the
        largest products are the DRF ratio cross-products (about ``4 S^4``), the offers
        (``4 K S^2``) and the scaled targets (``8 S^3``), with a factor 4 to spare
        (tests/symbolic/test_backends.py evaluates both backends at the bound)."""
        k, s = self.bound.children, self.bound.size
        largest = max(4 * s**4, 4 * k * s * s, 8 * s**3) if self.dominant else max(4 * k * s * s, 8 * s * s)
        return width_for(4 * largest)

    @property
    def guarantee_rule(self) -> GuaranteeRuleName:
        """The name of the reference policy's guarantee rule that matches the variant."""
        return GUARANTEE_RULE_OF[self.variant]

    @property
    def rule(self) -> GuaranteeRule:
        """The rules of that guarantee rule."""
        return variant_rule(self.variant)

    def describe(self) -> str:
        """The domain in one line."""
        mode = f", resource {self.resource}" if self.resource is not None else ""
        mode += ", reserved mode" if self.mode.reserved else ""
        if self.abstraction.groups:
            mode += ", any group"
        if self.abstraction.offers:
            mode += ", offers by lemma"
        mode += ", balance mode" if self.mode.balance else ""
        return f"{self.calculator_name} calculator, {self.variant}, {self.bound}{mode}"

    def resources(self) -> list[Domain]:
        """The domain split by the root resource, one domain per resource vector of the bound
        (DRF: every comparison divides by the resource, which is linear only when it is a
        constant), or the domain itself when the resource is symbolic (Default) or fixed."""
        if not self.dominant or self.resource is not None:
            return [self]
        s = self.bound.size
        return [replace(self, resource=(m, v)) for m in range(1, s + 1) for v in range(1, s + 1)]


@dataclass(frozen=True)
class Instance:
    """Inputs of one level: ``level`` as the policy reads it (guarantees after the variant's
    rule) and ``written`` as a configuration states it (for ``tiny-queue`` the memory
    guarantee from which the policy derives the rest; otherwise the same)."""

    level: Level
    written: Level


@dataclass
class Declared:
    """z3 variables of a domain and the constraints that bound them."""

    domain: Domain
    A: Symbolic
    instance: Instance
    constraints: list[Any]

    def read(self, model: Any) -> Instance:
        """The concrete inputs of a z3 model."""
        return evaluate(self.instance, lambda term: model_value(model, term))


def declare(domain: Domain, prefix: str = "") -> Declared:
    """Fresh variables for every input of ``domain`` with their range constraints."""
    A = SymbolicInt() if domain.backend == "int" else Symbolic(domain.width())
    s, k, dims = domain.bound.size, domain.bound.children, domain.dims
    constraints: list[Any] = []

    def vector(name: str, low: int | Sequence[Term], high: int | Sequence[Term]) -> Vec:
        values = tuple(A.var(f"{prefix}{name}.{i}") for i in range(dims))
        for i, v in enumerate(values):
            constraints.append(v >= (low if isinstance(low, int) else low[i]))
            constraints.append(v <= (high if isinstance(high, int) else high[i]))
        return values

    if domain.resource is None:
        resource = vector("resource", 1, s)
    else:
        resource = tuple(A.num(v) for v in domain.resource)
    written_guarantees = [vector(f"{name}.guaranteed", 0, resource) for name in _names(k)]
    if domain.rule.capacity_guarantees:
        for g in written_guarantees:
            constraints.extend(x == g[0] for x in g[1:])  # only the memory guarantee is read
        guarantees = [tiny_queue(A, domain.rounding, resource, g[0]) for g in written_guarantees]
        constraints.append(sum(g[0] for g in written_guarantees) <= resource[0])
    else:
        guarantees = written_guarantees
        for i in range(dims):
            constraints.append(sum(g[i] for g in guarantees) <= resource[i])
        if domain.dominant:
            constraints.extend((g[0] == 0) == (g[1] == 0) for g in guarantees)
    children = []
    written_children = []
    for name, g, wg in zip(_names(k), guarantees, written_guarantees):
        maximum = vector(f"{name}.maximum", 0, resource)
        constraints.extend(m >= x for m, x in zip(maximum, g))
        used = vector(f"{name}.used", 0, s)
        pending = vector(f"{name}.pending", 0, s)
        reserved = vector(f"{name}.reserved", 0, s)
        killable = vector(f"{name}.killable", 0, used)
        disabled = A.bool_var(f"{prefix}{name}.disabled")
        priority = A.var(f"{prefix}{name}.priority")
        constraints.extend((priority >= 0, priority < PRIORITIES))
        children.append(Child(g, maximum, used, pending, reserved, killable, disabled, priority))
        written_children.append(Child(wg, maximum, used, pending, reserved, killable, disabled, priority))
    budget = vector("budget", 0, resource)
    level = Level(resource, tuple(children), budget)
    written = Level(resource, tuple(written_children), budget)
    return Declared(domain, A, Instance(level, written), constraints)


def plain(declared: Declared) -> list[Any]:
    """Constraints that make inputs easy to read and to write as a case file: nothing killable
    or reserved, every queue preemptable at priority 0, the whole resource as budget (a
    counterexample search tries these first)."""
    level = declared.instance.level
    found: list[Any] = [b == r for b, r in zip(level.budget, level.resource)]
    for child in level.children:
        found.extend(x == 0 for x in (*child.killable, *child.reserved))
        found.extend((child.priority == 0, declared.A.neg(child.disabled)))
    return found


def realistic(declared: Declared) -> list[Any]:
    """Constraints that rule out figures a live cluster does not show but the domain allows
    (the mock framework accepts them): reserved within pending, nothing killable."""
    found: list[Any] = []
    for child in declared.instance.level.children:
        found.extend(r <= p for r, p in zip(child.reserved, child.pending))
        found.extend(x == 0 for x in child.killable)
    return found


def tiny_queue(A: Arith, rounding: Rounding, resource: Vec, memory: Term) -> Vec:
    """The guarantee the ``tiny-queue`` rule reads for a memory guarantee ``memory``:
    ``(long)(resource_i x (float)(memory / resource_0))`` per type, exactly (the float
    quotient's rounding direction from the table)."""
    below = A.member(rounding.down, memory, resource[0])
    return tuple(quotient_times(A, r, memory, resource[0], below) for r in resource)


def evaluate(instance: Instance, value: Any) -> Instance:
    """Apply ``value`` (term -> int or bool) to every figure of ``instance``."""

    def vec(v: Vec) -> Vec:
        return tuple(int(value(x)) for x in v)

    def level(lv: Level) -> Level:
        children = tuple(
            Child(
                vec(c.guaranteed),
                vec(c.maximum),
                vec(c.used),
                vec(c.pending),
                vec(c.reserved),
                vec(c.killable),
                bool(value(c.disabled)),
                int(value(c.priority)),
            )
            for c in lv.children
        )
        return Level(vec(lv.resource), children, vec(lv.budget))

    return Instance(level(instance.level), level(instance.written))


def concrete_instance(domain: Domain, written: Level) -> Instance:
    """The instance of concrete written inputs: under ``tiny-queue`` the policy's guarantees
    are derived with the same term-building code as in :func:`declare`."""
    if not domain.rule.capacity_guarantees:
        return Instance(written, written)
    A = Concrete()
    children = tuple(
        replace(c, guaranteed=tiny_queue(A, domain.rounding, written.resource, c.guaranteed[0]))
        for c in written.children
    )
    return Instance(replace(written, children=children), written)


def model_value(model: Any, term: Any) -> int | bool:
    """A term's value in a z3 model (completing unconstrained variables)."""
    result = model.eval(term, model_completion=True)
    if z3.is_bool(result):
        return bool(z3.is_true(result))
    if z3.is_bv_value(result):
        return int(result.as_signed_long())
    return int(result.as_long())


def _names(count: int) -> list[str]:
    return list(QUEUE_NAMES[:count])


def parse_bound(text: str, place: str, source: str = "prove") -> Bound:
    """``K,S`` (children, size) from the command line; :class:`InputError` naming ``source``
    and ``place`` otherwise."""
    parts = text.split(",")
    if len(parts) != 2 or not all(re.fullmatch(r" *[0-9]{1,6} *", p) for p in parts):
        raise InputError(
            source, place, f"expected two whole numbers 'K,S' (children, size) in ASCII digits, found {text!r}"
        )
    children, size = (int(p) for p in parts)
    if not 1 <= children <= 8 or not 1 <= size <= 64:
        raise InputError(source, place, f"children must be 1..8 and size 1..64, found {text!r}")
    return Bound(children, size)
