"""The reference implementation behind each contract (``spec/contracts``).

These adapters are what ``validate`` compares an implementation with, and they are ordinary
Python adapters themselves: ``--impl python:yarnspec.checks.validate.reference:Placement`` or,
through the ``yarnspec.adapters`` entry points this package registers,
``--impl reference-spark-placement``. They reuse the conformance runners' case readers, so
an input is read exactly as a case file's would be.
"""

from __future__ import annotations

from typing import Any

from yarnspec.checks.conformance import hadoop, mockframework, qdata
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.checks.conformance.spark_taskset_case import CaseStep, parse_input
from yarnspec.checks.conformance.spark_taskset_replay import StepOutcome, TaskSetReplay, start_replay
from yarnspec.checks.validate.world_description import model_of_reset, step_by_label
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import PolicyState, RoundResult
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.async_scheduling.node_sorting import resource_usage
from yarnspec.impl.spark.placement import locality_of_requested_containers
from yarnspec.impl.spark.taskset.task_set_manager import TaskSetManager
from yarnspec.spec.contracts.spark_dispatch import STEP_OPS
from yarnspec.spec.contracts.spark_placement import placement_input
from yarnspec.spec.scheduler.model import ModelState, SchedulerModel, state_json

#: Spark's ``spark.speculation.minTaskRuntime`` default (100 ms), the floor that
#: ``TaskSchedulerImpl.checkSpeculatableTasks`` passes to every task set.
MIN_TIME_TO_SPECULATION_MS = 100

#: Exceptions that mean "the reference refuses this input"; they become an error answer (the
#: last three: an input of the wrong shape, which the readers do not name more precisely).
REFUSALS = (InputError, NotModelled, CaseFormatError, Unsupported, KeyError, TypeError, ValueError)


class RefusedInput(Exception):
    """The reference cannot take this input; the message says why (an ``error`` answer)."""


def refusal(exc: Exception) -> RefusedInput:
    """A refusal carrying one line that names the fault."""
    return RefusedInput(f"{type(exc).__name__}: {exc}")


class Placement:
    """``spark-placement`` on :func:`yarnspec.impl.spark.placement.locality_of_requested_containers`."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        """The reference's preferences for ``input`` (contract ``spark-placement``)."""
        try:
            prefs = locality_of_requested_containers(placement_input(input))
        except REFUSALS as exc:
            raise refusal(exc) from None
        return {
            "nodes": [None if p.nodes is None else list(p.nodes) for p in prefs],
            "racks": [None if p.racks is None else list(p.racks) for p in prefs],
        }


class Dispatch:
    """``spark-dispatch`` on the reference's ``TaskSchedulerImpl`` and ``TaskSetManager``, driven
    by the conformance runner's step replay (so each op reads its args as a case step does)."""

    def __init__(self) -> None:
        self._replay: TaskSetReplay | None = None

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """A fresh scheduler at ``clock_start_ms`` with ``input``'s executors."""
        try:
            case_input = parse_input(input)
        except REFUSALS as exc:
            raise refusal(exc) from None
        self._replay = start_replay(case_input, order_sensitive=True, creates_by_submit=False)
        return {}

    def step(self, op: str, input: dict[str, Any]) -> dict[str, Any]:
        """Run one step op and observe (contract ``spark-dispatch``)."""
        if op not in STEP_OPS:
            raise RefusedInput(f"unknown op {op}")
        if self._replay is None:
            raise RefusedInput(f"{op} before reset")
        replay = self._replay
        manager = replay.state.manager
        before = set(manager.speculatable) if manager is not None else set()
        try:
            outcome = self._run(replay, op, input)
        except REFUSALS as exc:
            raise refusal(exc) from None
        observation: dict[str, Any] = {"launched": _launched(outcome), "task_sets": _task_sets(replay)}
        if op == "check_speculatable":
            after = replay.state.manager.speculatable if replay.state.manager is not None else set()
            observation["speculatable"] = sorted(set(after) - before)
        return observation

    @staticmethod
    def _run(replay: TaskSetReplay, op: str, input: dict[str, Any]) -> StepOutcome:
        if op == "observe":
            return StepOutcome()
        if op == "check_speculatable":
            op, input = "check_speculatable_tasks", {"min_time_to_speculation_ms": MIN_TIME_TO_SPECULATION_MS}
        return replay.run_step(CaseStep(f"step {op}", op, input, {}, {}, None))


