"""Validating other implementations against the spec (``docs/validating.md``): adapters
(Python, entry points, processes speaking the JSON-lines protocol, the real Spark), the
protocol schema, and the conformance, differential, invariant and model-based phases."""
