"""A trace for the terminal: per step the action and only what changed (:mod:`.diff`), the
full state a flag away, and a lasso's loop marked."""

from __future__ import annotations

from yarnspec.checks.explore.trace import Trace
from yarnspec.checks.render.diff import compact, diff, listing

#: The marker in front of the steps that repeat for ever.
LOOP_MARK = "|"


def format_trace(trace: Trace, full: bool = False) -> str:
    """The trace as text: a head line, then per step its number, action and changes (the
    initial state listed whole); with ``full`` each step's whole state too."""
    lines = [f"counterexample: {trace.kind} {trace.property} violated: {trace.message}"]
    last = len(trace.steps) - 1
    loops = trace.loop_start is not None and trace.loop_start < last
    for index, step in enumerate(trace.steps):
        in_loop = loops and trace.loop_start is not None and index >= trace.loop_start
        mark = LOOP_MARK if in_loop else " "
        note = "  <- loop starts here" if loops and index == trace.loop_start else ""
        lines.append(f"  {index:>3} {mark} {step.action or '(initial state)'}{note}")
        if index == 0:
            body = listing(step.state)
        else:
            body = [change.line() for change in diff(trace.steps[index - 1].state, step.state)] or ["(no change)"]
        lines += [f"      {mark}   {text}" for text in body]
        if full and index > 0:
            lines.append(f"      {mark}   state: {compact(step.state)}")
    if trace.loop_start is not None:
        lines.append(_loop_line(trace.loop_start, last))
    return "\n".join(lines)


def _loop_line(start: int, last: int) -> str:
    if start == last:
        return f"  then stutters for ever at step {start}"
    return f"  then back to step {start}: steps {start + 1}..{last} repeat for ever"
