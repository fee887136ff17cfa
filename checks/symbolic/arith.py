"""The arithmetic every encoding is written in, with two interchangeable backends.

An encoding is ordinary Python over *terms*: ``+``, ``-``, ``*`` and the comparisons work on
both Python integers and z3 bit-vectors, and everything else (if-then-else, conjunction,
floor division, table look-up) goes through an :class:`Arith` object. With
:class:`Concrete` the terms are ``int`` and ``bool`` and the encoding is an ordinary
evaluator; with :class:`Symbolic` they are z3 terms and the same code builds the formula the
solver reasons about. Because there is one piece of term-building code, the equivalence test
that compares the concrete evaluator with the reference implementation also vouches for the
formula (tests/symbolic/test_backends.py checks that both backends agree term by term).

Symbolic integers are two's-complement bit-vectors of a width chosen from the bound so that
no intermediate value can overflow (:func:`width_for`); comparisons are signed.

A vector (a resource) is a tuple of terms, one per resource type; the helpers at the end work
componentwise as :class:`yarnspec.impl.resources.Resource` does.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import z3  # type: ignore[import-untyped]

#: An integer term: ``int`` (concrete) or a z3 bit-vector (symbolic).
Term: TypeAlias = Any
#: A truth term: ``bool`` (concrete) or a z3 Boolean (symbolic).
Cond: TypeAlias = Any
#: A resource: one integer term per resource type.
Vec: TypeAlias = tuple[Any, ...]


class Arith(ABC):
    """The operations an encoding needs beyond Python's arithmetic operators."""

    symbolic: bool

    @abstractmethod
    def num(self, value: int) -> Term:
        """The constant ``value``."""

    @abstractmethod
    def ite(self, cond: Cond, then: Term, other: Term) -> Term:
        """``then`` if ``cond`` else ``other`` (integers or truth values)."""

    @abstractmethod
    def all(self, conds: Iterable[Cond]) -> Cond:
        """Conjunction (true for none)."""

    @abstractmethod
    def any(self, conds: Iterable[Cond]) -> Cond:
        """Disjunction (false for none)."""

    @abstractmethod
    def neg(self, cond: Cond) -> Cond:
        """Negation."""

    @abstractmethod
    def floor_div(self, a: Term, b: Term) -> Term:
        """``floor(a / b)`` for ``b > 0`` (unspecified otherwise)."""

    @abstractmethod
    def floor_mod(self, a: Term, b: Term) -> Term:
        """``a - b * floor(a / b)`` for ``b > 0`` (unspecified otherwise)."""

    @abstractmethod
    def member(self, pairs: frozenset[tuple[int, int]], x: Term, y: Term) -> Cond:
        """Whether ``(x, y)`` is one of ``pairs`` (a finite relation given by its elements)."""

    @abstractmethod
    def lookup(self, table: Mapping[int, int], x: Term) -> Term:
        """``table[x]`` for an ``x`` among the table's keys (unspecified otherwise)."""

    @abstractmethod
    def unknown(self, label: str, concrete: Callable[[], bool]) -> Cond:
        """A truth value the encoding does not pin down symbolically: the solver may pick
        either value (a sound over-approximation); the concrete evaluator computes it exactly
        with ``concrete``."""

    @abstractmethod
    def fresh(self, label: str, exact: Callable[[], Term], facts: Callable[[Term], Cond]) -> Term:
        """A value the encoding abstracts: the solver may pick any integer satisfying
        ``facts`` (recorded in :attr:`Symbolic.side`); the concrete evaluator computes it with
        ``exact`` and checks that ``facts`` hold for it (a lemma violated is an error)."""

    def implies(self, a: Cond, b: Cond) -> Cond:
        """``a -> b``."""
        return self.any((self.neg(a), b))

    def min(self, a: Term, b: Term) -> Term:
        """The smaller of two integers."""
        return self.ite(a <= b, a, b)

    def max(self, a: Term, b: Term) -> Term:
        """The larger of two integers."""
        return self.ite(a >= b, a, b)

    def count(self, conds: Iterable[Cond]) -> Term:
        """How many of ``conds`` hold."""
        result = self.num(0)
        for cond in conds:
            result = result + self.ite(cond, self.num(1), self.num(0))
        return result


