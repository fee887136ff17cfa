"""Case files for Hadoop's ``MockRM`` scheduler tests (``notation: mockrm``), replayed on the
scheduler model (:mod:`yarnspec.impl.scheduler`).

Such a test starts a whole ResourceManager (``MockRM``), registers nodes (``MockNM``), submits
applications, lets their masters ask for containers (``MockAM.allocate``), drives node
heartbeats (``CapacityScheduler.handle(NodeUpdateSchedulerEvent)``) and policy rounds
(``ProportionalCapacityPreemptionPolicy.editSchedule``) by hand, and asserts on what the
scheduler holds. The case lists the same calls as ``steps``; the runner builds a
:class:`~yarnspec.impl.scheduler.world.World` from ``conf``, ``nodes`` and ``apps`` and plays
each step as the model's labelled actions (``submit(app)``, ``heartbeat(node)``,
``launch(cN)``, ``ask(app, rK)``, ``tick``, ``monitor``). The format is ``docs/case-format.md``
(*The MockRM family*); the schema ``checks/schemas/mockrm-case.schema.json``.

What a step is in the model:

* ``launch_am``: ``MockRM.launchAndRegisterAM``: the application is submitted, the node's
  heartbeat must allocate its AM container there, and the AM runs.
* ``ask``: ``MockAM.allocate``: the request's outstanding count is set to ``containers``
  (Hadoop replaces the count), by the model's one-container ``ask``/``cancel`` steps.
* ``heartbeat``: one ``NodeUpdateSchedulerEvent`` per node, ``repeat`` times over the list. The
  model allocates at most one container per heartbeat, as Hadoop does for off-switch requests
  (``per-node-heartbeat.maximum-offswitch-assignments``, default 1); a heartbeat with nothing
  to allocate changes nothing.
* ``edit_schedule``: one policy round. The test calls ``editSchedule`` directly; the model's
  monitor runs once its interval has passed, so the clock is ticked (one tick is the
  monitoring interval) until it is due. With ``max_wait_before_kill`` 0 that is the harness's
  meaning: the round after a mark sends ``MARK_CONTAINER_FOR_KILLABLE``.

``preempted_containers`` counts what the model ended during a heartbeat or a policy round
(never an environment step): a queue's ``getAggregatePreemptedContainers`` (the leaf and every
ancestor, YARN-9300).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_int,
    as_list,
    as_object,
    as_str,
    child,
    is_explanatory,
    nothing_to_check,
    reject_unknown_keys,
    required,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.impl.config import getters
from yarnspec.impl.config.keys import MONITOR_ENABLE, PREEMPTION_MONITORING_INTERVAL
from yarnspec.impl.errors import InputError, NotModelled
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import apply_action, enabled, label, start
from yarnspec.impl.scheduler.allocation.allocate import heartbeat_proposal
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import configuration_from_properties
from yarnspec.impl.scheduler.inputs.specs import ANY, AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.monitor.killable import queue_killable
from yarnspec.impl.scheduler.monitor.scheduling_monitor import monitor_due
from yarnspec.impl.scheduler.state import SchedulerState, TrackedContainer
from yarnspec.impl.scheduler.world import World, build_world

_TOP = ("id", "notation", "source", "conf", "nodes", "apps", "steps", "ignored_upstream", "notes", "limits")
_NODE = ("name", "memory_mb", "vcores", "rack")
_APP = ("name", "queue", "user", "am_mb", "am_vcores", "requests")
_REQUEST = ("priority", "memory_mb", "vcores", "locality")
_LOCALITY = ("resource_name", "relax")
#: Each step's operation and the keys it takes (``op`` and explanations aside).
_OPS: dict[str, tuple[str, ...]] = {
    "launch_am": ("app", "node"),
    "ask": ("app", "request", "containers"),
    "heartbeat": ("nodes", "repeat"),
    "edit_schedule": ("repeat",),
    "remember_killable": ("queue", "as"),
    "expect": ("live_containers", "unallocated_mb", "killable", "to_preempt", "preempted_containers"),
}
_KILLABLE = ("queue", "count", "first_app", "includes")
#: The partition every case lives in (the tests use ``RMNodeLabelsManager.NO_LABEL``).
PARTITION = 0
DEFAULT_INTERVAL_MS = 3000


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay the case; raise :class:`ExpectationMismatch` at the first difference, or
    :class:`Unsupported` when it needs what the model does not have."""
    reject_unknown_keys(case, _TOP, "")
    conf = {
        key: _text(value, child("conf", key)) for key, value in as_object(required(case, "conf", ""), "conf").items()
    }
    nodes = [_node(raw, child("nodes", i)) for i, raw in enumerate(as_list(required(case, "nodes", ""), "nodes"))]
    node_names = {n.name for n in nodes}
    apps = [
        _app(raw, child("apps", i), node_names) for i, raw in enumerate(as_list(required(case, "apps", ""), "apps"))
    ]
    steps = tuple(_step(raw, child("steps", i)) for i, raw in enumerate(as_list(required(case, "steps", ""), "steps")))
    _check_size(case, nodes, steps)
    _check_references(steps, {a.name: len(a.requests) for a in apps}, node_names)
    if not any(step["op"] == "expect" for step in steps):
        raise nothing_to_check("no step is an expect")
    if "ignored_upstream" in case:
        why = as_str(case["ignored_upstream"], "ignored_upstream")
        raise Unsupported(f"upstream marks the method @Ignore ({why}): it asserts nothing upstream")
    for app, spec in zip(case["apps"], apps):
        _refuse_locality_sets(app, spec.name)
    world = _world(conf, nodes, apps, steps)
    _Replay(world).run(steps)
    return []


