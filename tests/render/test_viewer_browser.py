"""The trace viewer in a real browser: headless Chromium (the Debian package; the README's test
command installs it) loads the HTML file written by ``yarnspec show --html`` and the test reads
the rendered page through the DevTools protocol (:mod:`tests.browser`): every part is drawn,
the buttons, keys, slider, list and address move between steps and redraw them, a lasso's
loop is marked, and the page logs no error and asks the network for nothing.

The screenshot in docs/viewer.png is made here: ``.venv/bin/python
tests/render/test_viewer_browser.py --screenshot`` refreshes it.
"""

from __future__ import annotations

import contextlib
import io
import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
if str(PROJECT_ROOT) not in sys.path:  # run as a script for --screenshot
    sys.path.insert(0, str(PROJECT_ROOT))

from tests.browser import Browser  # noqa: E402
from yarnspec.checks.cli import main  # noqa: E402
from yarnspec.checks.explore import Trace, explore  # noqa: E402
from yarnspec.checks.explore.toy import ToyModel  # noqa: E402
from yarnspec.checks.render.diff import diff, listing  # noqa: E402
from yarnspec.spec.worlds.catalogue import SCENARIOS  # noqa: E402

#: The screenshot the docs show, and the step it shows (the reservation on n0).
SCREENSHOT = PROJECT_ROOT / "docs" / "viewer.png"
SCREENSHOT_STEP = 11
LIVE = ("ALLOCATED", "RUNNING")


def write_viewer(folder: Path) -> tuple[Trace, Path]:
    """The big-container-reserved lasso (reservation, marks and a loop) and its viewer page,
    written by the real command."""
    trace_path, page = folder / "reserved.json", folder / "reserved.html"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["explore", "big-container-reserved", "--variant", "default", "--trace-out", str(trace_path)]) == 0
        assert main(["show", str(trace_path), "--html", str(page)]) == 0
    return Trace.load(trace_path), page


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Trace, Browser]]:
    trace, page = write_viewer(tmp_path_factory.mktemp("viewer"))
    with Browser() as browser:
        browser.open(page.as_uri())
        yield trace, browser


def text(browser: Browser, selector: str) -> str:
    value = browser.evaluate(f"document.querySelector({selector!r}).textContent")
    assert isinstance(value, str)
    return value


def count(browser: Browser, selector: str) -> int:
    value = browser.evaluate(f"document.querySelectorAll({selector!r}).length")
    assert isinstance(value, int)
    return value


def changes_shown(browser: Browser) -> list[str]:
    value = browser.evaluate("[...document.querySelectorAll('#changes li')].map(li => li.textContent)")
    assert isinstance(value, list)
    return value


def expected_changes(trace: Trace, step: int) -> list[str]:
    if step == 0:
        return listing(trace.steps[0].state)
    return [c.line() for c in diff(trace.steps[step - 1].state, trace.steps[step].state)] or ["(no change)"]


def containers(state: Any, kind: str) -> int:
    return sum(1 for c in state["containers"] if (c["state"] in LIVE if kind == "live" else c["state"] == kind))


def assert_shows(trace: Trace, browser: Browser, step: int) -> None:
    """The page shows ``step``: label, action, list selection, address, drawing and changes."""
    state = trace.steps[step].state
    last = len(trace.steps) - 1
    assert text(browser, "#step-label") == f"step {step} of {last}"
    assert text(browser, "#action") == f"{step}: {trace.steps[step].action or '(initial state)'}"
    assert browser.evaluate("document.querySelector('#steps li.current').dataset.step") == str(step)
    assert browser.evaluate("location.hash") == f"#step={step}"
    assert browser.evaluate("Number(document.getElementById('slider').value)") == step
    assert count(browser, "#cluster g.node") == len(state["nodes"])
    assert count(browser, "#cluster g.container:not(.reserved)") == containers(state, "live")
    assert count(browser, "#cluster g.container.reserved") == containers(state, "RESERVED")
    assert count(browser, "#cluster g.container.marked") == len(state["marks"])
    assert count(browser, "#queues g.queue") == len(state["queues"])
    assert changes_shown(browser) == expected_changes(trace, step)


