"""Replaying calls on an implementation and on the reference, and finding where they differ."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from yarnspec.checks.validate.adapter import Adapter, AdapterFault
from yarnspec.checks.validate.python_adapter import PythonAdapter
from yarnspec.checks.validate.reference import REFERENCE_ADAPTERS
from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer, Call

UNKNOWN_OP = "unknown op "


class ReferenceFault(RuntimeError):
    """The reference itself failed on the calls: on a generated input a yarnspec bug, on a
    user's case file a case the reference cannot run (the conformance phase skips it)."""


@dataclass
class Replay:
    """The answers of one implementation to a sequence of calls, up to a fault if one came."""

    answers: list[Answer] = field(default_factory=list)
    fault: str | None = None


def replay(adapter: Adapter, calls: Sequence[Call]) -> Replay:
    """Every call in order in one fresh session; stops at the first fault (a
    :class:`StartFault` is raised: nothing can be validated)."""
    result = Replay()
    session = adapter.open()
    try:
        for call in calls:
            result.answers.append(session.call(call.op, call.input))
    except AdapterFault as exc:
        result.fault = str(exc)
        adapter.close()
    return result


def reference_adapter(contract: Contract) -> Adapter:
    """The reference as an adapter of ``contract``."""
    return PythonAdapter(REFERENCE_ADAPTERS[contract.name], contract, "reference")


@dataclass(frozen=True)
class Difference:
    """The first call whose answers differ, and how."""

    step: int
    lines: tuple[str, ...]
    unsupported: bool = False


def first_difference(
    contract: Contract, calls: Sequence[Call], reference: Sequence[Answer], implementation: Sequence[Answer]
) -> Difference | None:
    """The first call whose answers differ under the contract's comparison (``None``: agree).

    Both refusing agrees; one refusing is a difference, except an implementation's
    ``unknown op`` answer, which marks the sequence unsupported by it.
    """
    assert contract.compare is not None
    for step, (call, ours, theirs) in enumerate(zip(calls, reference, implementation)):
        if theirs.error is not None and theirs.error.startswith(UNKNOWN_OP):
            return Difference(
                step, (f"{call.op}: the implementation does not support this op ({theirs.error})",), unsupported=True
            )
        if ours.error is not None or theirs.error is not None:
            if ours.error is not None and theirs.error is not None:
                continue
            return Difference(step, (f"{call.op}: reference {_shown(ours)}, implementation {_shown(theirs)}",))
        assert ours.output is not None and theirs.output is not None
        lines = contract.compare(call, ours.output, theirs.output)
        if lines:
            return Difference(step, tuple(f"{call.op}: {line}" for line in lines))
    return None


def _shown(answer: Answer) -> str:
    if answer.error is not None:
        return f"refused ({answer.error})"
    return "answered " + json.dumps(answer.output, sort_keys=True)[:300]


@dataclass(frozen=True)
class Finding:
    """One disagreement, fault or invariant violation with everything needed to replay it."""

    phase: str
    label: str
    calls: tuple[Call, ...]
    reference: tuple[Answer, ...]
    implementation: tuple[Answer, ...]
    lines: tuple[str, ...]
    step: int | None = None
    kind: str = "disagreement"

    def to_json(self, contract: str, impl: str) -> dict[str, Any]:
        """The replayable file: the calls and both sides' answers, call by call."""
        return {
            "format": "yarnspec-disagreement/1",
            "contract": contract,
            "impl": impl,
            "phase": self.phase,
            "label": self.label,
            "kind": self.kind,
            "first_differing_step": self.step,
            "differences": list(self.lines),
            "calls": [
                {
                    **call.to_json(),
                    "reference": self.reference[i].to_json() if i < len(self.reference) else None,
                    "implementation": self.implementation[i].to_json() if i < len(self.implementation) else None,
                }
                for i, call in enumerate(self.calls)
            ],
        }


@dataclass(frozen=True)
class Checked:
    """The outcome of one sequence of calls: a finding (or ``None``), whether the implementation
    declared an op unsupported, and its answers."""

    finding: Finding | None
    unsupported: bool
    answers: tuple[Answer, ...]


def check(contract: Contract, adapter: Adapter, phase: str, label: str, calls: Sequence[Call]) -> Checked:
    """Run ``calls`` on both sides and compare (:class:`Checked`).

    A fault, a difference, or an invariant broken by the implementation's answers is a finding.
    """
    assert contract.invariants is not None
    ours = replay(reference_adapter(contract), calls)
    if ours.fault is not None:
        raise ReferenceFault(f"the reference faulted on {label}: {ours.fault}")
    theirs = replay(adapter, calls)
    calls = tuple(calls)
    if theirs.fault is not None:
        step = len(theirs.answers)
        found = Finding(phase, label, calls, tuple(ours.answers), tuple(theirs.answers), (theirs.fault,), step, "fault")
        return Checked(found, False, tuple(theirs.answers))
    answers = tuple(theirs.answers)
    difference = first_difference(contract, calls, ours.answers, theirs.answers)
    if difference is not None and difference.unsupported:
        return Checked(None, True, answers)
    if difference is not None:
        found = Finding(phase, label, calls, tuple(ours.answers), answers, difference.lines, difference.step)
        return Checked(found, False, answers)
    broken = contract.invariants(calls, theirs.answers)
    if broken:
        at = first_broken_step(contract, calls, answers)
        return Checked(
            Finding(phase, label, calls, tuple(ours.answers), answers, tuple(broken), at, "invariant"), False, answers
        )
    return Checked(None, False, answers)


def first_broken_step(contract: Contract, calls: Sequence[Call], answers: Sequence[Answer]) -> int | None:
    """The first call after which the implementation's answers break an invariant (the call a
    report shows with its input and both answers); ``None`` if no prefix breaks one."""
    assert contract.invariants is not None
    for step in range(len(answers)):
        if contract.invariants(calls[: step + 1], answers[: step + 1]):
            return step
    return None
