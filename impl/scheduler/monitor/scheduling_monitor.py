"""Preemption in the loop: the effect of the ``monitor`` action, which runs the policy on a
snapshot of the state (the action's kind, its guard :func:`monitor_due` then this effect
:func:`run_monitor`, is :mod:`yarnspec.impl.scheduler.actions.monitor`).

Every ``monitoring_interval`` the ResourceManager's monitor thread calls
``ProportionalCapacityPreemptionPolicy.editSchedule`` (:func:`~yarnspec.impl.preemption.policy.edit_schedule`)
and the scheduler handles the events it sends (``CapacityScheduler.handle``):

* ``MARK_CONTAINER_FOR_PREEMPTION``: the application is told (its AM may release the
  container itself, :func:`~yarnspec.impl.scheduler.environment_effects.release`); the policy remembers when it marked it;
* ``MARK_CONTAINER_FOR_KILLABLE`` (sent once the wait has passed since the mark): without lazy
  preemption the scheduler kills the container at once (KILLED, ``PREEMPTED`` status); with
  it the container is listed as killable and keeps running (:mod:`.killable`);
* ``KILL_RESERVED_CONTAINER``: the reservation is dropped.

The snapshot (:func:`snapshot`) is the policy's view of this state (semantics A.2): the live
partitions and nodes, every queue's guaranteed and maximum resource at the current cluster
size, its stored used (reservations included) and reserved, its pending considering user
limits (with and without reserved deducted), the applications (ids in submission order, so
"newest first" is the policy's order) and every live or reserved container. The monitor's
marks are stored in the state, keyed by container id.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from yarnspec.impl.cluster import (
    Application,
    ClusterSnapshot,
    Container,
    ContainerId,
    Node,
    Partition,
    Queue,
    QueuePartition,
)
from yarnspec.impl.config.build import queues_for_snapshot
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import EventType, PolicyState, RoundResult
from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.allocation.limits import pending_considering_user_limit, user_limit
from yarnspec.impl.scheduler.allocation.scheduling_mode import RESPECT
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.memo import Memo, memo_for
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.environment_effects import end_container
from yarnspec.impl.scheduler.monitor.killable import lazy, mark_killable, queue_killable_resource
from yarnspec.impl.scheduler.state import AppPhase, ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World


@dataclass(frozen=True)
class MonitorResult:
    """The state after one monitor round and what the round decided."""

    state: SchedulerState
    round: RoundResult
    killed: tuple[int, ...]
    unreserved: tuple[int, ...]
    marked: tuple[int, ...]


def monitor_due(world: World, state: SchedulerState) -> bool:
    """The monitor runs the preemption policy and its interval has passed since the last
    round."""
    config = world.settings.preemption
    if config is None:
        return False
    return state.monitor_at < 0 or state.clock - state.monitor_at >= config.monitoring_interval_ms


def application_id(state: SchedulerState, app: int) -> int:
    """The application id the policy sees: submission order, from 1."""
    app_state = state.apps[app]
    return (app_state.seq if app_state is not None else 0) + 1


def snapshot(world: World, state: SchedulerState, memo: Memo | None = None) -> ClusterSnapshot:
    """The policy's snapshot of the state (see the module docstring)."""
    memo = memo_for(world, memo)
    view = View(world, state)
    partitions = [Partition(p.name, r, p.exclusive) for p, r in zip(world.partitions, view.partition_resource)]
    nodes = [
        Node(spec.name, spec.partition, spec.capacity, spec.rack)
        for spec, node in zip(world.nodes, state.nodes)
        if node.live
    ]
    configured = _configured_queues(world, partitions, memo)
    figures = _queue_figures(view)
    intra_queue = world.settings.preemption is not None and world.settings.preemption.intra_queue_enabled
    node_cost = _node_cost(world)
    queues = [
        Queue(
            path=info.path,
            parent=configured[info.path].parent,
            children=configured[info.path].children,
            leaf=info.leaf,
            partitions={
                p.name: QueuePartition(
                    guaranteed=configured[info.path].at(p.name).guaranteed,
                    maximum=configured[info.path].at(p.name).maximum,
                    used=state.queues[q].used[i],
                    pending=figures[q][i][0],
                    pending_net_reserved=figures[q][i][1],
                    reserved=state.queues[q].reserved[i],
                    killable=queue_killable_resource(world, state, q, i),
                    user_limits=_user_limits(view, q, i) if intra_queue else {},
                )
                for i, p in enumerate(world.partitions)
            },
            preemption_disabled=configured[info.path].preemption_disabled,
            priority=configured[info.path].priority,
            max_am_percent=configured[info.path].max_am_percent,
            intra_queue_preemption_disabled=configured[info.path].intra_queue_preemption_disabled,
            ordering_policy=configured[info.path].ordering_policy,
            minimum_allocation=configured[info.path].minimum_allocation,
            minimum_user_limit_percent=configured[info.path].minimum_user_limit_percent,
        )
        for q, info in enumerate(world.queues)
    ]
    apps = [
        Application(
            application_id(state, index), world.queues[world.apps[index].queue].path, world.apps[index].priority,
            world.users[world.apps[index].user][1],
            tuple((p.name, app.pending[i]) for i, p in enumerate(world.partitions)) if intra_queue or node_cost else (),
            _request_size(world, index, app.asks) if node_cost else ZERO,
            schedulable=app.phase == AppPhase.ACTIVE,
        )
        for index, app in enumerate(state.apps)
        if app is not None and app.live
    ]  # fmt: skip
    containers = [_policy_container(world, state, c.cid) for c in state.containers]
    return ClusterSnapshot.create(partitions, nodes, queues, apps, containers)


