"""YARN-11073 end to end: under the ``tiny-queue`` variant the search finds an idle cluster on
which a queue is asked to give something back, the reference reproduces it, and the written
mockframework case replays through the conformance runner (and fails without the variant,
so the case really depends on it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yarnspec.checks.conformance.runner import run_all
from yarnspec.checks.symbolic.domain import Bound, Domain, Instance
from yarnspec.checks.symbolic.level_proof import reference_view
from yarnspec.checks.symbolic.properties import LONE
from yarnspec.checks.symbolic.prover import Solver
from yarnspec.checks.symbolic.runner import (
    Counterexample,
    confirm,
    find_counterexample,
    prove_level,
    with_case,
    write_case,
)
from yarnspec.impl.preemption.config import GUARANTEE_RULE_KEY

TINY = Domain(True, Bound(2, 2), variant="tiny-queue", backend="bv")


@pytest.fixture(scope="module")
def example() -> Counterexample:
    """The counterexample of ``lone-queue-not-preempted`` under ``tiny-queue``."""
    result = find_counterexample(TINY, LONE, Solver(timeout_ms=60_000))
    assert result is not None and result.verdict == "counterexample"
    assert isinstance(result.counterexample, Counterexample)
    return result.counterexample


def test_the_lone_queue_is_preempted_under_the_tiny_queue_rule(example: Counterexample) -> None:
    """A queue alone on the cluster whose guarantee lost its vcores to truncation is given a
    positive target by the reference, although its demand fits."""
    assert example.encoding_breaks and example.reference_breaks
    level, written = example.instance.level, example.instance.written
    truncated = [i for i, (c, w) in enumerate(zip(level.children, written.children)) if c.guaranteed != w.guaranteed]
    assert truncated, "the counterexample must rest on a truncated guarantee"
    assert any(x > 0 for f in example.figures for x in f.to_be_preempted)


def test_the_same_inputs_are_safe_without_the_variant(example: Counterexample) -> None:
    """With the guarantees as written (``hadoop-3``) the property holds on the same inputs."""
    plain_domain = Domain(True, Bound(2, 2))
    again = confirm(plain_domain, LONE, Instance(example.instance.written, example.instance.written))
    assert not again.reference_breaks
    view, _ = reference_view(plain_domain, again.instance, True)
    assert all(x <= 0 for t in view.targets for x in t)


def test_the_written_case_replays_through_yarnspec_conform(example: Counterexample, tmp_path: Path) -> None:
    """The case file selects the variant, carries the written guarantees and passes the
    conformance runner; switched to the ``effective`` rule, or to ``yarn-11073`` (the same
    truncated guarantees with Hadoop 3.4.0's shares), it fails: nothing is marked there."""
    case_path = tmp_path / "tiny-queue.json"
    write_case(with_case(example, TINY, "yarn-11073-lone-queue", "found by yarnspec prove"), case_path)
    case = json.loads(case_path.read_text())
    assert case["notation"] == "mockframework"
    assert case["conf"][GUARANTEE_RULE_KEY] == "tiny-queue"
    [outcome] = run_all([case_path])
    assert outcome.verdict.value == "PASS", outcome
    marks = sum(e["count"] for e in case["rounds"][0]["expect"])
    assert marks > 0, "the case must show containers marked on an idle cluster"
    for rule in ("effective", "yarn-11073"):  # the guarantee as written; the 3.4.0 fix
        case["conf"][GUARANTEE_RULE_KEY] = rule
        case_path.write_text(json.dumps(case))
        [outcome] = run_all([case_path])
        assert outcome.verdict.value == "FAIL", rule


def test_the_proof_of_the_lone_queue_fails_under_the_variant_only() -> None:
    """At K=1, S=2 the property is proved under ``hadoop-3`` and refuted under
    ``tiny-queue`` (the whole proof, induction then search, as the CLI runs it)."""
    proved = prove_level(Domain(True, Bound(1, 2), backend="bv"), LONE, Solver(timeout_ms=60_000))
    refuted = prove_level(
        Domain(True, Bound(1, 2), variant="tiny-queue", backend="bv"), LONE, Solver(timeout_ms=60_000)
    )
    assert proved.verdict == "proved"
    assert refuted.verdict == "counterexample"
    assert isinstance(refuted.counterexample, Counterexample) and refuted.counterexample.reference_breaks
