"""The inputs of the encoded level: one parent (the root of one partition) and its children.

The proofs cover the root level of a partition: the parent's ideal is its guarantee, which is
the partition's resource, which is also the cluster resource (one partition), so one vector,
:attr:`Level.resource`, is the reference of every calculator comparison, as in Hadoop for the
root level. Every child is a leaf queue. Each figure is a vector of terms (one component for
the Default calculator, two for DRF), so the same dataclasses carry concrete inputs, z3
variables, or a z3 model read back as integers.
"""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.checks.symbolic.arith import Cond, Term, Vec, sub

#: Leaf queue names in tree order (``root.a``, ``root.b``, ...).
QUEUE_NAMES = "abcdefgh"


@dataclass(frozen=True)
class Child:
    """One leaf queue's figures (semantics A.2): guaranteed, maximum, used, pending and
    reserved resource, killable resource, whether preemption is disabled, and its relative
    priority. Pending net of reserved is ``pending - reserved`` (not clamped: the mock
    framework's rule, which also covers the clamped one)."""

    guaranteed: Vec
    maximum: Vec
    used: Vec
    pending: Vec
    reserved: Vec
    killable: Vec
    disabled: Cond
    priority: Term

    @property
    def pending_net_reserved(self) -> Vec:
        """``pending - reserved``."""
        return sub(self.pending, self.reserved)


@dataclass(frozen=True)
class Level:
    """The root's resource (partition = cluster = root guarantee), its leaf children in tree
    order, and the preemption budget left when the selector starts (A.6)."""

    resource: Vec
    children: tuple[Child, ...]
    budget: Vec


@dataclass(frozen=True)
class Mode:
    """How the selector runs the ideal allocation (``yarnspec.impl.preemption.ideal.IdealMode``
    for the ``hadoop-3`` rules): ``reserved`` counts plain pending in offers and skips natural
    termination; ``balance`` drops the leaf cap."""

    reserved: bool = False
    balance: bool = False


@dataclass(frozen=True)
class Abstraction:
    """How much of a step the proofs keep exact (the concrete evaluator is always exact).

    ``groups``: instead of the most under-served group, any non-empty set of asking queues is
    served in tree order (every group the real order picks is one of them). ``offers``: an
    offer is any amount satisfying the offer lemma (:func:`.floats.offer_facts`) instead of
    its exact rounding. Both enlarge the set of behaviours, so a property proved with them
    holds for the exact step.
    """

    groups: bool = False
    offers: bool = False

    @property
    def exact(self) -> bool:
        """Nothing abstracted."""
        return not (self.groups or self.offers)


@dataclass(frozen=True)
class PolicySettings:
    """The policy settings the amounts to obtain read (A.7), as the reference holds them."""

    natural_termination_factor: float = 0.2
    max_ignored_over_capacity: float = 0.1
