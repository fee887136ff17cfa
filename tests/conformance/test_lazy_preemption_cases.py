"""Hadoop's ``TestCapacitySchedulerLazyPreemption`` shipped as ``mockrm`` cases, replayed on the
scheduler model: every upstream method has its case with its source, the three the model can
express pass, the other three are UNSUPPORTED with their reason, and the cases fail when the
model or an expectation is wrong. Malformed cases give one line naming the file and the place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.mock_rm import run_case
from yarnspec.checks.conformance.outcome import ExpectationMismatch, CaseVerdict
from yarnspec.checks.conformance.paths import BUILTIN_CASES
from yarnspec.impl.config.keys import LAZY_PREEMPTION_ENABLED

FOLDER = BUILTIN_CASES / "hadoop-lazy-preemption" / "TestCapacitySchedulerLazyPreemption"
#: The upstream class's test methods at release-3.3.0-RC0 (read from the Java file), with the
#: verdict each case must have and, for an UNSUPPORTED one, a words of its reason.
METHODS = {
    "testSimplePreemption": (CaseVerdict.PASS, ""),
    "testPreemptionConsidersNodeLocalityDelay": (CaseVerdict.UNSUPPORTED, "node-locality-delay"),
    "testPreemptionConsidersHardNodeLocality": (CaseVerdict.UNSUPPORTED, "h3 (relax false)"),
    "testPreemptionPolicyShouldRespectAlreadyMarkedKillableContainers": (CaseVerdict.PASS, ""),
    "testPreemptionPolicyCleanupKillableContainersWhenNoPreemptionNeeded": (CaseVerdict.UNSUPPORTED, "@Ignore"),
    "testPreemptionConsidersUserLimit": (CaseVerdict.PASS, ""),
}


def _case(method: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FOLDER / f"{method}.json").read_text())
    return loaded


def test_every_upstream_method_has_a_case_with_its_source() -> None:
    files = sorted(p.stem for p in FOLDER.glob("*.json"))
    assert files == sorted(METHODS)
    for method in METHODS:
        source = _case(method)["source"]
        assert source["method"] == method and source["tag"] == "release-3.3.0-RC0"
        assert source["path"].endswith("/capacity/TestCapacitySchedulerLazyPreemption.java")
        assert len(source["commit"]) == 40 and int(source["commit"], 16) > 0


@pytest.mark.parametrize("method", sorted(METHODS))
def test_each_case_has_its_verdict(method: str) -> None:
    verdict, reason = METHODS[method]
    outcome = runner.run_one(FOLDER / f"{method}.json")
    assert outcome.verdict is verdict, outcome.detail
    assert reason in outcome.detail and not outcome.warnings


def test_without_lazy_preemption_the_policy_kills_and_the_simple_case_fails() -> None:
    case = _case("testSimplePreemption")
    case["conf"][LAZY_PREEMPTION_ENABLED] = "false"
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(case)
    assert caught.value.place == "steps[8].killable[0].count" and caught.value.actual == 0


@pytest.mark.parametrize(
    "method, step, key, value, place",
    [
        ("testSimplePreemption", 10, "live_containers", {"app1": 7}, "steps[10].live_containers.app1"),
        ("testSimplePreemption", 10, "preempted_containers", {"root.b": 1}, "steps[10].preempted_containers.root.b"),
        ("testSimplePreemption", 8, "killable", [{"queue": "root.a", "count": 1, "first_app": "app2"}], "steps[8].killable[0].first_app"),
        ("testPreemptionPolicyShouldRespectAlreadyMarkedKillableContainers", 15, "to_preempt", 0, "steps[15].to_preempt"),
        ("testPreemptionConsidersUserLimit", 5, "unallocated_mb", {"h2": 1024}, "steps[5].unallocated_mb.h2"),
    ],
)
def test_a_wrong_expectation_fails_at_its_place(method: str, step: int, key: str, value: Any, place: str) -> None:
    case = _case(method)
    case["steps"][step][key] = value
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(case)
    assert caught.value.place == place


def test_a_remembered_killable_container_missing_from_the_set_fails() -> None:
    """``includes``: every remembered container must be in the queue's killable set; root.a's
    two killable containers are not root.c's."""
    case = _case("testPreemptionPolicyShouldRespectAlreadyMarkedKillableContainers")
    steps = case["steps"]
    remember = {"op": "remember_killable", "queue": "root.a", "as": "later"}
    case["steps"] = steps + [remember, {"op": "expect", "killable": [{"queue": "root.c", "count": 0, "includes": "later"}]}]
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(case)
    assert caught.value.place == f"steps[{len(steps) + 1}].killable[0].includes"
    assert len(caught.value.actual) == 2  # type: ignore[arg-type]


