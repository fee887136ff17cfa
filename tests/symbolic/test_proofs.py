"""The proofs at small bounds (the full bounds are for ``yarnspec prove``; docs/proofs.md):
the catalogue is proved, the findings end in counterexamples the reference reproduces, and a
property weakened on purpose is caught and replayed."""

from __future__ import annotations

import pytest

from yarnspec.checks.symbolic.arith import Cond, fits
from yarnspec.checks.symbolic.domain import Bound, Domain
from yarnspec.checks.symbolic.level_proof import LevelProperty, LevelView
from yarnspec.checks.symbolic.properties import SUM_STATED, catalogue, findings
from yarnspec.checks.symbolic.prover import Solver
from yarnspec.checks.symbolic.runner import Counterexample, prove_level, prove_termination

SMALL = {False: Bound(2, 2), True: Bound(1, 2)}


def _domain(dominant: bool, bound: Bound | None = None) -> Domain:
    return Domain(dominant, bound or SMALL[dominant], backend="bv" if dominant else "int")


@pytest.mark.parametrize("prop", catalogue(False), ids=lambda p: p.name)
def test_the_default_catalogue_is_proved_at_a_small_bound(prop: LevelProperty) -> None:
    """Every Default-calculator property holds for every input with K=2, S=2."""
    result = prove_level(_domain(False), prop, Solver(timeout_ms=60_000))
    assert result.verdict == "proved", result.detail


@pytest.mark.parametrize("prop", catalogue(True), ids=lambda p: p.name)
def test_the_dominant_catalogue_is_proved_at_a_small_bound(prop: LevelProperty) -> None:
    """Every DRF property holds for every input with K=1, S=2 (every root resource)."""
    result = prove_level(_domain(True), prop, Solver(timeout_ms=60_000))
    assert result.verdict == "proved", result.detail


@pytest.mark.parametrize("dominant", [False, True], ids=["default", "dominant"])
def test_the_fixpoint_terminates(dominant: bool) -> None:
    """The ranking function decreases at every step that is not the last."""
    result = prove_termination(_domain(dominant), Solver(timeout_ms=60_000))
    assert result.verdict == "proved", result.detail


@pytest.mark.parametrize("dominant", [False, True], ids=["default", "dominant"])
def test_the_cheapest_finding_has_a_counterexample_the_reference_reproduces(dominant: bool) -> None:
    """``sum-within-parent`` as first stated is false: the search finds inputs, the concrete
    evaluator and the reference both break the property on them."""
    assert SUM_STATED in findings(dominant)
    result = prove_level(_domain(dominant, Bound(2, 2)), SUM_STATED, Solver(timeout_ms=60_000))
    assert result.verdict == "counterexample"
    example = result.counterexample
    assert isinstance(example, Counterexample)
    assert example.encoding_breaks and example.reference_breaks
    ideals = [f.ideal for f in example.figures]
    resource = example.instance.level.resource
    assert any(sum(i[t] for i in ideals) > resource[t] for t in range(len(resource)))


def _ideal_within_guarantee(v: LevelView) -> Cond:
    A = v.A
    return A.all(fits(A, i, c.guaranteed) for i, c in zip(v.state.ideal, v.level.children))


WEAKENED = LevelProperty(
    "ideal-within-guarantee",
    "(false on purpose) no queue's ideal is above its guarantee",
    _ideal_within_guarantee,
)


def test_a_property_weakened_on_purpose_is_caught_and_replayed() -> None:
    """A false property ends in a counterexample whose inputs give the reference an ideal
    above a guarantee, with the lines a user reads."""
    result = prove_level(_domain(False), WEAKENED, Solver(timeout_ms=60_000))
    assert result.verdict == "counterexample"
    example = result.counterexample
    assert isinstance(example, Counterexample) and example.reference_breaks
    children = example.instance.level.children
    assert any(f.ideal[0] > c.guaranteed[0] for f, c in zip(example.figures, children))
    lines = example.lines(False)
    assert lines[0].startswith("parent (root) resource")
    assert lines[-1].endswith("reproduces the failure")


@pytest.mark.parametrize("dominant", [False, True], ids=["default", "dominant"])
def test_every_finding_explains_itself(dominant: bool) -> None:
    """A finding says why the statement fails (or that it is unsettled) and is never also in
    the catalogue of the same calculator."""
    proved = {p.name for p in catalogue(dominant)}
    for prop in findings(dominant):
        assert prop.finding.startswith(("False", "Unsettled")), prop.name
        assert prop.name not in proved
