"""``spark-dispatch``: taskset cases as sessions, generated sessions, simulated traces, and
taskset case files."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from yarnspec.checks.validate.families.family import Family
from yarnspec.checks.validate.reference import MIN_TIME_TO_SPECULATION_MS, Dispatch
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.spark_dispatch import RESET, STEP_OPS

#: Case step ops with another name (or fixed args) in the protocol.
RENAMED = {"check": "observe"}


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """A taskset case as a reset and its steps (PROTOCOL.md); a case using something the
    protocol does not carry (mocked exclusion conditions, task-location parsing) is skipped."""
    inp = dict(case.get("input", {}))
    if "parse" in inp:
        return "a TaskLocation parsing case, not a dispatch session"
    steps = case.get("steps", [])
    by_submit = any(step.get("op") == "submit_task_set" and not step.get("args") for step in steps)
    pending = inp.pop("task_set", None) if by_submit else None
    calls = [Call(RESET, inp)]
    for index, step in enumerate(steps):
        op, args = RENAMED.get(step["op"], step["op"]), dict(step.get("args", {}))
        if step.get("conditions"):
            return f"steps[{index}]: mocked exclusion conditions are not in the protocol"
        if op == "check_speculatable_tasks":
            if args.get("min_time_to_speculation_ms") != MIN_TIME_TO_SPECULATION_MS:
                return f"steps[{index}]: check_speculatable_tasks with a minimum other than Spark's {MIN_TIME_TO_SPECULATION_MS} ms"
            op, args = "check_speculatable", {}
        elif op == "submit_task_set" and not args:
            args = dict(pending or {})
        elif op == "observe":
            args = {}
        if op not in STEP_OPS:
            return f"steps[{index}]: op {op!r} is not in the protocol"
        calls.append(Call(op, args))
    return calls


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """Taskset cases are compared step by step with the reference, which passes them."""
    return []


HOSTS = ("host1", "host2", "host3")
WAITS = ("0", "1s", "3s")
#: Clock steps on both sides of the locality waits (1 s, 3 s).
CLOCK_STEPS = (0, 300, 700, 1000, 2000, 3500)
#: Where the generated scenarios' clock starts (``TaskInfo.markFinished`` asserts time > 0).
CLOCK_START_MS = 1000


def _reset(executors: list[tuple[str, str]], racks: dict[str, str], wait: str, legacy: bool) -> Call:
    return Call(
        RESET,
        {
            "scheduler": "TaskSchedulerImpl",
            "scheduling_mode": "FIFO",
            "executors": [list(pair) for pair in executors],
            "host_rack": racks,
            "conf": {"spark.locality.wait": wait, "spark.locality.wait.legacyResetOnTaskLaunch": legacy},
            # a real driver's clock is never 0: Spark asserts a task finishes at a time > 0
            "clock_start_ms": CLOCK_START_MS,
        },
    )


def _task_set(stage: int, preferences: list[list[dict[str, str]]]) -> Call:
    return Call("submit_task_set", {"stage_id": stage, "stage_attempt_id": 0, "priority": stage, "tasks": preferences})


def _offers(executors: Sequence[tuple[str, str]], cores: Sequence[int]) -> Call:
    offers = [{"exec_id": e, "host": h, "cores": c} for (e, h), c in zip(executors, cores)]
    return Call("scheduler_resource_offers", {"offers": offers, "is_all_free_resources": True, "shuffle": "none"})


def _preference(executors: Sequence[tuple[str, str]], kind: str, which: int) -> dict[str, str]:
    executor, host = executors[which % len(executors)]
    if kind == "executor":
        return {"kind": "executor", "host": host, "executor": executor}
    return {"kind": "host", "host": HOSTS[which % len(HOSTS)]}


@st.composite
def _inputs(draw: st.DrawFn) -> list[Call]:
    count = draw(st.integers(1, 3))
    executors = [(f"exec{i}", draw(st.sampled_from(HOSTS))) for i in range(1, count + 1)]
    racks = {h: draw(st.sampled_from(("rack1", "rack2"))) for h in HOSTS}
    calls = [_reset(executors, racks, draw(st.sampled_from(WAITS)), draw(st.booleans()))]
    pref = st.builds(
        lambda k, w: _preference(executors, k, w), st.sampled_from(("host", "executor")), st.integers(0, 5)
    )
    calls.append(_task_set(0, draw(st.lists(st.lists(pref, max_size=2), min_size=1, max_size=4))))
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            calls.append(Call("advance_clock", {"ms": draw(st.sampled_from(CLOCK_STEPS))}))
        chosen = draw(st.lists(st.sampled_from(executors), min_size=1, max_size=len(executors), unique=True))
        calls.append(_offers(chosen, [draw(st.integers(1, 2)) for _ in chosen]))
    return calls


def inputs() -> st.SearchStrategy[list[Call]]:
    """A fresh scheduler, one task set with random preferences, a few clock steps and offers."""
    return _inputs()


def simulate(seed: int, length: int) -> list[Call]:
    """One seeded trace: every step is drawn from what the reference's state allows (tasks that
    run can succeed or fail, new stages arrive, executors are decommissioned), so the trace
    exercises completions and failures that a blind generator cannot name."""
    rng = random.Random(seed)
    executors = [(f"exec{i}", rng.choice(HOSTS)) for i in range(1, rng.randint(2, 4))]
    racks = {h: rng.choice(("rack1", "rack2")) for h in HOSTS}
    reference = Dispatch()
    calls = [_reset(executors, racks, rng.choice(WAITS), rng.random() < 0.3)]
    reference.reset(calls[0].input)
    stage = 0
    running: list[int] = []
    for _ in range(length):
        options = ["offers", "offers", "clock"]
        if running:
            options += ["success", "success", "failure"]
        if stage < 3:
            options.append("submit")
        choice = rng.choice(options) if len(calls) > 1 else "submit"
        if choice == "submit":
            # mostly host preferences, some on hosts without an executor: delay scheduling at work
            kinds = ("host", "host", "host", "executor")
            tasks = [
                [_preference(executors, rng.choice(kinds), rng.randrange(6)) for _ in range(rng.randint(0, 2))]
                for _ in range(rng.randint(1, 6))
            ]
            call = _task_set(stage, tasks)
            stage += 1
        elif choice == "offers":
            # often one executor with one core: the offers that delay scheduling turns down
            chosen = rng.sample(executors, 1 if rng.random() < 0.5 else rng.randint(1, len(executors)))
            call = _offers(chosen, [rng.randint(1, 2) for _ in chosen])
        elif choice == "clock":
            call = Call("advance_clock", {"ms": rng.choice(CLOCK_STEPS[1:])})
        elif choice == "success":
            call = Call("handle_successful_task", {"task_id": rng.choice(running)})
        else:
            reason = rng.choice(({"type": "ExceptionFailure"}, {"type": "TaskKilled"}, {"type": "TaskResultLost"}))
            call = Call("handle_failed_task", {"task_id": rng.choice(running), "state": "FAILED", "reason": reason})
        observation = reference.step(call.op, call.input)
        calls.append(call)
        latest = [ts for ts in observation["task_sets"] if ts["stage"] == f"{stage - 1}.0"]
        running = list(latest[0]["running_task_ids"]) if latest else []
    return calls


def to_case(case_id: str, calls: Sequence[Call], reference: Sequence[Answer]) -> dict[str, Any]:
    """A taskset case replaying the calls, each offer round expecting the reference's tasks
    (as sets: the case vocabulary lists them offer by offer, the protocol by task id)."""
    steps = []
    for call, answer in zip(calls[1:], reference[1:]):
        op, args = call.op, call.input
        if op == "observe":
            op = "check"
        elif op == "check_speculatable":
            op, args = "check_speculatable_tasks", {"min_time_to_speculation_ms": MIN_TIME_TO_SPECULATION_MS}
        step: dict[str, Any] = {"op": op, "args": args}
        launched = (answer.output or {}).get("launched", [])
        if op == "scheduler_resource_offers":
            step["expect"] = {
                "num_tasks": len(launched),
                "executor_ids": [t["executor_id"] for t in launched],
                "task_indices": [t["index"] for t in launched],
                "task_localities": [t["locality"] for t in launched],
                "stages": [t["stage"] for t in launched],
            }
        steps.append(step)
    return {
        "id": case_id,
        "kind": "taskset",
        "source": {"generated_by": "yarnspec validate", "repo": None},
        "input": calls[0].input,
        "steps": steps,
        "order_sensitive": False,
    }


FAMILY = Family(
    "spark-dispatch", "kind", frozenset({"taskset"}), case_calls, case_expectations, inputs, to_case, simulate
)
