"""A world file carried inside a trace, so that the trace replays anywhere.

A trace of a user's world file (``yarnspec explore --world W --trace-out T.json``) holds the
world itself, not the path it was read from: the world's TOML document in a normalised form
(parsed, as JSON; each configuration file it names is named by its file name alone) and the
text of every configuration file it names, with a SHA-256 digest of both. ``yarnspec replay``,
``yarnspec show`` and an emitted regression test rebuild the model from it, in any folder and
on any machine, and a trace never holds a path of the machine it was written on. The digest is
checked on read: a trace whose world was edited is refused, naming the trace.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from yarnspec.impl.errors import InputError

#: The fields of a trace's ``world`` object.
FIELDS = ("name", "document", "files", "sha256")


@dataclass(frozen=True)
class EmbeddedWorld:
    """A world file in a trace: its ``name`` (the file's ``name`` key, else its file name
    without folders and suffix), its normalised ``document`` and the text of the
    configuration ``files`` it names, by the names its document gives them."""

    name: str
    document: Mapping[str, Any]
    files: Mapping[str, str]

    def digest(self) -> str:
        """The SHA-256 (hex) of the canonical JSON of the name, the document and the files."""
        content = {"name": self.name, "document": self.document, "files": dict(self.files)}
        text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def to_json(self) -> dict[str, Any]:
        """The trace's ``world`` object."""
        return {"name": self.name, "document": dict(self.document), "files": dict(self.files), "sha256": self.digest()}

    @staticmethod
    def from_json(data: Any, source: str, place: str = "world") -> EmbeddedWorld:
        """Read a trace's ``world`` object; a wrong shape or a digest that does not match the
        content is an :class:`InputError` naming ``source`` and the place."""
        if not isinstance(data, dict) or set(data) != set(FIELDS):
            raise InputError(source, place, f"an embedded world is an object with exactly {', '.join(FIELDS)}")
        name, document, files, digest = (data[key] for key in FIELDS)
        if not isinstance(name, str) or not name:
            raise InputError(source, f"{place}.name", "must be a non-empty string")
        if not isinstance(document, dict):
            raise InputError(source, f"{place}.document", "must be a JSON object (the world file's document)")
        if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
            raise InputError(source, f"{place}.files", "must map each configuration file's name to its text")
        world = EmbeddedWorld(name, document, files)
        computed = world.digest()
        if digest != computed:
            fault = f"{digest!r} does not match the embedded world (its SHA-256 is {computed}): the trace was edited or damaged"
            raise InputError(source, f"{place}.sha256", fault)
        return world
