"""The model's side of the ``spark-dispatch`` contract: each op maps to the model and every
observation carries what the protocol defines (launches of this step, registered task sets,
newly speculatable tasks)."""

from __future__ import annotations

from typing import Any

import pytest

from yarnspec.checks.validate.spark.model import ModelDispatchSession
from yarnspec.checks.validate.spark.process import AdapterError


def _session(conf: dict[str, str] | None = None, **extra: Any) -> ModelDispatchSession:
    session = ModelDispatchSession()
    session.reset(
        {
            "scheduler": "TaskSchedulerImpl",
            "executors": [["e1", "host1"]],
            "host_rack": {},
            "conf": {"spark.locality.wait": "0", **(conf or {})},
            "clock_start_ms": 1000,
            **extra,
        }
    )
    return session


def _submit(session: ModelDispatchSession, stage: int, hosts: list[str | None]) -> dict[str, Any]:
    tasks = [[] if h is None else [{"kind": "host", "host": h}] for h in hosts]
    return session.step("submit_task_set", {"stage_id": stage, "stage_attempt_id": 0, "priority": 0, "tasks": tasks})


def _offer(session: ModelDispatchSession, executor: str, host: str, cores: int) -> dict[str, Any]:
    return session.step("scheduler_resource_offers", {"offers": [{"exec_id": executor, "host": host, "cores": cores}]})


def test_an_offer_round_reports_its_launches_and_the_registered_sets() -> None:
    session = _session()
    submitted = _submit(session, 0, ["host1", "host1"])
    assert submitted == {
        "launched": [],
        "task_sets": [
            {
                "stage": "0.0",
                "my_locality_levels": ["NODE_LOCAL", "ANY"],
                "running_task_ids": [],
                "successful_indices": [],
                "zombie": False,
                "failed": False,
            }
        ],
    }
    offered = _offer(session, "e1", "host1", 2)
    assert [
        (t["task_id"], t["index"], t["executor_id"], t["locality"], t["speculative"]) for t in offered["launched"]
    ] == [
        (0, 0, "e1", "NODE_LOCAL", False),
        (1, 1, "e1", "NODE_LOCAL", False),
    ]
    assert offered["task_sets"][0]["running_task_ids"] == [0, 1]
    assert "speculatable" not in offered
    # the next step launches nothing: "launched" is per step
    done = session.step("handle_successful_task", {"task_id": 1})
    assert done["launched"] == [] and done["task_sets"][0]["successful_indices"] == [1]
    assert done["task_sets"][0]["running_task_ids"] == [0]
    # the last success finishes the set, which is then no longer registered
    assert session.step("handle_successful_task", {"task_id": 0})["task_sets"] == []


def test_task_ends_go_to_the_set_that_launched_the_task() -> None:
    session = _session()
    _submit(session, 0, [None])
    _offer(session, "e1", "host1", 1)
    _submit(session, 1, [None])
    failed = session.step(
        "handle_failed_task", {"task_id": 0, "state": "FAILED", "reason": {"type": "ExceptionFailure"}}
    )
    first = failed["task_sets"][0]
    assert first["stage"] == "0.0" and first["running_task_ids"] == [] and not first["failed"]
    # task 0 was queued again in its own set: the next offer relaunches index 0 of stage 0
    again = _offer(session, "e1", "host1", 1)
    assert [(t["task_id"], t["stage"], t["index"]) for t in again["launched"]] == [(1, "0.0", 0)]


def test_an_aborted_set_shows_failed_while_a_task_still_runs() -> None:
    session = _session(max_task_failures=1)
    _submit(session, 0, [None, None])
    _offer(session, "e1", "host1", 2)
    aborted = session.step(
        "handle_failed_task", {"task_id": 0, "state": "FAILED", "reason": {"type": "ExceptionFailure"}}
    )
    assert aborted["task_sets"][0]["failed"] and aborted["task_sets"][0]["zombie"]
    assert (
        session.step("handle_failed_task", {"task_id": 1, "state": "KILLED", "reason": {"type": "TaskKilled"}})[
            "task_sets"
        ]
        == []
    )


def test_check_speculatable_reports_the_newly_marked_indices() -> None:
    session = _session(
        {"spark.speculation": "true", "spark.speculation.quantile": "0.5", "spark.speculation.minTaskRuntime": "0"}
    )
    _submit(session, 0, [None, None])
    _offer(session, "e1", "host1", 2)
    session.step("advance_clock", {"ms": 100})
    session.step("handle_successful_task", {"task_id": 0})
    session.step("advance_clock", {"ms": 10_000})
    checked = session.step("check_speculatable", {})
    assert checked["speculatable"] == [1]
    assert session.step("check_speculatable", {})["speculatable"] == [], "only newly marked indices"
    copy = _offer(session, "e2", "host2", 1)
    assert [(t["index"], t["speculative"]) for t in copy["launched"]] == [(1, True)]


def test_executors_lost_and_decommissioned_change_the_levels() -> None:
    session = _session()
    _submit(session, 0, ["host1"])
    assert session.step("scheduler_decommission_executor", {"exec_id": "e1", "worker_host": None})["task_sets"][0][
        "my_locality_levels"
    ] == ["ANY"]
    _offer(session, "e2", "host1", 0)
    lost = session.step("scheduler_executor_lost", {"exec_id": "e2", "reason": {"type": "ExecutorKilled"}})
    assert lost["task_sets"][0]["my_locality_levels"] == ["ANY"]


@pytest.mark.parametrize(
    ("op", "args", "fault"),
    [
        ("bogus", {}, "unknown op bogus"),
        ("handle_successful_task", {"task_id": 7}, "handle_successful_task: unknown 7"),
        ("set_zombie", {"value": True}, "set_zombie needs a task set, and none was submitted"),
        ("handle_failed_task", {"task_id": 0, "reason": {"type": "Oops"}}, "unknown task end reason 'Oops'"),
    ],
)
def test_refused_steps_are_errors_of_the_protocol(op: str, args: dict[str, Any], fault: str) -> None:
    session = _session()
    if op == "handle_failed_task":
        _submit(session, 0, [None])
        _offer(session, "e1", "host1", 1)
    with pytest.raises(AdapterError, match=fault):
        session.step(op, args)


def test_a_step_before_reset_and_a_test_scheduler_are_refused() -> None:
    with pytest.raises(AdapterError, match='send "reset" first'):
        ModelDispatchSession().step("observe", {})
    with pytest.raises(AdapterError, match="only TaskSchedulerImpl"):
        ModelDispatchSession().reset({"scheduler": "FakeTaskScheduler"})
    with pytest.raises(AdapterError, match="unknown variant 'spark-0.1'"):
        ModelDispatchSession().reset({"variant": "spark-0.1"})
