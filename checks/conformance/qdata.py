"""The qData notation of ``TestProportionalCapacityPreemptionPolicy`` -> a cluster snapshot.

An integer matrix with one column per queue in depth-first pre-order (column 0 = root) and one
row per figure (semantics B.1): ``abs`` (guaranteed), ``maxCap``, ``used``, ``pending``,
``reserved``, ``apps``, ``gran`` (container size), ``subqueues``. The parser rebuilds the tree
(B.2), the cluster and capacities (B.3), the applications and their containers (B.4), the
resource-string variant (B.5) and the inherited disable flags (B.6). Every fault is a
:class:`CaseFormatError` naming the cell, e.g. ``input.rows.used[3]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from yarnspec.checks.conformance.case_fields import (
    as_bool,
    as_int,
    as_list,
    as_number,
    as_object,
    as_str,
    child,
    describe,
    explicit_disable_preemption,
    reject_unknown_keys,
    required,
    whole_number_text,
)
from yarnspec.checks.conformance.outcome import CaseFormatError, Unsupported
from yarnspec.impl.calculator import ResourceCalculator
from yarnspec.impl.cluster import (
    DEFAULT_PARTITION,
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
from yarnspec.impl.resources import ZERO, Resource, total

#: Rows holding amounts (each becomes a resource) and rows holding counts.
QUANTITY_ROWS = ("abs", "maxCap", "used", "pending", "reserved", "gran")
COUNT_ROWS = ("apps", "subqueues")
ROWS = QUANTITY_ROWS + COUNT_ROWS

#: The test's application constants. ``appF`` is built with id 4, like ``appE`` (semantics B.4).
TEST_CONSTANTS: Mapping[str, int] = {"appA": 0, "appB": 1, "appC": 2, "appD": 3, "appE": 4, "appF": 4}

#: The one node every qData container is on (the harness's mocked ``localhost:0``).
NODE = "localhost:0"

#: The ``input.variant`` of ``testPreemptionWithVCoreResource`` (semantics B.5).
RESOURCE_STRINGS = "qdata-with-resource-strings"

#: A guard against a container size so small that a case would expand into too many containers
#: (checked before they are built), and against too many applications.
MAX_CONTAINERS = 100_000
MAX_APPS = 10_000

_INPUT_KEYS = (
    "rows",
    "int_rows",
    "resource_rows",
    "variant",
    "set_am_container",
    "max_am_resource_percent",
    "extra_queue",
)
_EXTRA_QUEUE_KEYS = ("path", "kind", "effective_min", "effective_max", "used", "reserved", "pending")


@dataclass(frozen=True)
class QApp:
    """One application as the parser laid it out (semantics B.4)."""

    app_id: int
    test_constant: str | None
    used_per_app: Resource
    reserved_per_app: Resource
    container_size: Resource
    reserved_numbers: tuple[int, ...]
    live_numbers: tuple[int, ...]
    am_number: int | None


@dataclass(frozen=True)
class QColumn:
    """One column of the matrix: the queue it became and, for a leaf, its applications."""

    col: int
    name: str
    path: str
    parent: str | None
    leaf: bool
    apps: tuple[QApp, ...]


@dataclass(frozen=True)
class QDataCluster:
    """A parsed qData input: the snapshot the policy reads and the layout behind it."""

    snapshot: ClusterSnapshot
    columns: tuple[QColumn, ...]

    def queue_string(self, container: Container) -> str:
        """How a case names a container's queue: its path (the notation has no other name)."""
        return container.queue


def app_id_of_constant(name: str, place: str) -> int:
    """The application id of a test constant such as ``appC``."""
    if name not in TEST_CONSTANTS:
        known = ", ".join(TEST_CONSTANTS)
        raise CaseFormatError(place, f"unknown application constant {name!r} (the test defines {known})")
    return TEST_CONSTANTS[name]


def constant_of_app_id(app_id: int) -> str | None:
    """The first test constant naming ``app_id`` (``appE`` for 4), or ``None``."""
    return next((name for name, value in TEST_CONSTANTS.items() if value == app_id), None)


def column_name(col: int) -> str:
    """The queue name of a column: ``root``, then ``queueA``, ``queueB``..."""
    return ROOT if col == 0 else "queue" + chr(ord("A") + col - 1)


