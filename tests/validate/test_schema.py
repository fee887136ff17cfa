"""The protocol schema: the docs' copy is the package's; it accepts the reference's answers and
refuses malformed ones."""

from __future__ import annotations

import json

import pytest

from yarnspec.checks.validate.families.dispatch import simulate
from yarnspec.checks.validate.reference import Dispatch, Placement
from yarnspec.checks.validate.schema import SCHEMA_FILE, output_definition, protocol_schema, schema_fault

from ..conftest import PROJECT_ROOT


def test_the_docs_copy_is_the_shipped_schema() -> None:
    assert json.loads((PROJECT_ROOT / "docs" / SCHEMA_FILE).read_text()) == protocol_schema()


def test_the_references_answers_fit_the_schema() -> None:
    reference = Dispatch()
    for call in simulate(5, 15):
        output = reference.reset(call.input) if call.op == "reset" else reference.step(call.op, call.input)
        definition = output_definition("spark-dispatch", call.op)
        assert definition is not None and schema_fault(definition, output) is None
    placement = Placement().locality_of_requested_containers(
        {
            "num_containers": 2,
            "num_locality_aware_tasks": 2,
            "host_to_local_task_count": [["h1", 2]],
            "rack_resolver": {"*": "/r"},
        }
    )
    assert schema_fault("placement_output", placement) is None


@pytest.mark.parametrize(
    "definition, value, fault",
    [
        ("answer", {"id": 1}, "(top level): {'id': 1} is not valid under any of the given schemas"),
        ("answer", {"id": 1, "output": {}, "error": "x"}, "is valid under each of"),
        ("hello_output", {"name": "x", "version": "1"}, "'contracts' is a required property"),
        ("observation", {"launched": [{"task_id": 0}]}, "['launched'][0]: 'stage' is a required property"),
        (
            "observation",
            {"launched": [], "task_sets": [{"stage": "0.0", "my_locality_levels": ["LOCAL"]}]},
            "'LOCAL' is not one of",
        ),
        ("round_output", {"events": [{"event": "KILL", "container": "c1", "queue": "root.a"}]}, "['events'][0]"),
    ],
)
def test_malformed_values_are_refused_with_the_place(definition: str, value: object, fault: str) -> None:
    found = schema_fault(definition, value)
    assert found is not None and fault in found, found
