"""Per contract: how conformance cases become calls, how inputs are generated (Hypothesis for
differential runs, seeded simulation for model-based runs) and how a disagreement becomes a
case file for ``yarnspec conform``."""

from __future__ import annotations

from yarnspec.checks.validate.families.family import Family
from yarnspec.checks.validate.families.registry import family_of

__all__ = ["Family", "family_of"]
