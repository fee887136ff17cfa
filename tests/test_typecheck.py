"""The package type-checks: mypy over impl/, spec/ and checks/ (configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys

from .conftest import PROJECT_ROOT


def test_mypy_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
