"""Outstanding requests: scheduler keys, locality matching and which request a node serves.

An application's requests are grouped by scheduler key (its priority; key 0 is the AM
request). A request names a node, a rack or ``*``; with ``relax`` it may also be served one
level further out (node, then rack, then anywhere), as YARN's ``relaxLocality`` allows. On a
node, a key is served by its most local matching request with outstanding containers
(node-local, then rack-local, then off-switch; Hadoop's ``assignContainersOnNode`` order).

Delay scheduling (``node-locality-delay``, ``rack-locality-additional-delay``) is not modelled:
a relaxable request may be served off-switch at once. That only adds placements Hadoop would
make later, never removes one.
"""

from __future__ import annotations

import enum

from yarnspec.impl.scheduler.state import AppState
from yarnspec.impl.scheduler.world import AppInfo, Request, World


class NodeType(enum.IntEnum):
    """Hadoop's ``NodeType``: how local an allocation is (smaller is more local)."""

    NODE_LOCAL = 0
    RACK_LOCAL = 1
    OFF_SWITCH = 2


def locality_on(world: World, request: Request, node: int) -> NodeType | None:
    """How local serving ``request`` on ``node`` is, or ``None`` if the request does not
    allow that node (its partition is checked elsewhere)."""
    if request.kind == "any":
        return NodeType.OFF_SWITCH
    rack = world.racks.index(world.nodes[node].rack)
    if request.kind == "node":
        if request.target == node:
            return NodeType.NODE_LOCAL
        if not request.relax:
            return None
        same_rack = world.nodes[request.target].rack == world.nodes[node].rack
        return NodeType.RACK_LOCAL if same_rack else NodeType.OFF_SWITCH
    if request.target == rack:
        return NodeType.RACK_LOCAL
    return NodeType.OFF_SWITCH if request.relax else None


def key_requests(info: AppInfo, key: int) -> tuple[int, ...]:
    """The indices of the app's requests with this scheduler key."""
    return tuple(i for i, r in enumerate(info.requests) if r.key == key)


def outstanding(info: AppInfo, app: AppState, key: int) -> int:
    """Hadoop's ``getOutstandingAsksCount(schedulerKey)``: containers still asked for at
    this key."""
    return sum(app.asks[i] for i, r in enumerate(info.requests) if r.key == key)


def serving_request(world: World, info: AppInfo, app: AppState, key: int, node: int) -> tuple[int, NodeType] | None:
    """The request of ``key`` that ``node`` would serve and how local that is: the most local
    matching request with outstanding containers, the first listed on a tie."""
    best: tuple[int, NodeType] | None = None
    for index in key_requests(info, key):
        if app.asks[index] <= 0:
            continue
        kind = locality_on(world, info.requests[index], node)
        if kind is not None and (best is None or kind < best[1]):
            best = (index, kind)
    return best


def has_pending(info: AppInfo, app: AppState, partition: int) -> bool:
    """Whether the app asks for anything in ``partition``."""
    return any(app.asks[i] > 0 and r.partition == partition for i, r in enumerate(info.requests))
