"""The string notation of Hadoop's preemption mock framework -> a cluster snapshot.

Four strings that the upstream tests concatenate (semantics C): ``labelsConfig`` (partitions),
``nodesConfig`` (nodes), ``queuesConfig`` (the queue tree with per-partition figures) and
``appsConfig`` (applications and their containers). A malformed string raises one
:class:`CaseFormatError` naming the field, the expression (counted from 0) and its text, e.g.
``input.queuesConfig: expression 3 '-b(=[100 200 0)': ...``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_list,
    as_object,
    as_str,
    child,
    explicit_disable_preemption,
    explicit_intra_queue_disable,
    ordering_policy,
    reject_unknown_keys,
    required,
    whole_number_text,
)
from yarnspec.checks.conformance.mock_users import user_limit_stubs, with_user_limits
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.impl.calculator import ResourceCalculator, calculator
from yarnspec.impl.cluster import (
    ROOT,
    Application,
    ClusterSnapshot,
    Container,
    ContainerId,
    Node,
    Partition,
    Queue,
    QueuePartition,
)
from yarnspec.impl.resources import MEMORY, VCORES, ZERO, Resource, ResourceTypes

#: Java's ``int`` (a priority), and the most containers a case may expand to.
INT_RANGE = (-(2**31), 2**31 - 1)
MAX_CONTAINERS = 100_000

STRING_FIELDS = ("labelsConfig", "nodesConfig", "queuesConfig", "appsConfig")
_TYPE_KEYS = ("resource_types", "extra_resource_types")
#: ``user_limit_stub_for_<queue>``: a test that stubs ``getResourceLimitForAllUsers`` of one
#: leaf; the value is a resource, optionally followed by a comment (``"20480:20 (...)"``).
USER_LIMIT_STUB_PREFIX = "user_limit_stub_for_"
#: The harness's ``getMinimumAllocation`` of every leaf queue.
HARNESS_MINIMUM_ALLOCATION = Resource.of(1, 1)

_QUEUE_EXPRESSION = re.compile(
    r"(?P<dashes>-*)(?P<name>[^\s(){}\[\],;=.\-][^\s(){}\[\],;=.]*)\((?P<partitions>.*?)\)(?:\{(?P<options>.*)\})?"
)
_PARTITION_ENTRY = re.compile(r"\s*(?P<label>[^\s=\[\],]*)\s*=\s*\[(?P<values>[^\[\]]*)\]\s*")
_SPEC = re.compile(r"\(([^()]*)\)")


@dataclass(frozen=True)
class MockCluster:
    """A parsed string-notation input: the snapshot and each application's queue token as
    written in ``appsConfig`` (the harness's queue/node matcher compares that string, C.6)."""

    snapshot: ClusterSnapshot
    app_tokens: Mapping[int, str]

    def queue_string(self, container: Container) -> str:
        """How the case names a container's queue: its application's token (``a`` or ``root.a``)."""
        return self.app_tokens[container.app_id]


class _Expressions:
    """The ``;``-separated expressions of one string field, with error reporting."""

    def __init__(self, field: str, text: str, place: str) -> None:
        self.field = field
        self.place = child(place, field)
        pieces = text.split(";")
        self.items = [(i, piece.strip()) for i, piece in enumerate(pieces) if piece.strip()]

    def error(self, index: int, text: str, fault: str) -> CaseFormatError:
        """A format error naming the field, the expression and its text."""
        return CaseFormatError(self.place, f"expression {index} {text!r}: {fault}")


def resource_types(data: Mapping[str, Any], place: str) -> ResourceTypes:
    """The registered resource types: memory and vcores, plus ``resource_types[2:]`` and/or the
    names in ``extra_resource_types`` (which must agree when both are given)."""
    names: tuple[str, ...] | None = None
    if "resource_types" in data:
        where = child(place, "resource_types")
        listed = tuple(as_str(v, child(where, i)) for i, v in enumerate(as_list(data["resource_types"], where)))
        if listed[:2] != (MEMORY, VCORES):
            raise CaseFormatError(where, f"must start with {MEMORY!r}, {VCORES!r}, found {list(listed[:2])}")
        names = listed[2:]
    if "extra_resource_types" in data:
        where = child(place, "extra_resource_types")
        extra = []
        for i, entry in enumerate(as_list(data["extra_resource_types"], where)):
            entry_place = child(where, i)
            extra.append(
                as_str(required(as_object(entry, entry_place), "name", entry_place), child(entry_place, "name"))
            )
        if names is not None and tuple(extra) != names:
            raise CaseFormatError(where, f"names {extra} differ from resource_types {list(names)}")
        names = tuple(extra)
    extra_names = names or ()
    if len(set(extra_names)) != len(extra_names) or {MEMORY, VCORES} & set(extra_names):
        raise CaseFormatError(child(place, "resource_types"), f"resource type names repeat: {list(extra_names)}")
    return ResourceTypes(extra_names)


def parse_resource(text: str, types: ResourceTypes) -> Resource:
    """A resource in the string notation (C.3): ``m`` is ``<m, 1>`` (``<0, 0>`` when m is 0),
    ``m:v`` is ``<m, v>``, ``m:v:x...`` also sets the registered extra types in order.
    Raises ``ValueError`` with the fault."""
    parts = text.strip().split(":")
    if len(parts) > len(types.names):
        registered = ", ".join(types.names)
        raise ValueError(f"resource {text!r} has {len(parts)} components, but the registered types are {registered}")
    amounts = [whole_number_text(part, 0) for part in parts]
    values = [amount for amount in amounts if amount is not None]
    if len(values) != len(parts):
        raise ValueError(f"resource {text!r} is not whole numbers separated by ':'")
    if len(values) == 1:
        return Resource.of(values[0], 1) if values[0] > 0 else ZERO
    return Resource.of(*values)


def parse_mockframework(
    data: Any, conf: Mapping[str, Any], place: str = "input", calc: ResourceCalculator | None = None
) -> MockCluster:
    """Build the snapshot of a string-notation case's ``input`` under the case's ``conf``;
    ``calc`` is the harness's calculator (it sets the users' limits, :mod:`.mock_users`)."""
    data = as_object(data, place)
    accepted = [*STRING_FIELDS, *_TYPE_KEYS, *(k for k in data if k.startswith(USER_LIMIT_STUB_PREFIX))]
    reject_unknown_keys(data, accepted, place)
    texts = {name: as_str(required(data, name, place), child(place, name)) for name in STRING_FIELDS}
    types = resource_types(data, place)
    partitions = _partitions(_Expressions("labelsConfig", texts["labelsConfig"], place), types)
    nodes = _nodes(_Expressions("nodesConfig", texts["nodesConfig"], place), types, partitions)
    queues = _queues(_Expressions("queuesConfig", texts["queuesConfig"], place), types, partitions, conf)
    apps, containers, tokens, percent = _apps(
        _Expressions("appsConfig", texts["appsConfig"], place), types, partitions, nodes, queues
    )
    stubs = user_limit_stubs(data, USER_LIMIT_STUB_PREFIX, types, queues, place)
    queues = with_user_limits(queues, apps, partitions, percent, stubs, calc or calculator("default"))
    try:
        snapshot = ClusterSnapshot.create(
            list(partitions.values()), list(nodes.values()), queues, apps, containers, types
        )
    except ValueError as exc:
        raise CaseFormatError(place, str(exc)) from None
    return MockCluster(snapshot, MappingProxyType(tokens))


def _resource(exprs: _Expressions, index: int, text: str, raw: str, types: ResourceTypes) -> Resource:
    try:
        return parse_resource(raw, types)
    except ValueError as exc:
        raise exprs.error(index, text, str(exc)) from None


def _partitions(exprs: _Expressions, types: ResourceTypes) -> dict[str, Partition]:
    """C.1: ``name=resource,exclusive`` per partition; ``""`` is the default partition."""
    found: dict[str, Partition] = {}
    for index, text in exprs.items:
        name, equals, rest = text.partition("=")
        resource, comma, exclusive = rest.partition(",")
        if not equals or not comma:
            raise exprs.error(index, text, "expected 'name=resource,exclusive' (name empty for the default partition)")
        name = name.strip()
        if name in found:
            raise exprs.error(index, text, f"partition {name!r} is defined twice")
        if exclusive.strip().lower() not in ("true", "false"):
            raise exprs.error(index, text, f"exclusivity must be true or false, found {exclusive.strip()!r}")
        found[name] = Partition(
            name, _resource(exprs, index, text, resource, types), exclusive.strip().lower() == "true"
        )
    if not found:
        raise CaseFormatError(exprs.place, "no partition defined")
    return found


def _nodes(exprs: _Expressions, types: ResourceTypes, partitions: Mapping[str, Partition]) -> dict[str, Node]:
    """C.2: ``host=partition[ res=resource]``; a node without ``res=`` has total 0."""
    found: dict[str, Node] = {}
    for index, text in exprs.items:
        host, equals, rest = text.partition("=")
        host = host.strip()
        if not equals or not host:
            raise exprs.error(index, text, "expected 'host=partition' optionally followed by ' res=resource'")
        label, *options = rest.split(" ")
        if label not in partitions:
            raise exprs.error(index, text, f"partition {label!r} is not in labelsConfig")
        if host in found:
            raise exprs.error(index, text, f"node {host!r} is defined twice")
        node_total = ZERO
        for option in filter(None, options):
            key, equals, value = option.partition("=")
            if key != "res" or not equals:
                raise exprs.error(index, text, f"unknown node option {option!r} (only 'res=resource')")
            node_total = _resource(exprs, index, text, value, types)
        found[host] = Node(host, label, node_total)
    return found


@dataclass(frozen=True)
class _QueueLine:
    """One parsed queue expression before the tree is linked."""

    index: int
    text: str
    depth: int
    name: str
    partitions: Mapping[str, QueuePartition]
    options: Mapping[str, str]


_QUEUE_OPTIONS = ("priority", "disable_preemption")


def _queues(
    exprs: _Expressions, types: ResourceTypes, partitions: Mapping[str, Partition], conf: Mapping[str, Any]
) -> list[Queue]:
    """C.3: the tree by depth of leading dashes; per partition ``[g m u pd (r)]``; options."""
    lines = [_queue_line(exprs, index, text, types, partitions) for index, text in exprs.items]
    if not lines:
        raise CaseFormatError(exprs.place, "no queue defined")
    paths: list[str] = []
    parents: list[int | None] = []
    for position, line in enumerate(lines):
        if position == 0 and line.depth != 0:
            raise exprs.error(line.index, line.text, "the first queue must be the root (no leading '-')")
        if position > 0 and line.depth == 0:
            raise exprs.error(line.index, line.text, "only the first queue may be at depth 0")
        parent = next((p for p in range(position - 1, -1, -1) if lines[p].depth < line.depth), None)
        path = line.name if parent is None else f"{paths[parent]}.{line.name}"
        if parent is None and line.name != ROOT:
            raise exprs.error(line.index, line.text, f"the root queue must be named {ROOT!r}")
        if path in paths:
            raise exprs.error(line.index, line.text, f"queue {path!r} is defined twice")
        paths.append(path)
        parents.append(parent)
    queues = []
    for position, line in enumerate(lines):
        children = tuple(paths[c] for c, p in enumerate(parents) if p == position)
        parent = parents[position]
        disabled = explicit_disable_preemption(conf, paths[position]) or False
        if "disable_preemption" in line.options:
            disabled = line.options["disable_preemption"] == "true"
        queues.append(
            Queue(
                path=paths[position],
                parent=paths[parent] if parent is not None else None,
                children=children,
                leaf=_is_leaf(lines, position),
                partitions=line.partitions,
                preemption_disabled=disabled,
                priority=int(line.options.get("priority", "0")),
                intra_queue_preemption_disabled=explicit_intra_queue_disable(conf, paths[position]) or False,
                ordering_policy=ordering_policy(conf, line.name),
                minimum_allocation=HARNESS_MINIMUM_ALLOCATION,
                # Set with the user limits (mock_users.with_user_limits).
                minimum_user_limit_percent=0.0,
            )
        )
    return queues


def _is_leaf(lines: Sequence[_QueueLine], position: int) -> bool:
    """C.3: a queue is a leaf unless the next expression at a different depth is deeper (so a
    queue followed by a sibling and then by the sibling's child is, as in the harness, a parent
    without children)."""
    depth = lines[position].depth
    for later in lines[position + 1 :]:
        if later.depth != depth:
            return later.depth < depth
    return True


def _queue_line(
    exprs: _Expressions, index: int, text: str, types: ResourceTypes, partitions: Mapping[str, Partition]
) -> _QueueLine:
    match = _QUEUE_EXPRESSION.fullmatch(text)
    if match is None:
        raise exprs.error(index, text, "expected '-...name(partition=[g m u pd (r)],...){key=value,...}'")
    figures: dict[str, QueuePartition] = {}
    body = match["partitions"]
    position = 0
    while body.strip() and position <= len(body):
        entry = _PARTITION_ENTRY.match(body, position)
        if entry is None:
            raise exprs.error(
                index, text, f"cannot read partition entry at {body[position:]!r}: expected 'label=[g m u pd (r)]'"
            )
        label = entry["label"]
        if label not in partitions:
            raise exprs.error(index, text, f"partition {label!r} is not in labelsConfig")
        if label in figures:
            raise exprs.error(index, text, f"partition {label!r} is given twice")
        figures[label] = _queue_figures(exprs, index, text, entry["values"], label, types)
        position = entry.end()
        if position == len(body):
            break
        if body[position] != ",":
            raise exprs.error(index, text, f"expected ',' between partition entries at {body[position:]!r}")
        position += 1
    return _QueueLine(
        index,
        text,
        len(match["dashes"]),
        match["name"],
        MappingProxyType(figures),
        _queue_options(exprs, index, text, match["options"]),
    )


def _queue_figures(
    exprs: _Expressions, index: int, text: str, values: str, label: str, types: ResourceTypes
) -> QueuePartition:
    """``[g m u pd (r)]``: guaranteed, maximum, used, pending, optional reserved. Pending net of
    reserved is ``pd - r`` without clamping at 0 (C.3)."""
    raw = values.split()
    if len(raw) not in (4, 5):
        raise exprs.error(
            index,
            text,
            f"partition {label!r}: expected 4 or 5 resources [guaranteed max used pending (reserved)], found {len(raw)}",
        )
    guaranteed, maximum, used, pending, *rest = (_resource(exprs, index, text, r, types) for r in raw)
    reserved = rest[0] if rest else ZERO
    return QueuePartition(guaranteed, maximum, used, pending, pending - reserved, reserved)


def _queue_options(exprs: _Expressions, index: int, text: str, raw: str | None) -> Mapping[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in (raw or "").split(","))):
        key, equals, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not equals:
            raise exprs.error(index, text, f"option {item!r}: expected key=value")
        if key not in _QUEUE_OPTIONS:
            raise Unsupported(
                f"{exprs.place}: expression {index} {text!r}: queue option {key!r} is not read by this runner (it reads {', '.join(_QUEUE_OPTIONS)})"
            )
        if key == "priority" and whole_number_text(value, *INT_RANGE) is None:
            raise exprs.error(index, text, f"priority must be an integer, found {value!r}")
        if key == "disable_preemption":
            value = value.lower()
            if value not in ("true", "false"):
                raise exprs.error(index, text, f"disable_preemption must be true or false, found {value!r}")
        options[key] = value
    return MappingProxyType(options)


