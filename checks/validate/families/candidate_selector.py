"""``candidate-selector``: hadoop-preemption cases and generated qdata clusters, each asking
one selector for its choice in the first round."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from yarnspec.checks.validate.families.family import Family
from yarnspec.checks.validate.families.preemption import PREFIX, SETUP_KEYS, _setup
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.candidate_selector import OP

#: The configuration key that puts each optional selector into the pipeline.
ENABLING = {
    "reserved": PREFIX + "select_based_on_reserved_containers",
    "fifo-balance": PREFIX + "preemption-to-balance-queue-after-satisfied.enabled",
}


def selector_of(conf: Mapping[str, Any]) -> str:
    """The selector a configuration is about: an enabled optional one, else ``fifo``."""
    return next((name for name, key in ENABLING.items() if str(conf.get(key, "false")).lower() == "true"), "fifo")


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """A qdata or mockframework case as one call: its cluster, its selector."""
    if any("conf_change" in round_ for round_ in case.get("rounds", [])):
        return "a configuration change between rounds is not in the protocol"
    setup = {key: case[key] for key in SETUP_KEYS if key in case}
    return [Call(OP, {**setup, "selector": selector_of(case.get("conf", {}))})]


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """Compared with the reference (which passes these cases)."""
    return []


def _call(rng_int: Any, pick: Any) -> Call:
    setup = _setup(rng_int, pick).input
    selector = pick(("fifo", "fifo", "fifo-balance"))
    if selector != "fifo":
        setup = {**setup, "conf": {**setup["conf"], ENABLING[selector]: "true"}}
    return Call(OP, {**setup, "selector": selector})


@st.composite
def _inputs(draw: st.DrawFn) -> list[Call]:
    return [_call(lambda a, b: draw(st.integers(a, b)), lambda options: draw(st.sampled_from(options)))]


def inputs() -> st.SearchStrategy[list[Call]]:
    """A small qdata cluster (the preemption family's) and the FIFO or the balancing selector."""
    return _inputs()


FAMILY = Family(
    "candidate-selector", "notation", frozenset({"qdata", "mockframework"}), case_calls, case_expectations, inputs, None
)
