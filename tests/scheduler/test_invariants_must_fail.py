"""Every invariant of the catalogue catches the fault it guards against: no invariant is vacuous.

The base state comes from a real trace (every invariant holds there): queues root.p (60%: a
and c, 50% each) and root.b (40%); n0 (8 GB) holds app a1's AM and a 4 GB container plus a
4 GB reservation, n1 (4 GB) holds app b1's AM. Each test breaks the state the way its
invariant forbids and checks that the predicate reports it (and no other fault is needed).
"""

from __future__ import annotations

import pytest

from tests.scheduler.helpers import gb, make_world, play
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import Commit, Heartbeat, Monitor, Tick
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, RequestSpec
from yarnspec.impl.scheduler.state import NONE, AppPhase, ContainerState, Proposal, ProposalKind, SchedulerState, Usage
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler import invariants as inv

PROPS = {
    "root.queues": "p,b",
    "root.p.capacity": "60",
    "root.b.capacity": "40",
    "root.p.queues": "a,c",
    "root.p.a.capacity": "50",
    "root.p.c.capacity": "50",
    "root.p.a.user-limit-factor": "10",
    "root.b.user-limit-factor": "1",
    "root.b.maximum-capacity": "50",
    "root.p.a.maximum-am-resource-percent": "0.5",
    "root.b.maximum-am-resource-percent": "0.5",
    "yarn.resourcemanager.scheduler.monitor.enable": "true",
    "yarn.resourcemanager.monitor.capacity.preemption.max_wait_before_kill": "2000",
}
A1, B1, A2 = 0, 1, 2
N0, N1 = 0, 1


def base() -> tuple[World, SchedulerState]:
    world = make_world(
        PROPS,
        [NodeSpec("n0", gb(8, 8)), NodeSpec("n1", gb(4, 4)), NodeSpec("n2", gb(4, 4), live=False)],
        [
            AppSpec("a1", "a", gb(1), (RequestSpec(1, gb(4)),), user="u1"),
            AppSpec("b1", "b", gb(1), (RequestSpec(1, gb(2)),), user="u2"),
            AppSpec("a2", "a", gb(6), (RequestSpec(1, gb(1)),), user="u3"),
        ],
    )
    state, _ = play(
        world,
        [
            "submit(a1)",
            "heartbeat(n0)",
            "launch(c0)",
            "ask(a1, r1)",
            "ask(a1, r1)",
            "heartbeat(n0)",
            "heartbeat(n0)",
            "submit(b1)",
            "heartbeat(n1)",
        ],
    )
    return world, state


WORLD, STATE = base()
ROOT, P, A, C, B = (WORLD.queue_index(path) for path in ("root", "root.p", "root.p.a", "root.p.c", "root.b"))
ONE = gb(1)


def test_the_base_state_is_what_the_tests_assume() -> None:
    assert inv.check_state(WORLD, STATE) == []
    reserved = [c for c in STATE.containers if c.state == ContainerState.RESERVED]
    assert [(c.cid, c.node, c.resource) for c in reserved] == [(2, N0, gb(4))]
    assert STATE.nodes[N0].reserved == 2 and STATE.nodes[N0].used == gb(5, 2)
    assert [(c.cid, c.node) for c in STATE.containers if c.live] == [(0, N0), (1, N0), (3, N1)]


def _node(state: SchedulerState, index: int, **changes: object) -> SchedulerState:
    nodes = list(state.nodes)
    nodes[index] = nodes[index]._replace(**changes)  # type: ignore[arg-type]
    return state._replace(nodes=tuple(nodes))


def _usage(
    usages: tuple[Usage, ...], index: int, field: str, amount: Resource, partition: int = 0
) -> tuple[Usage, ...]:
    items = list(usages)
    vector = list(getattr(items[index], field))
    vector[partition] = vector[partition] + amount
    items[index] = items[index]._replace(**{field: tuple(vector)})
    return tuple(items)


