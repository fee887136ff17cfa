"""The family of each contract ``validate`` drives."""

from __future__ import annotations

from yarnspec.impl.errors import InputError

from . import dispatch, placement, preemption
from .family import Family

FAMILIES: dict[str, Family] = {f.contract: f for f in (placement.FAMILY, dispatch.FAMILY, preemption.FAMILY)}


def family_of(contract: str) -> Family:
    """The family of ``contract``; one ``validate`` does not drive is an :class:`InputError`."""
    found = FAMILIES.get(contract)
    if found is None:
        raise InputError("<command line>", contract, f"validate does not drive this contract yet (it drives: {', '.join(FAMILIES)})")
    return found
