"""The behaviour variants of the scheduler model: one rule per Hadoop JIRA (:class:`Variants`),
read by the algorithms, with the names the scenarios use (:func:`variants`) and the releases a
record stands for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal, get_args

from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.inputs.specs import WORLD

CommitCheck = Literal["yarn-8127", "reserved-pickup", "pre-8127"]
MultiNodeReserve = Literal["first-candidate", "yarn-9432", "yarn-10259", "yarn-10293"]
HeadroomRule = Literal["yarn-8804", "yarn-4280", "pre-4280"]
COMMIT_CHECKS: tuple[CommitCheck, ...] = get_args(CommitCheck)
MULTI_NODE_RESERVES: tuple[MultiNodeReserve, ...] = get_args(MultiNodeReserve)
HEADROOM_RULES: tuple[HeadroomRule, ...] = get_args(HeadroomRule)


@dataclass(frozen=True)
class Variants:
    """The rules that differ between Hadoop releases, one per JIRA (read by the algorithms;
    :func:`variants` builds a record from the names the scenarios use, and :attr:`releases`
    says which releases a record stands for). The defaults are Hadoop 3.2.x.

    ``yarn_4280`` (2.8.0, 2.9.x, 3.0.0 and later): blocked headroom. In
    ``ParentQueue.assignContainersToChildQueues`` a child skipped for its queue limit gives up
    its headroom: later siblings get the parent's limit less it, so a queue that cannot use
    freed room yet keeps the others from taking it back. Without it (2.7.x) every sibling's
    limit comes from the parent's full limit.
    ``yarn_8804`` (2.9.2, 2.10.x, 3.1.2, 3.2.0 and later): a parent child that was skipped
    gives up only the blocked headroom of its own children, not its whole headroom (the
    ``ResourceLimits`` blocked headroom and net limit), which matters from three levels down.

    ``yarn_8127`` (3.1.1 to 3.4.x): the commit rejects an allocation from a reserved
    container unless the proposal's node holds that reservation. Without it (before 3.1.1) a
    second commit from a reservation already used charges the node and application again
    (the resource leak YARN-8127 fixed). ``reserved_pickup``: seed 003's first fix, never
    published, as we read it: another candidate node may take the reserved container, the
    reservation being released (an allocation from a reservation that is gone is refused).
    YARN-11573 (3.4, off by default) is the upstream cousin of the seed's second fix
    (reserving only after every candidate was tried), not of this one.

    Multi-node placement (3.2.0 and later): ``yarn_9432`` (3.3.0 and later): when the
    partition is full (root's used capacity, reservations included, at least 1), a pass
    serves every reserved node's reservation on that node alone instead of doing nothing.
    ``yarn_10259`` (3.3.1 and later): a reservation is served only when the candidate set is
    one node, and a request is reserved only on the *last* candidate, if that one returns
    RESERVED (earlier candidates that would reserve are passed over). ``yarn_10293`` (3.4.0
    and later): every pass first serves each reserved node's reservation on that node, then
    allocates (the full-partition shortcut is gone).
    """

    yarn_4280: bool = True
    yarn_8804: bool = True
    yarn_8127: bool = True
    reserved_pickup: bool = False
    yarn_9432: bool = False
    yarn_10259: bool = False
    yarn_10293: bool = False

    @property
    def name(self) -> str:
        """The commit rule (``pre-8127``, ``yarn-8127``, ``reserved-pickup``), then the
        multi-node rules added (``+yarn-9432``, ``+yarn-10259``, ``+yarn-10259+yarn-10293``)
        and the blocked-headroom rule when it is older than YARN-8804 (``+pre-8804``,
        ``+pre-4280``)."""
        commit = "pre-8127" if not self.yarn_8127 else "reserved-pickup" if self.reserved_pickup else "yarn-8127"
        reserve = ""
        if self.yarn_10259:
            reserve = "+yarn-10259+yarn-10293" if self.yarn_10293 else "+yarn-10259"
        elif self.yarn_9432:
            reserve = "+yarn-9432"
        headroom = "" if self.yarn_8804 else "+pre-8804" if self.yarn_4280 else "+pre-4280"
        return commit + reserve + headroom

    @property
    def releases(self) -> str:
        """The Hadoop releases whose CapacityScheduler has exactly these rules."""
        plain = replace(self, reserved_pickup=False)
        found = _RELEASES.get(plain, "no Hadoop release")
        if self.reserved_pickup:
            return f"seed 003's pick-up on {found} (our reading; never released)"
        return found


_RELEASES: Mapping[Variants, str] = MappingProxyType(
    {
        Variants(False, False, False): "Hadoop 2.7.x",
        Variants(True, False, False): "Hadoop 2.8.x, 2.9.0-2.9.1, 3.0.x, 3.1.0",
        Variants(True, True, False): "Hadoop 2.9.2, 2.10.x (no asynchronous scheduling)",
        Variants(True, False, True): "Hadoop 3.1.1",
        Variants(): "Hadoop 3.1.2-3.2.x",
        Variants(yarn_9432=True): "Hadoop 3.3.0",
        Variants(yarn_9432=True, yarn_10259=True): "Hadoop 3.3.1-3.3.6",
        Variants(yarn_9432=True, yarn_10259=True, yarn_10293=True): "Hadoop 3.4.x",
    }
)


def variants(
    commit: CommitCheck = "yarn-8127",
    reserve: MultiNodeReserve = "first-candidate",
    headroom: HeadroomRule = "yarn-8804",
) -> Variants:
    """The rule record named by a commit rule, a multi-node reservation rule and a
    blocked-headroom rule (an :class:`InputError` naming the unknown one).

    ``reserve``: ``first-candidate`` (3.2.x: the first candidate where the request does not
    fit reserves), ``yarn-9432`` (3.3.0), ``yarn-10259`` (3.3.1-3.3.6, with YARN-9432),
    ``yarn-10293`` (3.4.x, with both). ``headroom``: ``yarn-8804`` (with YARN-4280),
    ``yarn-4280`` alone, ``pre-4280`` (2.7.x)."""
    if commit not in COMMIT_CHECKS:
        raise InputError(
            WORLD, "variants.commit", f"unknown commit check {commit!r}; known: {', '.join(COMMIT_CHECKS)}"
        )
    if reserve not in MULTI_NODE_RESERVES:
        raise InputError(
            WORLD, "variants.reserve", f"unknown reservation rule {reserve!r}; known: {', '.join(MULTI_NODE_RESERVES)}"
        )
    if headroom not in HEADROOM_RULES:
        raise InputError(
            WORLD, "variants.headroom", f"unknown headroom rule {headroom!r}; known: {', '.join(HEADROOM_RULES)}"
        )
    level = MULTI_NODE_RESERVES.index(reserve)
    return Variants(
        yarn_4280=headroom != "pre-4280",
        yarn_8804=headroom == "yarn-8804",
        yarn_8127=commit != "pre-8127",
        reserved_pickup=commit == "reserved-pickup",
        yarn_9432=level >= 1,
        yarn_10259=level >= 2,
        yarn_10293=level >= 3,
    )


#: Rules that only exist on top of another (a record with one and not the other is no release).
_REQUIRES = (
    ("yarn_8804", "yarn_4280"),
    ("reserved_pickup", "yarn_8127"),
    ("yarn_10259", "yarn_9432"),
    ("yarn_10293", "yarn_10259"),
)


def check_variants(variants: Variants) -> None:
    for name, value in vars(variants).items():
        if not isinstance(value, bool):
            raise InputError(WORLD, f"variants.{name}", f"expected true or false, found {value!r}")
    for rule, needed in _REQUIRES:
        if getattr(variants, rule) and not getattr(variants, needed):
            raise InputError(
                WORLD, f"variants.{rule}", f"{rule} needs {needed} (no Hadoop release has one without the other)"
            )
