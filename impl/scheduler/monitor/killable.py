"""Lazy preemption: killable containers, kept by the scheduler and killed only to make room.

With ``yarn.scheduler.capacity.lazy-preemption-enabled`` (Hadoop 2.8 and later; YARN-4108, as
reshaped by YARN-4822) the policy's ``MARK_CONTAINER_FOR_KILLABLE`` does not kill a container:
``CapacityScheduler.markContainerForKillable`` lists it as killable on its node
(``FiCaSchedulerNode.killableContainers``) and, per leaf and every ancestor, per partition, in
the ``PreemptionManager`` (``PreemptableQueue``). It keeps running until:

* it ends by itself, is released, lost or its application finishes (``completedContainer``
  forgets it everywhere: the model drops ids of containers that left the state);
* an allocation for a leaf under its guarantee needs its room
  (``RegularContainerAllocator.assignContainer``: ``ResourceLimits.isAllowPreemption``, set by
  ``LeafQueue.setPreemptionAllowed``): the allocation lists it among the containers to kill,
  and the commit kills it (``LeafQueue.releaseContainers`` / ``internalReleaseContainer``);
* an allocation takes a parent queue above its maximum
  (``ParentQueue.killContainersToEnforceMaxQueueCapacity``): the parent's killable containers
  are killed, in id order, until it is back within.

Killable resource is headroom: a parent queue's used less its killable resource is what its
limit is checked against (``AbstractCSQueue.canAssignToThisQueue``; a leaf's is not, "a leaf
queue cannot preempt itself"), a child's limit adds its parent's killable resource
(``ParentQueue.getResourceLimitsOfChild``), and a node is looked at when its free plus killable
resource holds a minimum allocation (``allocateContainerOnSingleNode``, ``ParentQueue.canAssign``).

No Hadoop release un-marks a killable container: ``MARK_CONTAINER_FOR_NONKILLABLE`` was sent by
the policy only between YARN-4108 and YARN-4822 (March 2016, in no release); the scheduler
still handles it but nothing sends it, so the model has no such step.

Order: the queue's killable containers are a ``ConcurrentSkipListMap`` by ``ContainerId``
(application, then container number): :func:`killable_order`. A node's are a ``HashMap``
whose order follows ``ContainerId.hashCode``, which mixes in the ResourceManager's start time;
the model walks them in the same id order (one of the orders a real cluster may show).
"""

from __future__ import annotations

from collections.abc import Iterable

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.state import ContainerState, SchedulerState, TrackedContainer
from yarnspec.impl.scheduler.world import World


def lazy(world: World) -> bool:
    """Whether the world's preemption monitor runs with lazy preemption."""
    config = world.settings.preemption
    return config is not None and config.lazy_preemption_enabled


def mark_killable(edit: Edit, cid: int) -> None:
    """``markContainerForKillable`` under lazy preemption: the live container is listed as
    killable (no effect on any counter)."""
    edit.killable.add(cid)


def killable_order(state: SchedulerState, containers: Iterable[TrackedContainer]) -> list[TrackedContainer]:
    """Containers in ``ContainerId`` order: application (submission order), then id."""
    return sorted(containers, key=lambda c: (_seq(state, c.app), c.cid))


def _seq(state: SchedulerState, app: int) -> int:
    app_state = state.apps[app]
    return app_state.seq if app_state is not None else -1


def _killable(state: SchedulerState) -> list[TrackedContainer]:
    found = (state.container(cid) for cid in state.killable)
    return [c for c in found if c is not None and c.live]


def node_killable(state: SchedulerState, node: int) -> list[TrackedContainer]:
    """The node's killable containers (``FiCaSchedulerNode.getKillableContainers``), in
    :func:`killable_order`."""
    return killable_order(state, (c for c in _killable(state) if c.node == node))


def node_killable_resource(state: SchedulerState, node: int) -> Resource:
    """``getTotalKillableResources`` of a node."""
    if not state.killable:
        return ZERO
    return _total(node_killable(state, node))


def queue_killable(world: World, state: SchedulerState, queue: int, partition: int) -> list[TrackedContainer]:
    """The killable containers of the queue's subtree on nodes of the partition
    (``PreemptionManager.getKillableContainers``), in :func:`killable_order`."""
    return killable_order(
        state,
        (
            c
            for c in _killable(state)
            if world.node_partition[c.node] == partition and queue in world.ancestors(world.apps[c.app].queue)
        ),
    )


def queue_killable_resource(world: World, state: SchedulerState, queue: int, partition: int) -> Resource:
    """``getTotalKillableResource(partition)`` of a queue: its subtree's killable resource."""
    return _total(queue_killable(world, state, queue, partition))


def parent_killable(view: View, queue: int, partition: int) -> Resource:
    """What ``canAssignToThisQueue`` deducts from a queue's used: its killable resource for a
    parent, nothing for a leaf."""
    if not view.state.killable or view.world.queues[queue].leaf:
        return ZERO
    return queue_killable_resource(view.world, view.state, queue, partition)


def preemption_allowed(view: View, leaf: int, partition: int) -> bool:
    """``LeafQueue.setPreemptionAllowed``: only a leaf using less than its guarantee (its
    effective minimum resource) in the partition may kill killable containers to allocate."""
    used = view.state.queues[leaf].used[partition]
    return view.calc.less(view.cluster, used, view.guaranteed(leaf, partition))


def containers_to_kill(view: View, node: int, capability: Resource, may_preempt: bool) -> tuple[int, ...]:
    """``RegularContainerAllocator.assignContainer`` when nothing fits in the node's free
    resource: with preemption allowed, the node's killable containers in order until the
    request fits in the free plus their resource; ``()`` when it never fits."""
    if not may_preempt:
        return ()
    available = view.state.nodes[node].free
    chosen: list[int] = []
    for container in node_killable(view.state, node):
        chosen.append(container.cid)
        available = available + container.resource
        if view.calc.fits_in(capability, available):
            return tuple(chosen)
    return ()


def kill_gone(state: SchedulerState, kill: tuple[int, ...]) -> bool:
    """``anyContainerInFinalState`` for the containers a proposal kills: one has ended."""
    for cid in kill:
        container = state.container(cid)
        if container is None or not container.live:
            return True
    return False


def kill_resource(state: SchedulerState, kill: tuple[int, ...], node: int | None = None) -> Resource:
    """The resource of a proposal's containers to kill (only those on ``node`` if given, as
    ``commonCheckContainerAllocation`` adds to the node's free)."""
    total = ZERO
    for cid in kill:
        container = state.container(cid)
        if container is not None and container.state != ContainerState.RESERVED and node in (None, container.node):
            total = total + container.resource
    return total


def _total(containers: Iterable[TrackedContainer]) -> Resource:
    total = ZERO
    for container in containers:
        total = total + container.resource
    return total
