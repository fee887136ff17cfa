"""A canonical form of a state, for symmetry reduction in the explorer.

Three renamings leave every behaviour and every invariant's verdict unchanged:

* container ids: only their order matters (newest first for preemption) and that new ids are
  larger than all earlier ones, so ids are replaced by their rank among the ids the state
  mentions (containers, proposals, marks); likewise submission numbers of applications.
  Allocation times are dropped: nothing reads them.
* applications with equal configuration (queue, user, AM, requests, priority) are
  interchangeable;
* nodes with equal configuration (capacity, partition, rack) that no request names are
  interchangeable, with single-node placement and without the reserved-container preemption
  selector (both visit nodes in a fixed order, which a renaming would not respect).

:func:`canonical_form` returns the smallest encoding over all renamings of interchangeable
applications and nodes (brute force over their permutations: meant for small worlds).
:func:`renumber_containers` applies the first renaming to the state itself (an endless world
does so after every step, so that a repeating behaviour repeats its states).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..resources import Resource
from .state import NONE, AppPhase, SchedulerState
from .world import World

#: A canonical encoding: one flat tuple of ints (hashed and compared at C speed).
Encoded = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Symmetry:
    """The interchangeable node and application groups of a world, and every renaming."""

    world: World
    node_groups: tuple[tuple[int, ...], ...]
    app_groups: tuple[tuple[int, ...], ...]

    @staticmethod
    def of(world: World) -> Symmetry:
        """The world's symmetry groups (only groups of two or more)."""
        return Symmetry(world, _node_groups(world), _app_groups(world))

    @cached_property
    def renamings(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """Every (node map, app map) pair, each map ``old index -> new index``."""
        node_maps = _group_maps(len(self.world.nodes), self.node_groups)
        app_maps = _group_maps(len(self.world.apps), self.app_groups)
        return tuple(itertools.product(node_maps, app_maps))


def _node_groups(world: World) -> tuple[tuple[int, ...], ...]:
    preemption = world.settings.preemption
    if world.settings.multi_node or (preemption is not None and preemption.select_based_on_reserved_containers):
        return ()
    named = {r.target for app in world.apps for r in app.requests if r.kind == "node"}
    groups: dict[tuple[object, ...], list[int]] = {}
    for index, node in enumerate(world.nodes):
        if index not in named:
            groups.setdefault((node.capacity, node.partition, node.rack), []).append(index)
    return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def _app_groups(world: World) -> tuple[tuple[int, ...], ...]:
    groups: dict[tuple[object, ...], list[int]] = {}
    for index, app in enumerate(world.apps):
        groups.setdefault((app.queue, app.user, app.priority, app.am_partition, app.requests), []).append(index)
    return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def _group_maps(size: int, groups: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    maps = []
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        mapping = list(range(size))
        for group, image in zip(groups, choice):
            for old, new in zip(group, image):
                mapping[old] = new
        maps.append(tuple(mapping))
    return maps or [tuple(range(size))]


def _ranks(values: set[int]) -> dict[int, int]:
    ranks = {value: rank for rank, value in enumerate(sorted(values))}
    ranks[NONE] = NONE
    return ranks


def _container_ranks(state: SchedulerState) -> dict[int, int]:
    """Every container id the state mentions (containers, marks, proposals) by its rank."""
    mentioned = {c.cid for c in state.containers} | {cid for cid, _ in state.marks}
    for p in state.proposals:
        mentioned.update(v for v in (p.from_reserved, p.release, *p.kill) if v != NONE)
    return _ranks(mentioned)


def renumber_containers(state: SchedulerState) -> SchedulerState:
    """``state`` with every container id replaced by its rank among the ids it mentions, and
    the next id right after them: the same behaviour (ids only order containers, newest
    first), with ids that do not grow for ever (``Bounds.endless``)."""
    cids = _container_ranks(state)
    if all(old == new for old, new in cids.items()) and state.next_container == len(cids) - 1:
        return state
    return state._replace(
        next_container=len(cids) - 1,  # the ranks and NONE
        nodes=tuple(n._replace(reserved=cids[n.reserved]) for n in state.nodes),
        apps=tuple(None if a is None else a._replace(am_container=cids[a.am_container]) for a in state.apps),
        containers=tuple(c._replace(cid=cids[c.cid]) for c in state.containers),
        proposals=tuple(
            sorted(
                p._replace(from_reserved=cids[p.from_reserved], release=cids[p.release], kill=tuple(cids[c] for c in p.kill))
                for p in state.proposals
            )
        ),
        marks=tuple(sorted((cids[cid], at) for cid, at in state.marks)),
        killable=tuple(cids[cid] for cid in state.killable),
    )


def canonical_form(symmetry: Symmetry, state: SchedulerState) -> Hashable:
    """The least encoding of ``state`` over all renamings (see the module docstring).

    What no renaming changes is encoded once per state (:class:`_Parts`); each renaming only
    places the node and application slots and renames the containers, proposals and node
    orders."""
    parts = _Parts.of(state)
    renamings = symmetry.renamings
    if len(renamings) == 1:  # no interchangeable nodes or applications: nothing to compare
        return parts.encode(*renamings[0])
    return min(parts.encode(nodes, apps) for nodes, apps in renamings)


@dataclass(slots=True)
class _Parts:
    """The pieces of one state's encoding, with container ids and submission numbers already
    replaced by their ranks: the slots of each node and application (placed by a renaming),
    the containers in id order (an id rank is unique and no renaming changes it), the
    proposals, and the runs of the encoding no renaming touches. ``tied``: two containers
    share an id (a broken state), so their order depends on the renaming."""

    head: tuple[int, ...]
    node_slots: tuple[tuple[int, ...], ...]
    app_slots: tuple[tuple[int, ...], ...]
    usages: tuple[int, ...]
    containers: tuple[tuple[int, int, int, int, int], ...]
    proposals: tuple[tuple[int, ...], ...]
    marks: tuple[int, ...]
    node_order: tuple[tuple[int, ...], ...]
    tail: tuple[int, ...]
    tied: bool

    @staticmethod
    def of(state: SchedulerState) -> _Parts:
        """The pieces of ``state``'s encoding."""
        cids = _container_ranks(state)
        seqs = _ranks({a.seq for a in state.apps if a is not None and a.phase != AppPhase.FINISHED})
        node_slots = tuple(
            (n.live, len(n.used), *n.used, len(n.free), *n.free, cids[n.reserved]) for n in state.nodes
        )
        app_slots = tuple(
            (0,) if app is None else (
                1, seqs.get(app.seq, NONE) if app.phase != AppPhase.FINISHED else NONE, app.phase, len(app.asks), *app.asks,
                *_flat_resources(app.used), *_flat_resources(app.reserved), *_flat_resources(app.pending),
                len(app.rereservations), *app.rereservations, cids[app.am_container],
            )
            for app in state.apps
        )  # fmt: skip
        usages: list[int] = []
        add, extend = usages.append, usages.extend
        for usage in (*state.queues, *state.users):
            for r in (*usage.used, *usage.reserved, *usage.pending, *usage.am_used):
                add(len(r))
                extend(r)
        containers = tuple(sorted((cids[c.cid], c.app, c.node, c.request, c.state) for c in state.containers))
        proposals = tuple(
            (p.kind, p.app, p.request, p.node, cids[p.from_reserved], cids[p.release], p.ignore_exclusivity, len(p.kill), *(cids[c] for c in p.kill))
            for p in state.proposals
        )
        marks = sorted((cids[cid], at) for cid, at in state.marks)
        return _Parts(
            (state.clock, state.next_container, state.next_app),
            node_slots,
            app_slots,
            tuple(usages),
            containers,
            proposals,
            (len(marks), *(v for mark in marks for v in mark)),
            state.node_order,
            (state.sorted_at, state.monitor_at, len(state.killable), *(cids[cid] for cid in state.killable)),
            len(cids) - 1 < len(state.containers),
        )

    def encode(self, nodes: tuple[int, ...], apps: tuple[int, ...]) -> Encoded:
        """One flat tuple of ints under the renaming (``nodes``, ``apps``: old index -> new):
        every part of variable length is preceded by its length, so the encoding is injective
        (the world fixes the number of nodes, applications, queues, users and partitions)."""
        out: list[int] = list(self.head)
        add, extend = out.append, out.extend
        node_slots: list[tuple[int, ...]] = [()] * len(nodes)
        for old, slot in enumerate(self.node_slots):
            node_slots[nodes[old]] = slot
        for slot in node_slots:
            extend(slot)
        app_slots: list[tuple[int, ...]] = [(0,)] * len(apps)  # (0,) sorts before any submitted app
        for old, slot in enumerate(self.app_slots):
            app_slots[apps[old]] = slot
        for slot in app_slots:
            extend(slot)
        extend(self.usages)
        containers = [(cid, apps[app], nodes[node], request, kind) for cid, app, node, request, kind in self.containers]
        add(len(containers))
        for container in sorted(containers) if self.tied else containers:
            extend(container)
        proposals = sorted((p[0], apps[p[1]], p[2], nodes[p[3]], *p[4:]) for p in self.proposals)
        add(len(proposals))
        for proposal in proposals:
            extend(proposal)
        extend(self.marks)
        for partition in self.node_order:
            add(len(partition))
            extend(nodes[n] for n in partition)
        extend(self.tail)
        return tuple(out)


def _flat_resources(vector: tuple[Resource, ...]) -> list[int]:
    """Each resource's length, then its values (a resource is the tuple of its values)."""
    out: list[int] = []
    for r in vector:
        out.append(len(r))
        out.extend(r)
    return out
