"""What a scheduler world is built from: specs, variants, settings and bounds."""
