"""The world a trace carries: its digest covers every byte of it (Hypothesis), and a carried
world round-trips through the trace's JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.checks.explore.trace_world import EmbeddedWorld
from yarnspec.impl.errors import InputError

#: JSON values as a TOML document parses to (no null, no non-finite float).
SCALARS = st.one_of(st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=12))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)
DOCUMENTS = st.dictionaries(st.text(min_size=1, max_size=8), VALUES, max_size=4)
FILES = st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=40), max_size=2)
NAMES = st.text(min_size=1, max_size=12)


def through_json(world: EmbeddedWorld) -> Any:
    return json.loads(json.dumps(world.to_json()))


@given(NAMES, DOCUMENTS, FILES)
def test_a_carried_world_round_trips(name: str, document: dict[str, Any], files: dict[str, str]) -> None:
    world = EmbeddedWorld(name, document, files)
    again = EmbeddedWorld.from_json(through_json(world), "t.json")
    assert again == world and again.digest() == world.digest() and len(world.digest()) == 64


@given(NAMES, DOCUMENTS, FILES, st.sampled_from(["name", "document", "files"]), st.text(min_size=1, max_size=5))
def test_any_edit_is_caught_by_the_digest(
    name: str, document: dict[str, Any], files: dict[str, str], part: str, extra: str
) -> None:
    data = through_json(EmbeddedWorld(name, document, files))
    if part == "name":
        data["name"] += extra
    elif part == "document":
        key = "edited" + extra
        data["document"][key] = [data["document"].get(key)]  # differs from whatever was there
    else:
        key = "edited" + extra
        data["files"][key] = data["files"].get(key, "") + "!"
    with pytest.raises(InputError) as caught:
        EmbeddedWorld.from_json(data, "t.json")
    assert caught.value.source == "t.json" and caught.value.place == "world.sha256"
    assert "does not match the embedded world" in caught.value.fault


@pytest.mark.parametrize(
    "change, place",
    [
        (lambda d: d.pop("sha256"), "world"),
        (lambda d: d.update(name=""), "world.name"),
        (lambda d: d.update(document=[]), "world.document"),
        (lambda d: d.update(files={"a.xml": 3}), "world.files"),
    ],
)
def test_a_malformed_carried_world_names_the_place(change: Any, place: str) -> None:
    data = through_json(EmbeddedWorld("w", {"nodes": []}, {}))
    change(data)
    with pytest.raises(InputError) as caught:
        EmbeddedWorld.from_json(data, "t.json")
    assert caught.value.place == place
