"""Fuzz families for the formats ``validate`` reads (issue 31): an adapter's answer line and a
``validate-trace`` log. Whatever the bytes or JSON, an answer is an :class:`Answer` or a
one-line fault, and an answer that passes goes through the comparison, the invariants and
the report without an exception; a log is explained, not explained, or refused in one line.
Bounded: a few dozen examples each, no process started."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yarnspec.checks.validate.engine import first_broken_step, first_difference, reference_adapter, replay
from yarnspec.checks.validate.process_adapter import checked_answer
from yarnspec.spec.contracts import CONTRACTS, contract_named
from yarnspec.spec.contracts.call import Answer, Call

from .helpers import cli

CONTRACT_NAMES = sorted(name for name, contract in CONTRACTS.items() if contract.validatable and name != "scheduler")
FUZZ = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))

#: One small input per contract (from its own generator's shapes) and the reference's answers.
CALLS: dict[str, list[Call]] = {
    "spark-placement": [
        Call(
            "locality_of_requested_containers",
            {
                "num_containers": 3,
                "num_locality_aware_tasks": 4,
                "host_to_local_task_count": [["host1", 3], ["host2", 1]],
                "allocated_host_to_container_count": {"host1": 1},
                "locality_matched_pending_requests": [],
                "executor_cores": 1,
                "task_cpus": 1,
                "rack_resolver": {"*": "/default", "host1": "/rack1"},
            },
        )
    ],
    "node-sorting": [
        Call(
            "sort_nodes",
            {
                "nodes": [
                    {"node_id": "host1:9", "allocated_memory": 1024, "allocated_vcores": 1},
                    {"node_id": "host2:10", "allocated_memory": 0, "allocated_vcores": 0},
                ]
            },
        )
    ],
}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


def _calls(contract_name: str) -> list[Call]:
    if contract_name in CALLS:
        return CALLS[contract_name]
    from yarnspec.checks.validate.families import family_of

    simulate = family_of(contract_name).simulate
    if simulate is not None:
        return simulate(0, 4)
    from yarnspec.checks.conformance.paths import default_conformance_dir
    from yarnspec.checks.conformance.runner import find_case_files, load_case

    folder = default_conformance_dir()
    assert folder is not None
    family = family_of(contract_name)
    for path in find_case_files([folder]):
        case = load_case(path)
        calls = family.case_calls(case) if family.owns(case) else "not its case"
        if not isinstance(calls, str):
            return calls
    raise AssertionError(f"no input for {contract_name}")


def _reference(contract_name: str) -> tuple[list[Call], list[Answer]]:
    calls = _calls(contract_name)
    return calls, replay(reference_adapter(contract_named(contract_name)), calls).answers


@st.composite
def mutated_answer(draw: st.DrawFn) -> tuple[str, list[Call], list[Answer], int, Any]:
    """A contract, its calls and reference answers, a step, and that step's answer with one
    place replaced by an arbitrary JSON value."""
    name = draw(st.sampled_from(CONTRACT_NAMES))
    calls, ours = _reference(name)
    step = draw(st.integers(0, len(calls) - 1))
    document: Any = ours[step].to_json()
    places: list[tuple[Any, ...]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        places.append(path)
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, item in items:
            walk(item, (*path, key))

    walk(document, ())
    place = draw(st.sampled_from(places))
    replacement = draw(json_values)
    if not place:
        document = replacement
    else:
        document = json.loads(json.dumps(document))
        target = document
        for key in place[:-1]:
            target = target[key]
        target[place[-1]] = replacement
    return name, calls, ours, step, document


def _one_line(fault: str) -> None:
    assert isinstance(fault, str) and fault and len(fault.splitlines()) == 1, fault


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_are_an_answer_or_a_one_line_fault(data: bytes) -> None:
    result = checked_answer(data.replace(b"\n", b""), 1, "spark-placement", "locality_of_requested_containers")
    if isinstance(result, str):
        _one_line(result)
    else:
        assert isinstance(result, Answer)


@FUZZ
@given(json_values)
def test_any_json_value_is_an_answer_or_a_one_line_fault(value: Any) -> None:
    line = json.dumps({"id": 2, "output": value}, allow_nan=True).encode()
    result = checked_answer(line, 2, "node-sorting", "sort_nodes")
    if isinstance(result, str):
        _one_line(result)


@FUZZ
@given(mutated_answer())
def test_a_mutated_answer_is_refused_in_one_line_or_compared_without_an_exception(
    drawn: tuple[str, list[Call], list[Answer], int, Any],
) -> None:
    name, calls, ours, step, document = drawn
    contract = contract_named(name)
    line = json.dumps({"id": step + 2, **document} if isinstance(document, dict) else document).encode()
    result = checked_answer(line, step + 2, name, calls[step].op)
    if isinstance(result, str):
        _one_line(result)
        return
    theirs = [*ours[:step], result]
    first_difference(contract, calls[: step + 1], ours[: step + 1], theirs)
    assert contract.invariants is not None
    for broken in contract.invariants(calls[: step + 1], theirs):
        _one_line(broken)
    first_broken_step(contract, calls[: step + 1], theirs)


@settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(mutated_answer(), st.sampled_from(("output", "call", "line")), st.data())
def test_a_mutated_log_is_explained_or_refused_in_one_line(
    tmp_path: Path, drawn: tuple[str, list[Call], list[Answer], int, Any], what: str, data: st.DataObject
) -> None:
    name, calls, ours, step, document = drawn
    entries: list[Any] = [{**call.to_json(), **answer.to_json()} for call, answer in zip(calls, ours)]
    if what == "output":
        entries[step] = {**calls[step].to_json(), **document} if isinstance(document, dict) else document
    elif what == "call":
        entries[step] = {**entries[step], "input": data.draw(json_values)}
    else:
        entries[step] = data.draw(json_values)
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(entry) for entry in entries) + "\n")
    status, out, err = cli("validate-trace", name, str(path))
    assert status in (0, 1, 2)
    if status == 2:
        assert out == "" and len(err.strip().splitlines()) == 1 and str(path) in err
    else:
        assert err == "" and len(out.strip().splitlines()) == 1
