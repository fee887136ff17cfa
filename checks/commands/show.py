"""``yarnspec show TRACE.json``: print a saved trace step by step and draw it.

The trace (``yarnspec explore --trace-out``) is replayed on the model it names (as ``yarnspec
replay`` does: a trace that no longer replays is an error naming the step), then printed with
each step's action and what changed (``--full``: every step's whole state too). ``--html
FILE`` writes the trace viewer, ``--dot FILE`` the state graph around it, ``--itf FILE`` the
trace in the Informal Trace Format; ``--json`` prints one JSON document with the steps and
their changes instead of the text.
"""

from __future__ import annotations

import argparse
import json
import sys

from yarnspec.checks.commands.replay import model_of
from yarnspec.checks.explain.trace_about import about_trace
from yarnspec.checks.explore import Trace, replay
from yarnspec.checks.render import files as render_files
from yarnspec.checks.render.html import viewer_data

SOURCE = "show"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-command's arguments."""
    parser.add_argument("trace", metavar="TRACE", help="a JSON trace written by yarnspec explore --trace-out")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document: the trace with each step's changes"
    )
    render_files.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Load, replay, print and write; returns 0 (an :class:`InputError` propagates)."""
    source = args.trace
    render_files.check_paths(args)
    trace = Trace.load(source)
    model = model_of(trace, source)
    reproduced = replay(model, trace, source)
    for line in render_files.write_pictures(
        args, trace, model, source, lambda: about_trace(trace, model, source).to_json()
    ):
        print(f"show: {line}", file=sys.stderr)
    if args.json:
        document = viewer_data(trace, None)
        del document["cluster"]
        print(json.dumps(document | {"reproduced": reproduced}, indent=1))
    else:
        print(trace.format(args.full))
        print(f"replayed: {reproduced}")
    return 0
