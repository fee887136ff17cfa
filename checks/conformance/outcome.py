"""What one conformance case comes to: PASS, FAIL (with the first differing expectation) or
UNSUPPORTED (with the reason), and the errors a case runner raises to say so."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class CaseVerdict(enum.Enum):
    """The three verdicts of ``../shared/conformance/README.md``."""

    PASS = "PASS"
    FAIL = "FAIL"
    UNSUPPORTED = "UNSUPPORTED"


@dataclass(frozen=True)
class CaseOutcome:
    """The result of replaying one case file.

    ``detail`` is, for FAIL, the first differing expectation (where it is in the case, what was
    expected, what the model gave) and, for UNSUPPORTED, the reason. ``warnings`` collects
    mismatches on explanatory keys (``derived``, ``*_note``...), which never decide the verdict.
    """

    case_id: str
    path: str
    verdict: CaseVerdict
    detail: str = ""
    warnings: tuple[str, ...] = field(default=())


class Unsupported(Exception):
    """Raised by a family runner for a case it cannot interpret; the message is the reason."""


class CaseFormatError(Exception):
    """A malformed case file: the message names the place in the case (a JSON path such as
    ``steps[3].args.count``) and the fault. The runner adds the file name."""

    def __init__(self, place: str, fault: str) -> None:
        super().__init__(f"{place}: {fault}")
        self.place = place
        self.fault = fault


class ExpectationMismatch(Exception):
    """Raised (or returned as a FAIL outcome) when the model's answer differs from an upstream
    assertion: ``place`` is the expectation's JSON path in the case."""

    def __init__(self, place: str, expected: object, actual: object, what: str = "") -> None:
        label = f" ({what})" if what else ""
        super().__init__(f"{place}{label}: expected {expected!r}, got {actual!r}")
        self.place = place
        self.expected = expected
        self.actual = actual
