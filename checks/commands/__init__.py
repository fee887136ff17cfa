"""The ``yarnspec`` sub-commands: one module per sub-command (its options and its handler)."""
