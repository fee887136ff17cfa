"""Conformance runner for ``kind: allocator`` cases (YarnAllocatorSuite).

A case builds one allocator from ``input`` and replays ``steps[]`` of ``{op, args, expect}``.
Ops: ``update_resource_requests``, ``handle_allocated_containers``, ``request_total_executors``,
``kill_executor``, ``process_completed_containers``, ``advance_clock``, ``set_shutdown``,
``late_launch_callback`` (``container``, ``executor_id`` or both, naming the same launch),
``check``. Each step's ``expect`` is checked after the op. ``input.failures_validity_interval_ms``
is ``spark.executor.failuresValidityInterval`` in ms (it must agree with that conf key when both
are given).

Expectation keys and what they observe:

* ``num_executors_running``, ``num_executors_starting``, ``num_containers_pending_allocate``,
  ``num_executors_failed``, ``num_unexpected_container_release``, ``target_num_executors``;
* ``allocated_container_to_host``: the listed containers' hosts (``null`` = not in the map);
* ``containers_not_allocated``: none of the listed containers has an executor;
  ``hosts_not_allocated``: none of the listed hosts holds an allocated container;
* ``allocated_host_to_containers_contains``: each listed container is in its host's set;
  ``allocated_host_to_containers``: the whole map (hosts without containers are absent);
* ``matching_requests_at``: outstanding requests registered at each location;
* ``pending_requests``: the outstanding requests' node lists (``null`` = locality-free);
* ``released_containers``: containers handed back to YARN so far;
* ``running_executor_ids``;
* ``target_changed``: the return value of ``request_total_executors``;
* ``update_blacklist_call`` and ``update_blacklist_calls_include``: Mockito ``verify``
  semantics - each given call was made exactly once so far; ``update_blacklist_never_with_additions``:
  no call so far added any of the given hosts; ``update_blacklist_calls_so_far``: every call.

``order_sensitive: false`` compares lists as multisets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import fields as dataclass_fields
from dataclasses import replace
from typing import Any

from yarnspec.checks.conformance.case_fields import LONG_MAX, require_step_assertions, whole_number_text
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.checks.conformance.spark_placement import (
    CASE_METADATA_KEYS,
    At,
    Warnings,
    compare,
    impl_error_as_case_error,
    int_or,
    order_sensitive_of,
    ordered_counts,
    rack_resolver,
)
from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.allocator import (
    EXIT_STATUS_NAMES,
    AllocatorConfig,
    AllocatorVariant,
    ExclusionConfig,
    YarnAllocator,
)
from yarnspec.impl.spark.hints import PlacementHints
from yarnspec.impl.spark.resource_manager import AllocatedContainer, Capability, ContainerStatus, ExclusionUpdate

_INPUT_KEYS = {
    "initial_target_executors",
    "executor_cores",
    "executor_memory_mb",
    "container_resource_from_yarn",
    "rack_resolver",
    "launch_containers",
    "executor_id_start",
    "resource_profile_id",
    "conf",
    "exit_status_names",
    "am_client",
    "task_cpus",
    "variant",
    "clock_start_ms",
    "failures_validity_interval_ms",
}

# --- configuration keys --------------------------------------------------------------------------

_EXCLUDE_ENABLED = (
    "spark.yarn.executor.launch.excludeOnFailure.enabled",
    "spark.yarn.blacklist.executor.launch.blacklisting.enabled",
)
_MAX_FAILED_PER_NODE = (
    "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
    "spark.blacklist.application.maxFailedExecutorsPerNode",
)
_EXCLUDE_TIMEOUT = ("spark.excludeOnFailure.timeout", "spark.blacklist.timeout")
_EXCLUDE_NODES = ("spark.yarn.exclude.nodes",)
_VALIDITY = ("spark.executor.failuresValidityInterval", "spark.yarn.executor.failuresValidityInterval")
_OVERHEAD = ("spark.executor.memoryOverhead", "spark.yarn.executor.memoryOverhead")
_TASK_CPUS = ("spark.task.cpus",)
_NODE_LABEL = ("spark.yarn.executor.nodeLabelExpression",)
_KNOWN_CONF = set(
    _EXCLUDE_ENABLED
    + _MAX_FAILED_PER_NODE
    + _EXCLUDE_TIMEOUT
    + _EXCLUDE_NODES
    + _VALIDITY
    + _OVERHEAD
    + _TASK_CPUS
    + _NODE_LABEL
)

_TIME_UNITS_MS = {"us": 0.001, "ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}
_SIZE_UNITS_MB = {"k": 1 / 1024, "kb": 1 / 1024, "m": 1, "mb": 1, "g": 1024, "gb": 1024, "t": 1024**2, "tb": 1024**2}


def _parse_with_unit(at: At, units: Mapping[str, float], default_unit: str) -> int:
    """A Spark time or size string (``"100s"``, ``"1h"``, ``"512m"``) or a bare number in the
    key's default unit."""
    if isinstance(at.value, int) and not isinstance(at.value, bool):
        return at.integer(0)
    match = re.fullmatch(r"\s*([0-9]{1,19})\s*([a-zA-Z]*)\s*", at.text())
    unit = match.group(2).lower() if match else ""
    if match is None or (unit and unit not in units):
        raise at.fault(f"expected a number with an optional unit ({', '.join(units)}), found {at.value!r}")
    value = int(int(match.group(1)) * units[unit or default_unit])
    if value > LONG_MAX:
        raise at.fault(f"{at.value!r} is beyond a Java long")
    return value


