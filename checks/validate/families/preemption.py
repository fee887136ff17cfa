"""``preemption-round``: hadoop-preemption cases as sessions, generated qdata clusters, and
qdata case files."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import strategies as st

from yarnspec.checks.conformance.qdata import constant_of_app_id
from yarnspec.checks.validate.families.family import Family
from yarnspec.impl.config.keys import PREEMPTION_PREFIX as PREFIX
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.preemption_round import OP, RESET

SETUP_KEYS = ("notation", "resource_calculator", "conf", "input")


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """A qdata or mockframework case as a reset and one ``edit_schedule`` per round; cases that
    change the configuration between rounds, or rounds that do not run the policy, are skipped."""
    calls = [Call(RESET, {key: case[key] for key in SETUP_KEYS if key in case})]
    clock = 0
    for index, round_ in enumerate(case.get("rounds", [])):
        if "conf_change" in round_:
            return f"rounds[{index}]: a configuration change between rounds is not in the protocol"
        clock = round_.get("clock_ms", clock)
        calls.append(Call(OP, {"clock_ms": clock}))
    return calls


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """Preemption cases are compared round by round with the reference, which passes them."""
    return []


def _split(rng_int: Any, total: int, parts: int) -> list[int]:
    """``total`` cut into ``parts`` random whole pieces."""
    cut = sorted(rng_int(0, total) for _ in range(parts - 1))
    return [b - a for a, b in zip([0, *cut], [*cut, total])]


def _qdata(rng_int: Any, leaves: int) -> dict[str, Any]:
    """A root with ``leaves`` leaf queues in the qdata notation, rows consistent with each other;
    the cluster is 70-100% used, so that pending demand usually has to be preempted for."""
    guaranteed = _split(rng_int, 100, leaves)
    used = _split(rng_int, rng_int(70, 100), leaves)
    pending = [rng_int(0, 50) for _ in range(leaves)]
    max_cap = [max(g, rng_int(g, 100)) for g in guaranteed]
    apps = [rng_int(1, 2) for _ in range(leaves)]
    return {
        "rows": {
            "abs": [100, *guaranteed],
            "maxCap": [100, *max_cap],
            "used": [sum(used), *used],
            "pending": [sum(pending), *pending],
            "reserved": [0] * (leaves + 1),
            "apps": [sum(apps), *apps],
            "gran": [-1, *([1] * leaves)],
            "subqueues": [leaves, *([0] * leaves)],
        },
        "set_am_container": rng_int(0, 1) == 1,
    }


def _setup(rng_int: Any, pick: Any) -> Call:
    conf = {
        PREFIX + "max_wait_before_kill": pick((0, 5000, 10000)),
        PREFIX + "monitoring_interval": 3000,
        PREFIX + "total_preemption_per_round": pick((0.1, 0.5, 1.0)),
        PREFIX + "natural_termination_factor": pick((0.5, 1.0)),
        PREFIX + "max_ignored_over_capacity": pick((0.0, 0.1, 0.5)),
    }
    return Call(
        RESET,
        {"notation": "qdata", "resource_calculator": "default", "conf": conf, "input": _qdata(rng_int, rng_int(2, 3))},
    )


CLOCK_STEPS = (1000, 5000, 10001, 20000)


@st.composite
def _inputs(draw: st.DrawFn) -> list[Call]:
    calls = [_setup(lambda a, b: draw(st.integers(a, b)), lambda options: draw(st.sampled_from(options)))]
    clock = 0
    for _ in range(draw(st.integers(1, 3))):
        calls.append(Call(OP, {"clock_ms": clock}))
        clock += draw(st.sampled_from(CLOCK_STEPS))
    return calls


def inputs() -> st.SearchStrategy[list[Call]]:
    """A small qdata cluster (a root and two or three leaves) and one to three rounds."""
    return _inputs()


def simulate(seed: int, length: int) -> list[Call]:
    """A seeded cluster and ``length`` rounds at the monitoring interval and beyond."""
    rng = random.Random(seed)
    calls = [_setup(rng.randint, rng.choice)]
    clock = 0
    for _ in range(length):
        calls.append(Call(OP, {"clock_ms": clock}))
        clock += rng.choice(CLOCK_STEPS)
    return calls


def to_case(case_id: str, calls: Sequence[Call], reference: Sequence[Answer]) -> dict[str, Any]:
    """A qdata case whose rounds expect the reference's cumulative event counts per app."""
    case: dict[str, Any] = {"id": case_id, "source": {"generated_by": "yarnspec validate", "repo": None}}
    case.update(calls[0].input)
    counts: Counter[tuple[str, str]] = Counter()
    rounds = []
    for call, answer in zip(calls[1:], reference[1:]):
        for event in (answer.output or {}).get("events", []):
            app = constant_of_app_id(int(event["container"].split("_")[1]))
            counts[(str(app), event["event"])] += 1
        expect = [{"app": app, "event": event, "count": n} for (app, event), n in sorted(counts.items())]
        rounds.append(
            {
                "clock_ms": call.input["clock_ms"],
                "expect": expect or [{"app": "any", "event": "any", "never": True}],
                "counts_are_cumulative": True,
            }
        )
    case["rounds"] = rounds
    return case


FAMILY = Family(
    "preemption-round",
    "notation",
    frozenset({"qdata", "mockframework"}),
    case_calls,
    case_expectations,
    inputs,
    to_case,
    simulate,
)
