"""Real programs checked against the specs with `tlacheck conform` (examples/README.md)."""
