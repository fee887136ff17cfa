"""Bad Hadoop case files: every fault ends in one clear message naming the file and the place,
reported as FAIL ("malformed case: ...") or UNSUPPORTED, never as a traceback or a pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.outcome import CaseOutcome, CaseVerdict
from yarnspec.impl.errors import NotModelled

from .builders import P, ScriptedPolicy, mock_case, qdata_case, write_case

ONE_ROUND = [{"clock_ms": 0, "expect": [{"app": 1, "event": "MARK_CONTAINER_FOR_PREEMPTION", "count": 0}]}]


def run(tmp_path: Path, case: dict[str, Any] | str) -> CaseOutcome:
    return runner.run_one(write_case(tmp_path, case))


def assert_malformed(outcome: CaseOutcome, path: Path, place: str, fragment: str) -> None:
    assert outcome.verdict is CaseVerdict.FAIL, outcome
    assert outcome.detail.startswith(f"malformed case: {path}: {place}"), outcome.detail
    assert fragment in outcome.detail
    assert "\n" not in outcome.detail


@pytest.fixture(autouse=True)
def quiet_policy(monkeypatch: pytest.MonkeyPatch) -> ScriptedPolicy:
    """A policy that selects nothing, so only the case's own faults decide."""
    return ScriptedPolicy().install(monkeypatch)


# --- malformed notation strings ------------------------------------------------------------


@pytest.mark.parametrize(
    "field, text, place, fragment",
    [
        (
            "queuesConfig",
            "root(=[100 100 0 0]);-a(=[50 100 0 0]);-b(=[100 200 0)",
            "input.queuesConfig",
            "expression 2 '-b(=[100 200 0)'",
        ),
        ("labelsConfig", "=100,sometimes", "input.labelsConfig", "expression 0 '=100,sometimes': exclusivity"),
        ("nodesConfig", "n1=;n2=nowhere", "input.nodesConfig", "expression 1 'n2=nowhere': partition 'nowhere'"),
        (
            "appsConfig",
            "a\t(1,1,n1,,40,false);c\t(1,1,n1,,1,false)",
            "input.appsConfig",
            "expression 1 'c\\t(1,1,n1,,1,false)': no queue 'c'",
        ),
        (
            "appsConfig",
            "a\t(1,1,n1,,40,false)\t50\tmaybe",
            "input.appsConfig",
            "schedulable flag after the third TAB must be true or false, found 'maybe'",
        ),
        (
            "appsConfig",
            "a\t(1,1,n1,,40,false)\t\tfalse",
            "input.appsConfig",
            "schedulable flag after the third TAB needs a user-limit percent",
        ),
        ("appsConfig", "a\t(1,1,n1,,40,false)\t50\tfalse\tx", "input.appsConfig", "at most four TAB-separated fields"),
    ],
)
def test_malformed_notation_string(tmp_path: Path, field: str, text: str, place: str, fragment: str) -> None:
    case = mock_case(ONE_ROUND)
    case["input"][field] = text
    path = write_case(tmp_path, case)
    assert_malformed(runner.run_one(path), path, place, fragment)


def test_malformed_qdata_cell(tmp_path: Path) -> None:
    case = qdata_case(ONE_ROUND)
    case["input"]["rows"]["used"][2] = -4
    path = write_case(tmp_path, case)
    assert_malformed(runner.run_one(path), path, "input.rows.used[2]", "cannot be negative")


# --- malformed JSON shapes and wrong types ---------------------------------------------------