def _configured_queues(world: World, partitions: list[Partition], memo: Memo) -> dict[str, Queue]:
    """The configured queues by path for given partitions (they change only with the live
    nodes), remembered in the memo."""
    return memo.configured.get(
        tuple(partitions), lambda: {q.path: q for q in queues_for_snapshot(world.configuration, partitions)}
    )


def _monitor_inputs(world: World, state: SchedulerState) -> Hashable:
    """Everything of ``state`` that :func:`snapshot` and the policy's memory read: which nodes
    are registered, the queue, user and application figures, the tracked containers as the
    policy sees them (not whether they run yet, nor when they started unless the node-cost
    selector reads it), the clock and the marks. Proposals, the sorter's order and the time
    stamps of earlier rounds are not read."""
    timed = _node_cost(world)
    containers = tuple(
        (c.cid, c.app, c.node, c.request, c.resource, c.state == ContainerState.RESERVED, c.start if timed else 0)
        for c in state.containers
    )
    live = tuple(node.live for node in state.nodes)
    return (live, state.queues, state.users, state.apps, containers, state.clock, state.marks, state.killable)


def policy_round(
    world: World, state: SchedulerState, memo: Memo | None = None
) -> tuple[RoundResult, Mapping[ContainerId, int]]:
    """:func:`edit_schedule` on the state's snapshot at its clock, continuing from its marks,
    and the policy's container ids to the model's; remembered in the memo per distinct monitor
    inputs (many explored states differ only in what the monitor does not read)."""
    config = world.settings.preemption
    if config is None:
        raise ValueError("the world's configuration does not run the preemption monitor")
    memo = memo_for(world, memo)

    def fresh() -> tuple[RoundResult, Mapping[ContainerId, int]]:
        snap = snapshot(world, state, memo)
        by_id: Mapping[ContainerId, int] = {c.container_id: c.container_id.number for c in snap.containers}
        prior = PolicyState(
            {
                ContainerId(application_id(state, c.app), c.cid): at
                for c in state.containers
                for cid, at in state.marks
                if cid == c.cid
            }
        )
        return edit_schedule(snap, config, world.calculator, state.clock, prior), by_id

    return memo.rounds.get(_monitor_inputs(world, state), fresh)


