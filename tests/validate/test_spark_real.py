"""The real Spark (PyPI pyspark's jars, fetched and compiled into ~/.cache/yarnspec/spark at
first use: about 430 MB and a minute; later runs reuse the cache) against yarnspec's model.

Marked ``spark``: ``pytest -m spark`` runs only these, ``-m "not spark"`` leaves them out. They
never skip: without the jars they fetch them. ``YARNSPEC_SPARK_SCENARIOS`` sets how many random
dispatch scenarios the differential test runs (default 100).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from yarnspec.checks.validate.spark import adapter, differential
from yarnspec.checks.validate.spark.process import AdapterError, AdapterProcess

from ..conftest import CONFORMANCE_DIR

pytestmark = pytest.mark.spark

SCENARIOS = int(os.environ.get("YARNSPEC_SPARK_SCENARIOS", "100"))


@pytest.fixture(scope="module")
def command() -> list[str]:
    return adapter.spark_process_command(adapter.DEFAULT_VERSION)


@pytest.fixture(scope="module")
def dispatch(command: list[str]) -> Iterator[AdapterProcess]:
    with differential.spark_adapter(command, "spark-dispatch") as process:
        yield process


@pytest.fixture(scope="module")
def placement(command: list[str]) -> Iterator[AdapterProcess]:
    with differential.spark_adapter(command, "spark-placement") as process:
        yield process


def test_the_adapter_is_spark_itself(dispatch: AdapterProcess) -> None:
    assert dispatch.hello == {
        "name": "spark-adapter",
        "version": adapter.DEFAULT_VERSION,
        "contracts": ["spark-placement", "spark-dispatch"],
    }


def test_real_spark_agrees_with_the_model_on_random_dispatch_scenarios(dispatch: AdapterProcess) -> None:
    report = differential.run_dispatch(differential.SparkDriver(dispatch), SCENARIOS, seed=0, shrink_first=1)
    assert report.scenarios == SCENARIOS
    if report.disagreements:
        shown = json.dumps(report.disagreements[0].to_json())
        pytest.fail(f"{len(report.disagreements)} of {SCENARIOS} scenarios disagree; the first, shrunk: {shown}")


def test_real_spark_agrees_with_the_model_on_random_placements(placement: AdapterProcess) -> None:
    report = differential.run_placement(placement, 200, seed=0)
    assert report.ordered > 100
    assert report.node_disagreements == [] and report.rack_disagreements == 0


def _placement_cases() -> list[Path]:
    folder = CONFORMANCE_DIR / "spark-locality" / "ContainerPlacementStrategySuite"
    return sorted(folder.glob("*.json"))


@pytest.mark.parametrize("path", _placement_cases(), ids=lambda p: p.stem)
def test_the_adapter_answers_what_spark_own_placement_tests_assert(placement: AdapterProcess, path: Path) -> None:
    """Spark's ContainerPlacementStrategySuite, kept as shared cases, replayed on the adapter:
    the node lists Spark's own tests assert come back from the real class."""
    case = json.loads(path.read_text(encoding="utf-8"))
    keys = (
        "num_containers",
        "num_locality_aware_tasks",
        "host_to_local_task_count",
        "allocated_host_to_container_count",
        "locality_matched_pending_requests",
        "executor_cores",
        "task_cpus",
        "rack_resolver",
    )
    payload = {k: case["input"][k] for k in keys if k in case["input"]}
    nodes = placement.request("locality_of_requested_containers", payload)["nodes"]
    expected = case["expect"]["nodes"]
    if case.get("order_sensitive", True):
        assert nodes == expected
    else:
        assert sorted(map(str, nodes)) == sorted(map(str, expected))


