"""The partitioned search gives the one-worker search's figures and traces, for any number of
partitions, in this process, in local processes and (tests/explore/test_ray.py) on Ray."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, NamedTuple

import pytest

from yarnspec.checks.explore import ExploreResult, explore
from yarnspec.checks.explore.backends import InlineBackend
from yarnspec.checks.explore.fingerprint import KeyEncoder
from yarnspec.checks.explore.model_source import ModelSource, toy_source
from yarnspec.checks.explore.parallel import explore_partitioned
from yarnspec.checks.explore.partition import SearchOptions, SearchPartition
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.checks.explore.wire import dumps, loads
from yarnspec.impl.errors import InputError
from yarnspec.impl.scheduler.state import NONE

SCENARIO = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": "async-double-commit/pre-8127"})


def inline(count: int, source: ModelSource, options: Any) -> InlineBackend:
    """All partitions in this process (the partitioning without the processes)."""
    return InlineBackend(count, source, options)


def figures(result: ExploreResult) -> tuple[Any, ...]:
    """What must not depend on the number of workers: counts, depth, verdict and the trace."""
    trace = None if result.violation is None else [(s.action, s.state) for s in result.violation.steps]
    return result.stats.distinct_states, result.stats.transitions, result.stats.depth, result.verdict.text, trace


@pytest.mark.parametrize("variant", ["correct", "broken-release"])
@pytest.mark.parametrize(
    "bounds",
    [
        {},
        {"symmetry": True},
        {"max_states": 100},
        {"max_depth": 3},
        {"max_states": 1},
        {"symmetry": True, "max_states": 9},
    ],
)
def test_partitions_in_one_process_give_the_one_worker_figures_and_trace(variant: str, bounds: dict[str, Any]) -> None:
    expected = figures(explore(ToyModel(3, 3, 2, variant), check_progress=False, show_progress=False, **bounds))
    for count in (1, 2, 3, 5):
        got = explore_partitioned(
            toy_source(3, 3, 2, variant), workers=count, backend=inline, show_progress=False, **bounds
        )
        assert figures(got) == expected, count


#: Two initial states; at depth 1, state 4 has no successor (a deadlock), 3 leads to 7, 5 to 8.
EDGES = [[0, "a", "s", 2], [0, "b", "s", 3], [1, "c", "s", 4], [1, "d", "s", 5], [2, "e", "s", 6], [3, "f", "s", 7],
         [5, "g", "s", 8], [6, "h", "s", 6], [7, "i", "s", 7], [8, "j", "s", 8], [0, "k", "s", 5]]  # fmt: skip


@pytest.mark.parametrize("bad", [[7], [8], [], [6, 8]])
def test_the_first_violation_or_deadlock_is_the_one_worker_one(bad: list[int]) -> None:
    """Bad state 7 is met before the deadlock in 4, bad 8 after it; the figures at the stop
    (states and transitions met so far) are those of one worker."""
    arguments = {"initial": [0, 1], "edges": EDGES, "bad": bad}
    source = ModelSource("yarnspec.checks.explore.table:TableModel", arguments)
    expected = figures(explore(source.build(), check_progress=False, show_progress=False))
    assert expected[3] == "violated"
    for count in (1, 2, 3, 4):
        assert figures(explore_partitioned(source, workers=count, backend=inline, show_progress=False)) == expected


def test_local_processes_give_the_one_worker_figures_on_a_scenario() -> None:
    model = SCENARIO.build()
    expected = figures(explore(model, symmetry=True, check_progress=False, show_progress=False))
    got = explore_partitioned(SCENARIO, workers=2, symmetry=True, show_progress=False, coverage=True)
    assert figures(got) == expected and expected[3] == "violated"
    assert got.workers == 2
    # stopped inside a level: coverage counts that whole level, one worker only part of it
    assert got.coverage is not None and sum(got.coverage.fired.values()) >= got.stats.transitions


@pytest.mark.parametrize("bounds", [{"symmetry": True}, {"fingerprints": True}, {}])
def test_three_local_processes_give_the_one_worker_figures_and_trace(bounds: dict[str, Any]) -> None:
    """Three workers swap outboxes, requests for states and replies pairwise."""
    symmetry = bool(bounds.get("symmetry"))
    expected = figures(
        explore(ToyModel(3, 3, 2, "broken-release"), symmetry=symmetry, check_progress=False, show_progress=False)
    )
    got = explore_partitioned(toy_source(3, 3, 2, "broken-release"), workers=3, show_progress=False, **bounds)
    assert figures(got) == expected and expected[3] == "violated"


def test_fingerprint_mode_counts_the_same_and_states_its_collision_risk() -> None:
    expected = figures(explore(ToyModel(3, 3, 2), check_progress=False, show_progress=False))
    got = explore_partitioned(toy_source(3, 3, 2), workers=2, backend=inline, fingerprints=True, show_progress=False)
    assert figures(got) == expected
    n = got.stats.distinct_states
    assert got.collision_probability == pytest.approx(n * (n - 1) / 2**65, rel=1e-6)
    assert got.to_json()["fingerprints"]["bits"] == 64


def test_scheduler_states_cross_processes_equal_and_with_equal_hashes() -> None:
    model = SCENARIO.build()
    (state,) = model.initial_states()
    _, after = model.successors(state)[0]
    copy = loads(dumps(after))  # named tuple records all the way down
    assert copy == after and hash(copy) == hash(after)
    assert loads(dumps([after, after])) == [after, after]


def _last_node(model: ToyModel, key: int) -> tuple[int, int]:
    """A partition key for the toy model: the last node's holders and used in the key."""
    return model.fields(key)[-1]


