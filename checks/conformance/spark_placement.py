"""Conformance runner for ``kind: placement`` cases (and the small case readers that the
allocator runner, :mod:`.spark_allocator`, shares).

Two shapes of placement case exist (``../shared/conformance/README.md``):

* one-shot: ``input`` holds the arguments of ``localityOfRequestedContainers``; ``expect.nodes``
  (one entry per container, ``null`` = no preference) or property checks (``completes``,
  ``result_length``, ``every_node_list_subset_of_hosts_with_positive_task_count``);
* driver hints: ``input.stages`` holds each stage's per-task preference lists and ``steps``
  submit and complete stages, each expecting ``num_locality_aware_tasks`` and
  ``host_to_local_task_count`` (ExecutorAllocationManagerSuite).

Keys under ``derived`` and keys named ``notes``, ``comment`` or ending ``_note`` never decide the
verdict; a mismatch on them comes back as a warning.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.conformance.case_fields import LONG_MAX, LONG_MIN, nothing_to_check, require_step_assertions
from yarnspec.checks.conformance.outcome import CaseFormatError, ExpectationMismatch, Unsupported
from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.allocator import AllocatorConfig, YarnAllocator
from yarnspec.impl.spark.hints import HintTracker, PlacementHints, StageAttempt
from yarnspec.impl.spark.placement import (
    ContainerLocalityPreferences,
    PlacementInput,
    PlacementPlan,
    plan_placement,
)
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.impl.spark.resource_manager import AllocatedContainer

# ---------------------------------------------------------------------------------------------
# Reading a case: every value travels with its JSON place.
# ---------------------------------------------------------------------------------------------

#: Top-level keys every Spark case may carry besides its input, steps and expectations.
CASE_METADATA_KEYS = frozenset({"id", "source", "kind", "order_sensitive", "description", "title"})


def is_explanatory(key: str) -> bool:
    """Keys that explain but are not upstream assertions (README, "Rules common to both")."""
    return key == "derived" or key in ("notes", "comment") or key.endswith("_note")


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


@dataclass(frozen=True)
class At:
    """A JSON value and its place in the case (``input.steps[2].args.total``)."""

    value: Any
    place: str

    def child(self, key: str | int) -> str:
        """The place of a member or element."""
        if isinstance(key, int):
            return f"{self.place}[{key}]"
        return f"{self.place}.{key}" if self.place else key

    def fault(self, fault: str) -> CaseFormatError:
        """A :class:`CaseFormatError` at this place."""
        return CaseFormatError(self.place or "(top level)", fault)

    def obj(self) -> dict[str, At]:
        """The members of an object."""
        if not isinstance(self.value, dict):
            raise self.fault(f"expected an object, found {_type_name(self.value)}")
        return {str(key): At(item, self.child(str(key))) for key, item in self.value.items()}

    def items(self) -> list[At]:
        """The elements of an array."""
        if not isinstance(self.value, list):
            raise self.fault(f"expected an array, found {_type_name(self.value)}")
        return [At(item, self.child(index)) for index, item in enumerate(self.value)]

    def key(self, name: str) -> At:
        """A required member."""
        members = self.obj()
        if name not in members:
            raise self.fault(f"missing required field {name!r}")
        return members[name]

    def opt(self, name: str) -> At | None:
        """An optional member (``None`` when absent)."""
        return self.obj().get(name)

    def integer(self, minimum: int | None = None, maximum: int = LONG_MAX) -> int:
        """An integer (a JSON number without fraction; booleans are refused) within a Java
        long, at least ``minimum`` and at most ``maximum`` when given."""
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer() and LONG_MIN <= value <= LONG_MAX:
                value = int(value)
            else:
                raise self.fault(f"expected an integer (a Java long), found {_type_name(self.value)} {self.value!r}")
        if not LONG_MIN <= value <= maximum:
            raise self.fault(f"must be <= {maximum}, found {value}")
        if minimum is not None and value < minimum:
            raise self.fault(f"must be >= {minimum}, found {value}")
        return value

    def text(self) -> str:
        """A string."""
        if not isinstance(self.value, str):
            raise self.fault(f"expected a string, found {_type_name(self.value)}")
        return self.value

    def flag(self) -> bool:
        """A boolean."""
        if not isinstance(self.value, bool):
            raise self.fault(f"expected true or false, found {_type_name(self.value)}")
        return self.value

    def texts(self) -> list[str]:
        """An array of strings."""
        return [item.text() for item in self.items()]

    def only(self, allowed: Iterable[str], what: str) -> dict[str, At]:
        """The members of an object whose keys are all understood; explanatory keys are always
        allowed, any other unknown key makes the case UNSUPPORTED (a field we cannot interpret)."""
        members = self.obj()
        known = set(allowed)
        for name in members:
            if name not in known and not is_explanatory(name):
                raise Unsupported(f"{self.child(name)}: {what} field {name!r} is not interpreted by this runner")
        return members


def int_or(at: At | None, default: int, minimum: int | None = None) -> int:
    """An optional integer member's value."""
    return default if at is None else at.integer(minimum)


