"""The order in which preemption visits victims inside one leaf queue (semantics A.8, B.4, C.4).

Both orders are computed once per visited application or leaf and never re-sorted inside a loop.
"""

from __future__ import annotations

from collections.abc import Iterable

from yarnspec.impl.cluster import Application, Container


def victim_order_of_containers(containers: Iterable[Container]) -> list[Container]:
    """Live containers of one application in the order they are tried: larger container
    priority value first (a larger number is less important in YARN), then the newer container
    (larger id) first (Hadoop ``FifoCandidatesSelector.sortContainers``,
    ``testContainerOrdering``)."""
    return sorted(containers, key=_container_key)


def _container_key(container: Container) -> tuple[int, int, int]:
    cid = container.container_id
    return (-container.priority, -cid.app_id, -cid.number)


def descending_container_order(containers: Iterable[Container]) -> list[Container]:
    """Containers newest first by id alone (application, then container number), the order of
    the ignore-exclusivity pass and of the reserved-container selector's node walk."""
    return sorted(containers, key=lambda c: c.container_id, reverse=True)


def victim_order_of_apps(apps: Iterable[Application], use_priority: bool = True) -> list[Application]:
    """A leaf's applications in the order preemption visits them: the reverse of the FIFO
    ordering policy, i.e. the smallest application priority first and, among equal priorities,
    the newest (largest id) first (semantics B.4, C.4). ``use_priority=False`` orders by id
    alone, as Hadoop 2.7.3 (which has no application priority) does."""
    if use_priority:
        return sorted(apps, key=lambda a: (a.priority, -a.app_id))
    return sorted(apps, key=lambda a: -a.app_id)
