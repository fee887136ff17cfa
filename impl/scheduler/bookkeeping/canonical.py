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
applications and nodes (over their permutations, meant for small worlds; only the renamings
that place the node and application slots least are encoded in full).
:func:`renumber_containers` applies the first renaming to the state itself (an endless world
does so after every step, so that a repeating behaviour repeats its states).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property

from yarnspec.impl.scheduler.state import NONE, AppPhase, SchedulerState
from yarnspec.impl.scheduler.world import World

#: A canonical encoding: a tuple of the state's parts (see :func:`canonical_form`).
Encoded = tuple[object, ...]

#: A node's or an application's part of an encoding.
_Slot = tuple[object, ...]

#: A renaming of nodes or of applications: its map (old index -> new) and where each new slot
#: comes from (new index -> old), ``None`` for the identity.
Source = tuple[tuple[int, ...], tuple[int, ...] | None]

#: The slot of an application not submitted yet: as long as a submitted one's, whose first
#: figure (its phase) is never ``NONE``.
_NO_APP: tuple[int, ...] = (NONE,) * 8

#: The lengths of a node's slot (live, used, free, reserved container) and of a container's
#: (id, app, node, request, state).
_NODE_SLOT, _CONTAINER_SLOT = 4, 5

#: Read once: an enum member read from its class is slow (Python 3.11).
_FINISHED = AppPhase.FINISHED

#: The items of the slots of a list, one after the other (in C).
_spread = itertools.chain.from_iterable


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

    @cached_property
    def node_sources(self) -> tuple[Source, ...]:
        """Per node renaming: its map and where each new slot comes from (see :data:`Source`)."""
        return _sources(_group_maps(len(self.world.nodes), self.node_groups))

    @cached_property
    def app_sources(self) -> tuple[Source, ...]:
        """Per application renaming: its map and where each new slot comes from."""
        return _sources(_group_maps(len(self.world.apps), self.app_groups))


def _sources(maps: list[tuple[int, ...]]) -> tuple[Source, ...]:
    return tuple((m, None if m == tuple(range(len(m))) else _inverse(m)) for m in maps)


def _inverse(mapping: tuple[int, ...]) -> tuple[int, ...]:
    """The inverse of a permutation of ``range(len(mapping))``."""
    inverse = [0] * len(mapping)
    for old, new in enumerate(mapping):
        inverse[new] = old
    return tuple(inverse)


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
    ranks = dict(zip(sorted(values), itertools.count()))
    ranks[NONE] = NONE
    return ranks


def _container_ranks(state: SchedulerState) -> dict[int, int]:
    """Every container id the state mentions (containers, marks, proposals) by its rank."""
    mentioned = {c.cid for c in state.containers}
    if state.marks:
        mentioned.update([cid for cid, _ in state.marks])
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
                p._replace(
                    from_reserved=cids[p.from_reserved], release=cids[p.release], kill=tuple(cids[c] for c in p.kill)
                )
                for p in state.proposals
            )
        ),
        marks=tuple(sorted((cids[cid], at) for cid, at in state.marks)),
        killable=tuple(cids[cid] for cid in state.killable),
    )


def placement_slots(world: World) -> Callable[[Encoded], Encoded]:
    """What gives, from a canonical encoding of a state of ``world`` (:func:`canonical_form`),
    its node slots, application slots and containers (their count and slots): they follow the
    five leading parts, at the same positions in every state of the world."""
    count_at = 5 + _NODE_SLOT * len(world.nodes) + len(_NO_APP) * len(world.apps)

    def slots(encoded: Encoded) -> Encoded:
        return encoded[5 : count_at + 1 + _CONTAINER_SLOT * encoded[count_at]]  # type: ignore[operator]

    return slots


