"""The intra-queue selector: preemption between the applications of one leaf queue, for
application priorities and user limits (Hadoop ``IntraQueueCandidatesSelector``, enabled by
``intra-queue-preemption.enabled``; the last selector of the pipeline).

It does not recompute the ideal allocation: it works on the records the earlier selectors
left, and only on the queues their fixpoints found under-served, in that order
(:attr:`~yarnspec.impl.preemption.temp_queue.PartitionTree.underserved`), followed under the
``fair-share`` rule by every other ``fair`` leaf with something pending (:func:`_leaves_in`):

1. per partition and under-served leaf whose use is at least ``minimum-threshold`` of its
   guarantee, each application's share (:func:`~.fifo_intra_queue_plugin.compute_apps_ideal_allocation`);
2. every container chosen by earlier selectors is taken off its leaf's amount to obtain and
   off every one of that leaf's application records (each only if larger, as Hadoop's
   ``deductPreemptableResourcesBasedSelectedCandidates`` does; an application's only if at
   least as large under the ``fair-share`` rule, whose ``TempAppPerPartition`` compares so);
3. per partition and under-served leaf (skipping a leaf with preemption or intra-queue
   preemption disabled) the applications that must give something, least important first,
   each its live containers in victim order: AM containers, containers already chosen and
   killable ones are skipped; under ``userlimit_first`` the walk of an application stops at
   the first container that would bring its user to or below the user limit; the container
   is then tried against the leaf's total (:meth:`~.selection.Selection.try_preempt`, with
   ``intra-queue-preemption.conservative-drf``) and the round budget. Under the ``fair-share``
   :class:`~.config.FairOrderingRule` (Cloudera's selector), a container to skip does not end
   the walk (``continue``, not ``break``), and in a ``fair`` leaf a container is skipped when
   it does not fit in what the application still has to give, and each container taken is
   deducted from that when that is at least the container
   (``skipContainerBasedOnIntraQueuePolicy``, ``deductActuallyToBePreemptedFromApp`` and
   ``TempAppPerPartition.deductActuallyToBePreempted`` of COMPX-4883).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from yarnspec.impl.cluster import Container
from yarnspec.impl.java.hash_code import java_string_hash
from yarnspec.impl.java.hash_map import hash_map_order
from yarnspec.impl.preemption.context import RoundContext, SelectorRun
from yarnspec.impl.preemption.fifo_intra_queue_plugin import compute_apps_ideal_allocation
from yarnspec.impl.preemption.result import SelectorResult
from yarnspec.impl.preemption.temp_app import TempApp, TempUser
from yarnspec.impl.preemption.temp_queue import PartitionTree
from yarnspec.impl.resources import ZERO, Resource, total

INTRA_QUEUE = "intra-queue"

AppRecords = dict[tuple[str, str], list[TempApp]]


def select_intra_queue(ctx: RoundContext) -> SelectorRun:
    """Run the selector over the round's shared selection and return what it chose."""
    earlier = ctx.selection.chosen
    by_app: dict[int, list[Container]] = {}
    for container in earlier:
        by_app.setdefault(container.app_id, []).append(container)
    records = _compute_demand(ctx, by_app)
    _deduct_earlier(ctx, records, earlier)
    before = len(ctx.selection)
    for tree in ctx.trees:
        for path in _leaves_in(ctx, tree):
            queue = ctx.snapshot.queues[path]
            if not queue.leaf or queue.preemption_disabled or queue.intra_queue_preemption_disabled:
                continue
            apps = records.get((path, tree.partition.name), [])
            _select_from_leaf(ctx, apps, records, tree.partition.name)
    chosen = tuple(ctx.selection.chosen[before:])
    return SelectorRun(SelectorResult(INTRA_QUEUE, ctx.config.max_wait_before_kill_ms, ctx.targets(), chosen))


def _leaves_in(ctx: RoundContext, tree: PartitionTree) -> list[str]:
    """The queues the selector looks at in ``tree``'s partition: the under-served ones and,
    under the ``fair-share`` rule, then every ``fair`` leaf not among them whose schedulable
    applications ask for something there, in the order of the policy's ``HashSet`` of leaf
    paths (Cloudera's ``getUnderServedQueuesPerPartition`` and
    ``getUnderServedLQueuesForFairOrder``, reading ``LeafQueue.getTotalPendingResources``)."""
    paths = list(tree.underserved)
    if not ctx.config.intra_queue_fair_rule.fair_share:
        return paths
    leaves = [path for path, record in tree.queues.items() if record.leaf]
    for path in hash_map_order(leaves, java_string_hash):
        if path in tree.underserved or ctx.snapshot.queues[path].ordering_policy != "fair":
            continue
        apps = ctx.snapshot.apps_by_queue.get(path, ())
        if any(not app.pending_at(tree.partition.name).clamp_min_zero().is_zero() for app in apps if app.schedulable):
            paths.append(path)
    return paths


