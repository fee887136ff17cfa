"""The CapacityScheduler queue tree as ``capacity-scheduler.xml`` configures it, validated.

Per queue: its path and children, its capacity and maximum capacity per node label (a
percentage, a weight ``3w`` or an absolute resource ``[memory=10240,vcores=10]``), the labels
it may use, preemption switch (inherited), priority, AM share, user limits, state and ordering
policy. Capacities are turned into fractions of the partition down the tree with Hadoop's
single-precision arithmetic (``absolute = relative x parent's absolute``), because the
guaranteed resource is a truncated product of that float (semantics A.2).

Validation follows Hadoop 3.3's rules in its default ("legacy") queue mode, each fault one
:class:`InputError` naming the file and line, the property and its value:

* root lists its children; every listed child has properties and a valid, unique name;
* capacities are numbers in [0, 100] (weights > 0, resources of memory and vcores >= 0);
  a non-label ``maximum-capacity`` of -1 means 100; root's capacity is 100;
* siblings use one form (percent, weight or absolute); below root, an absolute queue's
  children are absolute and a percent queue's are not;
* percent children of a parent sum to 100 per label of the parent within Hadoop's tolerance
  (0.0005 as a fraction), or to 0 where the parent's own capacity is 0 or
  ``allow-zero-capacity-sum`` is set; absolute children's sum stays within the parent's;
* absolute capacity never exceeds absolute maximum (and an absolute minimum its maximum);
* accessible labels are a subset of the parent's (below root), the default label expression
  is an accessible single label, and no queue has capacity in a label it cannot access;
* a RUNNING queue cannot sit under a STOPPED one; ordering policies are Hadoop's names.

Things Hadoop accepts but that are probably mistakes become warnings (for example a label
whose root capacity is 0, so nobody gets a guarantee there).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from yarnspec.impl.calculator import CalculatorName
from yarnspec.impl.config.getters import get_long, java_trim
from yarnspec.impl.config.hadoop_xml import HadoopConfiguration, parse_decimal
from yarnspec.impl.config.keys import CAPACITY_PREFIX
from yarnspec.impl.config.warning import ConfigWarning
from yarnspec.impl.resources import ZERO, Resource, f32

ROOT = "root"
ANY_LABEL = "*"
NO_LABEL = ""
#: Hadoop ``ParentQueue.PRECISION``: tolerance of the children's capacity sum (as a fraction).
SUM_PRECISION = 0.0005
#: The global default of every queue's ``maximum-am-resource-percent``.
MAX_AM_PERCENT_KEY = CAPACITY_PREFIX + "maximum-am-resource-percent"
DEFAULT_MAX_AM_PERCENT = 0.1

CapacityKind = Literal["percent", "weight", "absolute"]
QueueState = Literal["RUNNING", "STOPPED"]

#: A parent's queue ordering policies; ``priority-utilization`` makes queue priorities count.
QUEUE_ORDERING_POLICIES = ("utilization", "priority-utilization")
_POLICY_PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.policy."
#: A leaf's application ordering policies: short names and class names, to the short name.
APP_ORDERING_POLICIES: Mapping[str, str] = MappingProxyType(
    {
        "fifo": "fifo",
        "fair": "fair",
        "fifo-with-partitions": "fifo-with-partitions",
        "fifo-for-pending-updates": "fifo-for-pending-updates",
        _POLICY_PACKAGE + "FifoOrderingPolicy": "fifo",
        _POLICY_PACKAGE + "FairOrderingPolicy": "fair",
        _POLICY_PACKAGE + "FifoOrderingPolicyWithExclusivePartitions": "fifo-with-partitions",
        _POLICY_PACKAGE + "FifoOrderingPolicyForPendingApps": "fifo-for-pending-updates",
    }
)

#: Hadoop's node label name rule (``CommonNodeLabelsManager``).
_LABEL_NAME = re.compile(r"[0-9a-zA-Z][0-9a-zA-Z_-]{0,254}")
_RESOURCE_INDEX = MappingProxyType({"memory": 0, "memory-mb": 0, "vcores": 1})
_MEMORY_UNITS = MappingProxyType({"": 1, "Mi": 1, "Gi": 1024, "Ti": 1024 * 1024})
#: Per-queue setting words, to recognise properties of a queue missing from the tree.
_QUEUE_SETTINGS = frozenset(
    {
        "capacity", "maximum-capacity", "queues", "accessible-node-labels", "default-node-label-expression",
        "disable_preemption", "priority", "maximum-am-resource-percent", "minimum-user-limit-percent",
        "user-limit-factor", "state", "ordering-policy", "maximum-applications", "acl_submit_applications",
        "acl_administer_queue", "allow-zero-capacity-sum", "auto-create-child-queue",
        "intra-queue-preemption",
    }
)  # fmt: skip
_TEMPLATE_WORDS = frozenset({"leaf-queue-template", "auto-queue-creation-v2"})
_FORM: Mapping[str, str] = MappingProxyType({"percent": "percentage", "weight": "weight", "absolute": "resource"})


@dataclass(frozen=True)
class Capacity:
    """One capacity setting: ``amount`` is the percentage or the weight; ``resource`` the
    absolute resource. ``text`` is what is shown; ``configured`` whether it was written."""

    kind: CapacityKind
    amount: float = 0.0
    resource: Resource | None = None
    text: str = "0"
    configured: bool = False

    def is_positive(self) -> bool:
        """Whether this promises anything (a share > 0 or a non-zero resource)."""
        if self.kind == "absolute":
            return self.resource is not None and not self.resource.is_zero()
        return self.amount > 0

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class LabelCapacity:
    """A queue's capacity in one partition.

    ``relative`` is the share of the parent (percent / 100, or the normalised weight) and
    ``absolute`` the share of the whole partition, both Java floats; they are ``None`` for an
    absolute-resource queue, whose shares depend on the cluster (see :mod:`.build`).
    """

    capacity: Capacity
    maximum: Capacity
    relative: float | None = 0.0
    relative_maximum: float | None = 0.0
    absolute: float | None = 0.0
    absolute_maximum: float | None = 0.0


_UNCONFIGURED = LabelCapacity(Capacity("percent"), Capacity("percent"))


@dataclass(frozen=True)
class QueueConfig:
    """One queue as configured, with inherited settings resolved.

    ``labels`` holds the partitions the queue has settings for (always ``""``); any other
    partition gives it nothing (:meth:`at`). ``accessible_labels`` may be ``{"*"}`` (all).
    ``disable_preemption`` is the queue's own switch after inheritance (the monitor switch is
    applied by :class:`~.scheduler.SchedulerConfiguration`). ``ordering_policy`` is the queue
    ordering policy of a parent, the application ordering policy of a leaf.
    """

    path: str
    parent: str | None
    children: tuple[str, ...]
    mode: CapacityKind
    labels: Mapping[str, LabelCapacity]
    accessible_labels: frozenset[str]
    default_label_expression: str = ""
    disable_preemption: bool = False
    priority: int = 0
    max_am_percent: float = DEFAULT_MAX_AM_PERCENT
    minimum_user_limit_percent: float = 100.0
    user_limit_factor: float = 1.0
    state: QueueState = "RUNNING"
    ordering_policy: str = "fifo"
    auto_create_children: bool = False

    @property
    def name(self) -> str:
        """The last component of the path."""
        return self.path.rsplit(".", 1)[-1]

    @property
    def leaf(self) -> bool:
        """No children and no dynamic child creation (semantics A.2)."""
        return not self.children and not self.auto_create_children

    def can_access(self, label: str) -> bool:
        """Whether the queue may use nodes of ``label`` (everyone may use ``""``)."""
        return label_accessible(self.accessible_labels, label)

    def at(self, label: str) -> LabelCapacity:
        """The capacity in ``label``; zero everywhere for a label the queue has no settings for."""
        return self.labels.get(label, _UNCONFIGURED)


@dataclass(frozen=True)
class QueueTree:
    """Every queue by path, in pre-order (children in the order listed).

    ``label_references`` maps each node label the configuration names to the first property
    naming it (to point at it when the cluster has no such label).
    """

    queues: Mapping[str, QueueConfig]
    label_references: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def __getitem__(self, path: str) -> QueueConfig:
        return self.queues[path]

    def __iter__(self) -> Iterator[QueueConfig]:
        return iter(self.queues.values())

    def __len__(self) -> int:
        return len(self.queues)

    @property
    def root(self) -> QueueConfig:
        """The root queue."""
        return self.queues[ROOT]

    @property
    def leaves(self) -> tuple[str, ...]:
        """Leaf paths in pre-order."""
        return tuple(q.path for q in self if q.leaf)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every node label some queue has settings for, in the order first met (``""`` excluded)."""
        return tuple(label for label in self.root.labels if label != NO_LABEL)


