"""``node-sorting``: generated node sets whose allocations and ids often tie."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from yarnspec.checks.conformance.node_sorting import KIND, case_nodes, expected_order
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.checks.validate.families.family import Family
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.node_sorting import OP

#: Hosts and ports chosen so that ties on allocation, on host, and ports that sort differently
#: as text and as numbers (9 < 10 < 8041, but "10" < "8041" < "9") all come up.
HOSTS = ("host1", "host2", "Host3")
PORTS = (9, 10, 8041)


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """A ``kind: node-sorting`` case (``checks/conformance/node_sorting.py``, the cases
    ``validate`` writes) as its one call; a malformed one is skipped with the reason."""
    try:
        return [Call(OP, {"nodes": case_nodes(case)})]
    except (CaseFormatError, Unsupported) as exc:
        return f"malformed case: {exc}"


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """The case's ``expect.order`` against the implementation's answer."""
    try:
        expected = expected_order(case)
    except (CaseFormatError, Unsupported):
        return []
    if not answers or answers[0].output is None or answers[0].output.get("order") == expected:
        return []
    return [f"expect.order (exact): expected {expected}, implementation {answers[0].output.get('order')}"]


def to_case(case_id: str, calls: Sequence[Call], reference: Sequence[Answer]) -> dict[str, Any]:
    """A ``kind: node-sorting`` case whose ``expect.order`` is the reference's answer."""
    output = reference[0].output or {}
    return {
        "id": case_id,
        "kind": KIND,
        "source": {"generated_by": "yarnspec validate", "repo": None},
        "input": calls[0].input,
        "expect": {"order": output.get("order")},
    }


@st.composite
def _inputs(draw: st.DrawFn) -> list[Call]:
    ids = draw(st.lists(st.tuples(st.sampled_from(HOSTS), st.sampled_from(PORTS)), min_size=1, max_size=6, unique=True))
    nodes = []
    for host, port in ids:
        total_memory = draw(st.sampled_from((4096, 8192, 16384)))
        total_vcores = draw(st.sampled_from((4, 8)))
        nodes.append(
            {
                "node_id": f"{host}:{port}",
                "allocated_memory": draw(st.sampled_from((0, 1024, 2048, 4096))),
                "allocated_vcores": draw(st.integers(0, 3)),
                "total_memory": total_memory,
                "total_vcores": total_vcores,
            }
        )
    return [Call(OP, {"nodes": nodes})]


def inputs() -> st.SearchStrategy[list[Call]]:
    """One to six nodes with small allocations (ties likely) and ``host:port`` ids."""
    return _inputs()


FAMILY = Family("node-sorting", "kind", frozenset({KIND}), case_calls, case_expectations, inputs, to_case)
