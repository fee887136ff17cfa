"""Hadoop ``Configuration``'s getters against Hadoop's own answers.

``hadoop_getters_table.json`` holds strings and what Hadoop's getter makes of each (its
``about`` says how the answers were obtained: the JDK's parsers, run). Every row must agree,
except where yarnspec refuses on purpose: a NaN or infinite number (no setting means anything
with one) and a boolean that is neither true nor false (Hadoop silently takes the default).
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yarnspec.impl.config import getters
from yarnspec.impl.config.hadoop_xml import HadoopConfiguration
from yarnspec.impl.errors import InputError

TABLE = json.loads((Path(__file__).parent / "hadoop_getters_table.json").read_text(encoding="utf-8"))["rows"]
GETTERS: dict[str, Callable[[str], Any]] = {
    "getInt": getters.get_int,
    "getLong": getters.get_long,
    "getFloat": getters.get_float,
    "getDouble": getters.get_double,
    "getBoolean": getters.get_boolean,
    "getTrimmedStrings": getters.get_trimmed_strings,
}


def _java_number(text: str) -> float:
    return float(text.replace("Infinity", "inf").replace("NaN", "nan"))


def _f32(value: float) -> bytes:
    return struct.pack(">f", value)


@pytest.mark.parametrize(("getter", "text", "hadoop"), TABLE, ids=[f"{g}:{t!r}" for g, t, _ in TABLE])
def test_getter_agrees_with_hadoop(getter: str, text: str, hadoop: Any) -> None:
    ours = GETTERS[getter](text)
    if getter == "getBoolean":
        assert ours == (None if hadoop == "default" else hadoop)
    elif getter in ("getFloat", "getDouble"):
        if hadoop is None:
            assert ours is None
        elif hadoop == "NaN":
            assert ours is not None and math.isnan(ours)
        else:
            assert ours is not None
            same = _f32 if getter == "getFloat" else float
            assert same(ours) == same(_java_number(hadoop))
    else:
        assert ours == hadoop


def test_table_covers_the_issue_examples() -> None:
    """The strings the bad-input campaign named, with Hadoop's verdicts as the table has them."""
    answers = {(g, t): h for g, t, h in TABLE}
    assert answers[("getInt", "1_024")] is None
    assert answers[("getInt", "\uff16\uff10")] == 60  # Character.digit reads full-width digits
    assert answers[("getFloat", "\u0665\u0660")] is None  # Float.parseFloat reads ASCII digits only
    assert answers[("getLong", "9223372036854775808")] is None
    assert answers[("getInt", "2147483648")] is None
    assert answers[("getFloat", "0.5f")] == "0.5" and answers[("getFloat", "100d")] == "100.0"
    assert answers[("getInt", "0x10")] == 16 and answers[("getFloat", "0x10")] is None
    assert answers[("getTrimmedStrings", "prod, dev")] == ["prod", "dev"]


@given(st.integers(min_value=getters.INT_RANGE[0], max_value=getters.INT_RANGE[1]))
def test_int_round_trips_decimal_and_hex(value: int) -> None:
    assert getters.get_int(str(value)) == value
    assert getters.get_int(f"{'-' if value < 0 else ''}0x{abs(value):x}") == value


@given(st.integers(max_value=getters.LONG_RANGE[0] - 1) | st.integers(min_value=getters.LONG_RANGE[1] + 1))
def test_long_refuses_every_value_outside_the_range(value: int) -> None:
    assert getters.get_long(str(value)) is None


@given(st.text(max_size=12))
def test_float_grammar_never_raises_and_accepts_only_ascii_digits(text: str) -> None:
    value = getters.get_float(text)
    if value is not None and not math.isnan(value) and not math.isinf(value):
        assert not any(c.isdigit() and not c.isascii() for c in text)


def test_every_getter_is_used_through_the_configuration() -> None:
    """The configuration's typed getters apply the grammar and name the property on refusal."""
    conf = HadoopConfiguration.of(
        {"i": "\uff16\uff10", "u": "1_024", "l": "9223372036854775808", "f": "0.5f", "d": "1e999", "b": "fal\u017fe"},
        "s.xml",
    )
    assert conf.get_int("i", 0) == 60
    assert conf.get_float("f", 0.0) == 0.5
    assert conf.get_bool("b", True) is False
    for name, read in (("u", conf.get_int), ("l", conf.get_long), ("d", conf.get_double)):
        with pytest.raises(InputError, match=f"^s.xml:\\d: {name}: expected "):
            read(name, 0)
