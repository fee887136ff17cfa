"""The conformance runner for Hadoop's and Spark's own test cases kept as data."""
