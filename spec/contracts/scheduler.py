"""Contract ``scheduler``: the CapacityScheduler as a whole, action by action.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity
.CapacityScheduler`` (``allocateContainersToNode``, the asynchronous ``tryCommit``,
``completedContainer``, node added/removed) with its ``LeafQueue``/``ParentQueue`` limits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypedDict, runtime_checkable

from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import FieldRule, compare_fields

__all__ = ["RESET", "STEP", "SchedulerObservation", "Scheduler", "RULES", "compare", "invariants"]

RESET = "reset"
STEP = "step"


class SchedulerObservation(TypedDict, total=False):
    """Observable state after an action: per node its used memory/vcores and reservation,
    per queue its used resource per partition, per app its live container count."""

    nodes: dict[str, dict[str, Any]]
    queues: dict[str, dict[str, list[int]]]
    apps: dict[str, int]


@runtime_checkable
class Scheduler(Protocol):
    """The model's transition system seen from outside.

    ``reset`` takes ``{"world": name, "parameters": {...}}`` (a shipped world by its file's
    name, one of :data:`yarnspec.spec.worlds.world_builders.BUILDERS`, and its variant
    parameters) or
    ``{"world": {...}}``, a world written out in JSON (properties, nodes, applications,
    variants, bounds: ``docs/validating.md``, "The scheduler contract"); ``step`` takes
    ``{"action": label}``, one enabled action as the explorer labels it in its traces, and
    returns a :class:`SchedulerObservation`; an action that is not enabled is refused.

    Observable after every step: ``nodes`` (used, free and reservation per live node),
    ``queues`` (used per partition, partitions with nothing used left out) and ``apps`` (live
    containers per app, ALLOCATED or RUNNING), each exactly and each optional. The reference
    adapter (``yarnspec.checks.validate.reference.Scheduler``) replays the actions on
    :class:`yarnspec.spec.scheduler.model.SchedulerModel`.

    Invariants on the implementation's own observations (:func:`invariants`): nothing used is
    negative, nor a node's free memory (free vcores may be: the default calculator counts
    memory only, so vcores overcommit as in Hadoop); a node's used plus free is the same at every step (its capacity); a parent queue's
    used is the sum of its children's; a node holds at most one reservation (``reserved`` is
    one container id, -1 for none) and no container is reserved on two nodes.
    """

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        """Start from the scenario's initial state; answers ``{}``."""
        ...

    def step(self, input: dict[str, Any]) -> SchedulerObservation:
        """Take one enabled action."""
        ...


RULES = (FieldRule("nodes", optional=True), FieldRule("queues", optional=True), FieldRule("apps", optional=True))


def compare(call: Call, reference: dict[str, Any], implementation: dict[str, Any]) -> list[str]:
    """The observable differences after one step (class docstring)."""
    if call.op == RESET:
        return []
    return compare_fields(reference, implementation, RULES, "")


def invariants(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
    """The scheduler invariants on one session's observations (class docstring), computed from
    the observations alone."""
    violations: list[str] = []
    capacity: dict[str, list[int]] = {}
    for index, (call, answer) in enumerate(zip(calls, answers)):
        if call.op == RESET:
            capacity.clear()
            continue
        if answer.output is None:
            continue
        where = f"step {index} ({call.input.get('action')})"
        violations.extend(f"{where}: {v}" for v in _node_violations(answer.output.get("nodes", {}), capacity))
        violations.extend(f"{where}: {v}" for v in _queue_violations(answer.output.get("queues", {})))
        negative = sorted(app for app, count in answer.output.get("apps", {}).items() if count < 0)
        if negative:
            violations.append(f"{where}: negative container counts of {negative}")
    return violations


def _node_violations(nodes: dict[str, dict[str, Any]], capacity: dict[str, list[int]]) -> list[str]:
    found = []
    reserved: dict[Any, str] = {}
    for name, node in nodes.items():
        used, free = node.get("used", []), node.get("free", [])
        if any(v < 0 for v in used) or (free and free[0] < 0):
            found.append(f"node {name}: negative used {used} or free memory {free[:1]}")
        total = [u + f for u, f in zip(used, free)]
        if capacity.setdefault(name, total) != total:
            found.append(f"node {name}: used + free is {total}, earlier {capacity[name]}")
        mark = node.get("reserved", -1)
        if isinstance(mark, list):
            found.append(f"node {name}: more than one reservation {mark}")
        elif mark != -1 and mark in reserved:
            found.append(f"container {mark} reserved on {reserved[mark]} and {name}")
        else:
            reserved[mark] = name
    return found


def _queue_violations(queues: dict[str, dict[str, list[int]]]) -> list[str]:
    found = []
    for path, used in queues.items():
        if any(v < 0 for values in used.values() for v in values):
            found.append(f"queue {path}: negative used {used}")
        children = [child for child in queues if child.rpartition(".")[0] == path]
        if not children:
            continue
        summed: dict[str, list[int]] = {}
        for child in children:
            for partition, values in queues[child].items():
                before = summed.get(partition, [0] * len(values))
                summed[partition] = [a + b for a, b in zip(before, values)]
        summed = {p: v for p, v in summed.items() if any(v)}
        if summed != {p: v for p, v in used.items() if any(v)}:
            found.append(f"queue {path}: used {used} is not the sum of its children's {summed}")
    return found