def _conf_bool(at: At) -> bool:
    if isinstance(at.value, bool):
        return at.value
    text = at.text().strip().lower()
    if text not in ("true", "false"):
        raise at.fault(f"expected true or false, found {at.value!r}")
    return text == "true"


def _conf_int(at: At) -> int:
    if isinstance(at.value, int):
        return at.integer()
    value = whole_number_text(at.text(), -(2**31), 2**31 - 1)
    if value is None:
        raise at.fault(f"expected an integer (a Java int), found {at.value!r}")
    return value


def _conf_value(conf: dict[str, At], keys: tuple[str, ...]) -> At | None:
    """The value under the current key or its older name (the first one present)."""
    present = [conf[key] for key in keys if key in conf]
    return present[0] if present else None


def _validity_ms(direct: At | None, from_conf: At | None) -> int | None:
    """``spark.executor.failuresValidityInterval`` in ms: the input's
    ``failures_validity_interval_ms`` when given (it must agree with the conf key when both
    are), else the conf key, else none."""
    conf_ms = _parse_with_unit(from_conf, _TIME_UNITS_MS, "ms") if from_conf else None
    if direct is None:
        return conf_ms
    direct_ms = direct.integer(0)
    if conf_ms is not None and conf_ms != direct_ms:
        raise direct.fault(f"{direct_ms} ms disagrees with the conf's failures validity interval ({conf_ms} ms)")
    return direct_ms


def _variant(at: At | None) -> AllocatorVariant:
    """``input.variant``: ``{field: value}`` over :class:`AllocatorVariant`, or ``"oldest"``."""
    if at is None:
        return AllocatorVariant()
    if at.value == "oldest":
        return AllocatorVariant.oldest()
    if at.value == "current":
        return AllocatorVariant()
    members = {f.name: f for f in dataclass_fields(AllocatorVariant)}
    chosen: dict[str, Any] = {}
    default = AllocatorVariant()
    for name, item in at.only(members, "variant").items():
        current = getattr(default, name)
        if isinstance(current, bool):
            chosen[name] = item.flag()
        else:
            enum_type = type(current)
            try:
                chosen[name] = enum_type(item.text())
            except ValueError:
                names = [member.value for member in enum_type]
                raise item.fault(f"expected one of {names}, found {item.value!r}") from None
    return replace(default, **chosen)


