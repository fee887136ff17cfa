"""``yarnspec prove`` through its ``add_arguments`` / ``run`` pair, and the ``check`` row."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from yarnspec.checks.commands import prove as prove_command
from yarnspec.checks.conformance.runner import run_all
from yarnspec.checks.symbolic.domain import Bound
from yarnspec.impl.errors import InputError


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="yarnspec prove")
    prove_command.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_list_names_every_proof_with_its_statement_and_bound(capsys: pytest.CaptureFixture[str]) -> None:
    """``--list`` shows qualified names, default bounds, statements, and marks findings."""
    assert prove_command.run(_args("--list")) == 0
    out = capsys.readouterr().out
    assert "default/sum-within-parent-plus-untouchable  [default bound K=4, S=4]" in out
    assert "placement/placement-nested" in out
    assert "dominant/more-pending-never-lowers-ideal" in out and "(finding" in out


def test_a_proved_run_prints_the_verdict_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    """Two quick proofs at a small bound: one line each, the summary, exit 0."""
    code = prove_command.run(_args("default/targets-within-budget", "placement-length", "--bound", "2,2"))
    out = capsys.readouterr().out
    assert code == 0
    assert "PROVED          default/targets-within-budget  (default calculator, hadoop-3, K=2, S=2" in out
    assert "PROVED          placement/placement-length  (placement, hosts=2, containers<=4, need<=2" in out
    assert out.rstrip().splitlines()[-1].startswith("2 proved, 0 not proved, of 2")


def test_tiny_queue_reports_the_replayed_counterexample_and_writes_the_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--variant tiny-queue``: a counterexample with the reference's figures, exit 1, and a
    case file that ``yarnspec conform`` passes."""
    case = tmp_path / "out" / "yarn-11073.json"
    code = prove_command.run(
        _args("dominant/lone-queue-not-preempted", "--variant", "tiny-queue", "--bound", "1,2", "--case-out", str(case))
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "COUNTEREXAMPLE  dominant/lone-queue-not-preempted" in out
    assert "replayed on the reference implementation: reproduces the failure" in out
    assert f"case file: {case}" in out
    [outcome] = run_all([case])
    assert outcome.verdict.value == "PASS"


def test_json_output_is_one_document(capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` prints the results, the summary and no case file."""
    assert prove_command.run(_args("placement/placement-nested", "--bound", "2,2", "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in data["results"]] == ["placement/placement-nested"]
    assert data["results"][0]["verdict"] == "proved" and data["case_file"] is None


@pytest.mark.parametrize(
    "argv,place,fault",
    [
        (["no-such-proof"], "NAME[0]", "no proof named 'no-such-proof'"),
        (["--variant", "hadoop-2"], "--variant", "expected one of hadoop-3, tiny-queue"),
        (["--bound", "4"], "--bound", "expected two whole numbers"),
        (["--bound", "9,4"], "--bound", "children must be 1..8"),
        (["--timeout", "soon"], "--timeout", "expected a whole number, got"),
        (["placement-length", "--variant", "tiny-queue"], "--variant", "the placement proofs do not read guarantees"),
    ],
)
def test_bad_arguments_are_one_input_error(argv: list[str], place: str, fault: str) -> None:
    """Every bad argument is an :class:`InputError` naming the option and the fault."""
    with pytest.raises(InputError) as caught:
        prove_command.run(_args(*argv))
    assert caught.value.place == place
    assert fault in caught.value.fault


def test_the_check_row_counts_every_catalogue_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    """One row: every catalogue proof at the check bounds (shrunk here), all proved."""
    monkeypatch.setattr(
        prove_command, "CHECK_BOUNDS", {"default": Bound(1, 2), "dominant": Bound(1, 1), "placement": Bound(2, 2)}
    )
    [row] = prove_command.check_rows()
    expected = len(prove_command.select((), False, "hadoop-3"))
    assert (row.name, row.total, row.proved, row.failed) == ("z3 proofs", expected, expected, 0)
    assert "default K=1, S=2" in row.note
