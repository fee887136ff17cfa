"""The multi-node sorter's action: re-sort the candidate nodes every sorting interval
(``MultiNodeSorter``; :mod:`yarnspec.impl.scheduler.async_scheduling.node_sorting`)."""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.scheduler.actions.kind import ActionKind, once
from yarnspec.impl.scheduler.async_scheduling.node_sorting import resort, resort_due


@dataclass(frozen=True, slots=True)
class Resort:
    """The multi-node sorter re-sorts the candidate nodes."""


RESORT = ActionKind(
    "resort",
    Resort,
    once,
    guard=lambda c, a: resort_due(c.world, c.state),
    step=lambda c, a: resort(c.world, c.state),
    fair=True,
    possible=lambda world: world.settings.multi_node,
)

#: The sorter's kinds.
KINDS: tuple[ActionKind, ...] = (RESORT,)