def build_allocator(inp: At) -> tuple[YarnAllocator, Capability]:
    """The allocator a case's ``input`` describes, and the container size YARN hands out."""
    fields = inp.only(_INPUT_KEYS, "allocator input")
    conf = fields["conf"].only(_KNOWN_CONF, "conf") if "conf" in fields else {}
    if "exit_status_names" in fields:
        for name, item in fields["exit_status_names"].obj().items():
            if EXIT_STATUS_NAMES.get(name) != item.integer():
                raise item.fault(f"YARN's {name} is {EXIT_STATUS_NAMES.get(name)}, the case says {item.value!r}")
    enabled = _conf_value(conf, _EXCLUDE_ENABLED)
    max_failed = _conf_value(conf, _MAX_FAILED_PER_NODE)
    timeout = _conf_value(conf, _EXCLUDE_TIMEOUT)
    nodes = _conf_value(conf, _EXCLUDE_NODES)
    validity = _conf_value(conf, _VALIDITY)
    overhead = _conf_value(conf, _OVERHEAD)
    task_cpus = _conf_value(conf, _TASK_CPUS)
    label = _conf_value(conf, _NODE_LABEL)
    defaults = ExclusionConfig()
    exclusion = ExclusionConfig(
        enabled=_conf_bool(enabled) if enabled else defaults.enabled,
        max_failures_per_node=_conf_int(max_failed) if max_failed else defaults.max_failures_per_node,
        timeout_ms=_parse_with_unit(timeout, _TIME_UNITS_MS, "ms") if timeout else defaults.timeout_ms,
        always_excluded=frozenset(n.strip() for n in nodes.text().split(",") if n.strip()) if nodes else frozenset(),
    )
    try:
        config = AllocatorConfig(
            executor_cores=int_or(fields.get("executor_cores"), 1, 1),
            executor_memory_mb=int_or(fields.get("executor_memory_mb"), 1024, 0),
            memory_overhead_mb=_parse_with_unit(overhead, _SIZE_UNITS_MB, "m") if overhead else None,
            task_cpus=_conf_int(task_cpus) if task_cpus else int_or(fields.get("task_cpus"), 1, 1),
            resource_profile_id=int_or(fields.get("resource_profile_id"), 0, 0),
            node_label=label.text() if label else None,
            launch_containers=fields["launch_containers"].flag() if "launch_containers" in fields else False,
            rack_resolver=rack_resolver(fields["rack_resolver"])
            if "rack_resolver" in fields
            else AllocatorConfig().rack_resolver,
            exclusion=exclusion,
            failures_validity_interval_ms=_validity_ms(fields.get("failures_validity_interval_ms"), validity),
            variant=_variant(fields.get("variant")),
        )
        allocator = YarnAllocator.create(
            config,
            initial_target=inp.key("initial_target_executors").integer(0),
            executor_id_start=int_or(fields.get("executor_id_start"), 0, 0),
            clock_ms=int_or(fields.get("clock_start_ms"), 0, 0),
        )
    except InputError as exc:
        raise impl_error_as_case_error(exc, inp.place) from None
    container_size = config.request_capability
    if "container_resource_from_yarn" in fields:
        size = fields["container_resource_from_yarn"].only({"memory_mb", "vcores"}, "container resource")
        container_size = Capability(
            int_or(size.get("memory_mb"), container_size.memory_mb, 0),
            int_or(size.get("vcores"), container_size.vcores, 0),
        )
    return allocator, container_size


# --- steps ---------------------------------------------------------------------------------------


