"""The preemption policy's variants as records of rules read by the algorithms: the policy
variant (:class:`PolicyVariant`, Hadoop 2.7.3 against 3.x) and the guarantee rule
(:class:`GuaranteeRule`, YARN-11073). Users name them (``hadoop-3``, ``hadoop-2.7.3``;
``effective``, ``tiny-queue``, ``yarn-11073``) in configurations, case files and on the
command line; :func:`policy_variant` and :func:`guarantee_rule` turn a name into its record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Literal

from yarnspec.impl.errors import NotModelled

#: The names of the policy variants (:data:`POLICY_VARIANTS` holds their records).
PolicyVariantName = Literal["hadoop-3", "hadoop-2.7.3"]
#: The names of the guarantee rules (:data:`GUARANTEE_RULE_RECORDS` holds their records).
GuaranteeRuleName = Literal["effective", "tiny-queue", "yarn-11073"]


@dataclass(frozen=True)
class PolicyVariant:
    """The rules of ``ProportionalCapacityPreemptionPolicy`` that Hadoop 2.7.3 (seed 002) does
    not have and Hadoop 3.x does, one field each (the defaults: every rule is on in ``hadoop-3``, off in
    ``hadoop-2.7.3``; ``docs/preemption.md`` tabulates them). The upstream class and method
    each rule lives in is named; the 3.x side reads ``PreemptableResourceCalculator``,
    ``TempQueuePerPartition``, ``FifoCandidatesSelector`` and ``CapacitySchedulerPreemptionUtils``.
    """

    name: str
    #: The Hadoop releases whose policy has exactly these rules.
    releases: str
    #: ``TempQueuePerPartition.updatePreemptableExtras``: a queue's extra ``used - guaranteed``
    #: is zeroed when it compares below 0. Off: zeroed unless ``used`` compares above the
    #: guarantee (2.7.3's ``Resources.greaterThan(used, guaranteed)``).
    extra_zeroed_below_zero: bool = True
    #: ``updatePreemptableExtras``: a parent's preemptable extra is ``min(sum of its children's
    #: preemptable, its extra)``, so a grandparent sees its grandchildren's preemptable over-use.
    #: Off: a parent's preemptable stays 0 (2.7.3 records only its untouchable part).
    parent_preemptable_extra: bool = True
    #: ``computeFixpointAllocation``: an over-guarantee queue starts at
    #: ``componentwiseMin(guaranteed, used) + untouchable``. Off: ``guaranteed + untouchable``.
    initial_ideal_capped_by_use: bool = True
    #: ``TempQueuePerPartition.offer``: the room is capped componentwise, pending is net of
    #: reserved (plain pending in reserved mode), a leaf accepts at most ``max(used,
    #: guaranteed) - ideal`` (not when balancing after satisfied), and what is accepted is
    #: clamped to ``[0, offer]`` per type. Off: ``min(offer, max - ideal, used + pending -
    #: ideal)`` with calculator minima only.
    componentwise_offer: bool = True
    #: ``computeFixpointAllocation``: each offer is capped at what is still unassigned, the
    #: unassigned resource drops (clamped at 0) after every offer, and the round stops once no
    #: major resource type is left unassigned. Off: the group's offers all come out of the
    #: amount unassigned when the group started, subtracted once after it.
    offers_from_running_unassigned: bool = True
    #: ``resetCapacity``: a queue's share is per resource type, ``g_i / sum g_i`` as a Java
    #: ``float``. Off: one calculator ratio ``divide(unassigned, g, sum g)`` for every type.
    per_type_shares: bool = True
    #: ``TQComparator`` through ``PriorityUtilizationQueueOrderingPolicy`` (YARN-5864, queue
    #: priorities): queue priorities order equally under- or over-served queues. Off: the
    #: ratio alone.
    queue_priorities: bool = True
    #: ``AbstractPreemptableResourceCalculator`` (the level's targets): a queue is never asked to go below ``max(min(used + pending, guaranteed),
    #: ideal)`` and its killable resource is left out (YARN-4108). Off: ``used - ideal``.
    target_keeps_guarantee_floor: bool = True
    #: ``calculateResToObtainByPartitionForLeafQueues``: the natural-termination factor
    #: scales a positive amount rounding up (``Resources.multiplyAndRoundUp``; not in reserved
    #: mode). Off: it truncates (``Resources.multiply``), in every mode.
    natural_termination_rounds_up: bool = True
    #: ``CapacitySchedulerPreemptionUtils.tryPreemptContainerAndDeductResToObtain``: a
    #: container is taken only if it fits in the round's budget and contributes to a major
    #: resource type still wanted (types at exactly 0 read as -1; ``conservative-drf`` asks
    #: every major type). Off: every container is taken while the amount is above 0, and no
    #: budget is kept.
    budgeted_container_rule: bool = True
    #: ``FifoCandidatesSelector.preemptFrom``: a leaf's reserved containers are tried by the
    #: container rule and marked when taken. Off: a reservation is dropped (its size counted,
    #: an event sent) but never marked.
    reserved_containers_marked: bool = True
    #: ``FifoCandidatesSelector.selectCandidates`` (node-label preemption, YARN-2498, which
    #: added ``LeafQueue.getIgnoreExclusivityRMContainers``): containers running on a partition
    #: they did not ask for are taken first.
    ignore_exclusivity_pass: bool = True
    #: ``FifoCandidatesSelector`` through the leaf's ordering policy (application priorities:
    #: YARN-2003's priority in ``FifoComparator``, part of YARN-1963): victims are applications
    #: by priority, then newest. Off: newest first.
    application_priorities: bool = True
    #: ``ProportionalCapacityPreemptionPolicy.preemptOrkillSelectedContainerAfterWait``: a
    #: container is marked once and made killable when ``mark + wait <= now``. Off: the mark
    #: is re-sent every round (keeping the first mark time) and the kill waits for ``mark +
    #: wait < now``.
    mark_once: bool = True
    #: Settings and selectors Hadoop 2.7.3 does not have: the reserved-container and
    #: balance-after-satisfied selectors, reserved-mode balance, conservative DRF,
    #: intra-queue preemption and lazy preemption (YARN-4108, 2.8.0). Off: turning one of them
    #: on is refused (:class:`NotModelled`).
    later_settings: bool = True

    def rules(self) -> dict[str, bool]:
        """Every rule by its field name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("name", "releases")}


