"""The preemption monitor's settings: Hadoop's keys, defaults and validation
(``CapacitySchedulerConfiguration``'s preemption keys; semantics A.1).

:meth:`PreemptionConfig.from_properties` reads the real property names from any mapping of
strings (a parsed ``capacity-scheduler.xml`` / ``yarn-site.xml``, or a case's ``conf``) and
rejects bad values with one :class:`InputError` naming the source, the key and the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from yarnspec.impl.config import getters
from yarnspec.impl.config.keys import (
    LAZY_PREEMPTION_ENABLED,
    PREEMPTION_MONITORING_INTERVAL,
    PREEMPTION_OBSERVE_ONLY,
    PREEMPTION_PREFIX,
    PREEMPTION_SELECT_FOR_RESERVED,
    UNDERUTILIZED_PREEMPTION_ENABLED,
)  # fmt: skip
from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption import variants as _variants

#: Named behaviours (records of rules in :mod:`.variants`): ``hadoop-3`` is the current
#: policy; ``hadoop-2.7.3`` is the one seed 002 describes.
PolicyVariantName = _variants.PolicyVariantName
VARIANTS: tuple[PolicyVariantName, ...] = ("hadoop-3", "hadoop-2.7.3")

#: How the policy reads a queue's guarantee (records in :mod:`.variants`). ``effective``: the
#: snapshot's effective minimum resource as it stands. ``tiny-queue``: the queue is read as a
#: percentage of its partition, truncated per type, with the shares of Hadoop before 3.4.0:
#: where YARN-11073 starts. ``yarn-11073``: the same guarantees with Hadoop 3.4.0's fix of
#: the shares.
GuaranteeRuleName = _variants.GuaranteeRuleName
GUARANTEE_RULES: tuple[GuaranteeRuleName, ...] = ("effective", "tiny-queue", "yarn-11073")
#: Not a Hadoop key: how a configuration or a case file selects the guarantee rule (a model
#: variant, like the calculator class), so a written case can replay YARN-11073.
GUARANTEE_RULE_KEY = "yarnspec.preemption.guarantee-rule"

INTRA_QUEUE = PREEMPTION_PREFIX + "intra-queue-preemption."
#: Not a Hadoop key: turns on seed 002's remedy, the node-cost selector (a model variant).
NODE_COST_KEY = "yarnspec.preemption.node-cost-selector"


@dataclass(frozen=True)
class IntraQueueOrderPolicy:
    """How the intra-queue selector weighs user limits against application priorities
    (``intra-queue-preemption.preemption-order-policy``; Hadoop
    ``ProportionalCapacityPreemptionPolicy.IntraQueuePreemptionOrderPolicy``).

    ``userlimit_first`` (the default) sets every rule; ``priority_first`` none:

    * ``spare_users_within_limit``: a higher-priority application of another user may not take
      from a user who has not reached its user limit (``validateOutSameAppPriorityFromDemand``);
    * ``keep_user_limit``: a container is skipped once taking it would bring its user to or
      below its user limit, and the user's rolling usage drops with each container taken
      (``skipContainerBasedOnIntraQueuePolicy``, ``preemptFromLeastStarvedApp``);
    * ``keep_minimum_allocation``: one minimum allocation of each application is left out of
      what may be taken from it (``calculateToBePreemptedResourcePerApp``);
    * ``fair_ordering``: in a queue whose ordering policy is ``fair``, applications are ordered
      by their user's use, least first (``TAFairOrderingComparator``) instead of by priority.
    """

    name: str
    spare_users_within_limit: bool
    keep_user_limit: bool
    keep_minimum_allocation: bool
    fair_ordering: bool


@dataclass(frozen=True)
class FairOrderingRule:
    """How ``FifoIntraQueuePreemptionPlugin`` and ``IntraQueueCandidatesSelector`` treat a
    leaf whose application ordering policy is ``fair`` (a model variant; ``releases`` says
    which Hadoop code it stands for).

    ``fair_share`` is Cloudera's fair-share intra-queue preemption (COMPX-4883, COMPX-5202,
    COMPX-5228 and a follow-up fix, 2021-01/02; in Cloudera's CDH 7.1 branch, never in an
    Apache Hadoop release). In a ``fair`` leaf only schedulable applications get a record;
    every user gets a fair share (``setFairShareForApps``: the queue's reassignable resource,
    AM included, when ``getUserLimit()`` is 100, else the user's limit, AM included), split
    over the user's applications rounded up; an application's ideal is its use plus pending
    capped at that share, without the user-limit and queue-headroom caps; its AM is not kept
    out of what it may give; and demand is matched by ``calcActuallyToBePreemptedBasedOnFS``
    instead of ``validateOutSameAppPriorityFromDemand``. Without it the ``fair`` queue is
    treated like a ``fifo`` one apart from the ordering (:class:`IntraQueueOrderPolicy.fair_ordering`).

    The same Cloudera change also touches every leaf, whatever its ordering policy:
    ``deduct_inclusive`` (an application's amount is reduced by a container when it is at
    least the container, ``TempAppPerPartition.deductActuallyToBePreempted``; Apache: only when
    larger), ``minimum_allocation_fits`` (an application gives nothing unless one minimum
    allocation fits in what it may give, ``calculateToBePreemptedResourcePerApp``) and
    ``skip_continues`` (a container the selector must skip does not end the walk of its
    application, ``preemptFromLeastStarvedApp``).
    """

    name: str
    releases: str
    fair_share: bool
    deduct_inclusive: bool = False
    minimum_allocation_fits: bool = False
    skip_continues: bool = False


#: Apache Hadoop's plugin (read in symious/hadoop, where the 39 shipped cases come from; the
#: apache/hadoop trunk of 2024-10-03 still has no fair-share code).
PRIORITY_DEMAND = FairOrderingRule("priority-demand", "Apache Hadoop 3.x (every release to trunk of 2024-10)", False)
#: Cloudera's plugin, read at commit 4934153bc5 (COMPX-5228) of the CDH-7.1.9.1000 branch of
#: susheel-gupta/hadoop, a copy of Cloudera's Hadoop.
FAIR_SHARE = FairOrderingRule(
    "fair-share", "Cloudera CDH 7.1 branch (COMPX-4883, COMPX-5202, COMPX-5228; not in Apache Hadoop)",
    True, deduct_inclusive=True, minimum_allocation_fits=True, skip_continues=True,
)  # fmt: skip
FAIR_ORDERING_RULES: tuple[FairOrderingRule, ...] = (PRIORITY_DEMAND, FAIR_SHARE)
#: Not a Hadoop key: how a configuration or a case selects the fair-ordering rule.
FAIR_ORDERING_RULE_KEY = "yarnspec.preemption.intra-queue-fair-ordering-rule"


USERLIMIT_FIRST = IntraQueueOrderPolicy("userlimit_first", True, True, True, True)
PRIORITY_FIRST = IntraQueueOrderPolicy("priority_first", False, False, False, False)
INTRA_QUEUE_ORDER_POLICIES: tuple[IntraQueueOrderPolicy, ...] = (USERLIMIT_FIRST, PRIORITY_FIRST)


@dataclass(frozen=True)
class PreemptionConfig:
    """Every setting one ``edit_schedule`` round reads; defaults are the main code's."""

    max_wait_before_kill_ms: int = 15000
    monitoring_interval_ms: int = 3000
    total_preemption_per_round: float = 0.1
    natural_termination_factor: float = 0.2
    max_ignored_over_capacity: float = 0.1
    observe_only: bool = False
    select_based_on_reserved_containers: bool = False
    additional_res_balance_based_on_reserved_containers: bool = False
    preemption_to_balance_enabled: bool = False
    preemption_to_balance_max_wait_ms: int = 300000
    conservative_drf: bool = False
    intra_queue_enabled: bool = False
    intra_queue_minimum_threshold: float = 0.5
    intra_queue_max_allowable_limit: float = 0.2
    intra_queue_order: IntraQueueOrderPolicy = USERLIMIT_FIRST
    intra_queue_conservative_drf: bool = True
    intra_queue_fair_rule: FairOrderingRule = PRIORITY_DEMAND
    lazy_preemption_enabled: bool = False
    node_cost_selector: bool = False
    underutilized_preemption_enabled: bool = False
    variant: PolicyVariantName = "hadoop-3"
    guarantees: GuaranteeRuleName = "effective"

    @property
    def rules(self) -> _variants.PolicyVariant:
        """The rules of the policy :attr:`variant` (:class:`NotModelled` for an unknown name)."""
        return _variants.policy_variant(self.variant)

    @property
    def guarantee_rule(self) -> _variants.GuaranteeRule:
        """The rules of the :attr:`guarantees` name (:class:`NotModelled` for an unknown one)."""
        return _variants.guarantee_rule(self.guarantees)

    @staticmethod
    def from_properties(
        properties: Mapping[str, Any], source: str = "<configuration>", variant: PolicyVariantName = "hadoop-3"
    ) -> PreemptionConfig:
        """Read the settings from Hadoop property names; unknown keys are ignored (they belong
        to other components), known keys with bad values raise :class:`InputError`."""
        values: dict[str, Any] = {"variant": variant}
        for key, (attribute, parse) in _KEYS.items():
            if key in properties:
                values[attribute] = parse(source, key, properties[key])
        return PreemptionConfig(**values)

    def replace(self, **changes: Any) -> PreemptionConfig:
        """A copy with some settings changed."""
        current = {f.name: getattr(self, f.name) for f in fields(self)}
        current.update(changes)
        return PreemptionConfig(**current)


def _text(source: str, key: str, raw: Any) -> str:
    """The value as the string Hadoop's getter would read: a case file's JSON ``true`` or
    number is the string a test's ``conf.setBoolean`` / ``setLong`` / ``setFloat`` writes."""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, (int, float, str)):
        return str(raw)
    raise InputError(source, key, f"expected a string or a number, found {raw!r}")


