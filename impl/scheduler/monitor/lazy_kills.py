"""Where lazy preemption kills: an allocation's containers to kill, and a parent queue's
killable containers when an allocation takes it above its maximum (see :mod:`.killable`)."""

from __future__ import annotations

from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.environment_effects import end_container
from yarnspec.impl.scheduler.monitor.killable import queue_killable


def kill_for_allocation(edit: Edit, leaf: int, kill: tuple[int, ...]) -> None:
    """``LeafQueue.releaseContainers`` for an allocation's containers to kill: each one of
    another leaf is killed (``PREEMPTED``); one of the allocating leaf itself is left running,
    as ``internalReleaseContainer`` releases only reserved containers of its own queue."""
    for cid in kill:
        container = edit.containers.get(cid)
        if container is not None and container.live and edit.world.apps[container.app].queue != leaf:
            end_container(edit, cid)


def enforce_parent_maximum(edit: Edit, leaf: int, partition: int) -> None:
    """``ParentQueue.allocateResource`` after a new allocation or reservation, from the leaf's
    parent up to root: a parent now above its maximum kills its killable containers in the
    partition, in order, until it is back within or has none left
    (``killContainersToEnforceMaxQueueCapacity``)."""
    world = edit.world
    for queue in world.ancestors(leaf)[1:]:
        view = View(world, edit.freeze())
        reference = view.partition_resource[partition]
        maximum = view.maximum(queue, partition)
        if not view.calc.less(view.cluster, maximum, view.state.queues[queue].used[partition]):
            continue
        for container in queue_killable(world, view.state, queue, partition):
            if not view.calc.greater(reference, edit.queues[queue].used[partition], maximum):
                break
            if container.cid in edit.containers:  # not gone with an AM killed just before
                end_container(edit, container.cid)
