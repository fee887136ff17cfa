"""Shared test configuration: Hypothesis profiles and the location of the shared cases."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

#: ``../shared/conformance`` relative to the project root (the folder holding pyproject.toml).
PROJECT_ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE_DIR = Path(os.environ.get("YARNSPEC_CONFORMANCE", PROJECT_ROOT.parent / "shared" / "conformance"))

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "long", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
