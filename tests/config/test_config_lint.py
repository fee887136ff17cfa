"""``yarnspec config`` on keys beyond the queue tree (unknown, not modelled, ignored, --strict)
and ``--diff`` with the refresh rules of CapacityScheduler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.checks import cli
from yarnspec.checks.configuration.lint import QUEUE_IGNORED, QUEUE_READ, lint
from yarnspec.impl.config.hadoop_xml import HadoopConfiguration, format_configuration
from yarnspec.impl.config.scheduler import load_scheduler_configuration, scheduler_configuration

PROJECT = Path(__file__).resolve().parents[2]
CLUSTER = PROJECT / "docs" / "examples" / "cluster"
BASE = {
    "yarn.scheduler.capacity.root.queues": "a,b",
    "yarn.scheduler.capacity.root.a.capacity": "60",
    "yarn.scheduler.capacity.root.b.capacity": "40",
}


def write(path: Path, properties: dict[str, str]) -> Path:
    path.write_text(format_configuration(properties), encoding="utf-8")
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def test_typos_get_a_did_you_mean_and_unmodelled_settings_are_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(
        ["config", str(CLUSTER / "capacity-scheduler-typos.xml"), str(CLUSTER / "yarn-site.xml"), "--json"], capsys
    )
    assert status == 0
    document = json.loads(out)
    hints = [w["text"] for w in document["warnings"] if "did you mean" in w["text"]]
    assert {w["id"] for w in document["warnings"]} == {"unknown-key"}
    assert len(hints) == 3
    assert any(w.endswith("did you mean yarn.scheduler.capacity.root.prod.etl.maximum-capacity?") for w in hints)
    assert any(w.endswith("did you mean yarn.scheduler.capacity.node-locality-delay?") for w in hints)
    assert any(
        w.endswith("did you mean yarn.resourcemanager.monitor.capacity.preemption.natural_termination_factor?")
        for w in hints
    )
    # intra-queue preemption is modelled now (issue 13): only the auto-created queues are flagged
    assert [n["key"].rsplit(".", 2)[-2:] for n in document["not_modelled"]] == [["auto-create-child-queue", "enabled"]]
    assert document["ignored"] == ["yarn.scheduler.capacity.root.prod.etl.acl_submit_applications"]


def test_strict_turns_warnings_into_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    typos = [str(CLUSTER / "capacity-scheduler-typos.xml"), str(CLUSTER / "yarn-site.xml")]
    clean = [str(CLUSTER / "capacity-scheduler.xml"), str(CLUSTER / "yarn-site.xml")]
    assert run(["config", *typos, "--strict"], capsys)[0] == 1
    assert run(["config", *typos], capsys)[0] == 0
    assert run(["config", *clean, "--strict"], capsys)[0] == 0


def test_a_queue_reader_warning_counts_for_strict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a property of a queue missing from root.queues: the queue reader's warning, not lint's
    path = write(tmp_path / "capacity-scheduler.xml", {**BASE, "yarn.scheduler.capacity.root.c.capacity": "5"})
    status, out = run(["config", str(path), "--strict"], capsys)
    assert status == 1 and "queue root.c is not in" in out and "did you mean" not in out


WORD = st.from_regex(r"[a-z][a-z_-]{0,18}", fullmatch=True).filter(
    lambda w: w not in QUEUE_READ | QUEUE_IGNORED | {"a", "b"}
)


@given(word=WORD)
def test_every_unknown_queue_setting_is_reported(word: str) -> None:
    key = f"yarn.scheduler.capacity.root.a.{word}"
    conf = scheduler_configuration(HadoopConfiguration.of({**BASE, key: "1"}))
    assert [f.kind for f in lint(conf) if f.key == key] == ["unknown"]


@given(setting=st.sampled_from(sorted(QUEUE_READ | QUEUE_IGNORED)))
def test_known_queue_settings_are_never_unknown(setting: str) -> None:
    key = f"yarn.scheduler.capacity.root.b.{setting}"
    value = {"queues": "", "state": "RUNNING", "ordering-policy": "fifo", "accessible-node-labels": "*"}.get(
        setting, "true" if "enabled" in setting or setting in ("disable_preemption", "reservable") else "1"
    )
    if setting in ("capacity", "queues"):
        return
    try:
        conf = scheduler_configuration(HadoopConfiguration.of({**BASE, key: value}))
    except Exception:  # a value the reader refuses is not what this test is about
        return
    assert all(f.kind != "unknown" for f in lint(conf) if f.key == key)


# -- --diff ---------------------------------------------------------------------------------


def diff(
    tmp_path: Path, old: dict[str, str], new: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, object]]:
    a = write(tmp_path / "old-capacity-scheduler.xml", old)
    b = write(tmp_path / "new-capacity-scheduler.xml", new)
    status, out = run(["config", "--diff", str(a), str(b), "--json"], capsys)
    result: dict[str, object] = json.loads(out)
    return status, result


def reasons(result: dict[str, object]) -> list[str]:
    refusals = result["refusals"]
    assert isinstance(refusals, list)
    return [f"{r['queue']}: {r['reason']}" for r in refusals]


def test_removing_a_running_queue_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = {"yarn.scheduler.capacity.root.queues": "a", "yarn.scheduler.capacity.root.a.capacity": "100"}
    status, result = diff(tmp_path, BASE, new, capsys)
    assert status == 1 and reasons(result) == [
        "root.b: cannot be deleted: it is RUNNING, not yet STOPPED (set yarn.scheduler.capacity.root.b.state to STOPPED, "
        "refresh, let its applications finish, then remove it)"
    ]


@pytest.mark.parametrize("where", ["old", "new"])
def test_removing_a_stopped_queue_is_accepted(where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = {**BASE, "yarn.scheduler.capacity.root.b.state": "STOPPED"} if where == "old" else BASE
    new = {"yarn.scheduler.capacity.root.queues": "a", "yarn.scheduler.capacity.root.a.capacity": "100"}
    if where == "new":
        new["yarn.scheduler.capacity.root.b.state"] = "STOPPED"
    status, result = diff(tmp_path, old, new, capsys)
    assert status == 0 and reasons(result) == []
    assert {
        "queue": "root.b",
        "change": "removed",
        "details": [f"was leaf, {'STOPPED' if where == 'old' else 'RUNNING'}"],
    } in result["changes"]  # type: ignore[operator]


def _with_children(base: dict[str, str], state: str | None = None) -> dict[str, str]:
    conf = {**base, "yarn.scheduler.capacity.root.b.queues": "x", "yarn.scheduler.capacity.root.b.x.capacity": "100"}
    if state:
        conf["yarn.scheduler.capacity.root.b.state"] = state
    return conf


def test_leaf_to_parent_needs_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, result = diff(tmp_path, BASE, _with_children(BASE), capsys)
    assert status == 1 and reasons(result) == [
        "root.b: a leaf cannot become a parent unless it is STOPPED (it is RUNNING)"
    ]
    status, result = diff(
        tmp_path, {**BASE, "yarn.scheduler.capacity.root.b.state": "STOPPED"}, _with_children(BASE), capsys
    )
    assert status == 0, result


def test_parent_conversions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = _with_children(BASE)
    status, result = diff(tmp_path, parent, BASE, capsys)  # its running child goes: refused
    assert status == 1 and reasons(result)[0].startswith("root.b.x: cannot be deleted")
    stopped_child = {**parent, "yarn.scheduler.capacity.root.b.x.state": "STOPPED"}
    status, result = diff(tmp_path, stopped_child, BASE, capsys)  # parent -> leaf: allowed
    assert status == 0, result
    managed = {**BASE, "yarn.scheduler.capacity.root.b.auto-create-child-queue.enabled": "true"}
    status, result = diff(
        tmp_path, parent, {**parent, "yarn.scheduler.capacity.root.b.auto-create-child-queue.enabled": "true"}, capsys
    )
    assert status == 1 and "cannot become an auto-creating parent" in reasons(result)[0]
    status, result = diff(tmp_path, managed, BASE, capsys)
    assert status == 1 and "cannot stop being one" in reasons(result)[0]


def test_diff_reports_resource_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = {**BASE, "yarn.scheduler.capacity.root.a.capacity": "70", "yarn.scheduler.capacity.root.b.capacity": "30"}
    a = write(tmp_path / "a-capacity-scheduler.xml", BASE)
    b = write(tmp_path / "b-capacity-scheduler.xml", new)
    status, out = run(["config", "--diff", str(a), str(b), "--partition", "=1000:10"], capsys)
    assert status == 0
    # 0.7 as a Java float times 1000 is 699.99994: truncated per type, as Hadoop does
    assert (
        'root.a: changed\n    capacity 60 -> 70 (absolute 60% -> 70%)\n    guaranteed in "": <600, 6> -> <699, 6>'
        in out
    )
    assert "Accepted by yarn rmadmin -refreshQueues" in out


def test_diff_with_an_invalid_new_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = {**BASE, "yarn.scheduler.capacity.root.a.capacity": "70"}
    status, result = diff(tmp_path, BASE, new, capsys)
    assert status == 1 and result["refused"] is True and "sum to 110" in str(result["error"])


def test_the_example_diff(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(
        ["config", "--diff", str(CLUSTER / "capacity-scheduler.xml"), str(CLUSTER / "capacity-scheduler-next.xml")],
        capsys,
    )
    assert status == 1
    assert "root.adhoc.sandbox: removed" in out and "root.eng.batch.backfill: a leaf cannot become a parent" in out


def test_missing_files_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(["config"], capsys)
    assert status == 2 and out.count("\n") == 1 and "--diff OLD NEW" in out


def test_unknown_key_in_a_loaded_file_has_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "capacity-scheduler.xml", {**BASE, "yarn.scheduler.capacity.root.a.user-limit-facter": "2"})
    [finding] = [f for f in lint(load_scheduler_configuration([path])) if f.kind == "unknown"]
    assert finding.location.startswith(f"{path}:") and finding.message.endswith(
        "did you mean yarn.scheduler.capacity.root.a.user-limit-factor?"
    )
