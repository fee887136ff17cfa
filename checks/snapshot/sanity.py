"""States a snapshot may hold that Hadoop reaches only in passing: warnings, one line each.

- A container of a queue on a node of an exclusive label the queue cannot access. Hadoop keeps
  running containers when a node's labels change (``yarn rmadmin -replaceLabelsOnNode``: the
  scheduler moves their usage to the node's new partition, ``TestCapacitySchedulerNodeLabelUpdate
  .testResourceUsageWhenNodeUpdatesPartition``), and when a refresh takes a label from a queue,
  so such a container is legitimate; the policy still counts it as the queue's use of that
  label. (On a non-exclusive label it is ordinary sharing of idle resource: no warning.)
- A queue whose used is above its maximum in a partition. Hadoop reaches this after a refresh
  lowers ``maximum-capacity``, after a node's label changes, or with reserved containers;
  nothing is killed at once, and the preemption policy, whose ideal stops at the maximum, takes
  the excess back over later rounds. (A queue's use of a label it cannot access is left to the
  first check: its maximum there is 0, and on a non-exclusive label that use is normal.)

Both are therefore warnings, not errors: the snapshot is explained as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from yarnspec.impl.cluster import ClusterSnapshot, Container
from yarnspec.impl.config.scheduler import SchedulerConfiguration


def snapshot_warnings(
    snapshot: ClusterSnapshot, conf: SchedulerConfiguration, name: Callable[[Container], str]
) -> list[str]:
    """One line per container on a label its queue cannot access and per queue above its
    maximum (``name`` gives a container's name as the snapshot file wrote it)."""
    lines = []
    for container in snapshot.containers:
        label = snapshot.node_partition(container)
        partition = snapshot.partitions[label]
        queue = conf.queues.queues.get(container.queue)
        if queue is None or not partition.exclusive or queue.can_access(label):
            continue
        lines.append(
            f"container {name(container)} of {container.queue} runs on {container.node} in label {label!r}, which "
            f"{container.queue} cannot access (Hadoop keeps running containers when a node's label changes); "
            f"counted as {container.queue}'s use of {label!r}"
        )
    for path in snapshot.preorder():
        queue = conf.queues.queues.get(path)
        for label, figures in snapshot.queues[path].partitions.items():
            if queue is not None and not queue.can_access(label):
                continue  # its use of a label it cannot access: the container lines above, or non-exclusive sharing
            if figures.used.component_min(figures.maximum) != figures.used:
                lines.append(
                    f"queue {path} uses {figures.used} in {label or chr(34) * 2}, above its maximum {figures.maximum} (Hadoop "
                    "allows this after a refresh lowers maximum-capacity or a node's label changes; the policy takes the "
                    "excess back)"
                )
    return lines
