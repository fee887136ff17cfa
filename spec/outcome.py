"""What a verdict may say: the outcomes of checking a property, the limits that cut a search,
and how an outcome meets an expectation (DESIGN.md, "What a verdict may say").

Four outcomes, never merged:

* :attr:`Outcome.VIOLATED`: a counterexample was found (real whatever the bounds);
* :attr:`Outcome.HOLDS`: every reachable state of the world was visited and nothing is violated;
* :attr:`Outcome.NOT_REFUTED`: no counterexample, but a :class:`Limit` (depth, states, time,
  the random walks of a simulation) cut the search, so nothing is claimed beyond it;
* :attr:`Outcome.VACUOUS`: the property's premise never held in any state the search met, so
  it holds only because it was never put to the test.

A fifth status, :attr:`Outcome.UNCHECKED`, belongs to a property that a run did not judge
because it stopped at another property's violation; it only appears next to a violation.

The same words are the JSON values, the world files' ``expect`` and ``check``'s table; each
outcome has its own exit status (:attr:`Outcome.exit_status`). This module is the one place
where an outcome is judged against what was expected (:func:`satisfies`).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from yarnspec.impl.errors import InputError

#: The exit status of a run whose outcome is the expected (or an accepted) one.
SUCCESS = 0
#: The exit status of bad input or usage (one line on stderr), as for every command.
BAD_INPUT = 2


class Outcome(StrEnum):
    """The outcome of checking one property (its value is the word used everywhere)."""

    HOLDS = "holds"
    VIOLATED = "violated"
    NOT_REFUTED = "not-refuted"
    VACUOUS = "vacuous"
    UNCHECKED = "unchecked"

    @property
    def exit_status(self) -> int:
        """The exit status of a run with this outcome when it is not the expected one (a run
        whose outcome is expected or accepted exits :data:`SUCCESS`)."""
        return _EXIT[self]

    @property
    def meaning(self) -> str:
        """What the outcome means, in one line."""
        return _MEANING[self]

    @staticmethod
    def parse(text: str, source: str, place: str, allowed: Iterable[Outcome] | None = None) -> Outcome:
        """The outcome named ``text``; an :class:`InputError` naming ``source`` and ``place``
        and the known words otherwise."""
        choices = tuple(EXPECTABLE if allowed is None else allowed)
        for outcome in choices:
            if outcome.value == text:
                return outcome
        raise InputError(source, place, f"unknown outcome {text!r}; one of: {', '.join(o.value for o in choices)}")


_EXIT = {
    Outcome.HOLDS: 1,  # only a mismatch exits with it: a violation was expected
    Outcome.VIOLATED: 1,
    Outcome.UNCHECKED: 1,  # a counterexample of another property was found
    Outcome.NOT_REFUTED: 3,
    Outcome.VACUOUS: 4,
}

_MEANING = {
    Outcome.HOLDS: "every reachable state of the world was visited and nothing is violated",
    Outcome.VIOLATED: "a counterexample was found; it is real whatever the bounds",
    Outcome.NOT_REFUTED: "no counterexample, but a limit cut the search (which one and how far it got are said)",
    Outcome.VACUOUS: "the property's premise never held in any state the search met: it was never put to the test",
    Outcome.UNCHECKED: "not judged: the search stopped at another property's violation",
}

#: The outcomes a world file's ``expect`` may name.
EXPECTABLE: tuple[Outcome, ...] = (Outcome.HOLDS, Outcome.VIOLATED, Outcome.NOT_REFUTED, Outcome.VACUOUS)
#: The outcomes a user may accept on purpose (``--accept``) where ``holds`` is expected.
ACCEPTABLE: tuple[Outcome, ...] = (Outcome.NOT_REFUTED, Outcome.VACUOUS)


class Limit(StrEnum):
    """What cut a search short (its value is the word used in text and JSON)."""

    DEPTH = "depth"
    STATES = "states"
    TIME = "time"
    INTERRUPTED = "interrupted"
    WALKS = "walks"

    @property
    def phrase(self) -> str:
        """``the depth limit``, ``the state limit``..."""
        return _PHRASE[self]


_PHRASE = {
    Limit.DEPTH: "the depth limit",
    Limit.STATES: "the state limit",
    Limit.TIME: "the time limit",
    Limit.INTERRUPTED: "an interruption (Ctrl-C)",
    Limit.WALKS: "random walks (a simulation)",
}


def satisfies(outcome: Outcome, expected: Outcome, accepted: Iterable[Outcome] = ()) -> bool:
    """Whether ``outcome`` meets the ``expected`` one: the same outcome; ``holds`` where
    ``not-refuted`` was expected (exhaustive is more than expected); or, where ``holds`` (or
    ``not-refuted``) was expected, an outcome the user ``accepted`` on purpose."""
    if outcome == expected:
        return True
    if expected == Outcome.NOT_REFUTED and outcome == Outcome.HOLDS:
        return True
    return expected in (Outcome.HOLDS, Outcome.NOT_REFUTED) and outcome in set(accepted) & set(ACCEPTABLE)


def exit_status(outcome: Outcome, agrees: bool) -> int:
    """The exit status of a run: :data:`SUCCESS` when its outcome agrees with the expected
    one, else the outcome's own status."""
    return SUCCESS if agrees else outcome.exit_status
