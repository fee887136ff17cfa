"""Hadoop ``ApplicationId.hashCode``, which decides the order of a ``HashMap`` keyed by
application (such as ``TempUserPerPartition``'s applications)."""

from __future__ import annotations

#: The cluster timestamp the model gives every application id: the preemption tests' mocks
#: use 0 (``ApplicationId.newInstance(0L, id)``); a real ResourceManager uses its start time.
CLUSTER_TIMESTAMP = 0


def _int32(value: int) -> int:
    """``value`` wrapped to a Java ``int``."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def application_id_hash(app_id: int, cluster_timestamp: int = CLUSTER_TIMESTAMP) -> int:
    """``ApplicationId.hashCode()``: ``371237 * (371237 * 6521 + (int)(ts ^ ts >>> 32)) + id``
    in Java ``int`` arithmetic."""
    folded = _int32(cluster_timestamp ^ ((cluster_timestamp & 0xFFFFFFFFFFFFFFFF) >> 32))
    result = _int32(371237 * 6521 + folded)
    return _int32(371237 * result + app_id)
