"""A scheduler world written out in JSON (the ``scheduler`` contract's ``reset {"world": {...}}``),
small random ones to validate with, and one labelled step of the model.

The description carries what an implementation needs to build the same cluster: the
configuration as properties (``capacity-scheduler.xml`` / ``yarn-site.xml`` keys), the nodes
and applications in MB and vcores, the named variants and the model's bounds::

    {"properties": {KEY: VALUE, ...},
     "nodes": [{"name", "memory", "vcores", "rack"?, "live"?}],
     "apps": [{"name", "queue", "user", "priority", "am": {"memory", "vcores"},
               "requests": [{"priority", "memory", "vcores"}]}],
     "variants": {"commit", "reserve", "headroom"},
     "bounds": {"max_clock_ms", "tick_ms", "max_proposals", "max_ask", "max_containers",
                "max_rereservations", "node_churn"}}

Every node is in the default partition and every request asks for any node (``*``): the
generated worlds are about queue limits, reservations and commits, not labels or locality.
"""

from __future__ import annotations

from typing import Any

from yarnspec.checks.suites.scheduler import VARIANTS
from yarnspec.checks.suites.strategies import Chooser
from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.config.keys import PREEMPTION_PREFIX as PREEMPTION
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import take
from yarnspec.impl.scheduler.bookkeeping.canonical import renumber_containers
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import configuration_from_properties
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import variants
from yarnspec.impl.scheduler.world import World, build_world
from yarnspec.spec.scheduler.model import ModelState, SchedulerModel
from yarnspec.spec.worlds.world_builders import model

SOURCE = "<reset world>"
#: The behaviour combinations generated worlds use: the property suite's, less ``pre-8127``
#: (a known leak, whose observations break the contract's invariants on purpose).
SOUND_VARIANTS = tuple(v for v in VARIANTS if v.commit != "pre-8127")


def _resource(value: dict[str, Any]) -> Resource:
    return Resource.of(int(value["memory"]), int(value["vcores"]))


def model_of_reset(reset: dict[str, Any]) -> SchedulerModel:
    """The model a ``reset`` input names: a named world with its parameters, or a description."""
    world = reset["world"]
    if isinstance(world, str):
        return model(world, **reset.get("parameters", {}))
    return SchedulerModel(build_described_world(world), "described", progress=False)


def step_by_label(checker: SchedulerModel, state: ModelState, label: str) -> ModelState | None:
    """The state the enabled action labelled ``label`` leads to, as
    :meth:`SchedulerModel.successors` reaches it (``None`` when no enabled action has that
    label); only that action is taken, so a long walk stays cheap."""
    for action in checker.actions(state.scheduler):
        if checker.action_label(action) == label:
            after = take(checker.world, state.scheduler, action).state
            return ModelState(renumber_containers(after) if checker.world.bounds.endless else after)
    return None


def build_described_world(description: dict[str, Any]) -> World:
    """The :class:`World` a description stands for (``KeyError``/``TypeError``/``InputError``
    on a malformed one: the reference refuses it)."""
    nodes = [
        NodeSpec(n["name"], _resource(n), rack=n.get("rack", "/default-rack"), live=bool(n.get("live", True)))
        for n in description["nodes"]
    ]
    apps = [
        AppSpec(
            a["name"],
            a["queue"],
            _resource(a["am"]),
            tuple(RequestSpec(int(r["priority"]), _resource(r)) for r in a.get("requests", [])),
            user=a.get("user", "user"),
            priority=int(a.get("priority", 0)),
        )
        for a in description["apps"]
    ]
    chosen = description.get("variants", {})
    rules = variants(
        chosen.get("commit", "yarn-8127"), chosen.get("reserve", "first-candidate"), chosen.get("headroom", "yarn-8804")
    )
    bounds = Bounds(**description.get("bounds", {}))
    conf = configuration_from_properties({k: str(v) for k, v in description["properties"].items()}, SOURCE)
    return build_world(conf, [PartitionSpec("")], nodes, apps, rules, bounds)


