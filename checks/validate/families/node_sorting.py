"""``node-sorting``: generated node sets whose allocations and ids often tie."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.node_sorting import OP

from yarnspec.checks.validate.families.family import Family

#: Hosts and ports chosen so that ties on allocation, on host, and ports that sort differently
#: as text and as numbers (9 < 10 < 8041, but "10" < "8041" < "9") all come up.
HOSTS = ("host1", "host2", "Host3")
PORTS = (9, 10, 8041)


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """There are no node-sorting conformance cases (the family owns none)."""
    return "not a node-sorting case"


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """No upstream expectations."""
    return []


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


FAMILY = Family("node-sorting", "kind", frozenset(), case_calls, case_expectations, inputs, None)
