"""``yarnspec explore`` and ``yarnspec replay``: listing, the ``--json`` document, exit
statuses, trace out -> replay round trips, emitted regression tests, and every error path as
one line naming the argument or file (run through :mod:`tests.scenarios.harness`, wired as
``checks/cli.py`` wires sub-commands)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.scenarios.harness import build_parser, run
from yarnspec.checks.explore import Trace, explore
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.spec.worlds.catalogue import SCENARIOS, ExploreBounds

HARNESS = Path(__file__).with_name("harness.py")
PROJECT_ROOT = Path(__file__).resolve().parents[2]
# the cheapest runs: a safety violation (about 1.5 s) and a progress lasso within 14 steps
SAFETY = ("async-double-commit", "--variant", "pre-8127")
LASSO = ("reserved-starvation", "--variant", "reserved-pickup", "--max-depth", "14")


@pytest.fixture(scope="module")
def leak(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, str, Path, Path]:
    """One exploration of the leak for the whole module: ``--json``, the trace and the test
    written; the exit status, stdout, stderr and the two files."""
    folder = tmp_path_factory.mktemp("leak")
    trace, test = folder / "leak.json", folder / "test_leak.py"
    status, out, err = run("explore", *SAFETY, "--json", "--trace-out", str(trace), "--emit-test", str(test))
    return status, out, err, trace, test


def error_line(status: int, out: str, err: str) -> str:
    """The single error line of a failed run (and nothing on stdout)."""
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("yarnspec: error: ")
    return lines[0]


# -- listing --------------------------------------------------------------------------------


def test_list_shows_every_scenario_variant_property_and_expected_verdict() -> None:
    status, out, _ = run("explore", "--list")
    assert status == 0
    for scenario in SCENARIOS.values():
        assert f"{scenario.name}  ({scenario.source})" in out
        for variant in scenario.variants:
            line = next(
                line for line in out.splitlines() if line.split()[:1] == [variant.name] and variant.evidence in line
            )
            assert variant.property in line and f"expected {variant.expected}" in line


def test_list_json_is_the_catalogue() -> None:
    status, out, _ = run("explore", "--list", "--json", "reserved-starvation")
    document = json.loads(out)
    assert status == 0 and [s["name"] for s in document["scenarios"]] == ["reserved-starvation"]
    variants = {v["name"]: v["expected"] for v in document["scenarios"][0]["variants"]}
    assert variants["reserved-pickup"] == "violated" and variants["yarn-8127+yarn-10259"] == "vacuous"
    assert variants["reserved-pickup-one-container"] == "not-refuted"


# -- exploring ------------------------------------------------------------------------------


def test_json_document_of_a_violation(leak: tuple[int, str, str, Path, Path]) -> None:
    status, out, _, _, _ = leak
    document = json.loads(out)
    assert status == 0
    for key in (
        "verdict",
        "property",
        "distinct_states",
        "transitions",
        "depth",
        "seconds",
        "trace",
        "expected",
        "agrees",
    ):
        assert key in document
    assert document["verdict"] == "violated" and document["agrees"] is True
    assert document["property"] == "invariants" and document["expected"] == "violated"
    assert document["distinct_states"] > 0 and document["transitions"] >= document["distinct_states"] - 1
    assert document["bounds"] == {"max_depth": None, "max_states": None, "symmetry": True}
    trace = Trace.from_json(document["trace"])
    assert trace.property == "node-used-is-sum-of-containers"
    assert document["depth"] == len(trace.steps) - 1  # breadth first: the trace is as deep as the search went


def test_text_report_of_a_lasso_and_the_judgement() -> None:
    status, out, _ = run("explore", *LASSO)
    assert status == 0
    assert out.startswith("scenario reserved-starvation, variant reserved-pickup (seed 003;")
    assert "reservation-progress (leads-to) under WF(" in out
    assert "counterexample: progress reservation-progress violated" in out and "then back to step" in out
    assert out.rstrip().endswith("verdict: violated, as expected (violated)")


def test_a_search_cut_short_of_the_expected_violation_exits_3() -> None:
    status, out, _ = run("explore", *SAFETY, "--max-depth", "4", "--json")
    document = json.loads(out)
    assert status == 3 and document["agrees"] is False and document["verdict"] == "not-refuted"
    assert document["limit"] == {"kind": "depth", "depth": 4, "states": document["distinct_states"]}
    assert document["exit_status"] == 3
    assert document["trace"] is None and document["bounds"]["max_depth"] == 4
    # accepting not-refuted is for an expected holds, never for an expected violation
    status, _, _ = run("explore", *SAFETY, "--max-depth", "4", "--accept", "not-refuted")
    assert status == 3


def test_no_symmetry_is_passed_on() -> None:
    _, out, _ = run("explore", *SAFETY, "--no-symmetry", "--max-states", "50", "--json")
    document = json.loads(out)
    assert document["bounds"] == {"max_depth": None, "max_states": 50, "symmetry": False}
    assert document["distinct_states"] == 50


def test_exhaustive_drops_the_default_depth_bound_and_keeps_symmetry() -> None:
    from yarnspec.checks.commands.explore import _bounds

    scenario = SCENARIOS["no-leak"]
    assert scenario.bounds.max_depth is not None  # bounded by default
    parse = build_parser().parse_args
    assert _bounds(scenario, parse(["explore", "no-leak", "--exhaustive"])) == ExploreBounds(None, None, True)
    assert _bounds(scenario, parse(["explore", "no-leak", "--exhaustive", "--no-symmetry"])) == ExploreBounds(
        None, None, False
    )


def test_simulation_is_seeded_and_a_miss_is_not_a_pass() -> None:
    """Uniform random walks rarely reach the double commit (most walks finish the app early):
    finding nothing is reported as not refuted (by the walks), which does not agree with the
    expected violation."""
    args = ("explore", *SAFETY, "--simulate", "--seed", "3", "--walks", "50", "--steps", "30", "--json")
    (status, out, _), (_, again, _) = run(*args), run(*args)
    first, second = json.loads(out), json.loads(again)
    assert first.pop("seconds") >= 0 and second.pop("seconds") >= 0
    assert first == second
    assert (
        status == 3 and first["mode"] == "simulate" and first["verdict"] == "not-refuted" and first["agrees"] is False
    )
    assert first["limit"]["kind"] == "walks"
    assert first["verdict_text"] == "not refuted: no violation in 50 walks of up to 30 steps (simulation, seed 3)"
    assert first["depth"] is None and first["simulation"] == {"seed": 3, "walks": 50, "max_steps": 30}
    assert first["transitions"] == 50 * 30 and first["trace"] is None


def test_simulating_a_progress_scenario_says_the_property_is_not_checked() -> None:
    status, out, _ = run("explore", "reserved-starvation", "--simulate", "--walks", "5", "--steps", "20")
    assert status == 3  # random walks that find nothing do not show that the invariants hold
    assert "property invariants, expected holds" in out and out.rstrip().endswith("MISMATCH")
    assert "note: reservation-progress not checked: a simulation checks the invariants only" in out
    status, out, _ = run(
        "explore", "reserved-starvation", "--simulate", "--walks", "5", "--steps", "20", "--accept", "not-refuted"
    )
    assert status == 0 and out.rstrip().endswith("holds was expected, not-refuted accepted (--accept)")


# -- traces: out, replay, emitted tests -----------------------------------------------------


def test_trace_out_replays(tmp_path: Path, leak: tuple[int, str, str, Path, Path]) -> None:
    _, _, err, leak_path, _ = leak
    assert f"trace written to {leak_path}" in err
    lasso_path = tmp_path / "lasso.json"
    status, _, err = run("explore", *LASSO, "--trace-out", str(lasso_path))
    assert status == 0 and f"trace written to {lasso_path}" in err
    for path in (leak_path, lasso_path):
        replays(path)


def replays(path: Path) -> None:
    """``yarnspec replay`` reproduces the trace at ``path``, in text and in JSON."""
    status, out, _ = run("replay", str(path))
    assert status == 0
    kind = Trace.load(path).kind
    assert out.splitlines()[-1].startswith(f"replayed {len(Trace.load(path).steps) - 1} steps of {path}: {kind} ")
    status, out, _ = run("replay", str(path), "--json")
    assert json.loads(out)["replayed"] is True


def test_emitted_test_replays_and_catches_a_changed_behaviour(leak: tuple[int, str, str, Path, Path]) -> None:
    status, _, err, _, target = leak
    assert status == 0 and f"regression test written to {target}" in err
    spec = importlib.util.spec_from_file_location("emitted_leak", target)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    test = next(
        getattr(module, name) for name in dir(module) if name == "test_buggy_variant_still_shows_the_counterexample"
    )
    test()  # passes: the model still leaks under pre-8127
    module.TRACE["parameters"]["world"] = "async-double-commit/yarn-8127"
    module.TRACE["variant"] = "async/single-node/yarn-8127"
    with pytest.raises(Exception, match=r"steps\[20\]"):
        test()  # under the fix the second commit is refused: the recorded step no longer happens


def test_no_counterexample_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    status, _, err = run(
        "explore", "reserved-starvation", "--variant", "reserved-pickup-one-container", "--trace-out", str(path)
    )
    assert status == 0 and not path.exists() and "no counterexample" in err


def test_replay_of_a_toy_trace(tmp_path: Path) -> None:
    result = explore(ToyModel(2, 3, 2, variant="broken-release"), check_progress=False)
    assert result.violation is not None
    path = result.violation.save(tmp_path / "toy.json")
    status, out, _ = run("replay", str(path))
    assert status == 0 and "invariant used-matches-holders violated at step 3" in out


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "explore: SCENARIO: name a scenario to explore (or give --list); known: async-double-commit"),
        (("nope",), "explore: SCENARIO: unknown scenario 'nope'; known: async-double-commit"),
        (("--list", "nope"), "explore: SCENARIO: unknown scenario 'nope'"),
        (
            ("async-double-commit", "--variant", "x"),
            "explore: --variant: scenario async-double-commit has no variant 'x'",
        ),
        (("async-double-commit", "--max-depth", "-1"), "explore: --max-depth: expected a whole number >= 0, got -1"),
        (("async-double-commit", "--max-depth", "deep"), "explore: --max-depth: expected a whole number, got 'deep'"),
        (("async-double-commit", "--max-states", "0"), "explore: --max-states: expected a whole number >= 1, got 0"),
        (
            ("async-double-commit", "--simulate", "--walks", "0"),
            "explore: --walks: expected a whole number >= 1, got 0",
        ),
        (("async-double-commit", "--simulate", "--seed", "x"), "explore: --seed: expected a whole number, got 'x'"),
        (("async-double-commit", "--seed", "3"), "explore: --seed: applies only with --simulate"),
        (
            ("async-double-commit", "--simulate", "--max-depth", "3"),
            "explore: --max-depth: does not apply to --simulate",
        ),
        (("--list", "--variant", "pre-8127"), "explore: --variant: does not apply to --list"),
        (("no-leak", "--exhaustive", "--max-depth", "3"), "explore: --max-depth: does not apply to --exhaustive"),
        (("no-leak", "--exhaustive", "--simulate"), "explore: --exhaustive: does not apply to --simulate"),
    ],
)
def test_explore_errors_are_one_line(args: tuple[str, ...], message: str) -> None:
    assert message in error_line(*run("explore", *args))


def test_an_unwritable_trace_file_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "missing-folder" / "t.json"
    line = error_line(*run("explore", *LASSO, "--trace-out", str(target)))
    assert line == f"yarnspec: error: {target}: --trace-out: cannot write: No such file or directory"


@pytest.fixture(scope="module")
def recorded(leak: tuple[int, str, str, Path, Path]) -> dict[str, object]:
    data: dict[str, object] = json.loads(leak[3].read_text())
    return data


def tampered(tmp_path: Path, data: dict[str, object], change: str) -> Path:
    copy = json.loads(json.dumps(data))
    exec(change, {"d": copy})  # a one-line edit of the document, as a user's editor would make
    path = tmp_path / "t.json"
    path.write_text(json.dumps(copy))
    return path


@pytest.mark.parametrize(
    "change, place, fault",
    [
        ("d['steps'][5]['state']['clock'] = 7", "steps[5].state", "not to the recorded state"),
        ("d['steps'][3]['action'] = 'launch(c9)'", "steps[3].action", "launch(c9) is not enabled after step 2"),
        ("d['steps'] = d['steps'][:-1]", "steps[19]", "holds here: the violation does not reproduce"),
        ("d['steps'][0]['state']['clock'] = 5", "steps[0].state", "not an initial state of the model"),
        ("d['parameters']['world'] = 'nothing/x'", "parameters.world", "unknown scenario 'nothing'"),
        ("d['parameters']['world'] = 'async-double-commit/yarn-8127'", "variant", "the trace is for"),
        ("del d['parameters']['world']", "parameters.world", "missing"),
        ("d['parameters']['max_ask'] = 3", "parameters", "the trace is for"),
        ("d['model'] = 'other'", "model", "unknown model 'other'; known: capacity-scheduler, toy-allocate-release"),
        ("d['property'] = 'no-such'", "property", "no invariant named 'no-such'"),
        ("d['steps'][2]['action'] = 3", "steps[2].action", "must be an action label"),
        ("d['kind'] = 'progress'", "loop_start", "a progress trace has a loop_start"),
    ],
)
def test_a_tampered_trace_is_one_line_naming_the_place(
    tmp_path: Path, recorded: dict[str, object], change: str, place: str, fault: str
) -> None:
    path = tampered(tmp_path, recorded, change)
    line = error_line(*run("replay", str(path)))
    assert line.startswith(f"yarnspec: error: {path}: {place}: ") and fault in line


def number_places(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """The paths to every number in a JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [path]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    return [found for key, item in items for found in number_places(item, (*path, key))]


