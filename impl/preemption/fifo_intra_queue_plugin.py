"""How much each application of one leaf queue should give up to the others (Hadoop
``FifoIntraQueuePreemptionPlugin``, the compute plugin of the intra-queue selector).

Per leaf and partition (:func:`compute_apps_ideal_allocation`):

1. what the queue may hand out again: its use less what inter-queue preemption already takes
   from it, less the application masters;
2. one record per application and per user; a user's limit is the scheduler's limit for it
   less the user's AM resource;
3. from the most important application down (by priority, or in a ``fair`` queue under
   ``userlimit_first`` by the user's use, least first), each gets its use plus its pending
   request, within what its user may still have and what the queue can still hand out: its
   ideal; above its use is what it needs from others;
4. from the least important up, each may give up its use above its ideal (less what earlier
   selectors chose, its AM and, under ``userlimit_first``, one minimum allocation), within
   ``min(guarantee x max-allowable-limit - inter-queue amount, round budget)``;
5. demand is matched with supply (``validateOutSameAppPriorityFromDemand``): an application
   gives only to a more important one, or to another user's (same priority included), and
   under ``userlimit_first`` never to another user while its own user is within its limit; a
   user at the same priority as the demand gives at most its use above its limit.

Under the ``fair-share`` :class:`~.config.FairOrderingRule` (Cloudera's plugin), in a
``fair`` queue, only schedulable applications get a record, each application's ideal is
capped by its fair share instead (:func:`_set_fair_shares`), its AM is not kept out of what
it may give, and step 5 is :func:`_match_demand_by_fair_share`; in every queue an application
gives nothing unless a minimum allocation fits in what it may give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cmp_to_key

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import Application, ClusterSnapshot, Container
from yarnspec.impl.java.hash_map import hash_map_order
from yarnspec.impl.preemption.application_id import application_id_hash
from yarnspec.impl.preemption.config import FairOrderingRule, IntraQueueOrderPolicy
from yarnspec.impl.preemption.temp_app import TempApp, TempUser
from yarnspec.impl.preemption.temp_queue import TempQueue
from yarnspec.impl.resources import ZERO, Resource


def compute_apps_ideal_allocation(
    snapshot: ClusterSnapshot,
    tq: TempQueue,
    containers_of: Mapping[int, Sequence[Container]],
    node_partition: Mapping[str, str],
    selected: Mapping[int, Sequence[Container]],
    calc: ResourceCalculator,
    cluster: Resource,
    budget: Resource,
    max_allowable_limit: float,
    order: IntraQueueOrderPolicy,
    conservative_drf: bool,
    fair_rule: FairOrderingRule,
) -> list[TempApp]:
    """Hadoop ``computeAppsIdealAllocation`` for one leaf in one partition: the application
    records from the least to the most important, with ``actually_to_be_preempted`` set (an
    empty list when the queue has a single application)."""
    width = len(cluster)
    zero = ZERO.padded(width)
    queue = snapshot.queues[tq.path]
    apps = snapshot.apps_by_queue.get(tq.path, ())
    am_by_user: dict[str, Resource] = {}
    am_total = zero
    for app in apps:
        am = _am_used(containers_of.get(app.app_id, ()), node_partition, tq.partition, width)
        am_by_user[app.user] = am_by_user.get(app.user, zero) + am
        am_total = am_total + am
    reassignable = tq.used - tq.to_obtain - am_total
    if len(apps) == 1:
        return []
    fair = order.fair_ordering and queue.ordering_policy == "fair"
    fair_share = fair_rule.fair_share and queue.ordering_policy == "fair"
    # COMPX-5228: a fair leaf's applications outside its ordering policy's schedulable
    # entities get no record (they still count for the single-application test above).
    counted = [app for app in apps if app.schedulable] if fair_share else apps
    records = _records(
        tq, counted, containers_of, node_partition, am_by_user, queue.at(tq.partition).user_limits, width
    )
    ranked = sorted(records, key=cmp_to_key(_fair_compare(calc, cluster) if fair else _priority_compare))
    if fair_share:
        _set_fair_shares(records, reassignable + am_total, queue.minimum_user_limit_percent, calc)
    _assign_ideal(ranked, reassignable, selected, tq.partition, calc, cluster, conservative_drf, fair_share)
    low_to_high = list(reversed(ranked))
    allowance = tq.guaranteed.multiply_truncate(max_allowable_limit)
    allowance = allowance - tq.to_obtain if calc.greater(cluster, allowance, tq.to_obtain) else zero
    limit = calc.min(cluster, allowance, budget)
    keep_am = not fair_share
    minimum = queue.minimum_allocation.padded(width)
    _assign_to_be_preempted(
        low_to_high, limit, minimum, order, calc, cluster, keep_am, fair_rule.minimum_allocation_fits
    )
    if fair_share:
        _match_demand_by_fair_share(low_to_high, calc, cluster)
    else:
        _match_demand(low_to_high, order, calc, cluster)
    return low_to_high


def _am_used(
    containers: Sequence[Container], node_partition: Mapping[str, str], partition: str, width: int
) -> Resource:
    """The application's AM resource in ``partition`` (``getAMResource``)."""
    for container in containers:
        if container.is_am and not container.reserved and node_partition[container.node] == partition:
            return container.resource.padded(width)
    return ZERO.padded(width)


