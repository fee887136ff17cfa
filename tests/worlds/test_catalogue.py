"""The built-in scenarios are world files shipped in the package: one catalogue, listed with
where each comes from, printed to be copied, and a copy explores exactly like the built-in."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from yarnspec.checks import cli
from yarnspec.checks.shipped_schemas import SCHEMAS, schema_text
from yarnspec.checks.suites.scenarios import explore_variant
from yarnspec.checks.worlds.world_arguments import load_world
from yarnspec.spec.json_schema import schema_validator, validate_document
from yarnspec.spec.worlds.catalogue import BUILT_IN, MODEL_WORLDS, SCENARIOS, WORLD_FILES, builtin_world_path
from yarnspec.spec.worlds.world_file import read_toml, world_schema_text


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_every_shipped_world_file_is_in_the_catalogue() -> None:
    shipped = sorted(
        p.name for p in resources.files("yarnspec.spec").joinpath("worlds").iterdir() if p.name.endswith(".toml")
    )
    assert shipped == sorted(f"{name}.toml" for name in (*BUILT_IN, *MODEL_WORLDS))
    assert list(SCENARIOS) == list(BUILT_IN) and list(WORLD_FILES) == [*BUILT_IN, *MODEL_WORLDS]
    for name, scenario in SCENARIOS.items():
        assert (
            scenario.world_file == str(builtin_world_path(name))
            and scenario.origin == f"yarnspec/spec/worlds/{name}.toml"
        )


@pytest.mark.parametrize("name", [*BUILT_IN, *MODEL_WORLDS])
def test_every_shipped_world_file_conforms_to_the_schema(name: str) -> None:
    """The loader skips this check for the shipped worlds at every start; here it is made once."""
    path = builtin_world_path(name)
    validate_document(read_toml(str(path)), schema_validator(world_schema_text()), str(path))


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_shipped_schemas_are_valid_schemas(name: str) -> None:
    """The world file's reader skips this check at every start; here it is made once."""
    assert schema_validator(schema_text(name), check=True) is not None


def test_list_says_where_each_scenario_comes_from(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["explore", "--list"], capsys)
    assert status == 0
    assert [line.strip() for line in out.splitlines() if line.startswith("  from: ")] == [
        f"from: yarnspec/spec/worlds/{name}.toml" for name in BUILT_IN
    ]


@pytest.mark.parametrize(
    "name, variant", [("big-container-livelock", "pre-4280"), ("reserved-starvation", "reserved-pickup-one-container")]
)
def test_a_printed_copy_explores_like_the_built_in(
    name: str, variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["explore", name, "--print-world"], capsys)
    assert status == 0 and err == "" and out == builtin_world_path(name).read_text(encoding="utf-8")
    copy = tmp_path / "mine.toml"
    copy.write_text(out, encoding="utf-8")
    mine = load_world(copy).scenario
    built_in = SCENARIOS[name]
    assert mine.name == f"world:{copy}" and [v.name for v in mine.variants] == [v.name for v in built_in.variants]
    assert [(v.expected, v.evidence, v.property) for v in mine.variants] == [
        (v.expected, v.evidence, v.property) for v in built_in.variants
    ]
    assert (mine.bounds, mine.fast, mine.setup, mine.quiet) == (
        built_in.bounds,
        built_in.fast,
        built_in.setup,
        built_in.quiet,
    )
    theirs = explore_variant(built_in, built_in.variant(variant), built_in.fast)
    ours = explore_variant(mine, mine.variant(variant), mine.fast)
    assert (ours.distinct_states, ours.transitions, ours.verdict.status) == (
        theirs.distinct_states,
        theirs.transitions,
        theirs.verdict.status,
    )


def test_an_edited_copy_changes_the_world(tmp_path: Path) -> None:
    """Editing the copy is what users do: one more container id turns the holding variant of
    reserved-starvation into a starving one (the second container makes n1 the busier node)."""
    text = builtin_world_path("reserved-starvation").read_text(encoding="utf-8")
    edited = text.replace("bounds = { max_containers = 2 }", "bounds = { max_containers = 3 }")
    assert edited != text
    copy = tmp_path / "edited.toml"
    copy.write_text(edited, encoding="utf-8")
    scenario = load_world(copy).scenario
    variant = scenario.variant("reserved-pickup-one-container")
    assert scenario.world(variant).bounds.max_containers == 3
    assert explore_variant(scenario, variant).verdict.status == "violated"


def test_print_world_of_a_python_scenario_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dataclasses import replace

    from yarnspec.checks.worlds import plugins

    python_written = replace(
        SCENARIOS["no-leak"], name="in-python", world_file=None, origin="entry point mine = my:scenarios"
    )
    monkeypatch.setattr(plugins, "plugin_scenarios", lambda *a, **k: {"in-python": python_written})
    status, out, err = run(["explore", "in-python", "--print-world"], capsys)
    assert status == 2 and out == ""
    assert (
        err
        == "yarnspec: error: explore: --print-world: scenario in-python is written in Python (entry point mine = my:scenarios)\n"
    )
    status, _, err = run(["explore", "no-leak", "--print-world", "--variant", "x"], capsys)
    assert status == 2 and "--variant: does not apply to --print-world" in err


@pytest.mark.parametrize("name", MODEL_WORLDS)
def test_the_model_worlds_files_answer_their_question(name: str) -> None:
    """seed002.toml and two-queues.toml are not scenarios of ``check``; their one question
    (every invariant holds, within their default bounds) is asked here, under every variant."""
    scenario = load_world(builtin_world_path(name)).scenario
    assert [v.property for v in scenario.variants] == ["invariants"] * len(scenario.variants)
    for variant in scenario.variants:
        outcome = explore_variant(scenario, variant)
        assert outcome.agree and outcome.verdict.status == "not-refuted", outcome.judgement()
        assert outcome.verdict.text.startswith(
            f"not refuted: the depth limit cut the search at depth {scenario.bounds.max_depth}, "
        )