# -- size ---------------------------------------------------------------------------------------


#: What one ``edit_schedule`` round costs in model steps (measured: ten heartbeats' time).
ROUND_STEPS = 10


@dataclass(frozen=True)
class CaseLimits:
    """The most a MockRM case may ask the model to do, each raisable by the case's ``limits``
    object (``"limits": {"nodes": 5000}``): ``nodes`` registered, ``containers`` one ``ask``
    sets (the model's container ids), and ``steps``, the model steps the case plays (an
    estimate: a container asked or cancelled is one, a heartbeat one per node and repeat, a
    policy round :data:`ROUND_STEPS`, its ticks and the policy). A model step costs about a
    millisecond per node, so the case's work is ``steps x nodes``, limited by ``work`` (the
    defaults keep a replay under half a minute on one core; the shipped cases need under 100)."""

    nodes: int = 200
    containers: int = 10_000
    steps: int = 2_000
    work: int = 20_000


def _check_size(case: Mapping[str, Any], nodes: Sequence[NodeSpec], steps: Sequence[Mapping[str, Any]]) -> None:
    """Refuse a case whose size makes the replay absurd, before the world is built, with the
    estimate, the limit and the ``limits`` key that raises it."""
    limits = _limits(case)
    _at_most("nodes", len(nodes), limits.nodes, "nodes", "nodes")
    played = 0
    for step in steps:
        if step["op"] == "ask":
            _at_most(
                child(step["place"], "containers"),
                step["containers"],
                limits.containers,
                "containers in one ask",
                "containers",
            )
            played += step["containers"]
        elif step["op"] == "heartbeat":
            played += step["repeat"] * len(step["nodes"])
        elif step["op"] == "edit_schedule":
            played += step["repeat"] * ROUND_STEPS
        else:
            played += 1
        where = (
            child(step["place"], "repeat")
            if "repeat" in step
            else child(step["place"], "containers")
            if step["op"] == "ask"
            else step["place"]
        )
        _at_most(where, played, limits.steps, "model steps up to here", "steps")
    _at_most("steps", played * max(len(nodes), 1), limits.work, "node-steps of work (model steps x nodes)", "work")


def _limits(case: Mapping[str, Any]) -> CaseLimits:
    if "limits" not in case:
        return CaseLimits()
    given = as_object(case["limits"], "limits")
    names = tuple(f.name for f in fields(CaseLimits))
    reject_unknown_keys(given, names, "limits")
    return CaseLimits(**{name: as_int(value, child("limits", name), minimum=1) for name, value in given.items()})


