"""Records that remember their hash stay immutable, equal-comparable and picklable, and hash
as the generated dataclass hash did (so no set or dict order changes)."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field, replace

import pytest

from yarnspec.impl.cached_hash import UNSET, cached_hash
from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import start
from yarnspec.impl.scheduler.state import AppPhase, AppState, NodeState, Proposal, ProposalKind, SchedulerState, Usage
from yarnspec.spec.scheduler_model import duplicate_commit_world

R = Resource.of(4096, 4)


def _records() -> list[object]:
    usage = Usage((R,), (R,), (R,), (R,))
    app = AppState(0, AppPhase.ACTIVE, (1, 2), (R,), (R,), (R,), (0,))
    return [usage, app, NodeState(True, R, R), Proposal(ProposalKind.ALLOCATE, 0, 1, 0), start(duplicate_commit_world())]


@pytest.mark.parametrize("record", _records(), ids=lambda r: type(r).__name__)
def test_hash_is_the_generated_one_and_remembered(record: object) -> None:
    compared = tuple(getattr(record, name) for name in type(record).__dataclass_fields__ if name != "_hash")
    assert record._hash == UNSET  # type: ignore[attr-defined]
    assert hash(record) == hash(compared)
    assert record._hash == hash(compared)  # type: ignore[attr-defined]


@pytest.mark.parametrize("record", _records(), ids=lambda r: type(r).__name__)
def test_equal_records_hash_alike_and_survive_pickling(record: object) -> None:
    twin = replace(record)  # type: ignore[type-var]
    hash(record)
    assert twin == record and twin is not record and hash(twin) == hash(record)
    copy = pickle.loads(pickle.dumps(record))
    assert copy == record and hash(copy) == hash(record)
    with pytest.raises(AttributeError):
        record._hash = 1  # type: ignore[attr-defined, misc]


def test_a_changed_record_is_another_record() -> None:
    state = start(duplicate_commit_world())
    hash(state)
    later = replace(state, clock=state.clock + 1)
    assert later != state and hash(later) != hash(state)
    assert isinstance(later, SchedulerState)


def test_a_record_without_the_slot_is_refused() -> None:
    with pytest.raises(TypeError, match="declares no _hash field"):

        @cached_hash
        @dataclass(frozen=True, slots=True)
        class Plain:
            value: int

    @cached_hash
    @dataclass(frozen=True, slots=True)
    class Fine:
        value: int
        _hash: int = field(default=UNSET, init=False, compare=False, repr=False)

    assert hash(Fine(3)) == hash((3,))
