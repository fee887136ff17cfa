"""Heartbeat allocation: queue and application order, reservations and seed 002's rule,
continue-looking, partition exclusivity and locality, node sorting policies."""

from __future__ import annotations

from collections.abc import Mapping

from tests.scheduler.helpers import gb, make_world, play
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler import environment_effects as env
from yarnspec.impl.scheduler.actions import start
from yarnspec.impl.scheduler.allocation.allocate import heartbeat_proposal, should_allocate_or_reserve
from yarnspec.impl.scheduler.allocation.queue_order import compare_utilization, ordered_apps, ordered_children
from yarnspec.impl.scheduler.async_scheduling.node_sorting import resource_usage, sorted_nodes, usage_ratio
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, PartitionSpec, RequestSpec
from yarnspec.impl.scheduler.state import ContainerState, ProposalKind, SchedulerState
from yarnspec.impl.scheduler.world import World

TWO = {"root.queues": "a,b", "root.a.capacity": "50", "root.b.capacity": "50"}


def holding(world: World, memory: Mapping[int, int], asking: Mapping[int, int] = {}, node: int = 0) -> SchedulerState:
    """Apps submitted, holding ``memory[app]`` 1 GB containers on ``node`` (the first is the
    AM, running), and asking for ``asking[app]`` more containers of their first request."""
    state = start(world)
    for app in sorted(set(memory) | set(asking)):
        state = env.submit(world, state, app)
    edit = Edit(world, state)
    for app, count in memory.items():
        for i in range(count):
            if i:
                edit.change_asks(app, 1, 1)
            cid = edit.new_container_id()
            edit.allocate(app, 0 if i == 0 else 1, node, cid)
            edit.containers[cid] = edit.containers[cid]._replace(state=ContainerState.RUNNING)
    for app, count in asking.items():
        edit.change_asks(app, 1, count)
    return edit.freeze()


def ones(
    queues: Mapping[str, str], *apps: tuple[str, str, int], nodes: tuple[NodeSpec, ...] = (NodeSpec("n0", gb(8, 8)),)
) -> World:
    """A world whose apps (name, queue, app priority) have a 1 GB AM and 1 GB requests."""
    specs = [
        AppSpec(name, queue, gb(1), (RequestSpec(1, gb(1)),), user=name, priority=priority)
        for name, queue, priority in apps
    ]
    limits = {
        f"root.{q}.{k}": v
        for q in "ab"
        for k, v in (("user-limit-factor", "4"), ("maximum-am-resource-percent", "1.0"))
    }
    return make_world({**queues, **limits}, list(nodes), specs)


def chosen_app(world: World, state: SchedulerState, node: int = 0) -> str:
    proposal = heartbeat_proposal(world, state, node)
    assert proposal is not None
    return world.apps[proposal.app].name


# -- ordering -------------------------------------------------------------------------------


def test_the_less_utilized_queue_is_offered_the_node_first() -> None:
    world = ones(TWO, ("x", "a", 0), ("y", "b", 0))
    assert chosen_app(world, holding(world, {0: 3, 1: 1}, {0: 1, 1: 1})) == "y"  # 3/4 vs 1/4 of 4 GB
    assert chosen_app(world, holding(world, {0: 1, 1: 3}, {0: 1, 1: 1})) == "x"


def test_queue_priority_counts_under_priority_utilization() -> None:
    props = {**TWO, "root.ordering-policy": "priority-utilization", "root.b.priority": "1"}
    world = ones(props, ("x", "a", 0), ("y", "b", 0))
    # Both under their guarantee: the higher priority b goes first although more used.
    assert chosen_app(world, holding(world, {0: 1, 1: 3}, {0: 1, 1: 1})) == "y"
    # b over its guarantee, a under: a goes first whatever the priorities.
    assert chosen_app(world, holding(world, {0: 1, 1: 5}, {0: 1, 1: 1})) == "x"
    assert compare_utilization(0.5, 0.2, 1, 0) < 0 and compare_utilization(1.2, 0.2, 1, 0) > 0