def read_queue_tree(
    conf: HadoopConfiguration, calculator: CalculatorName = "default", known_labels: Collection[str] | None = None
) -> QueueTree:
    """The validated queue tree of ``conf``. With ``known_labels`` (the cluster's node labels)
    every label the configuration names must be one of them."""
    tree = _TreeReader(conf, calculator).read()
    if known_labels is not None:
        check_known_labels(tree, conf, known_labels)
    return tree


def check_known_labels(tree: QueueTree, conf: HadoopConfiguration, known_labels: Collection[str]) -> None:
    """Raise :class:`InputError` at the first property naming a label not in ``known_labels``."""
    known = sorted(set(known_labels) - {NO_LABEL})
    for label, key in tree.label_references.items():
        if label not in known:
            listed = ", ".join(known) if known else "none"
            raise conf.error(key, f"label {label!r} is not a node label of the cluster (its labels: {listed})")


def label_accessible(accessible: frozenset[str], label: str) -> bool:
    """Whether a queue with ``accessible`` labels may use ``label`` (everyone may use ``""``)."""
    return label == NO_LABEL or ANY_LABEL in accessible or label in accessible


def exceeds(calculator: CalculatorName, a: Resource, b: Resource) -> bool:
    """Whether ``a`` is more than ``b`` for a configuration check: by memory for the Default
    calculator (as Hadoop compares); in any resource for DRF (Hadoop compares dominant shares
    of the cluster, unknown when reading files, so any excess is refused)."""
    if calculator == "default":
        return a.memory > b.memory
    return not a.fits_all(b)


