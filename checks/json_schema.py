"""The JSON Schemas of yarnspec's own file formats, shipped in the package, and validation
against them with one clear error.

The schemas live in ``yarnspec/checks/schemas/`` (``NAME.schema.json``) so editors can use
them too (``docs/your-cluster.md``). :func:`validate` reports the first fault jsonschema ranks
best as an :class:`InputError` naming the file, the JSON place (``$.nodes[2].memory``) and the
fault.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from yarnspec.impl.errors import InputError

SCHEMAS = ("snapshot", "rm-rest-snapshot", "world")


def schema_text(name: str) -> str:
    """The text of the shipped schema ``name`` (one of :data:`SCHEMAS`)."""
    if name not in SCHEMAS:
        raise KeyError(name)
    return resources.files("yarnspec.checks").joinpath("schemas", f"{name}.schema.json").read_text(encoding="utf-8")


@lru_cache(maxsize=None)
def _validator(name: str) -> Any:
    schema = json.loads(schema_text(name))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def json_place(path: Iterable[str | int]) -> str:
    """A JSON path as ``$.a.b[2]``."""
    place = "$"
    for part in path:
        place += f"[{part}]" if isinstance(part, int) else f".{part}"
    return place


def validate(document: Any, name: str, source: str) -> None:
    """Raise :class:`InputError` at the place of the most relevant fault of ``document``
    against schema ``name``; return quietly when it conforms."""
    error: ValidationError | None = best_match(_validator(name).iter_errors(document))
    if error is None:
        return
    raise InputError(source, json_place(error.absolute_path), _short(error))


def _short(error: ValidationError) -> str:
    """jsonschema's message, with a long offending value cut down to one line."""
    message = error.message
    if len(message) > 160:
        message = message[:157] + "..."
    return message.replace("\n", " ")


#: The largest file read as JSON (a snapshot of a big cluster is a few MB).
MAX_JSON_BYTES = 64 * 1024 * 1024


def read_json_file(path: str | Path) -> Any:
    """The JSON value in ``path``; a missing, oversized or malformed file is an
    :class:`InputError` naming the file (and the line and column of a syntax error)."""
    source = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_JSON_BYTES:
            raise InputError(source, "", f"file is {size} bytes, more than the {MAX_JSON_BYTES} read")
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(source, "", f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(source, f"byte {exc.start}", "not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError(source, "", "JSON nested too deeply") from None
