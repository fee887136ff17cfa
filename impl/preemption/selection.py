"""What all selectors of one round share: the chosen containers, the budget and the try rule.

A container is chosen at most once per round, over all selectors; every choice is charged to
the one round budget (``cluster x total_preemption_per_round``, Hadoop
``CapacitySchedulerPreemptionUtils.tryPreemptContainerAndDeductResToObtain``; semantics A.2, A.3).
"""

from __future__ import annotations

from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import Container
from yarnspec.impl.preemption.variants import PolicyVariantName, policy_variant
from yarnspec.impl.resources import ZERO, Resource


class Selection:
    """The round's chosen containers (in choice order) and what is left of its budget."""

    def __init__(
        self, budget: Resource, calc: ResourceCalculator, cluster: Resource, variant: PolicyVariantName
    ) -> None:
        self.budget = budget
        self.calc = calc
        self.cluster = cluster
        self.rules = policy_variant(variant)
        # Keyed by object identity: a snapshot holds each container (unique id) exactly once,
        # and identity is much cheaper to hash than the id dataclass.
        self._chosen: dict[int, Container] = {}

    @property
    def chosen(self) -> list[Container]:
        """Every container chosen so far, in choice order."""
        return list(self._chosen.values())

    def __len__(self) -> int:
        return len(self._chosen)

    def __contains__(self, container: Container) -> bool:
        return id(container) in self._chosen

    def choose(self, container: Container) -> None:
        """Record ``container`` as chosen (no budget or quota bookkeeping)."""
        self._chosen[id(container)] = container

    def try_preempt(
        self, container: Container, partition: str, to_obtain: dict[str, Resource], conservative: bool
    ) -> bool:
        """Hadoop ``tryPreemptContainerAndDeductResToObtain`` (semantics A.8, container rule).

        ``partition`` is that of the container's node; ``to_obtain`` the leaf's partition ->
        amount map, updated in place. Hadoop 3: every component of the amount that is exactly
        0 becomes -1 (and stays so); the container is taken iff some major resource of the
        amount is > 0, it fits in the remaining budget, and it makes a positive contribution
        (``max(t - size, 0) < max(t, 0)``) or, with ``conservative``, no major resource of the
        amount is <= 0. 2.7.3 takes every container while the amount is > 0 and keeps no
        budget. A taken container is subtracted from the amount (which may overshoot) and the
        partition leaves the map once its amount is <= 0.
        """
        if id(container) in self._chosen:
            return False
        amount = to_obtain.get(partition)
        if amount is None:
            return False
        calc, size = self.calc, container.resource
        if self.rules.budgeted_container_rule:
            amount = amount.with_zeros_as(-1)
            to_obtain[partition] = amount
            if not (calc.any_major_positive(amount) and calc.fits_in(size, self.budget)):
                return False
            if conservative:
                contributes = not calc.any_major_nonpositive(amount)
            else:
                contributes = calc.contributes(self.cluster, amount, size)
            if not contributes:
                return False
            self.budget = self.budget - size
        self.charge(to_obtain, partition, size)
        self.choose(container)
        return True

    def charge(self, to_obtain: dict[str, Resource], partition: str, size: Resource) -> None:
        """Count ``size`` against the partition's amount; the partition leaves the map once
        its amount is <= 0 (cluster as reference). No-op for a partition not in the map."""
        amount = to_obtain.get(partition)
        if amount is None:
            return
        amount = amount - size
        if self.calc.less_equal(self.cluster, amount, ZERO.padded(len(amount))):
            del to_obtain[partition]
        else:
            to_obtain[partition] = amount
