"""The scheduler property suite: the invariant catalogue over seeded random walks.

:func:`generate_world` builds a small, valid world from a :class:`~yarnspec.checks.suites.strategies.Chooser`
(so Hypothesis and a seeded ``random.Random`` share one generator): one or two partitions,
two to four nodes, two or three leaf queues (sometimes under a parent), two to four
applications with their requests, the scheduler settings (heartbeat or asynchronous,
single- or multi-node placement and its sorting policy, reservations-continue-looking, the
calculator, the preemption monitor) and the named variants. :data:`VARIANTS` lists the
behaviour combinations every run covers.

:func:`run` walks ``examples`` generated worlds per variant and each shipped world of
:mod:`yarnspec.spec.worlds.world_builders` ``examples`` times, choosing at each step a kind of action
among the enabled kinds (weighted, :data:`KIND_WEIGHTS`) and then one action of that kind,
and checks every state and step invariant after every step. It returns one :class:`InvariantOutcome` per
invariant (and a first row for the walks themselves: a crash is a violation there), plus the
action kinds and paths the walks reached. Under ``pre-8127`` the duplicate commit is a known
bug: violations that follow it count as ``known``, not ``violated``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from yarnspec.checks.suites.strategies import Chooser, RandomChooser
from yarnspec.impl.config.keys import (
    CAPACITY_PREFIX,
    MAXIMUM_ALLOCATION_MB,
    MAXIMUM_ALLOCATION_VCORES,
    MINIMUM_ALLOCATION_MB,
    MONITOR_ENABLE,
    NODE_LABELS_ENABLED,
    PREEMPTION_PREFIX,
)
from yarnspec.impl.errors import InputError
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import (
    KINDS,
    Action,
    Commit,
    Heartbeat,
    Monitor,
    Submit,
    enabled,
    kind,
    label,
    start,
    take,
)
from yarnspec.impl.scheduler.actions.commit import COMMIT
from yarnspec.impl.scheduler.actions.environment import (
    ADD_NODE,
    ASK,
    CANCEL,
    COMPLETE,
    FINISH_APP,
    LAUNCH,
    LOSE_NODE,
    RELEASE,
    SUBMIT,
    TICK,
)
from yarnspec.impl.scheduler.actions.heartbeat import HEARTBEAT
from yarnspec.impl.scheduler.actions.monitor import MONITOR
from yarnspec.impl.scheduler.actions.propose import PROPOSE_NODE
from yarnspec.impl.scheduler.actions.resort import RESORT
from yarnspec.impl.scheduler.bookkeeping.memo import Memo
from yarnspec.impl.scheduler.environment_effects import clock_stopped
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import configuration_from_properties
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import CommitCheck, HeadroomRule, MultiNodeReserve, Variants, variants
from yarnspec.impl.scheduler.state import NONE, ContainerState, ProposalKind, SchedulerState
from yarnspec.impl.scheduler.world import World, build_world
from yarnspec.spec.scheduler.invariants import STATE_INVARIANTS, STEP_INVARIANTS, check_state, check_step
from yarnspec.spec.worlds.world_builders import (
    async_double_commit_world,
    reserved_starvation_world,
    seed002_world,
    two_queues_world,
)

#: The suite's own row: walks that crashed.
RUNS = "scheduler-walks"
#: Every invariant of the catalogue by name, state invariants first.
INVARIANT_NAMES: tuple[str, ...] = tuple(i.name for i in STATE_INVARIANTS) + tuple(i.name for i in STEP_INVARIANTS)
#: What the ``pre-8127`` duplicate commit breaks (the leak): after it, only these may fail.
LEAK_INVARIANTS = frozenset(
    {
        "node-used-is-sum-of-containers",
        "app-is-sum-of-containers",
        "leaf-is-sum-of-apps",
        "user-is-sum-of-apps",
        "cluster-conservation",
    }
)


@dataclass(frozen=True)
class VariantChoice:
    """One behaviour combination: scheduling mode, placement, commit and reservation variants."""

    asynchronous: bool
    multi_node: bool
    commit: CommitCheck
    reserve: MultiNodeReserve = "first-candidate"
    headroom: HeadroomRule = "yarn-8804"

    @property
    def variants(self) -> Variants:
        """The rule record of this choice."""
        return variants(self.commit, self.reserve, self.headroom)

    @property
    def name(self) -> str:
        """``async/multi-node/reserved-pickup``-style name (:attr:`Variants.name`)."""
        mode = "async" if self.asynchronous else "heartbeat"
        placement = "multi-node" if self.multi_node else "single-node"
        return f"{mode}/{placement}/{self.variants.name}"


#: Every behaviour combination a run covers.
VARIANTS: tuple[VariantChoice, ...] = (
    VariantChoice(False, False, "yarn-8127"),
    VariantChoice(False, False, "pre-8127", headroom="pre-4280"),
    VariantChoice(False, True, "yarn-8127"),
    VariantChoice(True, False, "yarn-8127"),
    VariantChoice(True, False, "pre-8127", headroom="yarn-4280"),
    VariantChoice(True, True, "yarn-8127"),
    VariantChoice(True, True, "reserved-pickup"),
    VariantChoice(True, True, "yarn-8127", "yarn-10259"),
    VariantChoice(True, True, "yarn-8127", "yarn-10293"),
    VariantChoice(True, True, "reserved-pickup", "yarn-10293"),
)


def shipped_worlds() -> tuple[tuple[World, bool], ...]:
    """The shipped worlds of :mod:`yarnspec.spec.worlds.world_builders` in each of their
    variants, each with whether its walks are phased (the preemption worlds: a queue must fill
    before another claims its share back). Walks there reach the seed stories (reservations
    picked up or refused, the duplicate commit, preemption of a full cluster) far more often
    than in generated worlds."""
    return (
        (reserved_starvation_world("yarn-8127"), False),
        (reserved_starvation_world("reserved-pickup"), False),
        (reserved_starvation_world("yarn-8127", "yarn-10259"), False),
        (reserved_starvation_world("yarn-8127", "yarn-10293"), False),
        (async_double_commit_world("pre-8127"), False),
        (async_double_commit_world("yarn-8127"), False),
        (seed002_world(), True),
        (seed002_world(reserved_selector=True), True),
        (two_queues_world(), True),
        (two_queues_world("reserved-pickup", asynchronous=True), True),
    )


def _gb(chooser: Chooser, low: int, high: int, vcores: int | None = None) -> Resource:
    memory = chooser.integer(low, high)
    return Resource.of(memory * 1024, vcores if vcores is not None else chooser.integer(1, 2))


def generate_world(chooser: Chooser, variant: VariantChoice) -> World:
    """A small valid world with the given behaviour and everything else chosen."""
    props: dict[str, str] = {
        MINIMUM_ALLOCATION_MB: "1024",
        MAXIMUM_ALLOCATION_MB: "8192",
        MAXIMUM_ALLOCATION_VCORES: "4",
        CAPACITY_PREFIX + "schedule-asynchronously.enable": str(variant.asynchronous).lower(),
        CAPACITY_PREFIX + "multi-node-placement-enabled": str(variant.multi_node).lower(),
        CAPACITY_PREFIX + "reservations-continue-look-all-nodes": chooser.pick(("true", "false")),
    }
    if chooser.integer(0, 3) == 0:
        props[CAPACITY_PREFIX + "resource-calculator"] = (
            "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator"
        )
    if variant.multi_node:
        policy = chooser.pick(("ResourceUsageMultiNodeLookupPolicy", "ResourceUsageRatioMultiNodeLookupPolicy"))
        props[CAPACITY_PREFIX + "multi-node-sorting.policy"] = "p"
        props[CAPACITY_PREFIX + "multi-node-sorting.policy.p.class"] = "org.example." + policy
    labelled = chooser.integer(0, 2) == 0
    leaves = _queues(chooser, props, labelled)
    _preemption(chooser, props)
    partitions = [PartitionSpec("")]
    nodes = [
        NodeSpec(
            f"n{i}",
            _gb(chooser, 2, 8, chooser.integer(2, 8)),
            rack=f"/r{i % 2}",
            live=i < 2 or chooser.integer(0, 1) == 1,
        )
        for i in range(chooser.integer(2, 3))
    ]
    if labelled:
        partitions.append(PartitionSpec("x", exclusive=chooser.pick((True, False))))
        nodes.append(NodeSpec("x0", _gb(chooser, 4, 8, 4), partition="x", rack="/r0"))
    apps = [_app(chooser, i, leaves, nodes, labelled) for i in range(chooser.integer(2, 4))]
    bounds = Bounds(
        max_clock_ms=8000, tick_ms=1000, max_proposals=2, max_ask=4, max_containers=40, max_rereservations=4
    )
    return build_world(
        configuration_from_properties(props, "<generated>"),
        partitions,
        nodes,
        apps,
        variant.variants,
        bounds,
    )


def _queues(chooser: Chooser, props: dict[str, str], labelled: bool) -> list[str]:
    """Two or three leaves, sometimes two under a parent; capacities summing to 100."""
    split = chooser.pick(((50, 50), (70, 30), (20, 80), (100, 0)))
    nested = chooser.integer(0, 2) == 0
    props[CAPACITY_PREFIX + "root.queues"] = "p,b" if nested else "a,b"
    top = "root.p" if nested else "root.a"
    props[f"{CAPACITY_PREFIX}{top}.capacity"] = str(split[0])
    props[CAPACITY_PREFIX + "root.b.capacity"] = str(split[1])
    leaves = ["root.b"]
    if nested:
        props[CAPACITY_PREFIX + "root.p.queues"] = "a,c"
        props[CAPACITY_PREFIX + "root.p.a.capacity"] = "60"
        props[CAPACITY_PREFIX + "root.p.c.capacity"] = "40"
        leaves += ["root.p.a", "root.p.c"]
    else:
        leaves.append("root.a")
    if chooser.integer(0, 1):
        props[CAPACITY_PREFIX + "root.ordering-policy"] = "priority-utilization"
        props[CAPACITY_PREFIX + "root.b.priority"] = str(chooser.integer(0, 2))
    absolute = {"root.a": split[0], "root.b": split[1], "root.p.a": split[0] * 0.6, "root.p.c": split[0] * 0.4}
    for leaf in leaves:
        props[f"{CAPACITY_PREFIX}{leaf}.maximum-capacity"] = str(
            chooser.pick((100, 100, 60 if absolute[leaf] <= 60 else 100))
        )
        props[f"{CAPACITY_PREFIX}{leaf}.user-limit-factor"] = str(chooser.pick((1, 2, 4, 4)))
        props[f"{CAPACITY_PREFIX}{leaf}.minimum-user-limit-percent"] = str(chooser.pick((100, 50)))
        props[f"{CAPACITY_PREFIX}{leaf}.maximum-am-resource-percent"] = str(chooser.pick((0.2, 0.5, 1.0)))
        props[f"{CAPACITY_PREFIX}{leaf}.ordering-policy"] = chooser.pick(("fifo", "fair"))
    if labelled:
        props[CAPACITY_PREFIX + "root.accessible-node-labels.x.capacity"] = "100"
        props[f"{CAPACITY_PREFIX}{top}.accessible-node-labels"] = "x"
        props[f"{CAPACITY_PREFIX}{top}.accessible-node-labels.x.capacity"] = "100"
        props[CAPACITY_PREFIX + "root.b.accessible-node-labels"] = " "
        if nested:
            props[CAPACITY_PREFIX + "root.p.a.accessible-node-labels"] = "x"
            props[CAPACITY_PREFIX + "root.p.a.accessible-node-labels.x.capacity"] = "100"
            props[CAPACITY_PREFIX + "root.p.c.accessible-node-labels"] = " "
        props[NODE_LABELS_ENABLED] = "true"
    return leaves


def _preemption(chooser: Chooser, props: dict[str, str]) -> None:
    if chooser.integer(0, 3) == 0:
        return
    props[MONITOR_ENABLE] = "true"
    props[PREEMPTION_PREFIX + "monitoring_interval"] = "1000"
    props[PREEMPTION_PREFIX + "max_wait_before_kill"] = str(chooser.pick((1000, 2000)))
    props[PREEMPTION_PREFIX + "total_preemption_per_round"] = str(chooser.pick((0.1, 0.5, 1.0)))
    props[PREEMPTION_PREFIX + "natural_termination_factor"] = str(chooser.pick((0.2, 1.0)))
    props[PREEMPTION_PREFIX + "max_ignored_over_capacity"] = str(chooser.pick((0.0, 0.1)))
    if chooser.integer(0, 2) == 0:
        props[PREEMPTION_PREFIX + "select_based_on_reserved_containers"] = "true"


def _app(chooser: Chooser, index: int, leaves: Sequence[str], nodes: Sequence[NodeSpec], labelled: bool) -> AppSpec:
    queue = chooser.pick(leaves)
    requests = []
    for priority in range(1, chooser.integer(1, 2) + 1):
        capability = _gb(chooser, 1, 6)
        locality, relax = "*", True
        if chooser.integer(0, 3) == 0:
            target = chooser.pick(nodes)
            locality = chooser.pick((target.name, target.rack))
            relax = chooser.pick((True, False))
        label = None
        if labelled and queue in ("root.a", "root.p.a") and chooser.integer(0, 1):
            label, locality, relax = "x", "*", True
        requests.append(RequestSpec(priority, capability, locality, relax, label))
    return AppSpec(
        f"app{index}",
        queue,
        _gb(chooser, 1, 2),
        tuple(requests),
        user=chooser.pick(("u1", "u2")),
        priority=chooser.integer(0, 1),
    )


# -- walking --------------------------------------------------------------------------------


#: How often a walk picks each kind of action (relative weights): the scheduler's steps often,
#: losing nodes and finishing applications rarely, so walks reach reservations and preemption.
KIND_WEIGHTS: dict[str, int] = {
    SUBMIT.name: 6, ASK.name: 8, CANCEL.name: 2, LAUNCH.name: 8, COMPLETE.name: 3, RELEASE.name: 2, LOSE_NODE.name: 1,
    ADD_NODE.name: 2, FINISH_APP.name: 1, TICK.name: 4, HEARTBEAT.name: 12, PROPOSE_NODE.name: 12, COMMIT.name: 12,
    RESORT.name: 3, MONITOR.name: 4,
}  # fmt: skip


#: Applications of the ``i``-th leaf (in tree order) may be submitted from ``i x`` this time on,
#: so that one queue borrows idle capacity before the others claim theirs back.
STAGGER_MS = 2000
#: A walk loses at most this many nodes (each loss throws away the cluster's work so far).
MAX_NODE_LOSSES = 2
#: Kinds that give resources back, held back in a phased walk's first half.
SHRINKING = frozenset({FINISH_APP.name, COMPLETE.name, RELEASE.name, CANCEL.name})
#: Kinds that keep the scheduler busy: a phased walk's clock waits for them.
BUSY = frozenset({SUBMIT.name, ASK.name, HEARTBEAT.name, PROPOSE_NODE.name, COMMIT.name, LAUNCH.name})
#: Kinds that only churn the cluster: a walk ends when nothing else is enabled.
CHURN = frozenset({LOSE_NODE.name, ADD_NODE.name})


@dataclass
class WalkPolicy:
    """How the walks choose (shared by the suite and the state machine): applications arrive
    staggered per leaf (:data:`STAGGER_MS`); losing nodes and finishing applications wait
    for the second half of the clock (so queues fill and borrow first) and at most
    :data:`MAX_NODE_LOSSES` nodes are lost; ``phased`` walks also keep every container and
    request until then, and let the clock move only while the scheduler has nothing to do (a
    growing phase, then a shrinking one: what preemption needs); a walk ends once only cluster
    churn (:data:`CHURN`) is left to do."""

    phased: bool = False
    losses: int = 0

    def allowed(self, world: World, state: SchedulerState, actions: Sequence[Action]) -> list[Action]:
        """The actions the walk may take now (empty: the walk is over)."""
        allowed = [a for a in actions if self._due(world, state, a)]
        if self.phased and any(kind(a) in BUSY for a in allowed):
            allowed = [a for a in allowed if kind(a) != TICK.name]
        if all(kind(a) in CHURN for a in allowed):
            return []
        return allowed

    def _due(self, world: World, state: SchedulerState, action: Action) -> bool:
        if kind(action) == TICK.name:
            return not clock_stopped(world, state)
        if isinstance(action, Submit):
            return state.clock >= STAGGER_MS * world.leaves.index(world.apps[action.app].queue)
        late = 2 * state.clock >= world.bounds.max_clock_ms
        if kind(action) == LOSE_NODE.name:
            return late and self.losses < MAX_NODE_LOSSES
        if kind(action) in SHRINKING:
            return late or (kind(action) != FINISH_APP.name and not self.phased)
        return True

    def taken(self, action: Action) -> None:
        """Count what the walk took."""
        if kind(action) == LOSE_NODE.name:
            self.losses += 1

    def weighted_kinds(self, actions: Sequence[Action]) -> list[str]:
        """The kinds of ``actions``, each repeated by its weight (:data:`KIND_WEIGHTS`)."""
        kinds = sorted({kind(a) for a in actions}, key=KINDS.index)
        return [k for k in kinds for _ in range(KIND_WEIGHTS[k])]


def choose_action(
    chooser: Chooser, policy: WalkPolicy, world: World, state: SchedulerState, actions: Sequence[Action]
) -> Action | None:
    """A kind among the allowed kinds by weight, then one action of that kind; ``None`` when
    the walk is over."""
    allowed = policy.allowed(world, state, actions)
    if not allowed:
        return None
    chosen = chooser.pick(policy.weighted_kinds(allowed))
    action = chooser.pick([a for a in allowed if kind(a) == chosen])
    policy.taken(action)
    return action


def paths(world: World, before: SchedulerState, action: Action, after: SchedulerState, note: str) -> set[str]:
    """Labels of the interesting behaviours one step shows (for ``hypothesis.event`` and the
    suite's coverage)."""
    reached = {f"action {kind(action)}"}
    if isinstance(action, (Commit, Heartbeat)):
        head = note.split(":")[0]
        reached.add(head)
        if isinstance(action, Commit) and "rejected" in head:
            reached.add("async commit rejected")
        if isinstance(action, Commit) and "committed" in head:
            reached.add("async commit applied")
        if note.startswith("committed allocate") and after.next_container == before.next_container:
            moved = [
                c for c in before.containers
                if c.state == ContainerState.RESERVED and (now := after.container(c.cid)) is not None and now.live and now.node != c.node
            ]  # fmt: skip
            if moved:
                reached.add("reserved container picked up on another node")
        released = [
            c for c in before.containers if c.state == ContainerState.RESERVED and after.container(c.cid) is None
        ]
        if released and after.next_container > before.next_container:
            reached.add("allocation releasing a reservation elsewhere (continue-looking)")
        if "YARN-8127" in note:
            reached.add("YARN-8127 check refused a commit")
    if isinstance(action, Monitor) and note:
        for part in note.split(", "):
            reached.add("monitor " + part.split()[0])
    return reached


def duplicate_commit(world: World, before: SchedulerState, action: Action, note: str) -> bool:
    """Whether the step committed an allocation from a reservation that was already gone
    (only possible under ``pre-8127``: the YARN-8127 race)."""
    if not isinstance(action, Commit) or not note.startswith("committed"):
        return False
    proposal = action.proposal
    if proposal.kind != ProposalKind.ALLOCATE or proposal.from_reserved == NONE:
        return False
    reserved = before.container(proposal.from_reserved)
    return reserved is None or reserved.state != ContainerState.RESERVED


@dataclass(frozen=True)
class InvariantOutcome:
    """One invariant's tally over the suite: checks, holds, violations (and violations under a
    variant known to break it), and the first violation with its trace."""

    name: str
    summary: str
    checked: int
    held: int
    violated: int
    known: int = 0
    counterexample: str = ""


@dataclass
class _Tally:
    checked: int = 0
    violated: int = 0
    known: int = 0
    first: str = ""


@dataclass
class SuiteReport:
    """What :func:`run` found: per invariant outcomes, and the kinds and paths reached."""

    outcomes: list[InvariantOutcome]
    kinds: Counter[str] = field(default_factory=Counter)
    paths: Counter[str] = field(default_factory=Counter)


def run(examples: int, seed: int, steps: int = 150) -> list[InvariantOutcome]:
    """Per-invariant outcomes of :func:`run_report` (the row ``yarnspec check`` shows)."""
    return run_report(examples, seed, steps).outcomes


def run_report(examples: int, seed: int, steps: int = 150) -> SuiteReport:
    """Walk ``examples`` generated worlds per variant of :data:`VARIANTS`, and each shipped world
    ``examples`` times, for up to ``steps`` steps each, deterministically from ``seed``,
    checking the whole catalogue after every step.

    Raises :class:`InputError` for a non-positive ``examples`` or ``steps`` or a negative
    ``seed``.
    """
    for place, value, lowest in (("examples", examples, 1), ("seed", seed, 0), ("steps", steps, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < lowest:
            raise InputError("scheduler suite", place, f"expected a whole number >= {lowest}, found {value!r}")
    tallies = {name: _Tally() for name in (RUNS, *INVARIANT_NAMES)}
    report = SuiteReport([])
    for example in range(examples):
        for variant in VARIANTS:
            chooser = RandomChooser(f"{seed}/{variant.name}/{example}")
            _walk(chooser, generate_world(chooser, variant), steps, tallies, report)
        for index, (world, phased) in enumerate(shipped_worlds()):
            _walk(RandomChooser(f"{seed}/named{index}/{example}"), world, steps, tallies, report, phased)
    summaries = {RUNS: "every generated walk runs without an exception"}
    summaries.update({i.name: i.summary for i in STATE_INVARIANTS})
    summaries.update({i.name: i.summary for i in STEP_INVARIANTS})
    report.outcomes = [
        InvariantOutcome(
            name, summaries[name], t.checked, t.checked - t.violated - t.known, t.violated, t.known, t.first
        )
        for name, t in tallies.items()
    ]
    return report


def _walk(
    chooser: Chooser, world: World, steps: int, tallies: dict[str, _Tally], report: SuiteReport, phased: bool = False
) -> None:
    state = start(world)
    memo = Memo(world)
    policy = WalkPolicy(phased)
    trace: list[str] = []
    leaked = False
    try:
        for _ in range(steps):
            action = choose_action(chooser, policy, world, state, enabled(world, state, memo))
            if action is None:
                break
            result = take(world, state, action, memo)
            trace.append(f"{label(world, action)}{' -> ' + result.note if result.note else ''}")
            leaked = leaked or duplicate_commit(world, state, action, result.note)
            report.kinds[kind(action)] += 1
            report.paths.update(paths(world, state, action, result.state, result.note))
            found = dict(check_state(world, result.state) + check_step(world, state, action, result.state))
            for name in INVARIANT_NAMES:
                tally = tallies[name]
                tally.checked += 1
                message = found.get(name)
                if message is None:
                    continue
                if leaked and name in LEAK_INVARIANTS:
                    tally.known += 1
                    continue
                tally.violated += 1
                if not tally.first:
                    tally.first = _counterexample(world, message, trace)
            state = result.state
        tallies[RUNS].checked += 1
    except Exception as exc:  # a crash is reported as the suite's own violation, not raised
        tally = tallies[RUNS]
        tally.checked += 1
        tally.violated += 1
        if not tally.first:
            tally.first = _counterexample(world, f"{type(exc).__name__}: {exc}", trace)
    if leaked:
        report.paths["YARN-8127 duplicate commit (leak)"] += 1


def _counterexample(world: World, message: str, trace: Sequence[str]) -> str:
    steps = "\n".join(f"  {i + 1}. {step}" for i, step in enumerate(trace))
    return f"{message}\nworld {world.name}; steps:\n{steps}"
