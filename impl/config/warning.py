"""A configuration warning: its line of text, with a stable id and the key it is about.

``ConfigWarning`` is a ``str`` (the line a user reads, so code that prints or compares
warnings as text keeps working) that also carries ``id``, a short kebab-case name that never
changes (what ``yarnspec config --allow ID`` names), and ``key``, the property the warning is
about ("" when it is about no single key). Every id is listed in :data:`WARNING_IDS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: Every warning id the configuration reader gives, with what it means (docs/configuration.md).
WARNING_IDS: Mapping[str, str] = MappingProxyType(
    {
        "no-value": "a property without a value (Hadoop ignores it)",
        "final-override": "a later file sets a property an earlier one made final (ignored)",
        "label-star": "root's accessible-node-labels is set (ignored: root can use every label, *)",
        "orphan-queue-key": "a setting of a queue that is in no .queues list",
        "shared-leaf-name": "two leaves share a name (refused by Hadoop before 3.3)",
        "label-not-guaranteed": "root's capacity in a node label is 0 or not set",
        "label-parent-zero": "a queue sets a capacity in a label its parent gets nothing of",
        "labels-disabled": "queues have label settings but yarn.node-labels.enabled is not true",
        "monitor-without-policy": "the monitor is on but does not run the preemption policy",
    }
)


class ConfigWarning(str):
    """A warning line with its ``id`` and the ``key`` it is about."""

    id: str
    key: str

    def __new__(cls, warning_id: str, key: str, text: str) -> ConfigWarning:
        """The warning ``text``, tagged with ``warning_id`` (one of :data:`WARNING_IDS`) and ``key``."""
        warning = super().__new__(cls, text)
        warning.id = warning_id
        warning.key = key
        return warning

    def __reduce__(self) -> tuple[type[ConfigWarning], tuple[str, str, str]]:
        """Pickled (for the parallel search's workers) with its id and key."""
        return (ConfigWarning, (self.id, self.key, str(self)))