def test_the_adapter_refuses_what_it_does_not_drive(dispatch: AdapterProcess) -> None:
    with pytest.raises(AdapterError, match="FakeTaskScheduler is a test double"):
        dispatch.request("reset", {"scheduler": "FakeTaskScheduler"})
    dispatch.request("reset", {"scheduler": "TaskSchedulerImpl", "clock_start_ms": 1000})
    with pytest.raises(AdapterError, match="unknown op bogus"):
        dispatch.request("bogus", {})
    with pytest.raises(AdapterError, match="unknown op scheduler_add_executor"):
        dispatch.request("scheduler_add_executor", {"exec_id": "e1", "host": "h1"})
    with pytest.raises(AdapterError, match="no task with id 5 was launched"):
        dispatch.request("handle_successful_task", {"task_id": 5})
    assert dispatch.request("observe", {}) == {"launched": [], "task_sets": []}


def _scheduler_cases() -> list[Path]:
    folder = CONFORMANCE_DIR / "spark-locality" / "TaskSchedulerImplSuite"
    cases = [(p, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(folder.glob("*.json"))]
    return [
        p
        for p, case in cases
        if case.get("kind") == "taskset" and case["input"].get("scheduler") == "TaskSchedulerImpl"
    ]


#: Expectation keys a spark-dispatch observation answers: the launches of an offer round and
#: the levels of the set submitted last. The cases' other keys (executor liveness) are
#: scheduler internals the protocol does not observe.
_OBSERVED_KEYS = {
    "num_tasks": lambda obs: len(obs["launched"]),
    "executor_ids": lambda obs: [t["executor_id"] for t in obs["launched"]],
    "task_localities": lambda obs: [t["locality"] for t in obs["launched"]],
    "my_locality_levels": lambda obs: obs["task_sets"][-1]["my_locality_levels"],
}


@pytest.mark.parametrize("path", _scheduler_cases(), ids=lambda p: p.stem)
def test_the_adapter_answers_what_spark_own_scheduler_tests_assert(dispatch: AdapterProcess, path: Path) -> None:
    """Spark's TaskSchedulerImplSuite cases on the real TaskSchedulerImpl (offers in the given
    order: a case that asks for every order is checked on the given one)."""
    case = json.loads(path.read_text(encoding="utf-8"))
    reset_keys = (
        "scheduler",
        "scheduling_mode",
        "executors",
        "host_rack",
        "conf",
        "clock_start_ms",
        "max_task_failures",
    )
    dispatch.request("reset", {k: v for k, v in case["input"].items() if k in reset_keys})
    checked = 0
    for step in case["steps"]:
        args = {k: v for k, v in step.get("args", {}).items() if k != "shuffle"}
        observed = dispatch.request("observe" if step["op"] == "check" else step["op"], args)
        for key, expected in step.get("expect", {}).items():
            if key == "my_locality_levels_contains":
                assert expected in _OBSERVED_KEYS["my_locality_levels"](observed)
            elif key in _OBSERVED_KEYS:
                actual = _OBSERVED_KEYS[key](observed)
                if case.get("order_sensitive", True) or not isinstance(expected, list):
                    assert actual == expected, f"{step['op']} {key}"
                else:
                    assert sorted(actual) == sorted(expected), f"{step['op']} {key}"
            else:
                continue
            checked += 1
    assert checked > 0 or "executor_alive" in json.dumps(case["steps"])


def test_each_reset_reads_its_own_configuration(dispatch: AdapterProcess) -> None:
    """The default resource profile caches spark.task.cpus when first built; the adapter
    rebuilds it per reset, so a one-core offer launches nothing at two cpus per task and one
    task at one."""
    launched = []
    for cpus in ("2", "1", "2"):
        dispatch.request(
            "reset", {"scheduler": "TaskSchedulerImpl", "conf": {"spark.task.cpus": cpus}, "clock_start_ms": 1000}
        )
        dispatch.request("submit_task_set", {"stage_id": 0, "tasks": [[]]})
        offer = {"offers": [{"exec_id": "e1", "host": "h1", "cores": 1}]}
        launched.append(len(dispatch.request("scheduler_resource_offers", offer)["launched"]))
    assert launched == [0, 1, 0]
