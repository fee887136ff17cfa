"""The README's two commands are the ones CI and users run: keep them true."""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import PROJECT_ROOT


def _readme_commands() -> list[str]:
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line and not line.startswith("#")]


#: What the tests need from the system (the viewer's browser test, the DOT test, the JDK that
#: compiles and runs the adapter to the real Spark and the Java example adapter, Go for the Go
#: example adapter), installed from Debian when absent (CI runs
#: as root on a fresh Debian machine).
SYSTEM_PACKAGES = (
    "(command -v chromium >/dev/null && command -v dot >/dev/null && command -v javac >/dev/null && command -v go >/dev/null"
    " || (apt-get update -q && apt-get install -y -q chromium graphviz openjdk-17-jdk-headless golang-go))"
)

#: The environment both commands create.
VENV = "python3 -m venv .venv"

#: The Python packages only the extras install (``pip install -e '.[test]'`` or ``'.[ray]'``):
#: no module of the package may import them when it is imported.
EXTRAS_ONLY = ("ray", "pytest", "mypy")


def test_readme_has_two_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2


def test_the_main_job_installs_the_core_dependencies_only() -> None:
    check, _ = _readme_commands()
    assert check == f"{VENV} && .venv/bin/pip install -q -e . && .venv/bin/yarnspec check"


def test_the_tests_install_the_test_extras_after_the_system_packages() -> None:
    _, tests = _readme_commands()
    assert tests == f"{SYSTEM_PACKAGES} && {VENV} && .venv/bin/pip install -q -e '.[test]' && .venv/bin/pytest"


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (PROJECT_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _readme_commands()[1] in ci


#: Imports every module of the installed package with the extras' packages made unimportable;
#: prints the modules that failed.
_IMPORT_ALL = f"""
import importlib, importlib.abc, pkgutil, sys

class _NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {EXTRAS_ONLY!r}:
            raise ImportError("an extra: " + name)
        return None

sys.meta_path.insert(0, _NoExtras())
import yarnspec.impl, yarnspec.spec, yarnspec.checks
failed = []
for package in (yarnspec.impl, yarnspec.spec, yarnspec.checks):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        try:
            importlib.import_module(info.name)
        except ImportError as exc:
            failed.append(f"{{info.name}}: {{exc}}")
print("\\n".join(failed))
"""


def test_no_module_imports_an_extra_when_imported() -> None:
    """`yarnspec check` on the core dependencies: no module needs Ray, pytest or mypy to load
    (``explore --ray`` imports Ray inside the function that starts the cluster)."""
    result = subprocess.run([sys.executable, "-c", _IMPORT_ALL], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