def _parse_bool(source: str, key: str, raw: Any) -> bool:
    """``Configuration.getBoolean`` (a value other than true or false is refused)."""
    value = getters.get_boolean(_text(source, key, raw))
    if value is None:
        raise InputError(source, key, f"expected true or false, found {raw!r}")
    return value


def _number(getter: Callable[[str], float | None], syntax: str) -> Callable[[str, str, Any], float]:
    def parse(source: str, key: str, raw: Any) -> float:
        if isinstance(raw, bool):
            raise InputError(source, key, f"{syntax}, found {raw!r}")
        value = getters.finite(getter(_text(source, key, raw)))
        if value is None:
            raise InputError(source, key, f"{syntax}, found {raw!r}")
        return value

    return parse


#: ``Configuration.getFloat`` and ``getDouble`` keys (the policy reads each with one of them).
_FLOAT = _number(getters.get_float, "expected a number (finite, as Java's Float.parseFloat reads it)")
_DOUBLE = _number(getters.get_double, "expected a number (finite, as Java's Double.parseDouble reads it)")


def _guarantee_rule(source: str, key: str, raw: Any) -> GuaranteeRuleName:
    text = str(raw).strip()
    for rule in GUARANTEE_RULES:
        if text == rule:
            return rule
    raise InputError(source, key, f"expected one of {', '.join(GUARANTEE_RULES)}, found {raw!r}")


