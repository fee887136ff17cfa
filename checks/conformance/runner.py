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
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yarnspec.checks.conformance.case_fields import describe
from yarnspec.checks.conformance.outcome import (
    CaseFormatError,
    CaseOutcome,
    CaseVerdict,
    ExpectationMismatch,
    Unsupported,
)
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import path_kind_fault, read_json, shown_name

RunCase = Callable[[Mapping[str, Any]], Sequence[str]]

_PKG = "yarnspec.checks.conformance"

#: (field, value) -> module holding the ``run_case`` for cases whose ``notation`` (Hadoop) or
#: ``kind`` (Spark) field has that value. A value missing here is reported as UNSUPPORTED.
FAMILY_MODULES: dict[tuple[str, str], str] = {
    ("notation", "qdata"): f"{_PKG}.hadoop",
    ("notation", "mockframework"): f"{_PKG}.hadoop",
    ("notation", "unit"): f"{_PKG}.hadoop",
    ("notation", "superior"): f"{_PKG}.superior_case",
    ("notation", "mockrm"): f"{_PKG}.mock_rm",
    ("kind", "placement"): f"{_PKG}.spark_placement",
    ("kind", "allocator"): f"{_PKG}.spark_allocator",
    ("kind", "taskset"): f"{_PKG}.spark_taskset",
    ("kind", "node-sorting"): f"{_PKG}.node_sorting",
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


#: Case files larger than this are refused unread (real ones are a few kB).
MAX_CASE_BYTES = 4 * 1024 * 1024
#: A folder walk stops after this many entries (``conform /`` must not read the whole disk).
MAX_WALK_ENTRIES = 50_000


@dataclass(frozen=True)
class CaseFiles:
    """The case files found under the given paths, and the folders the walk could not read."""

    files: list[Path]
    skipped: list[str]


def find_case_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``*.json`` under the given files or folders, sorted, without duplicates
    (:func:`walk_case_files` without the skipped folders)."""
    return walk_case_files(paths).files


def walk_case_files(paths: Iterable[str | Path]) -> CaseFiles:
    """Every ``*.json`` under the given files or folders, sorted, without duplicates.

    Links to folders are not followed, and the walk stops with an :class:`InputError` after
    :data:`MAX_WALK_ENTRIES` entries; folders it cannot read are listed in ``skipped``.
    Raises :class:`InputError` for a path that does not exist or a folder with no case file.
    """
    found: list[Path] = []
    skipped: list[str] = []
    for raw in paths:
        path = Path(raw)
        fault = path_kind_fault(path)
        if fault == "is a directory, not a file":
            files = _walk(path, skipped)
            if not files:
                raise InputError(shown_name(path), "", "no *.json case file under this folder")
            found.extend(files)
        elif fault is None:
            found.append(path)
        else:
            raise InputError(shown_name(path), "", fault)
    seen: set[Path] = set()
    unique = []
    for file in found:
        key = file.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(file)
    return CaseFiles(unique, skipped)


def _walk(folder: Path, skipped: list[str]) -> list[Path]:
    """The ``*.json`` files under ``folder`` (iteratively, links not followed), sorted."""
    files: list[Path] = []
    pending = [folder]
    entries = 0
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as listing:
                children = list(listing)
        except OSError as exc:
            skipped.append(f"{shown_name(current)} ({exc.strerror or exc})")
            continue
        entries += len(children)
        if entries > MAX_WALK_ENTRIES:
            raise InputError(
                shown_name(folder),
                "",
                f"more than {MAX_WALK_ENTRIES:,} entries under this folder: give the folder that holds the cases",
            )
        for entry in children:
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.name.endswith(".json"):
                files.append(Path(entry.path))
    return sorted(files)


def load_case(path: Path) -> Mapping[str, Any]:
    """Read one case file; a file that is not a JSON object is an :class:`InputError`."""
    case = read_json(path, MAX_CASE_BYTES)
    if not isinstance(case, dict):
        raise InputError(shown_name(path), "(top level)", f"a case must be a JSON object, found {type(case).__name__}")
    return case


def _runner_for(case: Mapping[str, Any]) -> RunCase:
    for field_name in ("notation", "kind"):
        if field_name in case:
            value = case[field_name]
            if not isinstance(value, str):
                raise CaseFormatError(field_name, f"expected a name (a string), found {describe(value)} {value!r}")
            module = FAMILY_MODULES.get((field_name, value))
            if module is None:
                raise Unsupported(f"unknown {field_name} {value!r}: no runner for it")
            try:
                loaded = importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name != module:
                    raise
                raise Unsupported(f"{field_name} {value!r}: this family's runner is not built yet") from None
            run: RunCase = loaded.run_case
            return run
    raise CaseFormatError(
        "(top level)", "no 'notation' (Hadoop) or 'kind' (Spark) field: cannot tell the case's family"
    )


def run_one(path: Path) -> CaseOutcome:
    """Replay one case file and return its outcome; never raises for a bad case."""
    name = shown_name(path)
    try:
        case = load_case(path)
    except InputError as exc:
        return CaseOutcome(shown_name(path.stem), name, CaseVerdict.FAIL, f"malformed case: {exc}")
    case_id = shown_name(str(case.get("id", path.stem)))
    try:
        warnings = tuple(_runner_for(case)(case))
    except Unsupported as exc:
        return CaseOutcome(case_id, name, CaseVerdict.UNSUPPORTED, str(exc))
    except CaseFormatError as exc:
        return CaseOutcome(case_id, name, CaseVerdict.FAIL, f"malformed case: {name}: {exc}")
    except InputError as exc:
        return CaseOutcome(case_id, name, CaseVerdict.FAIL, f"malformed case: {exc}")
    except ExpectationMismatch as exc:
        return CaseOutcome(case_id, name, CaseVerdict.FAIL, str(exc))
    return CaseOutcome(case_id, name, CaseVerdict.PASS, "", warnings)


def run_all(paths: Iterable[str | Path]) -> list[CaseOutcome]:
    """Replay every case under ``paths`` in file order."""
    return [run_one(path) for path in find_case_files(paths)]


def summarise(outcomes: Sequence[CaseOutcome]) -> Summary:
    """Count the verdicts."""
    return Summary(
        passed=sum(o.verdict is CaseVerdict.PASS for o in outcomes),
        failed=sum(o.verdict is CaseVerdict.FAIL for o in outcomes),
        unsupported=sum(o.verdict is CaseVerdict.UNSUPPORTED for o in outcomes),
    )


def format_line(outcome: CaseOutcome) -> str:
    """One report line: verdict, case id and, unless passed, the detail."""
    line = f"{outcome.verdict.value:<11} {outcome.case_id}"
    if outcome.detail:
        line += f"  -- {outcome.detail}"
    return line.replace("\r", "\\r").replace("\n", "\\n")


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