def canonical_form(symmetry: Symmetry, state: SchedulerState) -> Hashable:
    """The least encoding of ``state`` over all renamings (see the module docstring).

    The encoding is one tuple of the state's parts with container ids and submission numbers
    replaced by their ranks. The records read as they are (resources, asks, queues and users)
    are the state's own tuples, not flattened copies; the slots of nodes, applications,
    containers and proposals are spread into it, each of fixed length and every run of them
    preceded by its length, so the encoding stays injective. Every position holds values of
    one type in every state, so equal encodings are equal values of equal types. What no
    renaming changes is computed once per state; each renaming places the node and application
    slots, and only those that place them least rename the containers, proposals and node
    orders."""
    cids = _container_ranks(state)
    seqs = _ranks({a.seq for a in state.apps if a is not None and a.phase != _FINISHED})
    # a node reserving nothing is its own slot (its fields are the slot's, in order)
    node_slots: list[_Slot] = [
        n if n.reserved == NONE else (n.live, n.used, n.free, cids[n.reserved]) for n in state.nodes
    ]
    app_slots: list[_Slot] = [
        _NO_APP if app is None else (
            app.phase, NONE if app.phase == _FINISHED else seqs[app.seq], app.asks, app.used, app.reserved,
            app.pending, app.rereservations, cids[app.am_container],
        )
        for app in state.apps
    ]  # fmt: skip
    containers = (
        sorted([(cids[c.cid], c.app, c.node, c.request, c.state) for c in state.containers]) if state.containers else []
    )
    tied = len(cids) - 1 < len(state.containers)  # two containers share an id (a broken state)
    proposals = (
        [
            (
                p.kind,
                p.app,
                p.request,
                p.node,
                cids[p.from_reserved],
                cids[p.release],
                p.ignore_exclusivity,
                tuple([cids[c] for c in p.kill]),
            )
            for p in state.proposals
        ]
        if state.proposals
        else []
    )
    marks = tuple(sorted([(cids[cid], at) for cid, at in state.marks])) if state.marks else ()
    killable = tuple([cids[cid] for cid in state.killable]) if state.killable else ()
    # Every renaming's encoding starts with the same five parts, then the node slots it places,
    # then the application slots it places: only renamings whose placed node slots are least,
    # and then whose placed application slots are least, can give the least encoding (all node
    # slots have one length, all application slots another, so comparing the lists of slots is
    # comparing their spread items). Node slots move with the node map only and application
    # slots with the application map only, so each is minimised on its own and only the pairs
    # of least maps, most often one, are encoded in full.
    least_nodes, placed_nodes = _least(node_slots, symmetry.node_sources)
    least_apps, placed_apps = _least(app_slots, symmetry.app_sources)
    best: Encoded | None = None
    for (nodes, node_at), (apps, app_at) in itertools.product(least_nodes, least_apps):
        if node_at is None and app_at is None:  # the identity: nothing moves
            placed_containers, placed_proposals, node_order = containers, sorted(proposals), state.node_order
        else:
            placed_containers = [
                (cid, apps[app], nodes[node], request, kind) for cid, app, node, request, kind in containers
            ]
            if tied:
                placed_containers.sort()
            placed_proposals = sorted([(p[0], apps[p[1]], p[2], nodes[p[3]], *p[4:]) for p in proposals])
            node_order = (
                state.node_order
                if node_at is None
                else tuple([tuple([nodes[n] for n in part]) for part in state.node_order])
            )
        encoded = (
            state.clock, state.next_container, state.next_app, state.queues, state.users,
            *_spread(placed_nodes), *_spread(placed_apps),
            len(placed_containers), *_spread(placed_containers), len(placed_proposals), *_spread(placed_proposals),
            node_order, marks, state.sorted_at, state.monitor_at, killable,
        )  # fmt: skip
        if best is None or encoded < best:
            best = encoded
    assert best is not None  # a world has at least its identity renaming
    return best


def _least(slots: list[_Slot], sources: tuple[Source, ...]) -> tuple[list[Source], list[_Slot]]:
    """The renamings of ``sources`` that place ``slots`` least, and the slots so placed."""
    if len(sources) == 1:  # no symmetry: only the identity
        return list(sources), slots
    best: list[_Slot] = slots
    chosen: list[Source] = []
    for source in sources:
        placed = slots if source[1] is None else list(map(slots.__getitem__, source[1]))
        if not chosen or placed < best:
            best, chosen = placed, [source]
        elif placed == best:
            chosen.append(source)
    return chosen, best
