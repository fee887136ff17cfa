"""The core keeps no module-level mutable state: every module of ``yarnspec.impl`` holds only
constants at module level (caches are explicit objects passed down, such as the scheduler
model's :class:`~yarnspec.impl.scheduler.bookkeeping.memo.Memo`), so models can run side by side in one
process or in several."""

from __future__ import annotations

import collections
import dataclasses
import enum
import importlib
import pkgutil
import types
import weakref
from typing import Any

import pytest

import yarnspec.impl

#: Types whose instances can change after import.
MUTABLE = (
    dict, list, set, bytearray, collections.deque, weakref.WeakKeyDictionary, weakref.WeakValueDictionary, weakref.WeakSet,
)  # fmt: skip


def modules() -> list[str]:
    """Every module of ``yarnspec.impl``."""
    found = [yarnspec.impl.__name__]
    for info in pkgutil.walk_packages(yarnspec.impl.__path__, yarnspec.impl.__name__ + "."):
        found.append(info.name)
    return found


def mutable(value: Any) -> bool:
    """Whether a module-level value can hold changing state: a mutable container, or an
    instance of one of yarnspec's own classes that is not a frozen dataclass, an enum member or a
    tuple without instance attributes (such as :class:`~yarnspec.impl.resources.Resource`)."""
    if isinstance(value, MUTABLE):
        return True
    if isinstance(value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, enum.Enum)):
        return False
    cls = type(value)
    if not cls.__module__.startswith("yarnspec."):
        return False
    if isinstance(value, tuple) and not hasattr(value, "__dict__"):
        return False
    return not (dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", modules())
def test_module_holds_no_mutable_state(name: str) -> None:
    module = importlib.import_module(name)
    found = sorted(attr for attr, value in vars(module).items() if not attr.startswith("__") and mutable(value))
    assert not found, f"{name} keeps module-level mutable state: {', '.join(found)}"


def test_the_scan_finds_a_module_cache() -> None:
    """The scan is not vacuous: a module-level dict, list, weak dictionary or plain object is
    found."""

    class Cache:
        pass

    assert mutable({}) and mutable([]) and mutable(weakref.WeakKeyDictionary())
    assert not mutable((1, 2)) and not mutable(frozenset()) and not mutable(types.MappingProxyType({}))

    class Pair(tuple[int, int]):
        pass

    Cache.__module__ = Pair.__module__ = "yarnspec.impl.example"
    assert mutable(Cache()) and mutable(Pair((1, 2)))