def ordered_counts(at: At) -> tuple[tuple[str, int], ...]:
    """A host -> count map written either as an object or as an ordered ``[[host, n], ...]``
    list (the README's form for hint maps, whose order matters)."""
    if isinstance(at.value, dict):
        return tuple((name, item.integer(0)) for name, item in at.obj().items())
    pairs = []
    seen: set[str] = set()
    for item in at.items():
        entry = item.items()
        if len(entry) != 2:
            raise item.fault("expected a [host, count] pair")
        host = entry[0].text()
        if host in seen:
            raise entry[0].fault(f"host {host!r} appears twice")
        seen.add(host)
        pairs.append((host, entry[1].integer(0)))
    return tuple(pairs)


def rack_resolver(at: At) -> RackResolver:
    """``rack_resolver``: ``{host: rack, "*": default rack}``."""
    return RackResolver.from_mapping({name: item.text() for name, item in at.obj().items()})


def impl_error_as_case_error(exc: InputError, base: str) -> CaseFormatError:
    """An impl-level :class:`InputError` (raised by a model's own validation) as a case fault,
    its place prefixed with the case place it came from."""
    place = f"{base}.{exc.place}" if exc.place else base
    return CaseFormatError(place, exc.fault)


# ---------------------------------------------------------------------------------------------
# Comparing: the first difference raises, explanatory differences become warnings.
# ---------------------------------------------------------------------------------------------


def _canonical(value: Any, order_sensitive: bool) -> Any:
    """A comparable form: tuples for lists, and sorted lists when order does not matter."""
    if isinstance(value, Mapping):
        return {str(k): _canonical(v, order_sensitive) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_canonical(v, order_sensitive) for v in value]
        if not order_sensitive:
            items.sort(key=repr)
        return tuple(items)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def compare(place: str, expected: Any, actual: Any, order_sensitive: bool, what: str = "") -> None:
    """Raise :class:`ExpectationMismatch` at ``place`` when ``actual`` differs from ``expected``.

    Lists compare as sequences when ``order_sensitive`` and as multisets otherwise; objects as
    maps; numbers by value.
    """
    fault = _kind_fault(expected, actual)
    if fault is not None:
        raise CaseFormatError(place, fault)
    if _canonical(expected, order_sensitive) != _canonical(actual, order_sensitive):
        raise ExpectationMismatch(place, expected, actual, what)


