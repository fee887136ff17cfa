"""Contract ``candidate-selector``: one preemption candidates selector.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity
.PreemptionCandidatesSelector.selectCandidates`` and its implementations
``FifoCandidatesSelector``, ``ReservedContainerCandidatesSelector`` and
``QueuePriorityContainerCandidateSelector``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, TypedDict, runtime_checkable

from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import Comparison, FieldRule, compare_fields

__all__ = ["OP", "SELECTORS", "CONTAINER_ID", "SelectorAnswer", "CandidateSelector", "RULES", "compare", "invariants"]

OP = "select_candidates"
#: The selectors a ``selector`` input may name (the reference's names for Hadoop's classes).
SELECTORS = ("fifo", "reserved", "fifo-balance")
CONTAINER_ID = re.compile(r"^container_[0-9]+_[0-9]+$")


class SelectorAnswer(TypedDict, total=False):
    """The containers chosen (``container_<app>_<number>``) and, optionally, per leaf queue the
    amount still to obtain after the selector (``{"memory": MB, "vcores": n}``)."""

    selected: list[str]
    to_obtain: dict[str, dict[str, int]]


@runtime_checkable
class CandidateSelector(Protocol):
    """``PreemptionCandidatesSelector.selectCandidates(selectedCandidates, clusterResource,
    totalPreemptionAllowed)``.

    Input: a :class:`~.preemption_round.RoundSetup` (the cluster and settings) plus
    ``selector`` (``fifo``, ``reserved`` or ``fifo-balance``); the selector runs in its place in
    one round's pipeline, after the selectors before it (as Hadoop's ``editSchedule`` runs
    them). Output: :class:`SelectorAnswer`.

    Observable: ``selected`` as a set (Hadoop keeps the selection in hash sets per app);
    ``to_obtain`` exactly, optional. The reference adapter (``yarnspec.checks.validate
    .reference.CandidateSelector``) reads the named selector's result from the reference round.

    Invariants on the implementation's own answers (:func:`invariants`): no container chosen
    twice, every id of the form ``container_<app>_<number>`` (``to_obtain`` may go negative:
    Hadoop subtracts what a selector took without a floor).
    """

    def select_candidates(self, input: dict[str, Any]) -> SelectorAnswer:
        """The selector's choice on one cluster."""
        ...


RULES = (FieldRule("selected", Comparison.AS_SET), FieldRule("to_obtain", optional=True))


def compare(call: Call, reference: dict[str, Any], implementation: dict[str, Any]) -> list[str]:
    """The observable differences of one selection (class docstring)."""
    return compare_fields(reference, implementation, RULES, "")


def invariants(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
    """The selector invariants on the implementation's answers (class docstring)."""
    violations: list[str] = []
    for index, answer in enumerate(answers):
        if answer.output is None:
            continue
        selected = answer.output.get("selected", [])
        twice = sorted({c for c in selected if selected.count(c) > 1})
        if twice:
            violations.append(f"call {index}: chosen twice: {twice}")
        malformed = [c for c in selected if not CONTAINER_ID.match(str(c))]
        if malformed:
            violations.append(f"call {index}: not container ids: {malformed}")
    return violations
