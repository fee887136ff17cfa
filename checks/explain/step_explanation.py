"""Why a state of a scheduler trace is what it is: what waits and why, what the preemption
policy would do there, and, for a lasso, in one sentence why its loop never makes progress.

:func:`explain_step` reads one step of a trace replayed on its scheduler model:

* the step's own note, from the model's explanation of its action (``committed reserve``,
  ``rejected allocate: ...``, ``marked 1, killed 2``: :func:`yarnspec.impl.scheduler.actions.take`);
* every outstanding request and why the scheduler does not allocate it in this state
  (:func:`why_waiting`: not activated under the AM limit, reserved on a node without room,
  larger than every node, the queue's limit, the user limit, no node with room), in the order
  the allocation's checks meet them;
* the round the preemption monitor would run on this state, as ``yarnspec preempt`` explains a
  snapshot (:func:`yarnspec.checks.explain.preemption_round.round_report` on the snapshot the model's
  monitor gives the policy, :func:`yarnspec.impl.scheduler.monitor.scheduling_monitor.policy_round`).

:func:`loop_reason` builds the sentence for a lasso from those: what the property waits for
and why, and why the policy frees nothing for it (or frees it for others to take back).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.commands.preempt import format_round, round_json
from yarnspec.checks.explain.preemption_round import QueueRow, RoundReport, round_report
from yarnspec.checks.explore.trace import Trace, replay_states
from yarnspec.impl.cluster import Container as PolicyContainer
from yarnspec.impl.preemption.result import EventType
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import action_kind, take
from yarnspec.impl.scheduler.allocation.limits import am_limit, leaf_current_limit, user_limit
from yarnspec.impl.scheduler.allocation.scheduling_mode import RESPECT
from yarnspec.impl.scheduler.bookkeeping.view import View
from yarnspec.impl.scheduler.monitor.scheduling_monitor import policy_round, snapshot
from yarnspec.impl.scheduler.state import AppPhase, ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.scheduler.model import ModelState, SchedulerModel, starved_queue, stuck_reservation

#: The action kinds that allocate (their notes say what was committed, reserved or rejected).
ALLOCATION_KINDS = frozenset({"heartbeat", "propose", "commit"})


@dataclass(frozen=True)
class Waiting:
    """An outstanding request in a state: ``count`` containers of ``resource`` for request
    ``request`` of ``app`` in ``queue``, and why the scheduler does not allocate one now."""

    app: str
    queue: str
    request: int
    resource: Resource
    count: int
    why: str

    def line(self) -> str:
        """``app_B r1 (root.B): 1 x <2048, 2>: reserved on n0, ...``."""
        return f"{self.app} r{self.request} ({self.queue}): {self.count} x {self.resource}: {self.why}"

    def to_json(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "app": self.app, "queue": self.queue, "request": self.request,
            "resource": {"memory": self.resource.memory, "vcores": self.resource.vcores}, "count": self.count, "why": self.why,
        }  # fmt: skip


@dataclass(frozen=True)
class StepExplanation:
    """One step of a trace explained (see the module docstring); ``policy`` is ``None`` when
    the world does not run the preemption monitor."""

    step: int
    action: str | None
    note: str
    clock_ms: int
    waiting: tuple[Waiting, ...]
    policy: RoundReport | None

    def format(self) -> str:
        """The explanation as text."""
        what = "the initial state" if self.action is None else self.action
        lines = [f"step {self.step}: {what} (clock {self.clock_ms} ms)"]
        if self.action is not None:
            lines.append(f"  the step: {self.note or 'no note (nothing to explain for this kind of step)'}")
        lines.append("waiting requests" + ("" if self.waiting else ": none"))
        lines += [f"  {w.line()}" for w in self.waiting]
        if self.policy is None:
            lines.append("preemption: the world does not run the preemption monitor")
        else:
            lines += [f"preemption: the round the monitor would run on this state (at {self.policy.clock_ms} ms)", ""]
            lines += format_round(self.policy)
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """JSON-able form (the policy's round as ``yarnspec preempt --json`` gives one)."""
        return {
            "step": self.step, "action": self.action, "note": self.note, "clock_ms": self.clock_ms,
            "waiting": [w.to_json() for w in self.waiting], "policy": None if self.policy is None else round_json(self.policy),
        }  # fmt: skip


def explain_step(
    model: SchedulerModel, states: Sequence[ModelState], actions: Sequence[Any], step: int
) -> StepExplanation:
    """Step ``step`` of a replayed trace (``actions[i]`` leads to ``states[i + 1]``)."""
    world, state = model.world, states[step].scheduler
    action = None if step == 0 else actions[step - 1]
    note = "" if action is None else take(world, states[step - 1].scheduler, action).note
    label = None if action is None else model.action_label(action)
    return StepExplanation(
        step, label, note, state.clock, tuple(waiting_requests(world, state)), policy_report(world, state)
    )


def policy_report(world: World, state: SchedulerState) -> RoundReport | None:
    """The round the monitor would run on ``state`` (continuing from its marks), explained as
    ``yarnspec preempt`` explains a snapshot's; ``None`` without the monitor."""
    config = world.settings.preemption
    if config is None:
        return None
    result, _ = policy_round(world, state)
    return round_report(1, result, snapshot(world, state), _container_name, config, world.calculator)


def _container_name(container: PolicyContainer) -> str:
    return f"c{container.container_id.number}"


def waiting_requests(world: World, state: SchedulerState) -> list[Waiting]:
    """Every outstanding request of a live application, with why it is not allocated now."""
    view = View(world, state)
    found = []
    for index, app in enumerate(state.apps):
        if app is None or not app.live:
            continue
        info = world.apps[index]
        for request, count in enumerate(app.asks):
            if count > 0:
                found.append(
                    Waiting(info.name, world.queues[info.queue].path, request, info.requests[request].capability, count,
                            why_waiting(view, index, request))
                )  # fmt: skip
    return found


def why_waiting(view: View, app: int, request: int) -> str:
    """Why one container of ``request`` of ``app`` is not allocated in the view's state, the
    first of the allocation's checks that stops it."""
    world, state, calc = view.world, view.state, view.calc
    info = world.apps[app]
    app_state = state.apps[app]
    assert app_state is not None
    wanted = info.requests[request]
    size, partition, leaf = wanted.capability, wanted.partition, info.queue
    queue = world.queues[leaf].path
    usage = state.queues[leaf]
    if app_state.phase == AppPhase.PENDING:
        limit = am_limit(view, leaf, info.am_partition)
        return f"not activated: its AM would take {queue}'s AM use {usage.am_used[info.am_partition]} past the AM limit {limit}"
    for c in state.containers:
        if c.app == app and c.request == request and c.state == ContainerState.RESERVED:
            node = state.nodes[c.node]
            name = world.nodes[c.node].name
            if calc.fits_in(size, node.free):
                return f"reserved on {name}, which has room now: the next allocation on {name} takes it"
            return f"reserved on {name}, where {node.free} is free: it waits there for containers on {name} to end"
    nodes = [n for n in range(len(world.nodes)) if state.nodes[n].live and world.node_partition[n] == partition]
    if not any(calc.fits_in(size, world.nodes[n].capacity) for n in nodes):
        return "larger than every registered node of its partition: it can never be allocated"
    limit = leaf_current_limit(view, leaf, partition)
    used = usage.used[partition]
    if not calc.fits_in(used + size, limit):
        return (
            f"{queue}'s limit is {limit} (its maximum and what its parents leave it), {used} used: no room for {size}"
        )
    user = user_limit(view, leaf, partition, RESPECT)
    user_used = state.users[info.user].used[partition]
    if not calc.fits_in(user_used + size, user):
        return f"user {world.users[info.user][1]}'s limit in {queue} is {user}, {user_used} used: no room for {size}"
    room = [n for n in nodes if calc.fits_in(size, state.nodes[n].free)]
    if not room:
        most = max(nodes, key=lambda n: state.nodes[n].free.values, default=None)
        where = "" if most is None else f" (the most: {state.nodes[most].free} on {world.nodes[most].name})"
        return f"no registered node has {size} free{where}"
    return f"fits on {', '.join(world.nodes[n].name for n in room)}: the next allocation there may take it"


def loop_reason(
    model: SchedulerModel, prop: str, states: Sequence[ModelState], actions: Sequence[Any], loop_start: int
) -> str:
    """One sentence: why the loop ``states[loop_start:]`` of a lasso violating ``prop`` never
    makes progress, from what waits (the property's premise), the loop's allocation steps and
    the preemption policy's view of the loop's first state."""
    world = model.world
    first = states[loop_start].scheduler
    waiting = _premise_requests(world, first, prop)
    what = _waits(waiting) if waiting else "what the premise waits for never happens"
    loop_actions = actions[loop_start:]
    loop_before = states[loop_start:-1] if len(states) - 1 > loop_start else []
    notes = [
        f"{model.action_label(a)}: {take(world, s.scheduler, a).note}"
        for a, s in zip(loop_actions, loop_before)
        if action_kind(a).name in ALLOCATION_KINDS
    ]
    freed = sum(
        len([e for e in policy_round(world, s.scheduler)[0].events if e.kind is EventType.MARK_CONTAINER_FOR_KILLABLE])
        for a, s in zip(loop_actions, loop_before)
        if action_kind(a).name == "monitor"
    )
    if freed:
        takers = _takers(model, states[loop_start:], loop_actions, waiting)
        return f"In the loop preemption kills {freed} container(s) but {what}, and {takers}, so each round starts over."
    report = policy_report(world, first)
    policy = (
        "the world does not run the preemption monitor"
        if report is None
        else _policy_idle(world, first, report, waiting)
    )
    allocation = f"; its allocation steps: {'; '.join(notes)}" if notes else ""
    return f"The loop never makes progress because {what}{allocation}, and {policy}."


def _takers(model: SchedulerModel, states: Sequence[ModelState], actions: Sequence[Any], waiting: list[Waiting]) -> str:
    """Who takes the room preemption frees in a loop: the applications (other than the waiting
    one, when there are others) whose use grows at the loop's allocation steps (``app_A takes
    the freed room back at heartbeat(n2)``)."""
    world = model.world
    found: list[tuple[str, str]] = []
    for action, before, after in zip(actions, states, states[1:]):
        if action_kind(action).name not in ALLOCATION_KINDS:
            continue
        found += [
            (world.apps[i].name, model.action_label(action))
            for i, (old, new) in enumerate(zip(before.scheduler.apps, after.scheduler.apps))
            if old is not None and new is not None and sum(r.memory for r in new.used) > sum(r.memory for r in old.used)
        ]
    if not found:
        return "the freed room goes unused"
    starved = {w.app for w in waiting}
    others = [(app, label) for app, label in found if app not in starved]
    return "; ".join(f"{app} takes the freed room back at {label}" for app, label in others or found)


def _starved_queue_requests(world: World, state: SchedulerState, waiting: list[Waiting]) -> list[Waiting]:
    """``guarantee-progress``'s premise: the requests of the queue it finds starved."""
    queue = starved_queue(world, state)
    return [w for w in waiting if queue is not None and w.queue == world.queues[queue].path]


def _stuck_reservation_requests(world: World, state: SchedulerState, waiting: list[Waiting]) -> list[Waiting]:
    """``reservation-progress``'s premise: the request of the reservation it finds stuck."""
    cid = stuck_reservation(world, state)
    container = None if cid is None else state.container(cid)
    if container is None:
        return []
    return [w for w in waiting if w.app == world.apps[container.app].name and w.request == container.request]


#: For the model's own progress properties, the waiting requests their premise is about.
PREMISE_REQUESTS: Mapping[str, Callable[[World, SchedulerState, list[Waiting]], list[Waiting]]] = {
    "guarantee-progress": _starved_queue_requests,
    "reservation-progress": _stuck_reservation_requests,
}


def _premise_requests(world: World, state: SchedulerState, prop: str) -> list[Waiting]:
    """The requests the property's premise waits for (:data:`PREMISE_REQUESTS`); every waiting
    request for another property, or when the premise names none."""
    waiting = waiting_requests(world, state)
    chosen = PREMISE_REQUESTS.get(prop)
    return (chosen(world, state, waiting) if chosen is not None else []) or waiting


def _waits(waiting: list[Waiting]) -> str:
    first = waiting[0]
    return f"{first.app}'s {first.resource} request in {first.queue} waits ({first.why})"


def _policy_idle(world: World, state: SchedulerState, report: RoundReport, waiting: list[Waiting]) -> str:
    """Why the policy's round on ``state`` frees nothing for the waiting queue."""
    if report.events:
        return f"the policy's round sends {len(report.events)} event(s) that free nothing the request can use"
    row = next((r for r in report.rows if waiting and r.queue == waiting[0].queue), None)
    if row is None:
        return "the policy finds nothing to preempt"
    index = next(i for i, q in enumerate(world.queues) if q.path == row.queue)
    partition = next(i for i, p in enumerate(world.partitions) if p.name == row.partition)
    reserved = state.queues[index].reserved[partition]
    served = world.calculator.fits_in(row.ideal, row.used)  # the policy gives it no more than it uses
    if served and not reserved.is_zero():
        return (
            f"the reservation {reserved} counts as {row.queue}'s use: its used {row.used} already meets its ideal "
            f"{row.ideal} (guarantee {row.guaranteed}), so the policy sees no under-served queue and preempts nothing"
        )
    over = [
        r for r in report.rows if r.leaf and r.queue != row.queue and not world.calculator.fits_in(r.used, r.guaranteed)
    ]
    if over:
        return f"{row.queue} is {row.why} but the policy takes nothing from the others ({'; '.join(_row_why(r) for r in over)})"
    return f"{row.queue} is {row.why} and no queue is over its guarantee to preempt from"


def _row_why(row: QueueRow) -> str:
    return f"{row.queue}: {row.why}"


def lasso_reason(model: Any, trace: Trace | None, source: str = "<trace>") -> str | None:
    """:func:`loop_reason` for a lasso of the scheduler model (replayed on ``model``);
    ``None`` for any other trace or model."""
    if trace is None or trace.loop_start is None or not isinstance(model, SchedulerModel):
        return None
    states, actions = replay_states(model, trace, source)
    return loop_reason(model, trace.property, states, actions, trace.loop_start)
