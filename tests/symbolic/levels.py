"""Hypothesis strategies for the symbolic tests: concrete levels inside a proof domain.

A drawn level respects the same ranges as :func:`yarnspec.checks.symbolic.domain.declare`
(guarantees summing to at most the root per type, maxima between guarantee and root, killable
within used, ...), so what the equivalence tests compare is exactly what the proofs quantify
over.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

from yarnspec.checks.symbolic.domain import PRIORITIES, VARIANTS, Bound, Domain, Instance, Variant, concrete_instance
from yarnspec.checks.symbolic.model import Child, Level, Mode

MODES = (Mode(), Mode(reserved=True), Mode(balance=True))


@dataclass(frozen=True)
class Drawn:
    """A domain and one concrete instance in it."""

    domain: Domain
    instance: Instance


def _vector(draw: st.DrawFn, dims: int, low: tuple[int, ...] | int, high: tuple[int, ...] | int) -> tuple[int, ...]:
    lows = low if isinstance(low, tuple) else (low,) * dims
    highs = high if isinstance(high, tuple) else (high,) * dims
    return tuple(draw(st.integers(lo, hi)) for lo, hi in zip(lows, highs))


@st.composite
def instances(
    draw: st.DrawFn,
    dominant: bool | None = None,
    variant: Variant | None = None,
    max_children: int = 4,
    max_size: int = 8,
    modes: tuple[Mode, ...] = MODES,
) -> Drawn:
    """A domain (calculator, variant, mode, bound) and written inputs within it."""
    dominant = draw(st.booleans()) if dominant is None else dominant
    chosen: Variant = draw(st.sampled_from(VARIANTS)) if variant is None else variant
    mode = draw(st.sampled_from(modes))
    k = draw(st.integers(1, max_children))
    s = draw(st.integers(1, max_size))
    domain = Domain(dominant, Bound(k, s), variant=chosen, mode=mode)
    dims = domain.dims
    resource = _vector(draw, dims, 1, s)
    left = list(resource)
    guarantees: list[tuple[int, ...]] = []
    for _ in range(k):
        if chosen == "tiny-queue":
            memory = draw(st.integers(0, min(left[0], *resource)))
            left[0] -= memory
            guarantees.append((memory,) * dims)
            continue
        g = _vector(draw, dims, 0, tuple(left))
        if dominant and (g[0] == 0) != (g[1] == 0):
            g = (0, 0)
        left = [x - y for x, y in zip(left, g)]
        guarantees.append(g)
    written = Level(
        resource, tuple(_child(draw, dims, s, g, resource) for g in guarantees), _vector(draw, dims, 0, resource)
    )
    # maxima must sit above the guarantee the policy reads, which the variant derives
    derived = concrete_instance(domain, written).level
    children = []
    for child, read in zip(written.children, derived.children):
        low = tuple(max(m, g) for m, g in zip(child.maximum, read.guaranteed))
        maximum = tuple(draw(st.integers(lo, r)) for lo, r in zip(low, resource))
        children.append(
            Child(
                child.guaranteed,
                maximum,
                child.used,
                child.pending,
                child.reserved,
                child.killable,
                child.disabled,
                child.priority,
            )
        )
    written = Level(resource, tuple(children), written.budget)
    return Drawn(domain, concrete_instance(domain, written))


def _child(draw: st.DrawFn, dims: int, s: int, guaranteed: tuple[int, ...], resource: tuple[int, ...]) -> Child:
    used = _vector(draw, dims, 0, s)
    return Child(
        guaranteed=guaranteed,
        maximum=tuple(min(g, r) for g, r in zip(guaranteed, resource)),
        used=used,
        pending=_vector(draw, dims, 0, s),
        reserved=_vector(draw, dims, 0, s) if draw(st.booleans()) else (0,) * dims,
        killable=_vector(draw, dims, 0, used) if draw(st.booleans()) else (0,) * dims,
        disabled=draw(st.booleans()),
        priority=draw(st.integers(0, PRIORITIES - 1)),
    )