class _Replay:
    """One case's replay: the allocator so far and the facts a step's expectations may read."""

    def __init__(self, allocator: YarnAllocator, container_size: Capability, order_sensitive: bool) -> None:
        self.allocator = allocator
        self.container_size = container_size
        self.order_sensitive = order_sensitive
        self.target_changed: bool | None = None
        self.warnings = Warnings()

    def step(self, step: At) -> None:
        parts = step.only({"op", "args", "expect"}, "step")
        op = step.key("op").text()
        args = parts["args"] if "args" in parts else At({}, step.child("args"))
        handler = _OPS.get(op)
        if handler is None:
            raise Unsupported(f"{step.child('op')}: op {op!r} is not interpreted by the allocator runner")
        self.target_changed = None
        try:
            handler(self, args)
        except InputError as exc:
            raise impl_error_as_case_error(exc, args.place) from None
        if "expect" in parts:
            _check_expect(self, parts["expect"])

    # ops

    def update_resource_requests(self, args: At) -> None:
        args.only((), "update_resource_requests args")
        self.allocator = self.allocator.update_resource_requests()

    def handle_allocated_containers(self, args: At) -> None:
        fields = args.only({"containers"}, "handle_allocated_containers args")
        if "containers" not in fields:
            raise args.fault("missing required field 'containers'")
        containers = []
        for item in fields["containers"].items():
            spec = item.only({"id", "host", "memory_mb", "vcores", "priority"}, "container")
            size = self.container_size
            containers.append(
                AllocatedContainer(
                    container_id=item.key("id").text(),
                    host=item.key("host").text(),
                    capability=Capability(
                        int_or(spec.get("memory_mb"), size.memory_mb, 0), int_or(spec.get("vcores"), size.vcores, 0)
                    ),
                    priority=int_or(spec.get("priority"), self.allocator.config.priority, 0),
                )
            )
        self.allocator = self.allocator.handle_allocated_containers(containers)

    def request_total_executors(self, args: At) -> None:
        fields = args.only(
            {"total", "num_locality_aware_tasks", "host_to_local_task_count", "excluded_nodes"},
            "request_total_executors args",
        )
        total_at = args.key("total")
        total = None if total_at.value is None else total_at.integer(0)
        hints = PlacementHints(
            int_or(fields.get("num_locality_aware_tasks"), 0, 0),
            ordered_counts(fields["host_to_local_task_count"]) if "host_to_local_task_count" in fields else (),
        )
        excluded = fields["excluded_nodes"].texts() if "excluded_nodes" in fields else []
        self.allocator, self.target_changed = self.allocator.request_total_executors(total, hints, excluded)

    def kill_executor(self, args: At) -> None:
        args.only({"executor_id"}, "kill_executor args")
        self.allocator = self.allocator.kill_executor(_executor_id(args.key("executor_id")))

    def process_completed_containers(self, args: At) -> None:
        args.only({"statuses"}, "process_completed_containers args")
        statuses = []
        for item in args.key("statuses").items():
            spec = item.only(
                {"container", "state", "exit_status", "exit_status_name", "diagnostics"}, "container status"
            )
            exit_status = item.key("exit_status").integer()
            if "exit_status_name" in spec:
                name = spec["exit_status_name"].text()
                if EXIT_STATUS_NAMES.get(name) != exit_status:
                    raise spec["exit_status_name"].fault(
                        f"{name!r} is exit status {EXIT_STATUS_NAMES.get(name)}, not {exit_status}"
                    )
            state = spec["state"].text() if "state" in spec else "COMPLETE"
            if state != "COMPLETE":
                raise Unsupported(f"{spec['state'].place}: only COMPLETE statuses are interpreted, found {state!r}")
            diagnostics = spec["diagnostics"].text() if "diagnostics" in spec else ""
            statuses.append(ContainerStatus(item.key("container").text(), exit_status, state, diagnostics))
        self.allocator = self.allocator.process_completed_containers(statuses)

    def advance_clock(self, args: At) -> None:
        args.only({"ms"}, "advance_clock args")
        self.allocator = self.allocator.advance_clock(args.key("ms").integer(0))

    def set_shutdown(self, args: At) -> None:
        fields = args.only({"value"}, "set_shutdown args")
        self.allocator = self.allocator.set_shutdown(fields["value"].flag() if "value" in fields else True)

    def late_launch_callback(self, args: At) -> None:
        """The launch in ``container``, or of ``executor_id``, finishes; with both, they must
        name the same launch."""
        fields = args.only({"container", "executor_id", "succeeded"}, "late_launch_callback args")
        if "container" not in fields and "executor_id" not in fields:
            raise args.fault("give 'container', 'executor_id' or both")
        if "executor_id" in fields:
            executor_id = _executor_id(fields["executor_id"])
            launch = next((launch for launch in self.allocator.launches if launch.executor_id == executor_id), None)
            if launch is None:
                raise fields["executor_id"].fault(f"no launch of executor {executor_id!r} is in progress")
            container = launch.container_id
            if "container" in fields and fields["container"].text() != container:
                raise fields["container"].fault(
                    f"executor {executor_id!r} is launching in container {container!r}, not {fields['container'].text()!r}"
                )
        else:
            container = fields["container"].text()
        succeeded = fields["succeeded"].flag() if "succeeded" in fields else True
        self.allocator = self.allocator.launch_finished(container, succeeded)

    def check(self, args: At) -> None:
        """An op that changes nothing: its step only carries expectations."""
        args.only((), "check args")


