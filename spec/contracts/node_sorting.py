"""Contract ``node-sorting``: a multi-node sorting policy.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement
.MultiNodeSortingManager`` with ``ResourceUsageMultiNodeLookupPolicy`` (and
``MultiNodeLookupPolicy.getPreferredNodeIterator``), which orders the candidate nodes of a
partition for the asynchronous multi-node placement.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict, runtime_checkable


class NodeJson(TypedDict):
    """One node: its id and the resources allocated on it."""

    node_id: str
    allocated_memory: int
    allocated_vcores: int


class SortingAnswer(TypedDict):
    """The node ids in the order the policy hands them out."""

    order: list[str]


@runtime_checkable
class NodeSortingPolicy(Protocol):
    """``MultiNodeLookupPolicy.getPreferredNodeIterator`` after ``addAndRefreshNodesSet``.

    Input: ``{"nodes": [NodeJson, ...]}`` in the order the scheduler knows them. Output:
    :class:`SortingAnswer`. Observable: ``order`` exactly (the order is the whole point).
    """

    def sort_nodes(self, input: dict[str, Any]) -> SortingAnswer:
        """The nodes in preference order."""
        ...