def _launched(outcome: StepOutcome) -> list[dict[str, Any]]:
    tasks = []
    if outcome.offer is not None and outcome.offer.task is not None:
        tasks.append(outcome.offer.task)
    if outcome.offer_round is not None:
        tasks.extend(outcome.offer_round.launched)
    return [
        {
            "task_id": t.task_id,
            "stage": t.task_set,
            "index": t.index,
            "executor_id": t.executor_id,
            "host": t.host,
            "locality": t.locality.name,
            "speculative": t.speculative,
        }
        for t in sorted(tasks, key=lambda t: t.task_id)
    ]


def _task_sets(replay: TaskSetReplay) -> list[dict[str, Any]]:
    sched = replay.state.sched
    managers: list[TaskSetManager] = list(sched.pool)
    if (
        replay.state.manager is not None
        and replay.state.manager not in managers
        and not sched.is_finished(replay.state.manager)
    ):
        managers.append(replay.state.manager)
    failed = {name for name, _ in sched.log.failed_task_sets}
    return [
        {
            "stage": m.name,
            "my_locality_levels": [level.name for level in m.levels],
            "running_task_ids": sorted(m.running),
            "successful_indices": [i for i, done in enumerate(m.successful) if done],
            "zombie": m.is_zombie,
            "failed": m.name in failed,
        }
        for m in sorted(managers, key=lambda m: (m.task_set.stage_id, m.task_set.stage_attempt_id))
    ]


class PreemptionRound:
    """``preemption-round`` on :func:`yarnspec.impl.preemption.policy.edit_schedule`, the cluster
    read by the conformance runner's qdata / mockframework readers."""

    def __init__(self) -> None:
        self._setup: tuple[Any, ...] | None = None
        self._state: PolicyState | None = None

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """Load the cluster and settings; the marks start empty."""
        try:
            calc = hadoop._calculator(input)
            conf = dict(input.get("conf", {}))
            raw = input["input"] if "input" in input else {}
            notation = input.get("notation")
            if notation == "qdata":
                cluster: Any = qdata.parse_qdata(raw, conf, calc)
            elif notation == "mockframework":
                cluster = mockframework.parse_mockframework(raw, conf)
            else:
                raise RefusedInput(f"unknown notation {notation!r} (qdata or mockframework)")
            config = PreemptionConfig.from_properties(conf, source="conf")
        except REFUSALS as exc:
            raise refusal(exc) from None
        self._setup = (cluster.snapshot, config, calc)
        self._state = None
        return {}

    def edit_schedule(self, input: dict[str, Any]) -> dict[str, Any]:
        """One round at ``input['clock_ms']`` (contract ``preemption-round``)."""
        if self._setup is None:
            raise RefusedInput("edit_schedule before reset")
        snapshot, config, calc = self._setup
        try:
            result = edit_schedule(snapshot, config, calc, input["clock_ms"], self._state)
        except REFUSALS as exc:
            raise refusal(exc) from None
        self._state = result.state
        return round_answer(result)


def round_answer(result: RoundResult) -> dict[str, Any]:
    """A round's events and last ideal assignments as the contract's JSON."""
    events = [
        {"event": e.kind.value, "container": str(e.container_id), "queue": e.container.queue}
        for e in result.events
        if e.kind.value != "KILL_RESERVED_CONTAINER"
    ]
    ideal: dict[str, dict[str, int]] = {}
    for selector in result.selectors:
        for (queue, partition), target in selector.targets.items():
            if partition == "":
                ideal[queue] = _resource_json(target.ideal)
    return {"events": events, "ideal_assigned": ideal}


def _resource_json(resource: Resource) -> dict[str, int]:
    return {"memory": resource.memory, "vcores": resource.vcores}