def parse_resource_string(text: str, place: str) -> Resource:
    """A qData resource string: ``"m:v"`` is ``<m, v>``; a single ``"m"`` is ``<m, 0>`` (B.5)."""
    parts = text.split(":")
    if len(parts) > 2:
        raise CaseFormatError(place, f"resource {text!r}: expected 'memory' or 'memory:vcores'")
    values = [whole_number_text(part) for part in parts]
    if any(value is None for value in values):
        raise CaseFormatError(place, f"resource {text!r}: not whole numbers")
    return Resource.of(*(value for value in values if value is not None))


def parse_qdata(data: Any, conf: Mapping[str, Any], calc: ResourceCalculator, place: str = "input") -> QDataCluster:
    """Build the snapshot of a qData case's ``input`` under the case's ``conf`` and calculator."""
    data = as_object(data, place)
    reject_unknown_keys(data, _INPUT_KEYS, place)
    rows = _read_rows(data, place)
    width = len(rows["subqueues"].values)
    parents = _parents(rows["subqueues"], place)
    leaves = [col > 0 and rows["subqueues"].values[col] == 0 for col in range(width)]
    paths = _paths(parents)
    quantities = {name: [_quantity(rows[name], col) for col in range(width)] for name in QUANTITY_ROWS}
    _check_amounts(rows, quantities, leaves)
    cluster = total(quantities["abs"][col] for col in range(width) if leaves[col])
    set_am = as_bool(data.get("set_am_container", False), child(place, "set_am_container"))
    am_percent = _am_percent(data, place)

    columns: list[QColumn] = []
    apps: list[Application] = []
    containers: list[Container] = []
    next_app = 0
    for col in range(width):
        col_apps: list[QApp] = []
        # a parent column's count is upstream's total and is not read, but it must be a count
        app_count = as_int(rows["apps"].values[col], rows["apps"].cell(col), minimum=0, maximum=MAX_APPS)
        if leaves[col]:
            for _ in range(app_count):
                q_app, app_containers = _lay_out_app(
                    next_app, app_count, paths[col], col, rows, quantities, cluster, calc, set_am
                )
                col_apps.append(q_app)
                apps.append(Application(next_app, paths[col]))
                containers.extend(app_containers)
                next_app += 1
                if len(containers) > MAX_CONTAINERS:
                    raise CaseFormatError(
                        rows["gran"].cell(col), f"the case expands to more than {MAX_CONTAINERS} containers"
                    )
        parent_col = parents[col]
        parent = None if parent_col is None else paths[parent_col]
        columns.append(QColumn(col, column_name(col), paths[col], parent, leaves[col], tuple(col_apps)))

    queues = _queues(columns, parents, quantities, conf, am_percent)
    if "extra_queue" in data:
        queues = _with_extra_queue(queues, data["extra_queue"], conf, child(place, "extra_queue"))
    partition = Partition(DEFAULT_PARTITION, cluster, exclusive=True)
    node = Node(NODE, DEFAULT_PARTITION, cluster)
    try:
        snapshot = ClusterSnapshot.create([partition], [node], queues, apps, containers)
    except ValueError as exc:
        raise CaseFormatError(place, str(exc)) from None
    return QDataCluster(snapshot, tuple(columns))


@dataclass(frozen=True)
class _Row:
    """One row as read: its values and the JSON place of the list holding them."""

    name: str
    place: str
    values: list[Any]

    def cell(self, col: int) -> str:
        return child(self.place, col)


