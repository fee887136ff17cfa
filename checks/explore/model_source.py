"""How a worker process builds the model: a factory named by import path, with arguments.

A model is never sent to a worker: it may hold caches (and the reference implementation's
still keeps some at module level), which neither pickle cleanly nor may be shared between
processes. :class:`ModelSource` names a callable (``"package.module:callable"``) and its
keyword arguments, all plain data; every worker (a local process or a Ray actor) imports the
callable and builds its own model, exactly as an emitted regression test does.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yarnspec.impl.errors import InputError
from yarnspec.spec.transition_system import JSONValue, TransitionSystem


@dataclass(frozen=True)
class ModelSource:
    """``factory(**arguments)`` builds the model; ``files`` are files the model is read from
    (a world file), whose contents are part of the model's identity."""

    factory: str
    arguments: Mapping[str, JSONValue] = field(default_factory=dict)
    files: tuple[str, ...] = ()

    def build(self) -> TransitionSystem[Any, Any]:
        """A new model from the factory."""
        module, _, name = self.factory.partition(":")
        try:
            built: TransitionSystem[Any, Any] = getattr(importlib.import_module(module), name)(**self.arguments)
        except (ImportError, AttributeError) as exc:
            raise InputError("explore", "model factory", f"cannot import {self.factory}: {exc}") from None
        return built

    def identity(self) -> dict[str, JSONValue]:
        """What a checkpoint compares before resuming: the factory, its arguments and a
        SHA-256 digest of each file the model is read from."""
        digests = {}
        for name in self.files:
            try:
                digests[name] = hashlib.sha256(Path(name).read_bytes()).hexdigest()
            except OSError as exc:
                raise InputError(name, "world file", f"cannot read: {exc.strerror}") from None
        return {"factory": self.factory, "arguments": json.loads(json.dumps(dict(self.arguments))), "files": digests}


def toy_source(nodes: int, apps: int, capacity: int, variant: str = "correct") -> ModelSource:
    """The source of a toy model (:class:`yarnspec.checks.explore.toy.ToyModel`)."""
    arguments = {"nodes": nodes, "apps": apps, "capacity": capacity, "variant": variant}
    return ModelSource("yarnspec.checks.explore.toy:ToyModel", arguments)
