"""The vocabulary every stage shares: source spans and typed errors (source, errors), the
static types (types), run-time values and their operations (runtime), their text and JSON
forms (values), and the results of a check (result). Imports nothing else of tlacheck.
"""
