"""The state's records are named tuples: immutable, picklable, hashed as the tuple of their
fields (as the frozen dataclasses they replaced were, so no set or dict order changed), and
proposals ordered field by field (the commit queue's canonical order)."""

from __future__ import annotations

import pickle

import pytest

from yarnspec.impl.resources import Resource
from yarnspec.impl.scheduler.actions import start
from yarnspec.impl.scheduler.state import (
    NONE,
    AppPhase,
    AppState,
    ContainerState,
    NodeState,
    Proposal,
    ProposalKind,
    SchedulerState,
    TrackedContainer,
    Usage,
)
from yarnspec.spec.worlds.world_builders import async_double_commit_world

R = Resource.of(4096, 4)


def _records() -> list[tuple[object, ...]]:
    usage = Usage((R,), (R,), (R,), (R,))
    app = AppState(0, AppPhase.ACTIVE, (1, 2), (R,), (R,), (R,), (0,))
    container = TrackedContainer(3, 0, 1, 0, R, ContainerState.RUNNING, 5)
    return [
        usage,
        app,
        container,
        NodeState(True, R, R),
        Proposal(ProposalKind.ALLOCATE, 0, 1, 0),
        start(async_double_commit_world()),
    ]


@pytest.mark.parametrize("record", _records(), ids=lambda r: type(r).__name__)
def test_hash_is_the_hash_of_the_fields(record: tuple[object, ...]) -> None:
    fields = tuple(getattr(record, name) for name in type(record)._fields)  # type: ignore[attr-defined]
    assert hash(record) == hash(fields)


@pytest.mark.parametrize("record", _records(), ids=lambda r: type(r).__name__)
def test_equal_records_hash_alike_survive_pickling_and_stay_immutable(record: tuple[object, ...]) -> None:
    twin = record._replace()  # type: ignore[attr-defined]
    assert twin == record and twin is not record and hash(twin) == hash(record)
    copy = pickle.loads(pickle.dumps(record))
    assert copy == record and type(copy) is type(record) and hash(copy) == hash(record)
    with pytest.raises(AttributeError):
        record.cid = 1  # type: ignore[attr-defined, misc]


def test_the_fields_accounting_builds_positionally() -> None:
    """``accounting._build`` writes these records as tuples of their fields in this order."""
    assert Usage._fields == ("used", "reserved", "pending", "am_used")
    assert AppState._fields == ("seq", "phase", "asks", "used", "reserved", "pending", "rereservations", "am_container")
    assert NodeState._fields == ("live", "used", "free", "reserved")
    assert SchedulerState._fields == (
        "clock", "next_container", "next_app", "nodes", "apps", "queues", "users", "containers",
        "proposals", "marks", "node_order", "sorted_at", "monitor_at", "killable",
    )  # fmt: skip


def test_a_changed_state_is_another_state() -> None:
    state = start(async_double_commit_world())
    later = state._replace(clock=state.clock + 1)
    assert later != state and hash(later) != hash(state)
    assert type(later) is type(state)


def test_defaults_and_properties() -> None:
    assert NodeState(True, R, R).reserved == NONE
    assert AppState(0, AppPhase.FINISHED, (), (), (), (), ()).am_container == NONE
    assert not AppState(0, AppPhase.FINISHED, (), (), (), (), ()).live
    am = TrackedContainer(0, 0, 0, 0, R, ContainerState.ALLOCATED, 0)
    assert am.is_am and am.live and not am._replace(request=1, state=ContainerState.RESERVED).live
    assert Proposal(ProposalKind.RESERVE, 1, 2, 3) == (ProposalKind.RESERVE, 1, 2, 3, NONE, NONE, False, ())


def test_proposals_order_field_by_field() -> None:
    a = Proposal(ProposalKind.ALLOCATE, 1, 0, 0)
    b = Proposal(ProposalKind.ALLOCATE, 1, 0, 0, kill=(4,))
    c = Proposal(ProposalKind.ALLOCATE, 1, 0, 1)
    d = Proposal(ProposalKind.RESERVE, 0, 0, 0)
    assert sorted([d, c, b, a]) == [a, b, c, d]


def test_a_container_is_found_by_id() -> None:
    state = start(async_double_commit_world())
    containers = tuple(TrackedContainer(cid, 0, 0, 1, R, ContainerState.RUNNING, 0) for cid in (2, 5, 9))
    state = state._replace(containers=containers)
    assert state.container(5) is containers[1]
    assert state.container(4) is None and state.container(10) is None
