"""model.py: the pipeline up to a compiled model; limits of Python's compiler become E008, not crashes."""

import pytest

from tlacheck.core.errors import SpecError
from tests.conftest import model_of


def compile_error(text: str):
    with pytest.raises(SpecError) as info:
        model_of(text)
    return info.value.diagnostics[0]


def test_issue_8_more_than_20_nested_loops_is_e008_at_the_action():
    """Found by fuzzing: 21 nested loops (parameters, `with` binders, `either`) broke Python's
    compiler ("too many statically nested blocks"), an internal error."""
    params = ", ".join(f"p{i} in {{1}}" for i in range(21))
    d = compile_error(f"var x: int = 0\naction Many({params}):\n    x = 1\n")
    assert d.code == "E008"
    assert (d.span.line, d.message) == (2, "cannot compile action `Many`: too many statically nested blocks")
    assert "20 nested loops" in d.hint
    eithers = "".join("    " * (i + 1) + "either:\n" + "    " * (i + 2) + "x = 1\n" + "    " * (i + 1) + "or:\n"
                      for i in range(21)) + "    " * 22 + "x = 2\n"
    assert compile_error("var x: int = 0\naction Deep:\n" + eithers).code == "E008"


def test_issue_8_more_than_20_initial_choices_is_e008_at_the_variable():
    decls = "".join(f"var x{i}: bool in {{true, false}}\n" for i in range(21))
    d = compile_error(decls + "action A:\n    x0 = not x0\n")
    assert d.code == "E008" and d.span.line == 21
    assert d.message.startswith("cannot compile the initial states (variable `x20`)")


def test_issue_8_long_assignment_path_is_e008():
    """An assignment target with many steps nests in the generated code, not in the syntax tree."""
    n = 85
    d = compile_error("var r: " + "seq[" * n + "int" + "]" * n + " = []\naction A:\n    r" + "[1]" * n + " = 1\n")
    assert (d.code, d.message) == ("E008", "cannot compile action `A`: too many nested parentheses")


def test_twenty_nested_loops_still_compile():
    params = ", ".join(f"p{i} in {{1}}" for i in range(20))
    model = model_of(f"var x: int = 0\naction Many({params}):\n    require x == 0\n    x = 1\n")
    assert len(model.actions) == 1


def test_every_generated_line_knows_its_declaration():
    """Generated.line_owners (what E008 and E406 are located by): the lines of each entry point
    belong to its declaration."""
    model = model_of("""
const N: int = 2
var x: int in 0..N
def f(n: int) -> int: n + 1
action A(p in 0..N):
    x = (f(x) + p) % 3
invariant I: x < 3
constraint C: x < 3
reachable R: x == 2
property P: always x >= 0
fair weak A
""")
    g = model.generated
    lines = g.source.split("\n")
    entries = g.entries
    roles = {entries.actions[0]: ("action", 0), entries.next_states[0]: ("action", 0),
             entries.invariants[0]: ("invariant", 0), entries.constraints[0]: ("constraint", 0),
             entries.reachables[0]: ("reachable", 0), entries.init: ("variable", 0)}
    current = None
    seen = set()
    for text, owner in zip(lines, g.line_owners):
        if text.startswith("def "):
            current = roles.get(text[4:].split("(")[0])
        elif current is not None and text.startswith("    ") and owner is not None:
            assert owner == current, (text, owner, current)
            seen.add(owner)
    assert seen == set(roles.values())
    kinds = {o[0] for o in g.line_owners if o is not None}
    assert {"constant", "function", "fairness", "property"} <= kinds
