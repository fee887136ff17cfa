"""No false alarms: for every contract, the reference's own answers, reordered wherever the
contract declares the order unobservable (a field compared as a set, each entry of a field
compared as a set, the keys of an object, the task sets matched by stage), must agree with
the spec in every phase, invariants included (issue 27: a placement port emitting each
container's racks sorted was reported as an INVARIANT violation)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from yarnspec.checks.validate.reference import REFERENCE_ADAPTERS
from yarnspec.spec.contracts import contract_named
from yarnspec.spec.contracts.call import Call
from yarnspec.spec.contracts.observable import Comparison, FieldRule
from yarnspec.spec.contracts.spark_placement import rules_for as placement_rules

from .helpers import phases_for

#: Lists whose order a contract's comparison ignores although no field rule says so: the
#: dispatch comparison matches task sets by ``stage`` (spec/contracts/spark_dispatch.compare).
MATCHED_BY_KEY = {"spark-dispatch": frozenset({"task_sets"})}
#: The answer methods of the reference adapters (every op of every contract goes through one).
METHODS = ("locality_of_requested_containers", "reset", "step", "edit_schedule", "select_candidates", "sort_nodes")


def _shuffled(values: list[Any], rng: random.Random) -> list[Any]:
    copy = list(values)
    rng.shuffle(copy)
    return copy


def permuted(value: Any, rules: dict[str, FieldRule], unordered: frozenset[str], rng: random.Random) -> Any:
    """``value`` with every order the rules do not observe shuffled, recursively."""
    if isinstance(value, list):
        return [permuted(item, rules, unordered, rng) for item in value]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    for key in _shuffled(list(value), rng):
        item = permuted(value[key], rules, unordered, rng)
        rule = rules.get(key)
        if isinstance(item, list) and (key in unordered or (rule is not None and rule.comparison is Comparison.AS_SET)):
            item = _shuffled(item, rng)
        elif isinstance(item, list) and rule is not None and rule.comparison is Comparison.EACH_AS_SET:
            item = [_shuffled(entry, rng) if isinstance(entry, list) else entry for entry in item]
        result[key] = item
    return result


def permuting_reference(contract_name: str, changed: list[int]) -> type:
    """The reference adapter of ``contract_name`` whose answers come back reordered as the
    contract allows (each call's shuffle seeded by the call, so a replay sees the same);
    ``changed`` counts the answers whose JSON text the shuffle changed."""
    contract = contract_named(contract_name)
    base = REFERENCE_ADAPTERS[contract_name]
    unordered = MATCHED_BY_KEY.get(contract_name, frozenset())

    def wrap(name: str) -> Callable[..., Any]:
        def method(self: Any, *args: Any) -> Any:
            output = getattr(super(cls, self), name)(*args)
            op, input = (args[0], args[1]) if len(args) == 2 else (name, args[0])
            call = Call(op, input)
            rules = placement_rules(call) if contract_name == "spark-placement" else contract.rules
            seed = json.dumps([op, input], sort_keys=True)
            reordered = permuted(output, {rule.name: rule for rule in rules}, unordered, random.Random(seed))
            changed[0] += json.dumps(reordered) != json.dumps(output)
            return reordered

        method.__name__ = name
        return method

    cls = type(f"Permuted{base.__name__}", (base,), {name: wrap(name) for name in METHODS if hasattr(base, name)})
    return cls


EXAMPLES = {
    "spark-placement": 150,
    "spark-dispatch": 20,
    "preemption-round": 20,
    "candidate-selector": 30,
    "node-sorting": 100,
    "scheduler": 5,
}


@pytest.mark.parametrize("contract_name", sorted(REFERENCE_ADAPTERS))
def test_the_reference_reordered_as_its_contract_allows_agrees(contract_name: str) -> None:
    changed = [0]
    target = permuting_reference(contract_name, changed)
    phases = phases_for(contract_name, target, examples=EXAMPLES[contract_name])
    assert [f.lines for phase in phases for f in phase.findings] == []
    assert sum(phase.checked for phase in phases) > 0
    if contract_name not in ("node-sorting",):  # node sorting's one field is exact: only key order changes
        assert changed[0] > 0, "the permutation never changed an answer: the test would prove nothing"


def test_a_reordering_the_contract_observes_is_still_found() -> None:
    """The other side: reversing an exactly compared field is a finding (the permuter above
    is not a no-op on what matters)."""

    base = REFERENCE_ADAPTERS["node-sorting"]

    class Reversed(base):  # type: ignore[misc, valid-type]
        def sort_nodes(self, input: dict[str, Any]) -> dict[str, Any]:
            output: dict[str, Any] = super().sort_nodes(input)
            return {"order": output["order"][::-1]}

    phases = phases_for("node-sorting", Reversed, examples=50)
    assert any(f.kind == "disagreement" for phase in phases for f in phase.findings)


def test_an_invariant_report_shows_the_shrunk_input_beside_both_answers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Issue 27: not only the ``.disagreement.json`` holds the input of an INVARIANT finding."""
    import dataclasses
    from collections.abc import Sequence

    from yarnspec.spec.contracts import registry
    from yarnspec.spec.contracts.call import Answer

    from .helpers import cli

    def two_nodes_never(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
        return [
            f"call {i}: more than one node" for i, a in enumerate(answers) if a.output and len(a.output["order"]) > 1
        ]

    contract = registry.CONTRACTS["node-sorting"]
    monkeypatch.setitem(registry.CONTRACTS, "node-sorting", dataclasses.replace(contract, invariants=two_nodes_never))
    status, out, _ = cli("validate", "node-sorting", "--impl", "reference", "--examples", "50", "--out", str(tmp_path))
    assert status == 1
    lines = out.splitlines()
    start = lines.index("INVARIANT [differential] generated input at call 0 (sort_nodes)")
    shown = lines[start + 1 : start + 5]
    assert shown[0] == "  call 0: more than one node"
    assert (
        shown[1].startswith("  input:          ") and len(json.loads(shown[1].split(":", 1)[1])["nodes"]) == 2
    )  # shrunk to two
    assert shown[2].startswith('  reference:      {"output": {"order": [')
    assert shown[3].startswith('  implementation: {"output": {"order": [')
