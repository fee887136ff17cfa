"""The preemption variants as records of rules: each name users write maps to one record, and
the algorithms read the record's rules (the behaviour each rule stands for is tested in
test_variants.py and test_tiny_queue_variant.py)."""

from __future__ import annotations

import pytest

from yarnspec.checks.symbolic.domain import VARIANTS as PROOF_VARIANTS
from yarnspec.checks.symbolic.domain import variant_rule
from yarnspec.impl.errors import NotModelled
from yarnspec.impl.preemption.config import GUARANTEE_RULES, VARIANTS, PreemptionConfig
from yarnspec.impl.preemption.ideal import IdealMode
from yarnspec.impl.preemption.variants import (
    GUARANTEE_RULE_RECORDS,
    HADOOP_2_7_3,
    HADOOP_3,
    POLICY_VARIANTS,
    guarantee_rule,
    policy_variant,
)


def test_every_variant_name_has_its_record() -> None:
    """The names a configuration accepts are exactly the records' names."""
    assert tuple(POLICY_VARIANTS) == VARIANTS
    assert tuple(GUARANTEE_RULE_RECORDS) == GUARANTEE_RULES
    for name in VARIANTS:
        assert PreemptionConfig(variant=name).rules.name == name
    for rule in GUARANTEE_RULES:
        assert PreemptionConfig(guarantees=rule).guarantee_rule.name == rule


def test_hadoop_2_7_3_lacks_every_later_rule() -> None:
    """Every rule is on in ``hadoop-3`` and off in ``hadoop-2.7.3`` (seed 002 has none of them)."""
    assert HADOOP_3.rules() and all(HADOOP_3.rules().values())
    assert HADOOP_2_7_3.rules().keys() == HADOOP_3.rules().keys()
    assert not any(HADOOP_2_7_3.rules().values())
    assert PreemptionConfig().rules is HADOOP_3
    assert IdealMode(variant="hadoop-2.7.3").rules is HADOOP_2_7_3


def test_guarantee_rules_say_what_they_read() -> None:
    """``effective`` reads the snapshot's guarantees; ``tiny-queue`` reads capacities with the
    old shares; ``yarn-11073`` reads capacities with Hadoop 3.4.0's shares."""
    flags = {r.name: (r.capacity_guarantees, r.capacity_shares) for r in GUARANTEE_RULE_RECORDS.values()}
    assert flags == {"effective": (False, False), "tiny-queue": (True, False), "yarn-11073": (True, True)}
    assert {v: variant_rule(v).name for v in PROOF_VARIANTS} == {"hadoop-3": "effective", "tiny-queue": "tiny-queue"}


@pytest.mark.parametrize("lookup", [policy_variant, guarantee_rule])
def test_an_unknown_name_is_not_modelled(lookup: object) -> None:
    """A name no record has is refused with the known ones, never read as another."""
    with pytest.raises(NotModelled, match="'hadoop-2' \\(known: "):
        lookup("hadoop-2")  # type: ignore[operator]
    with pytest.raises(NotModelled, match="policy variant 'hadoop-2'"):
        _ = PreemptionConfig(variant="hadoop-2").rules  # type: ignore[arg-type]
