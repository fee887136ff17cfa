"""Named scenarios: small bounded worlds that tell one story each, with the verdict expected
under every behaviour variant they are run in.

A :class:`Scenario` names a world builder (a function of its variant options returning a
:class:`~yarnspec.impl.scheduler.world.World`), a one-line story, its source (seed, JIRA) and
its :class:`ScenarioVariant` s. Each variant gives the builder's options, the property checked
(:data:`INVARIANTS`, the whole safety catalogue of :mod:`yarnspec.spec.scheduler_invariants`,
or a progress property of :class:`~yarnspec.spec.scheduler_model.SchedulerModel`), the
verdict the analyses lead us to expect (``holds`` or ``violated``) and the evidence for it.
Every scenario also carries default explorer bounds and smaller ``fast`` ones (for
``yarnspec check --fast``).

The expected verdicts are claims about the real systems (from the seeds and the JIRA
analyses), written here once; the explorer computes verdicts and only the checking side
(:mod:`yarnspec.checks.scenario_suite`) compares the two. Where the model disagreed with an
analysis, the builder's docstring says why and what the evidence is.

A model built from a scenario names it in its parameters (``"world": "reserved-starvation/
yarn-8127"``), so a trace records which scenario and variant produced it and
:func:`model_for_title` rebuilds that model to replay it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from yarnspec.impl.errors import InputError
from yarnspec.impl.preemption.config import LAZY, NODE_COST_KEY
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import Action, kind
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import (
    AppSpec,
    Bounds,
    CommitCheck,
    HeadroomRule,
    MultiNodeReserve,
    NodeSpec,
    PartitionSpec,
    RequestSpec,
    World,
    CONTINUE_LOOKING_KEY,
    build_world,
    configuration_from_properties,
    variants,
)
from yarnspec.spec.scheduler_model import (
    MONITOR,
    PREEMPTION,
    PREFIX,
    ModelState,
    SchedulerModel,
    duplicate_commit_world,
    headroom_of,
    seed003_world,
)
from yarnspec.spec.transition_system import JSONValue

#: The property name standing for every invariant of the catalogue (state and step invariants).
INVARIANTS = "invariants"
#: Separates the scenario and the variant in a model's title (``"async-double-commit/pre-8127"``).
TITLE_SEPARATOR = "/"

Expected = Literal["holds", "violated"]
EXPECTED: tuple[Expected, ...] = ("holds", "violated")


@dataclass(frozen=True)
class ExploreBounds:
    """How far the explorer goes by default: ``None`` means no bound (exhaustive).
    ``symmetry`` is used for safety only (the explorer turns it off for progress)."""

    max_depth: int | None = None
    max_states: int | None = None
    symmetry: bool = False

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-able form."""
        return {"max_depth": self.max_depth, "max_states": self.max_states, "symmetry": self.symmetry}


@dataclass(frozen=True)
class ScenarioVariant:
    """One way of running a scenario: ``options`` are the world builder's keyword arguments,
    ``property`` the property checked (:data:`INVARIANTS` or a progress property's name),
    ``expected`` its verdict and ``evidence`` one line saying why."""

    name: str
    options: Mapping[str, Any]
    property: str
    expected: Expected
    evidence: str

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-able form."""
        return {
            "name": self.name,
            "options": dict(self.options),
            "property": self.property,
            "expected": self.expected,
            "evidence": self.evidence,
        }


@dataclass(frozen=True)
class Scenario:
    """A named world with its story, source, variants and default bounds."""

    name: str
    story: str
    source: str
    build: Callable[..., World]
    variants: tuple[ScenarioVariant, ...]
    bounds: ExploreBounds = field(default_factory=ExploreBounds)
    fast: ExploreBounds = field(default_factory=ExploreBounds)
    setup: tuple[str, ...] = ()
    quiet: frozenset[str] = frozenset()

    @property
    def description(self) -> str:
        """The world builder's docstring: the world, the story and the evidence."""
        return (self.build.__doc__ or "").strip()

    def variant(self, name: str | None, source: str = "<scenarios>", place: str = "variant") -> ScenarioVariant:
        """The variant called ``name`` (the first one when ``None``); an :class:`InputError`
        naming ``source`` and ``place`` and the known variants otherwise."""
        if name is None:
            return self.variants[0]
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants)
        raise InputError(source, place, f"scenario {self.name} has no variant {name!r}; known: {known}")

    def title(self, variant: ScenarioVariant) -> str:
        """The model's title for one variant, written into traces: ``scenario/variant``."""
        return f"{self.name}{TITLE_SEPARATOR}{variant.name}"

    def world(self, variant: ScenarioVariant) -> World:
        """The world of one variant."""
        return self.build(**variant.options)

    def model(self, variant: ScenarioVariant) -> SchedulerModel:
        """The transition system of one variant; it checks progress only when the variant's
        property is a progress property (and then only that one). A scenario with a ``setup``
        starts where those steps lead; one with ``quiet`` kinds leaves them to nobody."""
        progress = variant.property != INVARIANTS
        properties = (variant.property,) if progress else ()
        if self.setup or self.quiet:
            return ScenarioModel(self.world(variant), self.title(variant), properties, self.setup, self.quiet)
        return SchedulerModel(self.world(variant), self.title(variant), progress=progress, properties=properties)

    def to_json(self) -> dict[str, JSONValue]:
        """JSON-able form (``yarnspec explore --list --json``)."""
        return {
            "name": self.name,
            "story": self.story,
            "source": self.source,
            "bounds": self.bounds.to_json(),
            "fast": self.fast.to_json(),
            "variants": [v.to_json() for v in self.variants],
            "setup": list(self.setup),
            "quiet": sorted(self.quiet),
        }


