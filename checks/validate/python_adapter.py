"""``--impl python:package.module:attr`` and the ``yarnspec.adapters`` entry points.

``attr`` is an object with the contract's methods, or a class / zero-argument factory that
makes one (then called afresh for every session, so a stateful implementation starts clean).
A method raising :class:`RefusedInput` (or any exception whose class is named ``RefusedInput``)
answers with an error; any other exception is a fault.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import sysconfig
import traceback
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

from yarnspec.checks.validate.adapter import AdapterFault, StartFault
from yarnspec.checks.validate.answer_check import output_fault
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import shown_name
from yarnspec.spec.contracts import Contract
from yarnspec.spec.contracts.call import Answer

ENTRY_POINT_GROUP = "yarnspec.adapters"
PLACE = "--impl"
#: How much of an exception's message a fault quotes.
QUOTE = 300
#: The standard library and installed packages: frames there are the adapter's only if no
#: other frame is left.
LIBRARIES = tuple(
    str(Path(p).resolve()) + "/"
    for p in {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
)
#: yarnspec's own packages (checks, spec, impl): frames there are not the adapter's.
OWN_PACKAGES = tuple(str(Path(__file__).resolve().parents[2] / name) + "/" for name in ("checks", "spec", "impl"))


def load_attribute(target: str) -> Any:
    """``package.module:attr`` (or ``path/to/file.py:attr``) imported; a missing module, file
    or attribute is an :class:`InputError`."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise InputError(PLACE, f"python:{target}", "expected python:package.module:attr or python:path/file.py:attr")
    try:
        module = _import_file(module_name) if module_name.endswith(".py") else importlib.import_module(module_name)
    except SyntaxError as exc:
        where = (
            f"{shown_name(exc.filename or module_name)}:{exc.lineno}"
            if exc.lineno
            else shown_name(exc.filename or module_name)
        )
        raise InputError(PLACE, f"python:{target}", f"{where}: {type(exc).__name__}: {exc.msg}") from None
    except ImportError as exc:
        raise InputError(
            PLACE, f"python:{target}", f"cannot import module {module_name!r}: {exc}{raised_at(exc)}"
        ) from None
    except OSError as exc:
        raise InputError(PLACE, f"python:{target}", f"cannot read {module_name}: {exc.strerror or exc}") from None
    except (Exception, SystemExit) as exc:  # the module's own code failed while importing
        raise InputError(
            PLACE, f"python:{target}", f"importing {module_name} raised {_described(exc)}{raised_at(exc)}"
        ) from None
    value: Any = module
    for part in attr.split("."):
        if not hasattr(value, part):
            raise InputError(PLACE, f"python:{target}", f"module {module_name!r} has no attribute {attr!r}")
        value = getattr(value, part)
    return value


def _import_file(path: str) -> ModuleType:
    """A Python file loaded as a module named after it; its folder goes on ``sys.path`` first
    (as ``python FILE.py`` would put it), so it may import the modules beside it."""
    file = Path(path).resolve()
    spec = importlib.util.spec_from_file_location(file.stem, file)
    if spec is None or spec.loader is None:
        raise ImportError(f"not a Python file: {path}")
    if not file.is_file():
        raise FileNotFoundError(2, "No such file or directory", path)
    folder = str(file.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(file.stem, None)
        raise
    return module


def _described(exc: BaseException) -> str:
    """``Type: message``, on one line and shortened."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:QUOTE]}" if text else type(exc).__name__


def raised_at(exc: BaseException) -> str:
    """`` (at FILE:LINE in FUNCTION)`` for the innermost frame of ``exc``'s traceback in the
    adapter's own code: not yarnspec's, not Python's import machinery, and (where another
    frame is left) not the standard library or an installed package; ``""`` without one."""
    frames = traceback.extract_tb(exc.__traceback__)
    theirs = [f for f in frames if not _is_ours(f.filename)]
    written = [f for f in theirs if not f.filename.startswith(LIBRARIES)]
    chosen = written or theirs or frames
    if not chosen:
        return ""
    frame = chosen[-1]
    return f" (at {shown_name(frame.filename)}:{frame.lineno} in {frame.name})"


def _is_ours(filename: str) -> bool:
    return filename.startswith(OWN_PACKAGES) or filename.startswith("<frozen ")


def load_entry_point(name: str) -> Any:
    """The object an installed package registered under ``name`` in ``yarnspec.adapters``."""
    found = [ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        known = sorted(ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP))
        raise InputError(
            PLACE, name, f"no adapter of that name (entry points in {ENTRY_POINT_GROUP}: {', '.join(known) or 'none'})"
        )
    try:
        return found[0].load()
    except (ImportError, AttributeError) as exc:
        raise InputError(PLACE, name, f"entry point {found[0].value!r} does not load: {exc}") from None


class PythonSession:
    """One instance of a Python implementation."""

    def __init__(self, instance: Any, contract: Contract) -> None:
        self.instance = instance
        self.contract = contract

    def call(self, op: str, input: dict[str, Any]) -> Answer:
        """Call the method for ``op`` (the contract's step method for ops without one)."""
        method = getattr(self.instance, op, None)
        args: tuple[Any, ...] = (input,)
        if method is None and self.contract.step_method is not None:
            method = getattr(self.instance, self.contract.step_method, None)
            args = (op, input)
        if method is None:
            return Answer(error=f"unknown op {op}")
        try:
            output = method(*args)
        except (Exception, SystemExit) as exc:  # SystemExit: an adapter's exit code is never ours
            if type(exc).__name__ == "RefusedInput":
                return Answer(error=" ".join(str(exc).split()))
            raise AdapterFault(f"{op}: the Python adapter raised {_described(exc)}{raised_at(exc)}") from None
        if not isinstance(output, dict):
            raise AdapterFault(f"{op}: the Python adapter returned {type(output).__name__}, not a dict")
        fault = output_fault(self.contract.name, op, output)
        if fault is not None:
            raise AdapterFault(f"{op}: the Python adapter's {fault}")
        return Answer(output=output)

    def close(self) -> None:
        """Nothing to release."""


class PythonAdapter:
    """A Python implementation of ``contract``."""

    def __init__(self, target: Any, contract: Contract, label: str) -> None:
        self.target = target
        self.contract = contract
        self.label = label

    def open(self) -> PythonSession:
        """A session on a fresh instance (or the object itself)."""
        target = self.target
        if inspect.isclass(target) or (callable(target) and not _has_methods(target, self.contract)):
            try:
                target = target()
            except (Exception, SystemExit) as exc:
                raise StartFault(f"making the adapter raised {_described(exc)}{raised_at(exc)}") from None
        if not isinstance(target, self.contract.protocol):
            raise StartFault(
                f"{type(target).__name__} does not implement {self.contract.protocol.__name__} (contract {self.contract.name})"
            )
        return PythonSession(target, self.contract)

    def close(self) -> None:
        """Nothing to release."""


def _has_methods(target: Any, contract: Contract) -> bool:
    return isinstance(target, contract.protocol)
