"""Tools for the places where specs are written: the formatter (`tlacheck fmt`) and the starter
(`tlacheck new`)."""
