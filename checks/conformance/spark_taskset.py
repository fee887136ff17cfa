"""Runner for ``kind: taskset`` cases: Spark's TaskSetManagerSuite and TaskSchedulerImplSuite
replayed against :mod:`yarnspec.impl.spark.taskset.task_set_manager` and :mod:`yarnspec.impl.spark.task_scheduler`.

A case builds a scheduler (Spark's test scheduler ``FakeTaskScheduler`` or the real
``TaskSchedulerImpl``), optionally a task set manager from ``input.task_set``, and replays
``steps[]`` of ``{op, args, expect}`` on a logical clock. After each step every key of its
``expect`` is compared with the model; the first difference is a FAIL naming its JSON place.

* Keys under ``derived`` and explanatory keys (``*_note``, ``notes``, ``comment``, ``note``,
  ``spark_derivation``, ``skipped_assertion``) never decide the verdict; a mismatch on a
  ``derived`` key, and every skipped upstream assertion, come back as warnings.
* ``task_defined: true`` only asks that the offer returned a task.
* ``order_sensitive: false`` compares lists as multisets (``started_task_indices``, which
  Spark turns into a set, as a set); ``true`` compares sequences.
* ``shuffle: "random"`` on an offer round means the expectation must hold for every order of
  the offers: the round is replayed from the same state in every order (all permutations up
  to 6 offers, else 48 seeded shuffles) and the case continues from the given order.
* An op, argument, condition, configuration key or expectation key this runner does not
  read is UNSUPPORTED with its place; a malformed value is a FAIL naming the place.

Every op and expectation key the runner reads is listed in ``docs/spark-dispatch.md``
("Conformance cases").

The case is read by :mod:`~yarnspec.checks.conformance.spark_taskset_case`, replayed by
:mod:`~yarnspec.checks.conformance.spark_taskset_replay` and its expectations compared by
:mod:`~yarnspec.checks.conformance.spark_taskset_expectations`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_object,
    child,
    reject_unknown_keys,
    require_step_assertions,
    required,
)
from yarnspec.checks.conformance.spark_taskset_case import CaseStep, parse_input, parse_steps
from yarnspec.checks.conformance.spark_taskset_replay import StepOutcome, start_replay

_TOP_LEVEL = ("id", "source", "kind", "input", "steps", "expect", "order_sensitive")


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay one ``kind: taskset`` case; return its warnings or raise (module docstring)."""
    reject_unknown_keys(case, _TOP_LEVEL, "")
    case_input = parse_input(required(case, "input", ""))
    # a case that only parses locations may leave out its steps
    steps = parse_steps(required(case, "steps", "") if "steps" in case or not case_input.parsed else [])
    order_sensitive = as_bool(case.get("order_sensitive", True), "order_sensitive")
    final = as_object(case.get("expect", {}), "expect")
    creates_by_submit = any(step.op == "submit_task_set" and not step.args for step in steps)
    replay = start_replay(case_input, order_sensitive, creates_by_submit)
    for step in steps:
        outcome = replay.run_step(step)
        replay.compare(step, outcome)
        if step.skipped_assertion:
            replay.warnings.append(
                f"{child(step.place, 'skipped_assertion')}: upstream assertion not replayed: {step.skipped_assertion}"
            )
    if final:
        closing = CaseStep("", "check", {}, final, {}, None)
        replay.compare(closing, StepOutcome())
    require_step_assertions(case)
    return replay.warnings


__all__ = ["run_case"]
