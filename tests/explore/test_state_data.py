"""The data encoding of checkpoints (``state_data``): every value it holds reads back equal and
of the same types, records rebuild as the model's own classes without running code, and any
bytes at all read back as a value or one :class:`FormatError`, never another exception."""

from __future__ import annotations

import enum
import math
from array import array
from typing import Any, NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.checks.explore import state_data
from yarnspec.checks.explore.state_data import HIGHEST, LOWEST, MAGIC, MAX_DEPTH, FormatError, decode, encode
from yarnspec.impl.resources import Resource
from yarnspec.spec.worlds.catalogue import scenario_model

ROOTS = ["yarnspec"]

hashable = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(LOWEST, HIGHEST)
    | st.text(max_size=8)
    | st.binary(max_size=8)
    | st.floats(allow_nan=False),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
    max_leaves=12,
)
values = st.recursive(
    hashable,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner)
        | st.sets(hashable, max_size=3)
        | st.dictionaries(hashable, inner, max_size=3)
    ),
    max_leaves=20,
)


def same(left: Any, right: Any) -> bool:
    """Equal, and of the same types all the way down (``1`` is not ``True``, ``-0.0`` is not ``0.0``)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, float):
        return math.copysign(1, left) == math.copysign(1, right) and left == right
    if isinstance(left, (tuple, list)):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    return bool(left == right)


@given(values)
def test_every_value_reads_back_equal_and_of_the_same_types(value: Any) -> None:
    assert same(decode(encode(value), ROOTS), value)


def test_scheduler_states_read_back_as_the_models_own_records() -> None:
    model = scenario_model(world="no-leak/yarn-8127")
    states = list(model.initial_states())
    for state in list(states):
        states.extend(target for _, target in model.successors(state))
    held = {"frontier": states, "seen": {model.canonical(s) for s in states}, "links": array("q", [1, -2, 2**40])}
    back = decode(encode(held), ROOTS)
    assert back == held
    assert type(back["frontier"][0]) is type(states[0]) and type(back["frontier"][0].scheduler) is type(
        states[0].scheduler
    )
    assert all(type(a) is type(b) for a, b in zip(back["frontier"], states))
    assert back["links"].typecode == "q"
    assert list(model.successors(back["frontier"][-1])) == list(model.successors(states[-1]))


def test_shared_records_are_written_once() -> None:
    shared = Resource((1024, 1))
    many = [shared] * 1000
    assert len(encode(many)) < 1000 * 3  # a reference is two or three bytes, the record far more
    back = decode(encode(many), ROOTS)
    assert all(item is back[0] for item in back)


class Colour(enum.Enum):
    RED = "red"


class Point(NamedTuple):
    x: int
    y: int


@pytest.mark.parametrize("value", [Colour.RED, Point(1, 2)])
def test_a_record_outside_the_allowed_packages_is_refused(value: Any) -> None:
    """The test module's own classes are not yarnspec's: a checkpoint may not name them."""
    with pytest.raises(FormatError, match="outside the model's packages"):
        decode(encode(value), ROOTS)
    assert decode(encode(value), [__name__.partition(".")[0]]) == value


def test_values_no_checkpoint_holds_cannot_be_written() -> None:
    for value in (object(), 2**64, -(2**63) - 1, array("d", [1.0]), lambda: 0):
        with pytest.raises(FormatError, match="cannot be written|outside"):
            encode(value)


def test_nesting_deeper_than_the_limit_is_refused_not_a_recursion_error() -> None:
    deep = bytes([7, 1]) * (MAX_DEPTH + 1) + bytes([0])
    with pytest.raises(FormatError, match=f"nested deeper than {MAX_DEPTH}"):
        decode(MAGIC + encode([])[len(MAGIC) :][:2] + deep, ROOTS)
    at_the_limit = decode(MAGIC + bytes([8, 0]) + bytes([7, 1]) * MAX_DEPTH + bytes([0]), ROOTS)
    for _ in range(MAX_DEPTH):
        assert isinstance(at_the_limit, tuple) and len(at_the_limit) == 1
        at_the_limit = at_the_limit[0]
    assert at_the_limit is None
    very = bytes([7, 1]) * 100_000 + bytes([0])
    with pytest.raises(FormatError, match="nested deeper"):
        decode(MAGIC + bytes([8, 0]) + very, ROOTS)


def test_a_length_beyond_the_data_is_refused_before_anything_is_allocated() -> None:
    huge = MAGIC + bytes([8, 0]) + bytes([8]) + bytes([0xFF] * 9 + [0x01])
    with pytest.raises(FormatError, match="a number of more than 64 bits|a length of"):
        decode(huge, ROOTS)
    with pytest.raises(FormatError, match=r"a length of 4,294,967,295 with 0 bytes left"):
        decode(MAGIC + bytes([8, 0, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]), ROOTS)


def test_a_class_table_naming_a_callable_or_other_fields_is_refused() -> None:
    def table(entry: Any) -> bytes:
        head = state_data._Encoder()
        head.value([entry])
        return MAGIC + bytes(head.out) + bytes([0])

    with pytest.raises(FormatError, match="class builtins.eval is outside"):
        decode(table(("dataclass", "builtins", "eval", ())), ROOTS)
    with pytest.raises(FormatError, match="is not a class this model uses"):
        decode(table(("namedtuple", "yarnspec.no_such_module", "X", ())), ROOTS)
    with pytest.raises(FormatError, match="has the fields"):
        decode(table(("tuple", "yarnspec.impl.resources", "Resource", ("memory",))), ROOTS)
    with pytest.raises(FormatError, match="is not a namedtuple"):
        decode(table(("namedtuple", "yarnspec.impl.resources", "Resource", ())), ROOTS)
    with pytest.raises(FormatError, match="is not a class this model uses"):
        decode(table(("namedtuple", "yarnspec.impl.resources", "__class__", ())), ROOTS)


@settings(max_examples=300)
@given(st.binary(max_size=200), st.sampled_from([b"", encode([Resource((1, 2)), "x", (1, 2)])[len(MAGIC) :]]))
def test_any_bytes_read_as_a_value_or_one_format_error(data: bytes, prefix: bytes) -> None:
    try:
        decode(MAGIC + prefix[: len(prefix) // 2] + data, ROOTS)
    except FormatError as error:
        assert str(error).isprintable()