def _records(
    tq: TempQueue,
    apps: Sequence[Application],
    containers_of: Mapping[int, Sequence[Container]],
    node_partition: Mapping[str, str],
    am_by_user: Mapping[str, Resource],
    snapshot_limits: Mapping[str, Resource],
    width: int,
) -> list[TempApp]:
    """One :class:`TempApp` per application and one :class:`TempUser` per user
    (``createTempAppForResCalculation``): an application's use is its live containers on
    the partition's nodes; a user's use is the sum over its applications in the queue; a
    user's limit is the snapshot's (the queue's guarantee for a user it gives none for)."""
    zero = ZERO.padded(width)
    used_of: dict[int, Resource] = {}
    user_used: dict[str, Resource] = {}
    for app in apps:
        used = zero
        for container in containers_of.get(app.app_id, ()):
            if not container.reserved and node_partition[container.node] == tq.partition:
                used = used + container.resource
        used_of[app.app_id] = used
        user_used[app.user] = user_used.get(app.user, zero) + used
    limits = snapshot_limits
    users: dict[str, TempUser] = {}
    records: list[TempApp] = []
    for app in apps:
        user = users.get(app.user)
        if user is None:
            limit = limits.get(app.user, tq.guaranteed).padded(width)
            user = users[app.user] = TempUser(app.user, user_used[app.user], am_by_user.get(app.user, zero), limit)
        am = _am_used(containers_of.get(app.app_id, ()), node_partition, tq.partition, width)
        record = TempApp(app, used_of[app.app_id], am, app.pending_at(tq.partition).padded(width), user)
        user.apps.append(record)
        records.append(record)
    return records


def _priority_compare(a: TempApp, b: TempApp) -> int:
    """``TAPriorityComparator``: the higher priority first, then the older application."""
    if a.priority != b.priority:
        return b.priority - a.priority
    return (a.app_id > b.app_id) - (a.app_id < b.app_id)


def _fair_compare(calc: ResourceCalculator, cluster: Resource):  # type: ignore[no-untyped-def]
    """``TAFairOrderingComparator``: applications of one user by the fair ordering policy
    (less used memory first, then the older); of different users, the user using less (AM
    aside) first, equal uses by application id."""

    def compare(a: TempApp, b: TempApp) -> int:
        if a.user is b.user:
            if a.used.memory != b.used.memory:
                return -1 if a.used.memory < b.used.memory else 1
            return (a.app_id > b.app_id) - (a.app_id < b.app_id)
        mine, theirs = a.user.used_deduct_am, b.user.used_deduct_am
        if mine == theirs:
            return (a.app_id > b.app_id) - (a.app_id < b.app_id)
        return -1 if calc.less(cluster, mine, theirs) else 1

    return compare


