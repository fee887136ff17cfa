"""A registered property whose code raises during the search is one line naming the property,
the depth of the state and the exception, exit 2 (bad input), never a traceback nor exit 1."""

from __future__ import annotations

import sys
from dataclasses import replace
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from tests.explore.test_trace import lasso, lasso_model
from yarnspec.checks import cli
from yarnspec.checks.explore.trace import replay
from yarnspec.checks.worlds import plugins
from yarnspec.spec.property_guard import PropertyRaised, guarded

#: A plug-in whose properties fail once an application has been submitted (depth 1 on).
PLUGIN = '''
from yarnspec.spec.property_catalogue import ProgressProperty
from yarnspec.spec.scheduler.invariants import SchedulerInvariant


def _submitted(state):
    return sum(app is not None for app in state.apps)


def fragile(step):
    """Divides by the number of applications not yet submitted."""
    return None if 1 / (1 - _submitted(step.after)) else None


def premise(world, state):
    if _submitted(state):
        raise KeyError("no such queue")
    return False


def properties():
    return [
        SchedulerInvariant("fragile-invariant", "raises once an app is submitted", "a test", fragile),
        ProgressProperty("fragile-progress", premise=premise),
    ]
'''

WORLD = """
[configuration.properties]
"yarn.scheduler.capacity.root.queues" = "a"
"yarn.scheduler.capacity.root.a.capacity" = 100

[[nodes]]
memory = 2
vcores = 2

[[apps]]
name = "app1"
queue = "a"
am = { memory = 1, vcores = 1 }

[environment]
events = ["submit", "tick"]

[[questions]]
name = "invariant"
property = "fragile-invariant"

[[questions]]
name = "progress"
property = "fragile-progress"
"""


@pytest.fixture()
def fragile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The plug-in installed (its module on the path, its entry point declared) and a world asking about it."""
    (tmp_path / "fragile_props.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "fragile_props", raising=False)
    points = [EntryPoint(name="fragile", value="fragile_props:properties", group=plugins.PROPERTIES_GROUP)]
    monkeypatch.setattr(plugins, "entry_points", lambda group: points if group == plugins.PROPERTIES_GROUP else [])
    world = tmp_path / "world.toml"
    world.write_text(WORLD, encoding="utf-8")
    return world


@pytest.mark.parametrize(
    "question, line",
    [
        (
            "invariant",
            "yarnspec: error: property fragile-invariant: a state at depth 1: raised ZeroDivisionError: division by zero",
        ),
        (
            "progress",
            "yarnspec: error: property fragile-progress: a state at depth 1: raised KeyError: 'no such queue'",
        ),
    ],
)
def test_a_property_that_raises_is_one_line_exit_2(
    fragile: Path, question: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = cli.main(["explore", "--world", str(fragile), "--variant", question])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == "" and captured.err == line + "\n"


def test_check_stops_at_it_the_same_way(fragile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["check", "--worlds-only", "--world", str(fragile)])
    captured = capsys.readouterr()
    assert status == 2 and "Traceback" not in captured.err
    assert captured.err.strip().splitlines()[-1].startswith("yarnspec: error: property fragile-")


def test_a_raising_goal_in_a_replayed_lasso_names_the_step() -> None:
    model = lasso_model()
    (prop,) = model.progress()

    def goal(state: object) -> bool:
        if state == 3:
            raise ValueError("state 3 is odd")
        return bool(prop.goal(state))

    broken = replace(prop, goal=guarded("granted", goal))
    model.progress = lambda: [broken]  # type: ignore[method-assign]
    trace = lasso()
    with pytest.raises(PropertyRaised) as caught:
        replay(model, trace)
    step = next(i for i, s in enumerate(trace.steps) if s.state == 3)
    assert str(caught.value) == f"property granted: steps[{step}]: raised ValueError: state 3 is odd"
