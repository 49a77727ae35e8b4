"""editing/analysis.py (issue 37 item 1): the scopes of the index, completion on a line being
typed, the quick fixes, highlighting a half-typed text, and what `analyse` does with a bug of
the front end. tests/test_lsp.py drives the same through the protocol."""

from __future__ import annotations

import pytest

from tlacheck.core.errors import Diagnostic
from tlacheck.core.files import read_source
from tlacheck.core.source import Source
from tlacheck.editing import analysis as A
from tests.conftest import SPECS, spec_files

SCOPES = """\
const T: set[model] = {t1, t2}
var x: int = 0

action A(a in T):
    with b in {1, 2}:
        x = b
    x = len({c for c in {1} if c > 0})

action B(d in T):
    x = 0

process P(self in T):
    var v: int = 0
    s:
        v = 1

variant V:
    var y: int = 0
    action C:
        y = x
    extend action A:
        before:
            require a == t1
"""


def analysed(text: str, name: str = "s.spec") -> A.Analysis:
    return A.analyse(Source(name, text))


def at(text: str, needle: str, n: int = 0, offset: int = 0) -> tuple[int, int]:
    """The 1-based line and column of the n-th `needle` (plus `offset`)."""
    i = -1
    for _ in range(n + 1):
        i = text.index(needle, i + 1)
    i += offset
    return text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)


def seen(text: str, needle: str, n: int = 0, offset: int = 0) -> set[str]:
    a = analysed(text)
    return {c.label for c in A.completions(a, *at(text, needle, n, offset)) if c.kind not in ("keyword", "builtin")}


def test_issue_37_a_bound_name_is_seen_in_its_scope_only():
    base = {"T", "t1", "t2", "x", "A", "B", "P", "V"}
    assert seen(SCOPES, "x = b") == base | {"a", "b"}
    assert seen(SCOPES, "c > 0") == base | {"a", "c"}
    assert seen(SCOPES, "x = 0\n\nprocess") == base | {"d"}  # not A's `a`
    assert seen(SCOPES, "v = 1") == base | {"self", "v", "s"}
    assert seen(SCOPES, "y = x") >= base | {"y", "C"}
    assert "y" not in seen(SCOPES, "x = 0\n\nprocess")  # a variant's variable, outside it


def test_issue_37_definitions_in_a_variant_and_an_extended_action():
    a = analysed(SCOPES)
    assert A.definition(a, *at(SCOPES, "y = x")) == A.symbol_at(a, *at(SCOPES, "var y", 0, 4))[0]
    # the parameter of the action a variant extends
    assert A.definition(a, *at(SCOPES, "a == t1")) == A.symbol_at(a, *at(SCOPES, "a in T"))[0]
    assert A.definition(a, *at(SCOPES, "extend action A", 0, 14)) == A.symbol_at(a, *at(SCOPES, "action A", 0, 7))[0]


def test_issue_37_a_refinement_mapping_names_the_abstract_specs_variables(tmp_path):
    (tmp_path / "abstract.spec").write_text("var total: int = 0\naction Add:\n    total = total + 1\n",
                                            encoding="utf-8")
    text = ('var n: int = 0\naction Inc:\n    n = n + 1\nrefines Abs "abstract.spec":\n    total = n\n')
    a = analysed(text, str(tmp_path / "impl.spec"))
    target = A.definition(a, *at(text, "total = n"))
    assert (target.file, target.line, target.column) == (str(tmp_path / "abstract.spec"), 1, 5)
    path = A.definition(a, *at(text, '"abstract.spec"', 0, 2))
    assert (path.file, path.line) == (str(tmp_path / "abstract.spec"), 1)


def test_issue_37_completion_on_a_line_being_typed_sees_its_declaration():
    text = SCOPES.replace("    x = 0\n\nprocess", "    x = 0\n    x = d +\n\nprocess")
    a = analysed(text)
    assert [p.diagnostic.code for p in a.problems] == ["E001"]  # so the parse leaves action B out
    assert "d" in seen(text, "d +\n", 0, 3)


def test_issue_37_completion_after_a_dot_lists_members_or_locals():
    text = SCOPES + "invariant I: P.v >= 0\n"
    a = analysed(text)
    assert [c.label for c in A.completions(a, *at(text, "P.v", 0, 2))] == ["v"]
    text = "enum E { on, off }\nvar e: E = E.\n"
    assert [c.label for c in A.completions(analysed(text), *at(text, "E.\n", 0, 2))] == ["on", "off"]


