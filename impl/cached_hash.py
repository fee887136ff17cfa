"""Hashes computed once per immutable record.

The explorer hashes every state it meets, and a state is a tree of frozen records (nodes,
applications, usages, containers, resources). Successive states share most of that tree, so a
record that remembers its hash makes hashing a new state cost only the records that changed.

:func:`cached_hash` is applied to a frozen slotted dataclass that declares the field
``_hash: int = field(default=UNSET, init=False, compare=False, repr=False)``: it replaces the
generated ``__hash__`` with one that hashes the compared fields on first use and stores the
result in that slot (``UNSET`` is -1, a value Python never returns as a hash, so the test costs
no exception). Equality is the dataclass's own (the slot is not compared), so equal records still
have equal hashes. Pickling carries only the compared fields (the slot may be unset).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")

_SLOT = "_hash"

#: The slot's value before the hash is known (``hash()`` never returns -1).
UNSET = -1


def cached_hash(cls: type[T]) -> type[T]:
    """``cls`` with a hash computed once per object (see the module docstring)."""
    compared = [f.name for f in fields(cls) if f.compare]  # type: ignore[arg-type]
    if _SLOT not in {f.name for f in fields(cls)}:  # type: ignore[arg-type]
        raise TypeError(f"{cls.__name__} declares no {_SLOT} field")
    key: Callable[[Any], Any] = attrgetter(*compared) if len(compared) > 1 else (lambda self: (getattr(self, compared[0]),))
    remember = object.__setattr__

    def __hash__(self: Any) -> int:
        value: int = self._hash
        if value == UNSET:
            value = hash(key(self))
            remember(self, _SLOT, value)
        return value

    def __reduce__(self: Any) -> tuple[Any, tuple[Any, ...]]:
        return cls, tuple(getattr(self, name) for name in compared)

    __hash__.__doc__ = "The hash of the compared fields, computed on first use and remembered."
    cls.__hash__ = __hash__  # type: ignore[method-assign]
    cls.__reduce__ = __reduce__  # type: ignore[method-assign]
    return cls
