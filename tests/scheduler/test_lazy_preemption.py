"""Lazy preemption in the scheduler model (``lazy-preemption-enabled``): the monitor makes a
container killable instead of killing it, killable resource counts as headroom, an allocation
for a leaf under its guarantee kills killable containers on its node to make room, the commit
re-checks them, and a parent above its maximum kills its killable containers.

Expected figures are worked out by hand from the world in each test's docstring, never read
from the implementation."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.config.keys import LAZY_PREEMPTION_ENABLED
from yarnspec.impl.config.keys import MONITOR_ENABLE as MONITOR
from yarnspec.impl.config.keys import PREEMPTION_PREFIX as PREEMPTION
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import enabled, label, start, step
from yarnspec.impl.scheduler.allocation.allocate import heartbeat_proposal
from yarnspec.impl.scheduler.allocation.limits import can_assign_to_queue, child_limits, root_limits
from yarnspec.impl.scheduler.allocation.scheduling_mode import RESPECT
from yarnspec.impl.scheduler.async_scheduling.try_commit import accept
from yarnspec.impl.scheduler.bookkeeping.canonical import Symmetry, canonical_form
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, RequestSpec
from yarnspec.impl.scheduler.state import ContainerState, ProposalKind, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler.invariants import check_state
from yarnspec.spec.worlds.catalogue import SCENARIOS

from .helpers import gb, make_world, play

BIG_CONTAINER_SETUP = SCENARIOS["big-container-livelock"].setup


def big_container_world(lazy: bool = False) -> World:
    """The big-container-livelock world, with lazy preemption or without (its shipped variants)."""
    scenario = SCENARIOS["big-container-livelock"]
    return scenario.world(scenario.variant("lazy" if lazy else "default"))


#: From seed 002's set-up (app_A fills three 2 GB nodes, c4 is its newest container, on n2):
#: a round marks c4, a second after it the round sends ``MARK_CONTAINER_FOR_KILLABLE``.
MARK_THEN_KILLABLE = ["monitor", "tick", "monitor"]


def _after(world: World, labels: list[str]) -> SchedulerState:
    state, _ = play(world, list(BIG_CONTAINER_SETUP) + labels)
    return state


def test_a_configuration_with_lazy_preemption_builds_a_world() -> None:
    world = big_container_world(lazy=True)
    assert world.settings.preemption is not None
    assert world.settings.preemption.lazy_preemption_enabled


def test_the_killable_event_keeps_the_container_running_under_lazy_preemption() -> None:
    lazy = _after(big_container_world(lazy=True), MARK_THEN_KILLABLE)
    c4 = lazy.container(4)
    assert c4 is not None and c4.state == ContainerState.RUNNING
    assert lazy.killable == (4,)
    assert lazy.marks == ()  # the policy forgets a container once it sent the event
    eager = _after(big_container_world(), MARK_THEN_KILLABLE)
    assert eager.container(4) is None and eager.killable == ()


def test_killable_resource_is_headroom_for_a_parent_not_for_a_leaf() -> None:
    """Root: limit 6 GB, used 6 GB, c4 (1 GB) killable: headroom 1 GB and root may assign.
    Leaf B (used 0): limit = root's 6 - 6 + killable 1 + B's 0 = 1 GB. Leaf A (used 6 GB, the
    killable container is its own): A's used is not reduced, so A may not assign."""
    world = big_container_world(lazy=True)
    state = _after(world, MARK_THEN_KILLABLE)
    view = View(world, state)
    allowed, root = can_assign_to_queue(view, 0, 0, root_limits(view, 0, RESPECT), Resource.of(0, 0), RESPECT)
    assert allowed
    assert root.headroom.memory == 1024  # the default calculator reads memory only
    a, b = world.queue_index("root.A"), world.queue_index("root.B")
    assert child_limits(view, 0, b, root, 0).limit.memory == 1024
    limits_a = child_limits(view, 0, a, root, 0)
    assert limits_a.limit.memory == 6 * 1024
    assert not can_assign_to_queue(view, a, 0, limits_a, Resource.of(0, 0), RESPECT)[0]