@pytest.mark.parametrize(
    "rounds, place, fragment",
    [
        ("not a list", "rounds", "expected a list, found a string"),
        ([], "rounds", "at least one round"),
        ([{"expect": {"app": 1}}], "rounds[0].expect", "expected a list, found an object"),
        (
            [{"expect": [{"app": 1, "event": "MARK_CONTAINER_FOR_PREEMPTION", "count": "10"}]}],
            "rounds[0].expect[0].count",
            "expected an integer, found a string '10'",
        ),
        ([{"expect": [{"app": 1, "count": 1}]}], "rounds[0].expect[0].event", "missing required field"),
        ([{"expect": [{"app": 1, "event": "any", "never": False}]}], "rounds[0].expect[0].never", "only 'never: true'"),
        (
            [{"expect": [{"app": 1, "event": "any", "never": True, "count": 0}]}],
            "rounds[0].expect[0]",
            "exactly one of 'count' and 'never'",
        ),
        (
            [{"expect": [{"app": "appA", "event": "any", "count": 1}]}],
            "rounds[0].expect[0].app",
            "expected an application number or 'any'",
        ),
        ([{"clock_ms": -1, "expect": []}], "rounds[0].clock_ms", "expected an integer >= 0"),
        ([{"expect": [], "counts_are_cumulative": "yes"}], "rounds[0].counts_are_cumulative", "expected true or false"),
        (
            [{"expect": [], "state_asserts": [{"queue": "root.a", "field": "idealAssigned", "memory": "33"}]}],
            "rounds[0].state_asserts[0].memory",
            "expected an integer",
        ),
        (
            [{"expect": [], "state_asserts": [{"queue": "root.z", "field": "idealAssigned", "memory": 33}]}],
            "rounds[0].state_asserts[0].queue",
            "queue 'root.z' is not in the input",
        ),
        (
            [{"expect": [], "parser_asserts": {"node_count": "three"}}],
            "rounds[0].parser_asserts.node_count",
            "expected an integer",
        ),
        ([{"expect": [], "sorted_order": ["a"]}], "rounds[0].sorted_order", "belongs to unit cases"),
        (
            [{"expect": [], "conf_change": {P + "observe_only": "maybe"}}],
            f'rounds[0].conf_change["{P}observe_only"]',
            "expected true or false",
        ),
    ],
)
def test_malformed_case_shape(tmp_path: Path, rounds: Any, place: str, fragment: str) -> None:
    path = write_case(tmp_path, mock_case(rounds))
    assert_malformed(runner.run_one(path), path, place, fragment)


@pytest.mark.parametrize(
    "top, place, fragment",
    [
        ({"resource_calculator": "fair"}, "resource_calculator", "unknown calculator 'fair'"),
        ({"resource_calculator": 1}, "resource_calculator", "expected a string"),
        (
            {"conf": {P + "total_preemption_per_round": "lots"}},
            f'conf["{P}total_preemption_per_round"]',
            "expected a number",
        ),
        ({"conf": ["x"]}, "conf", "expected an object"),
        ({"conf_from_harness": [1]}, "conf_from_harness[0]", "expected a string"),
        (
            {"conf": {"yarn.scheduler.capacity.resource-calculator": "org.example.Mine"}},
            'conf["yarn.scheduler.capacity.resource-calculator"]',
            "unknown calculator class",
        ),
        (
            {
                "conf": {
                    "yarn.scheduler.capacity.resource-calculator": "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
                }
            },
            'conf["yarn.scheduler.capacity.resource-calculator"]',
            "but resource_calculator says 'default'",
        ),
        ({"input": "labels"}, "input", "expected an object"),
    ],
)
def test_malformed_top_level_fields(tmp_path: Path, top: dict[str, Any], place: str, fragment: str) -> None:
    path = write_case(tmp_path, mock_case(ONE_ROUND, **top))
    assert_malformed(runner.run_one(path), path, place, fragment)


def test_unknown_qdata_constant(tmp_path: Path) -> None:
    path = write_case(tmp_path, qdata_case([{"expect": [{"app": "appZ", "event": "any", "never": True}]}]))
    assert_malformed(runner.run_one(path), path, "rounds[0].expect[0].app", "unknown application constant 'appZ'")


def test_a_disable_flag_that_is_not_boolean(tmp_path: Path) -> None:
    key = "yarn.scheduler.capacity.root.queueA.disable_preemption"
    path = write_case(tmp_path, qdata_case(ONE_ROUND, conf={key: "sometimes"}))
    assert_malformed(runner.run_one(path), path, f'conf["{key}"]', "expected true or false")


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = write_case(tmp_path, '{"notation": "qdata",\n "rounds": [}')
    outcome = runner.run_one(path)
    assert outcome.verdict is CaseVerdict.FAIL
    assert outcome.detail.startswith(f"malformed case: {path}: line 2 column")


