"""``yarnspec validate``'s report and files, and ``yarnspec validate-trace``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.validate.families.dispatch import simulate
from yarnspec.checks.validate.reference import Dispatch, RefusedInput

from ..conftest import CONFORMANCE_DIR
from .helpers import HERE, cli, phases_for
from .mutants import placement

MUTANT = "python:mutants.placement:HintsSorted"


@pytest.fixture
def mutants_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HERE))


def test_a_disagreement_is_shown_side_by_side_and_written_twice(mutants_on_path: None, tmp_path: Path) -> None:
    status, out, err = cli("validate", "spark-placement", "--impl", MUTANT, "--examples", "50", "--out", str(tmp_path))
    assert status == 1 and err == ""
    assert "DISAGREEMENT [differential] generated input at call 0 (locality_of_requested_containers)" in out
    assert "  reference:      " in out and "  implementation: " in out
    assert out.rstrip().endswith("RESULT: 1 finding(s)")
    replay = json.loads((tmp_path / "spark-placement-1.disagreement.json").read_text())
    assert replay["format"] == "yarnspec-disagreement/1" and replay["first_differing_step"] == 0
    case_file = tmp_path / "spark-placement-1.case.json"
    # the case file is a conformance case the reference passes
    status, out, _ = cli("conform", str(case_file))
    assert status == 0 and out.strip().endswith("1 passed, 0 failed, 0 unsupported")


def test_the_first_disagreement_is_shrunk(mutants_on_path: None) -> None:
    phases = phases_for("spark-placement", placement.HintsSorted, examples=100, cases=[])
    [finding] = phases[1].findings
    shrunk = finding.calls[0].input
    # one container, one task, hosts out of name order with counts of at most 1, nothing else
    assert (shrunk["num_containers"], shrunk["num_locality_aware_tasks"], shrunk["executor_cores"]) == (1, 1, 1)
    counts = shrunk["host_to_local_task_count"]
    assert max(count for _, count in counts) == 1 and [h for h, _ in counts] != sorted(h for h, _ in counts)
    assert (shrunk["locality_matched_pending_requests"], shrunk["allocated_host_to_container_count"]) == ([], {})


def test_json_output(mutants_on_path: None, tmp_path: Path) -> None:
    status, out, _ = cli(
        "validate", "spark-placement", "--impl", MUTANT, "--examples", "50", "--json", "--out", str(tmp_path)
    )
    document = json.loads(out)
    assert status == 1 and document["agrees"] is False
    assert [p["name"] for p in document["phases"]] == ["conformance", "differential"]
    [finding] = document["phases"][1]["findings"]
    assert finding["files"] == [
        str(tmp_path / "spark-placement-1.disagreement.json"),
        str(tmp_path / "spark-placement-1.case.json"),
    ]


def test_a_dispatch_case_file_from_a_model_based_finding_passes_conform(mutants_on_path: None, tmp_path: Path) -> None:
    status, out, _ = cli(
        "validate",
        "spark-dispatch",
        "--impl",
        "python:mutants.dispatch:PriorityReversed",
        "--examples",
        "30",
        "--cases",
        str(tmp_path / "none.json"),
        "--out",
        str(tmp_path),
    )
    assert status == 2  # the case path does not exist: one clear line
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "other.json").write_text('{"kind": "placement"}')
    status, out, _ = cli(
        "validate",
        "spark-dispatch",
        "--impl",
        "python:mutants.dispatch:PriorityReversed",
        "--examples",
        "30",
        "--cases",
        str(tmp_path / "cases"),
        "--out",
        str(tmp_path),
    )
    assert status == 1 and "DISAGREEMENT [" in out
    cases = sorted(tmp_path.glob("spark-dispatch-*.case.json"))
    status, out, _ = cli("conform", *map(str, cases))
    assert status == 0, out


def _log(tmp_path: Path, tamper: int | None = None) -> Path:
    calls = simulate(3, 12)
    reference = Dispatch()
    lines = []
    for index, call in enumerate(calls):
        output = reference.reset(call.input) if call.op == "reset" else reference.step(call.op, call.input)
        if index == tamper:
            output = {
                **output,
                "launched": output["launched"]
                + [
                    {
                        "task_id": 99,
                        "stage": "0.0",
                        "index": 0,
                        "executor_id": "exec1",
                        "host": "host1",
                        "locality": "ANY",
                        "speculative": False,
                    }
                ],
            }
        lines.append(json.dumps({"op": call.op, "input": call.input, "output": output}))
    path = tmp_path / "decisions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_validate_trace_explains_the_references_own_log(tmp_path: Path) -> None:
    status, out, _ = cli("validate-trace", "spark-dispatch", str(_log(tmp_path)))
    assert (status, out.strip()) == (0, "explained: all 13 steps are a behaviour the spec allows")


def test_validate_trace_names_the_first_step_it_cannot_explain(tmp_path: Path) -> None:
    status, out, _ = cli("validate-trace", "spark-dispatch", str(_log(tmp_path, tamper=5)))
    assert status == 1
    assert out.startswith("not explained: step 5 (line 6) is not what the spec allows: ")
    assert '"task_id": 99' in out


def test_validate_trace_reads_a_disagreement_file(mutants_on_path: None, tmp_path: Path) -> None:
    cli("validate", "spark-placement", "--impl", MUTANT, "--examples", "50", "--out", str(tmp_path))
    status, out, _ = cli("validate-trace", "spark-placement", str(tmp_path / "spark-placement-1.disagreement.json"))
    assert status == 1 and out.startswith("not explained: step 0 (line 1)")


def test_a_malformed_log_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"op": "reset", "input": {}, "output": {}}\n{"op": "observe"}\nnot json\n')
    status, _, err = cli("validate-trace", "spark-dispatch", str(path))
    assert status == 2
    assert (
        err.strip()
        == f"yarnspec: error: {path}: line 2: expected an object with 'op' (string) and 'input' (object), found an object without them"
    )


def test_the_conformance_phase_checks_upstream_assertions(mutants_on_path: None) -> None:
    case = CONFORMANCE_DIR / "spark-locality/ContainerPlacementStrategySuite/06-pending-requests-considered.json"
    phases = phases_for("spark-placement", placement.PendingIgnored, examples=1, cases=[case])
    [finding] = phases[0].findings
    assert finding.kind == "disagreement" and finding.step == 0


class _RefusesTestDoubles(Dispatch):
    """The reference, but it cannot build Spark's test doubles (as the real-Spark adapter)."""

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        if input.get("scheduler") == "FakeTaskScheduler":
            raise RefusedInput("input.scheduler: no FakeTaskScheduler here")
        return super().reset(input)


class _RefusesEveryFailure(Dispatch):
    """Refuses a call the reference answers in generated scenarios too."""

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        if op == "handle_failed_task":
            raise RefusedInput("no failures here")
        return super().step(op, input)


def test_a_conformance_case_the_implementation_refuses_is_not_run_and_said_so() -> None:
    phases = phases_for("spark-dispatch", _RefusesTestDoubles, examples=5, cases=[CONFORMANCE_DIR / "spark-locality"])
    conformance = phases[0]
    refused = [s for s in conformance.skipped if "refused by the implementation" in s]
    assert refused and all("FakeTaskScheduler" in s for s in refused)
    assert conformance.findings == [] and conformance.runs > 0


def test_a_refusal_outside_the_conformance_cases_is_still_a_finding() -> None:
    phases = phases_for("spark-dispatch", _RefusesEveryFailure, examples=30, cases=[])
    assert any("refused (no failures here)" in line for p in phases[1:] for f in p.findings for line in f.lines)