def _fair_rule(source: str, key: str, raw: Any) -> FairOrderingRule:
    text = str(raw).strip()
    for rule in FAIR_ORDERING_RULES:
        if text == rule.name:
            return rule
    known = ", ".join(r.name for r in FAIR_ORDERING_RULES)
    raise InputError(source, key, f"expected one of {known}, found {raw!r}")


def _order_policy(source: str, key: str, raw: Any) -> IntraQueueOrderPolicy:
    text = str(raw).strip().lower()
    for policy in INTRA_QUEUE_ORDER_POLICIES:
        if text == policy.name:
            return policy
    known = ", ".join(p.name for p in INTRA_QUEUE_ORDER_POLICIES)
    raise InputError(source, key, f"expected one of {known}, found {raw!r}")


def _millis(source: str, key: str, raw: Any) -> int:
    """A ``Configuration.getLong`` key holding milliseconds, at least 0."""
    value = None if isinstance(raw, bool) else getters.get_long(_text(source, key, raw))
    if value is None or value < 0:
        raise InputError(source, key, f"expected a whole number of milliseconds >= 0 (a Java long), found {raw!r}")
    return value


def _fraction(low_open: bool, parse_number: Callable[[str, str, Any], float]) -> Callable[[str, str, Any], float]:
    def parse(source: str, key: str, raw: Any) -> float:
        value = parse_number(source, key, raw)
        if value < 0 or (low_open and value == 0):
            bound = "> 0" if low_open else ">= 0"
            raise InputError(source, key, f"expected a number {bound}, found {raw!r}")
        return value

    return parse


