"""Mutants of ``node-sorting``: the reference's ``ResourceUsageMultiNodeLookupPolicy`` with one
plausible mistake each (a sort key or a tie-break)."""

from __future__ import annotations

from typing import Any

from yarnspec.checks.validate.reference import NodeSorting, node_id_key


class _Keyed(NodeSorting):
    """Sorts by ``key`` (stable: ties keep the input order)."""

    def key(self, node: dict[str, Any]) -> Any:
        raise NotImplementedError

    def sort_nodes(self, input: dict[str, Any]) -> dict[str, Any]:
        return {"order": [n["node_id"] for n in sorted(input["nodes"], key=self.key)]}


def _allocated(node: dict[str, Any]) -> tuple[int, int]:
    return node["allocated_memory"], node["allocated_vcores"]


class TiesReversed(_Keyed):
    """Breaks ties by the node id, but the greatest first."""

    def sort_nodes(self, input: dict[str, Any]) -> dict[str, Any]:
        by_id = sorted(input["nodes"], key=lambda n: node_id_key(n["node_id"]), reverse=True)
        return {"order": [n["node_id"] for n in sorted(by_id, key=_allocated)]}


class TiesInInputOrder(_Keyed):
    """Leaves ties in the order the scheduler knows the nodes (a stable sort on usage alone)."""

    def key(self, node: dict[str, Any]) -> Any:
        return _allocated(node)


class PortComparedAsText(_Keyed):
    """Compares the ports of a tie as text (``"10" < "9"``)."""

    def key(self, node: dict[str, Any]) -> Any:
        return _allocated(node), node["node_id"]


class HostIgnoringCase(_Keyed):
    """Compares the hosts of a tie without case (Java's ``String.compareTo`` does not)."""

    def key(self, node: dict[str, Any]) -> Any:
        host, port = node_id_key(node["node_id"])
        return _allocated(node), host.lower(), port


class VcoresFirst(_Keyed):
    """Compares vcores before memory."""

    def key(self, node: dict[str, Any]) -> Any:
        return node["allocated_vcores"], node["allocated_memory"], node_id_key(node["node_id"])


class MemoryOnly(_Keyed):
    """Ignores vcores (the memory-only ``Resource.compareTo`` of Hadoop 2)."""

    def key(self, node: dict[str, Any]) -> Any:
        return node["allocated_memory"], node_id_key(node["node_id"])


class MostAllocatedFirst(_Keyed):
    """Puts the busiest node first (packing instead of spreading)."""

    def key(self, node: dict[str, Any]) -> Any:
        memory, vcores = _allocated(node)
        return -memory, -vcores, node_id_key(node["node_id"])


class UsageRatio(_Keyed):
    """Sorts by the used fraction of each node's own capacity (ratio, not absolute usage)."""

    def key(self, node: dict[str, Any]) -> Any:
        ratio = max(node["allocated_memory"] / node["total_memory"], node["allocated_vcores"] / node["total_vcores"])
        return ratio, node_id_key(node["node_id"])


class MostAvailableFirst(_Keyed):
    """Sorts by the most unallocated resource first (the same as least allocated only on equal
    nodes)."""

    def key(self, node: dict[str, Any]) -> Any:
        free = (node["total_memory"] - node["allocated_memory"], node["total_vcores"] - node["allocated_vcores"])
        return -free[0], -free[1], node_id_key(node["node_id"])


class Unsorted(_Keyed):
    """Hands the nodes out as the scheduler knows them (the sorter never ran)."""

    def key(self, node: dict[str, Any]) -> Any:
        return 0


class IdleNodesDropped(_Keyed):
    """Leaves out nodes with nothing allocated."""

    def sort_nodes(self, input: dict[str, Any]) -> dict[str, Any]:
        order = NodeSorting().sort_nodes(input)["order"]
        idle = {n["node_id"] for n in input["nodes"] if _allocated(n) == (0, 0)}
        return {"order": [n for n in order if n not in idle]}


MUTANTS = (
    TiesReversed,
    TiesInInputOrder,
    PortComparedAsText,
    HostIgnoringCase,
    VcoresFirst,
    MemoryOnly,
    MostAllocatedFirst,
    UsageRatio,
    MostAvailableFirst,
    Unsorted,
    IdleNodesDropped,
)
