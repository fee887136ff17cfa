"""``--dot`` (the state graph, bounded, drawn by Graphviz), ``--itf`` (the Informal Trace
Format's rules, checked here field by field), the ``show`` command and its errors, and the
emitted regression tests: they replay under the buggy variant and check the fixed one, each
failing when it should."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.scenarios.harness import run
from yarnspec.checks.explore import Trace, explore
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.checks.render.dot import state_graph
from yarnspec.checks.render.itf import to_itf, value

EDGE = re.compile(r"^  s(\d+) -> s(\d+) \[label=\"([^\"]*)\"")
NODE = re.compile(r"^  s(\d+) \[label=\"([^\"]*)\"(.*)\];$")


@pytest.fixture(scope="module")
def leak(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The YARN-8127 leak (pre-8127) saved as a trace."""
    path = tmp_path_factory.mktemp("leak") / "leak.json"
    status, _, err = run("explore", "async-double-commit", "--variant", "pre-8127", "--trace-out", str(path))
    assert status == 0, err
    return path


def toy_trace() -> Trace:
    violation = explore(ToyModel(2, 3, 2, variant="broken-release"), check_progress=False).violation
    assert violation is not None
    return violation


# -- DOT ------------------------------------------------------------------------------------


def parse(text: str) -> tuple[dict[int, tuple[str, str]], list[tuple[int, int, str]]]:
    nodes = {int(m[1]): (m[2], m[3]) for line in text.splitlines() if (m := NODE.match(line))}
    edges = [(int(m[1]), int(m[2]), m[3]) for line in text.splitlines() if (m := EDGE.match(line))]
    return nodes, edges


def test_dot_around_a_counterexample_draws_its_path_and_colours_the_violation() -> None:
    trace = toy_trace()
    model = ToyModel(2, 3, 2, variant="broken-release")
    graph = state_graph(model, trace)
    nodes, edges = parse(graph.text)
    assert (graph.states, graph.edges, graph.cut) == (len(nodes), len(edges), False)
    path = [
        next(n for n, (label, _) in nodes.items() if f"step {i}" in label.split("\\n")[1:2][0])
        for i in range(len(trace.steps))
        if any(f"step {i}" in label for label, _ in nodes.values())
    ]
    assert len(path) == len(trace.steps)
    for (a, b), step in zip(zip(path, path[1:]), trace.steps[1:]):
        assert any(e[:2] == (a, b) and step.action in e[2].split("\\n") for e in edges)
    violating = [n for n, (label, attributes) in nodes.items() if "violates used-matches-holders" in label]
    assert path[-1] in violating and all("#ef9a9a" in nodes[n][1] for n in violating)
    assert "peripheries=2" in nodes[path[0]][1]  # the initial state


def test_dot_is_bounded_and_says_so() -> None:
    model = ToyModel(2, 3, 2)
    whole = state_graph(model, None, limit=10_000)
    assert not whole.cut
    cut = state_graph(model, None, limit=5)
    assert cut.cut and cut.states == 5 and len(parse(cut.text)[0]) == 5
    assert "cut at 5 states: more are reachable" in cut.text
    assert cut.note(5).endswith("cut at 5 states, more are reachable (raise the limit with --dot-limit N)")


def test_graphviz_reads_what_dot_writes(tmp_path: Path, leak: Path) -> None:
    target = tmp_path / "leak.dot"
    status, _, err = run("show", str(leak), "--dot", str(target), "--dot-limit", "60")
    assert status == 0 and f"state graph written to {target} (60 states" in err and "cut at 60" in err
    drawn = subprocess.run(["dot", "-Tsvg", str(target)], capture_output=True, text=True, timeout=120)
    assert drawn.returncode == 0, drawn.stderr
    assert drawn.stdout.count('class="node"') == 60


# -- ITF ------------------------------------------------------------------------------------