def _app(state: SchedulerState, index: int, **changes: object) -> SchedulerState:
    apps = list(state.apps)
    current = apps[index]
    assert current is not None
    apps[index] = current._replace(**changes)  # type: ignore[arg-type]
    return state._replace(apps=tuple(apps))


def _container(s: SchedulerState, cid: int, **changes: object) -> SchedulerState:
    containers = tuple(c._replace(**changes) if c.cid == cid else c for c in s.containers)  # type: ignore[arg-type]
    return s._replace(containers=containers)


BROKEN_STATES = {
    "node-used-is-sum-of-containers": lambda s: _node(s, N0, used=s.nodes[N0].used + ONE, free=s.nodes[N0].free - ONE),
    "node-free-plus-used-is-capacity": lambda s: _node(s, N0, free=s.nodes[N0].free + ONE),
    "node-within-capacity": lambda s: _node(s, N1, used=gb(5), free=gb(-1)),
    "leaf-is-sum-of-apps": lambda s: s._replace(queues=_usage(s.queues, A, "used", ONE)),
    "parent-is-sum-of-children": lambda s: s._replace(queues=_usage(s.queues, P, "pending", ONE)),
    "user-is-sum-of-apps": lambda s: s._replace(users=_usage(s.users, 0, "reserved", ONE)),
    "am-used-is-sum-of-active-ams": lambda s: s._replace(queues=_usage(s.queues, B, "am_used", ONE)),
    "app-is-sum-of-containers": lambda s: _app(s, A1, am_container=1),
    "pending-is-sum-of-asks": lambda s: _app(s, A1, asks=(0, 2)),
    "no-negative-usage": lambda s: s._replace(queues=_usage(s.queues, C, "pending", -ONE)),
    "one-reservation-per-node": lambda s: _node(s, N0, reserved=NONE),
    "reservation-not-allocated": lambda s: _container(s, 2, state=ContainerState.ALLOCATED),
    "container-ids-unique": lambda s: s._replace(next_container=3),
    "containers-belong": lambda s: _container(s, 3, app=A2),
    "reservation-references-live-objects": lambda s: _container(s, 2, request=0),
    "cluster-conservation": lambda s: s._replace(queues=_usage(s.queues, ROOT, "used", -ONE)),
}


def test_every_state_invariant_has_a_breaking_case() -> None:
    assert set(BROKEN_STATES) == {i.name for i in inv.STATE_INVARIANTS}


@pytest.mark.parametrize("invariant", inv.STATE_INVARIANTS, ids=lambda i: i.name)
def test_state_invariant_catches_its_fault(invariant: inv.SchedulerInvariant) -> None:
    assert invariant.check(inv.SchedulerStep(WORLD, STATE)) is None
    broken = BROKEN_STATES[invariant.name](STATE)
    message = invariant.check(inv.SchedulerStep(WORLD, broken))
    assert message is not None and message.strip()


def test_duplicate_ids_and_foreign_nodes_are_caught_too() -> None:
    doubled = STATE._replace(containers=STATE.containers + (STATE.containers[-1],))
    assert inv.container_ids_unique(inv.SchedulerStep(WORLD, doubled)) == "container id 3 appears twice"
    on_dead_node = _container(STATE, 3, node=2)
    assert "not registered" in (inv.containers_belong(inv.SchedulerStep(WORLD, on_dead_node)) or "")
    negative_asks = _app(STATE, A1, asks=(0, -1))
    assert "negative outstanding" in (inv.pending_is_sum_of_asks(inv.SchedulerStep(WORLD, negative_asks)) or "")


# -- step invariants ------------------------------------------------------------------------


def _force_allocate(state: SchedulerState, app: int, request: int, node: int) -> SchedulerState:
    """An allocation that skips every check (what a broken scheduler would do)."""
    edit = Edit(WORLD, state)
    edit.allocate(app, request, node, edit.new_container_id())
    return edit.freeze()