def _at_most(place: str, estimate: int, limit: int, what: str, key: str) -> None:
    if estimate > limit:
        raise CaseFormatError(
            place,
            f"the case asks for {estimate:,} {what}, more than the limit of {limit:,}, a replay that would not end "
            f'(if you mean it, raise it in the case: "limits": {{"{key}": ...}})',
        )


# -- reading ----------------------------------------------------------------------------------


def _text(value: Any, place: str) -> str:
    """A configuration value as Hadoop's ``Configuration`` holds it (text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise CaseFormatError(place, f"expected a string, number or boolean, found {type(value).__name__}")


def _node(raw: Any, place: str) -> NodeSpec:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, _NODE, place)
    name = as_str(required(entry, "name", place), child(place, "name"))
    memory = as_int(required(entry, "memory_mb", place), child(place, "memory_mb"), minimum=0)
    vcores = as_int(required(entry, "vcores", place), child(place, "vcores"), minimum=0)
    rack = as_str(entry.get("rack", "/default-rack"), child(place, "rack"))
    return NodeSpec(name, Resource.of(memory, vcores), rack=rack)


def _app(raw: Any, place: str, node_names: set[str]) -> AppSpec:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, _APP, place)
    name = as_str(required(entry, "name", place), child(place, "name"))
    am = Resource.of(
        as_int(required(entry, "am_mb", place), child(place, "am_mb"), minimum=1),
        as_int(entry.get("am_vcores", 1), child(place, "am_vcores"), minimum=0),
    )
    requests = tuple(
        _request(r, child(child(place, "requests"), i))
        for i, r in enumerate(as_list(entry.get("requests", []), child(place, "requests")))
    )
    user = as_str(entry.get("user", "user"), child(place, "user"))
    return AppSpec(name, as_str(required(entry, "queue", place), child(place, "queue")), am, requests, user=user)


def _request(raw: Any, place: str) -> RequestSpec:
    entry = as_object(raw, place)
    reject_unknown_keys(entry, _REQUEST, place)
    priority = as_int(required(entry, "priority", place), child(place, "priority"), minimum=1)
    capability = Resource.of(
        as_int(required(entry, "memory_mb", place), child(place, "memory_mb"), minimum=1),
        as_int(entry.get("vcores", 1), child(place, "vcores"), minimum=0),
    )
    levels = _locality(entry.get("locality", [{"resource_name": ANY}]), child(place, "locality"))
    name, relax = levels[0]
    return RequestSpec(priority, capability, locality=name, relax=relax)


def _locality(raw: Any, place: str) -> list[tuple[str, bool]]:
    """The request's resource names (``ResourceRequest`` per locality level, one scheduler key)."""
    levels = []
    for i, level in enumerate(as_list(raw, place)):
        entry = as_object(level, child(place, i))
        reject_unknown_keys(entry, _LOCALITY, child(place, i))
        name = as_str(required(entry, "resource_name", child(place, i)), child(child(place, i), "resource_name"))
        levels.append((name, as_bool(entry.get("relax", True), child(child(place, i), "relax"))))
    if not levels:
        raise CaseFormatError(place, "expected at least one resource name")
    return levels


def _refuse_locality_sets(raw_app: Mapping[str, Any], app: str) -> None:
    """UNSUPPORTED for a request asked at several locality levels: the model keeps one resource
    name per request and serves a relaxable one off-switch at once, without Hadoop's delay
    scheduling (``node-locality-delay``) or per-level ``relaxLocality`` (:mod:`~yarnspec.impl.scheduler.allocation.requests`)."""
    for i, request in enumerate(raw_app.get("requests", [])):
        levels = request.get("locality", [])
        if len(levels) > 1:
            names = ", ".join(
                f"{level['resource_name']}{'' if level.get('relax', True) else ' (relax false)'}" for level in levels
            )
            raise Unsupported(
                f"request {i + 1} of {app} asks at several locality levels under one scheduler key ({names}): "
                "the model keeps one resource name per request, has no delay scheduling (node-locality-delay) "
                "and no relaxLocality per level"
            )


