"""Per-step diffs: what changed between two states, entity by entity, computed independently
here and compared; the terminal trace built from them (loop marks, --full)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from yarnspec.checks.explore import Trace, explore
from yarnspec.checks.explore.table import TableModel
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.checks.render.diff import diff, entities, listing

NAMES = st.sampled_from(["n0", "n1", "n2"])
FIELDS = st.fixed_dictionaries(
    {"used": st.lists(st.integers(0, 4), min_size=2, max_size=2), "reserved": st.integers(-1, 3)}
)
CONTAINER = st.fixed_dictionaries(
    {"app": st.sampled_from(["a", "b"]), "node": NAMES, "state": st.sampled_from(["RUNNING", "RESERVED"])}
)


@st.composite
def states(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(st.integers(0, 5), unique=True))
    return {
        "clock": draw(st.integers(0, 2)),
        "nodes": draw(st.dictionaries(NAMES, FIELDS, min_size=1)),
        "containers": [{"id": i, **draw(CONTAINER)} for i in sorted(ids)],
        "proposals": draw(st.lists(st.sampled_from(["p", "q"]), max_size=2)),
        "marks": draw(st.dictionaries(st.sampled_from(["c0", "c1"]), st.integers(0, 3))),
    }


def members(state: dict[str, Any]) -> dict[str, Any]:
    """The entities by name, as this test reads the state (independently of the code)."""
    found: dict[str, Any] = {"clock": state["clock"]}
    found.update({f"node {k}": v for k, v in state["nodes"].items()})
    found.update({f"container c{c['id']}": {k: v for k, v in c.items() if k != "id"} for c in state["containers"]})
    found.update({f"mark {k}": v for k, v in state["marks"].items()})
    found["proposals"] = state["proposals"]
    return found


@given(states(), states())
def test_every_changed_entity_is_named_once_and_nothing_else(old: dict[str, Any], new: dict[str, Any]) -> None:
    before, after = members(old), members(new)
    assert {name for (_, name) in entities(new)} == set(after)
    changes = diff(old, new)
    named = [c.name for c in changes]
    renumbered = [c for c in changes if c.text.startswith("now c")]
    plain = [c for c in changes if c not in renumbered]
    assert len({(c.name, c.kind) for c in plain}) == len(plain)  # each at most once per kind
    differing = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    assert set(named) <= differing | {c.name for c in renumbered}
    for name in differing:
        if name in before and name in after:
            assert name in named  # changed in place, or renumbered away (its old name is named)
        elif name in after:
            assert name in named or any(c.text == f"now {name.split(' ', 1)[1]}" for c in renumbered)
        else:
            assert name in named
    for change in renumbered:  # an id-only change: the same fields under the new id
        source, target = change.name, "container " + change.text.removeprefix("now ")
        assert before[source] == after[target]


@given(states())
def test_a_state_has_no_changes_from_itself(state: dict[str, Any]) -> None:
    assert diff(state, state) == []


def test_field_changes_read_as_old_to_new() -> None:
    old = {"nodes": {"n0": {"used": [0, 0], "free": [4, 4]}}, "queues": {"root.a": {}}, "proposals": ["p"], "marks": {}}
    new = {
        "nodes": {"n0": {"used": [2, 1], "free": [2, 3]}},
        "queues": {"root.a": {"": [2, 1]}},
        "proposals": [],
        "marks": {"c3": 7},
    }
    assert [c.line() for c in diff(old, new)] == [
        "node n0: used [0,0] -> [2,1], free [4,4] -> [2,3]",
        "queue root.a: none -> [2,1]",  # the default partition adds nothing to the name
        "proposals: -p",
        "mark c3: + 7",
    ]
    assert listing(new) == ["node n0: used [2,1], free [2,3]", "queue root.a: [2,1]", "proposals: []", "mark c3: 7"]


def test_a_renumbered_container_is_shown_as_such() -> None:
    old = {"containers": [{"id": 1, "app": "a", "node": "n0"}, {"id": 2, "app": "b", "node": "n1"}]}
    new = {"containers": [{"id": 1, "app": "b", "node": "n1"}]}
    assert [c.line() for c in diff(old, new)] == ["container c2: now c1", "container c1: - app a, node n0"]


def test_the_terminal_trace_shows_changes_loop_and_full_states() -> None:
    violation = explore(ToyModel(2, 3, 2, variant="broken-release"), check_progress=False).violation
    assert violation is not None
    lines = violation.format().splitlines()
    assert lines[1:4] == [
        "    0   (initial state)",
        "          n0: used 0, holders []",
        "          n1: used 0, holders []",
    ]
    assert lines[-2:] == ["    3   release(a0, n0)", "          n0: holders -a0"]
    full = violation.format(full=True).splitlines()
    assert full[-1] == '          state: {"n0":{"used":2,"holders":["a1"]},"n1":{"used":0,"holders":[]}}'
    progress = [{"name": "granted", "premise": [1], "goal": [2], "fair": ["sched", "mon"]}]
    edges = [[0, "request", "env", 1], [1, "wait", "env", 3], [3, "back", "mon", 1], [1, "grant", "sched", 2]]
    (result,) = explore(TableModel([0], edges, progress=progress), deadlock=False).properties
    lasso: Trace | None = result.counterexample
    assert lasso is not None and lasso.loop_start == 1
    text = lasso.format().splitlines()
    assert text[3].startswith("    1 | request  <- loop starts here")
    assert all("|" in line.split()[:2] for line in text[3:-1])  # every loop line marked
    assert text[-1] == "  then back to step 1: steps 2..3 repeat for ever"
