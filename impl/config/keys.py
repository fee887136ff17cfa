"""Hadoop's configuration key names that yarnspec reads, each spelt once.

Each is named after its Hadoop constant (in the comment beside it): the CapacityScheduler's
in ``capacity-scheduler.xml`` (``CapacitySchedulerConfiguration``), the ResourceManager's in
``yarn-site.xml`` (``YarnConfiguration``). Per-queue keys are ``CAPACITY_PREFIX`` + the queue
path + the setting (:func:`yarnspec.impl.config.capacity.queue_key`); the preemption policy's
own settings are read from ``PREEMPTION_PREFIX`` + their name
(:data:`yarnspec.impl.preemption.config.KNOWN_KEYS`). Data files and docs spell keys out.
"""

from __future__ import annotations

# -- capacity-scheduler.xml ---------------------------------------------------------------------

#: Every CapacityScheduler property: ``CapacitySchedulerConfiguration.PREFIX``.
CAPACITY_PREFIX = "yarn.scheduler.capacity."
#: The resource calculator class: ``CapacitySchedulerConfiguration.RESOURCE_CALCULATOR_CLASS``.
RESOURCE_CALCULATOR = CAPACITY_PREFIX + "resource-calculator"
#: Lazy preemption (YARN-4108): ``CapacitySchedulerConfiguration.LAZY_PREEMPTION_ENABLED``.
LAZY_PREEMPTION_ENABLED = CAPACITY_PREFIX + "lazy-preemption-enabled"
#: Preemption for under-utilised queues under the priority-utilization ordering (YARN-5864):
#: ``CapacitySchedulerConfiguration``'s ``...underutilized-preemption.enabled``.
UNDERUTILIZED_PREEMPTION_ENABLED = (
    CAPACITY_PREFIX + "ordering-policy.priority-utilization.underutilized-preemption.enabled"
)

# -- the preemption policy (either file) -----------------------------------------------------------

#: Every preemption policy property: ``CapacitySchedulerConfiguration.PREEMPTION_CONFIG_PREFIX``.
PREEMPTION_PREFIX = "yarn.resourcemanager.monitor.capacity.preemption."
#: ``CapacitySchedulerConfiguration.PREEMPTION_MONITORING_INTERVAL``.
PREEMPTION_MONITORING_INTERVAL = PREEMPTION_PREFIX + "monitoring_interval"
#: ``CapacitySchedulerConfiguration.PREEMPTION_OBSERVE_ONLY``.
PREEMPTION_OBSERVE_ONLY = PREEMPTION_PREFIX + "observe_only"
#: ``CapacitySchedulerConfiguration.PREEMPTION_SELECT_CANDIDATES_FOR_RESERVED_CONTAINERS``.
PREEMPTION_SELECT_FOR_RESERVED = PREEMPTION_PREFIX + "select_based_on_reserved_containers"

# -- yarn-site.xml -------------------------------------------------------------------------------

#: ``YarnConfiguration.RM_SCHEDULER``.
SCHEDULER_CLASS = "yarn.resourcemanager.scheduler.class"
#: ``YarnConfiguration.RM_SCHEDULER_ENABLE_MONITORS``.
MONITOR_ENABLE = "yarn.resourcemanager.scheduler.monitor.enable"
#: ``YarnConfiguration.RM_SCHEDULER_MONITOR_POLICIES``.
MONITOR_POLICIES = "yarn.resourcemanager.scheduler.monitor.policies"
#: ``YarnConfiguration.NODE_LABELS_ENABLED``.
NODE_LABELS_ENABLED = "yarn.node-labels.enabled"
#: ``YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB``.
MINIMUM_ALLOCATION_MB = "yarn.scheduler.minimum-allocation-mb"
#: ``YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_VCORES``.
MINIMUM_ALLOCATION_VCORES = "yarn.scheduler.minimum-allocation-vcores"
#: ``YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB``.
MAXIMUM_ALLOCATION_MB = "yarn.scheduler.maximum-allocation-mb"
#: ``YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES``.
MAXIMUM_ALLOCATION_VCORES = "yarn.scheduler.maximum-allocation-vcores"

#: The per-queue setting that turns intra-queue preemption off for a queue and its children
#: (read with ``queue_key``; ``CapacitySchedulerConfiguration.INTRA_QUEUE_PREEMPTION_DISABLED``... ``intra-queue-preemption.disable_preemption``).
INTRA_QUEUE_DISABLE = "intra-queue-preemption.disable_preemption"
