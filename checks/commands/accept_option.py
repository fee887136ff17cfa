"""``--accept OUTCOME``: an outcome a user accepts on purpose where ``holds`` is expected
(``yarnspec explore`` and ``yarnspec check``; docs/exploring.md, "Outcomes")."""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from yarnspec.spec.outcome import ACCEPTABLE, Outcome


def add_accept_argument(parser: argparse.ArgumentParser) -> None:
    """``--accept OUTCOME`` (repeatable; read with :func:`accepted_outcomes`)."""
    parser.add_argument(
        "--accept", action="append", metavar="OUTCOME",
        help=f"accept this outcome where holds is expected ({', '.join(o.value for o in ACCEPTABLE)}); by default only holds passes",
    )  # fmt: skip


def accepted_outcomes(texts: Iterable[str] | None, source: str) -> frozenset[Outcome]:
    """The outcomes given with ``--accept`` (none when not given); an unknown word is an
    :class:`~yarnspec.impl.errors.InputError` naming ``source`` and the option."""
    return frozenset(Outcome.parse(text, source, "--accept", ACCEPTABLE) for text in texts or ())
