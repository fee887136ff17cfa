"""What must hold of Spark's allocator, placement strategy and task dispatch."""
