"""How an output field is compared between the reference and an implementation.

A contract's docstring says, per field, whether it is compared exactly (order included), as a
set (order ignored), and whether it is optional (an implementation may leave it out; then it is
not compared and the report says so).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Comparison", "FieldRule", "same", "compare_fields"]


class Comparison(enum.Enum):
    """How one field's two values are compared."""

    EXACT = "exact"
    AS_SET = "as a set"
    EACH_AS_SET = "in order, each entry as a set"


@dataclass(frozen=True)
class FieldRule:
    """One observable field of an answer: its name, how it is compared, whether optional."""

    name: str
    comparison: Comparison = Comparison.EXACT
    optional: bool = False


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def same(reference: Any, implementation: Any, comparison: Comparison) -> bool:
    """Whether two values agree under ``comparison`` (lists compared as multisets for AS_SET)."""
    if comparison is Comparison.AS_SET and isinstance(reference, list) and isinstance(implementation, list):
        return sorted(map(_canonical, reference)) == sorted(map(_canonical, implementation))
    if comparison is Comparison.EACH_AS_SET and isinstance(reference, list) and isinstance(implementation, list):
        return len(reference) == len(implementation) and all(
            same(ours, theirs, Comparison.AS_SET) for ours, theirs in zip(reference, implementation)
        )
    return _canonical(reference) == _canonical(implementation)


def in_declared_form(expected: Any, given: Any, comparison: Comparison) -> Any:
    """``given`` as an invariant should see it: ``expected`` itself when the two agree under
    the field's declared ``comparison`` (so an invariant written for the reference's order
    never holds an order the contract does not observe against an implementation), else
    ``given`` unchanged."""
    return expected if same(expected, given, comparison) else given


def rule_named(rules: Sequence[FieldRule], name: str) -> FieldRule:
    """The rule of field ``name`` among ``rules``."""
    return next(rule for rule in rules if rule.name == name)


def compare_fields(
    reference: Mapping[str, Any], implementation: Mapping[str, Any], rules: Sequence[FieldRule], place: str
) -> list[str]:
    """The differences between two answers, one line per differing field at ``place``.

    An optional field the implementation left out is skipped; a required one it left out is a
    difference.
    """
    differences = []
    for rule in rules:
        where = f"{place}.{rule.name}" if place else rule.name
        if rule.name not in implementation:
            if not rule.optional and rule.name in reference:
                differences.append(f"{where}: missing (required)")
            continue
        if rule.name not in reference:
            continue
        if not same(reference[rule.name], implementation[rule.name], rule.comparison):
            differences.append(
                f"{where} ({rule.comparison.value}): reference {_canonical(reference[rule.name])}, "
                f"implementation {_canonical(implementation[rule.name])}"
            )
    return differences
