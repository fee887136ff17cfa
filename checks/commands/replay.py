"""``yarnspec replay TRACE.json``: re-execute a counterexample trace on the model it names.

The trace (``yarnspec explore --trace-out``, or :meth:`Trace.save`) names its model: a
scenario's scheduler model (``"model": "capacity-scheduler"``, the scenario and variant in
``parameters.world``) or the explorer's toy model. The command rebuilds that model from the
current code, replays every step (each action enabled, each state as recorded) and re-checks
the recorded violation (:func:`yarnspec.checks.explore.replay`).

Exit status 0 when the trace replays and shows the recorded violation. A file that cannot be
read, is malformed, or does not replay (an edited step, a behaviour that changed) is one line
naming the file, the place (``steps[12].state``) and the fault, exit 2.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from typing import Any

from yarnspec.checks.explore import Trace, replay
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.checks.worlds.plugins import model_for_any_title
from yarnspec.checks.worlds.world_arguments import is_world_title, model_for_embedded_world, model_for_world_title
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import shown_name
from yarnspec.spec.scheduler.model import SchedulerModel
from yarnspec.spec.transition_system import TransitionSystem


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument("trace", metavar="TRACE", help="a JSON trace written by yarnspec explore --trace-out")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the trace")


def run(args: argparse.Namespace) -> int:
    """Load, rebuild the model, replay; returns 0 (an :class:`InputError` propagates)."""
    source = shown_name(args.trace)
    trace = Trace.load(args.trace)
    model = model_of(trace, source)
    reproduced = replay(model, trace, source)
    if args.json:
        print(
            json.dumps(
                {"trace": source, "replayed": True, "steps": len(trace.steps) - 1, "reproduced": reproduced}, indent=1
            )
        )
    else:
        print(trace.format())
        print(f"replayed {len(trace.steps) - 1} steps of {source}: {reproduced}")
    return 0


def _scheduler_model(trace: Trace, source: str) -> SchedulerModel:
    world = trace.parameters.get("world")
    if not isinstance(world, str):
        raise InputError(source, "parameters.world", "missing: a scenario trace names its scenario and variant here")
    if trace.world is not None:
        return model_for_embedded_world(trace.world, world, source)
    if is_world_title(world):
        return model_for_world_title(world, source, "parameters.world")
    return model_for_any_title(world, source, "parameters.world")


def _toy_model(trace: Trace, source: str) -> ToyModel:
    sizes: dict[str, Any] = dict(trace.parameters)
    unknown = sorted(set(sizes) - {"nodes", "apps", "capacity"})
    if unknown:
        raise InputError(source, f"parameters.{unknown[0]}", "not a parameter of the toy model")
    try:
        return ToyModel(**sizes, variant=trace.variant)
    except InputError as exc:
        raise InputError(
            source, f"parameters.{exc.place}" if exc.place != "variant" else "variant", exc.fault
        ) from None


#: The models a trace may name, by the model name it records.
MODELS: Mapping[str, Callable[[Trace, str], TransitionSystem[Any, Any]]] = {
    SchedulerModel.name: _scheduler_model,
    ToyModel.name: _toy_model,
}


def model_of(trace: Trace, source: str) -> TransitionSystem[Any, Any]:
    """The model the trace names, built from the current code; an :class:`InputError`
    naming the place when it names none."""
    build = MODELS.get(trace.model)
    if build is None:
        raise InputError(source, "model", f"unknown model {trace.model!r}; known: {', '.join(MODELS)}")
    return build(trace, source)
