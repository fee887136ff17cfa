"""The sums the state invariants compare the stored counters with, computed in one pass.

Sixteen state invariants check stored figures against what they should add up to: a node's
used against its live containers, an application's used and reserved against its containers,
a leaf's and a user's used, reserved and pending against their applications, AM used against
the active applications' AMs. :class:`Sums` walks the containers once and the applications
once per state and keeps every such sum, so each invariant reads them instead of rescanning
the state. A sum over nothing is ``ZERO``; sums add componentwise over the components all
terms have (the model's resources are all ``<memory, vcores>``).

Nothing here comes from :mod:`yarnspec.impl.scheduler.accounting`: the sums are recomputed
from the containers and applications, which is what makes the accounting invariants checks.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import add

from yarnspec.impl.resources import ZERO, Resource
from yarnspec.impl.scheduler.state import AppPhase, ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World

Values = tuple[int, ...] | None  # None: nothing summed yet


def _plus(total: Values, values: tuple[int, ...]) -> tuple[int, ...]:
    return values if total is None else tuple(map(add, total, values))


_ZERO_VALUES = ZERO.values


def _resource(total: Values) -> Resource:
    return ZERO if total is None else Resource(total)


class Table(dict[tuple[int, int], tuple[int, ...]]):
    """Sums by ``(owner, partition)``; an owner with nothing summed reads ``ZERO``."""

    def plus(self, owner: int, partition: int, resource: Resource) -> None:
        """Add ``resource`` to the owner's sum in the partition."""
        key = (owner, partition)
        self[key] = _plus(self.get(key), resource.values)

    def total(self, owner: int, partition: int) -> Resource:
        """The owner's sum in the partition."""
        return _resource(self.get((owner, partition)))

    def matches(self, owner: int, partition: int, stored: Resource) -> bool:
        """Whether ``stored`` equals the owner's sum in the partition (no resource is built)."""
        total = self.get((owner, partition))
        return stored.values == (_ZERO_VALUES if total is None else total)


@dataclass(frozen=True)
class Sums:
    """Every sum the state invariants read, for one state (see the module docstring).

    Per node: its containers' count and its live containers' sum. Per application and
    partition (of the node): live and reserved container sums; per application, the ids of its
    live AM containers in id order. Per leaf and per user and partition: used (the
    applications' used plus reserved), reserved, pending, and the AM resource of the active
    applications (by AM partition); per queue index, so parents read ``ZERO``.
    """

    node_containers: tuple[int, ...]
    node_live: tuple[Resource, ...]
    app_live: Table
    app_reserved: Table
    app_ams: tuple[tuple[int, ...], ...]
    queue_used: Table
    queue_reserved: Table
    queue_pending: Table
    queue_am: Table
    user_used: Table
    user_reserved: Table
    user_pending: Table
    user_am: Table

    @staticmethod
    def of(world: World, state: SchedulerState) -> Sums:
        """The sums of ``state``: one pass over the containers, one over the applications."""
        nodes, apps, parts = len(state.nodes), len(state.apps), len(world.partitions)
        counts = [0] * nodes
        node_live: list[Values] = [None] * nodes
        app_live, app_reserved = Table(), Table()
        ams: list[list[int]] = [[] for _ in range(apps)]
        for c in state.containers:
            on_node = 0 <= c.node < nodes
            live = c.state in (ContainerState.ALLOCATED, ContainerState.RUNNING)
            if on_node:
                counts[c.node] += 1
                if live:
                    node_live[c.node] = _plus(node_live[c.node], c.resource.values)
            if not 0 <= c.app < apps:
                continue
            if live and c.request == 0:
                ams[c.app].append(c.cid)
            if not on_node:
                continue
            p = world.node_partition[c.node]
            if live:
                app_live.plus(c.app, p, c.resource)
            elif c.state == ContainerState.RESERVED:
                app_reserved.plus(c.app, p, c.resource)
        tables = [Table() for _ in range(8)]
        q_used, q_reserved, q_pending, q_am, u_used, u_reserved, u_pending, u_am = tables
        for index, app in enumerate(state.apps):
            if app is None:
                continue
            info = world.apps[index]
            for p in range(parts):
                reserved, pending = app.reserved[p], app.pending[p]
                used = Resource(_plus(app.used[p].values, reserved.values))
                for owner, used_t, reserved_t, pending_t in ((info.queue, q_used, q_reserved, q_pending), (info.user, u_used, u_reserved, u_pending)):
                    used_t.plus(owner, p, used)
                    reserved_t.plus(owner, p, reserved)
                    pending_t.plus(owner, p, pending)
            if app.phase == AppPhase.ACTIVE:
                am = info.requests[0].capability
                q_am.plus(info.queue, info.am_partition, am)
                u_am.plus(info.user, info.am_partition, am)
        return Sums(
            tuple(counts),
            tuple(_resource(v) for v in node_live),
            app_live,
            app_reserved,
            tuple(tuple(a) for a in ams),
            q_used,
            q_reserved,
            q_pending,
            q_am,
            u_used,
            u_reserved,
            u_pending,
            u_am,
        )