def _executor_id(at: At) -> str:
    """Executor ids are strings in Spark; a case may write them as numbers."""
    if isinstance(at.value, int) and not isinstance(at.value, bool):
        return str(at.value)
    return at.text()


def _calls_json(calls: tuple[ExclusionUpdate, ...]) -> list[dict[str, list[str]]]:
    return [{"additions": list(c.additions), "removals": list(c.removals)} for c in calls]


def _call_of(at: At) -> dict[str, list[str]]:
    fields = at.only({"additions", "removals"}, "updateBlacklist call")
    return {
        "additions": fields["additions"].texts() if "additions" in fields else [],
        "removals": fields["removals"].texts() if "removals" in fields else [],
    }


def _exactly_once(replay: _Replay, at: At) -> None:
    """Mockito's ``verify(client).updateBlacklist(additions, removals)``: one such call so far."""
    wanted = _call_of(at)
    calls = _calls_json(replay.allocator.client.exclusion_calls)
    hits = 0
    for call in calls:
        try:
            compare(at.place, wanted, call, replay.order_sensitive)
            hits += 1
        except ExpectationMismatch:
            pass
    if hits != 1:
        raise ExpectationMismatch(
            at.place, f"exactly one call {wanted}", f"{hits} such calls among {calls}", "updateBlacklist"
        )


def _expect_scalar(get: Callable[[YarnAllocator], Any]) -> Callable[[_Replay, At], None]:
    def check(replay: _Replay, at: At) -> None:
        compare(at.place, at.value, get(replay.allocator), replay.order_sensitive)

    return check


def _expect_container_hosts(replay: _Replay, at: At) -> None:
    actual = replay.allocator.allocated_container_to_host
    for cid, item in at.obj().items():
        expected = None if item.value is None else item.text()
        compare(item.place, expected, actual.get(cid), replay.order_sensitive, f"host of container {cid}")


def _expect_host_contains(replay: _Replay, at: At) -> None:
    actual = replay.allocator.allocated_host_to_containers
    for host, item in at.obj().items():
        held = actual.get(host, ())
        for cid in item.items():
            if cid.text() not in held:
                raise ExpectationMismatch(cid.place, f"{cid.value} among {host}'s containers", list(held))


def _expect_host_map(replay: _Replay, at: At) -> None:
    actual = {host: list(ids) for host, ids in replay.allocator.allocated_host_to_containers.items()}
    compare(at.place, at.value, actual, replay.order_sensitive, "allocated host -> containers")


def _expect_matching_at(replay: _Replay, at: At) -> None:
    allocator = replay.allocator
    for location, item in at.obj().items():
        found = allocator.client.matching_requests(
            allocator.config.priority, location, allocator.config.request_capability
        )
        compare(item.place, item.integer(0), len(found), replay.order_sensitive, f"requests at {location}")


def _expect_pending(replay: _Replay, at: At) -> None:
    actual = [None if r.nodes is None else list(r.nodes) for r in replay.allocator.pending_requests]
    compare(at.place, at.value, actual, replay.order_sensitive, "outstanding requests' nodes")


def _expect_target_changed(replay: _Replay, at: At) -> None:
    if replay.target_changed is None:
        raise at.fault("'target_changed' is only defined after request_total_executors")
    compare(at.place, at.flag(), replay.target_changed, replay.order_sensitive)


def _expect_calls_include(replay: _Replay, at: At) -> None:
    for item in at.items():
        _exactly_once(replay, item)


def _expect_never_added(replay: _Replay, at: At) -> None:
    hosts = set(at.texts())
    for index, call in enumerate(replay.allocator.client.exclusion_calls):
        added = hosts.intersection(call.additions)
        if added:
            raise ExpectationMismatch(
                at.place, "no updateBlacklist call adding these hosts", f"call {index} added {sorted(added)}"
            )


def _expect_calls_so_far(replay: _Replay, at: At) -> None:
    calls = [_call_of(item) for item in at.items()]
    compare(at.place, calls, _calls_json(replay.allocator.client.exclusion_calls), replay.order_sensitive)


