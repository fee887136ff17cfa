"""The ApplicationMaster's view of YARN: the AM-RM client (``AMRMClient``) as a small value.

It holds what Spark's allocator hands to YARN and asks of it (semantics 4.4):

* the outstanding container requests, in the order they were added;
* ``getMatchingRequests(priority, location, capability)``: the outstanding requests registered
  at a location, oldest first. A request with nodes is registered at each node, each listed
  rack, the racks of its nodes and ``*``; a request without nodes only at ``*`` (and at any
  rack it lists);
* the containers handed back (``releaseAssignedContainer``), in call order;
* the node-exclusion calls (``updateBlacklist(additions, removals)``), in call order, and the
  set YARN currently holds as excluded.

The value is immutable: every call returns a new client. Containers YARN allocates and the
statuses it reports for completed ones are plain values (:class:`AllocatedContainer`,
:class:`ContainerStatus`) that tests, case runners and explorers hand to the allocator.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from yarnspec.impl.spark.racks import RackResolver

#: The location every request is registered at (``ResourceRequest.ANY``).
ANY_HOST = "*"


@dataclass(frozen=True, order=True)
class Capability:
    """A container size: memory in MB and virtual cores."""

    memory_mb: int
    vcores: int

    def fits_in(self, other: Capability) -> bool:
        """True when this size is no larger than ``other`` in both dimensions."""
        return self.memory_mb <= other.memory_mb and self.vcores <= other.vcores


@dataclass(frozen=True)
class ContainerRequest:
    """One outstanding request (``AMRMClient.ContainerRequest``).

    ``request_id`` is the client's sequence number: it tells apart requests that are otherwise
    identical, as Java object identity does in Spark. Requests are created with relax-locality
    on; ``node_label`` is the optional node-label expression.
    """

    request_id: int
    capability: Capability
    nodes: tuple[str, ...] | None
    racks: tuple[str, ...] | None
    priority: int = 0
    node_label: str | None = None
    relax_locality: bool = True


@dataclass(frozen=True)
class AllocatedContainer:
    """A container YARN allocated to the application."""

    container_id: str
    host: str
    capability: Capability
    priority: int = 0


@dataclass(frozen=True)
class ContainerStatus:
    """YARN's report on a container that finished (``ContainerStatus``)."""

    container_id: str
    exit_status: int
    state: str = "COMPLETE"
    diagnostics: str = ""


@dataclass(frozen=True)
class ExclusionUpdate:
    """One ``updateBlacklist`` call: nodes to add to and remove from the excluded set."""

    additions: tuple[str, ...]
    removals: tuple[str, ...]


@dataclass(frozen=True)
class AmRmClient:
    """The AM-RM client's state as the allocator sees it (see the module docstring)."""

    resolver: RackResolver = field(default_factory=RackResolver)
    outstanding: tuple[ContainerRequest, ...] = ()
    next_request_id: int = 0
    releases: tuple[str, ...] = ()
    exclusion_calls: tuple[ExclusionUpdate, ...] = ()
    excluded: frozenset[str] = frozenset()

    def add_request(
        self,
        capability: Capability,
        nodes: tuple[str, ...] | None,
        racks: tuple[str, ...] | None,
        priority: int = 0,
        node_label: str | None = None,
    ) -> AmRmClient:
        """``addContainerRequest``: append a new request."""
        request = ContainerRequest(self.next_request_id, capability, nodes, racks, priority, node_label)
        return replace(self, outstanding=self.outstanding + (request,), next_request_id=self.next_request_id + 1)

    def remove_request(self, request: ContainerRequest) -> AmRmClient:
        """``removeContainerRequest``: drop a request from every location (no-op if absent)."""
        return replace(self, outstanding=tuple(r for r in self.outstanding if r.request_id != request.request_id))

    def remove_requests(self, requests: Iterable[ContainerRequest]) -> AmRmClient:
        """Drop several requests."""
        gone = {request.request_id for request in requests}
        return replace(self, outstanding=tuple(r for r in self.outstanding if r.request_id not in gone))

    def locations(self, request: ContainerRequest) -> frozenset[str]:
        """Where a request is registered: its nodes, its racks, the racks of its nodes, ``*``."""
        places = {ANY_HOST}
        places.update(request.racks or ())
        if request.nodes is not None:
            places.update(request.nodes)
            places.update(self.resolver.racks_of(request.nodes))
        return frozenset(places)

    def matching_requests(self, priority: int, location: str, capability: Capability) -> tuple[ContainerRequest, ...]:
        """``getMatchingRequests``: outstanding requests of ``priority`` registered at
        ``location`` whose size fits in ``capability``, oldest first.

        Hadoop returns the exact-size group when there is one, else every group that fits; the
        allocator uses one size per priority, so this is the same as keeping every fitting
        request in arrival order.
        """
        return tuple(
            request
            for request in self.outstanding
            if request.priority == priority
            and request.capability.fits_in(capability)
            and location in self.locations(request)
        )

    def release(self, container_id: str) -> AmRmClient:
        """``releaseAssignedContainer``: hand a container back to YARN."""
        return replace(self, releases=self.releases + (container_id,))

    def update_exclusions(self, additions: tuple[str, ...], removals: tuple[str, ...]) -> AmRmClient:
        """``updateBlacklist``: record the call and apply it to the excluded set."""
        call = ExclusionUpdate(additions, removals)
        excluded = (self.excluded | set(additions)) - set(removals)
        return replace(self, exclusion_calls=self.exclusion_calls + (call,), excluded=excluded)
