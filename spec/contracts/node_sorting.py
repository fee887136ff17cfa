"""Contract ``node-sorting``: a multi-node sorting policy.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement
.MultiNodeSortingManager`` with ``ResourceUsageMultiNodeLookupPolicy`` (and
``MultiNodeLookupPolicy.getPreferredNodeIterator``), which orders the candidate nodes of a
partition for the asynchronous multi-node placement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired, Protocol, TypedDict, runtime_checkable

from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import FieldRule, compare_fields

__all__ = ["OP", "NodeJson", "SortingAnswer", "NodeSortingPolicy", "RULES", "compare", "invariants"]

OP = "sort_nodes"


class NodeJson(TypedDict):
    """One node: its id (``host:port``, Hadoop's ``NodeId``), the resources allocated on it
    and (optional: a policy may ignore them) its total resources."""

    node_id: str
    allocated_memory: int
    allocated_vcores: int
    total_memory: NotRequired[int]
    total_vcores: NotRequired[int]


class SortingAnswer(TypedDict):
    """The node ids in the order the policy hands them out."""

    order: list[str]


@runtime_checkable
class NodeSortingPolicy(Protocol):
    """``MultiNodeLookupPolicy.getPreferredNodeIterator`` after ``addAndRefreshNodesSet``.

    Input: ``{"nodes": [NodeJson, ...]}`` in the order the scheduler knows them (node ids
    unique). Output: :class:`SortingAnswer`. ``ResourceUsageMultiNodeLookupPolicy`` keeps the
    nodes in a ``ConcurrentSkipListSet`` whose comparator puts the least allocated resource
    first (``Resource.compareTo``: memory, then vcores) and breaks ties by ``NodeId.compareTo``
    (the host as a string, then the port as a number), so the input order never matters.

    Observable: ``order`` exactly (the order is the whole point).

    Invariants on the implementation's own answers (:func:`invariants`): the order is a
    permutation of the input's node ids, and the allocated memory, then vcores, never
    decreases along it.
    """

    def sort_nodes(self, input: dict[str, Any]) -> SortingAnswer:
        """The nodes in preference order."""
        ...


RULES = (FieldRule("order"),)


def compare(call: Call, reference: dict[str, Any], implementation: dict[str, Any]) -> list[str]:
    """The observable differences of one answer (class docstring)."""
    return compare_fields(reference, implementation, RULES, "")


def invariants(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
    """The sorting invariants on the implementation's answers (class docstring)."""
    violations: list[str] = []
    for index, (call, answer) in enumerate(zip(calls, answers)):
        if answer.output is None or "order" not in answer.output:
            continue
        nodes = {node["node_id"]: node for node in call.input.get("nodes", [])}
        order = answer.output["order"]
        if sorted(order) != sorted(nodes):
            violations.append(f"call {index}: order {order} is not a permutation of the nodes {sorted(nodes)}")
            continue
        allocated = [(nodes[n]["allocated_memory"], nodes[n]["allocated_vcores"]) for n in order]
        for before, (node, after) in zip(allocated, zip(order[1:], allocated[1:])):
            if after < before:
                violations.append(
                    f"call {index}: {node} (allocated {list(after)}) comes after a node with more allocated ({list(before)})"
                )
    return violations
