"""What a picture of a scheduler trace needs beyond the recorded states: per step the nodes'
capacities and the queues' guaranteed and maximum resources (they follow the live nodes, so
they change when a node is lost or joins), and once the queue tree and which queue each app
runs in.

The figures come from the model the trace names: its steps are replayed
(:func:`~yarnspec.checks.explore.trace.replay_states`) and each concrete state read through
:class:`~yarnspec.impl.scheduler.bookkeeping.view.View`. A model other than the scheduler's has no cluster
to draw: :func:`cluster_frames` returns ``None`` and the viewer shows the states' fields.
"""

from __future__ import annotations

from typing import Any

from yarnspec.checks.explore.trace import Trace, replay_states
from yarnspec.impl.resources import MEMORY, VCORES
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.transition_system import TransitionSystem


def cluster_frames(model: TransitionSystem[Any, Any], trace: Trace, source: str = "<trace>") -> dict[str, Any] | None:
    """The cluster context of ``trace`` on ``model`` (JSON-able), or ``None`` when the model has
    no cluster. A step that does not replay is a :class:`ReplayError` naming it."""
    if not isinstance(model, SchedulerModel):
        return None
    world = model.world
    states, _ = replay_states(model, trace, source)
    partitions = [p.name for p in world.partitions]
    width = max((len(n.capacity.values) for n in world.nodes), default=2)
    frames = []
    for state in states:
        view = View(world, state.scheduler)
        frames.append(
            {
                "queues": {
                    q.path: {
                        partitions[p]: {
                            "guaranteed": list(view.guaranteed(i, p).values),
                            "maximum": list(view.maximum(i, p).values),
                        }
                        for p in range(len(partitions))
                    }
                    for i, q in enumerate(world.queues)
                },
            }
        )
    return {
        "resources": [MEMORY, VCORES, *(f"resource{i}" for i in range(2, width))][:width],
        "nodes": {
            n.name: {"capacity": list(n.capacity.values), "partition": n.partition, "rack": n.rack} for n in world.nodes
        },
        "queues": [
            {"path": q.path, "parent": world.queues[q.parent].path if q.parent >= 0 else None, "leaf": q.leaf}
            for q in world.queues
        ],
        "apps": {a.name: world.queues[a.queue].path for a in world.apps},
        "partitions": partitions,
        "frames": frames,
    }