@pytest.mark.parametrize("bounds", [{}, {"symmetry": True}, {"fingerprints": True}, {"max_states": 40}])
def test_the_models_partition_key_chooses_the_owner_and_changes_no_figure(
    bounds: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ToyModel, "partition_key", _last_node, raising=False)
    source = toy_source(3, 3, 2, "broken-release")
    model = ToyModel(3, 3, 2, "broken-release")
    if not bounds.get("fingerprints"):  # fingerprint mode routes by the stored fingerprint
        partition = SearchPartition(0, 3, source, SearchOptions(symmetry=bool(bounds.get("symmetry"))))
        owners: dict[tuple[int, int], set[int]] = {}
        for state in _reachable(model, 200):
            key = model.canonical(state) if bounds.get("symmetry") else state
            owners.setdefault(_last_node(model, key), set()).add(partition.key(state)[1])
        assert all(len(found) == 1 for found in owners.values())  # an equal part, one owner
        assert len(set.union(*owners.values())) > 1  # and the parts are spread
    one_worker = {name: value for name, value in bounds.items() if name != "fingerprints"}
    expected = figures(explore(model, check_progress=False, show_progress=False, **one_worker))
    for count in (2, 3):
        got = explore_partitioned(source, workers=count, backend=inline, show_progress=False, **bounds)
        assert figures(got) == expected, count


def _reachable(model: Any, limit: int) -> list[Any]:
    """The first ``limit`` states reached breadth first (or all, if fewer)."""
    states, done = list(model.initial_states()), 0
    while done < len(states) and len(states) < limit:
        states += [target for _, target in model.successors(states[done]) if target not in states]
        done += 1
    return states[:limit]


def test_the_scheduler_models_partition_key_is_the_nodes_applications_and_containers() -> None:
    """With symmetry, the part of the canonical form holding the slots of the nodes (live,
    used, free, reserved container), the applications (phase, submission rank, asks, used,
    reserved, pending, re-reservations, AM container) and the containers, with their count;
    without, the state's own. Compared as multisets: symmetry may reorder nodes and apps."""
    model = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": "no-leak/yarn-8127"}).build()
    states = _reachable(model, 300)
    assert any(sum(app is not None for app in s.scheduler.apps) == 2 and s.scheduler.containers for s in states)
    nodes, apps = len(model.world.nodes), len(model.world.apps)
    for state in states:
        scheduler = state.scheduler
        assert model.partition_key(state) == (scheduler.nodes, scheduler.apps, scheduler.containers)
        part = model.partition_key(model.canonical(state))
        node_slots = [part[i : i + 4] for i in range(0, 4 * nodes, 4)]
        app_slots = [part[i : i + 8] for i in range(4 * nodes, 4 * nodes + 8 * apps, 8)]
        count = part[4 * nodes + 8 * apps]
        assert count == len(scheduler.containers) and len(part) == 4 * nodes + 8 * apps + 1 + 5 * count
        assert sorted(map(repr, (s[:3] for s in node_slots))) == sorted(
            repr((n.live, n.used, n.free)) for n in scheduler.nodes
        )
        expected = [
            (NONE,) * 5 if app is None else (app.phase, app.asks, app.used, app.reserved, app.pending)
            for app in scheduler.apps
        ]
        assert sorted(map(repr, ((s[0], *s[2:6]) for s in app_slots))) == sorted(map(repr, expected))
        assert sorted(part[-5 * count + 4 :: 5] if count else []) == sorted(c.state for c in scheduler.containers)


FINGERPRINTS = """
import sys
from yarnspec.checks.explore.fingerprint import KeyEncoder, fingerprint
from yarnspec.checks.explore.model_source import ModelSource
model = ModelSource("yarnspec.spec.worlds.catalogue:scenario_model", {"world": "async-double-commit/pre-8127"}).build()
states, done = list(model.initial_states()), 0
while len(states) < 300:
    states += [t for _, t in model.successors(states[done]) if t not in states]
    done += 1
encoder = KeyEncoder()
print([fingerprint(encoder.encode(s)) for s in states[:300]] + [fingerprint(encoder.encode(model.canonical(s))) for s in states[:300]])
"""


class _Tupled(NamedTuple):
    a: int
    b: tuple[int, ...]


@dataclass(frozen=True)
class _Classy:
    a: int
    b: tuple[int, ...]


def test_a_named_tuple_encodes_as_a_dataclass_with_its_fields() -> None:
    """The scheduler's records were dataclasses and are named tuples: their keys keep their
    encodings (and fingerprints), and still differ from a plain tuple of the same items."""
    encoder = KeyEncoder()
    tupled = encoder.encode(_Tupled(1, (2, 3))).replace(b"_Tupled", b"_Classy")  # names of one length
    assert tupled == encoder.encode(_Classy(1, (2, 3)))
    assert encoder.encode(_Tupled(1, (2, 3))) != encoder.encode((1, (2, 3)))


def test_fingerprints_are_the_same_in_every_process() -> None:
    runs = []
    for seed in ("1", "2"):  # strings and None hash differently in each
        environment = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", FINGERPRINTS], capture_output=True, text=True, env=environment, timeout=120
        )
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout))
    assert runs[0] == runs[1]
    assert len(set(runs[0][:300])) == 300  # and they tell the 300 distinct states apart


def test_bad_counts_are_refused() -> None:
    with pytest.raises(InputError, match="workers"):
        explore_partitioned(toy_source(2, 2, 1), workers=0)
    with pytest.raises(InputError, match="max_states"):
        explore_partitioned(toy_source(2, 2, 1), max_states=0)
