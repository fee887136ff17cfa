"""The conformance runner's contract (closing line, exit status, ``--json``, folders, missing
paths) and how the Hadoop family runner replays rounds and checks expectations.

The policy is replaced by a scripted stand-in (``builders.ScriptedPolicy``) wherever a test is
about the runner's own logic, so these tests fail only when the runner is wrong.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.cli import main
from yarnspec.checks.conformance import hadoop, runner
from yarnspec.checks.conformance.outcome import CaseVerdict, ExpectationMismatch
from yarnspec.impl.preemption.result import EventType

from .builders import P, Pick, ScriptedPolicy, mock_case, qdata_case, target, write_case

MARK = "MARK_CONTAINER_FOR_PREEMPTION"
KILL = EventType.MARK_CONTAINER_FOR_KILLABLE


def expect(app: Any, count: int | None = None, event: str = MARK, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"app": app, "event": event, **extra}
    if count is None:
        entry["never"] = True
    else:
        entry["count"] = count
    return entry


#: An assertion that holds whenever the scripted policy selects nothing: a case needs one to be
#: checkable at all (a case that asserts nothing is UNSUPPORTED).
NOTHING_HAPPENS = expect("any", None, "any")


# --- the contract ---------------------------------------------------------------------------


@pytest.fixture
def three_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder (with a sub-folder) holding one passing, one failing, one unsupported case."""
    ScriptedPolicy([[Pick(1, 1), Pick(1, 2)]] * 3).install(monkeypatch)
    (tmp_path / "sub").mkdir()
    write_case(tmp_path, mock_case([{"expect": [expect(1, 2)]}], id="T.pass"), "a_pass")
    write_case(tmp_path / "sub", mock_case([{"expect": [expect(1, 5)]}], id="T.fail"), "b_fail")
    write_case(tmp_path, mock_case([{"expect": [], "other_asserts": "prose"}], id="T.unsupported"), "c_unsupported")
    return tmp_path


