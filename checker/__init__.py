"""tlacheck: a TLA+-style explicit-state model checker in pure Python.

Pipeline (one direction): parser -> typecheck (IR) -> codegen/model -> explore
-> report. Only cli.py prints, writes files or exits.
"""

__version__ = "0.1.0"