def _kind(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return _type_name(value)


def _kind_fault(expected: Any, actual: Any) -> str | None:
    """Why ``expected`` cannot be a value of the observed figure's JSON type (a malformed
    expectation, not a mismatch), or ``None``. ``null`` fits anywhere; array elements must
    have a type the observed array holds."""
    if expected is None or actual is None:
        return None
    if _kind(expected) != _kind(actual):
        return f"expected {_kind(actual)} (the type of what is checked), found {_kind(expected)} {expected!r}"
    if isinstance(expected, (list, tuple)) and actual:
        kinds = {_kind(item) for item in actual if item is not None}
        for item in expected:
            if item is not None and kinds and _kind(item) not in kinds:
                return f"expected an array of {' or '.join(sorted(kinds))}, found an element {item!r}"
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key, item in expected.items():
            fault = _kind_fault(item, actual.get(key))
            if fault is not None:
                return f"[{key!r}]: {fault}"
    return None


class Warnings:
    """Collects warnings: mismatches on explanatory keys and notes about the replay."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def note(self, text: str) -> None:
        """Record a free-form warning."""
        self.items.append(text)

    def check(self, place: str, expected: Any, actual: Any, order_sensitive: bool) -> None:
        """Compare an explanatory value; a difference becomes a warning, never a failure."""
        try:
            compare(place, expected, actual, order_sensitive)
        except (ExpectationMismatch, CaseFormatError) as exc:
            self.items.append(f"derived value differs (not an upstream assertion): {exc}")


def check_derived(
    block: At, observed: Mapping[str, Callable[[], Any]], warnings: Warnings, order_sensitive: bool
) -> None:
    """Compare every key of a ``derived`` block that the model can compute; others are noted."""
    for name, item in block.obj().items():
        produce = observed.get(name)
        if produce is None:
            warnings.note(f"{item.place}: derived value not computed by the model, not checked")
        else:
            warnings.check(item.place, item.value, produce(), order_sensitive)


def order_sensitive_of(case: At) -> bool:
    """The case's ``order_sensitive`` flag (default true: the stricter reading)."""
    flag = case.opt("order_sensitive")
    return True if flag is None else flag.flag()


# ---------------------------------------------------------------------------------------------
# The placement case itself.
# ---------------------------------------------------------------------------------------------

_ONE_SHOT_INPUT = {
    "num_containers",
    "num_locality_aware_tasks",
    "host_to_local_task_count",
    "allocated_host_to_container_count",
    "allocated_rule",
    "locality_matched_pending_requests",
    "executor_cores",
    "task_cpus",
    "rack_resolver",
    "allocator_setup",
    "run_constraints",
}
_PROPERTY_EXPECTATIONS = {"completes", "result_length", "every_node_list_subset_of_hosts_with_positive_task_count"}
_HINTS_INPUT = {"stages", "dynamic_allocation", "what"}
_PREFERENCE_KINDS = {"host", "executor", "hdfs_cache"}


def run_case(case: Mapping[str, Any]) -> list[str]:
    """Replay one ``kind: placement`` case; return its warnings or raise (see the runner)."""
    root = At(dict(case), "")
    members = root.only(CASE_METADATA_KEYS | {"input", "steps", "expect"}, "case")
    order_sensitive = order_sensitive_of(root)
    inp = root.key("input")
    steps = members["steps"].items() if "steps" in members else []
    warnings = Warnings()
    if "stages" in inp.obj():
        _run_hint_steps(inp, steps, order_sensitive, warnings)
        expect = members.get("expect")
        if expect is not None:
            expect.only((), "hints case expect (assertions belong to the steps)")
    else:
        if steps:
            raise Unsupported(f"{root.child('steps')}: a one-shot placement case with steps is not interpreted")
        if "expect" not in members:
            raise nothing_to_check("the case has no 'expect'")
        _run_one_shot(inp, members["expect"], order_sensitive, warnings)
    require_step_assertions(case)
    return warnings.items


def _preference_list(at: At) -> list[str]:
    """The hosts of one task's preference list (each preference's kind is checked)."""
    hosts = []
    for pref in at.items():
        fields = pref.only({"kind", "host", "executor"}, "task preference")
        kind = fields["kind"].text() if "kind" in fields else None
        if kind not in _PREFERENCE_KINDS:
            raise pref.fault(f"'kind' must be one of {sorted(_PREFERENCE_KINDS)}, found {kind!r}")
        if kind == "executor" and "executor" not in fields:
            raise pref.fault("an executor preference needs 'executor'")
        hosts.append(pref.key("host").text())
    return hosts


def _run_hint_steps(inp: At, steps: list[At], order_sensitive: bool, warnings: Warnings) -> None:
    fields = inp.only(_HINTS_INPUT, "input")
    stages: dict[str, list[list[str]]] = {}
    for stage_key, tasks in fields["stages"].obj().items():
        stages[stage_key] = [_preference_list(task) for task in tasks.items()]
    tracker = HintTracker()
    for step in steps:
        parts = step.only({"op", "args", "expect"}, "step")
        op = step.key("op").text()
        if op not in ("stage_submitted", "stage_completed"):
            raise Unsupported(f"{step.child('op')}: op {op!r} is not interpreted in a hints case")
        args = parts["args"] if "args" in parts else At({}, step.child("args"))
        arg_fields = args.only({"stage_id", "attempt"}, f"{op} args")
        stage_id = args.key("stage_id").integer(0)
        attempt = StageAttempt(stage_id, int_or(arg_fields.get("attempt"), 0, 0))
        if op == "stage_completed":
            tracker = tracker.stage_completed(attempt)
        elif str(stage_id) in stages:
            tracker = tracker.stage_submitted(attempt, stages[str(stage_id)])
        else:
            raise args.key("stage_id").fault(f"stage {stage_id} is not listed in input.stages")
        if "expect" in parts:
            _check_hints(parts["expect"], tracker.current(), order_sensitive, warnings)


def _check_hints(expect: At, hints: PlacementHints, order_sensitive: bool, warnings: Warnings) -> None:
    fields = expect.only({"num_locality_aware_tasks", "host_to_local_task_count"}, "hints expect")
    if "num_locality_aware_tasks" in fields:
        item = fields["num_locality_aware_tasks"]
        compare(item.place, item.value, hints.num_locality_aware_tasks, order_sensitive)
    if "host_to_local_task_count" in fields:
        item = fields["host_to_local_task_count"]
        if isinstance(item.value, dict):
            compare(item.place, item.value, hints.as_dict(), order_sensitive)
        else:
            actual = [list(pair) for pair in hints.host_to_local_task_count]
            compare(item.place, item.value, actual, order_sensitive)
    if "derived" in fields:
        warnings.note(f"{fields['derived'].place}: derived values of a hints step are not checked")


def placement_input(inp: At, allocated: tuple[tuple[str, int], ...]) -> PlacementInput:
    """Build the model's input from a one-shot case's ``input`` and an allocation."""
    fields = inp.obj()
    pending = []
    if "locality_matched_pending_requests" in fields:
        for request in fields["locality_matched_pending_requests"].items():
            request.only({"nodes"}, "pending request")
            nodes = request.key("nodes").texts()
            if not nodes:
                raise request.key("nodes").fault("a locality-matched pending request names at least one node")
            pending.append(nodes)
    resolver = rack_resolver(fields["rack_resolver"]) if "rack_resolver" in fields else RackResolver()
    try:
        return PlacementInput.of(
            num_containers=inp.key("num_containers").integer(0),
            num_locality_aware_tasks=inp.key("num_locality_aware_tasks").integer(0),
            host_to_local_task_count=ordered_counts(inp.key("host_to_local_task_count")),
            allocated_host_to_container_count=allocated,
            locality_matched_pending=pending,
            executor_cores=int_or(fields.get("executor_cores"), 1, 1),
            task_cpus=int_or(fields.get("task_cpus"), 1, 1),
            rack_resolver=resolver,
        )
    except InputError as exc:
        raise impl_error_as_case_error(exc, inp.place) from None


def _allocations(inp: At, warnings: Warnings) -> list[tuple[tuple[str, int], ...]]:
    """The allocation(s) to run with.

    Normally the case's ``allocated_host_to_container_count`` object. SPARK-18750's case cannot
    give one (Spark built it from a Scala HashMap's iteration order); it only asserts
    properties that hold for any allocation, so the runner checks them under two allocations:
    none, and the case's ``allocated_rule`` read in host-list order (every host in the first
    half of the hint list except the first holds one container).
    """
    fields = inp.obj()
    allocated = fields.get("allocated_host_to_container_count")
    if allocated is None:
        return [()]
    if isinstance(allocated.value, dict):
        return [ordered_counts(allocated)]
    if "allocated_rule" not in fields:
        raise allocated.fault("expected an object of host -> container count")
    hosts = [host for host, _ in ordered_counts(inp.key("host_to_local_task_count"))]
    half = hosts[: len(hosts) // 2]
    warnings.note(
        f"{allocated.place}: not reproducible (Scala hash order); property expectations were "
        "checked with no allocation and with the allocated_rule applied in host-list order"
    )
    return [(), tuple((host, 1) for host in half[1:])]


def _run_one_shot(inp: At, expect: At, order_sensitive: bool, warnings: Warnings) -> None:
    inp.only(_ONE_SHOT_INPUT, "placement input")
    fields = expect.only({"nodes", "racks"} | _PROPERTY_EXPECTATIONS, "placement expect")
    if "nodes" not in fields and "racks" not in fields and not (_PROPERTY_EXPECTATIONS & fields.keys()):
        raise nothing_to_check(f"{expect.place} has no 'nodes', 'racks' or property check")
    allocations = _allocations(inp, warnings)
    if "allocator_setup" in inp.obj() and len(allocations) == 1:
        _cross_check_setup(inp, allocations[0], warnings)
    if len(allocations) > 1 and ({"nodes", "racks", "derived"} & fields.keys()):
        raise Unsupported(f"{expect.place}: exact results asserted for an allocation the case cannot give")
    limit = _time_limit(inp)
    for allocated in allocations:
        model_input = placement_input(inp, allocated)
        started = time.perf_counter()
        plan = plan_placement(model_input)
        elapsed = time.perf_counter() - started
        _check_one_shot(fields, model_input, plan, order_sensitive, warnings)
        if limit is not None and elapsed > limit:
            raise ExpectationMismatch(
                f"{inp.place}.run_constraints.timeout_seconds", f"<= {limit} s", f"{elapsed:.1f} s"
            )


def _cross_check_setup(inp: At, allocated: tuple[tuple[str, int], ...], warnings: Warnings) -> None:
    """Spark's test obtained the allocation by driving a real allocator (``allocator_setup``:
    an initial target, one request update, one container per listed host). Replay that through
    the model's allocator; a different per-host count is reported as a warning, since the
    asserted result is computed from the case's own allocation map."""
    setup = inp.key("allocator_setup")
    fields = setup.only({"initial_target_executors", "allocated_container_hosts", "how"}, "allocator_setup")
    hosts = fields["allocated_container_hosts"].texts() if "allocated_container_hosts" in fields else []
    target = setup.key("initial_target_executors").integer(0)
    cores = int_or(inp.obj().get("executor_cores"), 1, 1)
    config = AllocatorConfig(executor_cores=cores, rack_resolver=RackResolver())
    try:
        allocator = YarnAllocator.create(config, target).update_resource_requests()
        containers = [
            AllocatedContainer(f"setup-{index}", host, config.request_capability, config.priority)
            for index, host in enumerate(hosts)
        ]
        allocator = allocator.handle_allocated_containers(containers)
    except InputError as exc:
        raise impl_error_as_case_error(exc, setup.place) from None
    replayed = {host: len(ids) for host, ids in allocator.allocated_host_to_containers.items()}
    if replayed != dict(allocated):
        warnings.note(
            f"{setup.place}: replaying the setup gives allocations {replayed}, the case gives {dict(allocated)}"
        )


def _time_limit(inp: At) -> float | None:
    constraints = inp.opt("run_constraints")
    if constraints is None:
        return None
    fields = constraints.only({"thread_stack_bytes", "timeout_seconds"}, "run_constraints")
    # The stack size guards against a recursive decrement loop; ours is a plain loop.
    timeout = fields.get("timeout_seconds")
    return None if timeout is None else float(timeout.integer(1))


def _nodes_json(prefs: Sequence[ContainerLocalityPreferences]) -> list[list[str] | None]:
    return [None if p.nodes is None else list(p.nodes) for p in prefs]


def _racks_json(prefs: Sequence[ContainerLocalityPreferences]) -> list[list[str] | None]:
    return [None if p.racks is None else list(p.racks) for p in prefs]


def _check_one_shot(
    fields: dict[str, At], inp: PlacementInput, plan: PlacementPlan, order_sensitive: bool, warnings: Warnings
) -> None:
    prefs = plan.preferences
    if "nodes" in fields:
        _compare_lists(fields["nodes"], _nodes_json(prefs), order_sensitive, "node lists")
    if "racks" in fields:
        _compare_lists(fields["racks"], _racks_json(prefs), order_sensitive, "rack lists")
    if "completes" in fields:
        # Reaching this line is completion; the flag must say so.
        compare(fields["completes"].place, fields["completes"].flag(), True, order_sensitive)
    if "result_length" in fields:
        compare(fields["result_length"].place, fields["result_length"].integer(0), len(prefs), order_sensitive)
    key = "every_node_list_subset_of_hosts_with_positive_task_count"
    if key in fields:
        positive = {host for host, count in inp.host_to_local_task_count if count > 0}
        holds = all(p.nodes is None or set(p.nodes) <= positive for p in prefs)
        compare(fields[key].place, fields[key].flag(), holds, order_sensitive)
    if "derived" in fields:
        check_derived(fields["derived"], _derived_values(plan), warnings, order_sensitive)


def _compare_lists(at: At, actual: list[list[str] | None], order_sensitive: bool, what: str) -> None:
    """Compare per-container lists entry by entry, so the place names the first difference."""
    expected = at.items()
    if len(expected) != len(actual):
        raise ExpectationMismatch(at.place, len(expected), len(actual), f"number of {what}")
    if not order_sensitive:
        compare(at.place, at.value, actual, order_sensitive, what)
        return
    for item, got in zip(expected, actual):
        compare(item.place, item.value, got, order_sensitive, what)


def _derived_values(plan: PlacementPlan) -> dict[str, Callable[[], Any]]:
    return {
        "executors_for_aware_tasks": lambda: plan.executors_for_aware_tasks,
        "host_container_need": lambda: dict(plan.need),
        "locality_free_count": lambda: plan.locality_free_count,
        "locality_aware_count": lambda: plan.locality_aware_count,
        "scaled_ratio": lambda: dict(plan.scaled_ratio),
        "pending_host_share": lambda: dict(plan.pending_share),
        "racks": lambda: _racks_json(plan.preferences),
    }
