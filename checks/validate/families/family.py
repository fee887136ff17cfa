"""What ``validate`` needs of a contract beyond its comparison."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from yarnspec.spec.contracts.call import Answer, Call

#: A case file -> its calls, or the reason it cannot be replayed through the contract.
CaseCalls = Callable[[Mapping[str, Any]], "list[Call] | str"]
#: A case file and the implementation's answers -> the upstream assertions they break.
CaseExpectations = Callable[[Mapping[str, Any], Sequence[Answer]], list[str]]
#: A seed -> one trace of calls, each chosen from what the reference's state allows.
Simulation = Callable[[int, int], list[Call]]
#: The calls and the reference's answers -> a case file reproducing them.
ToCase = Callable[[str, Sequence[Call], Sequence[Answer]], dict[str, Any]]


@dataclass(frozen=True)
class Family:
    """One contract's inputs and outputs for ``validate``.

    ``case_kinds`` are the ``kind`` / ``notation`` values of its conformance cases;
    ``to_case`` is ``None`` where no conformance case kind carries the contract (a finding is
    then written as a replayable file only); ``simulate`` is ``None`` for a stateless contract
    (no model-based phase), and ``trace_length`` its steps per trace when not the default;
    ``shrink_budget`` caps the replays spent shrinking a differential finding (``None``: no cap).
    """

    contract: str
    case_field: str
    case_kinds: frozenset[str]
    case_calls: CaseCalls
    case_expectations: CaseExpectations
    inputs: Callable[[], st.SearchStrategy[list[Call]]]
    to_case: ToCase | None
    simulate: Simulation | None = None
    trace_length: int | None = None
    shrink_budget: int | None = None

    def owns(self, case: Mapping[str, Any]) -> bool:
        """Whether ``case`` belongs to this family."""
        return str(case.get(self.case_field)) in self.case_kinds
