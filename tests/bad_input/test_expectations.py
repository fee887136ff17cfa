"""Every asserted value of every shipped case decides its verdict.

For each case that passes (the shared conformance cases read at run time, the shipped
example cases and the shipped fair-share cases), each single asserted value is changed to one the assertion no longer implies
and the case must then FAIL; and the case with every expectation removed must be UNSUPPORTED
("nothing to check"), never PASS.

Where the change goes: a count, a memory or vcores figure, an index or any number becomes one
more; a boolean flips; a string gets a suffix; a list gets one more element (a changed copy
of its last); ``never: true``
becomes ``count: 1``; a ``sorted_order`` is reversed. Values that only explain (``derived``,
``*_note``, ``asserted: false`` entries) are left alone, and so are the negative assertions
listed in :data:`NEGATIVE`, where a different value is a different claim that is still true.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance import runner
from yarnspec.checks.conformance.case_fields import is_explanatory
from yarnspec.checks.conformance.outcome import CaseVerdict
from yarnspec.checks.conformance.paths import BUILTIN_CASES, default_conformance_dir

PROJECT_ROOT = Path(__file__).resolve().parents[2]

#: Assertions of absence: another value (a host never added, a container never allocated) is a
#: claim of the same kind that usually still holds, so no change of one value must fail.
NEGATIVE = frozenset({"update_blacklist_never_with_additions", "containers_not_allocated", "hosts_not_allocated"})
#: Keys of an expectation entry that say what is counted, not what the count is (and, beside
#: them, ``*_tolerance``: how closely a figure is compared; a looser one is still true).
SELECTORS = frozenset(
    {"app", "app_id", "event", "container_queue", "container_node", "queue", "partition", "field", "asserted"}
)


def _case_files() -> list[Path]:
    files = sorted((PROJECT_ROOT / "docs" / "examples" / "cases").glob("*.json"))
    files += sorted((BUILTIN_CASES / "hadoop-preemption-fair-share").rglob("*.json"))
    shared = default_conformance_dir()
    return files + (sorted(shared.rglob("*.json")) if shared is not None else [])


def _passing() -> list[tuple[str, Any]]:
    cases = []
    for path in _case_files():
        if runner.run_one(path).verdict is CaseVerdict.PASS:
            cases.append((path.stem, json.loads(path.read_text(encoding="utf-8"))))
    return cases


PASSING = _passing()
Path_ = tuple[Any, ...]


def _changed(value: Any) -> Any:
    """A value the assertion no longer implies (see the module docstring)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "-changed"
    if isinstance(value, list):
        extra = _changed(value[-1]) if value else "changed"
        return [*value, extra]
    if value is None:
        return ["changed"]
    if isinstance(value, dict) and value:
        key = next(iter(value))
        return {**value, key: _changed(value[key])}
    if value == {}:
        return {"changed": 1}
    raise AssertionError(f"no change for {value!r}")


def _leaves(value: Any, path: Path_) -> Iterator[Path_]:
    """Every place under an asserted value that one change can falsify: each scalar, and each
    list as a whole (one element more)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not is_explanatory(str(key)):
                yield from _leaves(item, (*path, key))
        return
    if isinstance(value, list):
        yield path
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                yield from _leaves(item, (*path, index))
        return
    yield path


def _spark_assertions(case: dict[str, Any]) -> Iterator[Path_]:
    expects: list[Path_] = [("expect",)] if isinstance(case.get("expect"), dict) else []
    expects += [
        ("steps", i, "expect") for i, step in enumerate(case.get("steps", [])) if isinstance(step.get("expect"), dict)
    ]
    for place in expects:
        for key, value in _at(case, place).items():
            if not is_explanatory(key) and key not in NEGATIVE:
                yield from _leaves(value, (*place, key))


def _hadoop_assertions(case: dict[str, Any]) -> Iterator[Path_]:
    for r, spec in enumerate(case["rounds"]):
        for e, entry in enumerate(spec.get("expect", [])):
            if entry.get("asserted", True):
                yield ("rounds", r, "expect", e, "never" if "never" in entry else "count")
        for s, entry in enumerate(spec.get("state_asserts", [])):
            yield from ((("rounds", r, "state_asserts", s, key)) for key in ("memory", "vcores") if key in entry)
        if "parser_asserts" in spec:
            yield from _leaves(spec["parser_asserts"], ("rounds", r, "parser_asserts"))
        if len(spec.get("sorted_order", [])) > 1:
            yield ("rounds", r, "sorted_order")


def _superior_assertions(case: dict[str, Any]) -> Iterator[Path_]:
    """Seed 004's worked example: per round the containers taken per job and each queue's use."""
    for r, spec in enumerate(case["rounds"]):
        for key in ("preempted", "used_after"):
            value = spec.get("expect", {}).get(key)
            if value == {}:
                yield ("rounds", r, "expect", key)
            elif value is not None:
                yield from _leaves(value, ("rounds", r, "expect", key))


def assertions(case: dict[str, Any]) -> list[Path_]:
    """The places of every asserted value of a case."""
    if case.get("notation") == "superior":
        found = _superior_assertions(case)
    else:
        found = _hadoop_assertions(case) if "notation" in case else _spark_assertions(case)
    return [place for place in found if place[-1] not in SELECTORS and not str(place[-1]).endswith("_tolerance")]


def _at(value: Any, path: Path_) -> Any:
    for key in path:
        value = value[key]
    return value


def mutated(case: dict[str, Any], place: Path_) -> dict[str, Any]:
    """The case with the value at ``place`` changed."""
    result = copy.deepcopy(case)
    parent = _at(result, place[:-1])
    key = place[-1]
    if key == "never":
        del parent["never"]
        parent["count"] = 1
    elif key == "sorted_order":
        parent[key] = list(reversed(parent[key]))
    else:
        parent[key] = _changed(parent[key])
    return result


def stripped(case: dict[str, Any]) -> dict[str, Any]:
    """The case with every expectation removed."""
    result = copy.deepcopy(case)
    if "notation" in result:
        for spec in result["rounds"]:
            for key in ("expect", "state_asserts", "parser_asserts", "sorted_order", "other_asserts"):
                spec.pop(key, None)
        return result
    for holder in [result, *result.get("steps", [])]:
        holder.pop("expect", None)
    return result


def _verdict(tmp_path: Path, case: dict[str, Any], name: str) -> runner.CaseOutcome:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(case), encoding="utf-8")
    return runner.run_one(path)


def test_the_shipped_cases_are_read() -> None:
    """Guards the tests below against an empty parametrisation (no shared folder found)."""
    assert len(PASSING) >= 80
    assert sum(len(assertions(case)) for _, case in PASSING) >= 400


@pytest.mark.parametrize(("name", "case"), PASSING, ids=[name for name, _ in PASSING])
def test_changing_any_asserted_value_fails_the_case(tmp_path: Path, name: str, case: dict[str, Any]) -> None:
    places = assertions(case)
    survivors = []
    for place in places:
        outcome = _verdict(tmp_path, mutated(case, place), name)
        if outcome.verdict is not CaseVerdict.FAIL:
            survivors.append((place, outcome.verdict.value, outcome.detail))
    assert not survivors, survivors


@pytest.mark.parametrize(("name", "case"), PASSING, ids=[name for name, _ in PASSING])
def test_a_case_with_nothing_to_check_is_unsupported(tmp_path: Path, name: str, case: dict[str, Any]) -> None:
    outcome = _verdict(tmp_path, stripped(case), name)
    assert outcome.verdict is CaseVerdict.UNSUPPORTED, outcome
    assert "nothing to check" in outcome.detail or "prose" in outcome.detail
