"""Spark's container placement: the encoding equals ``impl/spark/placement.py`` on random
hint maps, the count properties are proved at a small bound, and a wrong property is caught
with a counterexample replayed as Spark hints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.symbolic.arith import Concrete, Cond
from yarnspec.checks.symbolic.placement import (
    PLACEMENT_PROPERTIES,
    PlacementBound,
    PlacementCounterexample,
    PlacementProperty,
    PlacementTerms,
    hint_input,
    reference_requests,
)
from yarnspec.checks.symbolic.prover import Solver
from yarnspec.checks.symbolic.runner import prove_placement
from yarnspec.impl.spark.placement import PlacementInput, host_container_need

SMALL = PlacementBound(hosts=3, containers=6, need=4)


@settings(max_examples=200)
@given(st.integers(0, 16), st.lists(st.integers(0, 8), min_size=1, max_size=5))
def test_the_encoding_gives_the_reference_requests_for_any_need_vector(count: int, needs: list[int]) -> None:
    """Steps 4-6 of the encoding equal the reference's output on inputs with those needs."""
    requests, computed = reference_requests(hint_input(count, needs))
    assert computed == tuple(needs)
    assert PlacementTerms(Concrete(), count, computed, count).requests() == requests


@settings(max_examples=150)
@given(
    st.integers(0, 12),
    st.integers(0, 20),
    st.lists(st.integers(0, 6), min_size=1, max_size=4),
    st.lists(st.integers(0, 3), min_size=0, max_size=4),
    st.integers(1, 4),
)
def test_the_encoding_gives_the_reference_requests_for_any_hint_map(
    count: int, tasks: int, local: list[int], allocated: list[int], cores: int
) -> None:
    """On general hints (allocated containers, multi-core executors), the encoding fed with
    the reference's needs (steps 1-3) gives the reference's requests: the proofs cover every
    hint map whose needs fall within their bound."""
    hosts = [(f"h{i}", c) for i, c in enumerate(local)]
    held = [(f"h{i}", c) for i, c in enumerate(allocated)]
    inp = PlacementInput.of(count, tasks, hosts, held, executor_cores=cores)
    _, _, need = host_container_need(inp)
    requests, computed = reference_requests(inp)
    assert computed == tuple(n for _, n in need)
    assert PlacementTerms(Concrete(), count, computed, count).requests() == requests


@pytest.mark.parametrize("prop", PLACEMENT_PROPERTIES, ids=lambda p: p.name)
def test_the_placement_properties_are_proved_at_a_small_bound(prop: PlacementProperty) -> None:
    """Every count property holds for every request count and need vector of the bound."""
    assert prove_placement(SMALL, prop, Solver(timeout_ms=60_000)).verdict == "proved"


def _at_most_one_host_per_request(p: PlacementTerms) -> Cond:
    A = p.A
    return A.all(A.count(p.lists(i, h) for h in range(len(p.needs))) <= 1 for i in range(p.slots))


def test_a_wrong_placement_property_is_caught_and_replayed() -> None:
    """ "Every request names at most one host" is false; the counterexample's hints give the
    reference a request with two hosts."""
    wrong = PlacementProperty("one-host-per-request", "(false on purpose)", _at_most_one_host_per_request)
    result = prove_placement(SMALL, wrong, Solver(timeout_ms=60_000))
    assert result.verdict == "counterexample"
    example = result.counterexample
    assert isinstance(example, PlacementCounterexample)
    assert example.reference_breaks and example.encoded == example.reference
    assert any(r is not None and len(r) > 1 for r in example.reference)
    assert example.lines()[0].startswith("numContainer")