def _policy_container(world: World, state: SchedulerState, cid: int) -> Container:
    container = state.container(cid)
    assert container is not None
    info = world.apps[container.app]
    request = info.requests[container.request]
    return Container(
        container_id=ContainerId(application_id(state, container.app), cid),
        queue=world.queues[info.queue].path,
        node=world.nodes[container.node].name,
        resource=container.resource,
        priority=request.priority,
        is_am=container.is_am,
        reserved=container.state == ContainerState.RESERVED,
        label=world.partitions[request.partition].name,
        started_ms=container.start if _node_cost(world) else 0,
        killable=cid in state.killable,
    )


def _node_cost(world: World) -> bool:
    """Whether the world's policy runs the node-cost selector (which reads start times and
    request sizes)."""
    return world.settings.preemption is not None and world.settings.preemption.node_cost_selector


def _request_size(world: World, app: int, asks: tuple[int, ...]) -> Resource:
    """One container of the application's largest outstanding request (what the node-cost
    selector must make room for); ``ZERO`` when it asks for nothing."""
    sizes = [world.apps[app].requests[r].capability for r, count in enumerate(asks) if count > 0]
    return max(sizes, key=lambda r: r.values, default=ZERO)


def _user_limits(view: View, queue: int, partition: int) -> dict[str, Resource]:
    """Each user of a leaf's applications and its limit over all users of the queue (Hadoop
    ``getResourceLimitForAllUsers``, what the intra-queue selector reads)."""
    world = view.world
    if not world.queues[queue].leaf:
        return {}
    limit = user_limit(view, queue, partition, RESPECT, active=False)
    return {world.users[u][1]: limit for u in view.users_with_apps[queue]}


def _queue_figures(view: View) -> list[list[tuple[Resource, Resource]]]:
    """Per queue and partition, (pending, pending net of reserved) considering user limits;
    a parent's are its children's sums (semantics A.2)."""
    world = view.world
    figures: list[list[tuple[Resource, Resource]]] = [[(ZERO, ZERO)] * len(world.partitions) for _ in world.queues]
    for q in reversed(range(len(world.queues))):
        info = world.queues[q]
        for p in range(len(world.partitions)):
            if info.leaf:
                figures[q][p] = (
                    pending_considering_user_limit(view, q, p, False),
                    pending_considering_user_limit(view, q, p, True),
                )
            else:
                pending, net = ZERO, ZERO
                for child in info.children:
                    pending = pending + figures[child][p][0]
                    net = net + figures[child][p][1]
                figures[q][p] = (pending, net)
    return figures


def run_monitor(world: World, state: SchedulerState, memo: Memo | None = None) -> MonitorResult:
    """One monitor round at the state's clock, with the scheduler's handling of its events."""
    result, by_id = policy_round(world, state, memo)
    edit = Edit(world, state)
    killed: list[int] = []
    unreserved: list[int] = []
    for event in result.events:
        cid = by_id[event.container_id]
        current = edit.containers.get(cid)
        if current is None:
            continue  # gone earlier in this round (an AM's attempt ended)
        if event.kind == EventType.KILL_RESERVED_CONTAINER and current.state == ContainerState.RESERVED:
            edit.drop_reservation(cid)
            unreserved.append(cid)
        elif event.kind == EventType.MARK_CONTAINER_FOR_KILLABLE and current.live:
            if lazy(world):
                mark_killable(edit, cid)
            else:
                end_container(edit, cid)
                killed.append(cid)
    edit.marks = {by_id[container_id]: at for container_id, at in result.state.marks.items() if container_id in by_id}
    edit.monitor_at = state.clock
    marked = tuple(by_id[e.container_id] for e in result.events if e.kind == EventType.MARK_CONTAINER_FOR_PREEMPTION)
    return MonitorResult(edit.freeze(), result, tuple(killed), tuple(unreserved), marked)
