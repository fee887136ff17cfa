"""Locality levels and task locations (semantics 1): ordering, Spark's string forms, errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.errors import InputError
from yarnspec.impl.spark.locality import (
    ExecutorCacheTaskLocation,
    HDFSCacheTaskLocation,
    HostTaskLocation,
    LocationKind,
    TaskLocality,
    is_allowed,
    parse_task_location,
    task_location_from_fields,
)


def test_levels_are_ordered_best_first_with_no_pref_between_node_and_rack() -> None:
    assert list(TaskLocality) == sorted(TaskLocality)
    assert [lvl.name for lvl in TaskLocality] == ["PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"]
    assert [int(lvl) for lvl in TaskLocality] == [0, 1, 2, 3, 4]


def test_is_allowed_compares_against_the_cap() -> None:
    assert is_allowed(TaskLocality.NODE_LOCAL, TaskLocality.PROCESS_LOCAL)
    assert is_allowed(TaskLocality.NODE_LOCAL, TaskLocality.NODE_LOCAL)
    assert not is_allowed(TaskLocality.NODE_LOCAL, TaskLocality.NO_PREF)
    assert not is_allowed(TaskLocality.NO_PREF, TaskLocality.RACK_LOCAL)
    assert all(is_allowed(TaskLocality.ANY, lvl) for lvl in TaskLocality)


def test_unknown_level_name_is_a_clear_error() -> None:
    with pytest.raises(InputError, match=r"steps\[2\]\.args\.max_locality: unknown locality level 'NODE'"):
        TaskLocality.parse("NODE", "steps[2].args.max_locality", source="")


def test_spark_string_forms() -> None:
    # Spark's "Test TaskLocation for different host type."
    assert parse_task_location("host1") == HostTaskLocation("host1")
    assert parse_task_location("hdfs_cache_host1") == HDFSCacheTaskLocation("host1")
    assert parse_task_location("executor_host1_3") == ExecutorCacheTaskLocation("host1", "3")
    assert parse_task_location("executor_some.host1_executor_task_3") == ExecutorCacheTaskLocation(
        "some.host1", "executor_task_3"
    )


def test_string_forms_print_back() -> None:
    assert str(HostTaskLocation("h")) == "h"
    assert str(HDFSCacheTaskLocation("h")) == "hdfs_cache_h"
    assert str(ExecutorCacheTaskLocation("h", "e_1")) == "executor_h_e_1"
    assert ExecutorCacheTaskLocation("h", "e").kind is LocationKind.EXECUTOR


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("executor_host1", "illegal executor location"),
        ("executor__3", "empty host"),
        ("executor_host1_", "empty executor id"),
        ("hdfs_cache_", "empty host"),
        ("", "empty host"),
    ],
)
def test_malformed_strings_are_rejected(text: str, fault: str) -> None:
    with pytest.raises(InputError, match=fault) as caught:
        parse_task_location(text, "tasks[0][1]")
    assert caught.value.place == "tasks[0][1]"


def test_object_form() -> None:
    assert task_location_from_fields({"kind": "executor", "host": "h", "executor": "e"}) == ExecutorCacheTaskLocation(
        "h", "e"
    )
    assert task_location_from_fields({"kind": "hdfs_cache", "host": "h"}) == HDFSCacheTaskLocation("h")
    assert task_location_from_fields({"kind": "host", "host": "h"}) == HostTaskLocation("h")


@pytest.mark.parametrize(
    ("fields", "place", "fault"),
    [
        ({"kind": "rack", "host": "h"}, "p.kind", "unknown location kind 'rack'"),
        ({"kind": "executor", "host": "h"}, "p.executor", "non-empty executor id"),
        ({"kind": "host"}, "p.host", "non-empty host"),
        ({"kind": "host", "host": "h", "executor": "e"}, "p.executor", "not a field of a host location"),
    ],
)
def test_object_form_errors_name_the_field(fields: dict[str, str], place: str, fault: str) -> None:
    with pytest.raises(InputError, match=fault) as caught:
        task_location_from_fields(fields, "p")
    assert caught.value.place == place


names = st.text(alphabet="abcdefgh.-0123456789", min_size=1, max_size=8)
executor_ids = st.text(alphabet="abc_.-0123456789", min_size=1, max_size=8)
locations = st.one_of(
    names.map(HostTaskLocation),
    names.map(HDFSCacheTaskLocation),
    st.builds(ExecutorCacheTaskLocation, names, executor_ids),
)


@settings(max_examples=150)
@given(locations)
def test_string_form_round_trips(
    location: HostTaskLocation | HDFSCacheTaskLocation | ExecutorCacheTaskLocation,
) -> None:
    # Hosts without '_' round-trip; the executor id may contain '_' (split at the first one).
    assert parse_task_location(str(location)) == location