def generate_description(chooser: Chooser) -> dict[str, Any]:
    """A small world whose queue limits bind: two leaves sharing two or three nodes, each with
    its own maximum capacity, user-limit factor, minimum user-limit percent and AM share, and
    two or three applications asking for more than their queue's guarantee."""
    variant = chooser.pick(SOUND_VARIANTS)
    split = chooser.pick(((50, 50), (70, 30), (30, 70)))
    props: dict[str, str] = {
        "yarn.scheduler.minimum-allocation-mb": "1024",
        "yarn.scheduler.maximum-allocation-mb": "8192",
        "yarn.scheduler.maximum-allocation-vcores": "4",
        PREFIX + "schedule-asynchronously.enable": str(variant.asynchronous).lower(),
        PREFIX + "multi-node-placement-enabled": str(variant.multi_node).lower(),
        PREFIX + "reservations-continue-look-all-nodes": chooser.pick(("true", "false")),
        PREFIX + "root.queues": "a,b",
    }
    if variant.multi_node:
        policy = chooser.pick(("ResourceUsageMultiNodeLookupPolicy", "ResourceUsageRatioMultiNodeLookupPolicy"))
        props[PREFIX + "multi-node-sorting.policy"] = "p"
        props[PREFIX + "multi-node-sorting.policy.p.class"] = "org.example." + policy
    if chooser.integer(0, 1):
        props[PREFIX + "root.ordering-policy"] = "priority-utilization"
        props[PREFIX + "root.b.priority"] = str(chooser.integer(0, 1))
    for leaf, capacity in zip("ab", split):
        queue = f"{PREFIX}root.{leaf}."
        props[queue + "capacity"] = str(capacity)
        props[queue + "maximum-capacity"] = str(chooser.pick((100, capacity, min(100, capacity + 20))))
        props[queue + "user-limit-factor"] = str(chooser.pick((1, 2)))
        props[queue + "minimum-user-limit-percent"] = str(chooser.pick((100, 50)))
        props[queue + "maximum-am-resource-percent"] = str(chooser.pick((0.1, 0.3, 1.0)))
        props[queue + "ordering-policy"] = chooser.pick(("fifo", "fair"))
    if chooser.integer(0, 2) == 0:
        props["yarn.resourcemanager.scheduler.monitor.enable"] = "true"
        props[PREEMPTION + "monitoring_interval"] = "1000"
        props[PREEMPTION + "max_wait_before_kill"] = str(chooser.pick((1000, 2000)))
        props[PREEMPTION + "total_preemption_per_round"] = str(chooser.pick((0.5, 1.0)))
    nodes = [
        {"name": f"n{i}", "memory": 1024 * chooser.integer(3, 6), "vcores": chooser.integer(3, 6), "rack": f"/r{i % 2}"}
        for i in range(chooser.integer(2, 3))
    ]
    apps = [
        {
            "name": f"app{i}",
            "queue": f"root.{chooser.pick('ab')}",
            "user": chooser.pick(("u1", "u2")),
            "priority": chooser.integer(0, 1),
            "am": {"memory": 1024 * chooser.integer(1, 2), "vcores": 1},
            "requests": [
                {"priority": p, "memory": 1024 * chooser.integer(1, 3), "vcores": chooser.integer(1, 2)}
                for p in range(1, chooser.integer(1, 2) + 1)
            ],
        }
        for i in range(chooser.integer(2, 3))
    ]
    return {
        "properties": props,
        "nodes": nodes,
        "apps": apps,
        "variants": {"commit": variant.commit, "reserve": variant.reserve, "headroom": variant.headroom},
        "bounds": {
            "max_clock_ms": 6000,
            "tick_ms": 1000,
            "max_proposals": 2,
            "max_ask": 4,
            "max_containers": 16,
            "max_rereservations": 2,
            "node_churn": chooser.integer(0, 3) == 0,
        },
    }