def test_itf_values_follow_the_format() -> None:
    assert value(2**53 - 1) == 2**53 - 1
    assert value(2**53) == {"#bigint": str(2**53)} and value(-(2**60)) == {"#bigint": str(-(2**60))}
    assert value({"used": [1, 2], "ok": True}) == {"used": [1, 2], "ok": True}  # a record
    assert value({"root.a": {"": [1, 2]}}) == {"#map": [["root.a", {"#map": [["", [1, 2]]]}]]}
    assert value(None) == {"#unserializable": "None"} and value(1.5) == {"#unserializable": "1.5"}


def check_itf(document: dict[str, Any], trace: Trace) -> None:
    """The ITF rules: ``vars`` lists every state's fields, each state has ``#meta.index`` in
    order, values use only ITF's forms, ``loop`` only for a lasso."""
    assert set(document) <= {"#meta", "params", "vars", "states", "loop"}
    assert document["#meta"]["format"] == "ITF"
    assert len(document["states"]) == len(trace.steps)
    for index, state in enumerate(document["states"]):
        assert state["#meta"] == {"index": index}
        assert set(state) - {"#meta"} == set(document["vars"])
        assert state["action"] == (trace.steps[index].action or "init")
        for key, item in state.items():
            if key != "#meta":
                assert_itf_value(item)
    assert document.get("loop") == trace.loop_start


def assert_itf_value(item: Any) -> None:
    if isinstance(item, dict):
        special = [key for key in item if key.startswith("#")]
        if special:
            assert len(item) == 1 and special[0] in ("#bigint", "#map", "#set", "#tup", "#unserializable")
            if special[0] == "#map":
                for key, inner in item["#map"]:
                    assert_itf_value(key)
                    assert_itf_value(inner)
        else:
            for inner in item.values():
                assert_itf_value(inner)
    elif isinstance(item, list):
        for inner in item:
            assert_itf_value(inner)
    else:
        assert isinstance(item, (str, bool, int)) and (
            isinstance(item, bool) or not isinstance(item, int) or abs(item) < 2**53
        )


def test_itf_of_a_scheduler_trace_and_a_lasso(tmp_path: Path, leak: Path) -> None:
    target = tmp_path / "leak.itf.json"
    status, _, _ = run("show", str(leak), "--itf", str(target))
    assert status == 0
    document = json.loads(target.read_text(encoding="utf-8"))
    check_itf(document, Trace.load(leak))
    assert "nodes" in document["vars"] and document["states"][1]["action"] == "submit(app1)"
    assert "#map" in document["states"][0]["nodes"]  # nodes keyed by name: a map
    lasso_path = tmp_path / "lasso.json"
    assert run("explore", "big-container-livelock", "--trace-out", str(lasso_path))[0] == 0
    lasso = Trace.load(lasso_path)
    check_itf(to_itf(lasso), lasso)
    assert to_itf(lasso)["loop"] == lasso.loop_start


# -- show and its errors --------------------------------------------------------------------


def test_show_prints_changes_and_replays(leak: Path) -> None:
    status, out, _ = run("show", str(leak))
    assert status == 0
    assert "          node n0: used [5120,2] -> [9216,3], free [7168,10] -> [3072,9]" in out
    assert out.splitlines()[-1].startswith("replayed: invariant node-used-is-sum-of-containers violated at step 20")
    status, out, _ = run("show", str(leak), "--full")
    assert status == 0 and out.count("state: {") == len(Trace.load(leak).steps) - 1
    status, out, _ = run("show", str(leak), "--json")
    document = json.loads(out)
    assert status == 0 and document["steps"][20]["changes"][0].startswith("node n0: used [5120,2] -> [9216,3]")


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (("--dot-limit", "5"), "--dot-limit: applies only with --dot FILE"),
        (("--dot", "{tmp}/g.dot", "--dot-limit", "none"), "--dot-limit: expected a whole number, got 'none'"),
        (("--html", "{tmp}/no/such/folder/x.html"), "--html: cannot write"),
    ],
)
def test_show_errors_are_one_line(tmp_path: Path, leak: Path, extra: tuple[str, ...], fragment: str) -> None:
    status, out, err = run("show", str(leak), *(e.replace("{tmp}", str(tmp_path)) for e in extra))
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("yarnspec: error: ") and fragment in err


