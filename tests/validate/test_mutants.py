"""Every mutant is caught by ``validate``; the honest reference passes (the mutation score
itself is printed by ``python benchmarks/mutants.py``)."""

from __future__ import annotations

import pytest

from yarnspec.checks.validate.reference import REFERENCE_ADAPTERS

from .helpers import phases_for
from .mutants import candidate_selector, dispatch, node_sorting, placement, preemption, scheduler

FAMILIES = {
    "spark-placement": placement.MUTANTS,
    "spark-dispatch": dispatch.MUTANTS,
    "preemption-round": preemption.MUTANTS,
    "candidate-selector": candidate_selector.MUTANTS,
    "node-sorting": node_sorting.MUTANTS,
    "scheduler": scheduler.MUTANTS,
}
ALL = [(contract, mutant) for contract, mutants in FAMILIES.items() for mutant in mutants]
#: Examples per family: placement calls are cheap, so more of them.
EXAMPLES = {
    "spark-placement": 100,
    "spark-dispatch": 30,
    "preemption-round": 30,
    "candidate-selector": 30,
    "node-sorting": 100,
    "scheduler": 20,
}


def test_at_least_ten_mutants_per_family() -> None:
    assert {contract: len(mutants) >= 10 for contract, mutants in FAMILIES.items()} == dict.fromkeys(FAMILIES, True)


@pytest.mark.parametrize("contract, mutant", ALL, ids=[f"{c}:{m.__name__}" for c, m in ALL])
def test_validate_catches_the_mutant(contract: str, mutant: type) -> None:
    phases = phases_for(contract, mutant, examples=EXAMPLES[contract])
    findings = [f for phase in phases for f in phase.findings]
    assert findings, f"{mutant.__name__} passed validation"
    assert all(f.kind in ("disagreement", "invariant", "upstream") for f in findings), findings[0].lines


@pytest.mark.parametrize("contract", sorted(FAMILIES))
def test_the_reference_passes_itself(contract: str) -> None:
    phases = phases_for(contract, REFERENCE_ADAPTERS[contract], examples=EXAMPLES[contract])
    assert [f.lines for phase in phases for f in phase.findings] == []
    assert all(phase.runs > 0 for phase in phases)
