"""``scheduler``: generated worlds and the named worlds, walked action by action on the reference
model; each step's label is the call, so the implementation takes the same path. Traces come
from seeded simulation and, on the async-double-commit world, start with an explorer trace.

The walk chooses as the scheduler property suite's walks do
(:func:`yarnspec.checks.suites.scheduler.choose_action`: a kind of action by weight, then one
action of that kind, applications staggered, losses late), so traces fill queues, reserve,
commit and preempt rather than wander.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from hypothesis import strategies as st

from yarnspec.checks.explore.bfs import explore
from yarnspec.checks.suites.scheduler import WalkPolicy, choose_action
from yarnspec.checks.suites.strategies import Chooser, HypothesisChooser, RandomChooser
from yarnspec.checks.validate.families.family import Family
from yarnspec.checks.validate.world_description import generate_description, model_of_reset, step_by_label
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.scheduler import RESET, STEP
from yarnspec.spec.scheduler.model import ModelState
from yarnspec.spec.worlds.world_builders import model

#: Steps of one generated trace at most.
MAX_STEPS = 40
#: Candidates tried while shrinking a differential finding at most (each walks a whole trace).
SHRINK_BUDGET = 40
#: The named worlds a model-based trace may start from, with their variant parameters and
#: whether the walk is phased (a queue fills before another claims its share back).
#: (``pre-8127`` is left out: its duplicate commit leaks on purpose.)
NAMED: tuple[tuple[str, dict[str, Any], bool], ...] = (
    ("async-double-commit", {"commit": "yarn-8127"}, False),
    ("reserved-starvation", {"commit": "yarn-8127"}, False),
    ("reserved-starvation", {"commit": "reserved-pickup"}, False),
    ("seed002", {}, True),
    ("two-queues", {"commit": "yarn-8127", "asynchronous": True}, True),
)


def walk(
    reset: dict[str, Any], chooser: Chooser, steps: int, phased: bool = False, prefix: Sequence[str] = ()
) -> list[Call]:
    """A reset, the labels of ``prefix`` as long as each is enabled, then actions chosen by
    ``chooser`` among the enabled ones, ``steps`` in all (a walk ends early when nothing but
    cluster churn is left)."""
    checker = model_of_reset(reset)
    world = checker.world
    policy = WalkPolicy(phased=phased)
    state: ModelState = checker.initial_states()[0]
    calls = [Call(RESET, reset)]
    planned = list(prefix)
    for _ in range(steps):
        after = step_by_label(checker, state, planned.pop(0)) if planned else None
        if after is None:
            planned.clear()
            action = choose_action(chooser, policy, world, state.scheduler, checker.actions(state.scheduler))
            if action is None:
                break
            label = checker.action_label(action)
            after = step_by_label(checker, state, label)
            assert after is not None  # the label of an enabled action
        else:
            label = prefix[len(calls) - 1]
        state = after
        calls.append(Call(STEP, {"action": label}))
    return calls


@cache
def leak_trace() -> tuple[str, ...]:
    """The explorer's shortest trace to YARN-8127's leak in the async-double-commit world under
    ``pre-8127`` (its action labels). Replayed under ``yarn-8127``, it takes an implementation
    to the moment two proposals from one reservation are committed one after the other, which
    a random walk seldom reaches."""
    found = explore(
        model("async-double-commit", commit="pre-8127"), symmetry=True, check_progress=False, show_progress=False
    ).violation
    assert found is not None, "the pre-8127 async-double-commit world no longer leaks"
    return tuple(step.action for step in found.steps if step.action is not None)


def case_calls(case: Mapping[str, Any]) -> list[Call] | str:
    """There are no scheduler conformance cases (the family owns none)."""
    return "not a scheduler case"


def case_expectations(case: Mapping[str, Any], answers: Sequence[Answer]) -> list[str]:
    """No upstream expectations."""
    return []


@st.composite
def _inputs(draw: st.DrawFn) -> list[Call]:
    chooser = HypothesisChooser(draw)
    reset = {"world": generate_description(chooser)}
    return walk(reset, chooser, MAX_STEPS, phased=True)


def inputs() -> st.SearchStrategy[list[Call]]:
    """A generated world (:func:`generate_description`) and a phased walk of up to
    :data:`MAX_STEPS` (queues fill before anything is given back, so their limits bind)."""
    return _inputs()


def simulate(seed: int, length: int) -> list[Call]:
    """A seeded walk of ``length`` steps: odd seeds on a named world (cycling through
    :data:`NAMED`; on the async-double-commit world it starts with the explorer's
    :func:`leak_trace`), even seeds on a generated world (a phased walk)."""
    chooser = RandomChooser(f"scheduler-{seed}")
    if seed % 2 == 0:
        return walk({"world": generate_description(chooser)}, chooser, length, phased=True)
    name, parameters, phased = NAMED[(seed // 2) % len(NAMED)]
    prefix = leak_trace() if name == "async-double-commit" else ()
    return walk({"world": name, "parameters": parameters}, chooser, length, phased, prefix)


FAMILY = Family(
    "scheduler",
    "kind",
    frozenset(),
    case_calls,
    case_expectations,
    inputs,
    None,
    simulate,
    trace_length=60,
    shrink_budget=SHRINK_BUDGET,
)
