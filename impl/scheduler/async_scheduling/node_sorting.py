"""Multi-node placement: candidate sorting policies and the periodic re-sort.

With ``multi-node-placement-enabled`` a proposal looks at every node of a partition in the
order a multi-node sorter last computed (``MultiNodeSortingManager``: a background thread
re-sorts every ``sorting-interval.ms``, default 1 s). The order can therefore be stale: usage
changed since the sort, which is how seed 003's reserved container came to be proposed on
another node. The re-sort is a clock-driven step: enabled once the interval has passed since
the last sort (and, once the clock has reached the world's bound, whenever it would change
the order).

A policy is a pure function from a node's capacity and used resource to a sort key; ties go to
the node name (Hadoop's ``NodeId`` order):

* ``resource-usage`` (``ResourceUsageMultiNodeLookupPolicy``): least allocated resource first,
  compared as Hadoop's ``Resource.compareTo`` (memory, then vcores);
* ``usage-ratio`` (seed 003's policy for heterogeneous nodes): least used fraction of the
  node's own capacity first, the fraction being the largest over memory and vcores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from yarnspec.impl.resources import Resource, java_float_div
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.environment_effects import clock_stopped
from yarnspec.impl.scheduler.inputs.settings import NodeSorting
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World

SortKey = tuple[float | int, ...]
Policy = Callable[[Resource, Resource], SortKey]


def resource_usage(capacity: Resource, used: Resource) -> SortKey:
    """Least allocated first (memory, then vcores)."""
    return tuple(used.values)


def usage_ratio(capacity: Resource, used: Resource) -> SortKey:
    """Least used fraction of the node's own capacity first (the larger of the memory and
    vcores fractions, then the memory fraction)."""
    fractions = [java_float_div(u, c) if c else 0.0 for u, c in zip(used.values, capacity.values)]
    return (max(fractions), fractions[0])


POLICIES: Mapping[NodeSorting, Policy] = MappingProxyType(
    {"resource-usage": resource_usage, "usage-ratio": usage_ratio}
)


def sorted_nodes(world: World, state: SchedulerState, partition: int) -> tuple[int, ...]:
    """The partition's live nodes sorted by the world's policy, ties by name."""
    policy = POLICIES[world.settings.node_sorting]
    nodes = [n for n, p in enumerate(world.node_partition) if p == partition and state.nodes[n].live]
    return tuple(
        sorted(nodes, key=lambda n: (policy(world.nodes[n].capacity, state.nodes[n].used), world.nodes[n].name))
    )


def resort_due(world: World, state: SchedulerState) -> bool:
    """Multi-node placement is on and the sorting interval has passed since the last sort; or
    the clock has reached the world's bound and a sort would change the order (time is taken
    to go on past the bound without being counted, so the sorter keeps running)."""
    if not world.settings.multi_node:
        return False
    if state.sorted_at < 0 or state.clock - state.sorted_at >= world.settings.sorting_interval_ms:
        return True
    if world.bounds.endless:
        return False  # time goes on at the bound: the interval passes as it would
    return clock_stopped(world, state) and any(
        sorted_nodes(world, state, p) != order for p, order in enumerate(state.node_order)
    )


def resort(world: World, state: SchedulerState) -> SchedulerState:
    """Every partition's candidate order recomputed from the current usage."""
    edit = Edit(world, state)
    edit.node_order = tuple(sorted_nodes(world, state, p) for p in range(len(world.partitions)))
    edit.sorted_at = state.clock
    return edit.freeze()


def initial_order(world: World, state: SchedulerState) -> SchedulerState:
    """The sorter's first pass, done as the scheduler starts (only with multi-node placement)."""
    return resort(world, state) if world.settings.multi_node else state