def _compute_demand(ctx: RoundContext, selected: Mapping[int, Sequence[Container]]) -> AppRecords:
    """Step 1 (``computeIntraQueuePreemptionDemand``)."""
    config, calc = ctx.config, ctx.calc
    records: AppRecords = {}
    for tree in ctx.trees:
        for path in _leaves_in(ctx, tree):
            tq = tree.queues[path]
            if not tq.leaf:
                continue
            used_share = calc.divide(tq.partition_resource, tq.used, tq.guaranteed)
            if used_share < config.intra_queue_minimum_threshold:
                continue
            records[(path, tq.partition)] = compute_apps_ideal_allocation(
                ctx.snapshot, tq, ctx.snapshot.containers_by_app, ctx.index.node_partition, selected, calc, ctx.cluster,
                ctx.selection.budget, config.intra_queue_max_allowable_limit, config.intra_queue_order,
                config.intra_queue_conservative_drf, config.intra_queue_fair_rule,
            )  # fmt: skip
    return records


def _deduct_earlier(ctx: RoundContext, records: AppRecords, earlier: Sequence[Container]) -> None:
    """Step 2: each earlier choice comes off its leaf's amount and its applications' amounts."""
    for container in earlier:
        partition = ctx.index.node_partition[container.node]
        leaf = ctx.index.queue_of[container.app_id]
        tq = ctx.trees_by_partition[partition].queues[leaf]
        reference = tq.partition_resource
        if ctx.calc.greater(reference, tq.to_obtain, container.resource):
            tq.to_obtain = tq.to_obtain - container.resource
        inclusive = ctx.config.intra_queue_fair_rule.deduct_inclusive
        for app in records.get((leaf, partition), ()):
            app.deduct_actually_to_be_preempted(ctx.calc, reference, container.resource, or_equal=inclusive)


def _select_from_leaf(ctx: RoundContext, apps: Sequence[TempApp], records: AppRecords, partition: str) -> None:
    """Step 3 for one leaf in one partition."""
    zero = ZERO.padded(len(ctx.cluster))
    to_obtain: dict[str, Resource] = {partition: total(a.actually_to_be_preempted for a in apps).padded(len(zero))}
    rolling: dict[str, Resource] = {}
    for app in apps:
        rolling.setdefault(app.user.name, app.user.used)
    for app in apps:
        if app.actually_to_be_preempted == zero:
            continue
        _preempt_from_app(ctx, app, records, to_obtain, rolling)


def _preempt_from_app(
    ctx: RoundContext, app: TempApp, records: AppRecords, to_obtain: dict[str, Resource], rolling: dict[str, Resource]
) -> None:
    """Hadoop ``preemptFromLeastStarvedApp``."""
    order, rule = ctx.config.intra_queue_order, ctx.config.intra_queue_fair_rule
    fair_share = rule.fair_share and ctx.snapshot.queues[app.app.queue].ordering_policy == "fair"
    for container in ctx.index.live_in_victim_order(app.app_id):
        if not to_obtain:
            return
        if container in ctx.selection or container.killable or container.is_am:
            continue
        partition = ctx.index.node_partition[container.node]
        user = _user_record(records, app.app.queue, partition, app.user.name)
        if fair_share:
            skip = user is not None and not ctx.calc.fits_in(container.resource, app.actually_to_be_preempted)
        else:
            limit = user.user_limit + user.am_used if user is not None else None
            skip = (
                order.keep_user_limit and limit is not None
                and ctx.calc.less_equal(ctx.cluster, rolling[app.user.name] - container.resource, limit)
            )  # fmt: skip
        if skip:
            if rule.skip_continues:
                continue
            return
        taken = ctx.selection.try_preempt(container, partition, to_obtain, ctx.config.intra_queue_conservative_drf)
        if taken and order.keep_user_limit:
            rolling[app.user.name] = rolling[app.user.name] - container.resource
        if taken and fair_share:
            app.deduct_actually_to_be_preempted(
                ctx.calc, ctx.cluster, container.resource, or_equal=rule.deduct_inclusive
            )


def _user_record(records: AppRecords, leaf: str, partition: str, user: str) -> TempUser | None:
    """The user's record for the leaf in ``partition`` (``None`` if it was not computed)."""
    for app in records.get((leaf, partition), ()):
        if app.user.name == user:
            return app.user
    return None
