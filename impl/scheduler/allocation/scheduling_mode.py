"""Hadoop's ``SchedulingMode`` (``org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity``):
whether an allocation pass respects partition exclusivity.

A pass first respects it: a node of partition ``x`` serves only requests for ``x`` from queues
that may use ``x``. Only on a node of a non-exclusive partition left idle does a second pass
ignore it: requests without a label may use the node (never an AM), each queue's limit being
the whole partition.
"""

from __future__ import annotations

import enum


class SchedulingMode(enum.Enum):
    """The two modes of an allocation pass (see the module docstring)."""

    RESPECT_PARTITION_EXCLUSIVITY = "respect-partition-exclusivity"
    IGNORE_PARTITION_EXCLUSIVITY = "ignore-partition-exclusivity"

    @property
    def ignores_exclusivity(self) -> bool:
        """Whether this is ``IGNORE_PARTITION_EXCLUSIVITY``."""
        return self is SchedulingMode.IGNORE_PARTITION_EXCLUSIVITY

    @classmethod
    def of(cls, ignore_exclusivity: bool) -> SchedulingMode:
        """The mode a proposal was made in, from its ``ignore_exclusivity`` flag."""
        return cls.IGNORE_PARTITION_EXCLUSIVITY if ignore_exclusivity else cls.RESPECT_PARTITION_EXCLUSIVITY


RESPECT = SchedulingMode.RESPECT_PARTITION_EXCLUSIVITY
IGNORE = SchedulingMode.IGNORE_PARTITION_EXCLUSIVITY
