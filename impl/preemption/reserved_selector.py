"""The reserved-container selector (semantics A.10; Hadoop ``ReservedContainerCandidatesSelector``).

A reserved container waits for room on one node. This selector frees exactly that room: per
node holding a reservation it walks the running containers newest first and takes them, within
each leaf's quota and the round budget, until the reservation would fit; nodes are served
cheapest first (cost = what must be taken relative to the reservation). Nothing is taken on a
node where the reservation cannot be made to fit, and AM containers are never taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yarnspec.impl.cluster import Container
from yarnspec.impl.preemption.container_index import ReservedNode
from yarnspec.impl.preemption.context import RoundContext, SelectorRun
from yarnspec.impl.preemption.ideal import IdealMode
from yarnspec.impl.preemption.result import SelectorResult
from yarnspec.impl.preemption.to_obtain import obtain_map
from yarnspec.impl.resources import ZERO, Resource, double_compare_key

RESERVED = "reserved"

Quotas = dict[str, dict[str, Resource]]


@dataclass(frozen=True)
class NodePlan:
    """What freeing one node would take: the containers and the node's cost."""

    cost: float
    containers: tuple[Container, ...]


def select_reserved(ctx: RoundContext) -> SelectorRun:
    """Run the selector: ideal allocation in reserved mode, the leaves' amounts to obtain as
    quotas, a read-only pass that prices every node, then the real pass in price order
    (stable: equal costs keep node order)."""
    mode = IdealMode(
        reserved=True,
        balance=False,
        variant=ctx.config.variant,
        capacity_shares=ctx.config.guarantee_rule.capacity_shares,
    )
    ctx.compute_targets(mode, tuple(ctx.selection.chosen))
    quotas: Quotas = {leaf: obtain_map(ctx.trees, leaf, ctx.calc, ctx.cluster) for leaf in ctx.leaves}
    priced: list[tuple[float, int, ReservedNode]] = []
    for position, node in enumerate(ctx.index.reserved_nodes()):
        plan = plan_node(ctx, node, quotas, read_only=True)
        if plan is not None:
            priced.append((plan.cost, position, node))
    priced.sort(key=lambda item: (double_compare_key(item[0]), item[1]))
    before = len(ctx.selection)
    for _, _, node in priced:
        plan = plan_node(ctx, node, quotas, read_only=False)
        if plan is not None:
            for container in plan.containers:
                ctx.selection.choose(container)
    chosen = tuple(ctx.selection.chosen[before:])
    result = SelectorResult(RESERVED, ctx.config.max_wait_before_kill_ms, ctx.targets(), chosen)
    return SelectorRun(result)


def plan_node(ctx: RoundContext, node: ReservedNode, quotas: Quotas, read_only: bool) -> NodePlan | None:
    """Hadoop ``getPreemptionCandidatesOnNode``: ``None`` if the reservation already fits in
    the node's free resource or cannot be made to fit; the cost is what must be taken
    relative to the reservation (:func:`free_on_node`)."""
    found = free_on_node(ctx, node.running, node.free, node.reserved.resource, node.node.partition, quotas, read_only)
    if found is None:
        return None
    chosen, chosen_total = found
    return NodePlan(ctx.calc.ratio(chosen_total, node.reserved.resource), chosen)


def free_on_node(
    ctx: RoundContext,
    running: Sequence[Container],
    free: Resource,
    wanted: Resource,
    partition: str,
    quotas: Quotas,
    read_only: bool,
) -> tuple[tuple[Container, ...], Resource] | None:
    """The containers to take on one node so that ``wanted`` fits there, walked in the order
    given, and their total (the read-only pass returns the ones it would take); ``None`` if
    it already fits in ``free`` or cannot be made to fit.

    A running container (not killable, not AM) counts if it fits in its leaf's remaining quota
    for the node's partition and in the budget; in the real pass both are then reduced. It is
    chosen unless an earlier selector already chose it; either way its size joins the free
    resource. If ``wanted`` never fits, the real pass gives the quotas of the containers it
    chose back (Hadoop does not give the budget back).
    """
    calc, selection = ctx.calc, ctx.selection
    if calc.fits_in(wanted, free):
        return None
    chosen: list[Container] = []
    chosen_total = ZERO
    fits = False
    for container in running:
        if container.killable or container.is_am:
            continue
        queue = ctx.index.queue_of[container.app_id]
        quota = quotas.get(queue, {}).get(partition)
        size = container.resource
        if quota is None or not calc.fits_in(size, quota) or not calc.fits_in(size, selection.budget):
            continue
        if not read_only:
            quotas[queue][partition] = quota - size
            selection.budget = selection.budget - size
        if container not in selection:
            chosen.append(container)
            chosen_total = chosen_total + size
        free = free + size
        if calc.fits_in(wanted, free):
            fits = True
            break
    if not fits:
        if not read_only:
            for container in chosen:
                queue = ctx.index.queue_of[container.app_id]
                quotas[queue][partition] = quotas[queue][partition] + container.resource
        return None
    return tuple(chosen), chosen_total
