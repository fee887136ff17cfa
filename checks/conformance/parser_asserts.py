"""The ``parser_asserts`` of a Hadoop case: what upstream's harness self-tests assert about the
parsed cluster (``TestProportionalCapacityPreemptionPolicyMockFramework``), checked against
the snapshot the notation parser built.

Each key names one fact about the snapshot; the expected value is a map (by queue path,
partition, node) or a list of per-application entries. The first differing entry raises
:class:`ExpectationMismatch` at its exact place, e.g.
``rounds[0].parser_asserts.abs_capacities["root.a"]["blue"][1]``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_int,
    as_list,
    as_number,
    as_object,
    child,
    quoted,
    reject_unknown_keys,
    required,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import ClusterSnapshot, Container, Queue, QueuePartition

TOLERANCE_KEY = "abs_capacities_tolerance"
#: Used when a case gives no tolerance: Hadoop holds capacities as single-precision floats.
DEFAULT_TOLERANCE = 1e-6


class _Facts:
    """The snapshot, the calculator and the tolerance one check reads."""

    def __init__(self, snapshot: ClusterSnapshot, calc: ResourceCalculator, tolerance: float) -> None:
        self.snapshot = snapshot
        self.calc = calc
        self.tolerance = tolerance

    def queue(self, name: str, place: str) -> Queue:
        """The queue a path (or unique short name) names; a queue the parse lacks is a mismatch."""
        if name in self.snapshot.queues:
            return self.snapshot.queues[name]
        matches = [q for q in self.snapshot.queues.values() if q.name == name]
        if len(matches) == 1:
            return matches[0]
        raise ExpectationMismatch(place, f"queue {name}", "no such queue in the parse", "queue")

    def partition(self, queue: Queue, label: str, place: str) -> QueuePartition:
        """The queue's figures in a partition the parse must know."""
        if label not in self.snapshot.partitions:
            raise ExpectationMismatch(place, f"partition {label!r}", "no such partition in the parse", "partition")
        return queue.at(label)

    def containers_of(self, queue: Queue) -> list[Container]:
        """Live and reserved containers of the queue's applications."""
        return [c for c in self.snapshot.containers if c.queue == queue.path]


def _same(place: str, expected: Any, actual: Any, what: str, tolerance: float = 0.0) -> None:
    if isinstance(expected, float) or isinstance(actual, float):
        if math.isclose(float(expected), float(actual), rel_tol=0.0, abs_tol=tolerance):
            return
    elif expected == actual:
        return
    raise ExpectationMismatch(place, expected, actual, what)


def _per_queue(place: str, expected: Any, facts: _Facts, check: Callable[[str, Queue, Any], None]) -> None:
    for name, value in as_object(expected, place).items():
        where = quoted(place, name)
        check(where, facts.queue(name, where), value)


def _per_partition(place: str, expected: Any, check: Callable[[str, str, Any], None]) -> None:
    for label, value in as_object(expected, place).items():
        check(quoted(place, label), label, value)


def _abs_capacities(place: str, expected: Any, facts: _Facts) -> None:
    """``{queue: {partition: [guaranteed, max, used]}}`` as fractions of the partition's resource."""

    def check_queue(where: str, queue: Queue, per_partition: Any) -> None:
        def check_partition(at: str, label: str, triple: Any) -> None:
            values = as_list(triple, at)
            if len(values) != 3:
                raise CaseFormatError(at, f"expected [guaranteed, max, used], found {len(values)} values")
            figures = facts.partition(queue, label, at)
            whole = facts.snapshot.partitions[label].resource
            for i, (name, amount) in enumerate(
                (("guaranteed", figures.guaranteed), ("max", figures.maximum), ("used", figures.used))
            ):
                share = 0.0 if whole.is_zero() else facts.calc.divide(whole, amount, whole)
                _same(
                    child(at, i),
                    as_number(values[i], child(at, i)),
                    share,
                    f"absolute {name} capacity of {queue.path} in {label!r}",
                    facts.tolerance,
                )

        _per_partition(where, per_partition, check_partition)

    _per_queue(place, expected, facts, check_queue)


def _memory_of(attribute: str, label_text: str) -> Callable[[str, Any, _Facts], None]:
    """``{queue: {partition: memory}}`` of one per-partition figure."""

    def check(place: str, expected: Any, facts: _Facts) -> None:
        def check_queue(where: str, queue: Queue, per_partition: Any) -> None:
            def check_partition(at: str, label: str, value: Any) -> None:
                figure = getattr(facts.partition(queue, label, at), attribute)
                _same(at, as_int(value, at), figure.memory, f"{label_text} memory of {queue.path} in {label!r}")

            _per_partition(where, per_partition, check_partition)

        _per_queue(place, expected, facts, check_queue)

    return check


def _queue_priority(place: str, expected: Any, facts: _Facts) -> None:
    """``{queue: priority}``."""
    _per_queue(place, expected, facts, lambda at, q, v: _same(at, as_int(v, at), q.priority, f"priority of {q.path}"))


def _preemption_disabled(place: str, expected: Any, facts: _Facts) -> None:
    """``{queue: true|false}``."""
    _per_queue(
        place,
        expected,
        facts,
        lambda at, q, v: _same(at, as_bool(v, at), q.preemption_disabled, f"preemption disabled for {q.path}"),
    )


