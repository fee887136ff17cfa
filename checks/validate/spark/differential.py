"""The differential run: seeded random scenarios through the real Spark (the adapter process)
and through yarnspec's model, compared after every step; the first disagreements are shrunk
to a few steps and printed as case-like JSON.

Dispatch (``spark-dispatch``): ``launched`` must match exactly (order included); the registered
task sets must be the same, and per set ``my_locality_levels`` as a sequence,
``running_task_ids`` and ``successful_indices`` as sets, ``zombie`` and ``failed`` as values;
``speculatable`` (after ``check_speculatable``) as a set. An op one side refuses and the other
runs is a disagreement too.

Placement (``spark-placement``): the node list of every requested container, compared by the
contract's own rule (:func:`yarnspec.spec.contracts.spark_placement.compare`: in order up to
four hint hosts, where Spark's Scala ``Map`` keeps insertion order, as sets per container
above that; rack lists as sets). Inputs with more than four hint hosts are counted apart
("order not meaningful").
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from yarnspec.checks.validate.spark.model import ModelDispatchSession
from yarnspec.checks.validate.spark.process import AdapterError, AdapterProcess
from yarnspec.checks.validate.spark.scenarios import DispatchScenario, generate_dispatch, generate_placement
from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.placement import locality_of_requested_containers
from yarnspec.spec.contracts.call import Call
from yarnspec.spec.contracts.spark_placement import OP, ORDERED_HINTS, compare, placement_input

#: Task-set fields compared as sets (the protocol: "lists of ids/indices as sets").
SET_FIELDS = ("running_task_ids", "successful_indices")
VALUE_FIELDS = ("my_locality_levels", "zombie", "failed")
#: How many replays one shrink may spend.
SHRINK_BUDGET = 200


class Driver(Protocol):
    """One side of the comparison: the adapter process or the model."""

    def reset(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Start a fresh session."""

    def step(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run one step op and return its observation."""


class SparkDriver:
    """The adapter process as a :class:`Driver`."""

    def __init__(self, process: AdapterProcess) -> None:
        self.process = process

    def reset(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``reset``."""
        return self.process.request("reset", payload)

    def step(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """One step op."""
        return self.process.request(op, args)


class ModelDriver:
    """yarnspec's model as a :class:`Driver`."""

    def __init__(self, variant: str | None = None) -> None:
        self.session = ModelDispatchSession(variant)

    def reset(self, payload: dict[str, Any]) -> dict[str, Any]:
        """``reset``."""
        return self.session.reset(payload)

    def step(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """One step op."""
        return self.session.step(op, args)


# --------------------------------------------------------------------------------------------
# Comparing observations
# --------------------------------------------------------------------------------------------


def differences(spark: dict[str, Any], model: dict[str, Any]) -> list[str]:
    """The fields in which two observations differ (empty when they agree)."""
    found = []
    if spark.get("launched") != model.get("launched"):
        found.append("launched")
    spark_sets = {s["stage"]: s for s in spark.get("task_sets", [])}
    model_sets = {s["stage"]: s for s in model.get("task_sets", [])}
    if list(spark_sets) != list(model_sets):
        found.append("task_sets")
    for stage in spark_sets.keys() & model_sets.keys():
        ours, theirs = spark_sets[stage], model_sets[stage]
        for name in VALUE_FIELDS:
            if name in ours and name in theirs and ours[name] != theirs[name]:
                found.append(f"task_sets[{stage}].{name}")
        for name in SET_FIELDS:
            if name in ours and name in theirs and set(ours[name]) != set(theirs[name]):
                found.append(f"task_sets[{stage}].{name}")
    if "speculatable" in spark and "speculatable" in model and set(spark["speculatable"]) != set(model["speculatable"]):
        found.append("speculatable")
    return sorted(found)


def category(difference: str) -> str:
    """A difference without its stage (``task_sets[*].my_locality_levels``), for tallies."""
    if difference.startswith("task_sets["):
        return "task_sets[*]" + difference[difference.index("]") + 1 :]
    return difference


Outcome = dict[str, Any] | str


def _outcome(call: Callable[[], dict[str, Any]]) -> Outcome:
    """An observation, or the error text when the side refused the op."""
    try:
        return call()
    except AdapterError as exc:
        return f"error: {exc}"


@dataclass
class Disagreement:
    """The first step at which Spark and the model differ (``step`` -1: the reset)."""

    scenario: DispatchScenario
    step: int
    fields: list[str]
    spark: Outcome
    model: Outcome

    def to_json(self) -> dict[str, Any]:
        """The scenario up to the step, as a case-like object with both answers at the step."""
        case = replace(self.scenario, steps=self.scenario.steps[: self.step + 1]).to_json()
        case["disagreement"] = {
            "step": self.step,
            "fields": self.fields,
            "spark": _only(self.spark, self.fields),
            "model": _only(self.model, self.fields),
        }
        return case


def _only(outcome: Outcome, fields: list[str]) -> Any:
    """The parts of an observation that differ (all of it for a set-level difference)."""
    if isinstance(outcome, str) or "task_sets" in fields:
        return outcome
    shown: dict[str, Any] = {}
    for name in fields:
        if name.startswith("task_sets["):
            stage = name[len("task_sets[") : name.index("]")]
            task_set = next(s for s in outcome["task_sets"] if s["stage"] == stage)
            shown.setdefault("task_sets", {}).setdefault(stage, {})[name.split(".")[-1]] = task_set[name.split(".")[-1]]
        else:
            shown[name] = outcome.get(name)
    return shown


def replay(scenario: DispatchScenario, spark: Driver, model: Driver) -> Disagreement | None:
    """Run the scenario on both sides; the first disagreement, or ``None``."""
    spark_reset = _outcome(lambda: spark.reset(scenario.reset))
    model_reset = _outcome(lambda: model.reset(scenario.reset))
    if isinstance(spark_reset, str) or isinstance(model_reset, str):
        if spark_reset == model_reset:
            return None
        return Disagreement(scenario, -1, ["error"], spark_reset, model_reset)
    for index, (op, args) in enumerate(scenario.steps):
        ours = _outcome(lambda: spark.step(op, args))  # noqa: B023 (called at once)
        theirs = _outcome(lambda: model.step(op, args))  # noqa: B023 (called at once)
        if isinstance(ours, str) or isinstance(theirs, str):
            if isinstance(ours, str) and isinstance(theirs, str):
                continue
            return Disagreement(scenario, index, ["error"], ours, theirs)
        found = differences(ours, theirs)
        if found:
            return Disagreement(scenario, index, found, ours, theirs)
    return None


# --------------------------------------------------------------------------------------------
# Shrinking
# --------------------------------------------------------------------------------------------


def _without_item(scenario: DispatchScenario, index: int, key: str) -> Iterator[DispatchScenario]:
    """The scenario with one element fewer in the list ``args[key]`` of step ``index``."""
    op, args = scenario.steps[index]
    for position in range(len(args[key]) - 1, -1, -1):
        smaller = {**args, key: [item for i, item in enumerate(args[key]) if i != position]}
        yield replace(scenario, steps=[*scenario.steps[:index], (op, smaller), *scenario.steps[index + 1 :]])


def _candidates(scenario: DispatchScenario) -> Iterator[DispatchScenario]:
    """Smaller scenarios: one step fewer (latest first); one configuration key, rack entry,
    starting executor or reset key fewer; one task fewer in a submitted set; one offer fewer
    in a round."""
    for index in range(len(scenario.steps) - 2, -1, -1):
        yield replace(scenario, steps=scenario.steps[:index] + scenario.steps[index + 1 :])
    reset = scenario.reset
    for key in ("conf", "host_rack"):
        for entry in list(reset.get(key, {})):
            yield replace(scenario, reset={**reset, key: {k: v for k, v in reset[key].items() if k != entry}})
    for position in range(len(reset.get("executors", []))):
        yield replace(
            scenario, reset={**reset, "executors": [e for i, e in enumerate(reset["executors"]) if i != position]}
        )
    if "max_task_failures" in reset:
        yield replace(scenario, reset={k: v for k, v in reset.items() if k != "max_task_failures"})
    for index, (op, args) in enumerate(scenario.steps):
        if op == "submit_task_set" and len(args["tasks"]) > 1:
            yield from _without_item(scenario, index, "tasks")
        elif op == "scheduler_resource_offers" and len(args["offers"]) > 1:
            yield from _without_item(scenario, index, "offers")


def shrink(found: Disagreement, spark: Driver, model: Driver, budget: int = SHRINK_BUDGET) -> Disagreement:
    """Greedily remove what is not needed for a disagreement in observations (not an error)."""
    best = replace(found, scenario=replace(found.scenario, steps=found.scenario.steps[: found.step + 1]))
    spent = 0
    improved = True
    while improved and spent < budget:
        improved = False
        for candidate in _candidates(best.scenario):
            spent += 1
            if spent > budget:
                break
            again = replay(candidate, spark, model)
            if again is not None and again.fields != ["error"]:
                best = replace(again, scenario=replace(candidate, steps=candidate.steps[: again.step + 1]))
                improved = True
                break
    return best


# --------------------------------------------------------------------------------------------
# The runs
# --------------------------------------------------------------------------------------------


@dataclass
class DispatchReport:
    """The outcome of a dispatch run."""

    scenarios: int = 0
    steps: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    by_first_difference: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        """Disagreeing scenarios / scenarios."""
        return len(self.disagreements) / self.scenarios if self.scenarios else 0.0


def run_dispatch(
    spark: Driver,
    scenarios: int,
    seed: int = 0,
    shrink_first: int = 3,
    model_factory: Callable[[], Driver] = ModelDriver,
) -> DispatchReport:
    """``scenarios`` scenarios with seeds ``seed``, ``seed + 1``, ...; the first
    ``shrink_first`` disagreements are shrunk. ``model_factory`` makes a fresh model side."""
    report = DispatchReport()
    start = time.monotonic()
    for number in range(scenarios):
        generator = model_factory()
        scenario = generate_dispatch(seed + number, generator.reset, generator.step)
        report.scenarios += 1
        report.steps += len(scenario.steps)
        found = replay(scenario, spark, model_factory())
        if found is None:
            continue
        report.by_first_difference.update({category(f) for f in found.fields})
        if len(report.disagreements) < shrink_first:
            found = shrink(found, spark, model_factory())
        report.disagreements.append(found)
    report.seconds = time.monotonic() - start
    return report


def placement_model(payload: dict[str, Any]) -> dict[str, Any]:
    """The model's answer to a ``locality_of_requested_containers`` request."""
    prefs = locality_of_requested_containers(placement_input(payload))
    return {
        "nodes": [None if p.nodes is None else list(p.nodes) for p in prefs],
        "racks": [None if p.racks is None else list(p.racks) for p in prefs],
    }


@dataclass
class PlacementReport:
    """The outcome of a placement run."""

    inputs: int = 0
    ordered: int = 0
    node_disagreements: list[tuple[dict[str, Any], Outcome, Outcome]] = field(default_factory=list)
    rack_disagreements: int = 0
    seconds: float = 0.0


def run_placement(process: AdapterProcess, inputs: int, seed: int = 0) -> PlacementReport:
    """``inputs`` random placement inputs through Spark and the model."""
    report = PlacementReport()
    start = time.monotonic()
    for number in range(inputs):
        payload = generate_placement(seed + number)
        report.inputs += 1
        ordered = len(payload["host_to_local_task_count"]) <= ORDERED_HINTS
        report.ordered += ordered
        spark = _outcome(lambda: process.request(OP, payload))  # noqa: B023 (called at once)
        try:
            model: Outcome = placement_model(payload)
        except InputError as exc:
            model = f"error: {exc}"
        if isinstance(spark, str) or isinstance(model, str):
            if spark != model:
                report.node_disagreements.append((payload, spark, model))
            continue
        found = compare(Call(OP, payload), model, spark)
        if any(line.startswith("nodes") for line in found):
            report.node_disagreements.append((payload, spark, model))
        if any(line.startswith("racks") for line in found):
            report.rack_disagreements += 1
    report.seconds = time.monotonic() - start
    return report


@contextmanager
def spark_adapter(command: Sequence[str], contract: str) -> Iterator[AdapterProcess]:
    """The adapter process for one contract, closed afterwards."""
    process = AdapterProcess(command, contract, timeout=120.0)
    try:
        yield process
    finally:
        process.close()
