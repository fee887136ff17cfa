"""The scheduler settings a model reads from the configuration (:class:`Settings`,
:func:`read_settings`): asynchronous scheduling, multi-node placement and its sorting policy,
reservations-continue-looking, allocation limits and the preemption monitor."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from yarnspec.impl.config.hadoop_xml import HadoopConfiguration
from yarnspec.impl.config.keys import CAPACITY_PREFIX
from yarnspec.impl.config.scheduler import SchedulerConfiguration, scheduler_configuration
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.preemption.config import PreemptionConfig
from yarnspec.impl.preemption.policy import check_supported
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.inputs.specs import WORLD

NodeSorting = Literal["resource-usage", "usage-ratio"]
ASYNC_KEY = CAPACITY_PREFIX + "schedule-asynchronously.enable"
MULTI_NODE_KEY = CAPACITY_PREFIX + "multi-node-placement-enabled"
SORTING_POLICY_KEY = CAPACITY_PREFIX + "multi-node-sorting.policy"
CONTINUE_LOOKING_KEY = CAPACITY_PREFIX + "reservations-continue-look-all-nodes"
DEFAULT_SORTING_INTERVAL_MS = 1000


#: Multi-node lookup policy classes the model implements (matched on the simple class name).
SORTING_CLASSES: Mapping[str, NodeSorting] = MappingProxyType(
    {
        "ResourceUsageMultiNodeLookupPolicy": "resource-usage",
        "ResourceUsageRatioMultiNodeLookupPolicy": "usage-ratio",
    }
)


@dataclass(frozen=True)
class Settings:
    """The scheduler settings read from the configuration.

    ``async_scheduling``: ``schedule-asynchronously.enable`` (proposals and commits are
    separate steps; heartbeats do not allocate). ``multi_node``:
    ``multi-node-placement-enabled`` (a proposal looks at every node of a partition, sorted by
    ``node_sorting``, re-sorted every ``sorting_interval_ms``). ``continue_looking``:
    ``reservations-continue-look-all-nodes``. ``preemption``: the monitor's settings, ``None``
    when the monitor does not run the preemption policy.
    """

    minimum_allocation: Resource
    maximum_allocation: Resource
    async_scheduling: bool = False
    multi_node: bool = False
    node_sorting: NodeSorting = "resource-usage"
    sorting_interval_ms: int = DEFAULT_SORTING_INTERVAL_MS
    continue_looking: bool = True
    preemption: PreemptionConfig | None = None


def configuration_from_properties(properties: Mapping[str, str], source: str = WORLD) -> SchedulerConfiguration:
    """A scheduler configuration from a plain mapping of Hadoop properties (full names)."""
    return scheduler_configuration(HadoopConfiguration.of(dict(properties), source=source))


def read_settings(conf: SchedulerConfiguration) -> Settings:
    """The scheduler settings of a configuration; a preemption setting the model does not
    cover or an unknown multi-node policy is an error naming the property."""
    props = conf.properties
    multi_node = props.get_bool(MULTI_NODE_KEY, False)
    sorting: NodeSorting = "resource-usage"
    interval = DEFAULT_SORTING_INTERVAL_MS
    if multi_node:
        sorting, interval = _sorting_policy(props)
    preemption: PreemptionConfig | None = None
    if conf.preemption_active:
        try:
            check_supported(conf.preemption)
        except NotModelled as exc:
            raise InputError(conf.sources[-1] if conf.sources else WORLD, "preemption", str(exc)) from None
        preemption = conf.preemption
    return Settings(
        minimum_allocation=conf.allocation.minimum,
        maximum_allocation=conf.allocation.maximum,
        async_scheduling=props.get_bool(ASYNC_KEY, False),
        multi_node=multi_node,
        node_sorting=sorting,
        sorting_interval_ms=interval,
        continue_looking=props.get_bool(CONTINUE_LOOKING_KEY, True),
        preemption=preemption,
    )


def _sorting_policy(props: HadoopConfiguration) -> tuple[NodeSorting, int]:
    """The multi-node lookup policy named by ``multi-node-sorting.policy`` (default
    ``default``) and its re-sorting interval."""
    name = props.get_trimmed(SORTING_POLICY_KEY) or "default"
    class_key = f"{SORTING_POLICY_KEY}.{name}.class"
    class_name = props.get_trimmed(class_key)
    if class_name is None:
        # Hadoop needs the class named; yarnspec accepts the default policy's short name too.
        simple = "ResourceUsageMultiNodeLookupPolicy"
    else:
        simple = class_name.rsplit(".", 1)[-1]
    if simple not in SORTING_CLASSES:
        raise props.invalid(
            class_key, f"expected one of {', '.join(SORTING_CLASSES)} (a multi-node lookup policy class)"
        )
    interval_key = f"{SORTING_POLICY_KEY}.{name}.sorting-interval.ms"
    interval = props.get_long(interval_key, DEFAULT_SORTING_INTERVAL_MS)
    if interval <= 0:
        raise props.invalid(interval_key, "expected a whole number of milliseconds > 0")
    return SORTING_CLASSES[simple], interval


def time_horizon(settings: Settings) -> int:
    """The longest span any decision looks back at, plus one: the sorting interval, the
    monitoring interval, the kill wait (strictly exceeded under Hadoop 2.7.3) and the age at
    which the policy forgets a mark (twice ``max_wait_before_kill``, semantics A.12). Time
    stamps older than this all act alike (used by ``Bounds.endless``)."""
    spans = [settings.sorting_interval_ms if settings.multi_node else 0]
    config = settings.preemption
    if config is not None:
        spans += [config.monitoring_interval_ms, 2 * config.max_wait_before_kill_ms + 1]
        if config.preemption_to_balance_enabled:
            spans.append(config.preemption_to_balance_max_wait_ms + 1)
    return max(spans)