class ScenarioModel(SchedulerModel):
    """A scheduler model that starts where a fixed ``setup`` leads (action labels played from
    the world's initial state) and whose environment never takes the ``quiet`` action kinds.

    A story that begins in a particular state (the lender holding the whole cluster) starts
    there instead of exploring every way to reach it; leaving environment kinds out (containers
    that never finish by themselves) keeps the world small. Both only remove behaviours, so a
    violation found is a violation of the full world, while "holds" is claimed for this
    environment only.
    """

    def __init__(
        self, world: World, title: str, properties: Sequence[str], setup: Sequence[str], quiet: frozenset[str]
    ) -> None:
        super().__init__(world, title, progress=bool(properties), properties=properties)
        self.quiet = quiet
        (state,) = super().initial_states()
        for index, wanted in enumerate(setup):
            found = [target for action, target in self.successors(state) if self.action_label(action) == wanted]
            if not found:
                raise ValueError(f"{title}: setup[{index}] {wanted!r} is not enabled")
            state = found[0]
        self._initial = state

    def initial_states(self) -> list[ModelState]:
        """The state the setup leads to."""
        return [self._initial]

    def actions(self, state: SchedulerState) -> list[Action]:
        """The scheduler model's actions, without the quiet environment kinds."""
        return [action for action in super().actions(state) if kind(action) not in self.quiet]


# -- world builders -------------------------------------------------------------------------


def async_double_commit_world(commit: CommitCheck = "pre-8127") -> World:
    """YARN-8127: two asynchronous scheduling threads propose from one reservation.

    The world is :func:`~yarnspec.spec.scheduler_model.duplicate_commit_world`: one queue, a
    12 GB node n0 (and a 2 GB n1 that only adds headroom), app1 asking for four 4 GB
    containers. Two allocations leave 3 GB on n0, so the third container is reserved there;
    once the first two complete, two threads both propose the allocation from the reservation.

    * ``pre-8127`` (Hadoop 3.0.x-3.1.0: asynchronous scheduling without the check): both
      commits apply. The second allocates the same
      container again: the node and the application are charged twice while the queue is not
      (``LeafQueue.apply`` skips the queue for an allocation from a reservation), so the
      4 GB never return. Expected **violated**; the explorer's shortest trace (20 steps, the
      last two the two commits) breaks ``node-used-is-sum-of-containers``, and the same state
      also breaks ``cluster-conservation``, ``leaf-is-sum-of-apps``, ``user-is-sum-of-apps``
      and ``app-is-sum-of-containers``.
    * ``yarn-8127`` (Hadoop 3.1.1 to 3.4.x; the world runs 3.1.2-3.2.x's rules): the commit
      refuses an allocation from a reservation its node no longer holds. Expected **holds**:
      exhaustive with symmetry, 11,082 states.
    * ``reserved-pickup`` (seed 003's first fix, never published; the variant is our reading
      of it): the pick-up releases the reservation it uses, and
      the commit checks that a reservation given up still exists, so the second commit is
      refused too. Expected **holds**: exhaustive, 11,082 states (the fix does not bring the
      leak back).
    """
    return duplicate_commit_world(commit)