# --- unsupported: never passed silently --------------------------------------------------------


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"notation": "yaml-matrix"}, "notation 'yaml-matrix'"),
        (
            {"rounds": [{"expect": [{"app": 1, "event": "PREEMPT_CONTAINER", "count": 1}]}]},
            "rounds[0].expect[0].event: event 'PREEMPT_CONTAINER' is not one the model sends",
        ),
        (
            {"rounds": [{"expect": [{"app": 1, "event": "any", "count": 1, "container_rack": "r1"}]}]},
            "rounds[0].expect[0].container_rack: field 'container_rack' is not read",
        ),
        ({"rounds": [{"expect": [], "wait_ms": 5}]}, "rounds[0].wait_ms"),
        ({"seed": 7}, "seed: field 'seed'"),
        (
            {
                "rounds": [
                    {
                        "expect": [],
                        "state_asserts": [{"queue": "root.a", "field": "pendingDeductReserved", "memory": 1}],
                    }
                ]
            },
            "internal value 'pendingDeductReserved'",
        ),
        ({"rounds": [{"expect": [], "parser_asserts": {"queue_weights": {}}}]}, "parser assertion 'queue_weights'"),
    ],
)
def test_unknown_notation_event_or_field_is_unsupported(tmp_path: Path, change: dict[str, Any], fragment: str) -> None:
    case = mock_case(ONE_ROUND)
    case.update(change)
    outcome = run(tmp_path, case)
    assert outcome.verdict is CaseVerdict.UNSUPPORTED, outcome
    assert fragment in outcome.detail


def test_explanatory_keys_are_accepted_anywhere(tmp_path: Path) -> None:
    rounds = [
        {
            "expect": [{"app": 1, "event": "any", "never": True, "why_note": "x"}],
            "round_comment": "y",
            "derived": {"z": 1},
        }
    ]
    outcome = run(tmp_path, mock_case(rounds, notes="n", derived={"q": 2}))
    assert outcome.verdict is CaseVerdict.PASS, outcome


def test_a_round_asserting_only_prose_makes_the_case_unsupported(tmp_path: Path) -> None:
    rounds = [
        {"clock_ms": 0, "expect": [{"app": 1, "event": "any", "never": True}]},
        {"clock_ms": 10, "expect": [], "other_asserts": "the monitoring interval is now 5000"},
    ]
    outcome = run(tmp_path, mock_case(rounds))
    assert outcome.verdict is CaseVerdict.UNSUPPORTED
    assert outcome.detail.startswith("rounds[1]: upstream asserts only prose here")
    assert "the monitoring interval is now 5000" in outcome.detail


def test_a_failure_outranks_a_prose_only_round(tmp_path: Path, quiet_policy: ScriptedPolicy) -> None:
    rounds = [{"expect": [], "other_asserts": "prose"}, {"expect": [{"app": 1, "event": "any", "count": 3}]}]
    outcome = run(tmp_path, mock_case(rounds))
    assert outcome.verdict is CaseVerdict.FAIL and outcome.detail.startswith("rounds[1].expect[0]")


def test_not_modelled_is_unsupported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotModelled("intra-queue preemption (intra-queue-preemption.enabled=true)")

    monkeypatch.setattr("yarnspec.checks.conformance.hadoop.edit_schedule", refuse)
    outcome = run(tmp_path, mock_case(ONE_ROUND))
    assert outcome.verdict is CaseVerdict.UNSUPPORTED
    assert (
        outcome.detail
        == "rounds[0]: the model does not cover this case: intra-queue preemption (intra-queue-preemption.enabled=true)"
    )


def test_a_crash_in_the_policy_is_a_failed_case_not_a_crashed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(*args: Any, **kwargs: Any) -> Any:
        return 1 // 0

    monkeypatch.setattr("yarnspec.checks.conformance.hadoop.edit_schedule", crash)
    outcome = run(tmp_path, mock_case(ONE_ROUND))
    assert outcome.verdict is CaseVerdict.FAIL
    assert outcome.detail.startswith(
        "rounds[0] (the policy raised): expected 'a completed editSchedule round', got 'ZeroDivisionError"
    )
    assert "test_hadoop_case_errors.py:" in outcome.detail


# --- through the command line ------------------------------------------------------------------


def test_cli_on_a_bad_file_exits_1_with_one_fail_line_and_no_traceback(tmp_path: Path) -> None:
    case = mock_case(ONE_ROUND)
    case["input"]["queuesConfig"] = "root(=[100 100 0 0]);-a(=[50 100 0 0]);-b(=[100 200 0)"
    path = write_case(tmp_path, case, "badfile")
    result = subprocess.run(
        [sys.executable, "-m", "yarnspec.checks.cli", "conform", str(path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("FAIL        Test.mock  -- malformed case: ")
    assert "input.queuesConfig: expression 2 '-b(=[100 200 0)'" in lines[0]
    assert lines[1] == "0 passed, 1 failed, 0 unsupported"