def _set_fair_shares(
    records: Sequence[TempApp], reassignable: Resource, user_limit_percent: float, calc: ResourceCalculator
) -> None:
    """``setFairShareForApps`` (as COMPX-5202 left it): each user's fair share is the queue's
    reassignable resource (AM included) when the leaf's ``getUserLimit()`` is 100, else its
    limit (AM included); each of its applications gets that over the user's number of
    applications, rounded up."""
    for user in {id(app.user): app.user for app in records}.values():
        user.fair_share = reassignable if user_limit_percent == 100 else user.user_limit + user.am_used
        share = calc.divide_and_ceil(user.fair_share, len(user.apps)).clamp_min_zero()
        for app in user.apps:
            app.fair_share = share


def _assign_ideal(
    ranked: Sequence[TempApp],
    reassignable: Resource,
    selected: Mapping[int, Sequence[Container]],
    partition: str,
    calc: ResourceCalculator,
    cluster: Resource,
    conservative_drf: bool,
    fair_share: bool,
) -> None:
    """``calculateIdealAssignedResourcePerApp``, most important application first. Once
    nothing is left to hand out (with ``conservative_drf``: once any major type is used up)
    the rest keep an ideal of 0; an application whose user already has its limit too. Under
    ``fair_share`` every application gets its use plus pending within its fair share, less
    what was selected, with neither cap."""
    zero = ZERO.padded(len(cluster))
    for app in ranked:
        exhausted = calc.less_equal(cluster, reassignable, zero) or (
            conservative_drf and calc.any_major_nonpositive(reassignable)
        )
        if exhausted and not fair_share:
            continue
        user = app.user
        app.selected = zero
        for container in selected.get(app.app_id, ()):
            if container.label == partition:
                app.selected = app.selected + container.resource
                user.selected = user.selected + container.resource
        wanted = app.used_deduct_am + app.pending
        if fair_share:
            app.ideal = calc.min(cluster, app.fair_share, wanted).clamp_min_zero() - app.selected
        elif not calc.less(cluster, user.ideal, user.user_limit):
            continue
        else:
            app.ideal = calc.min(
                cluster, reassignable, calc.min(cluster, wanted - app.selected, user.user_limit - user.ideal)
            )
        user.ideal = user.ideal + app.ideal
        holds = app.used_deduct_am - app.selected
        if calc.greater(cluster, app.ideal, holds):
            app.to_preempt_from_other = app.ideal - holds
        reassignable = (reassignable - app.ideal).clamp_min_zero()


def _assign_to_be_preempted(
    low_to_high: Sequence[TempApp],
    limit: Resource,
    minimum_allocation: Resource,
    order: IntraQueueOrderPolicy,
    calc: ResourceCalculator,
    cluster: Resource,
    keep_am: bool,
    minimum_fits: bool,
) -> None:
    """``calculateToBePreemptedResourcePerApp``, least important application first; the AM
    is kept out of what may be taken unless the fair-share rule applies (``keep_am``); with
    ``minimum_fits`` (Cloudera's plugin) an application gives nothing unless one minimum
    allocation fits in what it may give."""
    zero = ZERO.padded(len(cluster))
    for app in low_to_high:
        if calc.less_equal(cluster, limit, zero) or calc.less_equal(cluster, app.used, zero):
            continue
        spare = ((app.used - app.ideal) - app.selected).clamp_min_zero()
        if keep_am:
            spare = (spare - app.am_used).clamp_min_zero()
        if order.keep_minimum_allocation:
            spare = (spare - minimum_allocation).clamp_min_zero()
        if minimum_fits and not calc.fits_in(minimum_allocation, spare):
            app.to_be_preempted = zero
        else:
            app.to_be_preempted = calc.min(cluster, calc.max(cluster, spare, zero), limit)
        limit = (limit - app.to_be_preempted).clamp_min_zero()


