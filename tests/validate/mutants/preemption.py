"""Mutants of ``preemption-round``: each is the reference with one plausible mistake."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from unittest.mock import patch

from yarnspec.checks.validate.reference import PreemptionRound
from yarnspec.impl.calculator import DefaultCalculator
from yarnspec.impl.preemption import container_index
from yarnspec.impl.preemption.ordering import victim_order_of_containers
from yarnspec.impl.resources import Resource

PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."


class _ConfChanged(PreemptionRound):
    """The reference reading one setting wrongly (``CHANGE``)."""

    CHANGE: dict[str, Any] = {}

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().reset({**input, "conf": {**input.get("conf", {}), **self.CHANGE}})


def _truncated(self: DefaultCalculator, r: Resource, factor: float | Sequence[float]) -> Resource:
    f = factor if isinstance(factor, (int, float)) else factor[0]
    memory = int(r.memory * f)
    return Resource((memory, 1 if memory > 0 else 0) + (0,) * max(0, len(r) - 2))


class IdealTruncated(PreemptionRound):
    """Wrong rounding: the fixpoint's offers and natural termination truncate instead of
    rounding half up."""

    def edit_schedule(self, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(DefaultCalculator, "multiply_round_up", _truncated):
            return super().edit_schedule(input)


class VictimOrderReversed(PreemptionRound):
    """Takes an application's containers oldest first instead of newest first."""

    def edit_schedule(self, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(
            container_index, "victim_order_of_containers", lambda cs: victim_order_of_containers(cs)[::-1]
        ):
            return super().edit_schedule(input)


class AmContainersForgotten(PreemptionRound):
    """Forgets that AM containers are spared (takes them like any other)."""

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        if input.get("notation") == "qdata":
            input = {**input, "input": {**input["input"], "set_am_container": False}}
        return super().reset(input)


class KillWithoutWait(_ConfChanged):
    """Makes containers killable without waiting ``max_wait_before_kill``."""

    CHANGE = {PREFIX + "max_wait_before_kill": 0}


class NeverKillable(PreemptionRound):
    """Marks but never makes a container killable."""

    def edit_schedule(self, input: dict[str, Any]) -> dict[str, Any]:
        out = super().edit_schedule(input)
        return {**out, "events": [e for e in out["events"] if e["event"] != "MARK_CONTAINER_FOR_KILLABLE"]}


class NoRoundBudget(_ConfChanged):
    """Ignores ``total_preemption_per_round``."""

    CHANGE = {PREFIX + "total_preemption_per_round": 1.0}


class NoNaturalTermination(_ConfChanged):
    """Ignores ``natural_termination_factor``."""

    CHANGE = {PREFIX + "natural_termination_factor": 1.0}


class NoDeadZone(_ConfChanged):
    """Ignores ``max_ignored_over_capacity``."""

    CHANGE = {PREFIX + "max_ignored_over_capacity": 0.0}


class MarksForgotten(PreemptionRound):
    """Forgets the marks between rounds, so nothing is ever made killable."""

    def edit_schedule(self, input: dict[str, Any]) -> dict[str, Any]:
        self._state = None
        return super().edit_schedule(input)


class Hadoop273Rules(PreemptionRound):
    """The wrong release: Hadoop 2.7.3's rules (its ideal allocation, re-marking every round,
    killing one round later) where Hadoop 3's are asked for."""

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        answer = super().reset(input)
        assert self._setup is not None
        snapshot, config, calc = self._setup
        self._setup = (snapshot, config.replace(variant="hadoop-2.7.3"), calc)
        return answer


class QueueNamedByParent(PreemptionRound):
    """Reports each event against the root instead of the container's leaf."""

    def edit_schedule(self, input: dict[str, Any]) -> dict[str, Any]:
        out = super().edit_schedule(input)
        return {**out, "events": [{**e, "queue": "root"} for e in out["events"]]}


MUTANTS = (
    IdealTruncated,
    VictimOrderReversed,
    AmContainersForgotten,
    KillWithoutWait,
    NeverKillable,
    NoRoundBudget,
    NoNaturalTermination,
    NoDeadZone,
    MarksForgotten,
    Hadoop273Rules,
    QueueNamedByParent,
)