def test_errors_under_json_are_json(tmp_path: Path) -> None:
    status, out, err = run("show", str(tmp_path / "missing.json"), "--json")
    assert status == 2 and out == ""
    error = json.loads(err)["error"]
    assert error["source"] == str(tmp_path / "missing.json") and error["fault"] == "no such file"
    status, out, err = run("explore", "--no-such-option", "--json")
    assert status == 2 and json.loads(err)["error"]["fault"] == "unrecognized arguments: --no-such-option"


def test_version_and_every_listing_under_json() -> None:
    status, out, _ = run("--version")
    assert status == 0 and out.strip() == "yarnspec 0.1.0"
    status, out, _ = run("prove", "--list", "--json")
    proofs = json.loads(out)["proofs"]
    assert status == 0 and proofs and all({"name", "default_bound", "statement", "finding"} <= set(p) for p in proofs)
    status, out, _ = run("explore", "--list", "--json")
    assert status == 0 and json.loads(out)["scenarios"]


# -- emitted tests --------------------------------------------------------------------------


def run_pytest(path: Path) -> subprocess.CompletedProcess[str]:
    (path.parent / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)],
        capture_output=True, text=True, timeout=600, cwd=path.parent,
    )  # fmt: skip


def test_an_emitted_test_guards_the_fix_and_says_which_part_fails(tmp_path: Path) -> None:
    target = tmp_path / "test_leak.py"
    status, _, err = run("explore", "async-double-commit", "--variant", "pre-8127", "--emit-test", str(target))
    assert status == 0 and f"regression test written to {target}" in err
    text = target.read_text(encoding="utf-8")
    assert "'world': 'async-double-commit/yarn-8127'" in text  # the fix it checks
    outcome = run_pytest(target)
    assert outcome.returncode == 0 and "2 passed" in outcome.stdout, outcome.stdout
    # the fix regresses: the "fixed" variant is the buggy one again -> only the fix test fails
    regressed = tmp_path / "test_regressed.py"
    regressed.write_text(
        text.replace("'world': 'async-double-commit/yarn-8127'", "'world': 'async-double-commit/pre-8127'"),
        encoding="utf-8",
    )
    outcome = run_pytest(regressed)
    assert outcome.returncode == 1 and "1 failed, 1 passed" in outcome.stdout
    assert "test_fixed_variant_keeps_the_property" in outcome.stdout and "is violated under the fix" in outcome.stdout
    # the model no longer shows the bug (the trace is of another variant) -> only the replay fails
    changed = tmp_path / "test_changed.py"
    changed.write_text(
        text.replace("'world': 'async-double-commit/pre-8127'", "'world': 'async-double-commit/yarn-8127'", 1),
        encoding="utf-8",
    )
    outcome = run_pytest(changed)
    assert outcome.returncode == 1 and "1 failed, 1 passed" in outcome.stdout
    assert "test_buggy_variant_still_shows_the_counterexample" in outcome.stdout


def test_the_fixed_variant_is_the_one_that_adds_the_fix(tmp_path: Path) -> None:
    target = tmp_path / "test_starved.py"
    status, _, _ = run("explore", "reserved-starvation", "--variant", "yarn-8127", "--emit-test", str(target))
    assert status == 0 and "'world': 'reserved-starvation/yarn-8127+yarn-10259'" in target.read_text(encoding="utf-8")
    status, _, err = run("explore", "big-container-livelock", "--emit-test", str(tmp_path / "test_livelock.py"))
    assert status == 0 and "no variant of big-container-livelock is expected to hold guarantee-progress" in err
    assert "def test_fixed_variant" not in (tmp_path / "test_livelock.py").read_text(encoding="utf-8")
    status, _, err = run(
        "explore",
        "reserved-starvation",
        "--variant",
        "yarn-8127",
        "--emit-test",
        str(target),
        "--fixed-variant",
        "nope",
    )
    assert status == 2 and "--fixed-variant" in err
