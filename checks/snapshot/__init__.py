"""Cluster snapshots from outside the model: the ResourceManager's REST API and a plain JSON
format of our own, both read into the :class:`~yarnspec.impl.cluster.ClusterSnapshot` the
preemption policy takes (``docs/your-cluster.md``).

:func:`load_snapshot` tells the two apart, reads the file (or folder) into
:class:`~.records.SnapshotRecords`, and :func:`~.assemble.assemble` checks them against the
configuration and against themselves before building the snapshot: an inconsistent snapshot
is one :class:`~yarnspec.impl.errors.InputError` naming the file and the place.
"""

from yarnspec.checks.snapshot.assemble import LoadedSnapshot, assemble
from yarnspec.checks.snapshot.load import load_records, load_snapshot
from yarnspec.checks.snapshot.records import AppRecord, ContainerRecord, NodeRecord, QueueRecord, SnapshotRecords

__all__ = [
    "AppRecord",
    "ContainerRecord",
    "LoadedSnapshot",
    "NodeRecord",
    "QueueRecord",
    "SnapshotRecords",
    "assemble",
    "load_records",
    "load_snapshot",
]
