"""``spark-placement``: placement cases, generated hint maps, placement case files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from yarnspec.checks.validate.families.family import Family
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import Comparison, same
from yarnspec.spec.contracts.spark_placement import OP

#: The input keys of the contract (PROTOCOL.md); a case's other input keys set up Spark's suite.
INPUT_KEYS = (
    "num_containers",
    "num_locality_aware_tasks",
    "host_to_local_task_count",
    "allocated_host_to_container_count",
    "locality_matched_pending_requests",
    "executor_cores",
    "task_cpus",
    "rack_resolver",
)


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """A one-shot placement case as one call (driver-hint cases with stages are skipped)."""
    inp = case.get("input", {})
    if "stages" in inp or "num_containers" not in inp:
        return "a driver-hint case (stages), not a localityOfRequestedContainers call"
    if "allocated_rule" in inp:
        return "the allocation is given as a rule (Scala HashMap order), not as data"
    return [Call(OP, {key: inp[key] for key in INPUT_KEYS if key in inp})]


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """The case's upstream ``expect.nodes`` against the implementation's answer."""
    expected = case.get("expect", {}).get("nodes")
    if expected is None or not answers or answers[0].output is None:
        return []
    actual = answers[0].output.get("nodes")
    how = Comparison.EXACT if case.get("order_sensitive", True) else Comparison.AS_SET
    if same(expected, actual, how):
        return []
    return [f"expect.nodes ({how.value}, asserted upstream): expected {expected}, implementation {actual}"]


HOSTS = ("host1", "host2", "host3", "host4", "host5")


@st.composite
def _inputs(draw: st.DrawFn) -> list[Call]:
    hosts = draw(st.lists(st.sampled_from(HOSTS), min_size=0, max_size=5, unique=True))
    counts = [[h, draw(st.integers(0, 30))] for h in hosts]
    allocated = {h: draw(st.integers(0, 4)) for h in draw(st.lists(st.sampled_from(HOSTS), max_size=4, unique=True))}
    # pending requests mostly on hint hosts, where they change the need
    on_hints: bool = bool(hosts) and draw(st.booleans())
    pending_hosts = st.sampled_from(hosts if on_hints else HOSTS)
    pending = [
        {"nodes": nodes}
        for nodes in draw(st.lists(st.lists(pending_hosts, min_size=1, max_size=3, unique=True), max_size=3))
    ]
    cores = draw(st.integers(1, 8))
    racks = {h: draw(st.sampled_from(("/rack1", "/rack2"))) for h in hosts if draw(st.booleans())}
    racks["*"] = "/default"
    return [
        Call(
            OP,
            {
                "num_containers": draw(st.integers(0, 8)),
                "num_locality_aware_tasks": draw(st.integers(0, 40)),
                "host_to_local_task_count": counts,
                "allocated_host_to_container_count": allocated,
                "locality_matched_pending_requests": pending,
                "executor_cores": cores,
                "task_cpus": draw(st.integers(1, cores)),
                "rack_resolver": racks,
            },
        )
    ]


def inputs() -> st.SearchStrategy[list[Call]]:
    """One ``localityOfRequestedContainers`` call on a small random hint map."""
    return _inputs()


def to_case(case_id: str, calls: Sequence[Call], reference: Sequence[Answer]) -> dict[str, Any]:
    """A placement case whose ``expect.nodes`` is the reference's answer."""
    output = reference[0].output or {}
    return {
        "id": case_id,
        "kind": "placement",
        "source": {"generated_by": "yarnspec validate", "repo": None},
        "input": calls[0].input,
        "steps": [],
        "expect": {"nodes": output.get("nodes")},
        "order_sensitive": True,
    }


FAMILY = Family("spark-placement", "kind", frozenset({"placement"}), case_calls, case_expectations, inputs, to_case)
