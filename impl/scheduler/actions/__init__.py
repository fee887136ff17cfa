"""The actions of the scheduler model, read as a TLA+ specification reads: :func:`start` is
``Init`` and :data:`TABLE` is ``Next``, the disjunction of its kinds.

Every source of nondeterminism is an action, so the explorer can enumerate them and Hypothesis
can draw them. Each kind of action is one :class:`~.kind.ActionKind` (its name, action class,
candidates, guard, step, label and fairness class), defined in the file of its family, each
kind read guard first, then step:

* :mod:`.environment`: ``submit``, ``ask``, ``cancel``, ``launch``, ``complete``,
  ``release``, ``lose-node``, ``add-node``, ``finish-app``, ``tick`` (the guards; the effects
  are :mod:`yarnspec.impl.scheduler.environment_effects`);
* :mod:`.heartbeat`: ``heartbeat`` (a node's heartbeat allocates and commits at once; only
  without asynchronous scheduling);
* :mod:`.propose`: ``propose`` (a scheduling thread proposes from the state it reads, for one
  node or for a partition's sorted nodes);
* :mod:`.commit`: ``commit`` (the committer applies or rejects one proposal in flight, in any
  order: threads interleave);
* :mod:`.resort`: ``resort`` (the multi-node sorter, every sorting interval);
* :mod:`.monitor`: ``monitor`` (the preemption monitor, every monitoring interval; its effect
  is :mod:`yarnspec.impl.scheduler.monitor.scheduling_monitor`).

How the table is listed (:func:`enabled`, :func:`steps`) and taken (:func:`take`,
:func:`apply_action`) is :mod:`.listing`'s.
"""

from __future__ import annotations

from typing import Any

from yarnspec.impl.scheduler.actions import commit, environment, heartbeat, monitor, propose, resort
from yarnspec.impl.scheduler.actions.commit import Commit, describe_proposal, ids_left
from yarnspec.impl.scheduler.actions.environment import (
    AddNode,
    Ask,
    Cancel,
    Complete,
    FinishApp,
    Launch,
    LoseNode,
    Release,
    Submit,
    Tick,
)
from yarnspec.impl.scheduler.actions.heartbeat import Heartbeat
from yarnspec.impl.scheduler.actions.kind import ActionKind, Context, StepResult
from yarnspec.impl.scheduler.actions.monitor import Monitor
from yarnspec.impl.scheduler.actions.propose import ProposeNode, ProposePartition
from yarnspec.impl.scheduler.actions.resort import Resort
from yarnspec.impl.scheduler.async_scheduling.node_sorting import initial_order
from yarnspec.impl.scheduler.state import SchedulerState, initial_state
from yarnspec.impl.scheduler.world import World


def start(world: World) -> SchedulerState:
    """``Init``: the initially live nodes empty, nothing submitted, the clock at 0, and (with
    multi-node placement) the sorter's first order."""
    return initial_order(world, initial_state(world))


#: ``Next``: every kind of action, in the order :func:`enabled` lists their actions.
TABLE: tuple[ActionKind[Any], ...] = (
    *environment.KINDS, *heartbeat.KINDS, *propose.KINDS, *commit.KINDS, *resort.KINDS, *monitor.KINDS
)  # fmt: skip

#: An action of any kind of the table.
Action = (
    Submit | Ask | Cancel | Launch | Complete | Release | LoseNode | AddNode | FinishApp | Tick
    | Heartbeat | ProposePartition | ProposeNode | Commit | Resort | Monitor
)  # fmt: skip

#: Every kind's name, in table order (``propose`` once: its two placements share the name).
KINDS: tuple[str, ...] = tuple(dict.fromkeys(k.name for k in TABLE))

# The listing reads the table above, so it is imported after it.
from yarnspec.impl.scheduler.actions.listing import (  # noqa: E402
    action_class,
    action_kind,
    apply_action,
    enabled,
    fair_classes,
    kind,
    label,
    step,
    steps,
    successors,
    take,
)  # fmt: skip

__all__ = [
    "KINDS", "TABLE", "Action", "ActionKind", "AddNode", "Ask", "Cancel", "Commit", "Complete", "Context",
    "FinishApp", "Heartbeat", "Launch", "LoseNode", "Monitor", "ProposeNode",
    "ProposePartition", "Release", "Resort", "StepResult", "Submit", "Tick", "action_class", "action_kind",
    "apply_action", "describe_proposal", "enabled", "fair_classes", "ids_left", "kind", "label", "start", "step",
    "steps", "successors", "take",
]  # fmt: skip
