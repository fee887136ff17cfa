"""Environment actions: what users, application masters, node managers and time do.

Each action's effect returns the new state (its guard is in the action table,
:mod:`yarnspec.impl.scheduler.actions.environment`):

* ``submit``: an application is submitted; it asks for its AM and is activated if its AM fits
  under the queue's AM limit (``LeafQueue.activateApplications``).
* ``change_ask``: a running AM asks for one more container of a request, or withdraws one.
* ``launch``: an allocated container is started by its node manager (ALLOCATED -> RUNNING).
* ``complete``: a running container (not an AM) finishes by itself (COMPLETED).
* ``release``: the AM gives a container back (RELEASED), including one the preemption monitor
  marked (the AM may answer a preemption request itself).
* ``lose_node``: a node is lost: its containers are LOST and its reservation dropped, the
  cluster shrinks; ``add_node``: a node slot registers with its whole capacity free.
* ``finish_app``: the application finishes (or is killed): its containers are released, its
  reservations dropped, its demand withdrawn and its AM share returned.
* ``tick``: the logical clock advances by one step; at the world's bound it stays (time passes
  without being counted), so no state is ever a deadlock. In an endless world
  (``Bounds.endless``) a tick at the bound ages every time stamp instead (:func:`age`).

An AM container that ends any other way than its application finishing (killed by preemption,
lost with its node) fails the attempt: the application's other containers are killed, its
reservations and demand dropped, and it asks for a new AM (Hadoop starts a new attempt;
preemption does not count against the attempt limit, which the model does not bound).
"""

from __future__ import annotations

from yarnspec.impl.resources import ZERO
from yarnspec.impl.scheduler.allocation.limits import may_activate
from yarnspec.impl.scheduler.bookkeeping.accounting import Edit, with_phase, with_state
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.inputs.settings import time_horizon
from yarnspec.impl.scheduler.state import NONE, AppPhase, ContainerState, NodeState, SchedulerState
from yarnspec.impl.scheduler.world import World

# -- the clock ------------------------------------------------------------------------------


def clock_stopped(world: World, state: SchedulerState) -> bool:
    """The clock has reached the world's bound: a tick would not move it."""
    return state.clock + world.bounds.tick_ms > world.bounds.max_clock_ms


# -- effects --------------------------------------------------------------------------------


def submit(world: World, state: SchedulerState, app: int) -> SchedulerState:
    """Submit an application: it asks for its AM and may be activated."""
    edit = Edit(world, state)
    edit.new_app(app)
    edit.change_asks(app, 0, 1)
    activate(edit, world.apps[app].queue)
    return edit.freeze()


def change_ask(world: World, state: SchedulerState, app: int, request: int, delta: int) -> SchedulerState:
    """The AM asks for ``delta`` (+1 or -1) containers of a request."""
    edit = Edit(world, state)
    edit.change_asks(app, request, delta)
    return edit.freeze()


def launch(world: World, state: SchedulerState, cid: int) -> SchedulerState:
    """An allocated container starts running."""
    edit = Edit(world, state)
    container = edit.containers[cid]
    edit.containers[cid] = with_state(container, ContainerState.RUNNING)
    return edit.freeze()


def complete(world: World, state: SchedulerState, cid: int) -> SchedulerState:
    """A running container finishes by itself (COMPLETED)."""
    edit = Edit(world, state)
    end_container(edit, cid)
    return edit.freeze()


def release(world: World, state: SchedulerState, cid: int) -> SchedulerState:
    """The AM releases a container (RELEASED)."""
    edit = Edit(world, state)
    end_container(edit, cid)
    return edit.freeze()


def lose_node(world: World, state: SchedulerState, node: int) -> SchedulerState:
    """A node is lost: its live containers are LOST (an AM among them fails its attempt), its
    reservation is dropped, and its capacity leaves the cluster."""
    edit = Edit(world, state)
    while True:
        on_node = edit.containers_on_node(node)
        if not on_node:
            break
        container = on_node[0]
        if container.state == ContainerState.RESERVED:
            edit.drop_reservation(container.cid)
        else:
            end_container(edit, container.cid)
    edit.set_node(node, NodeState(False, ZERO, ZERO, NONE))
    for leaf in world.leaves:
        activate(edit, leaf)
    return edit.freeze()


def add_node(world: World, state: SchedulerState, node: int) -> SchedulerState:
    """A node registers with its whole capacity free."""
    edit = Edit(world, state)
    edit.set_node(node, NodeState(True, ZERO, world.nodes[node].capacity, NONE))
    for leaf in world.leaves:
        activate(edit, leaf)
    return edit.freeze()


def finish_app(world: World, state: SchedulerState, app: int) -> SchedulerState:
    """The application finishes: everything it holds or asks for is given back."""
    edit = Edit(world, state)
    was_active = edit.app(app).phase == AppPhase.ACTIVE
    edit.drop_app(app)
    if was_active:
        edit.change_am_used(app, -1)
    edit.apps[app] = with_phase(edit.app(app), AppPhase.FINISHED)
    activate(edit, world.apps[app].queue)
    return edit.freeze()


def tick(world: World, state: SchedulerState) -> SchedulerState:
    """The clock advances by one step (not past the world's bound); at the bound an endless
    world ages its time stamps instead."""
    if clock_stopped(world, state):
        return age(world, state, world.bounds.tick_ms) if world.bounds.endless else state
    edit = Edit(world, state)
    edit.clock += world.bounds.tick_ms
    return edit.freeze()


def age(world: World, state: SchedulerState, elapsed: int) -> SchedulerState:
    """``state`` ``elapsed`` ms later with the clock standing still: every time stamp (the last
    monitor round and sort, marks, allocation times) moves back by ``elapsed``, but not below
    the clock less the world's time horizon. Every decision compares the clock with a stamp
    against a span shorter than the horizon, so a stamp at the floor acts as any older one
    would, and the result behaves exactly as the state with the clock moved on."""
    floor = state.clock - time_horizon(world.settings)

    def back(stamp: int) -> int:
        return stamp if stamp == NONE else max(stamp - elapsed, floor)

    return state._replace(
        containers=tuple(c._replace(start=back(c.start)) for c in state.containers),
        marks=tuple((cid, back(at)) for cid, at in state.marks),
        sorted_at=back(state.sorted_at),
        monitor_at=back(state.monitor_at),
    )


# -- shared steps ---------------------------------------------------------------------------


def end_container(edit: Edit, cid: int) -> None:
    """A live container ends; if it was the AM, the attempt fails and a new AM is asked for."""
    container = edit.end_container(cid)
    if container.is_am:
        edit.drop_app(container.app)
        edit.change_asks(container.app, 0, 1)


def activate(edit: Edit, leaf: int) -> None:
    """``activateApplications``: pending applications of the leaf, in submission order, become
    active while their AM fits under the AM limit (the first one always). Each is tested
    against the state as it is then; a view of it is made again only after an activation
    changed it (an application left pending changes nothing the next one reads)."""
    world = edit.world
    pending = sorted(
        (app.seq, index)
        for index, app in enumerate(edit.apps)
        if app is not None and app.phase == AppPhase.PENDING and world.apps[index].queue == leaf
    )
    view: View | None = None
    for _, index in pending:
        if view is None:  # the state as it is now: unchanged until an application is activated
            view = View(world, edit.freeze())
        info = world.apps[index]
        am_used = edit.queues[leaf].am_used[info.am_partition]
        active = len(view.active_apps[leaf])
        if may_activate(view, index, am_used, active):
            edit.apps[index] = with_phase(edit.app(index), AppPhase.ACTIVE)
            edit.change_am_used(index, 1)
            view = None