def _step(raw: Any, place: str) -> Mapping[str, Any]:
    entry = as_object(raw, place)
    op = as_str(required(entry, "op", place), child(place, "op"))
    if op not in _OPS:
        raise CaseFormatError(child(place, "op"), f"expected one of {', '.join(_OPS)}, found {op!r}")
    reject_unknown_keys({k: v for k, v in entry.items() if not is_explanatory(k)}, ("op", *_OPS[op]), place)
    if op == "launch_am":
        return {"op": op, "place": place, "app": _name(entry, "app", place), "node": _name(entry, "node", place)}
    if op == "ask":
        return {
            "op": op, "place": place, "app": _name(entry, "app", place),
            "request": as_int(required(entry, "request", place), child(place, "request"), minimum=1),
            "containers": as_int(required(entry, "containers", place), child(place, "containers"), minimum=0),
        }  # fmt: skip
    if op == "heartbeat":
        nodes = [
            as_str(n, child(child(place, "nodes"), i))
            for i, n in enumerate(as_list(required(entry, "nodes", place), child(place, "nodes")))
        ]
        return {"op": op, "place": place, "nodes": nodes, "repeat": _repeat(entry, place)}
    if op == "edit_schedule":
        return {"op": op, "place": place, "repeat": _repeat(entry, place)}
    if op == "remember_killable":
        return {"op": op, "place": place, "queue": _name(entry, "queue", place), "as": _name(entry, "as", place)}
    return _expect(entry, place)


def _name(entry: Mapping[str, Any], key: str, place: str) -> str:
    return as_str(required(entry, key, place), child(place, key))


def _repeat(entry: Mapping[str, Any], place: str) -> int:
    return as_int(entry.get("repeat", 1), child(place, "repeat"), minimum=1)


def _counts(entry: Mapping[str, Any], key: str, place: str) -> dict[str, int]:
    table = as_object(entry.get(key, {}), child(place, key))
    return {name: as_int(value, child(child(place, key), name), minimum=0) for name, value in table.items()}


def _expect(entry: Mapping[str, Any], place: str) -> Mapping[str, Any]:
    checks: dict[str, Any] = {"op": "expect", "place": place}
    for key in ("live_containers", "unallocated_mb", "preempted_containers"):
        checks[key] = _counts(entry, key, place)
    if "to_preempt" in entry:
        checks["to_preempt"] = as_int(entry["to_preempt"], child(place, "to_preempt"), minimum=0)
    killable = []
    for i, raw in enumerate(as_list(entry.get("killable", []), child(place, "killable"))):
        where = child(child(place, "killable"), i)
        item = as_object(raw, where)
        reject_unknown_keys(item, _KILLABLE, where)
        killable.append({
            "place": where, "queue": _name(item, "queue", where),
            "count": as_int(required(item, "count", where), child(where, "count"), minimum=0),
            "first_app": as_str(item["first_app"], child(where, "first_app")) if "first_app" in item else None,
            "includes": as_str(item["includes"], child(where, "includes")) if "includes" in item else None,
        })  # fmt: skip
    checks["killable"] = killable
    if (
        not any(checks[key] for key in ("live_containers", "unallocated_mb", "preempted_containers", "killable"))
        and "to_preempt" not in checks
    ):
        raise CaseFormatError(place, "an expect step must assert something")
    return checks


def _check_references(steps: Sequence[Mapping[str, Any]], apps: Mapping[str, int], nodes: set[str]) -> None:
    """Every application, request, node and remembered set a step names exists (a format error
    at the step otherwise)."""
    remembered: set[str] = set()

    def known(name: str, names: Any, what: str, place: str) -> None:
        if name not in names:
            raise CaseFormatError(place, f"no {what} {name!r} (known: {', '.join(sorted(names)) or 'none'})")

    for step in steps:
        place = step["place"]
        if "app" in step:
            known(step["app"], apps, "application", child(place, "app"))
        if step["op"] == "ask" and step["request"] > apps[step["app"]]:
            raise CaseFormatError(
                child(place, "request"),
                f"{step['app']} has {apps[step['app']]} request(s), found request {step['request']}",
            )
        for node in [step["node"]] if "node" in step else step.get("nodes", []):
            known(node, nodes, "node", child(place, "node" if "node" in step else "nodes"))
        if step["op"] == "remember_killable":
            remembered.add(step["as"])
        for app in step.get("live_containers", {}):
            known(app, apps, "application", child(child(place, "live_containers"), app))
        for node in step.get("unallocated_mb", {}):
            known(node, nodes, "node", child(child(place, "unallocated_mb"), node))
        for item in step.get("killable", []):
            if item["first_app"] is not None:
                known(item["first_app"], apps, "application", child(item["place"], "first_app"))
            if item["includes"] is not None:
                known(item["includes"], remembered, "remembered killable set", child(item["place"], "includes"))


