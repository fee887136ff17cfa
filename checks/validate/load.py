"""``--impl IMPL``: which implementation to validate.

* ``python:package.module:attr``: a Python object, class or factory (:mod:`.python_adapter`);
* ``process:COMMAND ARGS...`` (or ``cmd:...``): a process speaking the protocol, the command
  split as a shell would (``shlex``), run without a shell (:mod:`.process_adapter`);
* ``spark:VERSION``: the real Spark classes behind the protocol, the command made by
  ``yarnspec.checks.validate.spark.adapter.spark_process_command``;
* ``reference``: the reference itself (what every implementation is compared with);
* any other word: an adapter registered by an installed package in the ``yarnspec.adapters``
  entry-point group (an object/class as for ``python:``, or a list of strings: a command).
"""

from __future__ import annotations

import importlib
import shlex
from typing import Any

from yarnspec.checks.validate.adapter import Adapter
from yarnspec.checks.validate.process_adapter import ProcessAdapter
from yarnspec.checks.validate.python_adapter import PLACE, PythonAdapter, load_attribute, load_entry_point
from yarnspec.checks.validate.reference import REFERENCE_ADAPTERS
from yarnspec.impl.errors import InputError
from yarnspec.spec.contracts import Contract

SPARK_MODULE = "yarnspec.checks.validate.spark.adapter"


def load_adapter(impl: str, contract: Contract, timeout_s: float = 30.0, start_timeout_s: float = 300.0) -> Adapter:
    """The adapter ``impl`` names for ``contract``; a bad name is an :class:`InputError`."""
    kind, sep, rest = impl.partition(":")
    if sep and kind == "python":
        return PythonAdapter(load_attribute(rest), contract, impl)
    if sep and kind in ("process", "cmd"):
        return ProcessAdapter(_command(rest, impl), contract, impl, timeout_s, start_timeout_s)
    if sep and kind == "spark":
        return ProcessAdapter(_spark_command(rest), contract, impl, timeout_s, start_timeout_s)
    if impl == "reference":
        return PythonAdapter(reference_class(contract), contract, impl)
    if sep:
        raise InputError(PLACE, impl, "unknown kind (use python:, process:, spark: or an entry-point name)")
    return _from_object(load_entry_point(impl), contract, impl, timeout_s, start_timeout_s)


def reference_class(contract: Contract) -> type:
    """The reference adapter of ``contract``."""
    found = REFERENCE_ADAPTERS.get(contract.name)
    if found is None:
        raise InputError(
            "<command line>", contract.name, "validate does not drive this contract yet (no reference adapter)"
        )
    return found


def _command(text: str, impl: str) -> list[str]:
    try:
        command = shlex.split(text)
    except ValueError as exc:
        raise InputError(PLACE, impl, f"cannot split the command: {exc}") from None
    if not command:
        raise InputError(PLACE, impl, "empty command")
    return command


def _spark_command(version: str) -> list[str]:
    if not version:
        raise InputError(PLACE, "spark:", "name a Spark version, e.g. spark:4.0.1")
    try:
        module = importlib.import_module(SPARK_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name is not None and SPARK_MODULE.startswith(exc.name):
            raise InputError(
                PLACE, f"spark:{version}", f"the Spark adapter ({SPARK_MODULE}) is not installed in this yarnspec"
            ) from None
        raise InputError(PLACE, f"spark:{version}", f"the Spark adapter cannot load: {exc}") from None
    try:
        command = module.spark_process_command(version)
    except InputError:
        raise
    except Exception as exc:  # the Spark adapter's own failure (no JDK, no jars): one line
        raise InputError(PLACE, f"spark:{version}", f"{type(exc).__name__}: {exc}") from None
    return [str(part) for part in command]


def _from_object(value: Any, contract: Contract, label: str, timeout_s: float, start_timeout_s: float) -> Adapter:
    if isinstance(value, (list, tuple)) and all(isinstance(part, str) for part in value):
        return ProcessAdapter(list(value), contract, label, timeout_s, start_timeout_s)
    return PythonAdapter(value, contract, label)
