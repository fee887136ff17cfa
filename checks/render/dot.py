"""The explored state graph in Graphviz DOT, bounded in size.

With a counterexample the picture is the part of the graph around it: the trace's states (a
lasso's last state is its loop's first, so the loop closes) and the states one step away from
them. Without one it is the graph breadth-first from the initial states. Either way at most
``limit`` states are drawn; :attr:`DotGraph.cut` says when more were left out.

Edges carry action labels (stuttering steps are left out). States that violate an invariant
are filled red, the trace's path is drawn bold and a lasso's loop orange; every state's whole
JSON is its tooltip (``dot -Tsvg`` shows it on hover).
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from yarnspec.checks.explore.trace import Trace, replay_states
from yarnspec.spec.transition_system import TransitionSystem, first_violation

#: The states drawn when no limit is given.
DEFAULT_LIMIT = 200


@dataclass(frozen=True)
class DotGraph:
    """A DOT document: ``states`` drawn, ``cut`` when the graph had more."""

    text: str
    states: int
    edges: int
    cut: bool

    def note(self, limit: int) -> str:
        """One line saying what was drawn and, when cut, how to draw more."""
        drawn = f"{self.states} states, {self.edges} edges"
        if self.cut:
            return f"{drawn}: cut at {limit} states, more are reachable (raise the limit with --dot-limit N)"
        return drawn


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def state_graph(model: TransitionSystem[Any, Any], trace: Trace | None = None, limit: int = DEFAULT_LIMIT) -> DotGraph:
    """The DOT picture of ``model``'s graph (around ``trace`` when given), at most ``limit`` states."""
    path: list[Hashable] = []
    if trace is not None:
        states, _ = replay_states(model, trace, "<trace>")
        path = list(states)
        seeds = list(dict.fromkeys(path))
    else:
        seeds = list(model.initial_states())
    order: dict[Hashable, int] = {}
    cut = False
    for state in seeds:
        if state not in order:
            if len(order) >= limit:
                cut = True
                break
            order[state] = len(order)
    edges: dict[tuple[int, int], list[str]] = {}
    frontier = list(order)
    while frontier:
        expanding, frontier = frontier, []
        for state in expanding:
            for action, target in model.successors(state):
                if target == state:
                    continue
                if target not in order:
                    if len(order) >= limit:
                        cut = True
                        continue
                    order[target] = len(order)
                    if trace is None:
                        frontier.append(target)
                labels = edges.setdefault((order[state], order[target]), [])
                label = model.action_label(action)
                if label not in labels:
                    labels.append(label)
    on_path = {(order[a], order[b]) for a, b in zip(path, path[1:]) if a in order and b in order}
    loop: set[tuple[int, int]] = set()
    if trace is not None and trace.loop_start is not None:
        loop = {
            (order[a], order[b])
            for a, b in zip(path[trace.loop_start :], path[trace.loop_start + 1 :])
            if a in order and b in order
        }
    step_of: dict[int, list[int]] = {}
    for index, state in enumerate(path):
        if state in order:  # a --dot-limit below the trace's length cuts the trace too
            step_of.setdefault(order[state], []).append(index)
    initial = {order[s] for s in model.initial_states() if s in order}
    invariants = model.invariants()
    lines = [
        f"digraph {_quote(model.name)} {{",
        f"  label={_quote(_title(model, trace, cut, limit))};",
        "  labelloc=t; rankdir=LR;",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="sans-serif", fontsize=10];',
        '  edge [fontname="sans-serif", fontsize=9];',
    ]
    for state, number in order.items():
        attributes = [f"tooltip={_quote(json.dumps(model.state_json(state), separators=(',', ':')))}"]
        steps = step_of.get(number)
        text = f"s{number}" + (f"\nstep {', '.join(map(str, steps))}" if steps else "")
        broken = first_violation(invariants, state)
        if broken is not None:
            text += f"\nviolates {broken[0]}"
            attributes.append('fillcolor="#ef9a9a", color="#b71c1c", penwidth=2')
        elif any(key[0] == number or key[1] == number for key in loop):
            attributes.append('fillcolor="#ffe0b2"')
        if number in initial:
            attributes.append("peripheries=2")
        lines.append(f"  s{number} [label={_quote(text)}, {', '.join(attributes)}];")
    for (source, target), labels in edges.items():
        style = ""
        if (source, target) in loop:
            style = ', color="#ef6c00", penwidth=2.5'
        elif (source, target) in on_path:
            style = ", penwidth=2.5"
        lines.append(f"  s{source} -> s{target} [label={_quote(chr(10).join(labels))}{style}];")
    lines.append("}")
    return DotGraph("\n".join(lines) + "\n", len(order), len(edges), cut)


def _title(model: TransitionSystem[Any, Any], trace: Trace | None, cut: bool, limit: int) -> str:
    what = f"{model.name} ({model.variant or 'no variant'}) {json.dumps(dict(model.parameters))}"
    around = f"around the counterexample to {trace.property}" if trace is not None else "from the initial states"
    return f"{what}\n{around}" + (f"\ncut at {limit} states: more are reachable" if cut else "")
