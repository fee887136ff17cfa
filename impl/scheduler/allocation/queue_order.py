"""The order in which a parent offers a node to its children, and a leaf to its applications.

Children (``PriorityUtilizationQueueOrderingPolicy``, for the partition being allocated):
queues that can access the partition first; queues with a capacity there before queues
without; then by used capacity (``used / max(guaranteed, minimum allocation)``, or used over
the partition for zero-capacity queues), where, if the parent orders by
``priority-utilization`` and two priorities differ, the higher priority goes first unless
exactly one of the two is under its guarantee (that one goes first); ties go to the queue with
the larger configured capacity, then to the configured order (a stable sort).

Applications (the leaf's ordering policy): ``fifo`` is application priority (higher first),
then submission order; ``fair`` is less used memory first, then submission order.
"""

from __future__ import annotations

from functools import cmp_to_key

from yarnspec.impl.resources import f32
from yarnspec.impl.scheduler.bookkeeping.view import View


def _cmp(a: float, b: float) -> int:
    """-1, 0 or 1 as ``a`` is below, equal to or above ``b``."""
    return (a > b) - (a < b)


def compare_utilization(used1: float, used2: float, priority1: int, priority2: int) -> int:
    """Hadoop's ``PriorityUtilizationQueueOrderingPolicy.compare``: negative when the first
    queue goes first."""
    if priority1 == priority2:
        return _cmp(used1, used2)
    if (used1 < 1) == (used2 < 1):
        return _cmp(priority2, priority1)
    return _cmp(used1, used2)


def ordered_children(view: View, parent: int, partition: int) -> list[int]:
    """The parent's children in the order they are offered a node of ``partition``."""
    world, calc = view.world, view.calc
    partition_resource = view.partition_resource[partition]

    def used_capacity(child: int, has_capacity: bool) -> float:
        used = view.state.queues[child].used[partition]
        if not has_capacity:
            return calc.divide(partition_resource, used, partition_resource)
        base = calc.max(partition_resource, view.guaranteed(child, partition), view.minimum)
        return calc.divide(partition_resource, used, base)

    def priority(child: int) -> int:
        queue = world.queues[child]
        return queue.config.priority if queue.priority_ordering else 0

    def configured_minimum(child: int) -> tuple[int, ...]:
        absolute = world.queues[child].config.mode == "absolute"
        return view.guaranteed(child, partition).values if absolute else ()

    def compare(a: int, b: int) -> int:
        access_a, access_b = partition in world.queues[a].accessible, partition in world.queues[b].accessible
        if access_a != access_b:
            return -1 if access_a else 1
        capacity_a, capacity_b = view.has_capacity(a, partition), view.has_capacity(b, partition)
        if capacity_a != capacity_b:
            return -1 if capacity_a else 1
        rc = compare_utilization(used_capacity(a, capacity_a), used_capacity(b, capacity_b), priority(a), priority(b))
        if rc:
            return rc
        minimum_a, minimum_b = configured_minimum(a), configured_minimum(b)
        if any(minimum_a) or any(minimum_b):
            return (minimum_b > minimum_a) - (minimum_b < minimum_a)  # Resource.compareTo: memory, then vcores
        shares = view.capacities
        return _cmp(f32(shares[b].absolute[partition]), f32(shares[a].absolute[partition]))

    return sorted(world.queues[parent].children, key=cmp_to_key(compare))


def ordered_apps(view: View, leaf: int) -> list[int]:
    """The leaf's activated applications in the order its ordering policy offers a node."""
    world = view.world
    policy = world.queues[leaf].config.ordering_policy
    apps = list(view.active_apps[leaf])

    def seq(app: int) -> int:
        state = view.state.apps[app]
        return state.seq if state is not None else 0

    if policy == "fair":

        def used_memory(app: int) -> int:
            state = view.state.apps[app]
            return sum(r.memory for r in state.used) if state is not None else 0

        return sorted(apps, key=lambda a: (used_memory(a), seq(a)))
    return sorted(apps, key=lambda a: (-world.apps[a].priority, seq(a)))