def reserved_starvation_world(
    commit: CommitCheck = "yarn-8127", reserve: MultiNodeReserve = "first-candidate", max_containers: int | None = None
) -> World:
    """Seed 003: asynchronous scheduling with multi-node placement; a reserved container starves
    while another node has room (YARN-10259, YARN-10293).

    The world is :func:`~yarnspec.spec.scheduler_model.seed003_world`: one queue, a 4 GB node
    n0 and an 8 GB node n1, resource-usage sorting (least allocated first, re-sorted every
    second), app1 whose AM lands on n0 and which asks for 4 GB containers. With the sorted order
    still the initial one (n0 first), the 4 GB request does not fit n0 and is reserved there.
    The property is ``reservation-progress``: a reservation that fits on some node of its
    partition while its request still asks is eventually allocated or dropped, under weak
    fairness of the scheduler's steps and the clock. ``max_containers`` lowers the world's
    container-id bound (default 4).

    * ``yarn-8127`` (Hadoop 3.2.x, as seed 003 ran it): after the re-sort n1 (empty) comes
      first, the reservation is proposed on n1, and the YARN-8127 check refuses it at every
      commit. Expected **violated** (the seed's story).
    * ``reserved-pickup`` (the seed author's first fix alone, never published, as we read it,
      with Hadoop 3.2's ``first-candidate`` reservation handling). The issue expected this to hold; the model
      says **violated**, and the analysis was incomplete. The fix lets another node take the
      reservation, but only if another node is *tried*: in Hadoop 3.2
      ``RegularContainerAllocator.allocate`` walks the sorted candidates and stops at the first
      where the reserved container is allocated *or reserved again*. The lasso: the first
      4 GB container goes to n1 (from a proposal made after the re-sort), the AM asks for one
      more, a stale proposal from the old order reserves it on n0; n1 now has 4 GB allocated and
      n0 1 GB, and ``ResourceUsageMultiNodeLookupPolicy`` sorts by allocated resource (a
      reservation does not count), so every re-sort puts n0 first, the reservation is
      re-reserved on n0 for ever and n1's free 4 GB is never tried. Seed 003's usage-ratio
      policy sorts the same way here (n0 25% used, n1 50%). Evidence that the pick-up itself
      works: variant ``reserved-pickup-one-container``. The seed's author also needed the second
      fix (do not reserve while other candidates remain), which is what YARN-10259 did; its
      upstream cousin YARN-11573 (3.4, off by default) is not modelled.
    * ``reserved-pickup-one-container``: the same, but only two container ids (the AM and one
      worker), so no second container can make n1 the more allocated node. Expected **holds**
      (exhaustive, 1,237 states), against ``yarn-8127`` which starves in that world too.
    * ``yarn-8127+yarn-9432`` (Hadoop 3.3.0): YARN-9432 serves every reservation on its own
      node, but only when the partition is full, which it is not here. Expected **violated**
      (exhaustive, 4,839 states; the same lasso as ``yarn-8127``).
    * ``yarn-8127+yarn-10259`` (Hadoop 3.3.1-3.3.6): a reservation is served only when the
      candidate set is one node, and a request is reserved only on the last candidate, if
      that one returns RESERVED. Every candidate is tried, n1 takes each container, and no
      reservation is ever made in this world (the premise never holds): expected **holds**
      (exhaustive, 2,255 states, none with a reservation).
    * ``yarn-8127+yarn-10259+yarn-10293`` (Hadoop 3.4.x) and
      ``reserved-pickup+yarn-10259+yarn-10293``: YARN-10293 also serves each reserved node
      first on every pass; there are no reservations here either. Expected **holds**
      (exhaustive, 2,255 states each). Before this model split them, a single ``yarn-10259``
      variant had both JIRAs (3.4.x) and was labelled 3.2.2 / 3.3.
    """
    world = seed003_world(commit, reserve)
    if max_containers is not None:
        world = replace(world, bounds=replace(world.bounds, max_containers=max_containers))
    return world


def no_leak_world(commit: CommitCheck = "yarn-8127") -> World:
    """A general small world where nothing may go wrong: every invariant of the catalogue holds.

    Two queues a and b at 50% each (maximum 100%, ``user-limit-factor`` 2, AM share 0.5), two
    interchangeable 2 GB nodes that may be lost and join again, and one application per queue
    (A in a, B in b) with a 1 GB AM asking for 1 GB containers. Asynchronous single-node
    scheduling (one proposal in flight), the preemption monitor every second with a kill one
    second after the mark, the whole excess preempted per round (``total_preemption_per_round``
    and ``natural_termination_factor`` 1.0, so preemption happens within few steps). The clock
    runs to 2 s in 1 s ticks; at most six container ids.

    Every kind of step occurs within the bound: submits, asks and cancels, launches,
    completions, releases, node loss and return, application finish, proposals and commits,
    and monitor rounds that mark containers and kill them (at depth 12: 74 marking and 12
    killing rounds among the explored steps). The default bounds stop at depth 12, so the
    claim of ``yarnspec check`` is bounded: **holds up to depth 12** (8,798 states with
    symmetry), under ``yarn-8127`` and ``reserved-pickup``. The world is finite:
    ``yarnspec explore no-leak --exhaustive`` visits all of it, 256,323 states with symmetry
    (depth 35, 2,646,021 transitions, 176 s), and every invariant **holds
    (exhaustive)** under both variants.
    """
    conf = configuration_from_properties(
        {
            PREFIX + "root.queues": "a,b",
            PREFIX + "root.a.capacity": "50",
            PREFIX + "root.b.capacity": "50",
            PREFIX + "root.a.user-limit-factor": "2",
            PREFIX + "root.b.user-limit-factor": "2",
            PREFIX + "root.a.maximum-am-resource-percent": "0.5",
            PREFIX + "root.b.maximum-am-resource-percent": "0.5",
            PREFIX + "schedule-asynchronously.enable": "true",
            MONITOR: "true",
            PREEMPTION + "monitoring_interval": "1000",
            PREEMPTION + "max_wait_before_kill": "1000",
            PREEMPTION + "total_preemption_per_round": "1.0",
            PREEMPTION + "natural_termination_factor": "1.0",
        }
    )
    one_gb = Resource.of(1024, 1)
    nodes = [NodeSpec("n0", Resource.of(2048, 2)), NodeSpec("n1", Resource.of(2048, 2))]
    apps = [
        AppSpec("A", "a", one_gb, (RequestSpec(1, one_gb),), user="u"),
        AppSpec("B", "b", one_gb, (RequestSpec(1, one_gb),), user="v"),
    ]
    bounds = Bounds(max_clock_ms=2000, tick_ms=1000, max_proposals=1, max_ask=1, max_containers=6, node_churn=True)
    return build_world(conf, [PartitionSpec("")], nodes, apps, variants(commit, headroom=headroom_of(commit)), bounds)