def _match_demand(
    low_to_high: Sequence[TempApp], order: IntraQueueOrderPolicy, calc: ResourceCalculator, cluster: Resource
) -> None:
    """``validateOutSameAppPriorityFromDemand``: from the most important application with a
    demand down, take from the least important applications up (module docstring, step 5)."""
    zero = ZERO.padded(len(cluster))
    for high in reversed(low_to_high):
        if not calc.greater(cluster, high.to_preempt_from_other, zero):
            continue
        for low in low_to_high:
            if not calc.greater(cluster, low.to_be_preempted, zero):
                continue
            same_user = high.user is low.user
            if same_user and low.priority >= high.priority:
                continue
            if (
                calc.less_equal(cluster, low.to_be_preempted, low.actually_to_be_preempted)
                or high.to_preempt_from_other == zero
            ):
                continue
            giver = low.user
            if not same_user and order.spare_users_within_limit and not giver.limit_reached(calc, cluster):
                continue
            offer = low.to_be_preempted - low.actually_to_be_preempted
            if not same_user and low.priority == high.priority and giver.limit_reached(calc, cluster):
                delta = giver.used_deduct_am - giver.selected - giver.user_limit
                if giver.delta_quota_done:
                    delta = zero
                if calc.less(cluster, delta, offer):
                    giver.delta_quota_done = True
                    offer = delta
            if calc.greater(cluster, offer, zero):
                taken = calc.min(cluster, high.to_preempt_from_other, offer)
                high.to_preempt_from_other = high.to_preempt_from_other - taken
                low.actually_to_be_preempted = low.actually_to_be_preempted + taken


def _match_demand_by_fair_share(low_to_high: Sequence[TempApp], calc: ResourceCalculator, cluster: Resource) -> None:
    """``calcActuallyToBePreemptedBasedOnFS`` (as COMPX-5202 left it): from the most important
    application down, a starved one first takes from every other application, least important
    first, but never more than the giver's user holds above its fair share; if still starved,
    it then takes from its own user's other applications without that check, in the order of
    the user's ``HashMap`` of applications (:mod:`~yarnspec.impl.java.hash_map`)."""
    if len(low_to_high) <= 1:
        return
    for starved in reversed(low_to_high):
        _mark_for_starved(starved, low_to_high, True, calc, cluster)
        if calc.greater(cluster, starved.to_preempt_from_other, ZERO.padded(len(cluster))):
            own = hash_map_order(starved.user.apps, lambda app: application_id_hash(app.app_id))
            _mark_for_starved(starved, own, False, calc, cluster)


def _mark_for_starved(
    starved: TempApp,
    overfed_apps: Sequence[TempApp],
    check_user_share: bool,
    calc: ResourceCalculator,
    cluster: Resource,
) -> None:
    """``markResourcesToBePreemptedForApp``: ``starved`` takes from each of ``overfed_apps``
    in turn what it may still give, within the giver's user's use above its fair share when
    ``check_user_share``; the amount is added to the giver's and its user's marked total."""
    zero = ZERO.padded(len(cluster))
    for overfed in overfed_apps:
        if overfed is starved:
            continue
        if calc.less_equal(cluster, starved.to_preempt_from_other, zero):
            break
        offer = (overfed.to_be_preempted - overfed.actually_to_be_preempted).clamp_min_zero()
        if calc.less_equal(cluster, offer, zero):
            continue
        taken = calc.min(cluster, offer, starved.to_preempt_from_other)
        giver = overfed.user
        if check_user_share:
            spare = ((giver.used - giver.fair_share).clamp_min_zero() - giver.actually_to_be_preempted).clamp_min_zero()
            if calc.less_equal(cluster, spare, zero):
                continue
            taken = calc.min(cluster, taken, spare).clamp_min_zero()
        starved.to_preempt_from_other = (starved.to_preempt_from_other - taken).clamp_min_zero()
        overfed.actually_to_be_preempted = overfed.actually_to_be_preempted + taken
        giver.actually_to_be_preempted = giver.actually_to_be_preempted + taken