def test_queue_maximum_catches_an_allocation_over_it() -> None:
    state, _ = play(WORLD, ["launch(c3)", "ask(b1, r1)", "heartbeat(n1)"], STATE)
    action = Heartbeat(N1)
    assert inv.allocation_within_queue_max(inv.SchedulerStep(WORLD, state, STATE, action)) is None  # a real allocation
    before, _ = play(WORLD, ["ask(b1, r1)", "ask(b1, r1)"], state)
    over = _force_allocate(_force_allocate(before, B1, 1, N1), B1, 1, N1)  # b at 7 GB > 50% of 12 GB
    message = inv.allocation_within_queue_max(inv.SchedulerStep(WORLD, over, before, action))
    assert message is not None and "root.b" in message and "over its maximum" in message


def test_user_limit_catches_an_allocation_to_a_user_over_it() -> None:
    # b's user limit is its guarantee (user-limit-factor 1): 40% of 12 GB, rounded up to 5 GB.
    edit = Edit(WORLD, STATE)
    edit.change_asks(B1, 1, 4)
    before = edit.freeze()
    for _ in range(3):  # u2 at 1 + 6 GB: over its limit
        before = _force_allocate(before, B1, 1, N0)
    after = _force_allocate(before, B1, 1, N1)
    message = inv.allocation_within_user_limit(inv.SchedulerStep(WORLD, after, before, Heartbeat(N1)))
    assert message is not None and "user u2" in message and "over its limit <5120" in message
    legit_before, _ = play(WORLD, ["launch(c3)", "ask(b1, r1)"], STATE)
    legit_after, _ = play(WORLD, ["heartbeat(n1)"], legit_before)
    assert inv.allocation_within_user_limit(inv.SchedulerStep(WORLD, legit_after, legit_before, Heartbeat(N1))) is None


def test_am_limit_catches_an_activation_over_it() -> None:
    before, _ = play(WORLD, ["submit(a2)"], STATE)
    app = before.apps[A2]
    assert app is not None and app.phase == AppPhase.PENDING  # 1 + 6 GB of AMs: over half of a's 11 GB limit
    edit = Edit(WORLD, before)
    edit.apps[A2] = app._replace(phase=AppPhase.ACTIVE)
    edit.change_am_used(A2, 1)
    after = edit.freeze()
    message = inv.activation_within_am_limit(inv.SchedulerStep(WORLD, after, before, Tick()))
    assert message is not None and "a2 activated" in message
    assert (
        inv.activation_within_am_limit(inv.SchedulerStep(WORLD, play(WORLD, ["submit(a2)"], STATE)[0], STATE, Tick()))
        is None
    )


def test_kill_wait_catches_a_kill_without_a_due_mark() -> None:
    edit = Edit(WORLD, STATE)
    edit.end_container(1)
    after = edit.freeze()
    unmarked = inv.kill_only_after_wait(inv.SchedulerStep(WORLD, after, STATE, Monitor()))
    assert unmarked is not None and "marked at None" in unmarked
    young = STATE._replace(marks=((1, 0),), clock=1000)
    assert inv.kill_only_after_wait(inv.SchedulerStep(WORLD, after._replace(clock=1000), young, Monitor())) is not None
    due = STATE._replace(marks=((1, 0),), clock=2000)
    assert inv.kill_only_after_wait(inv.SchedulerStep(WORLD, after._replace(clock=2000), due, Monitor())) is None
    assert inv.kill_only_after_wait(inv.SchedulerStep(WORLD, after, STATE, Tick())) is None  # only the monitor kills


def test_every_step_invariant_is_tested_here() -> None:
    tested = {
        "allocation-within-queue-max",
        "allocation-within-user-limit",
        "activation-within-am-limit",
        "kill-only-after-wait",
    }
    assert tested == {i.name for i in inv.STEP_INVARIANTS}


def test_check_functions_report_by_name() -> None:
    broken = BROKEN_STATES["cluster-conservation"](STATE)
    names = [name for name, _ in inv.check_state(WORLD, broken)]
    assert "cluster-conservation" in names
    proposal = Proposal(ProposalKind.ALLOCATE, A1, 1, N0)
    assert inv.check_step(WORLD, STATE, Commit(proposal), STATE) == []
