"""Environment actions and preemption in the loop: what each does to the stored counters.

Seed 002's scaled cluster (:func:`~yarnspec.spec.worlds.world_builders.seed002_world`): three 4 GB
nodes, queues A and B at 50%; app_A fills the cluster with its 2 GB AM and five 2 GB
containers, then app_B arrives. The monitor marks a container of A, the AM may release it, and
otherwise a later round kills it once the 3 s wait has passed.
"""

from __future__ import annotations

from tests.scheduler.helpers import gb, labels_of, play
from yarnspec.impl.scheduler.monitor.scheduling_monitor import run_monitor, snapshot
from yarnspec.impl.scheduler.state import AppPhase, ContainerState, SchedulerState
from yarnspec.spec.worlds.world_builders import seed002_world

WORLD = seed002_world()
FILL = (
    ["submit(app_A)", "heartbeat(n0)", "launch(c0)"]
    + ["ask(app_A, r1)"] * 5
    + ["heartbeat(n0)", "heartbeat(n1)", "heartbeat(n1)", "heartbeat(n2)", "heartbeat(n2)"]
)
A, B = 1, 2


def filled() -> tuple[SchedulerState, list[str]]:
    return play(WORLD, FILL + ["tick", "submit(app_B)"])


def test_the_monitor_marks_then_kills_after_the_wait() -> None:
    state, _ = filled()
    assert state.queues[A].used[0] == gb(12, 6) and state.queues[B].pending[0] == gb(1)
    state, notes = play(WORLD, ["monitor"], state)
    assert notes == ["marked 1"] and state.marks == ((5, 3000),)  # the newest container of A
    assert "monitor" not in labels_of(WORLD, state)  # the next round waits for the interval
    state, notes = play(WORLD, ["tick", "monitor"], state)
    assert notes[-1] == "killed 1" and state.container(5) is None and state.marks == ()
    assert state.queues[A].used[0] == gb(10, 5) and state.nodes[2].free == gb(2, 3)
    state, notes = play(WORLD, ["heartbeat(n2)"], state)
    app_b = state.apps[1]
    assert notes == ["committed allocate"] and app_b is not None and app_b.am_container == 6


def test_the_am_may_release_a_marked_container_before_the_kill() -> None:
    state, _ = filled()
    state, _ = play(WORLD, ["monitor", "release(c5)", "tick", "monitor"], state)
    assert state.container(5) is None and state.marks == ()
    # Nothing more is needed: B's AM now fits, so the second round takes nothing.
    assert all(c.state != ContainerState.RESERVED for c in state.containers) and len(state.containers) == 5


def test_the_snapshot_is_the_policy_view_of_the_state() -> None:
    state, _ = filled()
    snap = snapshot(WORLD, state)
    assert snap.cluster_resource == gb(12, 12)
    assert snap.queues["root.A"].at("").used == gb(12, 6)
    assert snap.queues["root.A"].at("").guaranteed == gb(6, 6)
    assert snap.queues["root.B"].at("").pending == gb(1)
    assert [str(c.container_id) for c in snap.containers][:2] == ["container_1_0", "container_1_1"]
    assert snap.apps[2].queue == "root.B"  # app ids in submission order, from 1


def test_killing_an_am_fails_the_attempt() -> None:
    state, _ = filled()
    result = run_monitor(WORLD, state)
    assert result.marked == (5,)
    # Losing the AM's node loses the AM: the attempt's other containers go, it asks for a new AM.
    state, _ = play(WORLD, ["lose-node(n0)"], state)
    app = state.apps[0]
    assert app is not None and app.phase == AppPhase.ACTIVE and app.am_container == -1 and app.asks == (1, 0)
    assert all(c.app != 0 for c in state.containers)
    assert state.queues[A].used[0] == gb(0, 0) and state.queues[0].pending[0] == gb(3, 2)


def test_losing_and_adding_nodes_changes_the_cluster() -> None:
    state, _ = play(WORLD, FILL)
    state, _ = play(WORLD, ["lose-node(n2)"], state)
    assert not state.nodes[2].live and state.nodes[2].used == gb(0, 0)
    assert state.queues[0].used[0] == gb(8, 4)
    assert snapshot(WORLD, state).cluster_resource == gb(8, 8)
    state, _ = play(WORLD, ["add-node(n2)", "ask(app_A, r1)", "heartbeat(n2)"], state)
    assert state.nodes[2].free == gb(2, 3)


def test_finishing_an_application_returns_everything() -> None:
    state, _ = play(WORLD, FILL + ["ask(app_A, r1)"])
    state, _ = play(WORLD, ["finish-app(app_A)"], state)
    app = state.apps[0]
    assert app is not None and app.phase == AppPhase.FINISHED and app.asks == (0, 0)
    assert state.containers == () and state.queues[0].used[0] == gb(0, 0) and state.queues[0].pending[0] == gb(0, 0)
    assert state.queues[A].am_used[0] == gb(0, 0)
    assert "submit(app_A)" not in labels_of(WORLD, state)


def test_the_clock_stops_at_its_bound() -> None:
    state, _ = play(WORLD, ["tick"] * 5)
    assert state.clock == 15000
    after, _ = play(WORLD, ["tick"], state)
    assert after is state  # time passes uncounted: a stuttering step, never a deadlock
