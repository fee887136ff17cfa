"""Contract ``preemption-round``: one ``editSchedule`` round of the preemption policy.

Upstream: ``org.apache.hadoop.yarn.server.resourcemanager.monitor.capacity
.ProportionalCapacityPreemptionPolicy.editSchedule`` (hadoop-yarn-server-resourcemanager),
which reads the queues' usage, computes each queue's ideal allocation, lets its candidate
selectors choose containers and sends mark / killable events to the scheduler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypedDict, runtime_checkable

from yarnspec.impl.config.keys import PREEMPTION_OBSERVE_ONLY
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import Comparison, FieldRule, compare_fields

__all__ = [
    "RESET",
    "OP",
    "MARK",
    "KILLABLE",
    "RoundSetup",
    "PreemptionEventJson",
    "RoundAnswer",
    "PreemptionRound",
    "RULES",
    "compare",
    "invariants",
]

RESET = "reset"
OP = "edit_schedule"
MARK = "MARK_CONTAINER_FOR_PREEMPTION"
KILLABLE = "MARK_CONTAINER_FOR_KILLABLE"


class RoundSetup(TypedDict):
    """The cluster and settings: a hadoop-preemption case's ``notation`` (``qdata`` or
    ``mockframework``), ``resource_calculator``, ``conf`` and ``input``, in the case-file format
    of ``docs/case-format.md``."""

    notation: str
    resource_calculator: str
    conf: dict[str, Any]
    input: dict[str, Any]


class PreemptionEventJson(TypedDict):
    """One event: its type, the container (``container_<app>_<number>``) and its leaf queue."""

    event: str
    container: str
    queue: str


class RoundAnswer(TypedDict, total=False):
    """What a round sent, and (optional) each queue's ideal assignment in the default partition."""

    events: list[PreemptionEventJson]
    ideal_assigned: dict[str, dict[str, int]]


@runtime_checkable
class PreemptionRound(Protocol):
    """``ProportionalCapacityPreemptionPolicy.editSchedule``, round after round on one cluster.

    ``reset`` takes a :class:`RoundSetup` (the policy's remembered marks start empty);
    ``edit_schedule`` takes ``{"clock_ms": int}`` and returns a :class:`RoundAnswer`.

    Observable, compared with the reference after every round:

    * ``events``: as a set (Hadoop sends them while walking hash maps; the order carries no
      meaning) of (event, container, queue);
    * ``ideal_assigned``: exactly, optional (``idealAssigned`` of each queue after the last
      selector, ``{"memory": MB, "vcores": n}``).

    Invariants on the implementation's own answers (:func:`invariants`): a container is made
    killable only after an earlier round marked it; nothing is sent in observe-only mode; no
    container appears twice in one round's events of one type.
    """

    def reset(self, input: RoundSetup) -> dict[str, Any]:
        """Load the cluster; answers ``{}``."""
        ...

    def edit_schedule(self, input: dict[str, Any]) -> RoundAnswer:
        """One round at ``input['clock_ms']``."""
        ...


RULES = (FieldRule("events", Comparison.AS_SET), FieldRule("ideal_assigned", optional=True))


def compare(call: Call, reference: dict[str, Any], implementation: dict[str, Any]) -> list[str]:
    """The observable differences of one round (class docstring)."""
    if call.op == RESET:
        return []
    return compare_fields(reference, implementation, RULES, "")


def invariants(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
    """The round invariants on one session's answers, computed from calls and answers alone."""
    violations: list[str] = []
    marked: set[str] = set()
    observe_only = False
    for index, (call, answer) in enumerate(zip(calls, answers)):
        if call.op == RESET:
            observe_only = str(call.input.get("conf", {}).get(PREEMPTION_OBSERVE_ONLY, "false")).lower() == "true"
            marked.clear()
            continue
        if answer.output is None:
            continue
        events = answer.output.get("events", [])
        where = f"round {index} (clock {call.input.get('clock_ms')})"
        if observe_only and events:
            violations.append(f"{where}: {len(events)} events sent in observe-only mode")
        seen: set[tuple[str, str]] = set()
        for event in events:
            key = (event["event"], event["container"])
            if key in seen:
                violations.append(f"{where}: {event['container']} appears twice as {event['event']}")
            seen.add(key)
            if event["event"] == KILLABLE and event["container"] not in marked:
                violations.append(f"{where}: {event['container']} made killable without an earlier mark")
        marked.update(event["container"] for event in events if event["event"] == MARK)
    return violations
