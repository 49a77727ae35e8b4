"""tlacheck: a TLA+-style explicit-state model checker in pure Python.

Stages, one package each, importing one way (docs/architecture.md, tests/test_architecture.py):
core <- ir <- lang <- compile <- engine, prove <- output <- conform <- app. Only app/cli.py prints, writes
files or exits.
"""

__version__ = "0.1.0"

# The version of the shape of every JSON object tlacheck prints (`--json`): MAJOR.MINOR, each
# object's `schema_version`; the schema is checker/output/tlacheck.schema.json, and docs/cli.md
# ("The JSON schema") says what bumps which number.
SCHEMA_VERSION = "2.2"
