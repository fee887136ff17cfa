"""Contract ``candidate-selector``: one preemption candidates selector.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity
.PreemptionCandidatesSelector.selectCandidates`` and its implementations
``FifoCandidatesSelector``, ``ReservedContainerCandidatesSelector`` and
``QueuePriorityContainerCandidateSelector``.
"""

from __future__ import annotations

from typing import Any, Protocol, TypedDict, runtime_checkable


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
    """

    def select_candidates(self, input: dict[str, Any]) -> SelectorAnswer:
        """The selector's choice on one cluster."""
        ...