def _world(
    conf: Mapping[str, str], nodes: list[NodeSpec], apps: list[AppSpec], steps: Sequence[Mapping[str, Any]]
) -> World:
    """The world of the case: one tick is the monitoring interval, and the bounds let every
    step happen (asks up to the largest count, container ids and time without a limit that a
    test could reach)."""
    interval = getters.get_long(
        conf.get(PREEMPTION_MONITORING_INTERVAL, str(DEFAULT_INTERVAL_MS))
    )  # Configuration.getLong: 0x400 too
    if interval is None:
        raise CaseFormatError(
            child("conf", PREEMPTION_MONITORING_INTERVAL),
            f"expected a whole number of milliseconds (a Java long, decimal or 0x hexadecimal), found {conf[PREEMPTION_MONITORING_INTERVAL]!r}",
        )
    most = max([s["containers"] for s in steps if s["op"] == "ask"] + [1])
    bounds = Bounds(
        max_clock_ms=10**12, tick_ms=max(interval, 1), max_ask=most, max_containers=100_000, node_churn=False
    )
    try:
        return build_world(configuration_from_properties(dict(conf)), [PartitionSpec("")], nodes, apps, bounds=bounds)
    except InputError as exc:
        place = child("conf", exc.place) if exc.place.startswith("yarn.") else exc.place or "conf"
        raise CaseFormatError(place, exc.fault) from None
    except NotModelled as exc:
        raise Unsupported(str(exc)) from None


# -- replay -----------------------------------------------------------------------------------