def big_container_world(
    reserved_selector: bool = False, continue_looking: bool = True, commit: CommitCheck = "yarn-8127", headroom: HeadroomRule = "yarn-8804",
    node_cost: bool = False, lazy: bool = False,
) -> World:
    """Seed 002's small cluster and large container, scaled down (the second world of
    ``big-container-livelock``; the story starts from the scenario's setup).

    Three 2 GB nodes; queues A and B at 50% each (maximum 100%, ``user-limit-factor`` 2). The
    lender app_A (a 2 GB AM on n0, 1 GB containers) holds the whole cluster: n0 AM, n1 and n2
    two 1 GB containers each. The borrower app_B (1 GB AM) then asks for one 2 GB container:
    within B's 3 GB guarantee, larger than the 1 GB a round frees. Heartbeat scheduling; the
    monitor every second, kill one second after the mark; ``natural_termination_factor`` at its
    default 0.2; ``total_preemption_per_round`` 0.5 (see the scenario's documentation: the
    default 0.1 of a 6 GB cluster is 614 MB, below one 1 GB container, and Hadoop's
    ``fitsIn(container, totalPreemptionAllowed)`` check then preempts nothing at all). An
    endless world (``Bounds.endless``): time goes on at the 3 s bound and container ids are
    reused, so a preemption cycle is a loop.

    ``reserved_selector``: ``select_based_on_reserved_containers`` (YARN-4390), which
    preempts on the node of a reservation until it fits. ``continue_looking``:
    ``reservations-continue-look-all-nodes`` (default true; the tests turn it off to show
    that the verdict does not depend on it). The property is ``guarantee-progress``: B's
    pending 2 GB container keeps B within its guarantee, so it must eventually be allocated
    (or withdrawn). Exhaustive: 610 states per variant.

    ``commit`` and ``headroom`` name the scheduler's rules
    (:func:`~yarnspec.impl.scheduler.world.variants`); the default is Hadoop 3.1.2-3.2.x.

    * ``pre-4280`` (the 2.7.x scheduler, without YARN-4280's blocked headroom; the preemption
      policy is still 3.x's): expected **violated**, seed 002's story. The lasso: a round marks
      and then kills A's newest container (on n2), B's AM takes the first freed gigabyte and B
      asks for 2 GB; from then on every round kills A's newest container, A asks again and
      takes the freed 1 GB back at n2's next heartbeat, and the next round kills that one:
      "preempted, restarted as the newest, preempted again" for ever. (Exhaustive: 610
      states.) B never reserves: its headroom is the cluster's free space, 1 GB, short of its
      container (``RegularContainerAllocator.checkHeadroom``), so B is skipped for its queue
      limit and A takes the gigabyte.
    * ``default`` (Hadoop 2.8 and later): expected **violated**, but the story is not seed
      002's. Once B is skipped for its queue limit, ``ParentQueue`` gives A a limit less B's
      headroom (YARN-4280's blocked headroom), so A cannot take the freed gigabyte back. A
      second kill leaves 1 GB free on each of n1 and n2, B's headroom reaches 2 GB and B
      reserves its container on n1. The reservation counts in B's use: both queues now hold
      exactly their 3 GB guarantee, so no round preempts anything more, and the reservation
      waits for ever beside A's 1 GB container on n1 (exhaustive, 372 states).
    * ``reserved-selector`` (YARN-4390, 2.8 and later): expected **violated** for the same
      reason: the selector preempts on the reserved node only within the lender's excess over
      its ideal, and the lender is at its guarantee. Two 1 GB holes for ever (exhaustive, 372
      states). Before blocked headroom was modelled this variant was recorded with the
      ``pre-4280`` story ("B never gets a reservation"); that was the 2.7.x scheduler's
      behaviour, and 2.7.x has no reserved selector. The verdict holds with
      ``reservations-continue-look-all-nodes`` off as well.
    * ``node-cost`` (``node_cost``: seed 002's remedy, the node-cost selector,
      ``yarnspec.preemption.node-cost-selector``): expected **violated**, found by the
      explorer (4,758 states, with blocked headroom). The selector frees A's containers on
      n1 and n2, so n2 has 2 GB free, but B's request is served at the first heartbeat, n1's,
      and B reserves there beside its own AM, where 2 GB never fit; A takes a gigabyte on n2,
      the reservation counts in B's use, so B is satisfied and nothing more is preempted: a
      lasso of nothing but the clock and the monitor. Choosing the node is not enough: the
      request must be held for that node.
    * ``lazy`` (``lazy``: ``lazy-preemption-enabled``, :mod:`~yarnspec.impl.scheduler.killable`):
      expected **violated** (exhaustive, 308 states). The wait is the same: B's AM is placed on
      n2 only once A's marked container there is killable, by killing it. Then two rounds make
      one A container killable on n1 and one on n2. B's headroom counts them (2 GB), but no
      node has 2 GB free plus killable, and B's reservation is refused at commit: root's used
      still counts the killable containers, so used plus the reservation exceeds root's maximum
      (``AbstractCSQueue.accept``). The policy counts A's killable resource as already given
      up, so nothing more is marked: two killable gigabytes on two nodes for ever.
    """
    return _lender_borrower_world(
        node_gb=2, lender_am_gb=2, borrower_gb=2, per_round="0.5", natural_termination=None, max_containers=8,
        reserved_selector=reserved_selector, continue_looking=continue_looking, commit=commit, headroom=headroom,
        node_cost=node_cost, lazy=lazy,
    )  # fmt: skip


