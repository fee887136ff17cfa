"""The scheduler model's memo (a monitor round per policy input, a proposal pass per pass
input, the shared view of a state) gives exactly what a fresh computation gives, on every call
of real explorations: the keys hold everything the computations read."""

from __future__ import annotations

from typing import Any

import pytest

import yarnspec.impl.scheduler.allocation.allocate as allocate
import yarnspec.impl.scheduler.async_scheduling.try_commit as async_commit
import yarnspec.impl.scheduler.monitor.scheduling_monitor as monitor
from yarnspec.checks.suites.scenarios import explore_variant
from yarnspec.impl.cluster import ContainerId
from yarnspec.impl.preemption.result import PolicyState
from yarnspec.impl.scheduler.actions import Heartbeat, ProposePartition
from yarnspec.impl.scheduler.bookkeeping.memo import Memo
from yarnspec.spec.worlds.catalogue import SCENARIOS, ExploreBounds

#: Worlds with preemption rounds (the lender scenarios, no-leak) and with single-node,
#: asynchronous and multi-node proposals; small bounds.
RUNS = [
    ("big-container-reserved", "reserved-selector", ExploreBounds(max_depth=18)),
    ("big-container-livelock", "default", ExploreBounds()),
    ("no-leak", "yarn-8127", ExploreBounds(max_depth=8, symmetry=True)),
    ("async-double-commit", "pre-8127", ExploreBounds(max_states=1500, symmetry=True)),
    ("reserved-starvation", "reserved-pickup", ExploreBounds(max_depth=12)),
]


def _explore(name: str, variant: str, bounds: ExploreBounds) -> None:
    scenario = SCENARIOS[name]
    explore_variant(scenario, scenario.variant(variant), bounds)


@pytest.mark.parametrize("name, variant, bounds", RUNS, ids=[f"{n}/{v}" for n, v, _ in RUNS])
def test_every_cached_monitor_round_equals_a_fresh_one(
    name: str, variant: str, bounds: ExploreBounds, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = monitor.policy_round
    calls: list[int] = []

    def checked(world: Any, state: Any, memo: Any = None) -> Any:
        assert memo is not None, "the model's monitor step must use the model's memo"
        result, by_id = cached(world, state, memo)
        snap = monitor.snapshot(world, state)
        prior = PolicyState(
            {
                ContainerId(monitor.application_id(state, c.app), c.cid): at
                for c in state.containers
                for cid, at in state.marks
                if cid == c.cid
            }
        )
        fresh = monitor.edit_schedule(snap, world.settings.preemption, world.calculator, state.clock, prior)
        fresh_by_id = {c.container_id: c.container_id.number for c in snap.containers}
        assert fresh == result
        assert list(fresh_by_id.items()) == list(by_id.items())
        calls.append(1)
        return result, by_id

    monkeypatch.setattr(monitor, "policy_round", checked)
    _explore(name, variant, bounds)
    if name != "async-double-commit" and name != "reserved-starvation":  # those worlds have no monitor
        assert calls, "the exploration ran no monitor round: the comparison would be vacuous"


@pytest.mark.parametrize("name, variant, bounds", RUNS, ids=[f"{n}/{v}" for n, v, _ in RUNS])
def test_every_cached_proposal_equals_a_fresh_pass(
    name: str, variant: str, bounds: ExploreBounds, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached = Memo.proposals
    calls: list[int] = []

    def checked(memo: Memo, state: Any, inputs: Any, action: Any, compute: Any) -> Any:
        got = cached(memo, state, inputs, action, compute)
        world = memo.world
        if isinstance(action, ProposePartition):
            fresh = allocate.partition_pass(world, state, action.partition)
        else:
            one = (allocate.heartbeat_proposal if isinstance(action, Heartbeat) else allocate.propose_on_node)(
                world, state, action.node
            )
            fresh = () if one is None else (one,)
        assert got == fresh, action
        calls.append(1)
        return got

    monkeypatch.setattr(Memo, "proposals", checked)
    _explore(name, variant, bounds)
    assert calls


def test_a_memo_refuses_another_worlds_state() -> None:
    """A memo answers for its own world only: handing it to another world's step is an error,
    not a silently wrong answer."""
    from yarnspec.impl.scheduler.actions import enabled, start
    from yarnspec.spec.worlds.world_builders import seed002_world, two_queues_world

    one, other = two_queues_world(), seed002_world()
    with pytest.raises(ValueError, match="another world"):
        enabled(other, start(other), Memo(one))


@pytest.mark.parametrize("name, variant, bounds", RUNS, ids=[f"{n}/{v}" for n, v, _ in RUNS])
def test_every_remembered_limits_check_equals_a_fresh_one(
    name: str, variant: str, bounds: ExploreBounds, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The commit's limits check, remembered by :func:`async_commit.limits_inputs`, answers as a
    check on a fresh view of the state would."""
    cached = async_commit.accept
    calls: list[int] = []

    def checked(world: Any, state: Any, proposal: Any, memo: Any = None) -> Any:
        assert memo is not None, "the model's commit steps must use the model's memo"
        got = cached(world, state, proposal, memo)
        assert got == cached(world, state, proposal), proposal
        calls.append(1)
        return got

    monkeypatch.setattr(async_commit, "accept", checked)
    _explore(name, variant, bounds)
    assert calls, "the exploration committed nothing: the comparison would be vacuous"
