"""A Python spark-placement adapter with a deliberate bug, for docs/validating.md: it is the
reference strategy, but it reads the driver's hint map in host-name order instead of the
order Spark's map iterates in.

    yarnspec validate spark-placement --impl python:docs/examples/sorted_hints_placement.py:SortedHints
"""

from __future__ import annotations

from typing import Any

from yarnspec.checks.validate.reference import Placement


class SortedHints(Placement):
    """``localityOfRequestedContainers`` on a sorted copy of ``host_to_local_task_count``."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        """The preferences, computed from hints sorted by host name (the bug)."""
        hints = sorted(input["host_to_local_task_count"])
        return super().locality_of_requested_containers({**input, "host_to_local_task_count": hints})