def test_the_borrower_takes_the_killable_room_and_the_commit_kills_it() -> None:
    """B (under its 3 GB guarantee) asks for its 1 GB AM: no node has free room, n2 has c4
    killable, so n2's heartbeat allocates the AM there, killing c4; n0 and n1 give nothing."""
    world = big_container_world(lazy=True)
    state = _after(world, MARK_THEN_KILLABLE)
    assert heartbeat_proposal(world, state, 0) is None
    assert heartbeat_proposal(world, state, 1) is None
    proposal = heartbeat_proposal(world, state, 2)
    assert proposal is not None and proposal.kind == ProposalKind.ALLOCATE and proposal.kill == (4,)
    after, _ = play(world, ["heartbeat(n2)"], state)
    assert after.container(4) is None and after.killable == ()
    assert after.nodes[2].used == gb(2, 2) and after.nodes[2].free == Resource.of(0, 0)
    assert after.queues[world.queue_index("root.A")].used[0] == gb(5, 5)
    assert after.queues[world.queue_index("root.B")].used[0] == gb(1, 1)


def test_without_lazy_preemption_the_freed_room_is_free() -> None:
    world = big_container_world()
    state = _after(world, MARK_THEN_KILLABLE)
    proposal = heartbeat_proposal(world, state, 2)
    assert proposal is not None and proposal.kill == ()
    assert state.nodes[2].free == gb(1)


def test_a_queue_over_its_guarantee_may_not_kill() -> None:
    """A (6 GB used, 3 GB guaranteed) asks for one more 1 GB container: it is over its
    guarantee, so c4's room is not for it (and B has no demand yet without its submission)."""
    world = big_container_world(lazy=True)
    setup = [s for s in BIG_CONTAINER_SETUP if s != "submit(app_B)"]
    state, _ = play(world, setup + ["ask(app_A, r1)"])
    state = state._replace(killable=(4,))
    for node in range(3):
        proposal = heartbeat_proposal(world, state, node)
        assert proposal is None or proposal.kill == ()


def test_the_commit_refuses_when_a_container_to_kill_has_ended() -> None:
    world = big_container_world(lazy=True)
    state = _after(world, MARK_THEN_KILLABLE)
    proposal = heartbeat_proposal(world, state, 2)
    assert proposal is not None
    assert accept(world, state, proposal) is None
    gone, _ = play(world, ["complete(c4)"], state)
    assert accept(world, gone, proposal) == "a container to kill for it has ended"


def test_a_reservation_in_the_full_cluster_is_refused_at_commit() -> None:
    """The lazy lasso's state: B's AM on n2, B asks for 2 GB, c2 (n1) and c3 (n2) killable.
    n1 offers a reservation, but root's used (6 GB, killable included) plus 2 GB exceeds its
    6 GB maximum (``AbstractCSQueue.accept``)."""
    world = big_container_world(lazy=True)
    state = _after(world, MARK_THEN_KILLABLE + ["heartbeat(n2)", "launch(c5)", "ask(app_B, r1)"])
    state = state._replace(killable=(2, 3))
    proposal = heartbeat_proposal(world, state, 1)
    assert proposal is not None and proposal.kind == ProposalKind.RESERVE
    reason = accept(world, state, proposal)
    assert reason is not None and reason.startswith("queue root would exceed its maximum")


def test_killable_containers_leave_the_list_when_they_end() -> None:
    world = big_container_world(lazy=True)
    state = _after(world, MARK_THEN_KILLABLE + ["complete(c4)"])
    assert state.killable == ()


def test_states_differing_only_in_killable_are_not_merged() -> None:
    """Regression: the canonical form must see the killable list (else the explorer merges a
    state whose room is killable with one where it is not)."""
    world = big_container_world(lazy=True)
    state = _after(world, MARK_THEN_KILLABLE)
    symmetry = Symmetry.of(world)
    assert canonical_form(symmetry, state) != canonical_form(symmetry, state._replace(killable=()))


