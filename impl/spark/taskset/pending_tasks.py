"""Spark's ``PendingTasksByLocality``: the stacks of pending task indices a task set manager
keeps per executor, host and rack, for tasks without preference, and for all tasks."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field

from yarnspec.impl.spark.collection_order import CollectionOrder, get_or_else_update, new_map


@dataclass
class PendingTasksByLocality:
    """Stacks of task indices (appended at the end, taken from the end) per executor, host and rack (Scala
    ``HashMap`` s, walked in the variant's :class:`CollectionOrder`), for tasks without
    preference, and for all tasks. Entries of tasks already running or done are removed
    lazily."""

    for_executor: MutableMapping[str, list[int]]
    for_host: MutableMapping[str, list[int]]
    for_rack: MutableMapping[str, list[int]]
    no_prefs: list[int] = field(default_factory=list)
    all: list[int] = field(default_factory=list)

    @classmethod
    def empty(cls, order: CollectionOrder) -> PendingTasksByLocality:
        """No pending task, with maps walked in ``order``."""
        return cls(new_map(order), new_map(order), new_map(order))


def push(lists: MutableMapping[str, list[int]], key: str, index: int) -> None:
    """``lists.getOrElseUpdate(key, new ArrayBuffer) += index``."""
    get_or_else_update(lists, key, list).append(index)
