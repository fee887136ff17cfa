"""The conformance cases shipped with the package: Hadoop's intra-queue preemption tests
(``TestProportionalCapacityPreemptionPolicyIntraQueue*``), one pytest case per case file.

Every one must PASS, each records its upstream source, and together they cover the 38 test
methods of the four classes (one method, ``testIntraQueuePreemptionFairOrderingWithStrictAndRelaxedDRF``,
resets the event handler half-way and is kept as two cases, as the shared folder does for such
tests). A further folder, ``hadoop-preemption-fair-share``, holds all 14 methods of
Cloudera's ``...IntraQueueFairOrdering`` (commit 4934153bc5 of the CDH-7.1.9.1000 branch of
susheel-gupta/hadoop), which select the ``fair-share`` rule of
:class:`~yarnspec.impl.preemption.config.FairOrderingRule`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.hadoop import run_case
from yarnspec.checks.conformance.outcome import CaseVerdict
from yarnspec.checks.conformance.paths import BUILTIN_CASES

#: The lazy-preemption family (``MockRM`` tests on the scheduler model) has cases that are
#: UNSUPPORTED by design: ``tests/conformance/test_lazy_preemption_cases.py`` covers it.
LAZY_FAMILY = "hadoop-lazy-preemption"
LAZY_FILES = runner.find_case_files([BUILTIN_CASES / LAZY_FAMILY])
CASE_FILES = [path for path in runner.find_case_files([BUILTIN_CASES]) if path not in LAZY_FILES]
CLASSES = {
    "TestProportionalCapacityPreemptionPolicyIntraQueue": 16,
    "TestProportionalCapacityPreemptionPolicyIntraQueueUserLimit": 15,
    "TestProportionalCapacityPreemptionPolicyIntraQueueWithDRF": 3,
    "TestProportionalCapacityPreemptionPolicyIntraQueueFairOrdering": 4,
}
FAIR_SHARE_METHODS = 14
FAIR_SHARE_KEY = "yarnspec.preemption.intra-queue-fair-ordering-rule"


@pytest.mark.parametrize("path", CASE_FILES, ids=[str(p.relative_to(BUILTIN_CASES)) for p in CASE_FILES])
def test_shipped_case_passes(path: Path) -> None:
    outcome = runner.run_one(path)
    assert outcome.verdict is CaseVerdict.PASS, f"{outcome.verdict.value}: {outcome.detail}"
    assert not outcome.warnings, outcome.warnings


def test_the_38_upstream_methods_are_all_there_with_their_source() -> None:
    methods: dict[str, set[str]] = {}
    fair_share: set[str] = set()
    for path in CASE_FILES:
        case = json.loads(path.read_text())
        source = case["source"]
        assert source["path"].endswith(f"/{path.parent.name}.java")
        if path.parent.parent.name == "hadoop-preemption-fair-share":
            assert source["repo"] == "susheel-gupta/hadoop" and len(source["commit"]) == 40
            assert case["conf"][FAIR_SHARE_KEY] == "fair-share" and case["id"].endswith("@fair-share")
            fair_share.add(source["method"])
            continue
        assert source["repo"] in ("symious/hadoop", "apache/hadoop") and len(source["commit"]) == 40
        assert FAIR_SHARE_KEY not in case["conf"]
        methods.setdefault(path.parent.name, set()).add(source["method"])
    assert {cls: len(found) for cls, found in methods.items()} == CLASSES
    assert sum(CLASSES.values()) == 38
    assert len(fair_share) == FAIR_SHARE_METHODS


def test_conform_builtin_prints_their_count() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "yarnspec.checks.cli", "conform", "--builtin"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lazy_unsupported = 3
    passed = len(CASE_FILES) + len(LAZY_FILES) - lazy_unsupported
    assert done.stdout.splitlines()[-1] == f"{passed} passed, 0 failed, {lazy_unsupported} unsupported"
    assert len(CASE_FILES) == 39 + FAIR_SHARE_METHODS


def test_fair_share_cases_fail_under_the_older_rule() -> None:
    """The later methods need the rule: with the 3.3 rule most of them fail."""
    failed = 0
    for path in CASE_FILES:
        case = json.loads(path.read_text())
        if FAIR_SHARE_KEY not in case["conf"]:
            continue
        case["conf"][FAIR_SHARE_KEY] = "priority-demand"
        try:
            run_case(case)
        except Exception:
            failed += 1
    assert failed >= 5


def test_intra_queue_turned_off_fails_cases() -> None:
    """The cases depend on the selector: without it, those that expect preemption fail."""
    failed = 0
    for path in CASE_FILES:
        case = json.loads(path.read_text())
        key = "yarn.resourcemanager.monitor.capacity.preemption.intra-queue-preemption.enabled"
        case["conf"][key] = False
        try:
            run_case(case)
        except Exception:
            failed += 1
    assert failed >= 20
