"""Shared builders for the scheduler model's tests: small worlds and fixed traces.

:func:`make_world` builds a world from short property names (``root.a.capacity``; the
``yarn.scheduler.capacity.`` prefix is added, full names pass unchanged). :func:`play` applies
actions by their label, checking the whole invariant catalogue after every step, and returns
the final state with the note of each step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from yarnspec.impl.config.keys import CAPACITY_PREFIX as PREFIX
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import apply_action, enabled, label, start
from yarnspec.impl.scheduler.inputs.bounds import Bounds
from yarnspec.impl.scheduler.inputs.settings import configuration_from_properties
from yarnspec.impl.scheduler.inputs.specs import AppSpec, NodeSpec, PartitionSpec
from yarnspec.impl.scheduler.inputs.variants import Variants
from yarnspec.impl.scheduler.state import SchedulerState
from yarnspec.impl.scheduler.world import World, build_world
from yarnspec.spec.scheduler.invariants import check_state, check_step


def gb(memory: int, vcores: int = 1) -> Resource:
    """``memory`` GB (in MB) and ``vcores``."""
    return Resource.of(memory * 1024, vcores)


def make_world(
    properties: Mapping[str, str],
    nodes: Sequence[NodeSpec],
    apps: Sequence[AppSpec],
    variants: Variants = Variants(),
    bounds: Bounds = Bounds(),
    partitions: Sequence[PartitionSpec] = (PartitionSpec(""),),
) -> World:
    """A world; property names starting with ``root`` get the capacity-scheduler prefix."""
    full = {(PREFIX + k if k.startswith("root") else k): v for k, v in properties.items()}
    return build_world(configuration_from_properties(full), partitions, nodes, apps, variants, bounds)


def act(world: World, state: SchedulerState, text: str) -> tuple[SchedulerState, str]:
    """Take the enabled action whose label is ``text`` (or, failing that, the only one whose
    label starts with it); ``AssertionError`` naming the enabled ones otherwise."""
    actions = enabled(world, state)
    exact = [a for a in actions if label(world, a) == text]
    chosen = exact or [a for a in actions if label(world, a).startswith(text)]
    assert len(chosen) == 1, f"{text!r} not enabled once; enabled: {[label(world, a) for a in actions]}"
    result = apply_action(world, state, chosen[0])
    return result.state, result.note


def play(
    world: World, labels: Sequence[str], state: SchedulerState | None = None, check: bool = True
) -> tuple[SchedulerState, list[str]]:
    """Apply the actions named by ``labels`` from ``state`` (default: the initial state); with
    ``check`` every state and step invariant must hold after every step."""
    current = state if state is not None else start(world)
    notes = []
    for text in labels:
        before = current
        actions = enabled(world, current)
        chosen = [a for a in actions if label(world, a) == text] or [
            a for a in actions if label(world, a).startswith(text)
        ]
        assert len(chosen) == 1, f"{text!r} not enabled once; enabled: {[label(world, a) for a in actions]}"
        result = apply_action(world, current, chosen[0])
        current = result.state
        notes.append(result.note)
        if check:
            broken = check_state(world, current) + check_step(world, before, chosen[0], current)
            assert not broken, f"after {text}: {broken}"
    return current, notes


def labels_of(world: World, state: SchedulerState) -> list[str]:
    """The labels of the enabled actions."""
    return [label(world, a) for a in enabled(world, state)]
