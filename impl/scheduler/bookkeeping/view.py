"""Figures derived from one state, computed on demand and cached outside the state.

:class:`View` pairs a world with a state and answers what allocation, commit checks and the
monitor need: the partitions' resources (the live nodes), the cluster resource, every queue's
guaranteed and maximum resource at that cluster size, and per leaf the active applications and
active users. A view is cheap to build and never stored in a state.
"""

from __future__ import annotations

from functools import cached_property

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.allocation.requests import has_pending
from yarnspec.impl.scheduler.allocation.scheduling_mode import SchedulingMode
from yarnspec.impl.scheduler.state import AppPhase, SchedulerState, live_partition_resources
from yarnspec.impl.scheduler.world import QueueCapacity, World


class View:
    """Derived figures of ``state`` in ``world`` (see the module docstring)."""

    def __init__(self, world: World, state: SchedulerState) -> None:
        self.world = world
        self.state = state
        self.calc = world.calculator
        self.minimum = world.settings.minimum_allocation
        #: ``limits.user_limit`` by its arguments: a pass, a commit check and a monitor round ask
        #: for the same limit once per user (it depends only on the leaf and partition).
        self.user_limits: dict[tuple[int, int, SchedulingMode, bool], Resource] = {}

    @cached_property
    def partition_resource(self) -> tuple[Resource, ...]:
        """Per partition, the capacity of its live nodes."""
        return live_partition_resources(self.world, self.state)

    @cached_property
    def cluster(self) -> Resource:
        """The whole cluster's resource: the reference of every calculator comparison."""
        result = ZERO
        for resource in self.partition_resource:
            result = result + resource
        return result

    @cached_property
    def capacities(self) -> tuple[QueueCapacity, ...]:
        """Every queue's guaranteed and maximum resource per partition (semantics A.2)."""
        return self.world.capacities(self.partition_resource)

    def guaranteed(self, queue: int, partition: int) -> Resource:
        """A queue's effective capacity (guaranteed resource) in a partition."""
        return self.capacities[queue].guaranteed[partition]

    def maximum(self, queue: int, partition: int) -> Resource:
        """A queue's effective maximum resource in a partition."""
        return self.capacities[queue].maximum[partition]

    def has_capacity(self, queue: int, partition: int) -> bool:
        """Whether the queue is guaranteed anything in the partition (Hadoop's "absolute
        capacity > 0", read from the configured share or, for absolute resources, the
        guaranteed resource)."""
        share = self.capacities[queue].absolute[partition]
        return share > 0 or not self.guaranteed(queue, partition).is_zero()

    @cached_property
    def active_apps(self) -> tuple[tuple[int, ...], ...]:
        """Per queue (empty for parents), its activated applications in submission order."""
        per_queue: list[list[tuple[int, int]]] = [[] for _ in self.world.queues]
        for index, app in enumerate(self.state.apps):
            if app is not None and app.phase == AppPhase.ACTIVE:
                per_queue[self.world.apps[index].queue].append((app.seq, index))
        return tuple(tuple(index for _, index in sorted(apps)) for apps in per_queue)

    @cached_property
    def active_users(self) -> tuple[frozenset[int], ...]:
        """Per queue, its active users: those with an application (activated or not) asking for
        something (Hadoop's active-users manager)."""
        per_queue: list[set[int]] = [set() for _ in self.world.queues]
        for index, app in enumerate(self.state.apps):
            if app is None or not app.live:
                continue
            info = self.world.apps[index]
            if any(count > 0 for count in app.asks):
                per_queue[info.queue].add(info.user)
        return tuple(frozenset(users) for users in per_queue)

    @cached_property
    def users_with_apps(self) -> tuple[frozenset[int], ...]:
        """Per queue, the users with a live application (Hadoop's users of the queue)."""
        per_queue: list[set[int]] = [set() for _ in self.world.queues]
        for index, app in enumerate(self.state.apps):
            if app is not None and app.live:
                info = self.world.apps[index]
                per_queue[info.queue].add(info.user)
        return tuple(frozenset(users) for users in per_queue)

    def app_has_pending(self, app: int, partition: int) -> bool:
        """Whether an application asks for anything in a partition."""
        state = self.state.apps[app]
        return state is not None and has_pending(self.world.apps[app], state, partition)
