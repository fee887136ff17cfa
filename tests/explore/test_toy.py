"""The toy model explored at small sizes: exact counts from a formula, symmetry classes counted
by brute force, the broken variant's shortest counterexample, and bad parameters."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.explore import explore, replay
from yarnspec.checks.explore.toy import ToyModel
from yarnspec.impl.errors import InputError

SIZES = [(1, 1, 1), (2, 2, 1), (2, 3, 2), (3, 2, 2), (2, 4, 3), (3, 3, 1)]


def expected_counts(nodes: int, apps: int, capacity: int) -> tuple[int, int]:
    """Nodes are independent: a node is any set of at most ``capacity`` of the apps, and from
    a set of k apps there are k releases plus ``apps - k`` allocations when k < capacity."""
    sizes = range(min(apps, capacity) + 1)
    per_node = sum(comb(apps, k) for k in sizes)
    steps_per_node = sum(comb(apps, k) * (k + (apps - k if k < capacity else 0)) for k in sizes)
    return per_node**nodes, nodes * per_node ** (nodes - 1) * steps_per_node


def test_the_formula_gives_the_published_full_size_counts() -> None:
    assert expected_counts(5, 4, 3) == (759_375, 14_175_000)


@pytest.mark.parametrize("nodes, apps, capacity", SIZES)
def test_exact_state_and_transition_counts(nodes: int, apps: int, capacity: int) -> None:
    result = explore(ToyModel(nodes, apps, capacity), check_progress=False)
    assert result.verdict.text == "holds (exhaustive)"
    assert (result.stats.distinct_states, result.stats.transitions) == expected_counts(nodes, apps, capacity)
    # the farthest state fills every node to min(apps, capacity)
    assert result.stats.depth == nodes * min(apps, capacity)


def brute_force_classes(model: ToyModel) -> int:
    """Symmetry classes counted without the model's canonical form: every state, every renaming
    of nodes and of apps, the smallest image as the class's name."""
    node_fields = [
        (holders, holders.bit_count()) for holders in range(1 << model.apps) if holders.bit_count() <= model.capacity
    ]
    names = set()
    for fields in itertools.product(node_fields, repeat=model.nodes):
        images = []
        for node_order in itertools.permutations(fields):
            for app_order in itertools.permutations(range(model.apps)):
                images.append(
                    tuple(
                        (sum(1 << app_order[app] for app in range(model.apps) if holders >> app & 1), used)
                        for holders, used in node_order
                    )
                )
        names.add(min(images))
    return len(names)


@pytest.mark.parametrize("nodes, apps, capacity", [(2, 2, 1), (2, 3, 2), (3, 2, 2), (3, 3, 2)])
def test_symmetry_visits_one_state_per_class(nodes: int, apps: int, capacity: int) -> None:
    model = ToyModel(nodes, apps, capacity)
    plain = explore(model, check_progress=False)
    reduced = explore(model, symmetry=True, check_progress=False)
    assert reduced.stats.symmetry and not plain.stats.symmetry
    assert reduced.stats.distinct_states == brute_force_classes(model)
    assert reduced.stats.distinct_states < plain.stats.distinct_states
    assert reduced.stats.depth == plain.stats.depth
    assert reduced.verdict == plain.verdict


def test_canonical_form_is_the_same_for_renamed_nodes_and_apps() -> None:
    model = ToyModel(3, 3, 2)
    state = model.encode([(0b011, 2), (0b100, 1), (0, 0)])
    renamed = model.encode([(0, 0), (0b010, 1), (0b101, 2)])  # nodes rotated, apps 1 and 2 swapped
    different = model.encode([(0b011, 2), (0b011, 2), (0, 0)])
    assert model.canonical(state) == model.canonical(renamed)
    assert model.canonical(state) != model.canonical(different)


