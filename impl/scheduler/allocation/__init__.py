"""One allocation: queue order, limits, requests and the scheduling mode."""
