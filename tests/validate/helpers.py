"""Running ``validate`` in-process for the tests."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from yarnspec.checks.cli import main
from yarnspec.checks.validate.families import family_of
from yarnspec.checks.validate.python_adapter import PythonAdapter
from yarnspec.checks.validate.run import Options, PhaseResult, run_phases
from yarnspec.spec.contracts import contract_named

HERE = Path(__file__).resolve().parent
ADAPTERS = HERE / "adapters"


def phases_for(
    contract_name: str, target: object, examples: int = 30, cases: list[Path] | None = None, seed: int = 0
) -> list[PhaseResult]:
    """Every phase of ``validate`` on a Python adapter ``target``."""
    contract = contract_named(contract_name)
    adapter = PythonAdapter(target, contract, getattr(target, "__name__", "adapter"))
    return run_phases(contract, family_of(contract_name), adapter, Options(cases, examples, seed))


def cli(*args: str) -> tuple[int, str, str]:
    """``yarnspec ARGS`` in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()
