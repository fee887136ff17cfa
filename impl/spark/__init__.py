"""Spark on YARN: locality hints, container placement, the AM allocator, task dispatch."""