def big_container_reserved_world(
    reserved_selector: bool = False, headroom: HeadroomRule = "yarn-8804", node_cost: bool = False, lazy: bool = False
) -> World:
    """Seed 002's large container where one round frees it in total, but spread over the nodes:
    the case the reserved-container selector (YARN-4390) was written for (``big-container-reserved``).

    Three 3 GB nodes; queues A and B at 50% (4.5 GB guaranteed each). The lender app_A (a 1 GB
    AM on n0 and 1 GB containers placed round-robin, n1, n2, n0, ..., as heartbeats arrive)
    holds the whole cluster; the borrower app_B (1 GB AM) asks for one 2 GB container.
    ``natural_termination_factor`` 1.0 and ``total_preemption_per_round`` 0.25 (2.25 GB), so
    the first round after B's ask frees A's whole excess, two 1 GB containers, the newest,
    which sit on two different nodes. B's headroom is then 2 GB, and at the first of those
    nodes' heartbeats B reserves its container there (1 GB free). The reservation counts in
    B's use, so the cluster is full again for A's queue limit: A cannot take the freed space
    back. The property is ``guarantee-progress``; the story starts from the scenario's setup.

    * ``default``: expected **violated**. With the reservation B's use (AM plus reservation,
      3 GB) equals its ideal: the FIFO selector offers a queue its pending net of what is
      reserved, so B is satisfied, A sits at its ideal 6 GB, and nothing more is preempted.
      The lasso: two nodes keep 1 GB free each, the reserved node keeps A's container, and
      the reservation waits for ever (a reservation only completes on its own node).
    * ``reserved-selector``: expected **holds** (exhaustive, 3,854 states). In reserved mode
      the ideal uses plain pending, so B is owed up to its guarantee and A's quota is 1.5 GB;
      the selector preempts A's container on the reserved node, and the reservation is
      allocated there.

    With ``natural_termination_factor`` at its default 0.2 a round frees one container, short
    of B's; with blocked headroom (YARN-4280) A cannot take it back, so B still reserves, and
    the verdicts are the same: the FIFO selector leaves the reservation waiting (violated),
    the reserved selector serves it (holds, exhaustive, 3,840 states). Without blocked
    headroom both starved, B never reserving.

    * ``node-cost`` (``node_cost``: seed 002's remedy, the node-cost selector): expected
      **holds** (exhaustive, 11,136 states). The selector concentrates the round on the node
      where freeing the container is cheapest; with blocked headroom (YARN-4280) the lender
      cannot take that node's free space back before the kill, and B's container is allocated.
    * ``node-cost+pre-4280``: the same selector with the 2.7.x scheduler (no blocked headroom):
      expected **violated** (exhaustive, 19,676 states). The selector keeps marking a lender
      container on the node with 1 GB free, but A's next container takes that gigabyte at the
      node's heartbeat before the kill, so the node never holds 2 GB free at once: seed 002's
      cycle on one node. So seed 002's remedy ends the starvation only together with blocked
      headroom, in a world where a round can free the container in total.

    With lazy preemption (``lazy``) freed space never appears: marked containers become
    killable and keep running, a queue under its guarantee allocates by killing them only
    where free plus killable resource on one node holds the container, and a reservation in
    the full cluster is refused at commit (root's used still counts the killable containers;
    ``AbstractCSQueue.accept``). So:

    * ``lazy``: expected **violated** (exhaustive, 290 states): A's two killable containers sit
      on two nodes, B's 2 GB fits on neither, the reservation is refused, and the policy, which
      counts killable resource as given up, marks nothing more.
    * ``lazy+reserved-selector``: expected **violated** (exhaustive, 290 states): the reserved
      selector acts only for a reservation, and B never gets one.
    * ``lazy+node-cost``: expected **violated** (exhaustive, 522 states): the round for B's AM
      marks on two nodes, the AM kills one of them, and the round for the 2 GB container marks
      one more container on a third node: 1 GB killable on each of two nodes for ever.
    """
    return _lender_borrower_world(
        node_gb=3, lender_am_gb=1, borrower_gb=2, per_round="0.25", natural_termination="1.0", max_containers=11,
        reserved_selector=reserved_selector, continue_looking=True, headroom=headroom, node_cost=node_cost, lazy=lazy,
    )  # fmt: skip


