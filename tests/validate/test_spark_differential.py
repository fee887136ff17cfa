"""The differential machinery without Spark: how observations are compared, that generated
scenarios are valid and reproducible, that the model agrees with itself on every one, and
that a broken implementation is caught and shrunk to a short scenario."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.validate.spark.differential import (
    Disagreement,
    ModelDriver,
    category,
    differences,
    placement_model,
    replay,
    shrink,
)
from yarnspec.checks.validate.spark.scenarios import DispatchScenario, generate_dispatch, generate_placement

_SET = {
    "stage": "0.0",
    "my_locality_levels": ["NODE_LOCAL", "ANY"],
    "running_task_ids": [3, 1],
    "successful_indices": [0],
    "zombie": False,
    "failed": False,
}
_LAUNCH = {
    "task_id": 1,
    "stage": "0.0",
    "index": 0,
    "executor_id": "e1",
    "host": "h",
    "locality": "ANY",
    "speculative": False,
}


def _observation(**changes: Any) -> dict[str, Any]:
    task_set = {**_SET, **changes.pop("task_set", {})}
    return {"launched": [_LAUNCH, {**_LAUNCH, "task_id": 2, "index": 1}], "task_sets": [task_set], **changes}


def test_equal_observations_agree_and_id_lists_are_sets() -> None:
    assert differences(_observation(), _observation()) == []
    assert differences(_observation(), _observation(task_set={"running_task_ids": [1, 3]})) == []


def test_each_field_is_compared() -> None:
    base = _observation()
    swapped = _observation(launched=list(reversed(base["launched"])))
    assert differences(base, swapped) == ["launched"]
    assert differences(base, _observation(task_set={"my_locality_levels": ["ANY", "NODE_LOCAL"]})) == [
        "task_sets[0.0].my_locality_levels"
    ]
    assert differences(base, _observation(task_set={"running_task_ids": [1]})) == ["task_sets[0.0].running_task_ids"]
    assert differences(base, _observation(task_set={"successful_indices": []})) == ["task_sets[0.0].successful_indices"]
    assert differences(base, _observation(task_set={"zombie": True, "failed": True})) == [
        "task_sets[0.0].failed",
        "task_sets[0.0].zombie",
    ]
    assert differences(base, {**base, "task_sets": []}) == ["task_sets"]
    assert differences({**base, "speculatable": [1, 2]}, {**base, "speculatable": [2, 1]}) == []
    assert differences({**base, "speculatable": [1]}, {**base, "speculatable": []}) == ["speculatable"]
    assert category("task_sets[3.1].zombie") == "task_sets[*].zombie"


def test_a_field_one_side_omits_is_not_compared() -> None:
    partial = _observation()
    del partial["task_sets"][0]["successful_indices"]
    assert differences(partial, _observation(task_set={"successful_indices": [4]})) == []


def _scenario(seed: int) -> DispatchScenario:
    generator = ModelDriver()
    return generate_dispatch(seed, generator.reset, generator.step)


@settings(max_examples=40)
@given(st.integers(min_value=0, max_value=10**6))
def test_the_model_agrees_with_itself_on_every_generated_scenario(seed: int) -> None:
    scenario = _scenario(seed)
    assert replay(scenario, ModelDriver(), ModelDriver()) is None


@settings(max_examples=40)
@given(st.integers(min_value=0, max_value=10**6))
def test_generated_steps_name_only_tasks_that_are_running(seed: int) -> None:
    scenario = _scenario(seed)
    driver = ModelDriver()
    driver.reset(scenario.reset)
    running: set[int] = set()
    for op, args in scenario.steps:
        if op in ("handle_successful_task", "handle_failed_task"):
            assert args["task_id"] in running, f"seed {seed}: {op} on task {args['task_id']} that is not running"
        observed = driver.step(op, args)
        running = {t for s in observed["task_sets"] for t in s["running_task_ids"]}


def test_generation_is_reproducible_and_case_like() -> None:
    first, again = _scenario(7), _scenario(7)
    assert first.to_json() == again.to_json()
    case = first.to_json()
    assert case["kind"] == "taskset" and case["input"]["scheduler"] == "TaskSchedulerImpl"
    assert all(set(step) == {"op", "args"} for step in case["steps"])
    assert generate_placement(3) == generate_placement(3)


class _ReversedLaunches(ModelDriver):
    """A broken implementation: an offer round that launches several tasks lists them last
    first."""

    def step(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        observed = copy.deepcopy(super().step(op, args))
        observed["launched"].reverse()
        return observed


def _first_broken(limit: int = 200) -> Disagreement:
    for seed in range(limit):
        found = replay(_scenario(seed), _ReversedLaunches(), ModelDriver())
        if found is not None:
            return found
    raise AssertionError("no scenario launched two tasks in one round")


def test_a_broken_implementation_is_caught_at_the_step_that_shows_it() -> None:
    found = _first_broken()
    assert found.fields == ["launched"]
    op, _ = found.scenario.steps[found.step]
    assert op == "scheduler_resource_offers"
    assert isinstance(found.spark, dict) and len(found.spark["launched"]) >= 2


def test_shrinking_keeps_the_disagreement_and_drops_the_rest() -> None:
    found = _first_broken()
    small = shrink(found, _ReversedLaunches(), ModelDriver())
    assert small.fields == ["launched"]
    assert len(small.scenario.steps) <= found.step + 1
    # nothing is left that can go: a submit and the round that launches two tasks
    assert [op for op, _ in small.scenario.steps] == ["submit_task_set", "scheduler_resource_offers"]
    assert len(small.scenario.steps[0][1]["tasks"]) == 2
    assert replay(small.scenario, _ReversedLaunches(), ModelDriver()) is not None
    shown = small.to_json()
    assert shown["disagreement"]["step"] == 1 and shown["disagreement"]["fields"] == ["launched"]


def test_an_op_one_side_refuses_is_a_disagreement() -> None:
    class Refusing(ModelDriver):
        def step(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
            if op == "advance_clock":
                from yarnspec.checks.validate.spark.process import AdapterError

                raise AdapterError("unknown op advance_clock")
            return super().step(op, args)

    scenario = next(s for s in map(_scenario, range(50)) if any(op == "advance_clock" for op, _ in s.steps))
    found = replay(scenario, Refusing(), ModelDriver())
    assert found is not None and found.fields == ["error"] and found.spark == "error: unknown op advance_clock"


def test_the_placement_model_answers_nodes_and_racks() -> None:
    # four tasks on host1 fill one 4-core executor: one request names host1, the other is free
    answer = placement_model(
        {
            "num_containers": 2,
            "num_locality_aware_tasks": 4,
            "host_to_local_task_count": [["host1", 4]],
            "executor_cores": 4,
            "rack_resolver": {"host1": "/r"},
        }
    )
    assert answer == {"nodes": [None, ["host1"]], "racks": [None, ["/r"]]}
