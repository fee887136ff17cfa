"""Mutants of ``scheduler``: the reference model built from a misread world (a limit ignored or
off by one, the wrong release's rule) or observed wrongly, one mistake each."""

from __future__ import annotations

from typing import Any

from yarnspec.checks.validate.reference import Scheduler

PREFIX = "yarn.scheduler.capacity."


class _Misread(Scheduler):
    """The reference on a world whose properties go through :meth:`misread` (and a named
    world's parameters through :meth:`misread_named`)."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        return properties

    def misread_named(self, parameters: dict[str, Any]) -> dict[str, Any]:
        return parameters

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        world = input["world"]
        if isinstance(world, str):
            return super().reset({**input, "parameters": self.misread_named(dict(input.get("parameters", {})))})
        return super().reset({**input, "world": {**world, "properties": self.misread(dict(world["properties"]))}})


def _each(properties: dict[str, str], suffix: str, value: Any) -> dict[str, str]:
    """Every queue's ``suffix`` property replaced by ``value(old)``."""
    return {k: (str(value(v)) if k.endswith(suffix) else v) for k, v in properties.items()}


class MaxCapacityIgnored(_Misread):
    """Lets a queue grow to the whole cluster whatever its maximum capacity."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        return _each(properties, ".maximum-capacity", lambda v: 100)


class UserLimitOffByOne(_Misread):
    """Reads the user-limit factor one too high."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        return _each(properties, ".user-limit-factor", lambda v: float(v) + 1)


class AmLimitForgotten(_Misread):
    """Forgets the AM limit (``maximum-am-resource-percent``)."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        return _each(properties, ".maximum-am-resource-percent", lambda v: 1.0)


class AsynchronousIgnored(_Misread):
    """Schedules on node heartbeats where asynchronous scheduling is configured (and the other
    way round): proposals and commits where heartbeats allocate, or none."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        key = PREFIX + "schedule-asynchronously.enable"
        return {**properties, key: "false" if properties.get(key) == "true" else "true"}


class GuaranteesSwapped(_Misread):
    """Gives each of the two leaves the other's capacity (a maximum below it raised to it)."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        a, b = PREFIX + "root.a.", PREFIX + "root.b."
        if a + "capacity" not in properties or b + "capacity" not in properties:
            return properties
        swapped = {**properties, a + "capacity": properties[b + "capacity"], b + "capacity": properties[a + "capacity"]}
        for leaf in (a, b):
            maximum = leaf + "maximum-capacity"
            if maximum in swapped:
                swapped[maximum] = str(max(float(swapped[maximum]), float(swapped[leaf + "capacity"])))
        return swapped


class CompletedNotReturned(Scheduler):
    """Leaves a completed or released container's resource charged to its node (the node's
    used and free as they were before the step)."""

    def step(self, input: dict[str, Any]) -> dict[str, Any]:
        before = self._observed_nodes
        out = super().step(input)
        if input["action"].startswith(("complete(", "release(")) and before is not None:
            out = {**out, "nodes": {name: before.get(name, node) for name, node in out["nodes"].items()}}
        self._observed_nodes = out["nodes"]
        return out

    _observed_nodes: dict[str, Any] | None = None


class FifoAsFair(_Misread):
    """Orders a leaf's applications fairly where FIFO is configured, and FIFO where fair is."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        return _each(properties, ".ordering-policy", lambda v: {"fifo": "fair", "fair": "fifo"}.get(v, v))


class PreemptionMonitorOff(_Misread):
    """Never runs the preemption monitor."""

    def misread(self, properties: dict[str, str]) -> dict[str, str]:
        return {**properties, "yarn.resourcemanager.scheduler.monitor.enable": "false"}

    def misread_named(self, parameters: dict[str, Any]) -> dict[str, Any]:
        return parameters


class ReservationLeakedAtCommit(_Misread):
    """Commits an allocation from a reservation without checking that the reservation is still
    there (YARN-8127's leak, Hadoop before 3.1.1): two proposals from one reservation both
    commit and the node is charged twice."""

    def reset(self, input: dict[str, Any]) -> dict[str, Any]:
        world = input["world"]
        if isinstance(world, str):
            parameters = input.get("parameters", {})
            if world == "async-double-commit" and parameters.get("commit", "pre-8127") == "yarn-8127":
                input = {**input, "parameters": {**parameters, "commit": "pre-8127"}}
            return super().reset(input)
        chosen, properties = world.get("variants", {}), world["properties"]
        single_node = properties.get(PREFIX + "multi-node-placement-enabled") != "true"
        if chosen.get("commit", "yarn-8127") == "yarn-8127" and single_node:
            # the releases without the check (3.0.x-3.1.0) had YARN-4280 but not YARN-8804
            world = {**world, "variants": {**chosen, "commit": "pre-8127", "headroom": "yarn-4280"}}
        return super().reset({**input, "world": world})


class ReservedCountedAsLive(Scheduler):
    """Counts an application's reserved containers among its live ones."""

    def step(self, input: dict[str, Any]) -> dict[str, Any]:
        out = super().step(input)
        apps = dict(out["apps"])
        for node in out["nodes"].values():
            if node["reserved"] != -1 and self._state is not None and self._model is not None:
                container = next(c for c in self._state.scheduler.containers if c.cid == node["reserved"])
                name = self._model.world.apps[container.app].name
                apps[name] = apps.get(name, 0) + 1
        return {**out, "apps": apps}


MUTANTS = (
    ReservationLeakedAtCommit,
    UserLimitOffByOne,
    MaxCapacityIgnored,
    AmLimitForgotten,
    AsynchronousIgnored,
    GuaranteesSwapped,
    CompletedNotReturned,
    FifoAsFair,
    PreemptionMonitorOff,
    ReservedCountedAsLive,
)
