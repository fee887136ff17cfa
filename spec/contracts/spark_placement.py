"""Contract ``spark-placement``: Spark's ``LocalityPreferredContainerPlacementStrategy``.

Upstream: ``org.apache.spark.deploy.yarn.LocalityPreferredContainerPlacementStrategy
.localityOfRequestedContainers`` (resource-managers/yarn), which shapes the node and rack
preferences of the container requests the ApplicationMaster is about to send.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypedDict, runtime_checkable

from yarnspec.impl.spark.placement import ContainerLocalityPreferences, PlacementInput
from yarnspec.impl.spark.racks import RackResolver
from yarnspec.spec.contracts.call import Answer, Call
from yarnspec.spec.contracts.observable import Comparison, FieldRule, compare_fields, in_declared_form, rule_named
from yarnspec.spec.spark.allocator import placement_output_valid

__all__ = [
    "OP",
    "PendingRequest",
    "PlacementRequest",
    "PlacementAnswer",
    "ContainerPlacementStrategy",
    "RULES",
    "ORDERED_HINTS",
    "HASH_ORDER_RULES",
    "compare",
    "placement_input",
    "invariants",
]

OP = "locality_of_requested_containers"


class PendingRequest(TypedDict):
    """An outstanding container request whose nodes meet the hint hosts."""

    nodes: list[str] | None


class PlacementRequest(TypedDict):
    """The input: exactly the keys of a spark-locality ``placement`` case's ``input``.

    ``host_to_local_task_count`` is an ordered list of ``[host, count]`` pairs (the order of
    Spark's hint map); ``rack_resolver`` maps a host to its rack and ``"*"`` to the default rack.
    """

    num_containers: int
    num_locality_aware_tasks: int
    host_to_local_task_count: list[tuple[str, int]]
    allocated_host_to_container_count: dict[str, int]
    locality_matched_pending_requests: list[PendingRequest]
    executor_cores: int
    task_cpus: int
    rack_resolver: dict[str, str]


class PlacementAnswer(TypedDict, total=False):
    """The output: one entry per requested container, in the order returned; ``None`` is a
    request without preference. ``racks`` (same shape) is optional."""

    nodes: list[list[str] | None]
    racks: list[list[str] | None]


@runtime_checkable
class ContainerPlacementStrategy(Protocol):
    """``LocalityPreferredContainerPlacementStrategy.localityOfRequestedContainers``.

    Observable, compared with the reference on the same input:

    * ``nodes``: exactly, order included (Spark's own suites compare the arrays), when the
      input names at most four hint hosts; with more, the order inside each container's node
      list is compared as a set. Spark receives the hints as a Scala immutable ``Map``, which
      keeps insertion order up to four entries (``Map1``..``Map4``) and is a hash trie above
      that, so the order inside a list is Spark's hash order there, which the reference does
      not model (the order of YARN's node list in a request carries no meaning either);
    * ``racks``: optional (an implementation that leaves it out is not compared on it); in
      order, each container's racks as a set (Spark builds them as a Scala set).

    Invariants checked on the implementation's own answers (without the reference):
    :func:`yarnspec.spec.spark.allocator.placement_output_valid` (one entry per container,
    no-preference entries first, each node list a subset of the one before, hint hosts only).
    """

    def locality_of_requested_containers(self, input: PlacementRequest) -> PlacementAnswer:
        """The preferences of ``input['num_containers']`` container requests."""
        ...


RULES = (FieldRule("nodes"), FieldRule("racks", Comparison.EACH_AS_SET, optional=True))
#: Scala's ``Map1``..``Map4`` keep insertion order; a larger immutable map is a hash trie
ORDERED_HINTS = 4
HASH_ORDER_RULES = (
    FieldRule("nodes", Comparison.EACH_AS_SET),
    FieldRule("racks", Comparison.EACH_AS_SET, optional=True),
)


def rules_for(call: Call) -> tuple[FieldRule, ...]:
    """The observable fields of ``call``'s answer: the node lists' order is observable only
    up to :data:`ORDERED_HINTS` hint hosts (class docstring)."""
    hints = call.input.get("host_to_local_task_count", [])
    return RULES if len(hints) <= ORDERED_HINTS else HASH_ORDER_RULES


def compare(call: Call, reference: dict[str, Any], implementation: dict[str, Any]) -> list[str]:
    """The observable differences of one answer (module docstring)."""
    return compare_fields(reference, implementation, rules_for(call), "")


def placement_input(request: dict[str, Any]) -> PlacementInput:
    """The request as the reference's :class:`PlacementInput` (it raises ``InputError`` on a
    value the strategy cannot take)."""
    pending = [entry.get("nodes") or () for entry in request.get("locality_matched_pending_requests", [])]
    return PlacementInput.of(
        num_containers=request["num_containers"],
        num_locality_aware_tasks=request["num_locality_aware_tasks"],
        host_to_local_task_count=[(host, count) for host, count in request["host_to_local_task_count"]],
        allocated_host_to_container_count=dict(request.get("allocated_host_to_container_count", {})),
        locality_matched_pending=[nodes for nodes in pending if nodes],
        executor_cores=request.get("executor_cores", 1),
        task_cpus=request.get("task_cpus", 1),
        rack_resolver=RackResolver.from_mapping(request.get("rack_resolver", {})),
    )


def invariants(calls: Sequence[Call], answers: Sequence[Answer]) -> list[str]:
    """The spec's placement invariants on the implementation's own answers."""
    violations: list[str] = []
    for index, (call, answer) in enumerate(zip(calls, answers)):
        if answer.output is None or "nodes" not in answer.output:
            continue
        inp = placement_input(call.input)
        nodes = answer.output["nodes"]
        racks = answer.output.get("racks")
        entries = [
            ContainerLocalityPreferences(
                None if entry is None else tuple(entry),
                _racks_of(inp, entry, None if racks is None or i >= len(racks) else racks[i], racks is None),
            )
            for i, entry in enumerate(nodes)
        ]
        violations.extend(f"call {index}: {v}" for v in placement_output_valid(inp, entries))
    return violations


def _racks_of(
    inp: PlacementInput, nodes: list[str] | None, given: list[str] | None, omitted: bool
) -> tuple[str, ...] | None:
    """The racks to check: the implementation's own, or (when it leaves racks out) the ones its
    nodes imply, so the rack rule is not held against an answer that never gave racks. Racks
    are observable as a set (:data:`RULES`): the implementation's racks in another order than
    its nodes' are taken in the nodes' order."""
    implied = None if nodes is None else inp.rack_resolver.racks_of(tuple(nodes))
    if omitted or given is None or implied is None:
        return implied if omitted else None if given is None else tuple(given)
    form = rule_named(RULES, "racks").comparison
    return tuple(
        in_declared_form(list(implied), list(given), Comparison.AS_SET if form is Comparison.EACH_AS_SET else form)
    )