@settings(max_examples=30)
@given(data=st.data())
def test_any_edited_number_is_caught_at_its_step(
    tmp_path_factory: pytest.TempPathFactory, recorded: dict[str, object], data: st.DataObject
) -> None:
    document = json.loads(json.dumps(recorded))
    steps = document["steps"]
    index = data.draw(st.integers(0, len(steps) - 1), label="step")
    places = number_places(steps[index]["state"])
    place = data.draw(st.sampled_from(places), label="number")
    holder = steps[index]["state"]
    for key in place[:-1]:
        holder = holder[key]
    holder[place[-1]] += data.draw(st.sampled_from([-1, 1, 1024]), label="delta")
    path = tmp_path_factory.mktemp("edited") / "t.json"
    path.write_text(json.dumps(document))
    line = error_line(*run("replay", str(path)))
    assert line.startswith(f"yarnspec: error: {path}: steps[{index}].state: ")


def test_replay_of_a_missing_or_broken_file(tmp_path: Path) -> None:
    assert error_line(*run("replay", str(tmp_path / "none.json"))).endswith("none.json: no such file")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": ')
    assert f"{broken}: line 1 column 12: not valid JSON" in error_line(*run("replay", str(broken)))


def test_as_a_program_errors_never_show_a_traceback(tmp_path: Path) -> None:
    for args in (
        ["explore", "nope"],
        ["replay", str(tmp_path / "none.json")],
        ["explore", "--max-states", "x", "async-double-commit"],
    ):
        result = subprocess.run(
            [sys.executable, str(HARNESS), *args], capture_output=True, text=True, timeout=120, cwd=PROJECT_ROOT
        )
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