def _lender_borrower_world(
    node_gb: int, lender_am_gb: int, borrower_gb: int, per_round: str, natural_termination: str | None,
    max_containers: int, reserved_selector: bool, continue_looking: bool, commit: CommitCheck = "yarn-8127",
    headroom: HeadroomRule = "yarn-8804", node_cost: bool = False, lazy: bool = False,
) -> World:  # fmt: skip
    """Seed 002's two queues on three nodes of ``node_gb``: A (the lender, 1 GB containers)
    and B (the borrower, a 1 GB AM and one ``borrower_gb`` container), 50% each, the monitor
    every second with the kill a second after the mark, in an endless world with at most
    ``max_containers`` container ids in use."""
    props = {
        PREFIX + "root.queues": "A,B",
        PREFIX + "root.A.capacity": "50",
        PREFIX + "root.B.capacity": "50",
        PREFIX + "root.A.user-limit-factor": "2",
        PREFIX + "root.B.user-limit-factor": "2",
        PREFIX + "root.A.maximum-am-resource-percent": "0.5",
        PREFIX + "root.B.maximum-am-resource-percent": "0.5",
        MONITOR: "true",
        PREEMPTION + "monitoring_interval": "1000",
        PREEMPTION + "max_wait_before_kill": "1000",
        PREEMPTION + "total_preemption_per_round": per_round,
    }
    if natural_termination is not None:
        props[PREEMPTION + "natural_termination_factor"] = natural_termination
    if reserved_selector:
        props[PREEMPTION + "select_based_on_reserved_containers"] = "true"
    if node_cost:
        props[NODE_COST_KEY] = "true"
    if not continue_looking:
        props[CONTINUE_LOOKING_KEY] = "false"
    if lazy:
        props[LAZY] = "true"
    one_gb = Resource.of(1024, 1)
    nodes = [NodeSpec(f"n{i}", Resource.of(node_gb * 1024, node_gb)) for i in range(3)]
    apps = [
        AppSpec("app_A", "A", Resource.of(lender_am_gb * 1024, lender_am_gb), (RequestSpec(1, one_gb),), user="ua"),
        AppSpec("app_B", "B", one_gb, (RequestSpec(1, Resource.of(borrower_gb * 1024, borrower_gb)),), user="ub"),
    ]
    bounds = Bounds(max_clock_ms=3000, tick_ms=1000, max_proposals=1, max_ask=1, max_containers=max_containers, node_churn=False, endless=True)
    return build_world(configuration_from_properties(props), [PartitionSpec("")], nodes, apps, variants(commit, headroom=headroom), bounds)


def lender_fills(placement: Sequence[str]) -> tuple[str, ...]:
    """Set-up steps: app_A's AM on n0, then one 1 GB container on each node of ``placement``
    in turn, all launched, then app_B submitted: where seed 002's story starts."""
    steps = ["submit(app_A)", "heartbeat(n0)", "launch(c0)"]
    for node in placement:
        steps += ["ask(app_A, r1)", f"heartbeat({node})"]
    steps += [f"launch(c{i})" for i in range(1, len(placement) + 1)]
    return (*steps, "submit(app_B)")


#: The lender fills the cluster (its 2 GB AM on n0, two containers on each of n1 and n2, all
#: running), then the borrower submits.
BIG_CONTAINER_SETUP: tuple[str, ...] = lender_fills(["n1", "n1", "n2", "n2"])

#: The lender's 1 GB AM on n0 and eight containers placed round-robin from n1.
BIG_CONTAINER_RESERVED_SETUP: tuple[str, ...] = lender_fills(["n1", "n2", "n0"] * 2 + ["n1", "n2"])

#: The lender's containers run until preempted and nobody cancels or finishes.
LENDER_QUIET = frozenset({"complete", "release", "cancel", "finish-app"})

#: The depth of ``big-container-reserved``'s fast bounds: deep enough for the default lasso.
FAST_RESERVED_DEPTH = 18


# -- the registry ---------------------------------------------------------------------------