def test_issue_37_quick_fixes_replace_the_name_closest_to_the_hint():
    source = Source("q.spec", "var r: {phase: int} = {phase: 0}\ninvariant I: r.phas >= 0\n")
    d = Diagnostic("E106", "record {phase: int} has no field `phas`", source.span(2, 14, 2, 20),
                   "did you mean `phase`?")
    assert A.quick_fixes(source, d) == [("phase", source.span(2, 16, 2, 20))]
    assert A.quick_fixes(source, Diagnostic("E106", "no hint", source.span(2, 14, 2, 20))) == []


def test_issue_37_a_half_typed_text_is_highlighted_up_to_where_it_stops():
    text = "var x: int = 0  # the x\naction A:\n    x = x $ 1\n# after\n"
    kinds = [(line, column, kind) for line, column, _, kind, _ in A.highlights(analysed(text))]
    assert (1, 5, "variable") in kinds and (1, 17, "comment") in kinds
    assert (2, 1, "keyword") in kinds and (3, 7, "operator") in kinds
    assert not [k for k in kinds if k[0] == 3 and k[1] >= 11]  # nothing from the `$` on
    assert (4, 1, "comment") in kinds  # a comment after the error is still one


def test_issue_37_a_bug_of_the_front_end_is_a_problem_not_a_crash(monkeypatch):
    def broken(source):
        raise KeyError("boom")

    monkeypatch.setattr(A, "parse_recovering", broken)
    a = analysed("var x: int = 0\n")
    [problem] = a.problems
    assert problem.diagnostic.code == "internal" and "KeyError" in problem.diagnostic.message
    assert A.hover(a, 1, 5) is None and A.outline(a) == []


@pytest.mark.parametrize("name", ["action", "1x", "x-y", ""])
def test_issue_37_rename_refuses_what_is_not_a_name(name):
    a = analysed(SCOPES)
    with pytest.raises(A.RenameRefused):
        A.rename(a, *at(SCOPES, "var x", 0, 4), name)


@pytest.mark.parametrize("path", spec_files(), ids=lambda p: str(p.relative_to(SPECS)))
def test_issue_37_every_name_the_index_holds_is_written_where_it_says(path):
    """On every spec of the repository (the corpus aside): no error, and each place the index gives a symbol holds
    the symbol's name (a path, quoted), in whichever file it is."""
    source = read_source(str(path))
    a = A.analyse(source)
    assert [p.diagnostic.message for p in a.problems if p.diagnostic.severity != "warning"] == []
    assert a.index.symbols
    lines = {source.name: source.text.split("\n")}
    for symbol in a.index.symbols:
        for span in a.index.references(symbol):
            text = lines.setdefault(span.file, read_source(span.file).text.split("\n"))[span.line - 1]
            written = text[span.column - 1:span.end_column - 1]
            assert written == (f'"{symbol.name}"' if symbol.kind == "file" else symbol.name), (symbol, span)


def test_issue_37_every_builtin_has_the_language_references_words():
    """Hover over a builtin shows what language.md says of it: each one the page has (a row of a
    table that writes `name(`, or its own section), none for a name that is no builtin."""
    from tlacheck.lang.typecheck import BUILTINS

    page = " ".join((SPECS.parent / "docs" / "language.md").read_text(encoding="utf-8").split())
    for name in BUILTINS:
        text = A.builtin_help(name)
        assert text is not None and text.startswith(f"builtin function `{name}`"), name
        assert f"`{name}(" in text and text.split("\n\n")[1].split(" · ")[0] in page, name  # the page's words
    assert A.builtin_help("count") is None


def test_issue_37_hover_over_a_builtin_unless_a_declaration_has_its_name():
    a = analysed("var s: seq[int] = []\ninvariant I: len(s) >= 0\n")
    at, text = A.hover(a, 2, 15)
    assert (at.line, at.column, at.end_column) == (2, 14, 17)
    assert "`len(s)` · `seq[T] -> int`, `set[T] -> int`" in text
    assert A.hover(a, 2, 17) is None  # the bracket
    half = analysed("var s: seq[int] = []\ninvariant I: elems(")  # a line being typed
    assert "`elems(s)` · `seq[T] -> set[T]`" in A.hover(half, 2, 14)[1]
    shadowed = analysed("var s: int = 0\naction A:\n    let len = 2\n    s = len\n")
    assert "let len = 2" in A.hover(shadowed, 4, 9)[1]
