"""The FIFO candidates selector, and with ``balance=True`` the balance-after-satisfied selector
(Hadoop ``FifoCandidatesSelector.selectCandidates``, the latter with
``allowQueuesBalanceAfterAllQueuesSatisfied``; semantics A.8, A.9, A.11).

For every leaf with something to obtain: containers that run on a partition they did not ask
for (ignore-exclusivity) first, newest first; then the applications in preemption order, each
with its reserved containers first and then its live containers, larger priority value and
newer first, skipping AM containers; finally the skipped AM containers, as long as the
queue's AM resource stays above its AM limit.
"""

from __future__ import annotations

from yarnspec.impl.cluster import DEFAULT_PARTITION, Container
from yarnspec.impl.preemption.context import RoundContext, SelectorRun
from yarnspec.impl.preemption.ideal import IdealMode
from yarnspec.impl.preemption.result import SelectorResult
from yarnspec.impl.preemption.to_obtain import obtain_map
from yarnspec.impl.resources import Resource, f32, total

FIFO = "fifo"
FIFO_BALANCE = "fifo-balance"


def select_fifo(ctx: RoundContext, balance: bool = False) -> SelectorRun:
    """Run one FIFO selector over the round's shared selection and return what it chose.

    The normal selector runs its ideal allocation in reserved mode iff
    ``additional_res_balance_based_on_reserved_containers`` is set; the balance selector never
    does, has no leaf cap in its fixpoint and kills after its own wait (A.3, A.11).
    """
    config = ctx.config
    reserved_mode = config.additional_res_balance_based_on_reserved_containers and not balance
    mode = IdealMode(
        reserved=reserved_mode,
        balance=balance,
        variant=config.variant,
        capacity_shares=config.guarantee_rule.capacity_shares,
    )
    earlier = tuple(ctx.selection.chosen)
    ctx.compute_targets(mode, earlier)
    before = len(ctx.selection)
    kill_reserved: list[Container] = []
    for leaf in ctx.leaves:
        to_obtain = obtain_map(ctx.trees, leaf, ctx.calc, ctx.cluster)
        if to_obtain:
            _select_from_leaf(ctx, leaf, to_obtain, kill_reserved)
    chosen = tuple(ctx.selection.chosen[before:])
    if balance:
        wait = config.preemption_to_balance_max_wait_ms or config.max_wait_before_kill_ms
    else:
        wait = config.max_wait_before_kill_ms
    result = SelectorResult(FIFO_BALANCE if balance else FIFO, wait, ctx.targets(), chosen)
    return SelectorRun(result, tuple(kill_reserved))


def _select_from_leaf(
    ctx: RoundContext, leaf: str, to_obtain: dict[str, Resource], kill_reserved: list[Container]
) -> None:
    """A.8 steps 1-3 for one leaf; ``to_obtain`` is consumed in place."""
    selection, index, config = ctx.selection, ctx.index, ctx.config
    rules = config.rules
    conservative = config.conservative_drf
    partition_of = index.node_partition
    if rules.ignore_exclusivity_pass:
        # Hadoop iterates the map's partitions; a copy keeps the walk well defined when a
        # partition is satisfied (and removed) on the way.
        for partition in list(to_obtain):
            for container in index.ignore_exclusivity(leaf, partition):
                selection.try_preempt(container, partition, to_obtain, conservative)
    skipped_am: list[Container] = []
    for app in index.apps_in_victim_order(leaf, use_priority=rules.application_priorities):
        if not to_obtain:
            break
        _preempt_from_app(ctx, app.app_id, to_obtain, kill_reserved, skipped_am, conservative)
    skipped_am_size = total(c.resource for c in skipped_am)
    # AM limit = the leaf's default-partition guarantee x its max AM percent (a Java float).
    am_limit = (
        ctx.trees_by_partition[DEFAULT_PARTITION]
        .queues[leaf]
        .guaranteed.multiply_truncate(f32(ctx.snapshot.queues[leaf].max_am_percent))
    )
    for container in skipped_am:
        if not to_obtain or ctx.calc.less_equal(ctx.cluster, skipped_am_size, am_limit):
            break
        if selection.try_preempt(container, partition_of[container.node], to_obtain, conservative):
            skipped_am_size = skipped_am_size - container.resource


def _preempt_from_app(
    ctx: RoundContext,
    app_id: int,
    to_obtain: dict[str, Resource],
    kill_reserved: list[Container],
    skipped_am: list[Container],
    conservative: bool,
) -> None:
    """Hadoop ``preemptFrom`` for one application (A.8 step 2): reserved containers, then
    live ones; AM containers are set aside in ``skipped_am``. Stops once nothing is left to
    obtain."""
    selection, index = ctx.selection, ctx.index
    partition_of = index.node_partition
    marked = ctx.config.rules.reserved_containers_marked
    for container in index.reserved_of(app_id):
        if container in selection:
            continue
        if not to_obtain:
            return
        if marked:
            selection.try_preempt(container, partition_of[container.node], to_obtain, conservative)
        else:
            # 2.7.3 drops a reservation: its size counts against the amount, but it is
            # never marked for preemption.
            selection.charge(to_obtain, partition_of[container.node], container.resource)
        kill_reserved.append(container)
    for container in index.live_in_victim_order(app_id):
        if not to_obtain:
            return
        if container in selection or container.killable:
            continue
        if container.is_am:
            skipped_am.append(container)
            continue
        selection.try_preempt(container, partition_of[container.node], to_obtain, conservative)