def _expect_containers_not_allocated(replay: _Replay, at: At) -> None:
    """Each listed container got no executor (it is not in the allocated-container map)."""
    allocated = replay.allocator.allocated_container_to_host
    for item in at.items():
        if item.text() in allocated:
            raise ExpectationMismatch(
                item.place, f"{item.value} not allocated", f"allocated on {allocated[item.text()]}"
            )


def _expect_hosts_not_allocated(replay: _Replay, at: At) -> None:
    """Each listed host holds no allocated container."""
    held = replay.allocator.allocated_host_to_containers
    for item in at.items():
        if held.get(item.text()):
            raise ExpectationMismatch(item.place, f"no container on {item.value}", list(held[item.text()]))


_EXPECTATIONS: dict[str, Callable[[_Replay, At], None]] = {
    "num_executors_running": _expect_scalar(lambda a: a.num_executors_running),
    "num_executors_starting": _expect_scalar(lambda a: a.num_executors_starting),
    "num_containers_pending_allocate": _expect_scalar(lambda a: a.num_containers_pending_allocate),
    "num_executors_failed": _expect_scalar(lambda a: a.num_executors_failed),
    "num_unexpected_container_release": _expect_scalar(lambda a: a.unexpected_releases),
    "target_num_executors": _expect_scalar(lambda a: a.target),
    "released_containers": _expect_scalar(lambda a: list(a.client.releases)),
    "running_executor_ids": _expect_scalar(lambda a: list(a.running_executor_ids)),
    "allocated_container_to_host": _expect_container_hosts,
    "allocated_host_to_containers_contains": _expect_host_contains,
    "allocated_host_to_containers": _expect_host_map,
    "matching_requests_at": _expect_matching_at,
    "pending_requests": _expect_pending,
    "target_changed": _expect_target_changed,
    "update_blacklist_call": _exactly_once,
    "update_blacklist_calls_include": _expect_calls_include,
    "update_blacklist_never_with_additions": _expect_never_added,
    "update_blacklist_calls_so_far": _expect_calls_so_far,
    "containers_not_allocated": _expect_containers_not_allocated,
    "hosts_not_allocated": _expect_hosts_not_allocated,
}


def _check_expect(replay: _Replay, expect: At) -> None:
    """Check one step's expectations; ``derived`` ones only warn."""
    for name, item in expect.only(_EXPECTATIONS, "allocator expect").items():
        if name == "derived":
            _check_derived_block(replay, item)
        elif name in _EXPECTATIONS:
            _EXPECTATIONS[name](replay, item)


def _check_derived_block(replay: _Replay, block: At) -> None:
    """A ``derived`` block holds expectation keys whose value the transcriber computed; each is
    checked like an assertion but a difference (or a malformed value) is only a warning."""
    for name, item in block.obj().items():
        check = _EXPECTATIONS.get(name)
        if check is None:
            replay.warnings.note(f"{item.place}: derived value not computed by the model, not checked")
            continue
        try:
            check(replay, item)
        except (ExpectationMismatch, CaseFormatError) as exc:
            replay.warnings.note(f"derived value differs (not an upstream assertion): {exc}")


_OPS: dict[str, Callable[[_Replay, At], None]] = {
    "update_resource_requests": _Replay.update_resource_requests,
    "handle_allocated_containers": _Replay.handle_allocated_containers,
    "request_total_executors": _Replay.request_total_executors,
    "kill_executor": _Replay.kill_executor,
    "process_completed_containers": _Replay.process_completed_containers,
    "advance_clock": _Replay.advance_clock,
    "set_shutdown": _Replay.set_shutdown,
    "late_launch_callback": _Replay.late_launch_callback,
    "check": _Replay.check,
}


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay one ``kind: allocator`` case; return its warnings or raise (see the runner)."""
    root = At(dict(case), "")
    members = root.only(CASE_METADATA_KEYS | {"input", "steps", "expect"}, "case")
    allocator, container_size = build_allocator(root.key("input"))
    replay = _Replay(allocator, container_size, order_sensitive_of(root))
    steps = root.key("steps").items()
    if not steps:
        raise root.key("steps").fault("an allocator case needs at least one step")
    for step in steps:
        replay.step(step)
    if "expect" in members:
        _check_expect(replay, members["expect"])
    require_step_assertions(case)
    return replay.warnings.items
