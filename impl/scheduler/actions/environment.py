"""The environment's actions: what users, application masters, node managers and time do.

Each kind is its action class and its table entry, guard first, then effect; the guards and
effects themselves are :mod:`yarnspec.impl.scheduler.environment`'s (which says what each
does and where Hadoop does it).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import environment as env
from .kind import ActionKind, Context, StepResult, app_name, node_name, once, per_app, per_container, per_node, per_request


@dataclass(frozen=True, slots=True)
class Submit:
    """The environment submits application ``app``."""

    app: int


SUBMIT = ActionKind(
    "submit",
    Submit,
    per_app,
    guard=lambda c, a: env.submit_enabled(c.world, c.state, a.app),
    effect=lambda c, a: StepResult(env.submit(c.world, c.state, a.app)),
    argument=lambda world, a: app_name(world, a.app),
)


@dataclass(frozen=True, slots=True)
class Ask:
    """The AM of ``app`` asks for one more container of its request ``request``."""

    app: int
    request: int


ASK = ActionKind(
    "ask",
    Ask,
    per_request,
    guard=lambda c, a: env.change_ask_enabled(c.world, c.state, a.app, a.request, 1),
    effect=lambda c, a: StepResult(env.change_ask(c.world, c.state, a.app, a.request, 1)),
    argument=lambda world, a: f"{app_name(world, a.app)}, r{a.request}",
)


@dataclass(frozen=True, slots=True)
class Cancel:
    """The AM of ``app`` withdraws one container of its request ``request``."""

    app: int
    request: int


CANCEL = ActionKind(
    "cancel",
    Cancel,
    per_request,
    guard=lambda c, a: env.change_ask_enabled(c.world, c.state, a.app, a.request, -1),
    effect=lambda c, a: StepResult(env.change_ask(c.world, c.state, a.app, a.request, -1)),
    argument=lambda world, a: f"{app_name(world, a.app)}, r{a.request}",
)


@dataclass(frozen=True, slots=True)
class Launch:
    """Container ``container`` starts running."""

    container: int


LAUNCH = ActionKind(
    "launch",
    Launch,
    per_container,
    guard=lambda c, a: env.launch_enabled(c.world, c.state, a.container),
    effect=lambda c, a: StepResult(env.launch(c.world, c.state, a.container)),
    argument=lambda world, a: f"c{a.container}",
)


@dataclass(frozen=True, slots=True)
class Complete:
    """Container ``container`` finishes by itself."""

    container: int


COMPLETE = ActionKind(
    "complete",
    Complete,
    per_container,
    guard=lambda c, a: env.complete_enabled(c.world, c.state, a.container),
    effect=lambda c, a: StepResult(env.complete(c.world, c.state, a.container)),
    argument=lambda world, a: f"c{a.container}",
)


@dataclass(frozen=True, slots=True)
class Release:
    """The AM releases container ``container``."""

    container: int


RELEASE = ActionKind(
    "release",
    Release,
    per_container,
    guard=lambda c, a: env.release_enabled(c.world, c.state, a.container),
    effect=lambda c, a: StepResult(env.release(c.world, c.state, a.container)),
    argument=lambda world, a: f"c{a.container}",
)


@dataclass(frozen=True, slots=True)
class LoseNode:
    """Node ``node`` is lost."""

    node: int


LOSE_NODE = ActionKind(
    "lose-node",
    LoseNode,
    per_node,
    guard=lambda c, a: env.lose_node_enabled(c.world, c.state, a.node),
    effect=lambda c, a: StepResult(env.lose_node(c.world, c.state, a.node)),
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
    guard=lambda c, a: env.add_node_enabled(c.world, c.state, a.node),
    effect=lambda c, a: StepResult(env.add_node(c.world, c.state, a.node)),
    argument=lambda world, a: node_name(world, a.node),
    possible=lambda world: world.bounds.node_churn,
)


@dataclass(frozen=True, slots=True)
class FinishApp:
    """Application ``app`` finishes."""

    app: int


FINISH_APP = ActionKind(
    "finish-app",
    FinishApp,
    per_app,
    guard=lambda c, a: env.finish_app_enabled(c.world, c.state, a.app),
    effect=lambda c, a: StepResult(env.finish_app(c.world, c.state, a.app)),
    argument=lambda world, a: app_name(world, a.app),
)


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock advances one step."""


TICK = ActionKind(
    "tick",
    Tick,
    once,
    guard=lambda c, a: env.tick_enabled(c.world, c.state),
    effect=lambda c, a: StepResult(env.tick(c.world, c.state)),
    fair=True,
)


#: The environment's kinds, in the order the model lists their actions.
KINDS: tuple[ActionKind, ...] = (SUBMIT, ASK, CANCEL, LAUNCH, COMPLETE, RELEASE, LOSE_NODE, ADD_NODE, FINISH_APP, TICK)