def test_queues_with_capacity_come_before_zero_capacity_ones() -> None:
    world = ones({"root.queues": "a,b", "root.a.capacity": "100", "root.b.capacity": "0"}, ("x", "a", 0), ("y", "b", 0))
    view = View(world, holding(world, {0: 6}, {0: 1, 1: 1}))
    assert [world.queues[q].path for q in ordered_children(view, 0, 0)] == ["root.a", "root.b"]


def test_fifo_orders_by_application_priority_then_submission() -> None:
    world = ones(
        {"root.queues": "a", "root.a.capacity": "100"}, ("first", "a", 0), ("second", "a", 1), ("third", "a", 0)
    )
    view = View(world, holding(world, {0: 1, 1: 1, 2: 1}))
    assert [world.apps[i].name for i in ordered_apps(view, 1)] == ["second", "first", "third"]


def test_fair_orders_by_usage() -> None:
    props = {"root.queues": "a", "root.a.capacity": "100", "root.a.ordering-policy": "fair"}
    world = ones(props, ("first", "a", 0), ("second", "a", 0))
    view = View(world, holding(world, {0: 3, 1: 1}))
    assert [world.apps[i].name for i in ordered_apps(view, 1)] == ["second", "first"]


def test_node_sorting_policies() -> None:
    assert resource_usage(gb(8, 8), gb(2, 1)) < resource_usage(gb(4, 4), gb(3, 1))
    # usage-ratio: 2 of 8 GB (25%) before 2 of 4 GB (50%), the largest of memory and vcores.
    assert usage_ratio(gb(8, 8), gb(2, 1)) < usage_ratio(gb(4, 4), gb(2, 1))
    assert usage_ratio(gb(8, 2), gb(1, 2)) > usage_ratio(gb(4, 4), gb(2, 1))
    props = {**TWO, "yarn.scheduler.capacity.multi-node-placement-enabled": "true"}
    nodes = (NodeSpec("n0", gb(4, 4)), NodeSpec("n1", gb(8, 8)), NodeSpec("n2", gb(8, 8)))
    world = make_world(props, list(nodes), [AppSpec("x", "a", gb(2), ())])
    state = env.submit(world, start(world), 0)
    assert sorted_nodes(world, state, 0) == (0, 1, 2)  # all empty: by name
    edit = Edit(world, state)
    edit.allocate(0, 0, 0, edit.new_container_id())
    assert sorted_nodes(world, edit.freeze(), 0) == (1, 2, 0)


# -- reservations ---------------------------------------------------------------------------


def big_world(
    continue_looking: bool = True, nodes: tuple[NodeSpec, ...] = (NodeSpec("n0", gb(4, 4)), NodeSpec("n1", gb(8, 8)))
) -> World:
    props = {"root.queues": "a", "root.a.capacity": "100"}
    if not continue_looking:
        props["yarn.scheduler.capacity.reservations-continue-look-all-nodes"] = "false"
    return make_world(
        props,
        list(nodes),
        [AppSpec("app", "a", gb(1), (RequestSpec(1, gb(4)),)), AppSpec("small", "a", gb(1), (RequestSpec(1, gb(1)),))],
    )


START = ["submit(app)", "heartbeat(n0)", "launch(c0)", "ask(app, r1)"]


def test_a_request_that_does_not_fit_is_reserved_and_the_node_then_serves_only_it() -> None:
    world = big_world()
    state, notes = play(world, START + ["heartbeat(n0)"])
    assert notes[-1] == "committed reserve"
    assert state.nodes[0].reserved == 1 and state.queues[1].used[0] == gb(5, 2)  # reservations count as used
    # Another application's 1 GB AM fits on n0, but a reserved node serves its reservation only.
    state, notes = play(world, ["submit(small)", "heartbeat(n0)"], state)
    proposal = heartbeat_proposal(world, state, 0)
    assert notes[-1] == "committed rereserve" and proposal is not None and proposal.from_reserved == 1
    app = state.apps[0]
    assert app is not None and app.rereservations[1] == 1
    small = state.apps[1]
    assert small is not None and small.am_container == -1