def test_the_page_draws_every_part(viewer: tuple[Trace, Browser]) -> None:
    trace, browser = viewer
    browser.evaluate("location.hash = '#step=0'")
    assert_shows(trace, browser, 0)
    assert trace.property in text(browser, "header h1")
    assert count(browser, "#steps li") == len(trace.steps)
    assert trace.loop_start is not None
    assert count(browser, "#steps li.loop") == len(trace.steps) - trace.loop_start
    assert browser.evaluate("document.querySelector('#steps li.loop-start').dataset.step") == str(trace.loop_start)
    assert count(browser, "#legend span") == 3  # two apps and the key to the marks
    # the queues' guaranteed and maximum are drawn: a tick each per queue
    assert count(browser, "#queues line.guaranteed") == count(browser, "#queues line.maximum") == 3


def test_the_header_says_the_property_the_why_and_the_outcome(viewer: tuple[Trace, Browser]) -> None:
    trace, browser = viewer
    scenario = SCENARIOS["big-container-reserved"]
    description = next(p.description for p in scenario.model(scenario.variant("default")).progress())
    assert text(browser, "header h1") == f"guarantee-progress: {description}"
    assert text(browser, "#why") == f"Why it is asked: {scenario.variant('default').evidence}"
    assert text(browser, "#outcome").startswith(f"violated: after {trace.loop_start} steps, steps {trace.loop_start}..")
    assert text(browser, "#loop-reason").startswith(
        "The loop never makes progress because app_B's <2048, 2> request in root.B waits"
    )
    # the fairness details are folded below, not in the head's sentences
    assert browser.evaluate("document.querySelector('#detail #message').textContent") == trace.message
    assert browser.evaluate("document.getElementById('detail').open") is False
    assert "fair because" not in text(browser, "#outcome") + text(browser, "#loop-reason")


#: Sibling queues under one parent, one with a name too long for the column.
LONG_NAMES = """
name = "analytics"

[configuration.properties]
"yarn.scheduler.capacity.root.queues" = "analytics"
"yarn.scheduler.capacity.root.analytics.capacity" = 100
"yarn.scheduler.capacity.root.analytics.queues" = "adhoc,ml,interactive-dashboards-for-the-finance-team"
"yarn.scheduler.capacity.root.analytics.adhoc.capacity" = 100
"yarn.scheduler.capacity.root.analytics.ml.capacity" = 0
"yarn.scheduler.capacity.root.analytics.interactive-dashboards-for-the-finance-team.capacity" = 0

[scheduler]
async = true
multi_node = true

[[nodes]]
memory = 4
vcores = 4

[[nodes]]
memory = 8
vcores = 8

[[apps]]
name = "app1"
queue = "adhoc"
am = { memory = 1, vcores = 1 }
requests = [{ priority = 1, memory = 4, vcores = 1 }]

[environment]
events = ["submit", "ask", "complete", "release", "cancel", "finish-app", "tick"]

[bounds]
max_clock_ms = 1000
max_proposals = 2
max_ask = 1
max_containers = 4

[[questions]]
property = "reservation-progress"
expect = "violated"
why = "the adhoc queue's reservation must eventually be served"
"""


