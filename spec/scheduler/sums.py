"""The sums the state invariants compare the stored counters with, computed in one pass.

Sixteen state invariants check stored figures against what they should add up to: a node's
used against its live containers, an application's used and reserved against its containers,
a leaf's and a user's used, reserved and pending against their applications, AM used against
the active applications' AMs. :class:`Sums` walks the containers once and the applications
once per state and keeps every such sum, so each invariant reads them instead of rescanning
the state. A sum over nothing is ``ZERO``; sums add componentwise over the components all
terms have (the model's resources are all ``<memory, vcores>``).

Nothing here comes from :mod:`yarnspec.impl.scheduler.bookkeeping.accounting`: the sums are recomputed
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
    """``total + values`` componentwise (over the components both have); ``values`` as a plain
    tuple when nothing was summed yet (a :class:`Resource` is a tuple of its components)."""
    if total is None:
        return values if type(values) is tuple else tuple(values)
    return tuple(map(add, total, values))


#: The container states that hold node resource (``ContainerState.live``).
_LIVE = frozenset(state for state in ContainerState if state.live)


_ZERO_VALUES = ZERO.values


def _resource(total: Values) -> Resource:
    return ZERO if total is None else Resource(total)


class SumTable(dict[tuple[int, int], tuple[int, ...]]):
    """Sums by ``(owner, partition)``; an owner with nothing summed reads ``ZERO``."""

    def plus(self, owner: int, partition: int, resource: Resource) -> None:
        """Add ``resource`` to the owner's sum in the partition."""
        key = (owner, partition)
        self[key] = _plus(self.get(key), resource)

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
    app_live: SumTable
    app_reserved: SumTable
    app_ams: tuple[tuple[int, ...], ...]
    queue_used: SumTable
    queue_reserved: SumTable
    queue_pending: SumTable
    queue_am: SumTable
    user_used: SumTable
    user_reserved: SumTable
    user_pending: SumTable
    user_am: SumTable

    @staticmethod
    def of(world: World, state: SchedulerState) -> Sums:
        """The sums of ``state``: one pass over the containers, one over the applications
        (on the resources' component tuples: no resource is built while summing)."""
        nodes, apps, parts = len(state.nodes), len(state.apps), len(world.partitions)
        node_partition = world.node_partition
        counts = [0] * nodes
        node_live: list[Values] = [None] * nodes
        app_live, app_reserved = SumTable(), SumTable()
        ams: list[list[int]] = [[] for _ in range(apps)]
        for c in state.containers:
            node, app, resource = c.node, c.app, c.resource
            on_node = 0 <= node < nodes
            live = c.state in _LIVE
            if on_node:
                counts[node] += 1
                if live:
                    node_live[node] = _plus(node_live[node], resource)
            if not 0 <= app < apps:
                continue
            if live and c.request == 0:
                ams[app].append(c.cid)
            if not on_node:
                continue
            if live:
                table = app_live
            elif c.state == ContainerState.RESERVED:
                table = app_reserved
            else:
                continue
            key = (app, node_partition[node])
            table[key] = _plus(table.get(key), resource)
        q_used, q_reserved, q_pending, q_am = SumTable(), SumTable(), SumTable(), SumTable()
        u_used, u_reserved, u_pending, u_am = SumTable(), SumTable(), SumTable(), SumTable()
        for index, app_state in enumerate(state.apps):
            if app_state is None:
                continue
            info = world.apps[index]
            queue, user = info.queue, info.user
            for p in range(parts):
                reserved, pending = app_state.reserved[p], app_state.pending[p]
                used = _plus(app_state.used[p], reserved)
                for table, owner, values in (
                    (q_used, queue, used), (q_reserved, queue, reserved), (q_pending, queue, pending),
                    (u_used, user, used), (u_reserved, user, reserved), (u_pending, user, pending),
                ):  # fmt: skip
                    key = (owner, p)
                    table[key] = _plus(table.get(key), values)
            if app_state.phase == AppPhase.ACTIVE:
                am = info.requests[0].capability
                for table, owner in ((q_am, queue), (u_am, user)):
                    key = (owner, info.am_partition)
                    table[key] = _plus(table.get(key), am)
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
