"""The environment's actions: what users, application masters, node managers and time do.

Each kind is its action class, its guard and its table entry (guard, then step). The guards
are here (they read the state through the :class:`~.kind.Context`, which works out once per
state the container of an id and whether an application's AM runs); the steps are
:mod:`yarnspec.impl.scheduler.environment_effects`'s (which says what each does and where Hadoop does
it).
"""

from __future__ import annotations

from dataclasses import dataclass

from yarnspec.impl.scheduler import environment_effects as env
from yarnspec.impl.scheduler.actions.kind import (
    ALLOCATED,
    LIVE,
    RUNNING,
    ActionKind,
    Context,
    app_name,
    apps_and_containers,
    node_name,
    once,
    per_app,
    per_container,
    per_node,
    per_request,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Submit:
    """The environment submits application ``app``."""

    app: int


SUBMIT = ActionKind(
    "submit",
    Submit,
    per_app,
    guard=lambda c, a: c.state.apps[a.app] is None,
    step=lambda c, a: env.submit(c.world, c.state, a.app),
    argument=lambda world, a: app_name(world, a.app),
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class Ask:
    """The AM of ``app`` asks for one more container of its request ``request``."""

    app: int
    request: int


def _ask_enabled(context: Context, action: Ask) -> bool:
    """A running AM may ask for one more container of a request (not the AM request, which
    is the RM's) up to the world's bound."""
    if not context.am_running(action.app):
        return False
    app = context.state.apps[action.app]
    return app is not None and app.asks[action.request] < context.world.bounds.max_ask


ASK = ActionKind(
    "ask",
    Ask,
    per_request,
    guard=_ask_enabled,
    step=lambda c, a: env.change_ask(c.world, c.state, a.app, a.request, 1),
    argument=lambda world, a: f"{app_name(world, a.app)}, r{a.request}",
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class Cancel:
    """The AM of ``app`` withdraws one container of its request ``request``."""

    app: int
    request: int


def _cancel_enabled(context: Context, action: Cancel) -> bool:
    """A running AM may withdraw a container of a request it asked for."""
    if not context.am_running(action.app):
        return False
    app = context.state.apps[action.app]
    return app is not None and app.asks[action.request] > 0


CANCEL = ActionKind(
    "cancel",
    Cancel,
    per_request,
    guard=_cancel_enabled,
    step=lambda c, a: env.change_ask(c.world, c.state, a.app, a.request, -1),
    argument=lambda world, a: f"{app_name(world, a.app)}, r{a.request}",
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class Launch:
    """Container ``container`` starts running."""

    container: int


def _launch_enabled(context: Context, action: Launch) -> bool:
    """The container is allocated and not yet running."""
    container = context.container(action.container)
    return container is not None and container.state == ALLOCATED


LAUNCH = ActionKind(
    "launch",
    Launch,
    per_container,
    guard=_launch_enabled,
    step=lambda c, a: env.launch(c.world, c.state, a.container),
    argument=lambda world, a: f"c{a.container}",
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class Complete:
    """Container ``container`` finishes by itself."""

    container: int


def _complete_enabled(context: Context, action: Complete) -> bool:
    """A running container other than an AM may finish by itself."""
    container = context.container(action.container)
    return container is not None and container.state == RUNNING and not container.is_am


COMPLETE = ActionKind(
    "complete",
    Complete,
    per_container,
    guard=_complete_enabled,
    step=lambda c, a: env.complete(c.world, c.state, a.container),
    argument=lambda world, a: f"c{a.container}",
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class Release:
    """The AM releases container ``container``."""

    container: int


def _release_enabled(context: Context, action: Release) -> bool:
    """A running AM may release any of its other live containers."""
    container = context.container(action.container)
    return (
        container is not None and container.state in LIVE and not container.is_am and context.am_running(container.app)
    )


RELEASE = ActionKind(
    "release",
    Release,
    per_container,
    guard=_release_enabled,
    step=lambda c, a: env.release(c.world, c.state, a.container),
    argument=lambda world, a: f"c{a.container}",
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class LoseNode:
    """Node ``node`` is lost."""

    node: int


LOSE_NODE = ActionKind(
    "lose-node",
    LoseNode,
    per_node,
    guard=lambda c, a: c.world.bounds.node_churn and c.state.nodes[a.node].live,
    step=lambda c, a: env.lose_node(c.world, c.state, a.node),
    argument=lambda world, a: node_name(world, a.node),
    possible=lambda world: world.bounds.node_churn,
)


@dataclass(frozen=True, slots=True)
class AddNode:
    """Node ``node`` registers."""

    node: int


ADD_NODE = ActionKind(
    "add-node",
    AddNode,
    per_node,
    guard=lambda c, a: c.world.bounds.node_churn and not c.state.nodes[a.node].live,
    step=lambda c, a: env.add_node(c.world, c.state, a.node),
    argument=lambda world, a: node_name(world, a.node),
    possible=lambda world: world.bounds.node_churn,
)


@dataclass(frozen=True, slots=True)
class FinishApp:
    """Application ``app`` finishes."""

    app: int


def _finish_app_enabled(context: Context, action: FinishApp) -> bool:
    """A submitted application that has not finished may finish (or be killed)."""
    app = context.state.apps[action.app]
    return app is not None and app.live


FINISH_APP = ActionKind(
    "finish-app",
    FinishApp,
    per_app,
    guard=_finish_app_enabled,
    step=lambda c, a: env.finish_app(c.world, c.state, a.app),
    argument=lambda world, a: app_name(world, a.app),
    reads=apps_and_containers,
)


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock advances one step."""


TICK = ActionKind(
    "tick",
    Tick,
    once,
    # Time may always pass, so no state is a deadlock; at the world's bound the clock no
    # longer moves and a tick changes nothing (a stuttering step).
    guard=lambda c, a: True,
    step=lambda c, a: env.tick(c.world, c.state),
    fair=True,
)


#: The environment's kinds, in the order the model lists their actions.
KINDS: tuple[ActionKind, ...] = (SUBMIT, ASK, CANCEL, LAUNCH, COMPLETE, RELEASE, LOSE_NODE, ADD_NODE, FINISH_APP, TICK)