def test_a_node_too_small_for_the_request_is_never_reserved() -> None:
    world = big_world(nodes=(NodeSpec("n0", gb(3, 4)), NodeSpec("n1", gb(8, 8))))
    state, _ = play(world, START)
    assert heartbeat_proposal(world, state, 0) is None
    state, notes = play(world, ["heartbeat(n1)"], state)
    assert notes == ["committed allocate"]


def test_withdrawing_the_request_unreserves() -> None:
    world = big_world()
    state, notes = play(world, START + ["heartbeat(n0)", "cancel(app, r1)", "heartbeat(n0)"])
    assert notes[-1] == "committed unreserve"
    assert state.nodes[0].reserved == -1 and state.queues[1].reserved[0] == gb(0, 0)
    app = state.apps[0]
    assert app is not None and app.rereservations == (0, 0)


def test_continue_looking_trades_the_reservation_for_an_allocation_elsewhere() -> None:
    world = big_world()
    state, notes = play(world, START + ["heartbeat(n0)", "heartbeat(n1)"])
    # One container outstanding, one reserved: seed 002's rule says no new one, so n1 allocates
    # it in exchange for the reservation on n0.
    assert notes[-1] == "committed allocate"
    assert state.nodes[0].reserved == -1 and [c.node for c in state.containers] == [0, 1]
    assert state.queues[1].used[0] == gb(5, 2) and state.queues[1].reserved[0] == gb(0, 0)


def test_without_continue_looking_the_reservation_stays_pinned() -> None:
    world = big_world(continue_looking=False)
    state, _ = play(world, START + ["heartbeat(n0)"])
    assert heartbeat_proposal(world, state, 1) is None  # the rule: 0 + 1 - 1 = 0, not > 0


def test_seed_002_starvation_rule() -> None:
    world = big_world(continue_looking=False)
    state, _ = play(world, START + ["heartbeat(n0)"])
    view = View(world, state)
    assert not should_allocate_or_reserve(view, 0, 1)  # q = 1, r = 1, no re-reservations
    # nodeFactor = 4 GB / 8 GB = 0.5 < minimum factor (8 - 1) / 8: starvation = (int)(rr x 0.5).
    app = state.apps[0]
    assert app is not None
    for rereservations, expected in ((1, False), (2, True), (5, True)):
        starved = state._replace(apps=(app._replace(rereservations=(0, rereservations)),) + state.apps[1:])
        assert should_allocate_or_reserve(View(world, starved), 0, 1) is expected
    asking_more = play(world, ["ask(app, r1)"], state)[0]
    assert should_allocate_or_reserve(View(world, asking_more), 0, 1)  # q = 2, r = 1


def test_allocation_from_the_reservation_once_it_fits() -> None:
    world = big_world(nodes=(NodeSpec("n0", gb(4, 4)), NodeSpec("n1", gb(8, 8))))
    steps = [
        "submit(small)",
        "heartbeat(n0)",
        "launch(c0)",
        "ask(small, r1)",
        "heartbeat(n0)",
        "ask(small, r1)",
        "heartbeat(n0)",
    ]
    steps += ["submit(app)", "heartbeat(n1)", "launch(c3)", "ask(app, r1)", "heartbeat(n0)"]
    state, notes = play(world, steps)
    assert notes[-1] == "committed reserve" and state.nodes[0].reserved == 4  # n0: 3 GB used, 1 GB free
    state, notes = play(world, ["finish-app(small)", "heartbeat(n0)"], state)
    assert notes[-1] == "committed allocate from reservation"
    container = state.container(4)
    assert container is not None and container.state == ContainerState.ALLOCATED and container.node == 0
    assert state.nodes[0].reserved == -1 and state.queues[1].used[0] == gb(5, 2)


# -- partitions and locality ----------------------------------------------------------------

LABELLED = {
    "root.queues": "a,b",
    "root.a.capacity": "50",
    "root.b.capacity": "50",
    "root.a.user-limit-factor": "4",
    "root.accessible-node-labels.x.capacity": "100",
    "root.a.accessible-node-labels": "x",
    "root.a.accessible-node-labels.x.capacity": "100",
    "yarn.node-labels.enabled": "true",
}


