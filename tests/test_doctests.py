"""The examples in the docstrings of the public entry points a user imports run, and print what
they show: world loading, properties and the property catalogue, and the contracts a Python
adapter implements (``spec/contracts``: what is compared, which invariants hold). They run as
``yarnspec.*`` modules (``pytest --doctest-modules spec/...`` would import them under another
name, outside the package)."""

from __future__ import annotations

import doctest
import importlib

import pytest

#: The modules whose examples are tested; each must have some.
MODULES = (
    "yarnspec.spec.worlds.world_file",
    "yarnspec.spec.property",
    "yarnspec.spec.property_catalogue",
    "yarnspec.spec.contracts",
)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
