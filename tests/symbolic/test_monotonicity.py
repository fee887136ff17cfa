"""More pending never lowers a queue's ideal: proved for the Default calculator at a small
bound; under DRF a counterexample that the reference reproduces (a finding)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings

from yarnspec.checks.symbolic.domain import Bound, Domain
from yarnspec.checks.symbolic.level_proof import concrete_view
from yarnspec.checks.symbolic.monotonicity import MonotonicityExample
from yarnspec.checks.symbolic.prover import Solver
from yarnspec.checks.symbolic.runner import prove_monotonicity

from .levels import Drawn, instances


def test_monotonicity_is_proved_for_the_default_calculator() -> None:
    """Every level with K=2, S=2, every queue: both runs end within the unrolled depth and
    the queue with more pending has an ideal at least as large."""
    result = prove_monotonicity(Domain(False, Bound(2, 2)), Solver(timeout_ms=60_000))
    assert result.verdict == "proved", result.detail
    assert result.detail.startswith("every input ends within")


def test_monotonicity_fails_under_drf_and_the_reference_reproduces_it() -> None:
    """Under DRF the search finds a queue whose ideal drops in one type when it asks for
    more (root resource <1, 1>), and the reference's ideals show the same drop."""
    result = prove_monotonicity(Domain(True, Bound(2, 2), resource=(1, 1)), Solver(timeout_ms=60_000))
    assert result.verdict == "counterexample"
    example = result.counterexample
    assert isinstance(example, MonotonicityExample)
    assert example.reference_breaks
    assert any(after < before for before, after in zip(example.reference_before, example.reference_after))
    assert "with more pending" in "\n".join(example.lines())


@settings(max_examples=150)
@given(instances(dominant=False, variant="hadoop-3", max_children=4, max_size=8))
def test_more_pending_never_lowers_the_ideal_on_random_default_levels(drawn: Drawn) -> None:
    """The property on concrete levels beyond the proof's bound (every queue, pending raised
    to the bound)."""
    level = drawn.instance.level
    size = drawn.domain.bound.size
    before = concrete_view(drawn.domain, level, False).state.ideal
    for q, child in enumerate(level.children):
        raised = replace(child, pending=tuple(size for _ in child.pending))
        more = replace(level, children=tuple(raised if i == q else c for i, c in enumerate(level.children)))
        after = concrete_view(drawn.domain, more, False).state.ideal
        assert all(y >= x for x, y in zip(before[q], after[q]))