@dataclass
class _Replay:
    """The model's state along the steps, with what the runner observes of it."""

    world: World
    state: SchedulerState = field(init=False)
    preempted: dict[int, int] = field(default_factory=dict)
    remembered: dict[str, frozenset[int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.state = start(self.world)

    def run(self, steps: Sequence[Mapping[str, Any]]) -> None:
        """Play every step in order."""
        for step in steps:
            getattr(self, "_" + step["op"])(step)

    # -- the model's actions

    def _take(self, text: str) -> bool:
        """Apply the enabled action labelled ``text``; ``False`` when none is."""
        chosen = [a for a in enabled(self.world, self.state) if label(self.world, a) == text]
        if not chosen:
            return False
        self.state = apply_action(self.world, self.state, chosen[0]).state
        return True

    def _scheduler_step(self, text: str) -> bool:
        """A heartbeat or a monitor round, counting the live containers it ends per queue."""
        before = {c.cid: c for c in self.state.containers if c.live}
        if not self._take(text):
            return False
        after = {c.cid for c in self.state.containers if c.live}
        for cid, container in before.items():
            if cid not in after and self.state.container(cid) is None:
                for queue in self.world.ancestors(self.world.apps[container.app].queue):
                    self.preempted[queue] = self.preempted.get(queue, 0) + 1
        return True

    def _heartbeat_node(self, node: str, place: str) -> None:
        if self._scheduler_step(f"heartbeat({node})"):
            return
        index = self._node(node)
        if heartbeat_proposal(self.world, self.state, index) is not None:
            raise CaseFormatError(
                place, f"heartbeat({node}) proposes an allocation the model's bounds do not let it commit"
            )

    # -- steps

    def _launch_am(self, step: Mapping[str, Any]) -> None:
        app = self._app(step["app"])
        if not self._take(f"submit({step['app']})"):
            raise CaseFormatError(child(step["place"], "app"), f"{step['app']} was submitted already")
        self._heartbeat_node(step["node"], step["place"])
        app_state = self.state.apps[app]
        am = self.state.container(app_state.am_container) if app_state is not None else None
        if am is None or am.node != self._node(step["node"]):
            where = "not allocated" if am is None else f"on {self.world.nodes[am.node].name}"
            raise ExpectationMismatch(
                step["place"], f"AM of {step['app']} allocated on {step['node']}", where, "launchAndRegisterAM"
            )
        self._take(f"launch(c{am.cid})")

    def _ask(self, step: Mapping[str, Any]) -> None:
        app = self._app(step["app"])
        request = step["request"]
        while True:
            app_state = self.state.apps[app]
            current = app_state.asks[request] if app_state is not None else 0
            if current == step["containers"]:
                return
            kind = "ask" if current < step["containers"] else "cancel"
            if not self._take(f"{kind}({step['app']}, r{request})"):
                raise CaseFormatError(step["place"], f"{step['app']} cannot {kind} now (its AM is not running)")

    def _heartbeat(self, step: Mapping[str, Any]) -> None:
        for _ in range(step["repeat"]):
            for node in step["nodes"]:
                self._heartbeat_node(node, step["place"])

    def _edit_schedule(self, step: Mapping[str, Any]) -> None:
        if self.world.settings.preemption is None:
            raise CaseFormatError(step["place"], f"edit_schedule needs the preemption monitor (conf: {MONITOR_ENABLE})")
        for _ in range(step["repeat"]):
            while not monitor_due(self.world, self.state):
                self._take("tick")
            self._scheduler_step("monitor")

    def _remember_killable(self, step: Mapping[str, Any]) -> None:
        self.remembered[step["as"]] = frozenset(
            c.cid for c in self._killable(step["queue"], child(step["place"], "queue"))
        )

    def _expect(self, step: Mapping[str, Any]) -> None:
        place = step["place"]
        for app, wanted in step["live_containers"].items():
            index = self._app(app)
            got = sum(1 for c in self.state.containers if c.app == index and c.live)
            _compare(child(child(place, "live_containers"), app), wanted, got, f"live containers of {app}")
        for node, wanted in step["unallocated_mb"].items():
            got = self.state.nodes[self._node(node)].free.memory
            _compare(child(child(place, "unallocated_mb"), node), wanted, got, f"unallocated memory of {node}")
        for item in step["killable"]:
            self._check_killable(item)
        if "to_preempt" in step:
            _compare(
                child(place, "to_preempt"),
                step["to_preempt"],
                len(self.state.marks),
                "the policy's containers to preempt",
            )
        for queue, wanted in step["preempted_containers"].items():
            index = self._queue(queue, child(child(place, "preempted_containers"), queue))
            _compare(
                child(child(place, "preempted_containers"), queue),
                wanted,
                self.preempted.get(index, 0),
                f"preempted containers of {queue}",
            )

    def _check_killable(self, item: Mapping[str, Any]) -> None:
        place = item["place"]
        found = self._killable(item["queue"], child(place, "queue"))
        _compare(child(place, "count"), item["count"], len(found), f"killable containers of {item['queue']}")
        if item["first_app"] is not None:
            first = self.world.apps[found[0].app].name if found else None
            _compare(child(place, "first_app"), item["first_app"], first, "application of the first killable container")
        if item["includes"] is not None:
            missing = sorted(self.remembered[item["includes"]] - {c.cid for c in found})
            _compare(
                child(place, "includes"),
                [],
                [f"c{cid}" for cid in missing],
                f"containers of {item['includes']!r} no longer killable",
            )

    # -- names

    def _killable(self, queue: str, place: str) -> list[TrackedContainer]:
        return queue_killable(self.world, self.state, self._queue(queue, place), PARTITION)

    def _queue(self, path: str, place: str) -> int:
        try:
            return self.world.queue_index(path)
        except KeyError:
            raise CaseFormatError(place, f"no queue {path!r} (give the queue's path, e.g. root.a)") from None

    def _app(self, name: str) -> int:
        return next(i for i, a in enumerate(self.world.apps) if a.name == name)

    def _node(self, name: str) -> int:
        return next(i for i, n in enumerate(self.world.nodes) if n.name == name)


def _compare(place: str, expected: object, actual: object, what: str) -> None:
    if expected != actual:
        raise ExpectationMismatch(place, expected, actual, what)
