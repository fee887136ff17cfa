"""Validating other implementations against the spec (DESIGN.md, "validating alternative
implementations")."""