#: The current policy (Hadoop 3.x, semantics part A).
HADOOP_3 = PolicyVariant("hadoop-3", "Hadoop 3.x")
#: The policy seed 002 describes: none of the later rules.
HADOOP_2_7_3 = replace(
    HADOOP_3, name="hadoop-2.7.3", releases="Hadoop 2.7.x (seed 002)", **dict.fromkeys(HADOOP_3.rules(), False)
)
POLICY_VARIANTS: Mapping[str, PolicyVariant] = MappingProxyType({v.name: v for v in (HADOOP_3, HADOOP_2_7_3)})


@dataclass(frozen=True)
class GuaranteeRule:
    """How the policy reads a queue's guarantee (independent of the policy variant).

    ``capacity_guarantees``: the queue is read as a percentage of its partition, the way
    Hadoop derives the guarantee of a percentage-configured queue (``TempQueuePerPartition
    .getGuaranteed``: ``multiply(partition, absoluteCapacity)``, truncated per type; see
    :func:`yarnspec.impl.preemption.temp_queue.tiny_queue_guarantee`), and its absolute
    capacity is kept for the shares; off, the snapshot's effective minimum resource as it
    stands. ``capacity_shares``: Hadoop 3.4.0's fix of YARN-11073 in ``resetCapacity``
    (:func:`yarnspec.impl.preemption.ideal.capacity_share_types`), which reads those absolute
    capacities.
    """

    name: str
    #: The Hadoop releases (and configurations) the rule stands for.
    releases: str
    capacity_guarantees: bool
    capacity_shares: bool


EFFECTIVE = GuaranteeRule("effective", "any release, guarantees as the snapshot states them", False, False)
TINY_QUEUE = GuaranteeRule(
    "tiny-queue", "Hadoop 3.0-3.3.x, percentage-configured queues (YARN-11073 present)", True, False
)
YARN_11073 = GuaranteeRule("yarn-11073", "Hadoop 3.4.x, percentage-configured queues (YARN-11073 fixed)", True, True)
GUARANTEE_RULE_RECORDS: Mapping[str, GuaranteeRule] = MappingProxyType(
    {r.name: r for r in (EFFECTIVE, TINY_QUEUE, YARN_11073)}
)


def policy_variant(name: str) -> PolicyVariant:
    """The rules of the policy variant ``name`` (:class:`NotModelled` for an unknown name)."""
    found = POLICY_VARIANTS.get(name)
    if found is None:
        raise NotModelled(f"policy variant {name!r} (known: {', '.join(POLICY_VARIANTS)})")
    return found


def guarantee_rule(name: str) -> GuaranteeRule:
    """The guarantee rule ``name`` (:class:`NotModelled` for an unknown name)."""
    found = GUARANTEE_RULE_RECORDS.get(name)
    if found is None:
        raise NotModelled(f"guarantee rule {name!r} (known: {', '.join(GUARANTEE_RULE_RECORDS)})")
    return found
