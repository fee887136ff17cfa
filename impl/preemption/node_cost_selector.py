"""Seed 002's remedy for the big-container livelock: concentrate preemption on the one node
where freeing the request is cheapest (a model variant, ``yarnspec.preemption.node-cost-selector``;
not in any Hadoop release).

Seed 002 (Hadoop 2.7.3) observes that preemption frees capacity spread over many nodes, none
of which then fits a container larger than what was freed on it, so the lender takes the
pieces back and preemption repeats for ever. It proposes to pick one node and preempt only
there, the node whose victims cost least, the cost being the sum of the running times of the
containers to kill.

This selector runs first in the pipeline (before the FIFO selector). It computes the ideal
allocation as the reserved-container selector does (plain pending, no natural-termination
factor, so a leaf's whole excess may be taken) and uses the leaves' amounts to obtain as
quotas. Then, for each leaf in tree order that is owed resource (its ideal above its use),
its oldest application whose request fits on no node's free resource: on every node of the
partition, the youngest running containers (latest start first) that fit in their leaves'
quotas and the budget (each container using them up), until the request fits
(:func:`~.reserved_selector.free_on_node`);
the node with the smallest sum of ``now - started`` over those containers (ties: node order)
is chosen and only its containers are taken.
"""

from __future__ import annotations

from yarnspec.impl.cluster import Application, Container
from yarnspec.impl.preemption.context import RoundContext, SelectorRun
from yarnspec.impl.preemption.ideal import IdealMode
from yarnspec.impl.preemption.reserved_selector import Quotas, free_on_node
from yarnspec.impl.preemption.result import SelectorResult
from yarnspec.impl.preemption.to_obtain import obtain_map
from yarnspec.impl.resources import Resource

NODE_COST = "node-cost"


def select_node_cost(ctx: RoundContext, now_ms: int) -> SelectorRun:
    """Run the selector (module docstring) over the round's shared selection."""
    config = ctx.config
    mode = IdealMode(
        reserved=True, balance=False, variant=config.variant, capacity_shares=config.guarantee_rule.capacity_shares
    )
    ctx.compute_targets(mode, tuple(ctx.selection.chosen))
    quotas: Quotas = {leaf: obtain_map(ctx.trees, leaf, ctx.calc, ctx.cluster) for leaf in ctx.leaves}
    free = _free_by_node(ctx)
    before = len(ctx.selection)
    for leaf in ctx.leaves:
        app = _starved_request(ctx, leaf, free)
        if app is None:
            continue
        partition = app.pending[0][0] if app.pending else ""
        best: tuple[int, int, str] | None = None
        for position, (node_id, node) in enumerate(ctx.snapshot.nodes.items()):
            if node.partition != partition:
                continue
            found = _price(ctx, node_id, free[node_id], app.request_size, partition, quotas)
            if found is None:
                continue
            cost = sum(now_ms - c.started_ms for c in found[0])
            if best is None or (cost, position) < best[:2]:
                best = (cost, position, node_id)
        if best is not None:
            node_id = best[2]
            taken = free_on_node(
                ctx, _youngest_first(ctx, node_id), free[node_id], app.request_size, partition, quotas, False
            )
            if taken is not None:
                for container in taken[0]:
                    ctx.selection.choose(container)
                    free[node_id] = free[node_id] + container.resource
    chosen = tuple(ctx.selection.chosen[before:])
    return SelectorRun(SelectorResult(NODE_COST, config.max_wait_before_kill_ms, ctx.targets(), chosen))


def _price(
    ctx: RoundContext, node_id: str, free: Resource, wanted: Resource, partition: str, quotas: Quotas
) -> tuple[tuple[Container, ...], Resource] | None:
    """What freeing the node would take, with the quotas and the budget each container uses
    up (so a node is priced only with what could really be taken there), leaving both as
    they were."""
    budget = ctx.selection.budget
    trial = {leaf: dict(amounts) for leaf, amounts in quotas.items()}
    try:
        return free_on_node(ctx, _youngest_first(ctx, node_id), free, wanted, partition, trial, False)
    finally:
        ctx.selection.budget = budget


def _free_by_node(ctx: RoundContext) -> dict[str, Resource]:
    """Each node's unallocated resource: its total less its live and reserved containers."""
    free = {node_id: node.total for node_id, node in ctx.snapshot.nodes.items()}
    for container in ctx.snapshot.containers:
        free[container.node] = free[container.node] - container.resource
    return free


def _starved_request(ctx: RoundContext, leaf: str, free: dict[str, Resource]) -> Application | None:
    """The leaf's oldest application with a request that fits on no node, if the leaf is owed
    resource in the request's partition (its ideal above its use)."""
    for app in ctx.snapshot.apps_by_queue.get(leaf, ()):
        if app.request_size.is_zero():
            continue
        partition = app.pending[0][0] if app.pending else ""
        record = ctx.trees_by_partition[partition].queues[leaf]
        if not ctx.calc.greater(ctx.cluster, record.ideal, record.used):
            return None
        if any(ctx.calc.fits_in(app.request_size, room) for room in free.values()):
            return None
        return app
    return None


def _youngest_first(ctx: RoundContext, node_id: str) -> list[Container]:
    """The node's live containers, latest started first (then the newest id)."""
    running = [c for c in ctx.snapshot.containers if c.node == node_id and not c.reserved]
    return sorted(running, key=lambda c: (-c.started_ms, -c.container_id.app_id, -c.container_id.number))
