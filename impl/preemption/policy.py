"""One round of the ProportionalCapacityPreemptionPolicy (Hadoop ``editSchedule``).

The round is a pure function of the snapshot, the settings, the calculator, the clock and the
marks remembered from earlier rounds:

1. records per queue and partition, cluster resource, round budget (semantics A.2);
2. the selectors in pipeline order (A.3), each recomputing the ideal allocation and choosing
   containers into one shared selection: seed 002's node-cost selector (a model variant, if
   enabled, :mod:`.node_cost_selector`), the reserved-container selector (if enabled),
   the FIFO selector, the balance-after-satisfied FIFO selector (if enabled), the intra-queue
   selector (if enabled, :mod:`.intra_queue_selector`);
3. events and marks: mark, then make killable after the selector's wait; nothing in
   observe-only mode (A.12).

Killable containers (and queues' killable resource) are read only with lazy preemption
(``yarn.scheduler.capacity.lazy-preemption-enabled``): Hadoop syncs them from the scheduler's
``PreemptionManager`` only then (``syncKillableContainersFromScheduler``); without it the
scheduler kills a container as soon as it is made killable.

The one feature the model does not cover (the queue-priority selector for under-utilized
queues) raises :class:`NotModelled` naming the setting.
"""

from __future__ import annotations

from dataclasses import replace

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import ClusterSnapshot, Container
from yarnspec.impl.config.keys import (
    LAZY_PREEMPTION_ENABLED,
    PREEMPTION_PREFIX,
    PREEMPTION_SELECT_FOR_RESERVED,
    UNDERUTILIZED_PREEMPTION_ENABLED,
)  # fmt: skip
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.context import RoundContext, SelectorRun
from yarnspec.impl.preemption.fifo_selector import select_fifo
from yarnspec.impl.preemption.intra_queue_selector import select_intra_queue
from yarnspec.impl.preemption.marks import send_events
from yarnspec.impl.preemption.node_cost_selector import select_node_cost
from yarnspec.impl.preemption.reserved_selector import select_reserved
from yarnspec.impl.preemption.result import PolicyState, RoundResult
from yarnspec.impl.resources import ZERO

#: Settings whose features the model does not cover, with the Hadoop key that enables each.
UNMODELLED_SETTINGS: tuple[tuple[str, str], ...] = (
    ("underutilized_preemption_enabled", UNDERUTILIZED_PREEMPTION_ENABLED),
)

#: Settings Hadoop 2.7.3 does not have; under that variant they must stay at their defaults.
NOT_IN_HADOOP_2_7_3: tuple[tuple[str, str], ...] = (
    ("select_based_on_reserved_containers", PREEMPTION_SELECT_FOR_RESERVED),
    (
        "additional_res_balance_based_on_reserved_containers",
        PREEMPTION_PREFIX + "additional_res_balance_based_on_reserved_containers",
    ),
    ("preemption_to_balance_enabled", PREEMPTION_PREFIX + "preemption-to-balance-queue-after-satisfied.enabled"),
    ("conservative_drf", PREEMPTION_PREFIX + "conservative-drf"),
    ("intra_queue_enabled", PREEMPTION_PREFIX + "intra-queue-preemption.enabled"),
    ("lazy_preemption_enabled", LAZY_PREEMPTION_ENABLED),  # YARN-4108, Hadoop 2.8
)


def edit_schedule(
    snapshot: ClusterSnapshot,
    config: PreemptionConfig,
    calc: ResourceCalculator,
    now_ms: int,
    state: PolicyState | None = None,
) -> RoundResult:
    """One ``editSchedule`` round at logical time ``now_ms``, continuing from ``state``.

    Raises :class:`NotModelled` for a setting whose feature the model does not cover and
    :class:`InputError` for a snapshot the policy cannot read (an application outside a leaf).
    """
    check_supported(config)
    if isinstance(now_ms, bool) or not isinstance(now_ms, int):
        raise InputError("<policy>", "now_ms", f"expected a whole number of milliseconds, found {now_ms!r}")
    if not config.lazy_preemption_enabled:
        snapshot = without_killable(snapshot)
    ctx = RoundContext.create(snapshot, config, calc)
    budget = ctx.selection.budget
    runs: list[SelectorRun] = []
    if config.node_cost_selector:
        runs.append(select_node_cost(ctx, now_ms))
    if config.select_based_on_reserved_containers:
        runs.append(select_reserved(ctx))
    runs.append(select_fifo(ctx))
    if config.preemption_to_balance_enabled:
        runs.append(select_fifo(ctx, balance=True))
    if config.intra_queue_enabled:
        runs.append(select_intra_queue(ctx))
    kill_reserved: list[tuple[str, Container]] = [(run.result.name, c) for run in runs for c in run.kill_reserved]
    events, new_state = send_events((run.result for run in runs), kill_reserved, state or PolicyState(), config, now_ms)
    return RoundResult(now_ms, budget, tuple(run.result for run in runs), events, new_state)


def without_killable(snapshot: ClusterSnapshot) -> ClusterSnapshot:
    """The snapshot as the policy reads it without lazy preemption: no container killable and
    no queue with killable resource (the same snapshot when it has none)."""
    marked = any(c.killable for c in snapshot.containers) or any(
        not figures.killable.is_zero() for queue in snapshot.queues.values() for figures in queue.partitions.values()
    )
    if not marked:
        return snapshot
    queues = [
        replace(q, partitions={p: replace(f, killable=ZERO) for p, f in q.partitions.items()})
        for q in snapshot.queues.values()
    ]
    containers = [replace(c, killable=False) for c in snapshot.containers]
    return ClusterSnapshot.create(
        list(snapshot.partitions.values()), list(snapshot.nodes.values()), queues, list(snapshot.apps.values()),
        containers, snapshot.resource_types,
    )  # fmt: skip


def check_supported(config: PreemptionConfig) -> None:
    """Raise :class:`NotModelled` if ``config`` asks for something the model does not cover."""
    rules = config.rules  # NotModelled for an unknown variant name
    for attribute, key in UNMODELLED_SETTINGS:
        if getattr(config, attribute):
            raise NotModelled(f"{key}=true: the queue-priority selector for under-utilized queues is not modelled")
    if not rules.later_settings:
        for attribute, key in NOT_IN_HADOOP_2_7_3:
            if getattr(config, attribute):
                raise NotModelled(f"{key}=true: Hadoop 2.7.3 has no such setting (variant {rules.name})")