def test_queue_paths_are_whole_or_cut_from_the_left_with_a_tooltip(tmp_path: Path) -> None:
    world, page = tmp_path / "analytics.toml", tmp_path / "analytics.html"
    world.write_text(LONG_NAMES, encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["explore", "--world", str(world), "--html", str(page)]) == 0
    with Browser() as browser:
        browser.open(page.as_uri() + "#step=3")
        rows = browser.evaluate(
            "[...document.querySelectorAll('#queues g.queue')].map(g => { const t = g.querySelector('text.label'), b = t.getBBox();"
            " return [g.dataset.queue, t.textContent, g.querySelector('title').textContent, b.x + b.width, g.querySelector('rect').x.baseVal.value]; })"
        )
        assert browser.errors() == []
    assert isinstance(rows, list)
    paths = [row[0] for row in rows]
    assert paths == [
        "root",
        "root.analytics",
        "root.analytics.adhoc",
        "root.analytics.ml",
        "root.analytics.interactive-dashboards-for-the-finance-team",
    ]
    shown = {row[0]: row[1] for row in rows}
    assert shown["root.analytics.adhoc"] == "root.analytics.adhoc" and shown["root.analytics.ml"] == "root.analytics.ml"
    long = shown["root.analytics.interactive-dashboards-for-the-finance-team"]
    assert (
        long.startswith("\u2026")
        and "root.analytics.interactive-dashboards-for-the-finance-team".endswith(long[1:])
        and len(long) > 10
    )
    for path, _label, title, right, bar in rows:
        assert title == path  # the full path is the row's tooltip
        assert right <= bar  # the name never runs under the bar
    assert len(set(shown.values())) == len(rows)  # siblings stay apart


def test_every_control_moves_between_steps(viewer: tuple[Trace, Browser]) -> None:
    trace, browser = viewer
    last = len(trace.steps) - 1
    browser.evaluate("location.hash = '#step=0'")
    browser.evaluate("document.getElementById('next').click()")
    assert_shows(trace, browser, 1)
    browser.press("ArrowRight")
    assert_shows(trace, browser, 2)
    browser.press("ArrowLeft")
    assert_shows(trace, browser, 1)
    browser.evaluate(
        "(s => { s.value = '11'; s.dispatchEvent(new Event('input')); })(document.getElementById('slider'))"
    )
    assert_shows(trace, browser, 11)
    assert count(browser, "#cluster g.container.reserved") == 1  # the borrower's reservation on n0
    browser.evaluate("document.querySelector('#steps li[data-step=\"9\"]').click()")
    assert_shows(trace, browser, 9)
    assert count(browser, "#cluster g.container.marked") == 2  # the lender's containers marked
    browser.evaluate("document.getElementById('prev').click()")
    assert_shows(trace, browser, 8)
    browser.evaluate(f"location.hash = '#step={last}'")
    assert_shows(trace, browser, last)
    assert "returns to step" in text(browser, "#loop-note")
    browser.evaluate("document.getElementById('next').click()")  # a lasso goes round its loop
    assert_shows(trace, browser, trace.loop_start or 0)


def test_no_console_error_and_no_network(viewer: tuple[Trace, Browser]) -> None:
    _, browser = viewer
    assert browser.errors() == []
    assert all(url.startswith("file://") for url in browser.requests())
    assert browser.evaluate("document.querySelectorAll('[src], link[href]').length") == 0


def test_a_model_without_a_cluster_shows_its_states(tmp_path: Path) -> None:
    violation = explore(ToyModel(2, 3, 2, variant="broken-release"), check_progress=False).violation
    assert violation is not None
    trace_path, page = tmp_path / "toy.json", tmp_path / "toy.html"
    violation.save(trace_path)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["show", str(trace_path), "--html", str(page)]) == 0
    with Browser() as browser:
        browser.open(page.as_uri() + "#step=3")
        assert "has no cluster to draw" in text(browser, "#no-cluster")
        assert changes_shown(browser) == expected_changes(violation, 3) == ["n0: holders -a0"]
        assert count(browser, "#cluster") == 0
        assert browser.errors() == []


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def take_screenshot(target: Path, folder: Path) -> Path:
    """The viewer at the reservation step, as the docs show it."""
    _, page = write_viewer(folder)
    with Browser(width=1280, height=720) as browser:
        browser.open(f"{page.as_uri()}#step={SCREENSHOT_STEP}")
        assert browser.errors() == []
        return browser.screenshot(target)


def test_the_screenshot_is_made_by_this_test(tmp_path: Path) -> None:
    width, height = png_size(take_screenshot(tmp_path / "viewer.png", tmp_path))
    assert width == 1280 and height >= 600
    assert png_size(SCREENSHOT)[0] == 1280  # the docs' copy was made the same way


if __name__ == "__main__" and "--screenshot" in sys.argv:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        print(take_screenshot(SCREENSHOT, Path(scratch)))
