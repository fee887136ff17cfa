"""A rack resolver: host -> rack, with an optional default rack for hosts it does not list.

Spark on YARN resolves racks through Hadoop's topology (``SparkRackResolver``); Spark's own tests
plug in a ``MockResolver`` that puts ``host3`` on ``/rack2`` and every other host on ``/rack1``.
Both are a table plus a fallback, which is all this module holds. Case files write the table
as a JSON object whose key ``"*"`` names the default rack.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

#: The key that names the default rack in a case file's ``rack_resolver`` object.
DEFAULT_RACK_KEY = "*"


@dataclass(frozen=True)
class RackResolver:
    """Resolves hosts to racks.

    ``table`` lists known hosts and their racks (in the order given); ``default`` is the rack of
    every other host, or ``None`` when unknown hosts have no rack at all (then they are skipped
    wherever a rack list is built, as Spark's batch resolver does, semantics 3.2 step 6).
    """

    table: tuple[tuple[str, str], ...] = ()
    default: str | None = None

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, str]) -> RackResolver:
        """Build from ``{host: rack, ..., "*": default_rack}`` (the case-file form)."""
        table = tuple((host, rack) for host, rack in mapping.items() if host != DEFAULT_RACK_KEY)
        return cls(table=table, default=mapping.get(DEFAULT_RACK_KEY))

    @cached_property
    def _lookup(self) -> dict[str, str]:
        return dict(self.table)

    def resolve(self, host: str) -> str | None:
        """The rack of ``host``: its table entry, else the default (``None`` if there is none)."""
        return self._lookup.get(host, self.default)

    def racks_of(self, hosts: Iterable[str]) -> tuple[str, ...]:
        """The distinct racks of ``hosts``, in the order the hosts first reach them; hosts
        without a rack are skipped."""
        seen: dict[str, None] = {}
        for host in hosts:
            rack = self.resolve(host)
            if rack is not None:
                seen.setdefault(rack, None)
        return tuple(seen)