def _read_rows(data: Mapping[str, Any], place: str) -> dict[str, _Row]:
    """Every row, from ``rows`` (integers) or, in the resource-string variant, from
    ``int_rows`` and ``resource_rows`` (B.5); each row exactly once, all the same length."""
    variant = data.get("variant")
    if variant is not None and variant != RESOURCE_STRINGS:
        raise Unsupported(
            f"{child(place, 'variant')}: qdata variant {variant!r} is not read by this runner (it reads {RESOURCE_STRINGS!r})"
        )
    sources = ("int_rows", "resource_rows") if variant == RESOURCE_STRINGS else ("rows",)
    for other in ("rows", "int_rows", "resource_rows"):
        if other in data and other not in sources:
            fault = "only with variant" if other != "rows" else "not with variant"
            raise CaseFormatError(child(place, other), f"{fault} {RESOURCE_STRINGS!r}")
    rows: dict[str, _Row] = {}
    for source in sources:
        source_place = child(place, source)
        table = as_object(required(data, source, place), source_place)
        for name, values in table.items():
            row_place = child(source_place, name)
            if name not in ROWS:
                raise Unsupported(f"{row_place}: row {name!r} is not read by this runner (it reads {', '.join(ROWS)})")
            if name in rows:
                raise CaseFormatError(row_place, f"row {name!r} is given twice (also in {rows[name].place})")
            if source == "resource_rows" and name in COUNT_ROWS:
                raise CaseFormatError(row_place, f"row {name!r} holds counts, not resources; give it in int_rows")
            rows[name] = _Row(name, row_place, as_list(values, row_place))
    for name in ROWS:
        if name not in rows:
            raise CaseFormatError(child(child(place, sources[0]), name), "missing required row")
    width = len(rows["subqueues"].values)
    if width < 2:
        raise CaseFormatError(rows["subqueues"].place, "expected root and at least one queue (2 or more columns)")
    for row in rows.values():
        if len(row.values) != width:
            raise CaseFormatError(row.place, f"has {len(row.values)} columns, but subqueues has {width}")
    return rows


def _quantity(row: _Row, col: int) -> Resource:
    """A cell as a resource: an integer ``v`` is ``<v, v>`` (B.1), a string is B.5's."""
    value = row.values[col]
    if isinstance(value, str):
        return parse_resource_string(value, row.cell(col))
    number = as_int(value, row.cell(col))
    return Resource.of(number, number)


def _check_amounts(rows: dict[str, _Row], quantities: dict[str, list[Resource]], leaves: list[bool]) -> None:
    """Amounts are never negative; a leaf that uses or reserves something has a positive
    container size (otherwise its containers could not be counted)."""
    for name in ("abs", "maxCap", "used", "pending", "reserved"):
        for col, amount in enumerate(quantities[name]):
            if any(v < 0 for v in amount.values):
                raise CaseFormatError(rows[name].cell(col), f"a {name} amount cannot be negative, found {amount}")
    for col, leaf in enumerate(leaves):
        if not leaf:
            continue
        size = quantities["gran"][col]
        needs_containers = not (quantities["used"][col].is_zero() and quantities["reserved"][col].is_zero())
        if needs_containers and (any(v < 0 for v in size.values) or all(v == 0 for v in size.values)):
            raise CaseFormatError(
                rows["gran"].cell(col),
                f"a leaf that uses or reserves resources needs a positive container size, found {size}",
            )


def _parents(subqueues: _Row, place: str) -> list[int | None]:
    """Each column's parent column, from the ``subqueues`` row with a stack (B.2)."""
    width = len(subqueues.values)
    counts = [as_int(v, subqueues.cell(col), minimum=0, maximum=width - 1) for col, v in enumerate(subqueues.values)]
    if counts[0] == 0:
        raise CaseFormatError(subqueues.cell(0), "root must have at least one child queue")
    stack = [0] * counts[0]
    parents: list[int | None] = [None]
    for col in range(1, len(counts)):
        if not stack:
            raise CaseFormatError(
                subqueues.place, f"column {col} has no parent: the counts declare fewer queues than there are columns"
            )
        parents.append(stack.pop())
        stack.extend([col] * counts[col])
    if stack:
        raise CaseFormatError(subqueues.place, f"the counts declare {len(stack)} more queue(s) than there are columns")
    return parents


def _paths(parents: list[int | None]) -> list[str]:
    paths: list[str] = []
    for col, parent in enumerate(parents):
        paths.append(ROOT if parent is None else f"{paths[parent]}.{column_name(col)}")
    return paths


def _am_percent(data: Mapping[str, Any], place: str) -> float:
    """The maximum AM resource percent of every leaf (0 unless the test sets one, B.4)."""
    if "max_am_resource_percent" not in data:
        return 0.0
    where = child(place, "max_am_resource_percent")
    value = as_number(data["max_am_resource_percent"], where)
    if not 0.0 <= value <= 1.0:
        raise CaseFormatError(where, f"expected a fraction between 0 and 1, found {value}")
    return value


