"""The picture options ``yarnspec explore`` and ``yarnspec show`` share (``--html``, ``--dot``,
``--dot-limit``, ``--itf``, ``--full``) and the writing of those files."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from yarnspec.checks.commands.number_options import whole_number_argument
from yarnspec.checks.explore.trace import Trace
from yarnspec.checks.render.dot import DEFAULT_LIMIT, state_graph
from yarnspec.checks.render.frames import cluster_frames
from yarnspec.checks.render.html import render_html
from yarnspec.checks.render.itf import to_itf
from yarnspec.checks.special_files import refuse_special
from yarnspec.impl.errors import InputError
from yarnspec.spec.transition_system import TransitionSystem

#: The most states ``--dot-limit`` draws (Graphviz lays out a few thousand at most).
MAX_DOT_LIMIT = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The shared options."""
    parser.add_argument("--full", action="store_true", help="print every step's whole state under its changes")
    parser.add_argument("--html", metavar="FILE", help="write the trace viewer: one self-contained HTML file")
    parser.add_argument(
        "--dot",
        metavar="FILE",
        help="write the state graph around the counterexample (or from the initial states) as Graphviz DOT",
    )
    parser.add_argument("--dot-limit", metavar="N", help=f"draw at most N states with --dot (default {DEFAULT_LIMIT})")
    parser.add_argument("--itf", metavar="FILE", help="write the trace in the Informal Trace Format (Apalache, Quint)")


def dot_limit(args: argparse.Namespace, source: str) -> int:
    """The ``--dot-limit`` given (checked), or the default."""
    if args.dot_limit is None:
        return DEFAULT_LIMIT
    if args.dot is None:
        raise InputError(source, "--dot-limit", "applies only with --dot FILE")
    return whole_number_argument(str(args.dot_limit), source, "--dot-limit", 1, MAX_DOT_LIMIT)


#: The options naming a file this module writes.
OUTPUTS = ("--html", "--dot", "--itf")


def check_paths(args: argparse.Namespace) -> None:
    """An :class:`InputError` for an output named empty (``--html ''``) or naming a FIFO, a
    device or a folder (:func:`~yarnspec.checks.special_files.refuse_special`): checked before
    any work, so a run cannot end by hanging on its output or by writing nothing silently."""
    for option in OUTPUTS:
        refuse_special(getattr(args, option[2:]), option)


def write_pictures(
    args: argparse.Namespace, trace: Trace | None, model: TransitionSystem[Any, Any], source: str,
    about: Callable[[], Mapping[str, str]] | None = None,
) -> list[str]:  # fmt: skip
    """Write the files asked for; the lines to say on stderr (what was written, or why not).
    ``about`` gives the viewer's head in plain words (called only when it is written)."""
    check_paths(args)
    limit = dot_limit(args, source)
    said: list[str] = []
    writers: list[tuple[str, str | None, Callable[[], str]]] = []
    if trace is not None:
        writers.append(
            (
                "--html",
                args.html,
                lambda: render_html(trace, cluster_frames(model, trace, source), None if about is None else about()),
            )
        )
        writers.append(("--itf", args.itf, lambda: json.dumps(to_itf(trace), indent=1) + "\n"))
    else:
        missing = [path for path in (args.html, args.itf) if path]
        if missing:
            said.append(f"no counterexample, so nothing was written to {', '.join(missing)}")
    graph = None
    if args.dot:
        graph = state_graph(model, trace, limit)
        writers.append(("--dot", args.dot, lambda: graph.text if graph is not None else ""))
    names = {"--html": "trace viewer", "--itf": "ITF trace", "--dot": "state graph"}
    for option, path, text in writers:
        if path is None:
            continue
        refuse_special(path, option)
        try:
            Path(path).write_text(text(), encoding="utf-8")
        except OSError as exc:
            raise InputError(path, option, f"cannot write: {exc.strerror}") from None
        detail = f" ({graph.note(limit)})" if option == "--dot" and graph is not None else ""
        said.append(f"{names[option]} written to {path}{detail}")
    return said
