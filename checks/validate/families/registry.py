"""The family of each contract ``validate`` drives."""

from __future__ import annotations

from yarnspec.checks.validate.families import (
    candidate_selector,
    dispatch,
    node_sorting,
    placement,
    preemption,
    scheduler,
)
from yarnspec.checks.validate.families.family import Family
from yarnspec.impl.errors import InputError

FAMILIES: dict[str, Family] = {
    f.contract: f
    for f in (
        placement.FAMILY,
        dispatch.FAMILY,
        preemption.FAMILY,
        candidate_selector.FAMILY,
        node_sorting.FAMILY,
        scheduler.FAMILY,
    )
}


def family_of(contract: str) -> Family:
    """The family of ``contract``; one ``validate`` does not drive is an :class:`InputError`."""
    found = FAMILIES.get(contract)
    if found is None:
        raise InputError(
            "<command line>", contract, f"validate does not drive this contract yet (it drives: {', '.join(FAMILIES)})"
        )
    return found
