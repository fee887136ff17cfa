"""Every catalogue property on random concrete levels beyond the proofs' bounds (K up to 5,
S up to 10): the concrete evaluator's view, the same goal code the proofs use."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.symbolic.level_proof import concrete_view, holds, reference_view
from yarnspec.checks.symbolic.model import Mode
from yarnspec.checks.symbolic.properties import catalogue

from .levels import Drawn, instances


@settings(max_examples=120)
@given(st.data())
def test_the_catalogue_holds_on_random_levels(data: st.DataObject) -> None:
    """Default and DRF, ``hadoop-3``, normal mode: every property of the calculator's
    catalogue holds on the encoding's result and on the reference's."""
    drawn: Drawn = data.draw(instances(variant="hadoop-3", max_children=5, max_size=10, modes=(Mode(),)))
    mine = concrete_view(drawn.domain, drawn.instance.level, with_targets=True)
    theirs, _ = reference_view(drawn.domain, drawn.instance, with_targets=True)
    for prop in catalogue(drawn.domain.dominant):
        assert holds(prop, mine), prop.name
        assert holds(prop, theirs), prop.name
