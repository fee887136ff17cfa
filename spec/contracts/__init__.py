"""The contracts an alternative implementation plugs into (DESIGN.md, "Where the new uses live").

One small typing Protocol per pluggable part, each named after the upstream class it stands for,
with what is observable (compared exactly, compared as a set, optional) in its docstring. Every
contract speaks plain JSON-shaped values (dicts, lists, strings, numbers), the same values the
process protocol (``docs/protocol.md``) carries, so a Python plug-in and a process in another
language are validated the same way. :data:`CONTRACTS` lists them by their command-line name.
"""

from __future__ import annotations

from yarnspec.spec.contracts.registry import CONTRACTS, Contract, contract_named

__all__ = ["CONTRACTS", "Contract", "contract_named"]
