"""Hypothesis fuzz families, one per format of issue 31 (world files, plain snapshots, REST
snapshots, ``mockrm`` cases, command-line numbers): every mutated input is an answer or one
named error line with exit 2, never a traceback, a hang or an error over several lines.

Hypothesis draws the seed of the mutation (:func:`.format_fuzz.make_input`), so a failure
shrinks to the smallest seed that shows it and replays. Examples are few per family, so each
family runs in seconds; ``benchmarks/bad_input_campaign.py`` runs hundreds per family.
"""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yarnspec.checks.commands.number_options import Seconds, WholeNumber

from .format_fuzz import FORMAT_FAMILIES, make_input, seeds_of
from .fuzz import GOOD, run_cli

#: Examples per family: enough to cross every mutation kind, few enough for a few seconds.
EXAMPLES = {"world": 12, "snapshot": 6, "rest": 6, "mockrm": 12, "numbers": 40}


@pytest.mark.parametrize("family", FORMAT_FAMILIES)
def test_a_mutated_input_is_an_answer_or_one_named_error(family: str) -> None:
    seeds = seeds_of(family)

    @settings(max_examples=EXAMPLES[family], deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(seed=st.integers(min_value=0, max_value=2**32 - 1))
    def check(seed: int) -> None:
        with tempfile.TemporaryDirectory() as folder:
            made = make_input(family, random.Random(seed), Path(folder), 0, seeds)
            outcome = run_cli(made.argv, made.names, seconds=60)
        assert outcome.kind in GOOD, outcome.detail[-2000:]

    check()


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=12))
def test_a_whole_number_option_takes_ascii_digits_in_range_or_refuses(text: str) -> None:
    parse = WholeNumber(0, 10**6)
    stripped = text.strip(" \t")
    whole = re.fullmatch("-?[0-9]+", stripped) is not None
    try:
        value = parse(text)
    except Exception as exc:  # noqa: BLE001 - the type of the refusal is the property
        assert type(exc).__name__ == "ArgumentTypeError"
        assert not whole or not 0 <= int(stripped) <= 10**6
    else:
        assert whole and value == int(stripped)


@settings(max_examples=100, deadline=None)
@given(
    text=st.one_of(
        st.text(max_size=12), st.floats().map(repr), st.sampled_from(["1_0", "+1", "1e3", "nan", "inf", "\u0661"])
    )
)
def test_a_seconds_option_takes_finite_ascii_decimals_or_refuses(text: str) -> None:
    try:
        value = Seconds()(text)
    except Exception as exc:  # noqa: BLE001 - the type of the refusal is the property
        assert type(exc).__name__ == "ArgumentTypeError"
    else:
        plain = text.strip(" \t")
        assert plain.isascii() and plain.replace(".", "", 1).isdigit() and 0 <= value <= 1_000_000