def _ceil_divide(amount: Resource, parts: int) -> Resource:
    """``amount / parts`` rounded up per component (each application's share, B.4)."""
    return Resource(tuple(-(-v // parts) for v in amount.values))


def _lay_out_app(
    app_id: int,
    k: int,
    queue: str,
    col: int,
    rows: dict[str, _Row],
    quantities: dict[str, list[Resource]],
    cluster: Resource,
    calc: ResourceCalculator,
    set_am: bool,
) -> tuple[QApp, list[Container]]:
    """One application's containers: reserved ones first, then live ones, all of the column's
    size, added while the running sum is below the app's share (B.4). With ``set_am`` the first
    live container is the AM (priority 0); the others have priority 1. ``k`` is the number of
    applications sharing the leaf's figures."""
    used = _ceil_divide(quantities["used"][col], k)
    reserved = _ceil_divide(quantities["reserved"][col], k)
    size = quantities["gran"][col]
    containers: list[Container] = []
    numbers: dict[bool, list[int]] = {True: [], False: []}
    expected = sum(_containers_for(amount, size) for amount in (reserved, used))
    if expected > MAX_CONTAINERS:
        raise CaseFormatError(
            rows["gran"].cell(col), f"container size {size} expands to more than {MAX_CONTAINERS} containers"
        )
    for is_reserved, amount in ((True, reserved), (False, used)):
        running = ZERO
        while calc.less(cluster, running, amount):
            number = len(containers)
            is_am = set_am and not is_reserved and not numbers[False]
            containers.append(
                Container(
                    ContainerId(app_id, number),
                    queue=queue,
                    node=NODE,
                    resource=size,
                    priority=0 if is_am else 1,
                    is_am=is_am,
                    reserved=is_reserved,
                )
            )
            numbers[is_reserved].append(number)
            running = running + size
            if len(containers) > MAX_CONTAINERS:
                raise CaseFormatError(
                    rows["gran"].cell(col), f"container size {size} expands to more than {MAX_CONTAINERS} containers"
                )
    live = tuple(numbers[False])
    am_number = live[0] if set_am and live else None
    q_app = QApp(app_id, constant_of_app_id(app_id), used, reserved, size, tuple(numbers[True]), live, am_number)
    return q_app, containers


def _containers_for(amount: Resource, size: Resource) -> int:
    """How many containers of ``size`` cover ``amount`` in every component it has (an upper
    bound of the layout loop below, computed before any container is built)."""
    counts = [-(-a // s) for a, s in zip(amount.values, size.values) if s > 0 and a > 0]
    return max(counts, default=0)


def _queues(
    columns: list[QColumn],
    parents: list[int | None],
    quantities: dict[str, list[Resource]],
    conf: Mapping[str, Any],
    am_percent: float,
) -> list[Queue]:
    """The queues with their figures in the one partition. A leaf's pending net of reserved is
    ``max(pending - reserved, 0)``; a parent's pending cells are ignored and its pending is the
    sum over its children (B.3)."""
    width = len(columns)
    children: list[list[int]] = [[] for _ in range(width)]
    for col, parent in enumerate(parents):
        if parent is not None:
            children[parent].append(col)
    pending: list[Resource] = [ZERO] * width
    net: list[Resource] = [ZERO] * width
    for col in reversed(range(width)):  # children come after their parent in pre-order
        if columns[col].leaf:
            pending[col] = quantities["pending"][col]
            net[col] = (quantities["pending"][col] - quantities["reserved"][col]).clamp_min_zero()
        else:
            pending[col] = total(pending[c] for c in children[col])
            net[col] = total(net[c] for c in children[col])
    queues = []
    for col, column in enumerate(columns):
        figures = QueuePartition(
            guaranteed=quantities["abs"][col],
            maximum=quantities["maxCap"][col],
            used=quantities["used"][col],
            pending=pending[col],
            pending_net_reserved=net[col],
            reserved=quantities["reserved"][col],
        )
        queues.append(
            Queue(
                path=column.path,
                parent=column.parent,
                children=tuple(columns[c].path for c in children[col]),
                leaf=column.leaf,
                partitions={DEFAULT_PARTITION: figures},
                preemption_disabled=inherited_disable_preemption(conf, column.path),
                max_am_percent=am_percent if column.leaf else 0.0,
            )
        )
    return queues


def inherited_disable_preemption(conf: Mapping[str, Any], path: str) -> bool:
    """B.6: the nearest of the path's prefixes (the queue itself first, root last) with an
    explicit ``disable_preemption`` decides; none means preemption is enabled."""
    parts = path.split(".")
    for length in range(len(parts), 0, -1):
        setting = explicit_disable_preemption(conf, ".".join(parts[:length]))
        if setting is not None:
            return setting
    return False


def _with_extra_queue(queues: list[Queue], raw: Any, conf: Mapping[str, Any], place: str) -> list[Queue]:
    """Add ``input.extra_queue``: a parent queue without children (one that may create children
    dynamically), which is therefore not a leaf (semantics A.2, ``testLeafQueueNameExtraction``).
    Amounts are whole megabytes (``1024``, ``"1 MB"``) or ``"<memory,vcores>"``."""
    spec = as_object(raw, place)
    reject_unknown_keys(spec, _EXTRA_QUEUE_KEYS, place)
    path = as_str(required(spec, "path", place), child(place, "path"))
    parent_path, _, name = path.rpartition(".")
    by_path = {q.path: q for q in queues}
    if not name or parent_path not in by_path or by_path[parent_path].leaf:
        raise CaseFormatError(child(place, "path"), f"{path!r} is not a new queue under an existing parent queue")
    if path in by_path:
        raise CaseFormatError(child(place, "path"), f"queue {path!r} already exists")
    pending = _extra_amount(spec, "pending", place)
    reserved = _extra_amount(spec, "reserved", place)
    figures = QueuePartition(
        guaranteed=_extra_amount(spec, "effective_min", place),
        maximum=_extra_amount(spec, "effective_max", place),
        used=_extra_amount(spec, "used", place),
        pending=pending,
        pending_net_reserved=(pending - reserved).clamp_min_zero(),
        reserved=reserved,
    )
    extra = Queue(
        path,
        parent_path,
        (),
        leaf=False,
        partitions={DEFAULT_PARTITION: figures},
        preemption_disabled=inherited_disable_preemption(conf, path),
    )
    updated = replace(by_path[parent_path], children=by_path[parent_path].children + (path,))
    return [updated if q.path == parent_path else q for q in queues] + [extra]


def _extra_amount(spec: Mapping[str, Any], key: str, place: str) -> Resource:
    where = child(place, key)
    value = spec.get(key, 0)
    if isinstance(value, bool):
        raise CaseFormatError(where, f"expected an amount, found {describe(value)}")
    if isinstance(value, int):
        memory = as_int(value, where)
    elif isinstance(value, str):
        text = value.strip()
        if text.startswith("<") and text.endswith(">"):
            parts = [p.strip() for p in text[1:-1].split(",")]
            amounts = [whole_number_text(p, 0) for p in parts]
            if len(amounts) == 2 and amounts[0] is not None and amounts[1] is not None:
                return Resource.of(amounts[0], amounts[1])
            raise CaseFormatError(where, f"expected '<memory,vcores>', found {value!r}")
        number = whole_number_text(text[:-2] if text.upper().endswith("MB") else text, 0)
        if number is None:
            raise CaseFormatError(where, f"expected whole megabytes such as 1024 or '1 MB', found {value!r}")
        memory = number
    else:
        raise CaseFormatError(where, f"expected an amount, found {describe(value)}")
    if memory < 0:
        raise CaseFormatError(where, f"an amount cannot be negative, found {memory}")
    return Resource.of(memory, 0)


# --- the transcriber's ``derived`` expansion, compared with the parse (warnings only) ---------


def derived_mismatches(parsed: QDataCluster, derived: Any, place: str = "input.derived") -> list[str]:
    """Where the case's ``derived`` section disagrees with this parse, one message each.

    ``derived`` is the transcriber's own expansion of the layout (cluster size, queue tree,
    applications, container ids, AM ids); upstream asserts none of it, so a disagreement is a
    warning for the reader, never a verdict. Keys this function does not know are prose and
    are skipped.
    """
    found: list[str] = []
    if not isinstance(derived, dict):
        return [f"{place}: expected an object, found {describe(derived)}; not compared"]
    cluster = parsed.snapshot.cluster_resource
    _compare(found, child(place, "cluster_memory"), derived, "cluster_memory", cluster.memory)
    _compare(found, child(place, "cluster_vcores"), derived, "cluster_vcores", cluster.vcores)
    if isinstance(derived.get("cluster"), str):
        try:
            written = parse_resource_string(derived["cluster"], child(place, "cluster"))
        except CaseFormatError as exc:
            found.append(f"{exc}; not compared")
        else:
            if written != cluster:
                found.append(_message(child(place, "cluster"), derived["cluster"], str(cluster)))
    if "queues" in derived:
        _compare_queues(found, parsed, derived["queues"], child(place, "queues"))
    return found


def _message(place: str, written: object, parsed: object) -> str:
    return f"{place}: the case's derived value is {written!r}, the parse gives {parsed!r}"


def _compare(found: list[str], place: str, derived: Mapping[str, Any], key: str, parsed: object) -> None:
    if key in derived and derived[key] != parsed:
        found.append(_message(place, derived[key], parsed))


def _compare_queues(found: list[str], parsed: QDataCluster, raw: Any, place: str) -> None:
    if not isinstance(raw, list):
        found.append(f"{place}: expected a list, found {describe(raw)}; not compared")
        return
    for index, entry in enumerate(raw):
        where = child(place, index)
        col = entry.get("col") if isinstance(entry, dict) else None
        if isinstance(col, bool) or not isinstance(col, int) or not 0 <= col < len(parsed.columns):
            found.append(f"{where}: no column {col!r} in the parse; not compared")
            continue
        column = parsed.columns[col]
        for key, value in (
            ("name", column.name),
            ("path", column.path),
            ("parent", column.parent),
            ("leaf", column.leaf),
        ):
            _compare(found, child(where, key), entry, key, value)
        if "apps" in entry:
            _compare_apps(found, column, entry["apps"], child(where, "apps"))


def _compare_apps(found: list[str], column: QColumn, raw: Any, place: str) -> None:
    if not isinstance(raw, list):
        found.append(f"{place}: expected a list, found {describe(raw)}; not compared")
        return
    if len(raw) != len(column.apps):
        found.append(_message(place, f"{len(raw)} applications", f"{len(column.apps)} applications"))
    for index, (entry, app) in enumerate(zip(raw, column.apps)):
        where = child(place, index)
        if not isinstance(entry, dict):
            found.append(f"{where}: expected an object; not compared")
            continue
        plain: dict[str, object] = {
            "app_id": app.app_id,
            "test_constant": app.test_constant,
            "reserved_containers": len(app.reserved_numbers),
            "live_containers": len(app.live_numbers),
            "am_container_id": app.am_number,
        }
        for key, value in plain.items():
            _compare(found, child(where, key), entry, key, value)
        for key, amount in (
            ("used_per_app", app.used_per_app),
            ("reserved_per_app", app.reserved_per_app),
            ("container_size", app.container_size),
        ):
            if key in entry and not _same_amount(entry[key], amount):
                found.append(_message(child(where, key), entry[key], str(amount)))
        ids = entry.get("container_ids")
        if isinstance(ids, dict):
            for key, numbers in (("reserved", app.reserved_numbers), ("live", app.live_numbers)):
                span = [numbers[0], numbers[-1]] if numbers else None
                _compare(found, child(child(where, "container_ids"), key), ids, key, span)


def _same_amount(written: Any, parsed: Resource) -> bool:
    """A derived amount matches: an integer ``v`` means ``<v, v>`` (B.1), a string B.5's."""
    if isinstance(written, int) and not isinstance(written, bool):
        return parsed == Resource.of(written, written)
    if isinstance(written, str):
        try:
            return parse_resource_string(written, "") == parsed
        except CaseFormatError:
            return False
    return False