def test_one_line_per_case_and_the_closing_line(three_cases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conform", str(three_cases)])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines[0] == "PASS        T.pass"
    assert lines[1].startswith("UNSUPPORTED T.unsupported  -- rounds[0]: upstream asserts only prose")
    assert (
        lines[2] == f"FAIL        T.fail  -- rounds[0].expect[0] ({MARK} for application 1 so far): expected 5, got 2"
    )
    assert lines[3] == "1 passed, 1 failed, 1 unsupported"
    assert len(lines) == 4


def test_exit_status_is_0_when_nothing_failed(three_cases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conform", str(three_cases / "a_pass.json"), str(three_cases / "c_unsupported.json")])
    assert status == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed, 1 unsupported"


def test_json_is_one_document_with_every_case(three_cases: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conform", str(three_cases), "--json"])
    document = json.loads(capsys.readouterr().out)
    assert status == 1
    assert set(document) == {"cases", "passed", "failed", "unsupported", "summary"}
    assert (document["passed"], document["failed"], document["unsupported"]) == (1, 1, 1)
    assert document["summary"] == "1 passed, 1 failed, 1 unsupported"
    by_id = {c["id"]: c for c in document["cases"]}
    assert by_id["T.fail"]["verdict"] == "FAIL" and by_id["T.fail"]["detail"].startswith("rounds[0].expect[0]")
    assert by_id["T.pass"] == {
        "id": "T.pass",
        "path": str(three_cases / "a_pass.json"),
        "verdict": "PASS",
        "detail": "",
        "warnings": [],
    }


def test_verbose_prints_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ScriptedPolicy().install(monkeypatch)
    write_case(tmp_path, mock_case([{"expect": [expect(1, 4, asserted=False), NOTHING_HAPPENS]}], id="T.warn"))
    assert main(["conform", str(tmp_path), "-v"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "PASS        T.warn"
    assert lines[1].strip().startswith("warning: asserted: false, so not decisive: rounds[0].expect[0]")


def test_the_same_file_twice_runs_once(three_cases: Path) -> None:
    path = three_cases / "a_pass.json"
    assert runner.find_case_files([path, three_cases / "." / "a_pass.json"]) == [path]


@pytest.mark.parametrize("make_path", [lambda t: t / "nowhere", lambda t: t])
def test_missing_path_or_empty_folder_exits_2_with_one_line(tmp_path: Path, make_path: Any) -> None:
    target_path = make_path(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "yarnspec.checks.cli", "conform", str(target_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"yarnspec: error: {target_path}: ")


def test_parser_only_cases_pass_through_the_command_line(tmp_path: Path) -> None:
    """A harness self-test runs no policy round, so it depends on the parser alone."""
    rounds = [{"expect": [], "parser_asserts": {"node_count": 2, "apps_per_queue": {"root.a": 2, "b": 1}}}]
    write_case(tmp_path, mock_case(rounds, id="T.parser"))
    result = subprocess.run(
        [sys.executable, "-m", "yarnspec.checks.cli", "conform", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["PASS        T.parser", "1 passed, 0 failed, 0 unsupported"]


# --- replaying rounds ---------------------------------------------------------------------------


def run_case(case: dict[str, Any]) -> list[str]:
    return hadoop.run_case(json.loads(json.dumps(case)))


def test_counts_are_cumulative_over_rounds_and_checked_after_each(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy([[Pick(1, 1)], [Pick(1, 2), Pick(3, 1)], []]).install(monkeypatch)
    rounds = [{"expect": [expect(1, 1)]}, {"expect": [expect(1, 2), expect(3, 1)]}, {"expect": [expect(1, 2)]}]
    assert run_case(mock_case(rounds)) == []
    rounds[1]["expect"][1] = expect(3, 2)
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(mock_case(rounds))
    assert caught.value.place == "rounds[1].expect[1]"
    assert (caught.value.expected, caught.value.actual) == (2, 1)


def test_counts_per_round_when_not_cumulative(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy([[Pick(1, 1)], [Pick(1, 2)]]).install(monkeypatch)
    rounds = [{"expect": [expect(1, 1)]}, {"counts_are_cumulative": False, "expect": [expect(1, 1)]}]
    assert run_case(mock_case(rounds)) == []


def test_clock_and_policy_state_carry_from_round_to_round(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = ScriptedPolicy().install(monkeypatch)
    run_case(
        mock_case(
            [
                {"clock_ms": 0, "expect": []},
                {"clock_ms": 5000, "expect": []},
                {"expect": []},
                {"clock_ms": 10001, "expect": [NOTHING_HAPPENS]},
            ]
        )
    )
    assert [now for _, _, now, _ in policy.calls] == [0, 5000, 5000, 10001]
    assert policy.calls[0][3] is None
    assert all(state is not None for _, _, _, state in policy.calls[1:])


def test_never_and_event_any_count_every_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy([[Pick(1, 1, KILL)]]).install(monkeypatch)
    assert run_case(mock_case([{"expect": [expect(1, None), expect(1, 1, "any"), expect(1, 1, KILL.value)]}])) == []
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(mock_case([{"expect": [expect("any", None, "any")]}]))
    assert caught.value.place == "rounds[0].expect[0]" and caught.value.actual == 1


def test_container_queue_is_the_token_as_written_and_node_restricts(monkeypatch: pytest.MonkeyPatch) -> None:
    # app 1 was written as "a" and runs on n1; app 2 as "root.a" on n2 (both in root.a)
    ScriptedPolicy([[Pick(1, 1), Pick(1, 2), Pick(2, 1)]]).install(monkeypatch)
    rounds = [
        {
            "expect": [
                expect(1, 2, "any", container_queue="a", container_node="n1"),
                expect(1, None, "any", container_queue="root.a", container_node="n1"),
                expect(2, 1, "any", container_queue="root.a", container_node="n2"),
                expect(2, None, "any", container_queue="a", container_node="n2"),
                expect(1, None, "any", container_queue="a", container_node="n2"),
            ]
        }
    ]
    assert run_case(mock_case(rounds)) == []


def test_asserted_false_only_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy([[Pick(1, 1)]]).install(monkeypatch)
    warnings = run_case(mock_case([{"expect": [expect(1, 7, asserted=False), expect(1, 1)]}]))
    assert len(warnings) == 1
    assert (
        warnings[0]
        == f"asserted: false, so not decisive: rounds[0].expect[0] ({MARK} for application 1 so far): expected 7, got 1"
    )


def test_state_asserts_read_the_last_selector_that_computed_the_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy(targets=[[target("root.a", 30), target("root.a", 33) | target("root.b", 20)]]).install(monkeypatch)
    assertion = {"queue": "root.a", "partition": "", "field": "idealAssigned", "memory": 33}
    assert run_case(mock_case([{"expect": [], "state_asserts": [assertion]}])) == []
    short_name = dict(assertion, queue="b", memory=21, vcores=20)
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(mock_case([{"expect": [], "state_asserts": [assertion, short_name]}]))
    assert caught.value.place == "rounds[0].state_asserts[1]"
    assert caught.value.expected == {"memory": 21, "vcores": 20} and caught.value.actual == {"memory": 20, "vcores": 20}


def test_a_state_assert_on_a_queue_without_figures_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy(targets=[[target("root.a", 30)]]).install(monkeypatch)
    with pytest.raises(ExpectationMismatch, match="no figure computed"):
        run_case(
            mock_case(
                [{"expect": [], "state_asserts": [{"queue": "root.b", "field": "preemptableExtra", "memory": 1}]}]
            )
        )


def test_conf_change_reaches_the_policy_and_the_disable_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = ScriptedPolicy().install(monkeypatch)
    key = "yarn.scheduler.capacity.root.b.disable_preemption"
    rounds = [
        {"expect": []},
        {"conf_change": {P + "observe_only": True, key: True}, "expect": []},
        {"expect": [NOTHING_HAPPENS]},
    ]
    run_case(mock_case(rounds))
    assert [config.observe_only for _, config, _, _ in policy.calls] == [False, True, True]
    assert [snap.queues["root.b"].preemption_disabled for snap, _, _, _ in policy.calls] == [False, True, True]


def test_parser_asserts_are_checked_without_running_the_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    policy = ScriptedPolicy().install(monkeypatch)
    asserts = {
        "node_count": 2,
        "apps_per_queue": {"root.a": 2},
        "app_containers": [{"app": 2, "live": 40, "on_node": {"n2": 40}}],
        "nodes": {"n1": {"running": 60, "has_reserved": False}},
        "abs_capacities": {"root.b": {"": [0.5, 1.0, 0.2]}},
        "pending_memory": {"root.b": {"": 10}},
        "queue_priority": {"root.a": 0},
        "preemption_disabled": {"root.b": False},
        "ignore_exclusivity_containers": {"root.a": {"": 0}},
    }
    assert run_case(mock_case([{"expect": [], "parser_asserts": asserts}])) == []
    assert policy.calls == []
    asserts["app_containers"] = [{"app": 2, "live": 40, "on_node": {"n2": 39}}]
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(mock_case([{"expect": [], "parser_asserts": asserts}]))
    assert caught.value.place == 'rounds[0].parser_asserts.app_containers[0].on_node["n2"]'


def test_qdata_constants_resolve_and_app_f_is_app_four(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy([[Pick(4, 0), Pick(2, 0)]]).install(monkeypatch)
    rounds = [{"expect": [expect("appF", 1, app_id=4), expect("appE", 1), expect("appC", 1), expect("appA", None)]}]
    assert run_case(qdata_case(rounds)) == []


def test_an_app_id_that_disagrees_with_the_constant_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy().install(monkeypatch)
    warnings = run_case(qdata_case([{"expect": [expect("appF", None, app_id=5), expect(9, None)]}]))
    assert warnings == [
        "rounds[0].expect[0].app_id: the case says 5, but appF is application 4 (counted as 4)",
        "rounds[0].expect[1]: application 9 is not in the input, so its count is 0",
    ]


def test_conf_keys_the_model_does_not_read_warn(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy().install(monkeypatch)
    conf = {P + "max_wait_before_kill": 10000, "yarn.scheduler.capacity.root.a.user-limit-factor": 2}
    assert run_case(mock_case([{"expect": [NOTHING_HAPPENS]}], conf=conf)) == [
        'conf["yarn.scheduler.capacity.root.a.user-limit-factor"]: not read by the model'
    ]


def test_qdata_derived_mismatch_is_a_warning_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    ScriptedPolicy().install(monkeypatch)
    case = qdata_case([{"expect": [NOTHING_HAPPENS]}])
    case["input"]["derived"] = {"cluster_memory": 101, "cluster_vcores": 100}
    assert run_case(case) == ["input.derived.cluster_memory: the case's derived value is 101, the parse gives 100"]


# --- unit: sort orders --------------------------------------------------------------------------------


def unit_case(order: list[str]) -> dict[str, Any]:
    return {
        "id": "T.unit",
        "notation": "unit",
        "resource_calculator": "default",
        "conf": {},
        "input": {
            "containers": [
                {"name": "x", "container_id": 1, "priority": 1},
                {"name": "y", "container_id": 2, "priority": 1},
                {"name": "z", "container_id": 3, "priority": 5},
            ],
            "insertion_order": ["y", "z", "x"],
        },
        "rounds": [{"expect": [], "sorted_order": order}],
    }


def test_unit_feeds_insertion_order_and_compares_names(monkeypatch: pytest.MonkeyPatch) -> None:
    fed: list[list[int]] = []

    def reverse_of_input(containers: Any) -> Any:
        fed.append([c.container_id.number for c in containers])
        return list(reversed(list(containers)))

    monkeypatch.setattr(hadoop, "victim_order_of_containers", reverse_of_input)
    assert run_case(unit_case(["x", "z", "y"])) == []
    assert fed == [[2, 3, 1]]
    with pytest.raises(ExpectationMismatch) as caught:
        run_case(unit_case(["z", "y", "x"]))
    assert caught.value.place == "rounds[0].sorted_order"
    assert caught.value.actual == ["x", "z", "y"]


def test_unit_with_the_reference_ordering(tmp_path: Path) -> None:
    """Larger priority value first, then newer container first (testContainerOrdering)."""
    outcome = runner.run_one(write_case(tmp_path, unit_case(["z", "y", "x"])))
    assert outcome.verdict is CaseVerdict.PASS, outcome.detail


# --- properties of the counting -------------------------------------------------------------------------

KINDS = list(EventType)


@st.composite
def scripts(draw: st.DrawFn) -> list[list[Pick]]:
    """Up to four rounds of events on the three applications of ``MOCK_INPUT``."""
    pick = st.builds(Pick, st.sampled_from([1, 2, 3]), st.integers(1, 20), st.sampled_from(KINDS))
    return draw(st.lists(st.lists(pick, max_size=6), min_size=1, max_size=4))


def true_counts(script: list[list[Pick]]) -> list[dict[tuple[int, EventType], int]]:
    """Cumulative counts per (application, kind) after each round, counted independently."""
    running: dict[tuple[int, EventType], int] = {}
    after: list[dict[tuple[int, EventType], int]] = []
    for picks in script:
        for p in picks:
            running[(p.app, p.kind)] = running.get((p.app, p.kind), 0) + 1
        after.append(dict(running))
    return after


@settings(max_examples=40)
@given(scripts(), st.data())
def test_true_cumulative_counts_pass_and_any_wrong_one_fails_at_its_place(
    script: list[list[Pick]], data: st.DataObject
) -> None:
    rounds = [
        {"expect": [expect(app, counts.get((app, kind), 0), kind.value) for app in (1, 2, 3) for kind in KINDS]}
        for counts in true_counts(script)
    ]
    with pytest.MonkeyPatch.context() as patch:
        ScriptedPolicy(script).install(patch)
        assert run_case(mock_case(rounds)) == []
        r = data.draw(st.integers(0, len(rounds) - 1))
        e = data.draw(st.integers(0, len(rounds[r]["expect"]) - 1))
        rounds[r]["expect"][e]["count"] += data.draw(st.sampled_from([-1, 1])) if rounds[r]["expect"][e]["count"] else 1
        with pytest.raises(ExpectationMismatch) as caught:
            run_case(mock_case(rounds))
    assert caught.value.place == f"rounds[{r}].expect[{e}]"


# --- the documentation's example ---------------------------------------------------------------------------


def test_the_example_in_case_format_md_passes(tmp_path: Path) -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "case-format.md").read_text(encoding="utf-8")
    example = doc.split("```json\n", 1)[1].split("```", 1)[0]
    outcome = runner.run_one(write_case(tmp_path, example))
    assert (outcome.verdict, outcome.detail) == (CaseVerdict.PASS, "")
