"""The trace viewer: one self-contained HTML file (inline CSS, JavaScript and SVG; no server,
no network) that steps through a trace.

Per step it draws the cluster (each node a bar of its memory, containers coloured by queue and
app, reserved containers hatched with a dashed outline, containers marked for preemption with
a red outline and cross, free space grey), the queues' used memory against their guaranteed
and maximum resources, the action and what changed (:mod:`.diff`); a lasso's loop is marked in
the step list. ``#step=N`` in the address opens step ``N``; arrow keys, the buttons, the slider
and the list move between steps.

The page's data is one JSON document (:func:`viewer_data`) in a ``<script
type="application/json">`` element; ``viewer.js`` and ``viewer.css`` beside this module are
inlined as they are.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from yarnspec.checks.explore.trace import Trace
from yarnspec.checks.render.diff import diff, listing


def viewer_data(trace: Trace, cluster: dict[str, Any] | None, about: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The document the page reads: the trace, per step its changes, the cluster context
    (:func:`yarnspec.checks.render.frames.cluster_frames`) when the model has one, and what
    the trace is about in plain words for the page's head (``about``:
    :class:`yarnspec.checks.explain.trace_about.TraceAbout`'s JSON; the names alone when ``None``)."""
    steps = []
    for index, step in enumerate(trace.steps):
        lines = (
            listing(step.state) if index == 0 else [c.line() for c in diff(trace.steps[index - 1].state, step.state)]
        )
        steps.append({"action": step.action, "state": step.state, "changes": lines})
    return {
        "model": trace.model,
        "parameters": dict(trace.parameters),
        "variant": trace.variant,
        "kind": trace.kind,
        "property": trace.property,
        "message": trace.message,
        "loop_start": trace.loop_start,
        "steps": steps,
        "cluster": cluster,
        "about": dict(about) if about is not None else None,
    }


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON that cannot end its ``<script>`` element early."""
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/").replace("<!--", "<\\!--")


def render_html(trace: Trace, cluster: dict[str, Any] | None, about: Mapping[str, str] | None = None) -> str:
    """The viewer page for ``trace`` as text."""
    title = (
        f"{trace.kind} {trace.property}: {trace.parameters.get('world', trace.model)} ({trace.variant or 'no variant'})"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>yarnspec trace: {html.escape(title)}</title>\n"
        f"<style>\n{_asset('viewer.css')}</style>\n</head>\n<body>\n"
        "<noscript>This trace viewer needs JavaScript.</noscript>\n"
        f'<script type="application/json" id="trace-data">{_script_json(viewer_data(trace, cluster, about))}</script>\n'
        f"<script>\n{_asset('viewer.js')}</script>\n</body>\n</html>\n"
    )


def write_html(trace: Trace, cluster: dict[str, Any] | None, path: str | Path) -> Path:
    """Write the viewer page to ``path``."""
    target = Path(path)
    target.write_text(render_html(trace, cluster), encoding="utf-8")
    return target