def queue_key(path: str, setting: str) -> str:
    """``yarn.scheduler.capacity.<path>.<setting>``."""
    return f"{CAPACITY_PREFIX}{path}.{setting}"


def label_key(path: str, label: str, setting: str) -> str:
    """The key of a per-label setting: ``<queue>.capacity`` for ``""``, otherwise
    ``<queue>.accessible-node-labels.<label>.<setting>``."""
    if label == NO_LABEL:
        return queue_key(path, setting)
    return queue_key(path, f"accessible-node-labels.{label}.{setting}")


def parse_resource(text: str) -> Resource:
    """``[memory=10240,vcores=10]`` (``memory-mb`` also; memory may carry ``Mi``/``Gi``/``Ti``);
    unnamed types are 0. ``ValueError`` with the reason otherwise."""
    inner = text.strip()[1:-1].strip()
    if not inner:
        raise ValueError("an empty resource")
    values = [0, 0]
    seen: set[int] = set()
    for item in inner.split(","):
        name, equals, amount = (part.strip() for part in item.partition("="))
        if not equals:
            raise ValueError(f"{item.strip()!r} is not name=value")
        if name not in _RESOURCE_INDEX:
            raise ValueError(f"resource type {name!r} is not modelled (memory and vcores are)")
        index = _RESOURCE_INDEX[name]
        if index in seen:
            raise ValueError(f"{name} is given twice")
        seen.add(index)
        match = re.fullmatch(r"([0-9]+)\s*([A-Za-z]*)", amount)  # Java's \\d: ASCII digits only
        if match is None:
            raise ValueError(f"{name}={amount!r} is not a whole number >= 0")
        if get_long(match.group(1)) is None:
            raise ValueError(f"{name}={amount!r} is beyond a Java long")
        unit = match.group(2)
        if index == 0 and unit in _MEMORY_UNITS:
            values[0] = int(match.group(1)) * _MEMORY_UNITS[unit]
            if get_long(str(values[0])) is None:
                raise ValueError(f"{name}={amount!r} is beyond a Java long")
        elif unit:
            raise ValueError(f"unit {unit!r} of {name} is not supported")
        else:
            values[index] = int(match.group(1))
    return Resource(tuple(values))


