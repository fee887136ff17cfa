"""Mutants of ``spark-placement``: each is the reference with one plausible mistake."""

from __future__ import annotations

import math
from typing import Any
from unittest.mock import patch

from yarnspec.checks.validate.reference import Placement
from yarnspec.impl.spark import placement


class FloorNotCeil(Placement):
    """Wrong rounding: a host's fractional container need is rounded down."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        with patch.object(placement, "_ceil_to_int", lambda value: math.floor(value)):
            return super().locality_of_requested_containers(input)


class PendingIgnored(Placement):
    """Forgets the locality-matched pending requests."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().locality_of_requested_containers({**input, "locality_matched_pending_requests": []})


class AllocatedIgnored(Placement):
    """Forgets the containers already allocated per host."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().locality_of_requested_containers({**input, "allocated_host_to_container_count": {}})


class NodesReversed(Placement):
    """Returns each node list in reverse order."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        out = super().locality_of_requested_containers(input)
        return {**out, "nodes": [None if n is None else n[::-1] for n in out["nodes"]]}


class FreeEntriesLast(Placement):
    """Puts the requests without preference after the locality-aware ones."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        out = super().locality_of_requested_containers(input)
        order = sorted(range(len(out["nodes"])), key=lambda i: out["nodes"][i] is None)
        return {key: [out[key][i] for i in order] for key in ("nodes", "racks")}


class OldExecutorRule(Placement):
    """Counts executors for the aware tasks with Spark 1.x's cores ceiling, not tasks per executor."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        rule = placement.ExecutorsForTasks.CORES_CEILING
        original = placement.PlacementInput.of

        def of(*args: Any, **kwargs: Any) -> placement.PlacementInput:
            return original(*args, **{**kwargs, "executors_rule": rule})

        with patch.object(placement.PlacementInput, "of", of):
            return super().locality_of_requested_containers(input)


class OneContainerShort(Placement):
    """Drops the last requested container."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        out = super().locality_of_requested_containers(input)
        return {key: value[:-1] for key, value in out.items()}


class HintsSorted(Placement):
    """Reads the hint map in host-name order instead of the driver's order."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().locality_of_requested_containers(
            {**input, "host_to_local_task_count": sorted(input["host_to_local_task_count"])}
        )


class AwareTasksFromCounts(Placement):
    """Takes the number of locality-aware tasks as the sum of the per-host counts."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        total = sum(count for _, count in input["host_to_local_task_count"])
        return super().locality_of_requested_containers({**input, "num_locality_aware_tasks": total})


class DefaultRackEverywhere(Placement):
    """Puts every host on the default rack (the rack table is ignored)."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        racks = {"*": input.get("rack_resolver", {}).get("*", "/default-rack")}
        return super().locality_of_requested_containers({**input, "rack_resolver": racks})


class TaskCpusIgnored(Placement):
    """Runs one task per core whatever ``task_cpus`` says."""

    def locality_of_requested_containers(self, input: dict[str, Any]) -> dict[str, Any]:
        return super().locality_of_requested_containers({**input, "task_cpus": 1})


MUTANTS = (
    FloorNotCeil,
    PendingIgnored,
    AllocatedIgnored,
    NodesReversed,
    FreeEntriesLast,
    OldExecutorRule,
    OneContainerShort,
    HintsSorted,
    AwareTasksFromCounts,
    DefaultRackEverywhere,
    TaskCpusIgnored,
)
