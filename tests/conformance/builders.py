"""Small Hadoop case files for the runner tests, and a scripted stand-in for the policy so the
runner's own logic (counting, places, rounds, warnings) is tested apart from the policy's."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from yarnspec.checks.conformance import hadoop
from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import ClusterSnapshot, Container
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.result import (
    EventType,
    PolicyState,
    PreemptionEvent,
    QueueTarget,
    RoundResult,
    SelectorResult,
)
from yarnspec.impl.resources import ZERO, Resource

P = "yarn.resourcemanager.monitor.capacity.preemption."
HARNESS_CONF = {
    P + "max_wait_before_kill": 10000,
    P + "monitoring_interval": 3000,
    P + "total_preemption_per_round": 1.0,
    P + "natural_termination_factor": 1.0,
}

#: Three applications: 1 and 2 in root.a (tokens "a" and "root.a"), 3 in root.b.
MOCK_INPUT = {
    "labelsConfig": "=100,true",
    "nodesConfig": "n1=;n2=",
    "queuesConfig": "root(=[100 100 100 10]);-a(=[50 100 80 0]);-b(=[50 100 20 10])",
    "appsConfig": "a\t(1,1,n1,,40,false);root.a\t(1,1,n2,,40,false);b\t(1,1,n1,,20,false)",
}


def mock_case(rounds: Any, **top: Any) -> dict[str, Any]:
    """A string-notation case with the given rounds."""
    case: dict[str, Any] = {
        "id": "Test.mock",
        "notation": "mockframework",
        "resource_calculator": "default",
        "conf": dict(HARNESS_CONF),
        "input": copy.deepcopy(MOCK_INPUT),
        "rounds": rounds,
    }
    case.update(top)
    return case


def qdata_case(rounds: Any, **top: Any) -> dict[str, Any]:
    """A qData case: root -> queueA (apps 0..3), queueB (app 4)."""
    case: dict[str, Any] = {
        "id": "Test.qdata",
        "notation": "qdata",
        "resource_calculator": "default",
        "conf": dict(HARNESS_CONF),
        "input": {
            "rows": {
                "abs": [100, 50, 50],
                "maxCap": [100, 100, 100],
                "used": [100, 80, 20],
                "pending": [10, 0, 10],
                "reserved": [0, 0, 0],
                "apps": [5, 4, 1],
                "gran": [-1, 1, 1],
                "subqueues": [2, 0, 0],
            }
        },
        "rounds": rounds,
    }
    case.update(top)
    return case


def write_case(folder: Path, case: dict[str, Any] | str, name: str = "case") -> Path:
    """The case as ``<folder>/<name>.json`` (a string is written as it is)."""
    path = folder / f"{name}.json"
    path.write_text(case if isinstance(case, str) else json.dumps(case), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Pick:
    """One scripted event: the kind, and which container (by application and number)."""

    app: int
    number: int
    kind: EventType = EventType.MARK_CONTAINER_FOR_PREEMPTION


@dataclass
class ScriptedPolicy:
    """Stands in for ``edit_schedule``: round ``i`` of a case (a call without state starts a
    case) emits ``script[i]``'s events and the given targets; every call is recorded."""

    script: Sequence[Sequence[Pick]] = ()
    targets: Sequence[Sequence[dict[tuple[str, str], QueueTarget]]] = ()
    calls: list[tuple[ClusterSnapshot, PreemptionConfig, int, PolicyState | None]] = field(default_factory=list)
    round_index: int = 0

    def __call__(
        self,
        snapshot: ClusterSnapshot,
        config: PreemptionConfig,
        calc: ResourceCalculator,
        now_ms: int,
        state: PolicyState | None = None,
    ) -> RoundResult:
        self.round_index = 0 if state is None else self.round_index + 1
        index = self.round_index
        self.calls.append((snapshot, config, now_ms, state))
        picks = self.script[index] if index < len(self.script) else ()
        events = tuple(PreemptionEvent(p.kind, _container(snapshot, p), "fifo") for p in picks)
        per_selector = self.targets[index] if index < len(self.targets) else ()
        selectors = tuple(SelectorResult(f"s{i}", 0, t, ()) for i, t in enumerate(per_selector))
        return RoundResult(now_ms, ZERO, selectors, events, PolicyState())

    def install(self, monkeypatch: pytest.MonkeyPatch) -> ScriptedPolicy:
        """Replace the runner's policy with this script for one test."""
        monkeypatch.setattr(hadoop, "edit_schedule", self)
        return self


def _container(snapshot: ClusterSnapshot, pick: Pick) -> Container:
    return next(c for c in snapshot.containers_by_app[pick.app] if c.container_id.number == pick.number)


def target(queue: str, ideal: int, partition: str = "") -> dict[tuple[str, str], QueueTarget]:
    """A selector's target map holding one queue whose ideal memory is ``ideal``."""
    r = Resource.of(ideal, ideal)
    return {(queue, partition): QueueTarget(queue, partition, ZERO, ZERO, r, ZERO, ZERO, ZERO, ZERO)}