def _resolve_queue(exprs: _Expressions, index: int, text: str, token: str, queues: Sequence[Queue]) -> Queue:
    """C.4: the queue token is a path (``root.a``) or a short name (``a``) that must be unique."""
    matches = (
        [q for q in queues if q.path == token]
        if "." in token or token == ROOT
        else [q for q in queues if q.name == token]
    )
    if not matches:
        raise exprs.error(index, text, f"no queue {token!r} in queuesConfig")
    if len(matches) > 1:
        raise exprs.error(index, text, f"queue name {token!r} is ambiguous: {', '.join(q.path for q in matches)}")
    if not matches[0].leaf:
        raise exprs.error(index, text, f"queue {matches[0].path!r} is not a leaf queue, so it cannot hold applications")
    return matches[0]


def _apps(
    exprs: _Expressions,
    types: ResourceTypes,
    partitions: Mapping[str, Partition],
    nodes: Mapping[str, Node],
    queues: Sequence[Queue],
) -> tuple[list[Application], list[Container], dict[int, str], int | None]:
    """C.4: ``queueToken<TAB>(spec)(spec)...[<TAB>percent[<TAB>schedulable]]`` per application, numbered 1, 2,
    ... Each spec is ``(priority,resource,host,label,repeat,reserved[,pending[,user]])``;
    container numbers run from 1 over the application's specs and container 1 is the AM; the
    application's priority is its last spec's, its pending the sum of its specs' pending,
    asked in the last spec's label. The optional third field of the first application that
    has one is the harness's user-limit percent (returned last, ``None`` without)."""
    apps: list[Application] = []
    containers: list[Container] = []
    tokens: dict[int, str] = {}
    percent: int | None = None
    for index, text in exprs.items:
        token, tab, specs = text.partition("\t")
        specs, _, third = specs.partition("\t")
        third, fourth_tab, fourth = third.partition("\t")
        if "\t" in fourth:
            raise exprs.error(
                index, text, "expected at most four TAB-separated fields: queue, specs, percent, schedulable"
            )
        if third.strip() and percent is None:
            if not third.strip().isdigit() or int(third) == 0:
                raise exprs.error(
                    index,
                    text,
                    f"the user-limit percent after the second TAB must be a whole number > 0, found {third.strip()!r}",
                )
            percent = int(third)
        schedulable = _schedulable(exprs, index, text, third, fourth) if fourth_tab else True
        token = token.strip()
        if not tab or not token:
            raise exprs.error(index, text, "expected the queue, a TAB, then '(spec)(spec)...'")
        queue = _resolve_queue(exprs, index, text, token, queues)
        if not re.fullmatch(r"(\([^()]*\))+", specs.strip()):
            raise exprs.error(
                index, text, "expected one or more '(priority,resource,host,label,repeat,reserved[,pending[,user]])'"
            )
        app_id = len(apps) + 1
        priority = 0
        user = "user"
        number = 0
        pending = ZERO
        label = ""
        for spec_text in _SPEC.findall(specs):
            spec = _ContainerSpec.parse(exprs, index, text, spec_text, types, partitions, nodes)
            if len(containers) + spec.repeat > MAX_CONTAINERS:
                raise exprs.error(index, text, f"the case expands to more than {MAX_CONTAINERS} containers")
            for _ in range(spec.repeat):
                number += 1
                containers.append(
                    Container(
                        ContainerId(app_id, number),
                        queue=queue.path,
                        node=spec.host,
                        resource=spec.resource,
                        priority=spec.priority,
                        is_am=number == 1,
                        reserved=spec.reserved,
                        label=spec.label,
                    )
                )
            priority = spec.priority
            user = spec.user or user
            pending = pending + spec.pending
            label = spec.label
        apps.append(Application(app_id, queue.path, priority, user, ((label, pending),), schedulable=schedulable))
        tokens[app_id] = token
    return apps, containers, tokens, percent


