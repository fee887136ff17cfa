"""The seed stories as short fixed traces.

Seed 003 (asynchronous scheduling, multi-node placement, resource-usage sorting): app1's AM
lands on the small node n0 (4 GB), its 4 GB request does not fit there and is reserved on n0
(first in the sorted order); after a re-sort the large node n1 (8 GB, empty) comes first and
the reservation is proposed on n1. Under ``yarn-8127`` that proposal is rejected at every
commit while n1 has room; under ``reserved-pickup`` the same trace allocates the container on
n1 and releases the reservation; under YARN-10259 the request is never reserved, as n1 is
tried before reserving.

YARN-8127's race (``pre-8127``): two scheduler threads both propose the allocation from one
reservation; both commits succeed, the node and the app are charged twice for one container,
and the resource never returns: conservation breaks. ``yarn-8127`` rejects the second commit.
"""

from __future__ import annotations

from tests.scheduler.helpers import gb, play
from yarnspec.impl.scheduler.state import ContainerState
from yarnspec.spec.scheduler.invariants import (
    SchedulerStep,
    check_state,
    cluster_conservation,
    node_used_is_sum_of_containers,
)
from yarnspec.spec.worlds.world_builders import async_double_commit_world, reserved_starvation_world

SEED003_PREFIX = [
    "submit(app1)",
    "propose(partition '')",
    "commit(allocate app1/r0 on n0)",
    "launch(c0)",
    "ask(app1, r1)",
    "propose(partition '')",
    "commit(reserve app1/r1 on n0)",
    "tick",
    "resort",
]
PROPOSE_ON_N1 = ["propose(partition '')", "commit(allocate app1/r1 on n1 from c1)"]


def test_yarn_8127_rejects_the_reserved_container_on_another_node_for_ever() -> None:
    world = reserved_starvation_world("yarn-8127")
    state, _ = play(world, SEED003_PREFIX)
    assert state.nodes[1].free == gb(8, 8)  # n1 has room for the 4 GB container all along
    notes = []
    for _ in range(3):
        state, steps = play(world, PROPOSE_ON_N1, state)
        notes.append(steps[1])
    assert all(note.startswith("rejected allocate from reservation") and "YARN-8127" in note for note in notes)
    reserved = state.container(1)
    assert reserved is not None and reserved.state == ContainerState.RESERVED and reserved.node == 0
    assert state.apps[0] is not None and state.apps[0].asks[1] == 1


def test_reserved_pickup_allocates_the_same_trace_on_the_other_node() -> None:
    world = reserved_starvation_world("reserved-pickup")
    state, notes = play(world, SEED003_PREFIX + PROPOSE_ON_N1)
    assert notes[-1] == "committed allocate from reservation"
    container = state.container(1)
    assert container is not None and container.state == ContainerState.ALLOCATED and container.node == 1
    assert state.nodes[0].reserved == -1 and state.nodes[1].used == gb(4)
    app = state.apps[0]
    assert app is not None and app.asks[1] == 0 and app.reserved[0] == gb(0, 0)
    assert state.queues[0].used[0] == gb(5, 2) and state.queues[0].reserved[0] == gb(0, 0)


def test_before_the_resort_the_reservation_is_retried_on_its_own_node() -> None:
    world = reserved_starvation_world("yarn-8127")
    state, notes = play(
        world, SEED003_PREFIX[:-2] + ["propose(partition '')", "commit(rereserve app1/r1 on n0 from c1)"]
    )
    assert notes[-1] == "committed rereserve"
    app = state.apps[0]
    assert app is not None and app.rereservations[1] == 1


def test_yarn_10259_tries_every_candidate_before_reserving() -> None:
    world = reserved_starvation_world("yarn-8127", "yarn-10259")
    state, notes = play(world, SEED003_PREFIX[:6] + ["commit(allocate app1/r1 on n1)"])
    assert notes[-1] == "committed allocate"
    assert all(c.state != ContainerState.RESERVED for c in state.containers)


DUPLICATE = [
    "submit(app1)",
    "propose(n0)",
    "commit(allocate app1/r0 on n0)",
    "launch(c0)",
    "ask(app1, r1)",
    "ask(app1, r1)",
    "ask(app1, r1)",
    "ask(app1, r1)",
    "propose(n0)",
    "commit(allocate app1/r1 on n0)",
    "propose(n0)",
    "commit(allocate app1/r1 on n0)",
    "propose(n0)",
    "commit(reserve app1/r1 on n0)",
    "launch(c1)",
    "launch(c2)",
    "complete(c1)",
    "complete(c2)",
    "propose(n0)",
    "propose(n0)",
    "commit(allocate app1/r1 on n0 from c3)",
]


def test_pre_8127_duplicate_commit_breaks_conservation_and_leaks() -> None:
    world = async_double_commit_world("pre-8127")
    state, _ = play(world, DUPLICATE)
    assert len(state.proposals) == 1  # the second thread's proposal, now stale
    state, notes = play(world, ["commit(allocate app1/r1 on n0 from c3)"], state, check=False)
    assert notes == ["committed allocate from reservation"]
    assert node_used_is_sum_of_containers(SchedulerStep(world, state)) is not None
    assert cluster_conservation(SchedulerStep(world, state)) is not None
    # The container ends once; the second charge never returns.
    state, _ = play(world, ["launch(c3)", "complete(c3)"], state, check=False)
    assert state.nodes[0].used == gb(5, 2)  # only the 1 GB AM runs there
    message = cluster_conservation(SchedulerStep(world, state))
    # 12 + 2 GB of nodes: 9 GB free (4 GB lost) plus the 1 GB the queues count.
    assert message is not None and "free <9216, 12> + used by queues <1024, 1>" in message


def test_yarn_8127_rejects_the_duplicate_commit() -> None:
    world = async_double_commit_world("yarn-8127")
    state, notes = play(world, DUPLICATE + ["commit(allocate app1/r1 on n0 from c3)", "launch(c3)", "complete(c3)"])
    assert notes[-3].startswith("rejected allocate from reservation") and "YARN-8127" in notes[-3]
    assert check_state(world, state) == []
    assert state.nodes[0].used == gb(1)
