"""Mutants of ``candidate-selector``: the reference's selectors with one plausible mistake each.

Most run the reference round on a mutant of ``preemption-round`` (the same mistakes seen from
one selector); the others get the selection itself wrong.
"""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from yarnspec.checks.validate import reference
from yarnspec.checks.validate.reference import CandidateSelector
from yarnspec.impl.calculator import DefaultCalculator
from yarnspec.impl.preemption import container_index
from yarnspec.impl.preemption.ordering import victim_order_of_containers

from . import preemption


def _on_round(round_class: type) -> type:
    """The selector read from rounds of ``round_class`` (a ``preemption-round`` mutant whose
    mistake is in its set-up)."""

    def select_candidates(self: CandidateSelector, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(reference, "PreemptionRound", round_class):
            return CandidateSelector.select_candidates(self, input)

    return type(
        round_class.__name__,
        (CandidateSelector,),
        {"select_candidates": select_candidates, "__doc__": round_class.__doc__},
    )


AmContainersNotSpared = _on_round(preemption.AmContainersForgotten)
NoRoundBudget = _on_round(preemption.NoRoundBudget)
NoNaturalTermination = _on_round(preemption.NoNaturalTermination)
NoDeadZone = _on_round(preemption.NoDeadZone)
Hadoop273Rules = _on_round(preemption.Hadoop273Rules)


class VictimOrderReversed(CandidateSelector):
    """Takes an application's containers oldest first instead of newest first."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(
            container_index, "victim_order_of_containers", lambda cs: victim_order_of_containers(cs)[::-1]
        ):
            return super().select_candidates(input)


class IdealTruncated(CandidateSelector):
    """Wrong rounding: the ideal allocation truncates instead of rounding half up."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(DefaultCalculator, "multiply_round_up", preemption._truncated):
            return super().select_candidates(input)


class SelectorNameIgnored(CandidateSelector):
    """Always answers with the FIFO selector's choice, whichever selector is asked."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().select_candidates({**input, "selector": "fifo"})


class EarlierSelectionsIncluded(CandidateSelector):
    """Reports every container chosen so far in the round, not only this selector's."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        answer = super().select_candidates(input)
        if input["selector"] != "fifo":
            answer["selected"] = (
                answer["selected"] + super().select_candidates({**input, "selector": "fifo"})["selected"]
            )
        return answer


class OneContainerShort(CandidateSelector):
    """Stops one container early (an off-by-one in the loop over victims)."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        answer = super().select_candidates(input)
        return {**answer, "selected": answer["selected"][:-1]}


class ToObtainBeforeSelection(CandidateSelector):
    """Reports nothing left to obtain, as if every selection met its target."""

    def select_candidates(self, input: dict[str, Any]) -> dict[str, Any]:
        answer = super().select_candidates(input)
        return {**answer, "to_obtain": {queue: {"memory": 0, "vcores": 0} for queue in answer["to_obtain"]}}


MUTANTS = (
    VictimOrderReversed,
    AmContainersNotSpared,
    IdealTruncated,
    NoRoundBudget,
    NoNaturalTermination,
    NoDeadZone,
    Hadoop273Rules,
    SelectorNameIgnored,
    EarlierSelectionsIncluded,
    OneContainerShort,
    ToObtainBeforeSelection,
)
