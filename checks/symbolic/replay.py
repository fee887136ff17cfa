"""Concrete inputs of the encoding as a real cluster: a snapshot, the reference's figures for
it, a full ``edit_schedule`` round, and a conformance case file in the mock-framework notation.

This is how a z3 model becomes something anyone can re-run: :func:`snapshot_of` builds the
root-level configuration (one partition, one node, the root and its leaf children, one
application per child holding its used resource), :func:`reference_figures` runs the
reference implementation's ideal allocation and amounts on it, and :func:`case_file` writes
the same configuration as a ``mockframework`` case whose expectations are what the reference
did, so that ``yarnspec conform FILE`` replays it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.symbolic.model import QUEUE_NAMES, Level, Mode, PolicySettings
from yarnspec.impl.calculator import ResourceCalculator, calculator
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
from yarnspec.impl.config.keys import PREEMPTION_PREFIX
from yarnspec.impl.preemption.config import GUARANTEE_RULE_KEY, GuaranteeRuleName, PreemptionConfig
from yarnspec.impl.preemption.context import RoundContext
from yarnspec.impl.preemption.ideal import IdealMode, compute_ideal_allocation
from yarnspec.impl.preemption.policy import edit_schedule
from yarnspec.impl.preemption.result import EventType, RoundResult
from yarnspec.impl.preemption.to_obtain import compute_to_obtain
from yarnspec.impl.resources import Resource

NODE = "n1"


@dataclass(frozen=True)
class ChildFigures:
    """What the reference computed for one child: ideal, target and amount to obtain, each as
    the components the encoding carries (memory, or memory and vcores), and the guarantee the
    policy read."""

    guaranteed: tuple[int, ...]
    ideal: tuple[int, ...]
    to_be_preempted: tuple[int, ...]
    to_obtain: tuple[int, ...]


def resource(values: Sequence[int]) -> Resource:
    """A one-component (Default: memory; vcores set equal) or two-component vector as a
    :class:`Resource`."""
    if len(values) == 1:
        return Resource.of(int(values[0]), int(values[0]))
    return Resource.of(int(values[0]), int(values[1]))


def queue_path(index: int) -> str:
    """The path of child ``index``: ``root.a``, ``root.b``, ..."""
    return f"{ROOT}.{QUEUE_NAMES[index]}"


def _containers_for(amount: Resource, app_id: int, queue: str) -> list[Container]:
    """Containers that add up to ``amount``: ``<1,1>`` as long as both components allow,
    then ``<1,0>`` or ``<0,1>`` for the rest. Container 1 is the application master."""
    both = max(0, min(amount.memory, amount.vcores))
    sizes = [Resource.of(1, 1)] * both
    sizes += [Resource.of(1, 0)] * max(0, amount.memory - both)
    sizes += [Resource.of(0, 1)] * max(0, amount.vcores - both)
    return [
        Container(ContainerId(app_id, number), queue=queue, node=NODE, resource=size, is_am=number == 1)
        for number, size in enumerate(sizes, start=1)
    ]


def snapshot_of(level: Level) -> ClusterSnapshot:
    """The root-level configuration of ``level`` (concrete): one exclusive partition and one
    node of the level's resource, the root guaranteeing that resource, one leaf per child with
    its figures, and one application per child that uses anything, whose containers add up to
    the child's used resource (a Default-calculator level uses equal memory and vcores)."""
    whole = resource(level.resource)
    children: list[Queue] = []
    apps: list[Application] = []
    containers: list[Container] = []
    for index, child in enumerate(level.children):
        path = queue_path(index)
        used = resource(child.used)
        figures = QueuePartition(
            guaranteed=resource(child.guaranteed),
            maximum=resource(child.maximum),
            used=used,
            pending=resource(child.pending),
            pending_net_reserved=resource(child.pending) - resource(child.reserved),
            reserved=resource(child.reserved),
            killable=resource(child.killable),
        )
        children.append(
            Queue(
                path,
                ROOT,
                partitions={DEFAULT_PARTITION: figures},
                preemption_disabled=bool(child.disabled),
                priority=int(child.priority),
            )
        )
        if not used.is_zero():
            app_id = len(apps) + 1
            apps.append(Application(app_id, path))
            containers.extend(_containers_for(used, app_id, path))
    root_figures = QueuePartition(
        guaranteed=whole,
        maximum=whole,
        used=sum((c.partitions[DEFAULT_PARTITION].used for c in children), Resource.of(0, 0)),
    )
    root = Queue(ROOT, None, tuple(c.path for c in children), leaf=False, partitions={DEFAULT_PARTITION: root_figures})
    return ClusterSnapshot.create(
        [Partition(DEFAULT_PARTITION, whole, True)],
        [Node(NODE, DEFAULT_PARTITION, whole)],
        [root, *children],
        apps,
        containers,
    )


def policy_config(
    settings: PolicySettings, guarantees: GuaranteeRuleName = "effective", budget_fraction: float = 1.0
) -> PreemptionConfig:
    """The policy settings of a replay: the level's factors, the harnesses' 10 s kill wait."""
    return PreemptionConfig(
        max_wait_before_kill_ms=10000,
        total_preemption_per_round=budget_fraction,
        natural_termination_factor=settings.natural_termination_factor,
        max_ignored_over_capacity=settings.max_ignored_over_capacity,
        guarantees=guarantees,
    )