def _scenarios() -> tuple[Scenario, ...]:
    return (
        Scenario(
            name="async-double-commit",
            story="two scheduler threads commit the same reservation's allocation: the node is charged twice and the resource leaks",
            source="YARN-8127; seed 003",
            build=async_double_commit_world,
            variants=(
                ScenarioVariant(
                    "pre-8127", {"commit": "pre-8127"}, INVARIANTS, "violated",
                    "no commit check: the second commit from one reservation applies again (the leak YARN-8127 fixed)",
                ),
                ScenarioVariant(
                    "yarn-8127", {"commit": "yarn-8127"}, INVARIANTS, "holds",
                    "the commit refuses an allocation from a reservation its node no longer holds",
                ),
                ScenarioVariant(
                    "reserved-pickup", {"commit": "reserved-pickup"}, INVARIANTS, "holds",
                    "the pick-up checks that the reservation it gives up still exists",
                ),
            ),
            bounds=ExploreBounds(symmetry=True),
            fast=ExploreBounds(max_states=3000, symmetry=True),
        ),
        Scenario(
            name="reserved-starvation",
            story="async multi-node placement: a reservation is refused at every commit on the node with room and starves",
            source="seed 003; YARN-8127, YARN-10259, YARN-10293",
            build=reserved_starvation_world,
            variants=(
                ScenarioVariant(
                    "yarn-8127", {"commit": "yarn-8127"}, "reservation-progress", "violated",
                    "the reservation is proposed on the other node after a re-sort and the YARN-8127 check refuses it for ever",
                ),
                ScenarioVariant(
                    "reserved-pickup", {"commit": "reserved-pickup"}, "reservation-progress", "violated",
                    "the reserved node sorts first (least allocated) and Hadoop 3.2 re-reserves there, never trying the node with room",
                ),
                ScenarioVariant(
                    "reserved-pickup-one-container", {"commit": "reserved-pickup", "max_containers": 2},
                    "reservation-progress", "holds",
                    "with one worker container the node with room sorts first after the re-sort and picks the reservation up",
                ),
                ScenarioVariant(
                    "yarn-8127+yarn-9432", {"commit": "yarn-8127", "reserve": "yarn-9432"},
                    "reservation-progress", "violated",
                    "Hadoop 3.3.0: the same starvation; YARN-9432 only serves reservations alone on a full partition, and this one is not full",
                ),
                ScenarioVariant(
                    "yarn-8127+yarn-10259", {"commit": "yarn-8127", "reserve": "yarn-10259"},
                    "reservation-progress", "holds",
                    "Hadoop 3.3.1-3.3.6: every candidate is tried before reserving, n1 takes the container, and no reservation is ever made",
                ),
                ScenarioVariant(
                    "yarn-8127+yarn-10259+yarn-10293", {"commit": "yarn-8127", "reserve": "yarn-10293"},
                    "reservation-progress", "holds",
                    "Hadoop 3.4.x: as 3.3.1-3.3.6 (YARN-10293 serves reservations first, and there are none)",
                ),
                ScenarioVariant(
                    "reserved-pickup+yarn-10259+yarn-10293", {"commit": "reserved-pickup", "reserve": "yarn-10293"},
                    "reservation-progress", "holds",
                    "as on Hadoop 3.4.x: the pick-up is then never needed",
                ),
            ),
            bounds=ExploreBounds(),
            fast=ExploreBounds(max_depth=14),
        ),
        Scenario(
            name="no-leak",
            story="submits, asks, completions, node loss, preemption and async commits: every invariant holds",
            source="DESIGN (safety catalogue); seeds 000, 002, 003",
            build=no_leak_world,
            variants=(
                ScenarioVariant(
                    "yarn-8127", {"commit": "yarn-8127"}, INVARIANTS, "holds",
                    "resources return on completion, release, kill, node loss and finish; commits re-check the state",
                ),
                ScenarioVariant(
                    "reserved-pickup", {"commit": "reserved-pickup"}, INVARIANTS, "holds",
                    "the pick-up commit keeps the same accounting",
                ),
            ),
            bounds=ExploreBounds(max_depth=12, symmetry=True),
            fast=ExploreBounds(max_depth=10, symmetry=True),
        ),
        Scenario(
            name="big-container-livelock",
            story="preemption frees pieces smaller than the borrower's container; without blocked headroom the lender takes them back, round after round",
            source="seed 002; YARN-4390",
            build=big_container_world,
            variants=(
                ScenarioVariant(
                    "default", {"reserved_selector": False}, "guarantee-progress", "violated",
                    "B's blocked headroom keeps the freed space from the lender; B reserves on a node with 1 GB free, and with the "
                    "reservation both queues sit at their guarantees, so nothing more is preempted",
                ),
                ScenarioVariant(
                    "reserved-selector", {"reserved_selector": True}, "guarantee-progress", "violated",
                    "B gets its reservation, but the lender is then at its guarantee, so the selector may not free the reserved node: "
                    "two 1 GB holes for ever",
                ),
                ScenarioVariant(
                    "pre-4280", {"reserved_selector": False, "commit": "pre-8127", "headroom": "pre-4280"}, "guarantee-progress", "violated",
                    "without blocked headroom (the 2.7.x scheduler) each round kills the lender's newest container and the lender takes "
                    "the freed 1 GB back at the next heartbeat, for ever",
                ),
                ScenarioVariant(
                    "node-cost", {"node_cost": True}, "guarantee-progress", "violated",
                    "seed 002's remedy frees 2 GB on one node, but the borrower reserves on its AM's node, where 2 GB never fit, and is then satisfied",
                ),
                ScenarioVariant(
                    "lazy", {"lazy": True}, "guarantee-progress", "violated",
                    "lazy preemption: the borrower's AM kills a killable container after the same wait; its 2 GB container finds 1 GB "
                    "killable on each of two nodes, and its reservation is refused at commit (root still counts them as used)",
                ),
            ),
            bounds=ExploreBounds(),
            fast=ExploreBounds(),
            setup=BIG_CONTAINER_SETUP,
            quiet=LENDER_QUIET,
        ),
        Scenario(
            name="big-container-reserved",
            story="a round frees the big container in total but spread over nodes; the borrower reserves on one and waits there",
            source="seed 002; YARN-4390",
            build=big_container_reserved_world,
            variants=(
                ScenarioVariant(
                    "default", {"reserved_selector": False}, "guarantee-progress", "violated",
                    "the reservation counts in the borrower's use, so the FIFO selector sees it satisfied and preempts nothing more",
                ),
                ScenarioVariant(
                    "reserved-selector", {"reserved_selector": True}, "guarantee-progress", "holds",
                    "the selector preempts the lender's container on the reserved node and the reservation is allocated there",
                ),
                ScenarioVariant(
                    "node-cost", {"node_cost": True}, "guarantee-progress", "holds",
                    "seed 002's remedy frees the cheapest node for the big container, and blocked headroom keeps the lender off the freed space until the kill",
                ),
                ScenarioVariant(
                    "node-cost+pre-4280", {"node_cost": True, "headroom": "pre-4280"}, "guarantee-progress", "violated",
                    "without blocked headroom the lender takes the freed node's free gigabyte at its heartbeat before the kill, for ever",
                ),
                ScenarioVariant(
                    "lazy", {"lazy": True}, "guarantee-progress", "violated",
                    "lazy preemption leaves the two freed gigabytes running as killable on two nodes; the reservation is refused at "
                    "commit (root still counts them as used) and the policy counts them as already given up",
                ),
                ScenarioVariant(
                    "lazy+reserved-selector", {"lazy": True, "reserved_selector": True}, "guarantee-progress", "violated",
                    "the selector needs a reservation, and with the killable containers still counted as used the full cluster refuses it at commit",
                ),
                ScenarioVariant(
                    "lazy+node-cost", {"lazy": True, "node_cost": True}, "guarantee-progress", "violated",
                    "the borrower's AM kills one killable container; the one left and the next round's end up on two nodes, 1 GB each, for ever",
                ),
            ),
            bounds=ExploreBounds(),
            fast=ExploreBounds(max_depth=FAST_RESERVED_DEPTH),
            setup=BIG_CONTAINER_RESERVED_SETUP,
            quiet=LENDER_QUIET,
        ),
    )


