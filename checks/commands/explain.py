"""``yarnspec explain TRACE --step N``: why the state at one step of a scheduler trace is what
it is.

The trace (``yarnspec explore --trace-out``) is replayed on the model it names (as ``yarnspec
replay`` does), then step ``N`` is explained (:mod:`yarnspec.checks.explain.step_explanation`): the
step's own note (what a heartbeat, proposal or commit did, or why it was rejected), every
outstanding request and why the scheduler does not allocate it there, and the round the
preemption monitor would run on that state, as ``yarnspec preempt`` explains a snapshot
(ideal, to-preempt, why each queue gives or keeps what it does). For a lasso (a progress
counterexample) one sentence says why its loop never makes progress. Without ``--step``: the
loop's first step of a lasso, else the last step. ``--json`` prints one JSON document.

Exit status 0; a trace that cannot be read or does not replay, a step outside the trace, or a
trace of a model without a cluster is one line naming the file (or ``--step``), exit 2.
"""

from __future__ import annotations

import argparse
import json

from yarnspec.checks.commands.replay import model_of
from yarnspec.checks.explain.step_explanation import explain_step, loop_reason
from yarnspec.checks.explore import Trace, replay
from yarnspec.checks.explore.trace import replay_states
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import shown_name
from yarnspec.spec.scheduler.model import SchedulerModel

SOURCE = "explain"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument(
        "trace", metavar="TRACE", help="a JSON trace of a scheduler scenario (yarnspec explore --trace-out)"
    )
    parser.add_argument(
        "--step", metavar="N", help="the step to explain (default: a lasso's loop start, else the last step)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def run(args: argparse.Namespace) -> int:
    """Load, replay, explain; returns 0 (an :class:`InputError` propagates)."""
    source = shown_name(args.trace)
    trace = Trace.load(args.trace)
    model = model_of(trace, source)
    if not isinstance(model, SchedulerModel):
        raise InputError(
            source, "model", f"explain reads traces of the scheduler model, this one is of {trace.model!r}"
        )
    reproduced = replay(model, trace, source)
    states, actions = replay_states(model, trace, source)
    last = len(states) - 1
    step = _step(args.step, last, trace.loop_start)
    explained = explain_step(model, states, actions, step)
    loop = None if trace.loop_start is None else loop_reason(model, trace.property, states, actions, trace.loop_start)
    if args.json:
        document = {
            "trace": source,
            "reproduced": reproduced,
            "loop_start": trace.loop_start,
            "loop": loop,
        } | explained.to_json()
        print(json.dumps(document, indent=1))
        return 0
    print(f"{source}: {reproduced}")
    if loop is not None:
        print(f"loop (steps {trace.loop_start}..{last}): {loop}")
    print(explained.format())
    return 0


def _step(text: str | None, last: int, loop_start: int | None) -> int:
    """The step asked for (checked against the trace's length), or the default."""
    if text is None:
        return last if loop_start is None else loop_start
    if not text.isdigit() or int(text) > last:
        raise InputError(SOURCE, "--step", f"expected a step from 0 to {last}, got {text!r}")
    return int(text)
