"""Scenarios from another project through the ``yarnspec.scenarios`` entry-point group."""

from __future__ import annotations

import json
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from yarnspec.checks import cli
from yarnspec.checks.worlds import plugins
from yarnspec.impl.errors import InputError
from yarnspec.spec.worlds.catalogue import SCENARIOS, Scenario

from .test_world_file import SEED003

MODULE = """
from pathlib import Path
from yarnspec.spec.worlds.catalogue import ExploreBounds, Scenario, ScenarioVariant
from yarnspec.spec.worlds.world_builders import reserved_starvation_world

HERE = Path(__file__).parent

def scenarios():
    mine = Scenario(
        name="my-seed003",
        story="seed 003 registered by another project",
        source="a plugin",
        build=reserved_starvation_world,
        variants=(ScenarioVariant("fixed", {"reserve": "yarn-10259"}, "reservation-progress", "vacuous", "YARN-10259: no reservation is made"),),
        bounds=ExploreBounds(),
    )
    return [mine, HERE / "world.toml"]

def broken():
    raise RuntimeError("boom")
"""


@pytest.fixture()
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[EntryPoint]:
    (tmp_path / "my_worlds.py").write_text(MODULE, encoding="utf-8")
    (tmp_path / "world.toml").write_text(SEED003, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "my_worlds", raising=False)
    points = [EntryPoint(name="mine", value="my_worlds:scenarios", group=plugins.GROUP)]
    monkeypatch.setattr(plugins, "entry_points", lambda group: points if group == plugins.GROUP else [])
    return points


def test_entry_points_give_scenarios_and_world_files(plugin: list[EntryPoint], tmp_path: Path) -> None:
    found = plugins.plugin_scenarios()
    assert list(found) == ["my-seed003", f"world:{tmp_path / 'world.toml'}"]
    assert isinstance(found["my-seed003"], Scenario)


def test_explore_lists_and_runs_a_plugin_scenario(
    plugin: list[EntryPoint], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["explore", "--list"]) == 0
    assert "my-seed003  (a plugin)" in capsys.readouterr().out
    trace = tmp_path / "t.json"
    assert cli.main(["explore", "my-seed003", "--variant", "fixed", "--trace-out", str(trace)]) == 0
    assert (
        "verdict: vacuous: the premise never holds in any reachable state (exhaustive), as expected (vacuous)"
        in capsys.readouterr().out
    )
    assert not trace.exists()  # nothing to write: no counterexample


def test_check_plugins_adds_rows(plugin: list[EntryPoint], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = tmp_path / "world.toml"
    assert cli.main(["check", "--worlds-only", "--world", str(world), "--plugins", "--json"]) == 0
    suites = [s["suite"] for s in json.loads(capsys.readouterr().out)["suites"]]
    assert suites == [f"world/{world}", "plugin/my-seed003", f"plugin/world:{world}"]


def test_a_name_taken_or_a_failing_plugin_is_one_clear_error(plugin: list[EntryPoint]) -> None:
    clash = EntryPoint(name="again", value="my_worlds:scenarios", group=plugins.GROUP)
    with pytest.raises(InputError, match="'my-seed003' is already taken"):
        plugins.plugin_scenarios([plugin[0], clash])
    broken = EntryPoint(name="bad", value="my_worlds:broken", group=plugins.GROUP)
    with pytest.raises(InputError, match="RuntimeError: boom") as raised:
        plugins.plugin_scenarios([broken])
    assert str(raised.value).startswith("yarnspec.scenarios: entry point bad = my_worlds:broken")
    missing = EntryPoint(name="gone", value="no_such_module:x", group=plugins.GROUP)
    with pytest.raises(InputError, match="cannot load: ModuleNotFoundError"):
        plugins.plugin_scenarios([missing])


def test_builtin_names_are_not_shadowed() -> None:
    assert set(SCENARIOS).isdisjoint({"my-seed003"})
