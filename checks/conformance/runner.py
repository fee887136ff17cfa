"""The conformance runner: finds case files, hands each to its family's runner and reports.

Contract (``../shared/conformance/README.md``): one line per case (PASS, FAIL with the first
differing expectation, UNSUPPORTED with the reason), then ``N passed, M failed, K unsupported``;
exit 0 only when nothing failed.

A family runner is a function ``run_case(case) -> warnings`` that returns the warnings of a
passing case and raises :class:`ExpectationMismatch` (FAIL), :class:`Unsupported` or
:class:`CaseFormatError` (a malformed case, reported as a FAIL naming the place).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.impl.errors import InputError

from .outcome import CaseFormatError, CaseOutcome, ExpectationMismatch, Unsupported, Verdict

RunCase = Callable[[Mapping[str, Any]], Sequence[str]]

_PKG = "yarnspec.checks.conformance"

#: (field, value) -> module holding the ``run_case`` for cases whose ``notation`` (Hadoop) or
#: ``kind`` (Spark) field has that value. A value missing here is reported as UNSUPPORTED.
FAMILY_MODULES: dict[tuple[str, str], str] = {
    ("notation", "qdata"): f"{_PKG}.hadoop",
    ("notation", "mockframework"): f"{_PKG}.hadoop",
    ("notation", "unit"): f"{_PKG}.hadoop",
    ("notation", "superior"): f"{_PKG}.superior_case",
    ("kind", "placement"): f"{_PKG}.spark_placement",
    ("kind", "allocator"): f"{_PKG}.spark_allocator",
    ("kind", "taskset"): f"{_PKG}.spark_taskset",
}


@dataclass(frozen=True)
class Summary:
    """The counts of a run, in the order of the closing line."""

    passed: int
    failed: int
    unsupported: int

    @property
    def line(self) -> str:
        """The closing line the README's contract specifies."""
        return f"{self.passed} passed, {self.failed} failed, {self.unsupported} unsupported"


def find_case_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``*.json`` under the given files or folders, sorted, without duplicates.

    Raises :class:`InputError` for a path that does not exist or a folder with no case file.
    """
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(path.rglob("*.json"))
            if not files:
                raise InputError(str(path), "", "no *.json case file under this folder")
            found.extend(files)
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(str(path), "", "no such file or folder")
    seen: set[Path] = set()
    unique = []
    for file in found:
        key = file.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(file)
    return unique


def load_case(path: Path) -> Mapping[str, Any]:
    """Read one case file; a file that is not a JSON object is an :class:`InputError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), "", f"cannot read: {exc}") from None
    try:
        case = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(str(path), f"line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}") from None
    if not isinstance(case, dict):
        raise InputError(str(path), "(top level)", f"a case must be a JSON object, found {type(case).__name__}")
    return case


def _runner_for(case: Mapping[str, Any]) -> RunCase:
    for field_name in ("notation", "kind"):
        if field_name in case:
            value = case[field_name]
            module = FAMILY_MODULES.get((field_name, str(value)))
            if module is None:
                raise Unsupported(f"unknown {field_name} {value!r}: no runner for it")
            try:
                loaded = importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
                raise Unsupported(f"{field_name} {value!r}: this family's runner is not built yet") from None
            run: RunCase = getattr(loaded, "run_case")
            return run
    raise CaseFormatError("(top level)", "no 'notation' (Hadoop) or 'kind' (Spark) field: cannot tell the case's family")


def run_one(path: Path) -> CaseOutcome:
    """Replay one case file and return its outcome; never raises for a bad case."""
    try:
        case = load_case(path)
    except InputError as exc:
        return CaseOutcome(path.stem, str(path), Verdict.FAIL, f"malformed case: {exc}")
    case_id = str(case.get("id", path.stem))
    try:
        warnings = tuple(_runner_for(case)(case))
    except Unsupported as exc:
        return CaseOutcome(case_id, str(path), Verdict.UNSUPPORTED, str(exc))
    except CaseFormatError as exc:
        return CaseOutcome(case_id, str(path), Verdict.FAIL, f"malformed case: {path}: {exc}")
    except InputError as exc:
        return CaseOutcome(case_id, str(path), Verdict.FAIL, f"malformed case: {exc}")
    except ExpectationMismatch as exc:
        return CaseOutcome(case_id, str(path), Verdict.FAIL, str(exc))
    return CaseOutcome(case_id, str(path), Verdict.PASS, "", warnings)


def run_all(paths: Iterable[str | Path]) -> list[CaseOutcome]:
    """Replay every case under ``paths`` in file order."""
    return [run_one(path) for path in find_case_files(paths)]


def summarise(outcomes: Sequence[CaseOutcome]) -> Summary:
    """Count the verdicts."""
    return Summary(
        passed=sum(o.verdict is Verdict.PASS for o in outcomes),
        failed=sum(o.verdict is Verdict.FAIL for o in outcomes),
        unsupported=sum(o.verdict is Verdict.UNSUPPORTED for o in outcomes),
    )


def format_line(outcome: CaseOutcome) -> str:
    """One report line: verdict, case id and, unless passed, the detail."""
    line = f"{outcome.verdict.value:<11} {outcome.case_id}"
    if outcome.detail:
        line += f"  -- {outcome.detail}"
    return line


def to_json(outcomes: Sequence[CaseOutcome]) -> dict[str, Any]:
    """The whole run as one JSON-serialisable document (``--json``)."""
    summary = summarise(outcomes)
    return {
        "cases": [
            {
                "id": o.case_id,
                "path": o.path,
                "verdict": o.verdict.value,
                "detail": o.detail,
                "warnings": list(o.warnings),
            }
            for o in outcomes
        ],
        "passed": summary.passed,
        "failed": summary.failed,
        "unsupported": summary.unsupported,
        "summary": summary.line,
    }