class NodeSorting:
    """``node-sorting`` with the reference's ``resource-usage`` policy
    (:func:`yarnspec.impl.scheduler.async_scheduling.node_sorting.resource_usage`, Hadoop's
    ``ResourceUsageMultiNodeLookupPolicy``): least allocated first, ties by ``NodeId``."""

    def sort_nodes(self, input: dict[str, Any]) -> dict[str, Any]:
        """The node ids in the order the policy hands them out (duplicate ids are refused)."""
        nodes = list(input["nodes"])
        ids = [n["node_id"] for n in nodes]
        if len(set(ids)) != len(ids):
            raise RefusedInput(f"node ids are not unique: {sorted({i for i in ids if ids.count(i) > 1})}")
        try:
            keyed = sorted(nodes, key=lambda n: (_usage_key(n), node_id_key(n["node_id"])))
        except REFUSALS as exc:
            raise refusal(exc) from None
        return {"order": [n["node_id"] for n in keyed]}


def _usage_key(node: dict[str, Any]) -> tuple[float | int, ...]:
    allocated = Resource.of(int(node["allocated_memory"]), int(node["allocated_vcores"]))
    total = Resource.of(int(node.get("total_memory", 0)), int(node.get("total_vcores", 0)))
    return resource_usage(total, allocated)


def node_id_key(node_id: str) -> tuple[str, int]:
    """Hadoop's ``NodeId.compareTo``: the host (as Java compares strings), then the port as a
    number (an id without ``:port`` counts as port 0)."""
    host, sep, port = node_id.rpartition(":")
    return (host, int(port)) if sep and port.isdigit() else (node_id, 0)


class CandidateSelector:
    """``candidate-selector``: the named selector's choice in the reference's round."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        """The containers the selector ``input['selector']`` chose, and its amounts to obtain."""
        round_ = PreemptionRound()
        round_.reset(input)
        assert round_._setup is not None
        snapshot, config, calc = round_._setup
        try:
            result = edit_schedule(snapshot, config, calc, 0, None)
        except REFUSALS as exc:
            raise refusal(exc) from None
        for selector in result.selectors:
            if selector.name == input["selector"]:
                return {
                    "selected": [str(c.container_id) for c in selector.selected],
                    "to_obtain": {
                        queue: _resource_json(t.to_obtain)
                        for (queue, partition), t in selector.targets.items()
                        if partition == ""
                    },
                }
        raise RefusedInput(f"selector {input['selector']!r} does not run under this configuration")


class Scheduler:
    """``scheduler``: the model's transition system, one labelled action at a time."""

    def __init__(self) -> None:
        self._model: SchedulerModel | None = None
        self._state: ModelState | None = None

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """The initial state of the world ``input['world']`` (a name or a description)."""
        try:
            self._model = model_of_reset(input)
        except REFUSALS as exc:
            raise refusal(exc) from None
        self._state = self._model.initial_states()[0]
        return {}

    def step(self, input: dict[str, Any]) -> dict[str, Any]:
        """Take the enabled action labelled ``input['action']`` and observe."""
        if self._model is None or self._state is None:
            raise RefusedInput("step before reset")
        after = step_by_label(self._model, self._state, input["action"])
        if after is None:
            raise RefusedInput(f"action {input['action']!r} is not enabled")
        self._state = after
        picture = state_json(self._model.world, after.scheduler)
        apps: dict[str, int] = {name: 0 for name in picture["apps"]}
        for container in picture["containers"]:
            if container["state"] in ("ALLOCATED", "RUNNING"):
                apps[container["app"]] = apps.get(container["app"], 0) + 1
        return {"nodes": picture["nodes"], "queues": picture["queues"], "apps": apps}


#: The reference adapter of each contract ``validate`` drives.
REFERENCE_ADAPTERS: dict[str, type] = {
    "spark-placement": Placement,
    "spark-dispatch": Dispatch,
    "preemption-round": PreemptionRound,
    "candidate-selector": CandidateSelector,
    "node-sorting": NodeSorting,
    "scheduler": Scheduler,
}

#: The reference adapter of every contract (every contract is driven by ``validate`` now).
ALL_REFERENCE_ADAPTERS: dict[str, type] = REFERENCE_ADAPTERS
