"""The property and scenario suites behind ``yarnspec check``, and the generators they draw from."""
