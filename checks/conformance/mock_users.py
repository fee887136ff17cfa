"""The user limits of the preemption mock framework (Hadoop ``MockApplications``).

The harness stubs each leaf's ``getResourceLimitForAllUsers`` with one value for every user
and partition: the leaf's share of the default partition (its absolute capacity there, plus a
small epsilon, times the partition's resource, rounded down) divided, rounded up, by the
number of the leaf's users, or by ``100 / percent`` when the applications string carries a
user-limit percent. A test may stub one leaf's limit itself (``user_limit_stub_for_<queue>``).
Cloudera's harness (COMPX-5202) also stubs ``getUserLimit()`` with ``100 * (100 / percent)``
(integer division; -100 without a percent), which the ``fair-share`` rule reads as
``Queue.minimum_user_limit_percent``; only that rule reads it.
These are facts of the harness, so they live beside the parser, not in the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from yarnspec.checks.conformance.case_fields import as_str, child
from yarnspec.checks.conformance.outcome import CaseFormatError
from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import DEFAULT_PARTITION, Application, Partition, Queue
from yarnspec.impl.resources import Resource, ResourceTypes, f32, java_long

_EPSILON = f32(1e-6)


def user_limit_stubs(
    data: Mapping[str, Any], prefix: str, types: ResourceTypes, queues: Sequence[Queue], place: str
) -> dict[str, Resource]:
    """Leaf path -> stubbed limit, from the ``<prefix><queue>`` keys of the input (the value's
    first word is the resource, the rest a comment)."""
    from yarnspec.checks.conformance.mockframework import parse_resource  # the notation's resource syntax

    found: dict[str, Resource] = {}
    for key, raw in data.items():
        if not key.startswith(prefix):
            continue
        where = child(place, key)
        name = key[len(prefix) :]
        matches = [q for q in queues if q.path == name or q.name == name]
        if len(matches) != 1 or not matches[0].leaf:
            raise CaseFormatError(where, f"{name!r} names no single leaf queue of queuesConfig")
        words = as_str(raw, where).split()
        try:
            found[matches[0].path] = parse_resource(words[0] if words else "", types)
        except ValueError as exc:
            raise CaseFormatError(where, str(exc)) from None
    return found


def harness_user_limit(calc: ResourceCalculator, queue: Queue, partition: Resource, divisor: int) -> Resource:
    """``divideAndCeil(capacity, divisor)`` with capacity = ``partition x (absCapacity +
    1e-6)`` rounded down, the capacity read in the default partition."""
    guaranteed = queue.at(DEFAULT_PARTITION).guaranteed.padded(len(partition))
    share = f32(f32(calc.divide(partition, guaranteed, partition)) + _EPSILON)
    capacity = Resource(tuple(java_long(v * share) for v in partition.values))
    if calc.name == "default":
        memory = _divide_and_ceil(capacity.memory, divisor)
        return Resource((memory, 1 if memory > 0 else 0) + (0,) * (len(capacity) - 2))
    return Resource(tuple(_divide_and_ceil(v, divisor) for v in capacity.values))


def _divide_and_ceil(value: int, divisor: int) -> int:
    """Hadoop ``ResourceCalculator.divideAndCeil(long, long)`` (0 for a 0 divisor)."""
    if divisor == 0:
        return 0
    numerator = value + divisor - 1
    quotient = abs(numerator) // abs(divisor)
    return quotient if (numerator >= 0) == (divisor > 0) else -quotient


def with_user_limits(
    queues: Sequence[Queue],
    apps: Sequence[Application],
    partitions: Mapping[str, Partition],
    percent: int | None,
    stubs: Mapping[str, Resource],
    calc: ResourceCalculator,
) -> list[Queue]:
    """The queues with every user's limit set in each of their partitions, as the harness
    stubs them (module docstring)."""
    users: dict[str, list[str]] = {}
    for app in apps:
        listed = users.setdefault(app.queue, [])
        if app.user not in listed:
            listed.append(app.user)
    default = partitions[DEFAULT_PARTITION].resource if DEFAULT_PARTITION in partitions else Resource.of(0, 0)
    found: list[Queue] = []
    for queue in queues:
        names = users.get(queue.path)
        if not names:
            found.append(queue)
            continue
        limit = stubs.get(queue.path)
        if limit is None:
            divisor = 100 // percent if percent is not None else len(names)
            limit = harness_user_limit(calc, queue, default, divisor)
        limits = {user: limit for user in names}
        figures = {p: replace(f, user_limits=limits) for p, f in queue.partitions.items()}
        mulp = 100 // percent if percent is not None else -1
        found.append(replace(queue, partitions=figures, minimum_user_limit_percent=float(mulp * 100)))
    return found
