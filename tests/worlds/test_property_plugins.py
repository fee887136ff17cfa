"""Properties from another project: the ``yarnspec.properties`` entry-point group, the Python
API (:class:`PropertyCatalogue`), and world files that name them; bad plug-ins and unknown
names are one clear line."""

from __future__ import annotations

import json
import sys
import tomllib
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from yarnspec.checks import cli
from yarnspec.checks.suites.scenarios import explore_variant
from yarnspec.checks.worlds import plugins
from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.state import ContainerState, SchedulerState
from yarnspec.impl.scheduler.world import World
from yarnspec.spec.property_catalogue import ProgressProperty
from yarnspec.spec.scheduler.invariants import SchedulerInvariant, SchedulerStep
from yarnspec.spec.scheduler.model import BUILTIN_PROPERTIES
from yarnspec.spec.worlds.world_file import load_world

PROJECT = Path(__file__).resolve().parents[2]
EXAMPLE = PROJECT / "docs" / "examples" / "properties-plugin"
WORLD = EXAMPLE / "world.toml"


def declared_points() -> list[EntryPoint]:
    """The example project's ``yarnspec.properties`` entry points, as its pyproject declares them."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    group = project["entry-points"][plugins.PROPERTIES_GROUP]
    return [EntryPoint(name=name, value=value, group=plugins.PROPERTIES_GROUP) for name, value in group.items()]


def installed(monkeypatch: pytest.MonkeyPatch, points: list[EntryPoint]) -> None:
    """As if a project with these entry points were installed next to yarnspec."""
    monkeypatch.setattr(plugins, "entry_points", lambda group: points if group == plugins.PROPERTIES_GROUP else [])


@pytest.fixture()
def example(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    monkeypatch.delitem(sys.modules, "acme_yarn_properties", raising=False)
    installed(monkeypatch, declared_points())


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_example_project_registers_its_properties(example: None) -> None:
    catalogue = plugins.installed_properties()
    assert list(catalogue.progress) == ["reservation-progress", "guarantee-progress", "am-progress"]
    assert list(catalogue.invariants) == ["one-reservation-per-app"]
    assert catalogue.names()[0] == "invariants"


def test_the_example_world_gets_its_verdicts(example: None, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["check", "--worlds-only", "--world", str(WORLD), "--json"], capsys)
    assert status == 0
    rows = {(v["variant"], v["property"], v["verdict"]) for s in json.loads(out)["suites"] for v in s["variants"]}
    assert rows == {
        ("am-runs", "am-progress", "holds"),
        ("one-reservation", "one-reservation-per-app", "holds"),
        ("reservation-served", "reservation-progress", "violated"),
    }


def test_the_registered_properties_are_the_ones_checked(example: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The explorer's report names the registered progress property with its fairness, and a
    registered invariant is checked besides the catalogue."""
    status, out, _ = run(["explore", "--world", str(WORLD), "--variant", "am-runs"], capsys)
    assert status == 0 and "am-progress (leads-to) under WF(commit, heartbeat@0, heartbeat@1, monitor, propose" in out
    scenario = load_world(WORLD, plugins.installed_properties()).scenario
    model = scenario.model(scenario.variant("one-reservation"))
    assert [i.name for i in model.invariants()][-5:] == [
        "one-reservation-per-app", "allocation-within-queue-max", "allocation-within-user-limit", "activation-within-am-limit",
        "kill-only-after-wait",
    ]  # fmt: skip
    assert model.progress() == []


def _reserved(step: SchedulerStep) -> str | None:
    found = [c.cid for c in step.after.containers if c.state == ContainerState.RESERVED]
    return f"c{found[0]} is reserved" if found else None


def _submitted(world: World, state: SchedulerState) -> bool:
    return any(app is not None for app in state.apps)


def test_properties_given_in_python_can_fail(tmp_path: Path) -> None:
    """The Python API: an invariant seed 003's world breaks (a reservation is made) and a
    progress property whose goal is never reached are both reported violated, each with its
    own counterexample, so a registered property is really evaluated."""
    catalogue = BUILTIN_PROPERTIES.with_properties(
        [
            SchedulerInvariant("never-reserves", "nothing is ever reserved", "a test", _reserved),
            ProgressProperty(
                "never-done", premise=_submitted, goal=lambda world, state: False, fairness=("heartbeat", "tick")
            ),
        ]
    )
    text = WORLD.read_text(encoding="utf-8").split("[[questions]]")[0]
    text += '[[questions]]\nname = "r"\nproperty = "never-reserves"\nexpect = "violated"\n'
    text += '[[questions]]\nname = "d"\nproperty = "never-done"\nexpect = "violated"\n'
    world = tmp_path / "w.toml"
    world.write_text(text, encoding="utf-8")
    scenario = load_world(world, catalogue).scenario
    reserving = explore_variant(scenario, scenario.variant("r"))
    assert reserving.verdict.status == "violated" and reserving.trace is not None
    assert reserving.trace.property == "never-reserves" and reserving.trace.loop_start is None
    assert [c["state"] for c in reserving.trace.steps[-1].state["containers"]].count("RESERVED") == 1
    endless = explore_variant(scenario, scenario.variant("d"))
    assert endless.verdict.status == "violated" and endless.trace is not None and endless.trace.property == "never-done"
    assert endless.trace.loop_start is not None
    (prop,) = scenario.model(scenario.variant("d")).progress()
    assert prop.fair == frozenset({"tick", "heartbeat@0", "heartbeat@1"})


def test_an_unknown_property_is_one_line_naming_the_file_and_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "w.toml"
    world.write_text(WORLD.read_text(encoding="utf-8"), encoding="utf-8")  # without the plug-in installed
    status, out, err = run(["explore", "--world", str(world)], capsys)
    assert status == 2 and out == ""
    assert err == (
        f"yarnspec: error: {world}: questions[0].property: unknown property 'am-progress'; "
        "known: invariants, reservation-progress, guarantee-progress\n"
    )


@pytest.mark.parametrize(
    "value, fault",
    [
        ("no_such_module:properties", "cannot load: ModuleNotFoundError: No module named 'no_such_module'"),
        ("acme_yarn_properties:missing", "cannot load: AttributeError"),
        ("acme_yarn_properties:one_reservation_per_app", "cannot load: TypeError"),
        ("acme_yarn_properties:__doc__", "expected a ProgressProperty or an Invariant, got str"),
    ],
)
def test_a_failing_plugin_is_one_line_naming_the_entry_point(
    value: str, fault: str, example: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed(monkeypatch, [EntryPoint(name="bad", value=value, group=plugins.PROPERTIES_GROUP)])
    status, out, err = run(["explore", "--world", str(WORLD)], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"yarnspec: error: yarnspec.properties: entry point bad = {value}: ") and fault in err, err


def test_a_name_already_taken_is_refused(example: None) -> None:
    clash = ProgressProperty("guarantee-progress", premise=_submitted)
    with pytest.raises(InputError, match="property name 'guarantee-progress' is already taken"):
        BUILTIN_PROPERTIES.with_properties([clash])
    catalogue_name = SchedulerInvariant("node-within-capacity", "again", "a test", _reserved)
    with pytest.raises(InputError, match="'node-within-capacity' is already taken"):
        BUILTIN_PROPERTIES.with_properties([catalogue_name])
    twice = declared_points() * 2
    with pytest.raises(
        InputError,
        match="entry point acme = acme_yarn_properties:properties: property name 'am-progress' is already taken",
    ):
        plugins.installed_properties(twice)