def _ignore_exclusivity(place: str, expected: Any, facts: _Facts) -> None:
    """``{queue: {partition: count}}``: the queue's containers (reserved ones too) on nodes of
    that partition whose request did not ask for it."""

    def check_queue(where: str, queue: Queue, per_partition: Any) -> None:
        containers = facts.containers_of(queue)

        def check_partition(at: str, label: str, value: Any) -> None:
            facts.partition(queue, label, at)
            count = sum(1 for c in containers if facts.snapshot.node_partition(c) == label and c.label != label)
            _same(at, as_int(value, at), count, f"ignore-exclusivity containers of {queue.path} in {label!r}")

        _per_partition(where, per_partition, check_partition)

    _per_queue(place, expected, facts, check_queue)


def _apps_per_queue(place: str, expected: Any, facts: _Facts) -> None:
    """``{queue: number of applications}``."""
    _per_queue(
        place,
        expected,
        facts,
        lambda at, q, v: _same(
            at, as_int(v, at), len(facts.snapshot.apps_by_queue.get(q.path, ())), f"applications in {q.path}"
        ),
    )


_APP_CONTAINER_KEYS = ("app", "live", "reserved", "on_node")


def _app_containers(place: str, expected: Any, facts: _Facts) -> None:
    """``[{app, live, reserved, on_node: {node: count}}]``; ``on_node`` counts live and reserved."""
    for index, raw in enumerate(as_list(expected, place)):
        where = child(place, index)
        entry = as_object(raw, where)
        reject_unknown_keys(entry, _APP_CONTAINER_KEYS, where)
        app_id = as_int(required(entry, "app", where), child(where, "app"))
        containers = facts.snapshot.containers_by_app.get(app_id, ())
        if app_id not in facts.snapshot.apps:
            raise ExpectationMismatch(
                child(where, "app"), f"application {app_id}", "no such application in the parse", "application"
            )
        for key, reserved in (("live", False), ("reserved", True)):
            if key in entry:
                count = sum(1 for c in containers if c.reserved == reserved)
                _same(
                    child(where, key),
                    as_int(entry[key], child(where, key)),
                    count,
                    f"{key} containers of application {app_id}",
                )
        if "on_node" in entry:
            for node, value in as_object(entry["on_node"], child(where, "on_node")).items():
                at = quoted(child(where, "on_node"), node)
                count = sum(1 for c in containers if c.node == node)
                _same(at, as_int(value, at), count, f"containers of application {app_id} on {node}")


def _node_count(place: str, expected: Any, facts: _Facts) -> None:
    """The number of nodes."""
    _same(place, as_int(expected, place), len(facts.snapshot.nodes), "number of nodes")


_NODE_FACTS: dict[str, Callable[[ClusterSnapshot, str], object]] = {
    "total_memory": lambda s, n: s.nodes[n].total.memory,
    "total_vcores": lambda s, n: s.nodes[n].total.vcores,
    "running": lambda s, n: sum(1 for c in s.containers if c.node == n and not c.reserved),
    "reserved": lambda s, n: sum(1 for c in s.containers if c.node == n and c.reserved),
    "has_reserved": lambda s, n: any(c.node == n and c.reserved for c in s.containers),
}


def _nodes(place: str, expected: Any, facts: _Facts) -> None:
    """``{node: {total_memory, total_vcores, running, reserved, has_reserved}}``."""
    for node, raw in as_object(expected, place).items():
        where = quoted(place, node)
        entry = as_object(raw, where)
        reject_unknown_keys(entry, _NODE_FACTS, where)
        if node not in facts.snapshot.nodes:
            raise ExpectationMismatch(where, f"node {node}", "no such node in the parse", "node")
        for key, value in entry.items():
            at = child(where, key)
            expected_value = as_bool(value, at) if key == "has_reserved" else as_int(value, at)
            _same(at, expected_value, _NODE_FACTS[key](facts.snapshot, node), f"{key} of node {node}")


#: Every fact this module checks, by its key in ``parser_asserts``.
PARSER_FACTS: dict[str, Callable[[str, Any, _Facts], None]] = {
    "abs_capacities": _abs_capacities,
    "pending_memory": _memory_of("pending", "pending"),
    "reserved_memory": _memory_of("reserved", "reserved"),
    "queue_priority": _queue_priority,
    "preemption_disabled": _preemption_disabled,
    "ignore_exclusivity_containers": _ignore_exclusivity,
    "apps_per_queue": _apps_per_queue,
    "app_containers": _app_containers,
    "node_count": _node_count,
    "nodes": _nodes,
}


def validate_parser_asserts(raw: Any, place: str) -> Mapping[str, Any]:
    """The ``parser_asserts`` object, with every key one this module checks."""
    asserts = as_object(raw, place)
    for key in asserts:
        if key != TOLERANCE_KEY and key not in PARSER_FACTS:
            known = ", ".join(sorted([*PARSER_FACTS, TOLERANCE_KEY]))
            raise Unsupported(
                f"{child(place, key)}: parser assertion {key!r} is not checked by this runner (it checks: {known})"
            )
    if TOLERANCE_KEY in asserts:
        tolerance = as_number(asserts[TOLERANCE_KEY], child(place, TOLERANCE_KEY))
        if tolerance < 0:
            raise CaseFormatError(child(place, TOLERANCE_KEY), f"a tolerance cannot be negative, found {tolerance}")
    return asserts


def check_parser_asserts(
    asserts: Mapping[str, Any], snapshot: ClusterSnapshot, calc: ResourceCalculator, place: str
) -> None:
    """Check every fact in ``asserts`` (validated by :func:`validate_parser_asserts`) in order."""
    tolerance = float(asserts.get(TOLERANCE_KEY, DEFAULT_TOLERANCE))
    facts = _Facts(snapshot, calc, tolerance)
    for key, expected in asserts.items():
        if key != TOLERANCE_KEY:
            PARSER_FACTS[key](child(place, key), expected, facts)
