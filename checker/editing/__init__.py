"""Tools for the places where specs are written: the formatter (`tlacheck fmt`)."""