class Concrete(Arith):
    """Terms are Python ``int`` and ``bool``: the encoding evaluates directly."""

    symbolic = False

    def num(self, value: int) -> int:
        """The integer itself."""
        return int(value)

    def ite(self, cond: Cond, then: Term, other: Term) -> Term:
        """Python's conditional expression."""
        return then if cond else other

    def all(self, conds: Iterable[Cond]) -> bool:
        """Python ``all``."""
        return all(conds)

    def any(self, conds: Iterable[Cond]) -> bool:
        """Python ``any``."""
        return any(conds)

    def neg(self, cond: Cond) -> bool:
        """Python ``not``."""
        return not cond

    def floor_div(self, a: Term, b: Term) -> int:
        """Python ``//`` (0 for a zero divisor, a value the encodings never use)."""
        return int(a) // int(b) if b != 0 else 0

    def floor_mod(self, a: Term, b: Term) -> int:
        """Python ``%`` (0 for a zero divisor, never used)."""
        return int(a) % int(b) if b != 0 else 0

    def member(self, pairs: frozenset[tuple[int, int]], x: Term, y: Term) -> bool:
        """Set membership."""
        return (x, y) in pairs

    def lookup(self, table: Mapping[int, int], x: Term) -> int:
        """Dictionary look-up (0 outside the table, a value the encodings never use)."""
        return table.get(int(x), 0)

    def unknown(self, label: str, concrete: Callable[[], bool]) -> bool:
        """The exact value."""
        return concrete()

    def fresh(self, label: str, exact: Callable[[], Term], facts: Callable[[Term], Cond]) -> int:
        """The exact value, after checking the facts the symbolic side assumes about it."""
        value = int(exact())
        if not facts(value):
            raise AssertionError(f"lemma about {label} fails for the value {value}")
        return value


class Symbolic(Arith):
    """Terms are z3 bit-vectors of ``width`` bits (signed) and z3 Booleans."""

    symbolic = True

    def __init__(self, width: int) -> None:
        self.width = width
        self._fresh = itertools.count()
        #: Facts about the values :meth:`fresh` introduced; every query must include them.
        self.side: list[Cond] = []

    def var(self, name: str) -> Term:
        """A free integer variable."""
        return z3.BitVec(name, self.width)

    def bool_var(self, name: str) -> Cond:
        """A free truth variable."""
        return z3.Bool(name)

    def num(self, value: int) -> Term:
        """A bit-vector constant (must fit the width)."""
        limit = 1 << (self.width - 1)
        if not -limit <= value < limit:
            raise ValueError(f"constant {value} does not fit {self.width} signed bits")
        return z3.BitVecVal(value, self.width)

    def ite(self, cond: Cond, then: Term, other: Term) -> Term:
        """``z3.If`` (constants are folded)."""
        if isinstance(cond, bool):
            return then if cond else other
        if z3.is_true(cond):
            return then
        if z3.is_false(cond):
            return other
        return z3.If(cond, then, other)

    def all(self, conds: Iterable[Cond]) -> Cond:
        """``z3.And`` without the constant ``True`` parts."""
        parts = [c for c in conds if c is not True]
        if any(c is False for c in parts):
            return z3.BoolVal(False)
        return z3.And(parts) if parts else z3.BoolVal(True)

    def any(self, conds: Iterable[Cond]) -> Cond:
        """``z3.Or`` without the constant ``False`` parts."""
        parts = [c for c in conds if c is not False]
        if any(c is True for c in parts):
            return z3.BoolVal(True)
        return z3.Or(parts) if parts else z3.BoolVal(False)

    def neg(self, cond: Cond) -> Cond:
        """``z3.Not``."""
        if isinstance(cond, bool):
            return not cond
        return z3.Not(cond)

    def floor_div(self, a: Term, b: Term) -> Term:
        """Signed floor division: z3's ``bvsdiv`` truncates toward zero, so one is taken off
        when the remainder is negative."""
        quotient = a / b
        return z3.If(z3.SRem(a, b) < 0, quotient - 1, quotient)

    def floor_mod(self, a: Term, b: Term) -> Term:
        """The non-negative remainder for ``b > 0``."""
        rest = z3.SRem(a, b)
        return z3.If(rest < 0, rest + b, rest)

    def member(self, pairs: frozenset[tuple[int, int]], x: Term, y: Term) -> Cond:
        """A disjunction over the relation's elements, grouped by ``y``."""
        by_y: dict[int, list[int]] = {}
        for px, py in sorted(pairs):
            by_y.setdefault(py, []).append(px)
        return self.any(self.all((y == py, self.any(x == px for px in xs))) for py, xs in by_y.items())

    def lookup(self, table: Mapping[int, int], x: Term) -> Term:
        """A chain of ``If`` over the table's keys."""
        items = sorted(table.items())
        if not items:
            return self.num(0)
        result = self.num(items[-1][1])
        for key, value in reversed(items[:-1]):
            result = z3.If(x == key, self.num(value), result)
        return result

    def unknown(self, label: str, concrete: Callable[[], bool]) -> Cond:
        """A fresh Boolean variable."""
        return z3.Bool(f"{label}!{next(self._fresh)}")

    def fresh(self, label: str, exact: Callable[[], Term], facts: Callable[[Term], Cond]) -> Term:
        """A fresh integer variable constrained by ``facts``."""
        value = self.var(f"{label}!{next(self._fresh)}")
        self.side.append(facts(value))
        return value

    def fresh_bool(self, label: str) -> Cond:
        """A fresh Boolean variable (no concrete counterpart)."""
        return z3.Bool(f"{label}!{next(self._fresh)}")