def _is_resource(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith("[") and stripped.endswith("]")


def _share(amount: float) -> float:
    """A percentage as Hadoop's float fraction: ``(float) amount / 100``."""
    return f32(f32(amount) / 100)


@dataclass
class _Draft:
    """A queue while the tree is being read (mutable; becomes a :class:`QueueConfig`)."""

    path: str
    parent: str | None
    children: tuple[str, ...]
    labels: list[str]
    capacities: dict[str, Capacity] = field(default_factory=dict)
    maximums: dict[str, Capacity] = field(default_factory=dict)
    mode: CapacityKind = "percent"
    relative: dict[str, float | None] = field(default_factory=dict)
    relative_maximum: dict[str, float | None] = field(default_factory=dict)
    absolute: dict[str, float | None] = field(default_factory=dict)
    absolute_maximum: dict[str, float | None] = field(default_factory=dict)
    accessible: frozenset[str] = frozenset({ANY_LABEL})
    default_label_expression: str = ""
    disable_preemption: bool = False
    priority: int = 0
    max_am_percent: float = DEFAULT_MAX_AM_PERCENT
    minimum_user_limit_percent: float = 100.0
    user_limit_factor: float = 1.0
    state: QueueState = "RUNNING"
    ordering_policy: str = "fifo"
    auto_create_children: bool = False


class _TreeReader:
    """Reads and validates the tree in passes: shape, per-queue settings, sibling rules,
    shares down the tree, then warnings."""

    def __init__(self, conf: HadoopConfiguration, calculator: CalculatorName) -> None:
        self.conf = conf
        self.calculator = calculator
        self.warnings: list[str] = []  # ConfigWarning, a str
        self.label_references: dict[str, str] = {}
        self.drafts: dict[str, _Draft] = {}

    def read(self) -> QueueTree:
        shape = self._shape()
        labels = self._configured_labels(shape)
        every_label = [label for path in shape for label in labels[path]]
        labels[ROOT] = list(dict.fromkeys(every_label))  # Hadoop 3.3: root has every queue's labels
        global_am = self._fraction(MAX_AM_PERCENT_KEY, DEFAULT_MAX_AM_PERCENT)
        for path, children in shape.items():
            parent = path.rpartition(".")[0] or None
            draft = _Draft(path, parent, children, [NO_LABEL, *labels[path]])
            self.drafts[path] = draft
            self._read_settings(draft, global_am)
            self._read_capacities(draft)
        for draft in self.drafts.values():
            if draft.children:
                self._check_children(draft)
        for draft in self.drafts.values():
            self._compute_absolute(draft)
        self._warn_orphans()
        self._warn_shared_leaf_names()
        self._warn_label_shares()
        return QueueTree(
            queues=MappingProxyType({path: self._freeze(d) for path, d in self.drafts.items()}),
            label_references=MappingProxyType(dict(self.label_references)),
            warnings=tuple(self.conf.warnings) + tuple(self.warnings),
        )

    # -- shape -------------------------------------------------------------------------------

    def _shape(self) -> dict[str, tuple[str, ...]]:
        """Every path with its children, pre-order, from the ``.queues`` lists."""
        root_key = queue_key(ROOT, "queues")
        if self.conf.raw(root_key) is None:
            raise self.conf.error(root_key, "not set: the root queue must list its child queues")
        defined = self._defined_paths()
        shape: dict[str, tuple[str, ...]] = {}
        stack = [ROOT]
        while stack:
            path = stack.pop()
            children = self._children(path, defined)
            shape[path] = children
            stack.extend(reversed(children))
        return shape

    def _defined_paths(self) -> set[str]:
        """Every dotted prefix of a property under ``yarn.scheduler.capacity.`` (the queue paths
        that have at least one property)."""
        paths: set[str] = set()
        for name in self.conf.names():
            if name.startswith(CAPACITY_PREFIX):
                parts = name[len(CAPACITY_PREFIX) :].split(".")
                paths.update(".".join(parts[:i]) for i in range(1, len(parts)))
        return paths

    def _children(self, path: str, defined: set[str]) -> tuple[str, ...]:
        key = queue_key(path, "queues")
        listed = self.conf.get_strings(key)  # CapacitySchedulerConfiguration.getQueues: getStrings, each trimmed
        names = [java_trim(name) for name in listed or []]
        if not any(names):
            if path == ROOT:
                raise self.conf.invalid(key, "the root queue must list at least one child queue")
            return ()
        seen: set[str] = set()
        for name in names:
            if not name or re.search(r"[\s.]", name):
                raise self.conf.invalid(key, f"queue name {name!r} must be non-empty, without dots or spaces")
            if name in seen:
                raise self.conf.invalid(key, f"queue {name!r} is listed twice")
            seen.add(name)
            child = f"{path}.{name}"
            if child not in defined:
                raise self.conf.invalid(
                    key, f"queue {child} is listed but no {CAPACITY_PREFIX}{child}.* property exists (misspelt?)"
                )
        return tuple(f"{path}.{name}" for name in names)

    def _configured_labels(self, shape: Mapping[str, tuple[str, ...]]) -> dict[str, list[str]]:
        """Per queue, the labels with a ``<path>.accessible-node-labels.<label>.<setting>``
        property, in the order first met."""
        labels: dict[str, list[str]] = {path: [] for path in shape}
        marker = ".accessible-node-labels."
        for name in self.conf.names():
            path, found, rest = name[len(CAPACITY_PREFIX) :].partition(marker)
            if not name.startswith(CAPACITY_PREFIX) or not found or path not in labels:
                continue
            label, dot, setting = rest.partition(".")
            if not dot or not setting:
                raise self.conf.invalid(
                    name, f"expected a property named {CAPACITY_PREFIX}{path}{marker}<label>.<setting>"
                )
            self._check_label_name(name, label)
            if label not in labels[path]:
                labels[path].append(label)
        return labels

    def _check_label_name(self, key: str, label: str) -> None:
        if not _LABEL_NAME.fullmatch(label):
            raise self.conf.invalid(
                key, f"{label!r} is not a valid node label name (letters, digits, '-' and '_', not first)"
            )
        self.label_references.setdefault(label, key)

    # -- per-queue settings ------------------------------------------------------------------

    def _read_settings(self, draft: _Draft, global_am: float) -> None:
        parent = self.drafts[draft.parent] if draft.parent else None
        path = draft.path
        draft.accessible = self._accessible_labels(draft, parent)
        draft.default_label_expression = self._default_label_expression(draft, parent)
        draft.disable_preemption = self.conf.get_bool(
            queue_key(path, "disable_preemption"), parent.disable_preemption if parent else False
        )
        draft.priority = self.conf.get_int(queue_key(path, "priority"), 0)
        draft.max_am_percent = self._fraction(queue_key(path, "maximum-am-resource-percent"), global_am)
        draft.minimum_user_limit_percent = self._whole_percent(queue_key(path, "minimum-user-limit-percent"), 100)
        ulf_key = queue_key(path, "user-limit-factor")
        draft.user_limit_factor = self.conf.get_float(ulf_key, 1.0)
        if draft.user_limit_factor < 0 and draft.user_limit_factor != -1:
            raise self.conf.invalid(ulf_key, "expected a factor >= 0 (or -1 for no limit)")
        draft.state = self._state(draft, parent)
        draft.auto_create_children = self.conf.get_bool(
            queue_key(path, "auto-create-child-queue.enabled"), False
        ) or self.conf.get_bool(queue_key(path, "auto-queue-creation-v2.enabled"), False)
        draft.ordering_policy = self._ordering_policy(draft, parent)

    def _fraction(self, key: str, default: float) -> float:
        return self._in_range(key, default, 0.0, 1.0)

    def _in_range(self, key: str, default: float, low: float, high: float) -> float:
        value = self.conf.get_float(key, default)
        if not low <= value <= high:
            raise self.conf.invalid(key, f"expected a number in [{low:g}, {high:g}]")
        return value

    def _whole_percent(self, key: str, default: int) -> int:
        """A percentage read with ``getInt`` (``CapacitySchedulerConfiguration.getUserLimit``)."""
        value = self.conf.get_int(key, default)
        if not 0 <= value <= 100:
            raise self.conf.invalid(key, "expected a percentage in [0, 100]")
        return value

    def _accessible_labels(self, draft: _Draft, parent: _Draft | None) -> frozenset[str]:
        key = queue_key(draft.path, "accessible-node-labels")
        if parent is None:
            if self.conf.raw(key) is not None:
                self.warnings.append(
                    ConfigWarning(
                        "label-star", key, f"{self.conf.location(key)}: {key}: ignored, root can use every label (*)"
                    )
                )
            return frozenset({ANY_LABEL})
        names = self.conf.get_strings(key)
        if names is None:
            return parent.accessible  # inherited
        labels = {java_trim(name) for name in names} - {""}
        for label in labels - {ANY_LABEL}:
            self._check_label_name(key, label)
        accessible = frozenset({ANY_LABEL}) if ANY_LABEL in labels else frozenset(labels)
        if parent.parent is not None and ANY_LABEL not in parent.accessible:
            allowed = ", ".join(sorted(parent.accessible)) or "none"
            if ANY_LABEL in accessible:
                raise self.conf.invalid(key, f"'*' is more than the parent {parent.path} may use ({allowed})")
            extra = sorted(accessible - parent.accessible)
            if extra:
                raise self.conf.invalid(
                    key, f"labels {', '.join(extra)} are not accessible to the parent {parent.path} ({allowed})"
                )
        return accessible

    def _default_label_expression(self, draft: _Draft, parent: _Draft | None) -> str:
        key = queue_key(draft.path, "default-node-label-expression")
        value = self.conf.get_trimmed(key)
        if value is None:
            # Inherited when the queue can use every label its parent can (Hadoop's rule).
            inherit = parent is not None and draft.accessible >= parent.accessible
            return parent.default_label_expression if parent is not None and inherit else NO_LABEL
        if value:
            if not _LABEL_NAME.fullmatch(value):
                raise self.conf.invalid(key, "expected one node label name (label expressions are not supported)")
            self.label_references.setdefault(value, key)
            if not label_accessible(draft.accessible, value):
                allowed = ", ".join(sorted(draft.accessible)) or "none"
                raise self.conf.invalid(key, f"the queue cannot access label {value!r} (its labels: {allowed})")
        return value

    def _state(self, draft: _Draft, parent: _Draft | None) -> QueueState:
        key = queue_key(draft.path, "state")
        value = self.conf.get_trimmed(key)
        if value is None:
            return parent.state if parent else "RUNNING"
        state: QueueState
        if value.upper() == "RUNNING":
            state = "RUNNING"
        elif value.upper() == "STOPPED":
            state = "STOPPED"
        else:
            raise self.conf.invalid(key, "expected RUNNING or STOPPED")
        if parent is not None and parent.state == "STOPPED" and state == "RUNNING":
            raise self.conf.invalid(key, f"a queue cannot be RUNNING while its parent {parent.path} is STOPPED")
        return state

    def _ordering_policy(self, draft: _Draft, parent: _Draft | None) -> str:
        key = queue_key(draft.path, "ordering-policy")
        value = self.conf.get_trimmed(key)
        if draft.children or draft.auto_create_children:
            inherited = parent.ordering_policy if parent is not None else QUEUE_ORDERING_POLICIES[0]
            policy = value if value is not None else inherited
            if policy not in QUEUE_ORDERING_POLICIES:
                raise self.conf.invalid(
                    key, f"expected a parent queue ordering policy ({', '.join(QUEUE_ORDERING_POLICIES)})"
                )
            return policy
        if value is None:
            return "fifo"
        if value not in APP_ORDERING_POLICIES:
            raise self.conf.invalid(
                key, "expected a leaf ordering policy (fifo, fair, fifo-with-partitions, fifo-for-pending-updates)"
            )
        return APP_ORDERING_POLICIES[value]

    # -- capacities --------------------------------------------------------------------------

    def _read_capacities(self, draft: _Draft) -> None:
        for label in draft.labels:
            draft.capacities[label] = self._capacity(draft.path, label)
            draft.maximums[label] = self._maximum(draft.path, label)
        kinds = {c.kind for c in draft.capacities.values() if c.configured}
        if len(kinds) > 1:
            key = next(label_key(draft.path, lb, "capacity") for lb, c in draft.capacities.items() if c.configured)
            forms = " and ".join(sorted(_FORM[kind] for kind in kinds))
            raise self.conf.invalid(key, f"the queue mixes {forms} capacities across its labels")
        draft.mode = kinds.pop() if kinds else "percent"
        for label in draft.labels:
            self._check_maximum_form(draft, label)
            if (
                draft.path != ROOT
                and draft.capacities[label].is_positive()
                and not label_accessible(draft.accessible, label)
            ):
                allowed = ", ".join(sorted(draft.accessible)) or "none"
                raise self.conf.invalid(
                    label_key(draft.path, label, "capacity"),
                    f"the queue cannot access label {label!r} (accessible-node-labels: {allowed}) "
                    "so it cannot have capacity there",
                )

    def _capacity(self, path: str, label: str) -> Capacity:
        key = label_key(path, label, "capacity")
        text = self.conf.get_trimmed(key)
        is_root = path == ROOT
        if text is None:
            if is_root and label == NO_LABEL:
                return Capacity("percent", 100.0, text="100")
            return Capacity("percent")
        if is_root and label == NO_LABEL:
            if parse_decimal(text) != 100:
                raise self.conf.invalid(key, "the root queue's capacity is always 100 (percent)")
            return Capacity("percent", 100.0, text=text, configured=True)
        if _is_resource(text):
            if is_root:
                raise self.conf.invalid(key, "the root queue's capacity for a label must be a percentage")
            return Capacity("absolute", resource=self._resource(key, text), text=text, configured=True)
        if text.endswith("w") and not is_root:
            weight = parse_decimal(text[:-1])
            if weight is None:
                raise self.conf.invalid(key, "expected a weight like 2w")
            return Capacity("weight", weight, text=text, configured=True)
        return Capacity("percent", self._percentage(key, text), text=text, configured=True)

    def _maximum(self, path: str, label: str) -> Capacity:
        key = label_key(path, label, "maximum-capacity")
        text = self.conf.get_trimmed(key)
        if text is None:
            return Capacity("percent", 100.0, text="100")
        if _is_resource(text):
            return Capacity("absolute", resource=self._resource(key, text), text=text, configured=True)
        if text.endswith("w"):
            raise self.conf.invalid(key, "a weight cannot be a maximum-capacity; give a percentage")
        if label == NO_LABEL and parse_decimal(text) == -1:
            return Capacity("percent", 100.0, text=text, configured=True)  # -1 means 100 (Hadoop)
        return Capacity("percent", self._percentage(key, text), text=text, configured=True)

    def _percentage(self, key: str, text: str) -> float:
        value = parse_decimal(text)
        if value is None:
            hint = " (write it without %)" if text.endswith("%") else ""
            raise self.conf.invalid(key, f"expected a percentage in [0, 100], a weight like 2w or a resource{hint}")
        if not 0 <= value <= 100:
            hint = " (-1 stands for 100 only in a queue's own maximum-capacity)" if value == -1 else ""
            raise self.conf.invalid(key, f"expected a percentage in [0, 100]{hint}")
        return value

    def _resource(self, key: str, text: str) -> Resource:
        try:
            return parse_resource(text)
        except ValueError as exc:
            raise self.conf.invalid(key, f"expected a resource like [memory=10240,vcores=10]: {exc}") from None

    def _check_maximum_form(self, draft: _Draft, label: str) -> None:
        maximum = draft.maximums[label]
        key = label_key(draft.path, label, "maximum-capacity")
        if draft.mode == "absolute" and maximum.kind == "percent" and maximum.amount != 100:
            raise self.conf.invalid(
                key, "Hadoop ignores a percentage maximum on a queue with an absolute capacity; give a resource"
            )
        if draft.mode != "absolute" and maximum.kind == "absolute":
            raise self.conf.invalid(key, f"a resource maximum with a {_FORM[draft.mode]} capacity is not modelled")
        capacity = draft.capacities[label]
        if capacity.resource is not None and maximum.resource is not None:
            if exceeds(self.calculator, capacity.resource, maximum.resource):
                raise self.conf.invalid(key, f"the maximum is below the capacity {capacity.text}")

    # -- rules between a parent and its children ---------------------------------------------

    def _check_children(self, parent: _Draft) -> None:
        children = [self.drafts[c] for c in parent.children]
        first = children[0]
        for child in children[1:]:
            if child.mode != first.mode:
                raise self.conf.invalid(
                    self._capacity_key(child),
                    f"{child.path}'s capacity is a {_FORM[child.mode]} but its sibling {first.path}'s is a "
                    f"{_FORM[first.mode]}; the children of a queue must all use percentages, weights or resources",
                )
        if parent.parent is not None and (parent.mode == "absolute") != (first.mode == "absolute"):
            raise self.conf.invalid(
                self._capacity_key(first),
                f"{first.path}'s capacity is a {_FORM[first.mode]} but its parent {parent.path}'s is a "
                f"{_FORM[parent.mode]}; below root, a parent and its children use resources together or not at all",
            )
        for label in parent.labels:
            if first.mode == "percent":
                self._check_percent_sum(parent, children, label)
            elif first.mode == "weight":
                self._normalise_weights(children, label)
            elif parent.mode == "absolute":
                self._check_absolute_sum(parent, children, label)
        for child in children:
            for label in child.labels:
                child.relative.setdefault(label, self._relative(child, label))
                maximum = child.maximums[label]
                child.relative_maximum[label] = None if child.mode == "absolute" else _share(maximum.amount)

    def _capacity_key(self, draft: _Draft) -> str:
        for label, capacity in draft.capacities.items():
            if capacity.configured:
                return label_key(draft.path, label, "capacity")
        return label_key(draft.path, NO_LABEL, "capacity")

    def _relative(self, draft: _Draft, label: str) -> float | None:
        capacity = draft.capacities[label]
        if draft.mode == "absolute":
            return None
        if capacity.kind == "percent":
            return _share(capacity.amount)
        return 0.0  # a weight outside the parent's labels is never normalised

    def _check_percent_sum(self, parent: _Draft, children: Sequence[_Draft], label: str) -> None:
        total = 0.0
        for child in children:
            total = f32(total + _share(child.capacities.get(label, Capacity("percent")).amount))
        if abs(1 - total) <= SUM_PRECISION:
            return
        allow_zero = parent.mode == "weight" or _share(parent.capacities[label].amount) <= SUM_PRECISION
        allow_zero = allow_zero or self.conf.get_bool(queue_key(parent.path, "allow-zero-capacity-sum"), False)
        if abs(total) <= SUM_PRECISION and allow_zero:
            return
        parts = ", ".join(self._shown(label_key(c.path, label, "capacity")) for c in children)
        where = "" if label == NO_LABEL else f" for label {label!r}"
        raise self.conf.error(
            queue_key(parent.path, "queues"),
            f"the children's capacities{where} sum to {total * 100:.6g}, not 100: {parts}",
        )

    def _normalise_weights(self, children: Sequence[_Draft], label: str) -> None:
        total = 0.0
        for child in children:
            capacity = child.capacities.get(label, Capacity("percent"))
            if capacity.kind != "weight" or capacity.amount <= 0:
                key = label_key(child.path, label, "capacity")
                raise self.conf.invalid(key, "expected a weight > 0 like 2w (its siblings use weights)")
            total = f32(total + f32(capacity.amount))
        for child in children:
            child.relative[label] = f32(f32(child.capacities[label].amount) / total) if total > 1e-6 else 0.0

    def _check_absolute_sum(self, parent: _Draft, children: Sequence[_Draft], label: str) -> None:
        parent_min = parent.capacities[label].resource
        if parent_min is None:
            return
        total = ZERO
        for child in children:
            total = total + (child.capacities.get(label, Capacity("percent")).resource or ZERO)
        if exceeds(self.calculator, total, parent_min):
            parts = ", ".join(self._shown(label_key(c.path, label, "capacity")) for c in children)
            raise self.conf.error(
                queue_key(parent.path, "queues"),
                f"the children's capacities sum to {total}, more than {parent.path}'s {parent_min}: {parts}",
            )
        for child in children:
            parent_max = parent.maximums[label].resource
            child_max = child.maximums[label].resource if label in child.maximums else None
            if parent_max is not None and child_max is not None and exceeds(self.calculator, child_max, parent_max):
                key = label_key(child.path, label, "maximum-capacity")
                raise self.conf.invalid(key, f"the maximum is above the parent {parent.path}'s maximum {parent_max}")

    # -- shares of the partition down the tree -----------------------------------------------

    def _compute_absolute(self, draft: _Draft) -> None:
        """``absolute = relative x parent's absolute`` in Java floats; only where the relative
        share is > 0, as Hadoop leaves the others at 0 (``CSQueueUtils``)."""
        parent = self.drafts[draft.parent] if draft.parent else None
        for label in draft.labels:
            if parent is None:
                draft.relative[label] = _share(draft.capacities[label].amount)
                draft.relative_maximum[label] = _share(draft.maximums[label].amount)
            relative = draft.relative.get(label)
            relative_max = draft.relative_maximum.get(label)
            if relative is None or relative_max is None:
                draft.absolute[label] = draft.absolute_maximum[label] = None
                continue
            base = parent.absolute.get(label, 0.0) if parent else 1.0
            base_max = parent.absolute_maximum.get(label, 0.0) if parent else 1.0
            draft.absolute[label] = f32(relative * base) if relative > 0 and base is not None else 0.0
            draft.absolute_maximum[label] = (
                f32(relative_max * base_max) if relative_max > 0 and base_max is not None else 0.0
            )
            absolute, absolute_max = draft.absolute[label], draft.absolute_maximum[label]
            if absolute is not None and absolute_max is not None and absolute > absolute_max:
                key = label_key(draft.path, label, "maximum-capacity")
                raise self.conf.invalid(
                    key,
                    f"the absolute capacity {absolute * 100:.6g}% is above the absolute maximum "
                    f"{absolute_max * 100:.6g}% (capacity {draft.capacities[label].text})",
                )

    # -- warnings ----------------------------------------------------------------------------

    def _warn_orphans(self) -> None:
        """Properties of a queue that is in no ``.queues`` list (usually a misspelt name)."""
        for name in self.conf.names():
            if not name.startswith(CAPACITY_PREFIX + ROOT + "."):
                continue
            parts = name[len(CAPACITY_PREFIX) :].split(".")
            depth = next(i for i in range(len(parts) - 1, 0, -1) if ".".join(parts[:i]) in self.drafts)
            owner, word, tail = ".".join(parts[:depth]), parts[depth], ".".join(parts[depth + 1 :])
            if tail and word not in _QUEUE_SETTINGS | _TEMPLATE_WORDS and tail.split(".")[0] in _QUEUE_SETTINGS:
                listed = ", ".join(c.rsplit(".", 1)[-1] for c in self.drafts[owner].children) or "none"
                self.warnings.append(
                    ConfigWarning(
                        "orphan-queue-key",
                        name,
                        f"{self.conf.location(name)}: {name}: ignored, queue {owner}.{word} is not in "
                        f"{queue_key(owner, 'queues')} (children: {listed})",
                    )
                )

    def _warn_shared_leaf_names(self) -> None:
        by_name: dict[str, list[str]] = {}
        for draft in self.drafts.values():
            if not draft.children and not draft.auto_create_children:
                by_name.setdefault(draft.path.rsplit(".", 1)[-1], []).append(draft.path)
        for name, paths in by_name.items():
            if len(paths) > 1:
                self.warnings.append(
                    ConfigWarning(
                        "shared-leaf-name",
                        "",
                        f"leaf name {name!r} is used by {', '.join(paths)}: Hadoop before 3.3 refuses this, "
                        "and applications must then name the full path",
                    )
                )

    def _warn_label_shares(self) -> None:
        root = self.drafts[ROOT]
        for label in root.labels[1:]:
            if not root.capacities[label].is_positive():
                key = label_key(ROOT, label, "capacity")
                self.warnings.append(
                    ConfigWarning(
                        "label-not-guaranteed",
                        key,
                        f"{key} is 0 or not set, so no queue is guaranteed anything in label {label!r} (it is normally 100)",
                    )
                )
        for draft in self.drafts.values():
            if draft.parent is None or draft.parent == ROOT:
                continue
            for label in draft.labels[1:]:
                if draft.capacities[label].is_positive() and draft.absolute.get(label) == 0.0:
                    parent_key = label_key(draft.parent, label, "capacity")
                    self.warnings.append(
                        ConfigWarning(
                            "label-parent-zero",
                            label_key(draft.path, label, "capacity"),
                            f"{draft.path} gets nothing in label {label!r} although "
                            f"{label_key(draft.path, label, 'capacity')} is set: {parent_key} is 0 or not set",
                        )
                    )

    # -- helpers -----------------------------------------------------------------------------

    def _shown(self, key: str) -> str:
        return f"{key}={self.conf.shown(key)}"

    def _freeze(self, draft: _Draft) -> QueueConfig:
        labels = {
            label: LabelCapacity(
                capacity=draft.capacities[label],
                maximum=draft.maximums[label],
                relative=draft.relative.get(label),
                relative_maximum=draft.relative_maximum.get(label),
                absolute=draft.absolute.get(label),
                absolute_maximum=draft.absolute_maximum.get(label),
            )
            for label in draft.labels
        }
        return QueueConfig(
            path=draft.path,
            parent=draft.parent,
            children=draft.children,
            mode=draft.mode,
            labels=MappingProxyType(labels),
            accessible_labels=draft.accessible,
            default_label_expression=draft.default_label_expression,
            disable_preemption=draft.disable_preemption,
            priority=draft.priority,
            max_am_percent=draft.max_am_percent,
            minimum_user_limit_percent=draft.minimum_user_limit_percent,
            user_limit_factor=draft.user_limit_factor,
            state=draft.state,
            ordering_policy=draft.ordering_policy,
            auto_create_children=draft.auto_create_children,
        )
