"""Regression tests from counterexamples: a pytest file that guards a fix.

The file holds the trace and up to two tests:

* ``test_buggy_variant_still_shows_the_counterexample`` replays the trace under the variant it
  was found in (:func:`replay`: every step enabled and leading to the recorded state, the
  property still violated). It **fails when the buggy variant no longer produces this
  counterexample**: the model changed, so the trace must be re-explored and the file re-emitted.
* ``test_fixed_variant_keeps_the_property`` explores the fixed variant of the same scenario
  within the bounds written into the file and **fails when the fix regresses**: the property
  the trace violates is violated (or left unchecked) under the fix too.

Without a fixed variant only the first test is written.
"""

from __future__ import annotations

import pprint
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yarnspec.checks.explore.result import HOLDS, NOT_REFUTED, UNCHECKED, VACUOUS, ExploreResult
from yarnspec.checks.explore.trace import Trace
from yarnspec.impl.errors import InputError
from yarnspec.spec.transition_system import JSONValue

_FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


@dataclass(frozen=True)
class FixedVariant:
    """The fixed variant a test checks: the factory builds it as
    ``callable(**parameters, variant=variant)``; it is explored within the bounds given."""

    parameters: dict[str, JSONValue]
    variant: str
    max_depth: int | None = None
    max_states: int | None = None
    symmetry: bool = False
    #: what the variant stands for, written into the test's docstring
    about: str = field(default="")

    def to_json(self) -> dict[str, Any]:
        """JSON-able form (written into the emitted file)."""
        return {
            "parameters": self.parameters, "variant": self.variant, "max_depth": self.max_depth,
            "max_states": self.max_states, "symmetry": self.symmetry,
        }  # fmt: skip


def property_status(result: ExploreResult, kind: str, name: str) -> str:
    """The status of the property a trace of ``kind`` and ``name`` violated, in ``result``:
    ``holds``, ``not-refuted``, ``vacuous``, ``violated`` or ``unchecked``."""
    if kind == "progress":
        found = next((p for p in result.properties if p.name == name), None)
        return UNCHECKED if found is None else found.verdict.status
    return result.verdict.status


def guarded(status: str) -> bool:
    """Whether a fixed variant's status keeps the property (no violation found)."""
    return status in (HOLDS, NOT_REFUTED, VACUOUS)


def emit_test(trace: Trace, path: str | Path, factory: str, fixed: FixedVariant | None = None) -> Path:
    """Write a pytest file for ``trace`` (see the module docstring); ``factory`` is
    ``"package.module:callable"`` building a model as ``callable(**parameters, variant=...)``."""
    if not _FACTORY.match(factory):
        raise InputError("emit_test", "factory", f"expected 'package.module:callable', got {factory!r}")
    module, attribute = factory.split(":")
    # a trace carrying its world file builds the model from it (world_model's ``embedded``)
    carried = ", embedded=trace.world" if trace.world is not None else ""
    literal = pprint.pformat(trace.to_json(), width=100, sort_dicts=False)
    fixed_text = (
        ""
        if fixed is None
        else f"""

#: The fixed variant of the same scenario and the bounds it is explored within.
FIXED = {pprint.pformat(fixed.to_json(), width=100, sort_dicts=False)}


def test_fixed_variant_keeps_the_property() -> None:
    \"\"\"Fails when the fix regresses: {trace.property} is violated (or left unchecked) under
    {fixed.about or fixed.variant}.\"\"\"
    model = make_model(**FIXED["parameters"], variant=FIXED["variant"]{carried.replace("trace.", "Trace.from_json(TRACE).")})
    result = explore(model, max_depth=FIXED["max_depth"], max_states=FIXED["max_states"], symmetry=FIXED["symmetry"], show_progress=False)
    status = property_status(result, TRACE["kind"], TRACE["property"])
    assert guarded(status), f"{{TRACE['property']}} is {{status}} under the fix: {{result.verdict.text}}"
"""
    )
    imports = (
        "from yarnspec.checks.explore import explore\nfrom yarnspec.checks.explore.emit import guarded, property_status\n"
        if fixed
        else ""
    )
    fix_line = (
        ""
        if fixed is None
        else f"\ntest_fixed_variant_keeps_the_property fails when the fix ({fixed.about or fixed.variant}) regresses."
    )
    text = f'''"""Regression test from a counterexample of {trace.model} (variant {trace.variant or "none"}):
{trace.kind} {trace.property}.

Written by yarnspec.checks.explore.emit.emit_test. test_buggy_variant_still_shows_the_counterexample
fails when the buggy variant no longer produces this counterexample (re-explore and re-emit).{fix_line}
"""

{imports}from yarnspec.checks.explore.trace import Trace, replay
from {module} import {attribute} as make_model

TRACE = {literal}


def test_buggy_variant_still_shows_the_counterexample() -> None:
    """Fails when the buggy variant no longer produces this counterexample."""
    trace = Trace.from_json(TRACE)
    model = make_model(**trace.parameters, variant=trace.variant{carried})
    assert replay(model, trace).startswith("{trace.kind}")
{fixed_text}'''
    target = Path(path)
    target.write_text(text, encoding="utf-8")
    return target
