"""The contracts by their command-line name (``yarnspec validate CONTRACT``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.contracts import (
    candidate_selector,
    node_sorting,
    preemption_round,
    scheduler,
    spark_dispatch,
    spark_placement,
)
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import FieldRule

__all__ = ["Compare", "Invariants", "Contract", "CONTRACTS", "contract_named"]

Compare = Callable[[Call, dict[str, Any], dict[str, Any]], list[str]]
Invariants = Callable[[Sequence[Call], Sequence[Answer]], list[str]]


@dataclass(frozen=True)
class Contract:
    """One pluggable part: its name, the upstream class, its Protocol, and (for the contracts
    ``validate`` drives) how answers are compared and which invariants they must keep.

    ``step_method`` names the Python method that takes ``(op, input)`` for every op not
    named as a method itself (the dispatch driver's ``step``); other ops call the method of the
    op's name with the input.
    """

    name: str
    upstream: str
    protocol: type
    stateful: bool
    rules: tuple[FieldRule, ...] = ()
    compare: Compare | None = None
    invariants: Invariants | None = None
    step_method: str | None = None

    @property
    def validatable(self) -> bool:
        """Whether ``yarnspec validate`` can drive this contract."""
        return self.compare is not None


CONTRACTS: dict[str, Contract] = {
    c.name: c
    for c in (
        Contract(
            "spark-placement",
            "LocalityPreferredContainerPlacementStrategy.localityOfRequestedContainers",
            spark_placement.ContainerPlacementStrategy,
            stateful=False,
            rules=spark_placement.RULES,
            compare=spark_placement.compare,
            invariants=spark_placement.invariants,
        ),
        Contract(
            "spark-dispatch",
            "TaskSchedulerImpl + TaskSetManager",
            spark_dispatch.TaskDispatchDriver,
            stateful=True,
            rules=spark_dispatch.RULES,
            compare=spark_dispatch.compare,
            invariants=spark_dispatch.invariants,
            step_method="step",
        ),
        Contract(
            "preemption-round",
            "ProportionalCapacityPreemptionPolicy.editSchedule",
            preemption_round.PreemptionRound,
            stateful=True,
            rules=preemption_round.RULES,
            compare=preemption_round.compare,
            invariants=preemption_round.invariants,
        ),
        Contract(
            "candidate-selector",
            "PreemptionCandidatesSelector.selectCandidates",
            candidate_selector.CandidateSelector,
            stateful=False,
            rules=candidate_selector.RULES,
            compare=candidate_selector.compare,
            invariants=candidate_selector.invariants,
        ),
        Contract(
            "node-sorting",
            "MultiNodeLookupPolicy.getPreferredNodeIterator",
            node_sorting.NodeSortingPolicy,
            stateful=False,
            rules=node_sorting.RULES,
            compare=node_sorting.compare,
            invariants=node_sorting.invariants,
        ),
        Contract(
            "scheduler",
            "CapacityScheduler",
            scheduler.Scheduler,
            stateful=True,
            rules=scheduler.RULES,
            compare=scheduler.compare,
            invariants=scheduler.invariants,
        ),
    )
}


def contract_named(name: str) -> Contract:
    """The contract called ``name``; an unknown name is an :class:`InputError` listing the known."""
    try:
        return CONTRACTS[name]
    except KeyError:
        raise InputError(
            "<command line>", "CONTRACT", f"unknown contract {name!r} (known: {', '.join(CONTRACTS)})"
        ) from None
