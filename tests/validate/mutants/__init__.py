"""Deliberately broken implementations, one tiny Python adapter each: ``validate`` must catch
every one (tests/validate/test_mutants.py; the score: ``python benchmarks/mutants.py``)."""