def labelled_world(exclusive: bool) -> World:
    return make_world(
        LABELLED,
        [NodeSpec("n0", gb(2, 2)), NodeSpec("x0", gb(8, 8), partition="x")],
        [AppSpec("app", "a", gb(1), (RequestSpec(1, gb(2)), RequestSpec(2, gb(1), label="x")))],
        partitions=(PartitionSpec(""), PartitionSpec("x", exclusive)),
    )


def test_an_exclusive_partition_serves_only_requests_for_it() -> None:
    world = labelled_world(exclusive=True)
    state, _ = play(world, ["submit(app)"])
    assert heartbeat_proposal(world, state, 1) is None  # the AM asks for the default partition
    state, _ = play(world, ["heartbeat(n0)", "launch(c0)", "ask(app, r1)"], state)
    assert heartbeat_proposal(world, state, 1) is None
    state, notes = play(world, ["ask(app, r2)", "heartbeat(x0)"], state)
    container = state.containers[-1]
    assert notes[-1] == "committed allocate" and container.node == 1 and container.request == 2
    assert state.queues[1].used[1] == gb(1)


def test_an_idle_non_exclusive_partition_lends_to_unlabelled_requests_but_not_to_an_am() -> None:
    world = labelled_world(exclusive=False)
    state, _ = play(world, ["submit(app)"])
    assert heartbeat_proposal(world, state, 1) is None  # never an AM
    state, notes = play(world, ["heartbeat(n0)", "launch(c0)", "ask(app, r1)", "heartbeat(x0)"], state)
    proposal_container = state.containers[-1]
    assert notes[-1] == "committed allocate" and proposal_container.node == 1 and proposal_container.request == 1
    # Charged to the partition of the node, where the queue has no guarantee of its own.
    assert state.queues[1].used == (gb(1), gb(2))


def test_strict_locality_places_only_on_the_named_node() -> None:
    nodes = [
        NodeSpec("n0", gb(4, 4), rack="/r1"),
        NodeSpec("n1", gb(4, 4), rack="/r1"),
        NodeSpec("n2", gb(4, 4), rack="/r2"),
    ]
    requests = (RequestSpec(1, gb(1), locality="n1", relax=False), RequestSpec(2, gb(1), locality="/r2", relax=True))
    world = make_world({"root.queues": "a", "root.a.capacity": "100"}, nodes, [AppSpec("app", "a", gb(1), requests)])
    state, _ = play(world, ["submit(app)", "heartbeat(n0)", "launch(c0)", "ask(app, r1)"])
    assert heartbeat_proposal(world, state, 0) is None and heartbeat_proposal(world, state, 2) is None
    proposal = heartbeat_proposal(world, state, 1)
    assert proposal is not None and proposal.kind == ProposalKind.ALLOCATE and proposal.request == 1
    relaxed, _ = play(world, ["ask(app, r2)", "cancel(app, r1)"], state)
    proposal = heartbeat_proposal(world, relaxed, 0)
    assert proposal is not None and proposal.request == 2  # a relaxable rack request goes anywhere


def test_a_request_limited_by_the_queue_headroom_is_not_reserved() -> None:
    world = make_world(
        {
            "root.queues": "a,b",
            "root.a.capacity": "50",
            "root.b.capacity": "50",
            "root.a.maximum-capacity": "50",
            "root.a.user-limit-factor": "2",
        },
        [NodeSpec("n0", gb(4, 4)), NodeSpec("n1", gb(4, 4))],
        [AppSpec("app", "a", gb(1), (RequestSpec(1, gb(4)),))],
    )
    state, _ = play(world, ["submit(app)", "heartbeat(n0)", "launch(c0)", "ask(app, r1)"])
    # a may hold 4 GB; it holds 1: 3 GB of headroom is short of the 4 GB asked for.
    assert heartbeat_proposal(world, state, 0) is None and heartbeat_proposal(world, state, 1) is None
    assert Resource.of(0, 0) == state.queues[1].reserved[0]
