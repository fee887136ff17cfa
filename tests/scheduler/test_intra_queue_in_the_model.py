"""Intra-queue preemption in the scheduler model: a configuration that enables it builds a
world, the monitor's snapshot carries what the selector reads (each application's pending
request, each user's limit, the leaf's ordering policy) and, in a small world, the selector
takes a low-priority application's container for a high-priority one of the same queue while
every invariant holds."""

from __future__ import annotations

from collections import deque

from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.config.keys import MONITOR_ENABLE as MONITOR
from yarnspec.impl.config.keys import PREEMPTION_PREFIX as PREEMPTION
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import configuration_from_properties
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import Variants
from yarnspec.impl.scheduler.monitor.scheduling_monitor import policy_round, snapshot
from yarnspec.impl.scheduler.world import build_world
from yarnspec.spec.scheduler.model import SchedulerModel

ONE_GB = Resource.of(1024, 1)


def one_queue_world(intra: bool = True):  # type: ignore[no-untyped-def]
    props = {
        PREFIX + "root.queues": "a,b",
        PREFIX + "root.a.capacity": "99",
        PREFIX + "root.b.capacity": "1",
        PREFIX + "root.a.user-limit-factor": "2",
        PREFIX + "root.a.maximum-am-resource-percent": "1.0",
        MONITOR: "true",
        PREEMPTION + "monitoring_interval": "1000",
        PREEMPTION + "max_wait_before_kill": "1000",
        PREEMPTION + "total_preemption_per_round": "1.0",
        PREEMPTION + "intra-queue-preemption.enabled": "true" if intra else "false",
        PREEMPTION + "intra-queue-preemption.max-allowable-limit": "1.0",
        PREEMPTION + "intra-queue-preemption.minimum-threshold": "0",
        PREEMPTION + "intra-queue-preemption.preemption-order-policy": "priority_first",
    }
    nodes = [NodeSpec("n0", Resource.of(4096, 4))]
    apps = [
        AppSpec("low", "a", ONE_GB, (RequestSpec(1, ONE_GB),), user="u", priority=0),
        AppSpec("high", "a", ONE_GB, (RequestSpec(1, ONE_GB),), user="u", priority=5),
    ]
    bounds = Bounds(max_clock_ms=3000, tick_ms=1000, max_proposals=1, max_ask=2, max_containers=5, node_churn=False)
    return build_world(configuration_from_properties(props), [PartitionSpec("")], nodes, apps, Variants(), bounds)


def intra_queue_picks(world, limit: int = 20000) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """Breadth first over the world: (states seen, states where the intra-queue selector
    chose a container); every invariant is checked on the way."""
    model = SchedulerModel(world, progress=False, properties=())
    invariants = model.invariants()
    start = model.initial_states()[0]
    seen = {model.canonical(start)}
    queue = deque([start])
    picks = 0
    while queue and len(seen) < limit:
        state = queue.popleft()
        for inv in invariants:
            assert inv.check(state) is None, inv.name
        if world.settings.preemption is not None:
            result, _ = policy_round(world, state.scheduler)
            chosen = [c for s in result.selectors if s.name == "intra-queue" for c in s.selected]
            if chosen:
                picks += 1
                assert all(
                    c.container_id.app_id
                    == min(a.app_id for a in snapshot(world, state.scheduler).apps.values() if a.priority == 0)
                    for c in chosen
                )
        for _, after in model.successors(state):
            key = model.canonical(after)
            if key not in seen:
                seen.add(key)
                queue.append(after)
    return len(seen), picks


def test_the_snapshot_carries_pending_user_limits_and_ordering() -> None:
    world = one_queue_world()
    assert world.settings.preemption is not None and world.settings.preemption.intra_queue_enabled
    model = SchedulerModel(world, progress=False, properties=())
    state = model.initial_states()[0]
    for wanted in ("submit(low)", "heartbeat(n0)"):
        state = next(after for action, after in model.successors(state) if model.action_label(action) == wanted)
    snap = snapshot(world, state.scheduler)
    leaf = snap.queues["root.a"]
    assert leaf.at("").user_limits and all(not limit.is_zero() for limit in leaf.at("").user_limits.values())
    assert leaf.ordering_policy == "fifo" and not leaf.intra_queue_preemption_disabled


def test_the_selector_takes_from_the_low_priority_application_and_invariants_hold() -> None:
    states, picks = intra_queue_picks(one_queue_world())
    assert picks > 0, f"no intra-queue selection in {states} states"


def test_without_intra_queue_nothing_is_chosen_inside_the_queue() -> None:
    states, picks = intra_queue_picks(one_queue_world(intra=False), limit=3000)
    assert picks == 0 and states > 100