def _schedulable(exprs: _Expressions, index: int, text: str, percent: str, flag: str) -> bool:
    """The optional fourth field (Cloudera's harness, COMPX-5228): ``false`` leaves the
    application out of its leaf's schedulable entities. The harness reads it only after a
    percent and with ``Boolean.parseBoolean``; this reader refuses anything but true/false."""
    if not percent.strip():
        raise exprs.error(index, text, "the schedulable flag after the third TAB needs a user-limit percent before it")
    value = flag.strip().lower()
    if value not in ("true", "false"):
        raise exprs.error(
            index, text, f"the schedulable flag after the third TAB must be true or false, found {flag.strip()!r}"
        )
    return value == "true"


@dataclass(frozen=True)
class _ContainerSpec:
    """One ``(priority,resource,host,label,repeat,reserved[,pending[,user]])``. The pending
    amount only matters to intra-queue preemption."""

    priority: int
    resource: Resource
    host: str
    label: str
    repeat: int
    reserved: bool
    user: str | None
    pending: Resource

    @staticmethod
    def parse(
        exprs: _Expressions,
        index: int,
        text: str,
        spec: str,
        types: ResourceTypes,
        partitions: Mapping[str, Partition],
        nodes: Mapping[str, Node],
    ) -> _ContainerSpec:
        fields = [f.strip() for f in spec.split(",")]

        def fault(message: str) -> CaseFormatError:
            return exprs.error(index, text, f"container spec ({spec}): {message}")

        if not 6 <= len(fields) <= 8:
            raise fault(
                f"expected 6 to 8 fields (priority,resource,host,label,repeat,reserved[,pending[,user]]), found {len(fields)}"
            )
        priority, resource, host, label, repeat, reserved = fields[:6]
        if whole_number_text(priority, *INT_RANGE) is None:
            raise fault(f"priority must be an integer (a Java int), found {priority!r}")
        if host not in nodes:
            raise fault(f"node {host!r} is not in nodesConfig")
        if label not in partitions:
            raise fault(f"label {label!r} is not a partition in labelsConfig")
        if whole_number_text(repeat, 0, MAX_CONTAINERS) is None:
            raise fault(f"repeat must be a whole number 0..{MAX_CONTAINERS}, found {repeat!r}")
        if reserved.lower() not in ("true", "false"):
            raise fault(f"reserved must be true or false, found {reserved!r}")
        try:
            size = parse_resource(resource, types)
            pending = parse_resource(fields[6], types) if len(fields) > 6 else ZERO
        except ValueError as exc:
            raise fault(str(exc)) from None
        user = fields[7] if len(fields) > 7 and fields[7] else None
        return _ContainerSpec(int(priority), size, host, label, int(repeat), reserved.lower() == "true", user, pending)
