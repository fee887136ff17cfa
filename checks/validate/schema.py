"""The process protocol's JSON Schema (``protocol.schema.json``, shipped as package data and
copied to ``docs/protocol.schema.json``) and the checks of every answer against it.

jsonschema (a dependency for this) validates the published format, so the schema that users
read is the one that decides, not a hand-written copy of it.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema

SCHEMA_FILE = "protocol.schema.json"


@cache
def protocol_schema() -> dict[str, Any]:
    """The schema document, read once from the package."""
    text = resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _validator(definition: str) -> jsonschema.protocols.Validator:
    schema = protocol_schema()
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


def schema_fault(definition: str, value: Any) -> str | None:
    """``None`` if ``value`` fits ``$defs/definition``, else one line: where and what is wrong."""
    error = jsonschema.exceptions.best_match(_validator(definition).iter_errors(value))
    if error is None:
        return None
    where = "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in error.absolute_path) or "(top level)"
    return f"{where}: {error.message}"


def output_definition(contract: str, op: str) -> str | None:
    """The ``$defs`` name an ``op``'s output must fit under ``contract`` (``None`` if unlisted)."""
    if op == "hello":
        return "hello_output"
    outputs = protocol_schema()["x-outputs"].get(contract, {})
    found = outputs.get(op, outputs.get("*"))
    return str(found) if found is not None else None