def reference_figures(
    level: Level, dominant: bool, mode: Mode, settings: PolicySettings, guarantees: GuaranteeRuleName = "effective"
) -> list[ChildFigures]:
    """Run the reference's ideal allocation (with the level's budget) and amounts to obtain
    on :func:`snapshot_of` ``level`` and read every child's figures."""
    snapshot = snapshot_of(level)
    calc: ResourceCalculator = calculator("dominant" if dominant else "default")
    config = policy_config(settings, guarantees)
    ctx = RoundContext.create(snapshot, config, calc)
    ideal_mode = IdealMode(reserved=mode.reserved, balance=mode.balance)
    compute_ideal_allocation(ctx.trees, calc, resource(level.budget), ideal_mode)
    compute_to_obtain(ctx.trees, ctx.leaves, calc, ctx.cluster, config, ideal_mode)
    dims = len(level.resource)
    records = ctx.trees[0].queues
    figures = []
    for index in range(len(level.children)):
        record = records[queue_path(index)]
        figures.append(
            ChildFigures(
                record.guaranteed.values[:dims],
                record.ideal.values[:dims],
                record.to_be_preempted.values[:dims],
                record.to_obtain.values[:dims],
            )
        )
    return figures


def full_round(
    level: Level, dominant: bool, settings: PolicySettings, guarantees: GuaranteeRuleName, budget_fraction: float
) -> RoundResult:
    """One complete ``edit_schedule`` round of the reference on the level's configuration."""
    snapshot = snapshot_of(level)
    calc = calculator("dominant" if dominant else "default")
    return edit_schedule(snapshot, policy_config(settings, guarantees, budget_fraction), calc, 0)


# --- the conformance case ------------------------------------------------------------------


def _written(values: Sequence[int]) -> str:
    """A resource in the mock framework's notation: ``m:v`` (Default: memory and vcores equal,
    which the Default calculator ignores)."""
    r = resource(values)
    return f"{r.memory}:{r.vcores}"


def case_file(
    level: Level,
    dominant: bool,
    settings: PolicySettings,
    budget_fraction: float,
    guarantees: GuaranteeRuleName,
    case_id: str,
    note: str,
) -> dict[str, Any]:
    """A ``mockframework`` case that replays the level through ``yarnspec conform``.

    Guarantees are written as configured; under the ``tiny-queue`` rule the case selects it
    with the ``yarnspec.preemption.guarantee-rule`` key, so the runner derives the truncated
    guarantees exactly as the reference did. The expectations are the reference's
    own results on it: every child's ideal assignment and target (``state_asserts``) and the
    preemption marks per application. They record what the reference does; they are not
    upstream assertions.
    """
    result = full_round(level, dominant, settings, guarantees, budget_fraction)
    snapshot = snapshot_of(level)
    targets = {key: t for key, t in result.selectors[-1].targets.items()}
    queues = [f"root(=[{_written(level.resource)} {_written(level.resource)} 0:0 0:0])"]
    for index, child in enumerate(level.children):
        values = [
            _written(child.guaranteed),
            _written(child.maximum),
            _written(child.used),
            _written(child.pending),
            _written(child.reserved),
        ]
        options = [f"priority={int(child.priority)}"]
        if child.disabled:
            options.append("disable_preemption=true")
        queues.append(f"-{QUEUE_NAMES[index]}(=[{' '.join(values)}]){{{','.join(options)}}}")
    apps = []
    for app in snapshot.apps.values():
        sizes: dict[tuple[int, int], int] = {}
        for container in snapshot.containers:
            if container.app_id == app.app_id:
                key = (container.resource.memory, container.resource.vcores)
                sizes[key] = sizes.get(key, 0) + 1
        specs = "".join(f"(1,{m}:{v},{NODE},,{count},false)" for (m, v), count in sizes.items())
        apps.append(f"{app.queue.rsplit('.', 1)[-1]}\t{specs}")
    marks = {app_id: 0 for app_id in snapshot.apps}
    for event in result.events:
        if event.kind is EventType.MARK_CONTAINER_FOR_PREEMPTION:
            marks[event.container.app_id] += 1
    state_asserts = []
    for index in range(len(level.children)):
        target = targets[(queue_path(index), DEFAULT_PARTITION)]
        for field_name, value in (
            ("guaranteed", target.guaranteed),
            ("idealAssigned", target.ideal),
            ("toBePreempted", target.to_be_preempted),
            ("actuallyToBePreempted", target.to_obtain),
        ):
            entry: dict[str, Any] = {
                "queue": QUEUE_NAMES[index],
                "partition": "",
                "field": field_name,
                "memory": value.memory,
            }
            if dominant:
                entry["vcores"] = value.vcores
            state_asserts.append(entry)
    whole = resource(level.resource)
    return {
        "id": case_id,
        "source": {"repo": "yarnspec", "path": "checks/symbolic", "method": case_id},
        "notation": "mockframework",
        "resource_calculator": "dominant" if dominant else "default",
        "conf": {
            PREEMPTION_PREFIX + "max_wait_before_kill": 10000,
            PREEMPTION_PREFIX + "total_preemption_per_round": budget_fraction,
            PREEMPTION_PREFIX + "natural_termination_factor": settings.natural_termination_factor,
            PREEMPTION_PREFIX + "max_ignored_over_capacity": settings.max_ignored_over_capacity,
        }
        | ({GUARANTEE_RULE_KEY: guarantees} if guarantees != "effective" else {}),
        "input": {
            "labelsConfig": f"={whole.memory}:{whole.vcores},true;",
            "nodesConfig": f"{NODE}= res={whole.memory}:{whole.vcores}",
            "queuesConfig": ";".join(queues),
            "appsConfig": ";".join(apps),
        },
        "rounds": [
            {
                "clock_ms": 0,
                "expect": [
                    {"app": app_id, "event": EventType.MARK_CONTAINER_FOR_PREEMPTION.value, "count": count}
                    for app_id, count in marks.items()
                ],
                "state_asserts": state_asserts,
            }
        ],
        "notes": note,
    }