@pytest.mark.parametrize("nodes, apps, capacity", [(1, 2, 2), (2, 3, 2), (2, 4, 3), (3, 2, 1)])
def test_broken_release_gives_a_shortest_counterexample(nodes: int, apps: int, capacity: int) -> None:
    """Fill one node (capacity allocations), release one container: capacity + 1 steps."""
    model = ToyModel(nodes, apps, capacity, variant="broken-release")
    result = explore(model, check_progress=False)
    assert result.verdict.status == "violated"
    trace = result.violation
    assert trace is not None and trace.kind == "invariant" and trace.property == "used-matches-holders"
    assert len(trace.steps) - 1 == capacity + 1
    assert [(step.action or "").split("(")[0] for step in trace.steps[1:]] == ["allocate"] * capacity + ["release"]
    assert trace.message == f"n0: used is {capacity} but {capacity - 1} app(s) hold it"
    assert replay(model, trace).startswith("invariant used-matches-holders violated at step")


def test_broken_release_is_harmless_when_a_node_can_never_fill() -> None:
    result = explore(ToyModel(2, 2, 3, variant="broken-release"), check_progress=False)
    assert result.verdict.text == "holds (exhaustive)"


def test_actions_labels_classes_and_json() -> None:
    model = ToyModel(2, 2, 1)
    (first_action, first_state), *rest = model.successors(0)
    assert model.action_label(first_action) == "allocate(a0, n0)"
    assert model.action_class(first_action) == "allocate@n0"
    assert model.state_json(first_state) == {
        "n0": {"used": 1, "holders": ["a0"]},
        "n1": {"used": 0, "holders": []},
    }
    release = next(action for action, _ in model.successors(first_state) if action[0] == 1)
    assert model.action_label(release) == "release(a0, n0)"
    assert len(rest) == 3


@pytest.mark.parametrize(
    "kwargs, place",
    [
        ({"nodes": 0}, "nodes"),
        ({"apps": -1}, "apps"),
        ({"capacity": True}, "capacity"),
        ({"capacity": 1.5}, "capacity"),
        ({"variant": "fixed"}, "variant"),
    ],
)
def test_bad_parameters_name_the_place(kwargs: dict[str, object], place: str) -> None:
    with pytest.raises(InputError) as caught:
        ToyModel(**kwargs)  # type: ignore[arg-type]
    assert caught.value.place == place
    assert str(caught.value).startswith(f"toy model: {place}: ")


# -- Hypothesis: the invariant and the canonical form on random reachable states -------------


def walk(model: ToyModel, choices: list[int]) -> int:
    """The state reached from the initial state by taking, at each step, the enabled action
    numbered ``choice`` modulo the number enabled (stopping early at a deadlock, which the
    broken variant can reach: a full node whose holders all left)."""
    state = model.initial_states()[0]
    for choice in choices:
        enabled = model.successors(state)
        if not enabled:
            break
        state = enabled[choice % len(enabled)][1]
    return state


sizes = st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3))


@settings(max_examples=100)
@given(sizes, st.sampled_from(["correct", "broken-release"]), st.lists(st.integers(0, 50), max_size=25))
def test_invariant_reports_exactly_the_nodes_whose_used_is_wrong(
    size: tuple[int, int, int], variant: str, choices: list[int]
) -> None:
    model = ToyModel(*size, variant=variant)
    state = walk(model, choices)
    picture = model.state_json(state)
    wrong = [name for name, node in picture.items() if node["used"] != len(node["holders"])]
    message = model.invariants()[0].check(state)
    if variant == "correct":
        assert wrong == [] and message is None
    else:
        assert (message is None) == (wrong == [])
        assert message is None or message.startswith(f"{wrong[0]}: used is ")
    assert all(0 <= node["used"] <= model.capacity for node in picture.values())


@settings(max_examples=100)
@given(sizes, st.lists(st.integers(0, 50), max_size=25), st.randoms(use_true_random=False))
def test_canonical_form_ignores_renaming_and_nothing_else(
    size: tuple[int, int, int], choices: list[int], rng: random.Random
) -> None:
    model = ToyModel(*size)
    state = walk(model, choices)
    fields = model.fields(state)
    node_order = rng.sample(range(model.nodes), model.nodes)
    app_order = rng.sample(range(model.apps), model.apps)
    renamed = model.encode(
        [(sum(1 << app_order[a] for a in range(model.apps) if fields[n][0] >> a & 1), fields[n][1]) for n in node_order]
    )
    assert model.canonical(renamed) == model.canonical(state)
    # the canonical form is itself a state of the same class: same multiset of used counts
    assert sorted(used for _, used in model.fields(model.canonical(state))) == sorted(used for _, used in fields)
