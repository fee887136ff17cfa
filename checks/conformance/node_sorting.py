"""Conformance runner for ``kind: node-sorting`` cases: one multi-node sort and its order.

``validate node-sorting`` writes such a case for every finding (the reference's order as the
expectation); ``yarnspec conform`` replays it on the reference policy (Hadoop's
``ResourceUsageMultiNodeLookupPolicy``, :class:`yarnspec.checks.validate.reference
.NodeSorting`), and ``validate node-sorting --cases`` replays it on an implementation.

A case: ``id``, ``kind: "node-sorting"``, ``source``, ``input.nodes`` (the contract's nodes:
``node_id``, ``allocated_memory``, ``allocated_vcores``, optionally ``total_memory`` and
``total_vcores``) and ``expect.order`` (the node ids, first to last).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from yarnspec.checks.conformance.case_fields import LONG_MAX, LONG_MIN, is_explanatory, nothing_to_check
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.checks.validate.reference import NodeSorting, RefusedInput

KIND = "node-sorting"
TOP_KEYS = frozenset({"id", "kind", "source", "input", "expect", "description", "title"})
NODE_INTEGERS = ("allocated_memory", "allocated_vcores")
OPTIONAL_INTEGERS = ("total_memory", "total_vcores")
#: Nodes a case may list (a real partition has a few thousand).
MAX_NODES = 10_000


def case_nodes(case: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The case's ``input.nodes``, checked for form (:class:`CaseFormatError` with the place)."""
    inp = case.get("input")
    if not isinstance(inp, dict) or not isinstance(inp.get("nodes"), list):
        raise CaseFormatError("input.nodes", "expected a list of nodes")
    nodes = inp["nodes"]
    if len(nodes) > MAX_NODES:
        raise CaseFormatError("input.nodes", f"{len(nodes):,} nodes, more than the limit of {MAX_NODES:,}")
    for index, node in enumerate(nodes):
        place = f"input.nodes[{index}]"
        if not isinstance(node, dict) or not isinstance(node.get("node_id"), str):
            raise CaseFormatError(place, "expected an object with a 'node_id' (string)")
        for key in (*NODE_INTEGERS, *(k for k in OPTIONAL_INTEGERS if k in node)):
            value = node.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or not LONG_MIN <= value <= LONG_MAX:
                raise CaseFormatError(f"{place}.{key}", f"expected an integer (a Java long), found {value!r:.40}")
        unknown = sorted(set(node) - {"node_id", *NODE_INTEGERS, *OPTIONAL_INTEGERS})
        if unknown:
            raise Unsupported(f"{place}: unknown field {unknown[0]!r}")
    return nodes


def expected_order(case: Mapping[str, Any]) -> list[str]:
    """The case's ``expect.order`` (a list of node ids)."""
    expect = case.get("expect")
    if not isinstance(expect, dict) or not any(not is_explanatory(key) for key in expect):
        raise nothing_to_check("no expect.order")
    order = expect.get("order")
    if not isinstance(order, list) or not all(isinstance(node, str) for node in order):
        raise CaseFormatError("expect.order", "expected a list of node ids (strings)")
    return order


def run_case(case: Mapping[str, Any]) -> Sequence[str]:
    """Sort the case's nodes with the reference policy and compare with ``expect.order``."""
    unknown = sorted(key for key in set(case) - TOP_KEYS if not is_explanatory(key))
    if unknown:
        raise Unsupported(f"unknown field {unknown[0]!r}")
    nodes = case_nodes(case)
    expected = expected_order(case)
    try:
        order = NodeSorting().sort_nodes({"nodes": nodes})["order"]
    except RefusedInput as exc:
        raise CaseFormatError("input.nodes", str(exc)) from None
    if order != expected:
        raise ExpectationMismatch("expect.order", expected, order, "the policy's order")
    return []
