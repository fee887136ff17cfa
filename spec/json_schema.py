"""Validation of a document against a JSON Schema, with one clear error.

:func:`validate_document` reports the first fault jsonschema ranks best as an
:class:`InputError` naming the file, the JSON place (``$.nodes[2].memory``) and the fault. The
world file's schema ships here (``yarnspec/spec/schemas/world.schema.json``, read by
:mod:`yarnspec.spec.worlds.world_file`); the snapshot formats' ship with
:mod:`yarnspec.checks.shipped_schemas`, which validates with the same functions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from yarnspec.impl.errors import InputError

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


def schema_validator(text: str, check: bool = True) -> Any:
    """A Draft 2020-12 validator for the schema ``text``, checked to be a valid schema unless
    ``check`` is false (a shipped schema a test checks: the check costs a fifth of a second)."""
    import jsonschema  # here, not at the top: loading it costs ~50 ms a start that validates nothing need not pay

    schema = json.loads(text)
    if check:
        jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def json_place(path: Iterable[str | int]) -> str:
    """A JSON path as ``$.a.b[2]``."""
    place = "$"
    for part in path:
        place += f"[{part}]" if isinstance(part, int) else f".{part}"
    return place


def validate_document(document: Any, validator: Any, source: str) -> None:
    """Raise :class:`InputError` at the place of the most relevant fault of ``document``
    for ``validator``; return quietly when it conforms."""
    from jsonschema.exceptions import best_match  # see schema_validator

    error: ValidationError | None = best_match(validator.iter_errors(document))
    if error is None:
        return
    raise InputError(source, json_place(error.absolute_path), _short(error))


def _short(error: ValidationError) -> str:
    """jsonschema's message, with a long offending value cut down to one line."""
    message = error.message
    if len(message) > 160:
        message = message[:157] + "..."
    return message.replace("\n", " ")