class SymbolicInt(Symbolic):
    """Terms are z3 (mathematical) integers: linear facts need no bit-level reasoning; the
    products and quotients make the problem non-linear."""

    def __init__(self) -> None:
        super().__init__(0)

    def var(self, name: str) -> Term:
        """A free integer variable."""
        return z3.Int(name)

    def num(self, value: int) -> Term:
        """An integer constant."""
        return z3.IntVal(value)

    def floor_div(self, a: Term, b: Term) -> Term:
        """z3's ``div`` (floor for a positive divisor)."""
        return a / b

    def floor_mod(self, a: Term, b: Term) -> Term:
        """z3's ``mod`` (non-negative for a positive divisor)."""
        return a % b


def width_for(largest: int) -> int:
    """The signed bit-vector width that holds every integer of magnitude up to ``largest``."""
    return max(4, int(largest).bit_length() + 1)


# --- resource vectors ---------------------------------------------------------------------


def vec(A: Arith, values: Sequence[int]) -> Vec:
    """A constant vector."""
    return tuple(A.num(v) for v in values)


def zero(A: Arith, dims: int) -> Vec:
    """The zero vector of ``dims`` types."""
    return tuple(A.num(0) for _ in range(dims))


def add(a: Vec, b: Vec) -> Vec:
    """Componentwise sum."""
    return tuple(x + y for x, y in zip(a, b))


def sub(a: Vec, b: Vec) -> Vec:
    """Componentwise difference."""
    return tuple(x - y for x, y in zip(a, b))


def total(A: Arith, vectors: Iterable[Vec], dims: int) -> Vec:
    """The sum of vectors (zero for none)."""
    result = zero(A, dims)
    for v in vectors:
        result = add(result, v)
    return result


def cmin(A: Arith, a: Vec, b: Vec) -> Vec:
    """Componentwise minimum (``Resources.componentwiseMin``)."""
    return tuple(A.min(x, y) for x, y in zip(a, b))


def cmax(A: Arith, a: Vec, b: Vec) -> Vec:
    """Componentwise maximum."""
    return tuple(A.max(x, y) for x, y in zip(a, b))


def clamp0(A: Arith, a: Vec) -> Vec:
    """Every negative component set to 0."""
    return tuple(A.max(x, A.num(0)) for x in a)


def choose(A: Arith, cond: Cond, a: Vec, b: Vec) -> Vec:
    """``a`` if ``cond`` else ``b``, componentwise."""
    return tuple(A.ite(cond, x, y) for x, y in zip(a, b))


def equal(A: Arith, a: Vec, b: Vec) -> Cond:
    """Every component equal."""
    return A.all(x == y for x, y in zip(a, b))


def fits(A: Arith, a: Vec, b: Vec) -> Cond:
    """Every component of ``a`` at most that of ``b``."""
    return A.all(x <= y for x, y in zip(a, b))
