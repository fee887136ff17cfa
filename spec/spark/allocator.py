"""What must hold of Spark's YARN allocator and container placement strategy.

Style: every predicate returns the list of its violations, each a sentence naming what is
wrong; an empty list means the property holds. None of them raises on a bad state.

State predicates (hold in every reachable allocator state, under current Spark):

* :func:`allocator_counts_consistent` - the running and starting counts agree with the
  executor and launch records;
* :func:`containers_accounted_once` - every container YARN allocated was matched or
  released exactly once, and handed back at most once;
* :func:`executor_ids_never_reused`;
* :func:`no_executor_on_completed_container` - fails under the pre-SPARK-43510 variant.

Post-condition of ``update_resource_requests``:

* :func:`pending_requests_fill_target` - outstanding requests = max(0, target - running -
  starting); fails under the older missing formula that ignores starting executors.

Placement output (:func:`placement_output_valid`): length equals the number requested,
locality-free requests come first, node lists are nested and drawn from the hint hosts, racks
are those of the nodes.

Each is also a value of the specification's one property type
(:class:`~yarnspec.spec.property.Property`): :data:`ALLOCATOR_INVARIANTS`,
:data:`REQUESTS_FILL_TARGET` and :data:`PLACEMENT_OUTPUT_VALID` (over a :class:`PlacementCall`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from yarnspec.impl.spark.allocator import Fate, YarnAllocator
from yarnspec.impl.spark.placement import ContainerLocalityPreferences, PlacementInput
from yarnspec.spec.property import Property


class PlacementStrategy(Protocol):
    """The contract of a container placement strategy: the reference is
    :func:`yarnspec.impl.spark.placement.locality_of_requested_containers`; an alternative
    must at least satisfy :func:`placement_output_valid` on every input."""

    def __call__(self, inp: PlacementInput) -> Sequence[ContainerLocalityPreferences]:
        """One entry per requested container."""
        ...


def allocator_counts_consistent(allocator: YarnAllocator) -> list[str]:
    """Running and starting agree with the records (semantics 4.1, 4.5, 4.6).

    * executor ids and container ids are distinct across launched executors and launches in
      progress, and no container is both launched and launching;
    * every container in the launching set has a launch in progress;
    * no running executor sits in a container we released (a kill drops it from running);
    * the counts are never negative.
    """
    violations: list[str] = []
    executor_ids = [e.executor_id for e in allocator.executors] + [launch.executor_id for launch in allocator.launches]
    container_ids = [e.container_id for e in allocator.executors] + [
        launch.container_id for launch in allocator.launches
    ]
    for name, ids in (("executor id", executor_ids), ("container", container_ids)):
        for value, count in Counter(ids).items():
            if count > 1:
                violations.append(f"{name} {value} is recorded {count} times among executors and launches")
    launch_containers = {launch.container_id for launch in allocator.launches}
    for cid in sorted(allocator.launching - launch_containers):
        violations.append(f"container {cid} is in the launching set but no launch is in progress")
    for executor in allocator.executors:
        if executor.running and executor.container_id in allocator.released:
            violations.append(
                f"executor {executor.executor_id} is running in released container {executor.container_id}"
            )
    if allocator.num_executors_running < 0 or allocator.num_executors_starting < 0:
        violations.append("a negative executor count")
    return violations


def containers_accounted_once(allocator: YarnAllocator) -> list[str]:
    """Every allocated container was matched (launched or skipped) or released, exactly once.

    * each container id has one fate;
    * a container released for matching no request never hosts an executor or a launch;
    * every executor and launch sits in a container whose fate is "launched";
    * no container is handed back to YARN twice.
    """
    violations: list[str] = []
    fates = Counter(fate.container_id for fate in allocator.fates)
    for cid, count in fates.items():
        if count > 1:
            violations.append(f"container {cid} was handled {count} times")
    fate_of = {fate.container_id: fate.fate for fate in allocator.fates}
    hosted = [e.container_id for e in allocator.executors] + [launch.container_id for launch in allocator.launches]
    for cid in hosted:
        if fate_of.get(cid) is not Fate.LAUNCHED:
            violations.append(f"container {cid} hosts an executor but its fate is {fate_of.get(cid)}")
    for cid, count in Counter(allocator.client.releases).items():
        if count > 1:
            violations.append(f"container {cid} was handed back to YARN {count} times")
    for cid, fate in fate_of.items():
        if fate is Fate.RELEASED and cid not in allocator.client.releases:
            violations.append(f"unmatched container {cid} was never handed back")
    return violations


def executor_ids_never_reused(allocator: YarnAllocator) -> list[str]:
    """Executor ids are consumed in increasing order, one per accepted container, never twice,
    and never beyond the counter (semantics 4.5)."""
    violations: list[str] = []
    consumed = [int(fate.executor_id) for fate in allocator.fates if fate.executor_id is not None]
    for earlier, later in zip(consumed, consumed[1:]):
        if later <= earlier:
            violations.append(f"executor id {later} was consumed after {earlier}")
    if consumed and consumed[-1] > allocator.last_executor_number:
        violations.append(f"executor id {consumed[-1]} is beyond the counter {allocator.last_executor_number}")
    issued = {str(number) for number in consumed}
    for executor_id in [e.executor_id for e in allocator.executors] + [
        launch.executor_id for launch in allocator.launches
    ]:
        if executor_id not in issued:
            violations.append(f"executor {executor_id} holds an id no container consumed")
    return violations


def no_executor_on_completed_container(allocator: YarnAllocator) -> list[str]:
    """No executor record (running or not) survives its container's completion (SPARK-43510:
    a launch that finishes after the container completed must not bring it back)."""
    return [
        f"executor {e.executor_id} is recorded in container {e.container_id}, which already completed"
        for e in allocator.executors
        if e.container_id in allocator.completed
    ]


def pending_requests_fill_target(allocator: YarnAllocator) -> list[str]:
    """Right after ``update_resource_requests``: outstanding requests = max(0, target -
    running - starting) (semantics 4.3, "Net effect"). Running executors are never killed to
    meet a lower target, hence the max."""
    wanted = max(0, allocator.target - allocator.num_executors_running - allocator.num_executors_starting)
    pending = allocator.num_containers_pending_allocate
    if pending != wanted:
        return [
            f"{pending} requests outstanding, but target {allocator.target} - running "
            f"{allocator.num_executors_running} - starting {allocator.num_executors_starting} asks for {wanted}"
        ]
    return []


def placement_output_valid(inp: PlacementInput, result: Sequence[ContainerLocalityPreferences]) -> list[str]:
    """The shape of ``localityOfRequestedContainers``'s answer (semantics 3.2, "Consequences").

    * one entry per requested container;
    * entries without preference (no nodes, no racks) all come before those with nodes;
    * each node list is non-empty, has no repeated host, names only hint hosts with a positive
      count, and is a subset of the node list before it;
    * the racks of an entry are the distinct racks of its nodes, in node order.
    """
    violations: list[str] = []
    if len(result) != inp.num_containers:
        violations.append(f"{len(result)} entries for {inp.num_containers} containers")
    positive = {host for host, count in inp.host_to_local_task_count if count > 0}
    previous: tuple[str, ...] | None = None
    for index, entry in enumerate(result):
        if entry.nodes is None:
            if entry.racks is not None:
                violations.append(f"entry {index} has racks but no nodes")
            if previous is not None:
                violations.append(f"entry {index} has no preference but follows a locality-aware entry")
            continue
        if not entry.nodes:
            violations.append(f"entry {index} has an empty node list")
        if len(set(entry.nodes)) != len(entry.nodes):
            violations.append(f"entry {index} repeats a host")
        outside = set(entry.nodes) - positive
        if outside:
            violations.append(f"entry {index} names hosts without locality-aware tasks: {sorted(outside)}")
        if previous is not None and not set(entry.nodes) <= set(previous):
            violations.append(f"entry {index}'s nodes are not a subset of entry {index - 1}'s")
        if entry.racks != inp.rack_resolver.racks_of(entry.nodes):
            violations.append(f"entry {index}'s racks {entry.racks} are not the racks of its nodes")
        previous = entry.nodes
    return violations


@dataclass(frozen=True)
class PlacementCall:
    """One call of a placement strategy: its input and the entries it returned."""

    input: PlacementInput
    result: Sequence[ContainerLocalityPreferences]


def _placement_call_valid(call: PlacementCall) -> list[str]:
    return placement_output_valid(call.input, call.result)


#: The state invariants, checked in every reachable allocator state.
ALLOCATOR_INVARIANTS: tuple[Property[YarnAllocator, list[str]], ...] = (
    Property(
        "allocator_counts_consistent",
        "executor and container ids are distinct across executors and launches; the launching set only holds launches in progress; no running executor sits in a released container; no count is negative",
        "semantics 4.1, 4.5, 4.6",
        allocator_counts_consistent,
    ),
    Property(
        "containers_accounted_once",
        "every allocated container has exactly one fate, an unmatched one never hosts an executor and is handed back, nothing is handed back twice",
        "semantics 4.5, 4.7",
        containers_accounted_once,
    ),
    Property(
        "executor_ids_never_reused",
        "executor ids are consumed in increasing order, one per accepted container, never beyond the counter",
        "semantics 4.5",
        executor_ids_never_reused,
    ),
    Property(
        "no_executor_on_completed_container",
        "no executor record survives its container's completion",
        "SPARK-43510",
        no_executor_on_completed_container,
    ),
)

#: The post-condition of ``update_resource_requests``.
REQUESTS_FILL_TARGET: Property[YarnAllocator, list[str]] = Property(
    "pending_requests_fill_target",
    "right after update_resource_requests, outstanding requests = max(0, target - running - starting)",
    "semantics 4.3",
    pending_requests_fill_target,
)

#: What every placement strategy's answer must satisfy.
PLACEMENT_OUTPUT_VALID: Property[PlacementCall, list[str]] = Property(
    "placement_output_valid",
    "one entry per container, entries without preference first, nested node lists drawn from the hint hosts, racks those of the nodes",
    "semantics 3.2",
    _placement_call_valid,
)

#: The state invariants by name, for tools that check them all after every step.
STATE_PREDICATES: Mapping[str, Property[YarnAllocator, list[str]]] = MappingProxyType(
    {p.name: p for p in ALLOCATOR_INVARIANTS}
)


def allocator_violations(allocator: YarnAllocator) -> list[str]:
    """Every state invariant's violations, each prefixed with the invariant's name."""
    return [f"{p.name}: {v}" for p in ALLOCATOR_INVARIANTS for v in p.check(allocator)]