def _same_leaf_world() -> World:
    """Queues a (80%) and b (20%); n0 4 GB, n1 1 GB. In a: ``low`` (AM + 1 GB) and ``high``
    (priority 5, AM, asks 1 GB); in b: ``other`` (AM on n0, 1 GB on n1). Intra-queue preemption
    marks low's container for high (priority first), the FIFO selector b's container on n1."""
    one = gb(1)
    props = {
        "root.queues": "a,b",
        "root.a.capacity": "80",
        "root.b.capacity": "20",
        "root.a.user-limit-factor": "2",
        "root.b.user-limit-factor": "4",
        "root.a.maximum-am-resource-percent": "1.0",
        "root.b.maximum-am-resource-percent": "1.0",
        MONITOR: "true",
        PREEMPTION + "monitoring_interval": "1000",
        PREEMPTION + "max_wait_before_kill": "1000",
        PREEMPTION + "total_preemption_per_round": "1.0",
        PREEMPTION + "intra-queue-preemption.enabled": "true",
        PREEMPTION + "intra-queue-preemption.max-allowable-limit": "1.0",
        PREEMPTION + "intra-queue-preemption.minimum-threshold": "0",
        PREEMPTION + "intra-queue-preemption.preemption-order-policy": "priority_first",
        LAZY_PREEMPTION_ENABLED: "true",
    }
    nodes = [NodeSpec("n0", gb(4, 4)), NodeSpec("n1", gb(1))]
    apps = [
        AppSpec("low", "a", one, (RequestSpec(1, one),), user="u", priority=0),
        AppSpec("high", "a", one, (RequestSpec(1, one),), user="u", priority=5),
        AppSpec("other", "b", one, (RequestSpec(1, one),), user="v"),
    ]
    bounds = Bounds(max_clock_ms=3000, tick_ms=1000, max_proposals=1, max_ask=1, max_containers=8, node_churn=False)
    return make_world(props, nodes, apps, bounds=bounds)


SAME_LEAF_SETUP = [
    "submit(low)", "heartbeat(n0)", "launch(c0)", "ask(low, r1)", "heartbeat(n0)", "launch(c1)",
    "submit(other)", "heartbeat(n0)", "launch(c2)", "ask(other, r1)", "heartbeat(n1)", "launch(c3)",
    "submit(high)", "heartbeat(n0)", "launch(c4)", "ask(high, r1)",
    "monitor", "tick", "monitor",
]  # fmt: skip


def test_a_killable_container_of_the_allocating_leaf_is_counted_but_not_killed() -> None:
    """Hadoop 3.x as written: ``RegularContainerAllocator`` takes any killable container of the
    node, ``FiCaSchedulerApp.accept`` counts its room, but ``LeafQueue.internalReleaseContainer``
    kills only containers of other queues. With intra-queue preemption the killable container
    (low's c1) is high's own leaf's: n0 (4 GB, full) gets high's container while c1 runs on.
    While the cluster is full root's maximum kills c1 (``killContainersToEnforceMaxQueueCapacity``);
    once b's c3 on n1 has ended it does not, and n0 holds 5 GB: the invariants catch it."""
    world = _same_leaf_world()
    state, _ = play(world, SAME_LEAF_SETUP)
    assert state.killable == (1, 3)
    proposal = heartbeat_proposal(world, state, 0)
    assert proposal is not None and proposal.kill == (1,)
    full, _ = play(world, ["heartbeat(n0)"], state)
    assert full.container(1) is None and full.nodes[0].used == gb(4, 4)
    freed, _ = play(world, ["complete(c3)"], state)
    over, _ = play(world, ["heartbeat(n0)"], freed, check=False)
    assert over.container(1) is not None and over.nodes[0].used == gb(5, 5)
    names = {name for name, _ in check_state(world, over)}
    assert "node-within-capacity" in names


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=30))
def test_random_walks_keep_killable_containers_live_and_the_invariants(choices: list[int]) -> None:
    """Along any walk of the lazy livelock world every killable id is a live container and
    every invariant of the catalogue holds."""
    world = big_container_world(lazy=True)
    state, _ = play(world, list(BIG_CONTAINER_SETUP))
    for choice in choices:
        actions = enabled(world, state)
        action = actions[choice % len(actions)]
        state = step(world, state, action)
        for cid in state.killable:
            container = state.container(cid)
            assert container is not None and container.live, label(world, action)
        assert check_state(world, state) == []
    assert start(world).killable == ()
