"""Multi-node reservation rules by release: Hadoop 3.2.x reserves on the first candidate that
does not fit; YARN-10259 (3.3.1 and later) reserves only on the last candidate, and only if
that one returns RESERVED itself."""

from __future__ import annotations

import pytest

from tests.scheduler.helpers import gb, make_world
from yarnspec.impl.scheduler import environment_effects as env
from yarnspec.impl.scheduler.actions import start
from yarnspec.impl.scheduler.allocation.allocate import partition_pass, propose_on_partition
from yarnspec.impl.scheduler.async_scheduling.node_sorting import resort
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, RequestSpec
from yarnspec.impl.scheduler.inputs.variants import MultiNodeReserve, variants
from yarnspec.impl.scheduler.state import ProposalKind, SchedulerState
from yarnspec.impl.scheduler.world import World

RATIO = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.ResourceUsageRatioMultiNodeLookupPolicy"


def _world(reserve: MultiNodeReserve) -> World:
    """One queue; n0 8 GB and n1 3 GB, sorted by usage ratio; app A with 1 GB containers
    (priority 1) and one 4 GB request (priority 2)."""
    props = {
        "root.queues": "a", "root.a.capacity": "100",
        "yarn.scheduler.capacity.multi-node-placement-enabled": "true",
        "yarn.scheduler.capacity.multi-node-sorting.policy": "ratio",
        "yarn.scheduler.capacity.multi-node-sorting.policy.ratio.class": RATIO,
    }  # fmt: skip
    nodes = [NodeSpec("n0", gb(8, 8)), NodeSpec("n1", gb(3, 3))]
    apps = [AppSpec("A", "a", gb(1), (RequestSpec(1, gb(1)), RequestSpec(2, gb(4))))]
    return make_world(props, nodes, apps, variants(reserve=reserve))


def _state(world: World) -> SchedulerState:
    """A holds 5 GB on n0 (ratio 0.625, 3 GB free) and 2 GB on n1 (ratio 0.67, 1 GB free) and
    asks for the 4 GB container: 4 GB free in all, so the queue's headroom covers it, but it
    fits on no node. n0 sorts first; n1, the last candidate, is smaller than the request."""
    state = env.submit(world, start(world), 0)
    edit = Edit(world, state)
    for index, node in enumerate([0, 0, 0, 0, 0, 1, 1]):
        if index:
            edit.change_asks(0, 1, 1)
        edit.allocate(0, 0 if index == 0 else 1, node, edit.new_container_id())
    edit.change_asks(0, 2, 1)
    return resort(world, edit.freeze())


def test_the_candidates_are_in_the_expected_order() -> None:
    world = _world("first-candidate")
    state = _state(world)
    assert state.node_order[0] == (0, 1)
    assert [n.free.memory for n in state.nodes] == [3 * 1024, 1024]


@pytest.mark.parametrize("reserve", ["first-candidate", "yarn-9432"])
def test_before_yarn_10259_the_first_candidate_reserves(reserve: MultiNodeReserve) -> None:
    world = _world(reserve)
    proposal = propose_on_partition(world, _state(world), 0)
    assert proposal is not None and proposal.kind == ProposalKind.RESERVE and proposal.node == 0


@pytest.mark.parametrize("reserve", ["yarn-10259", "yarn-10293"])
def test_with_yarn_10259_a_last_candidate_that_does_not_reserve_means_no_reservation(reserve: MultiNodeReserve) -> None:
    """n0 would reserve but is not the last candidate; n1 is skipped (too small), so nothing is
    reserved: YARN-10259 does not fall back to n0's reservation."""
    world = _world(reserve)
    state = _state(world)
    assert propose_on_partition(world, state, 0) is None
    assert partition_pass(world, state, 0) == ()


def test_with_yarn_10293_a_pass_serves_each_reservation_on_its_node_first() -> None:
    """With a reservation on n0 (made under 3.2's rule, then read under 3.4's), a 3.4 pass
    proposes n0's re-reservation first, from the reservation, before its new allocations."""
    reserving = _world("first-candidate")
    state = _state(reserving)
    reserve = propose_on_partition(reserving, state, 0)
    assert reserve is not None
    edit = Edit(reserving, state)
    cid = edit.reserve(reserve.app, reserve.request, reserve.node)
    world = _world("yarn-10293")
    made = partition_pass(world, edit.freeze(), 0)
    assert made and made[0].kind == ProposalKind.RERESERVE and made[0].node == 0 and made[0].from_reserved == cid