#: Every scenario by name, in catalogue order.
SCENARIOS: Mapping[str, Scenario] = {s.name: s for s in _scenarios()}


def find_scenario(name: str, source: str = "<scenarios>", place: str = "scenario") -> Scenario:
    """The scenario called ``name``; an :class:`InputError` naming ``source``, ``place`` and the
    known scenarios otherwise."""
    found = SCENARIOS.get(name)
    if found is None:
        raise InputError(source, place, f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    return found


def model_for_title(title: str, source: str = "<trace>", place: str = "parameters.world") -> SchedulerModel:
    """The model of a scenario variant from its title (``scenario/variant``, as a model built
    by :meth:`Scenario.model` writes into its parameters); an :class:`InputError` for a title
    naming no scenario variant."""
    name, separator, variant = title.partition(TITLE_SEPARATOR)
    if not separator:
        raise InputError(source, place, f"expected 'scenario{TITLE_SEPARATOR}variant', got {title!r}")
    scenario = find_scenario(name, source, place)
    return scenario.model(scenario.variant(variant, source, place))


def scenario_model(*, world: str, variant: str = "", **parameters: Any) -> SchedulerModel:
    """The model a scenario trace names, for :func:`yarnspec.checks.explore.emit_test`
    (``yarnspec.spec.scenarios:scenario_model``): built from ``world`` (the title); the
    ``variant`` and the other parameters are left for the replay to compare."""
    return model_for_title(world)


def scenario_names() -> Sequence[str]:
    """The scenario names in catalogue order."""
    return list(SCENARIOS)
