"""The JSON Schemas of yarnspec's own file formats, shipped in the package, and validation
against them with one clear error.

The snapshot schemas live in ``yarnspec/checks/schemas/`` and the world file's in
``yarnspec/spec/schemas/`` (``NAME.schema.json``), so editors can use them too
(``docs/your-cluster.md``, ``docs/world-files.md``). :func:`validate` reports the first fault
jsonschema ranks best as an :class:`InputError` naming the file, the JSON place
(``$.nodes[2].memory``) and the fault (:mod:`yarnspec.spec.json_schema`).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from yarnspec.impl.input_files import check_document, read_json, shown_name
from yarnspec.spec.json_schema import json_place, schema_validator, validate_document

__all__ = ["SCHEMAS", "schema_text", "json_place", "validate", "read_json_file", "MAX_JSON_BYTES"]

#: Each shipped schema and the package it ships in.
_PACKAGES = {
    "snapshot": "yarnspec.checks",
    "rm-rest-snapshot": "yarnspec.checks",
    "world": "yarnspec.spec",
    "mockrm-case": "yarnspec.checks",
}
SCHEMAS = tuple(_PACKAGES)


def schema_text(name: str) -> str:
    """The text of the shipped schema ``name`` (one of :data:`SCHEMAS`)."""
    if name not in SCHEMAS:
        raise KeyError(name)
    return resources.files(_PACKAGES[name]).joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")


@cache
def _validator(name: str) -> Any:
    return schema_validator(schema_text(name))


def validate(document: Any, name: str, source: str) -> None:
    """Raise :class:`InputError` at the place of the most relevant fault of ``document``
    against schema ``name``; return quietly when it conforms."""
    validate_document(document, _validator(name), source)


#: The largest file read as JSON (a snapshot of a big cluster is a few MB).
MAX_JSON_BYTES = 64 * 1024 * 1024


def read_json_file(path: str | Path) -> Any:
    """The JSON value in ``path``, read by the shared reader (:func:`yarnspec.impl.input_files.read_json`:
    a FIFO, a device or a link to one is refused unread, at most :data:`MAX_JSON_BYTES` bytes,
    nesting and integer literals limited), with every integer inside a Java ``long``; any fault
    is one :class:`InputError` naming the file (and the line and column, or the JSON place)."""
    document = read_json(path, MAX_JSON_BYTES)
    check_document(document, shown_name(path))
    return document
