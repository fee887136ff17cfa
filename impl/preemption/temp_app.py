"""The per-application and per-user records of intra-queue preemption (Hadoop
``TempAppPerPartition``, ``TempUserPerPartition`` and their base ``AbstractPreemptionEntity``).

Like :class:`~yarnspec.impl.preemption.temp_queue.TempQueue` they are mutable working records
of one round, for one leaf queue in one partition; they never leave the policy.
"""

from __future__ import annotations

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import Application
from yarnspec.impl.resources import ZERO, Resource


class PreemptionEntity:
    """What an application and a user have in common: figures read from the snapshot
    (``used``, ``am_used``, ``pending``) and the ones the plugin computes."""

    def __init__(self, used: Resource, am_used: Resource, pending: Resource) -> None:
        zero = ZERO.padded(len(used))
        self.used = used
        self.am_used = am_used
        self.pending = pending
        self.ideal = zero
        self.to_be_preempted = zero
        self.actually_to_be_preempted = zero
        self.to_preempt_from_other = zero
        self.selected = zero
        self.fair_share = zero

    @property
    def used_deduct_am(self) -> Resource:
        """What it uses besides its application masters."""
        return self.used - self.am_used

    def deduct_actually_to_be_preempted(
        self, calc: ResourceCalculator, reference: Resource, size: Resource, or_equal: bool = False
    ) -> None:
        """Take ``size`` off what is still to be preempted, but only if that is larger
        (``deductActuallyToBePreempted``), or at least as large with ``or_equal`` (Cloudera's
        ``TempAppPerPartition`` since COMPX-4883)."""
        compare = calc.greater_equal if or_equal else calc.greater
        if compare(reference, self.actually_to_be_preempted, size):
            self.actually_to_be_preempted = self.actually_to_be_preempted - size


class TempUser(PreemptionEntity):
    """One user of the queue: ``user_limit`` is the limit less the user's AM resource, and
    ``delta_quota_done`` is Hadoop's ``donePreemptionQuotaForULDelta``."""

    def __init__(self, name: str, used: Resource, am_used: Resource, user_limit: Resource) -> None:
        super().__init__(used, am_used, ZERO.padded(len(used)))
        self.name = name
        self.user_limit = user_limit - am_used
        self.delta_quota_done = False
        self.apps: list[TempApp] = []

    def limit_reached(self, calc: ResourceCalculator, cluster: Resource) -> bool:
        """The user uses more than its limit, AM resource aside (``isUserLimitReached``)."""
        return calc.greater(cluster, self.used_deduct_am, self.user_limit)


class TempApp(PreemptionEntity):
    """One application of the queue, with its user's record."""

    def __init__(self, app: Application, used: Resource, am_used: Resource, pending: Resource, user: TempUser) -> None:
        super().__init__(used, am_used, pending)
        self.app = app
        self.user = user

    @property
    def priority(self) -> int:
        """The application's priority (larger is more important)."""
        return self.app.priority

    @property
    def app_id(self) -> int:
        """The application id."""
        return self.app.app_id

    def __repr__(self) -> str:
        return (
            f"TempApp({self.app_id}, prio={self.priority}, used={self.used}, pending={self.pending}, "
            f"ideal={self.ideal}, to_be_preempted={self.to_be_preempted}, actual={self.actually_to_be_preempted})"
        )
