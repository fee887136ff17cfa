"""Asynchronous multi-node scheduling: the commit check and node sorting."""