# --- malformed cases ---------------------------------------------------------------------------


def _write(tmp_path: Path, case: dict[str, Any]) -> Path:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    return path


def _edit(edit: str) -> dict[str, Any]:
    case = _case("testSimplePreemption")
    if edit == "unknown op":
        case["steps"][2]["op"] = "heartbeats"
    elif edit == "no nodes":
        del case["nodes"]
    elif edit == "unknown app":
        case["steps"][1]["app"] = "app9"
    elif edit == "memory as text":
        case["nodes"][1]["memory_mb"] = "4 GB"
    elif edit == "unknown queue":
        case["steps"][8]["killable"][0]["queue"] = "a"
    elif edit == "bad capacity":
        case["conf"]["yarn.scheduler.capacity.root.c.capacity"] = "80"
    elif edit == "empty expect":
        case["steps"][3] = {"op": "expect"}
    elif edit == "request out of range":
        case["steps"][1]["request"] = 2
    return case


@pytest.mark.parametrize(
    "edit, place, fragment",
    [
        ("unknown op", "steps[2].op", "expected one of launch_am, ask"),
        ("no nodes", "nodes", "missing required field"),
        ("unknown app", "steps[1].app", "no application 'app9'"),
        ("memory as text", "nodes[1].memory_mb", "expected"),
        ("unknown queue", "steps[8].killable[0].queue", "no queue 'a'"),
        ("bad capacity", "conf.yarn.scheduler.capacity.root.queues", "sum to 110, not 100"),
        ("empty expect", "steps[3]", "must assert something"),
        ("request out of range", "steps[1].request", "app1 has 1 request(s)"),
    ],
)
def test_a_malformed_case_is_one_line_naming_the_file_and_place(tmp_path: Path, edit: str, place: str, fragment: str) -> None:
    path = _write(tmp_path, _edit(edit))
    done = subprocess.run([sys.executable, "-m", "yarnspec.checks.cli", "conform", str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    (line,) = [text for text in done.stdout.splitlines() if text.startswith("FAIL")]
    assert f"malformed case: {path}: {place}" in line and fragment in line, line


def test_the_check_table_has_the_family_row() -> None:
    from yarnspec.checks.commands.check import builtin_suites

    names = [suite.name for suite in builtin_suites()]
    assert "conformance/hadoop-lazy-preemption (shipped)" in names


# --- the published schema ----------------------------------------------------------------------


def _schema() -> Any:
    from yarnspec.checks.shipped_schemas import schema_text
    from yarnspec.spec.json_schema import schema_validator

    return schema_validator(schema_text("mockrm-case"))


def test_the_shipped_cases_follow_the_schema_and_it_names_every_operation() -> None:
    from yarnspec.checks.conformance.mock_rm import _OPS

    validator = _schema()
    for method in METHODS:
        assert list(validator.iter_errors(_case(method))) == [], method
    schema = json.loads((Path(runner.__file__).parent.parent / "schemas" / "mockrm-case.schema.json").read_text())
    assert schema["$defs"]["step"]["properties"]["op"]["enum"] == list(_OPS)


@pytest.mark.parametrize("edit", ["unknown op", "no nodes", "memory as text", "empty expect"])
def test_the_schema_refuses_what_the_runner_finds_malformed(edit: str) -> None:
    assert list(_schema().iter_errors(_edit(edit)))