_KEYS: Mapping[str, tuple[str, Callable[[str, str, Any], Any]]] = MappingProxyType(
    {
        PREEMPTION_PREFIX + "max_wait_before_kill": ("max_wait_before_kill_ms", _millis),
        PREEMPTION_MONITORING_INTERVAL: ("monitoring_interval_ms", _millis),
        # ProportionalCapacityPreemptionPolicy.updateConfigIfNeeded: getFloat for the per-round
        # total, getDouble for the other two, getLong for the waits, getBoolean for the flags.
        PREEMPTION_PREFIX + "total_preemption_per_round": ("total_preemption_per_round", _fraction(True, _FLOAT)),
        PREEMPTION_PREFIX + "natural_termination_factor": ("natural_termination_factor", _fraction(True, _DOUBLE)),
        PREEMPTION_PREFIX + "max_ignored_over_capacity": ("max_ignored_over_capacity", _fraction(False, _DOUBLE)),
        PREEMPTION_OBSERVE_ONLY: ("observe_only", _parse_bool),
        PREEMPTION_SELECT_FOR_RESERVED: ("select_based_on_reserved_containers", _parse_bool),
        PREEMPTION_PREFIX + "additional_res_balance_based_on_reserved_containers": (
            "additional_res_balance_based_on_reserved_containers",
            _parse_bool,
        ),
        PREEMPTION_PREFIX + "preemption-to-balance-queue-after-satisfied.enabled": (
            "preemption_to_balance_enabled",
            _parse_bool,
        ),
        PREEMPTION_PREFIX + "preemption-to-balance-queue-after-satisfied.max-wait-before-kill": (
            "preemption_to_balance_max_wait_ms",
            _millis,
        ),
        PREEMPTION_PREFIX + "conservative-drf": ("conservative_drf", _parse_bool),
        INTRA_QUEUE + "enabled": ("intra_queue_enabled", _parse_bool),
        INTRA_QUEUE + "minimum-threshold": ("intra_queue_minimum_threshold", _fraction(False, _FLOAT)),
        INTRA_QUEUE + "max-allowable-limit": ("intra_queue_max_allowable_limit", _fraction(False, _FLOAT)),
        INTRA_QUEUE + "preemption-order-policy": ("intra_queue_order", _order_policy),
        INTRA_QUEUE + "conservative-drf": ("intra_queue_conservative_drf", _parse_bool),
        LAZY_PREEMPTION_ENABLED: ("lazy_preemption_enabled", _parse_bool),
        UNDERUTILIZED_PREEMPTION_ENABLED: ("underutilized_preemption_enabled", _parse_bool),
        GUARANTEE_RULE_KEY: ("guarantees", _guarantee_rule),
        NODE_COST_KEY: ("node_cost_selector", _parse_bool),
        FAIR_ORDERING_RULE_KEY: ("intra_queue_fair_rule", _fair_rule),
    }
)

#: The property names this module reads, for documentation and for the configuration reader.
KNOWN_KEYS: tuple[str, ...] = tuple(_KEYS)
