"""The encoding equals the code: the concrete backend of the term-building encoding and the
reference implementation (``yarnspec.impl.preemption``) give the same figures on the same
inputs. A proof about an encoding that differed from the code would prove nothing."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.symbolic.domain import Bound, Domain, concrete_instance
from yarnspec.checks.symbolic.level_proof import concrete_view, reference_view
from yarnspec.checks.symbolic.model import Child, Level, PolicySettings
from yarnspec.impl.preemption.temp_queue import tiny_queue_guarantee
from yarnspec.impl.resources import Resource

from .levels import Drawn, instances


def _compare(drawn: Drawn) -> None:
    domain, instance = drawn.domain, drawn.instance
    mine = concrete_view(domain, instance.level, with_targets=True)
    theirs, figures = reference_view(domain, instance, with_targets=True)
    assert [f.guaranteed for f in figures] == [c.guaranteed for c in instance.level.children]
    assert mine.state.ideal == theirs.state.ideal
    assert mine.targets == theirs.targets
    assert mine.obtain == theirs.obtain


@settings(max_examples=150)
@given(instances(dominant=False, max_children=5, max_size=12))
def test_default_calculator_ideal_targets_and_amounts_match_the_reference(drawn: Drawn) -> None:
    """Default calculator, every mode and both variants: ideals, targets, amounts."""
    _compare(drawn)


@settings(max_examples=150)
@given(instances(dominant=True, max_children=5, max_size=12))
def test_dominant_calculator_ideal_targets_and_amounts_match_the_reference(drawn: Drawn) -> None:
    """DRF, every mode and both variants: ideals, targets, amounts (both components)."""
    _compare(drawn)


@settings(max_examples=40)
@given(instances(max_children=4, max_size=4), st.sampled_from((0.2, 0.5, 1.0)), st.sampled_from((0.0, 0.1, 0.35)))
def test_other_damping_factors_match_the_reference(drawn: Drawn, natural: float, ignored: float) -> None:
    """The factor tables are built from the reference's own rounding for any setting."""
    domain = replace(drawn.domain, settings=PolicySettings(natural, ignored))
    _compare(Drawn(domain, drawn.instance))


@settings(max_examples=60)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(0, 40))
def test_tiny_queue_guarantee_encoding_matches_the_reference_rule(memory: int, vcores: int, written: int) -> None:
    """The encoding's ``tiny-queue`` guarantee is the reference's ``tiny_queue_guarantee``."""
    written = min(written, memory, vcores)
    domain = Domain(True, Bound(1, 40), variant="tiny-queue")
    child = Child((written, written), (memory, vcores), (0, 0), (0, 0), (0, 0), (0, 0), False, 0)
    level = concrete_instance(domain, Level((memory, vcores), (child,), (0, 0))).level
    expected = tiny_queue_guarantee(Resource.of(written, written), Resource.of(memory, vcores))
    assert level.children[0].guaranteed == expected.values


def test_a_known_level_gives_the_hand_computed_ideals() -> None:
    """Pins the comparison itself to numbers worked out by hand: two queues of guarantee 5 on
    a root of 10, one using 8 and asking 2 more, the other using 1: the first keeps 8 (its
    over-use fits what the second leaves), the second 1 and nothing is preempted."""
    busy = Child((5,), (10,), (8,), (2,), (0,), (0,), False, 0)
    idle = Child((5,), (10,), (1,), (0,), (0,), (0,), False, 0)
    domain = Domain(False, Bound(2, 10))
    level = Level((10,), (busy, idle), (10,))
    view = concrete_view(domain, level, with_targets=True)
    assert view.state.ideal == ((8,), (1,))
    assert view.targets == ((0,), (0,))
