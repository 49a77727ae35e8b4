"""parser.py: text to AST, syntax errors with positions."""

import dataclasses
import os
import subprocess
import sys

import pytest
from lark import Token, Tree

from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import parse, parse_expression
from tests.conftest import ROOT, spec_error


def parse_text(text: str) -> S.SpecFile:
    return parse(Source("p.spec", text))


def syntax_error(text: str):
    with pytest.raises(SpecError) as info:
        parse_text(text)
    return info.value.diagnostics[0]


FULL = """\
spec Demo
# a comment
const N: int = 3
const RM: set[model] = {r1, r2}
enum Phase { idle, busy }
var x: 0..N in 0..2
var m: map[RM, Phase] = {r -> idle for r in RM}
var q: seq[{a: int, b: bool?}] = []

action Step(r in RM):
    require m[r] == idle and x < N
    m[r] = busy
    let y = x + 1
    if y > 2:
        x = 0
    elif y == 1: x = 1
    else:
        either:
            x = y
        or:
            skip
    with k in 1..2:
        q = append(q, {a: k, b: none})

def double(n: int) -> int:
    let two = 2
    n * two

invariant Bounded:
    x <= N
    and all(m[r] in Phase for r in RM)
constraint Small: len(q) < 3
"""


def walk(node):
    yield node
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from walk(getattr(node, f.name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from walk(item)


def test_full_spec_parses_into_declarations():
    tree = parse_text(FULL)
    kinds = [type(d).__name__ for d in tree.declarations]
    assert tree.name == "Demo"
    assert kinds == ["ConstDecl", "ConstDecl", "EnumDecl", "VarDecl", "VarDecl", "VarDecl", "ActionDecl",
                     "DefDecl", "InvariantDecl", "ConstraintDecl"]


def test_no_lark_object_survives_into_the_ast():
    for node in walk(parse_text(FULL)):
        assert not isinstance(node, (Tree, Token)), node


def test_every_node_has_a_span_inside_the_file():
    lines = FULL.count("\n") + 1
    for node in walk(parse_text(FULL)):
        if isinstance(node, S.Node):
            assert 1 <= node.span.line <= lines and node.span.column >= 1


def test_and_at_line_start_continues_the_expression():
    inv = parse_text(FULL).declarations[8]
    assert isinstance(inv.body, S.BinOp) and inv.body.op == "and"


def test_either_or_blocks():
    action = parse_text(FULL).declarations[6]
    if_stmt = action.body[3]
    either = if_stmt.orelse[0]
    assert isinstance(either, S.Either) and len(either.branches) == 2


def test_operator_precedence():
    e = parse_expression(Source("e", "a or b and not c == d + 1 * 2"))
    assert e.op == "or"
    assert e.right.op == "and"
    assert isinstance(e.right.right, S.Not)
    cmp = e.right.right.operand
    assert cmp.op == "==" and cmp.right.op == "+" and cmp.right.right.op == "*"


def test_implies_is_right_associative_and_lowest():
    e = parse_expression(Source("e", "a implies b implies c or d"))
    assert e.op == "implies" and e.right.op == "implies" and e.right.right.op == "or"


def test_negative_literal_folds():
    e = parse_expression(Source("e", "-3"))
    assert isinstance(e, S.IntLit) and e.value == -3


def test_collection_literals():
    assert isinstance(parse_expression(Source("e", "{}")), S.SetLit)
    assert isinstance(parse_expression(Source("e", "{a: 1}")), S.RecordLit)
    assert isinstance(parse_expression(Source("e", "{a -> 1}")), S.MapLit)
    assert isinstance(parse_expression(Source("e", "{x -> 1 for x in S}")), S.MapComp)
    assert isinstance(parse_expression(Source("e", "{x for x in S if x > 1}")), S.SetComp)
    assert isinstance(parse_expression(Source("e", "[x for x in 1..3]")), S.SeqComp)
    assert isinstance(parse_expression(Source("e", "(1, 2)")), S.TupleLit)
    call = parse_expression(Source("e", "all(x > 0 for x in S for y in T if x < y)"))
    assert isinstance(call, S.Call) and len(call.comprehension.generators) == 2


def test_unexpected_token_has_position_and_expectation():
    d = syntax_error("spec A\nvar x: int = \n")
    assert d.code == "E001"
    assert (d.span.line, d.span.column) == (2, 14)
    assert "end of line" in d.message


def test_keyword_used_as_name():
    d = syntax_error("var in: int = 0\n")
    assert d.code == "E001"
    assert "keyword" in d.hint


def test_unexpected_character():
    d = syntax_error('var x: int = 3 $ 4\n')
    assert d.code == "E002"
    assert (d.span.line, d.span.column) == (1, 16)


def test_string_outside_a_variant_description():
    d = syntax_error('var x: int = "a"\n')
    assert d.code == "E001"
    assert (d.span.line, d.span.column) == (1, 14)
    assert "strings" in d.hint


def test_bad_indentation():
    d = syntax_error("action A:\n    x = 1\n  x = 2\n")
    assert d.code == "E003"
    assert d.span.line == 3


def test_unexpected_indent():
    d = syntax_error("var x: int = 0\n    var y: int = 0\n")
    assert d.code == "E003"


def test_unfinished_block_at_end_of_file():
    d = syntax_error("action A:\n")
    assert d.code in ("E001", "E004")
    assert d.span.line >= 1


def test_huge_integer_literal_is_an_error():
    d = syntax_error("const N: int = " + "9" * 40 + "\n")
    assert d.code == "E005"


# ---------------------------------------------------------------- issue 8: nesting limit (found by fuzzing)

@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{", "}"), ("not ", ""), ("-", ""), ("(1 + ", ")"),
                                            ("f(", ")"), ("set[", "]")])
def test_issue_8_deep_nesting_is_e007_not_a_recursion_error(opener, closer):
    """Nesting past MAX_NESTING used to end in RecursionError (an internal error)."""
    from tlacheck.lang.parser import MAX_NESTING

    for depth in (MAX_NESTING + 1, 20_000):
        text = f"const C: {opener * depth}int{closer * depth} = 1\n" if opener == "set[" else \
            f"var x: int = {opener * depth}1{closer * depth}\n"
        d = syntax_error(text)
        assert d.code == "E007", d
        assert d.span.line == 1 and d.span.column > 1


def test_issue_8_nesting_just_under_the_limit_parses():
    from tlacheck.lang.parser import MAX_NESTING

    parse_text("var x: int = " + "-" * (MAX_NESTING - 5) + "1\n")


def test_issue_8_let_lines_and_generators_count_as_nesting():
    """`let` lines and generators nest in the IR and in generated code, though they are flat in the text."""
    lets = "".join(f"    let y{i} = {i}\n" for i in range(150))
    assert syntax_error(f"invariant I:\n{lets}    true\n").code == "E007"
    gens = " ".join(f"for y{i} in {{1}}" for i in range(150))
    assert syntax_error(f"invariant I: all(true {gens})\n").code == "E007"


def test_issue_8_deep_define_value_is_e007():
    with pytest.raises(SpecError) as info:
        parse_expression(Source("-D N", "[" * 5000 + "1" + "]" * 5000))
    assert info.value.diagnostics[0].code == "E007"


def test_issue_8_bounded_sequence_type():
    tree = parse(Source("t.spec", "const N: int = 2\nvar q: seq[int, N + 1] = []\nvar r: seq[bool] = []\n"))
    q, r = tree.declarations[1].type, tree.declarations[2].type
    assert isinstance(q, S.SeqType) and isinstance(q.element, S.IntType)
    assert isinstance(q.limit, S.BinOp) and q.limit.op == "+"
    assert r.limit is None
    with pytest.raises(SpecError) as info:
        parse(Source("t.spec", "var q: seq[int, len(x)] = []\n"))
    assert info.value.diagnostics[0].code == "E001"


# ---------------------------------------------------------------- issue 8: parenthesised types

def without_spans(node):
    """An AST node as nested tuples of its class and fields, spans left out."""
    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple(without_spans(getattr(node, f.name))
                                              for f in dataclasses.fields(node) if f.name != "span")
    if isinstance(node, (tuple, list)):
        return tuple(map(without_spans, node))
    return node


def type_of(text: str):
    return parse_text(f"var x: {text} = none\n").declarations[0].type


@pytest.mark.parametrize("grouped, plain", [
    ("(seq[int, 1])?", "seq[int, 1]?"),
    ("(seq[Msg, N + 1])?", "seq[Msg, N + 1]?"),
    ("(seq[int])?", "seq[int]?"),
    ("(set[int])?", "set[int]?"),
    ("(map[K, 0..3])?", "map[K, 0..3]?"),
    ("(0..3)?", "0..3?"),
    ("({a: int, b: bool?})?", "{a: int, b: bool?}?"),
    ("((int, bool))?", "(int, bool)?"),
    ("(Phase)?", "Phase?"),
    ("(int)", "int"),
    ("(((bool)))?", "bool?"),
    ("set[(int)?]", "set[int?]"),
    ("(int?)", "int?"),
])
def test_issue_8_a_parenthesised_type_is_the_type_inside(grouped, plain):
    """`(seq[int, 1])?` was E001 "unexpected `)`": a type in parentheses was read as a tuple
    type, which needs two elements or more."""
    assert without_spans(type_of(grouped)) == without_spans(type_of(plain))


@pytest.mark.parametrize("text, plain", [("(int, bool,)", "(int, bool)"), ("(0..3, (int, int,),)", "(0..3, (int, int))")])
def test_a_tuple_type_takes_a_trailing_comma_as_a_tuple_does(text, plain):
    assert without_spans(type_of(text)) == without_spans(type_of(plain))


def test_issue_8_parentheses_around_a_type_add_no_nesting():
    """As in expressions, parentheses alone do not count towards the nesting limit (E007)."""
    inner = type_of("(" * 5000 + "int" + ")" * 5000 + "?").inner
    assert isinstance(inner, S.IntType) and inner.span.column == 5008


@pytest.mark.parametrize("text, column", [("()", 9), ("(int,)", 13), ("(int)??", 13), ("(int)? ?", 15)])
def test_issue_8_what_parentheses_do_not_make_a_type(text, column):
    d = syntax_error(f"var x: {text} = none\n")
    assert (d.code, d.span.column) == ("E001", column)


def test_an_option_of_an_option_written_with_the_coalescing_token_says_so():
    d = syntax_error("var x: int?? = none\n")
    assert (d.code, d.span.column) == ("E001", 11)
    assert d.hint.startswith("an option of an option (`T??`) is not allowed")


def test_issue_8_an_option_of_an_option_in_parentheses_is_a_type_error():
    d = spec_error("var x: (int?)? = none\naction A:\n    x = x\n")
    assert (d.code, d.message, d.span.column) == ("E107", "an option of an option is not allowed", 8)


@pytest.mark.parametrize("text, kind", [("var x = 0\n", "variable"), ("const N = 3\n", "constant"),
                                        ("  const  Limits = {1, 2}\n", "constant")])
def test_a_declaration_without_a_type_says_where_the_type_goes(text, kind):
    d = syntax_error(text.lstrip())
    name = text.split()[1]
    assert d.code == "E001" and d.hint.startswith(f"a {kind} needs a type before its value: ")
    assert f"`{text.split()[0]} {name}: T = ...`" in d.hint


@pytest.mark.parametrize("line, hint", [
    ("require x = 1", "compare with `==`; `=` assigns, and only at the start of a statement"),
    ("x += 1", "there is no `+=`: write `x = x + 1`"),
    ("x *= 2 + x", "there is no `*=`: write `x = x * (2 + x)`"),
    ("require x > 0 && x < 3", "write `and` (`&` is set intersection)"),
    ("require x > 0 || x < 3", "write `or` (`|` is set union)"),
])
def test_operators_from_other_languages_get_a_hint(line, hint):
    d = syntax_error(f"var x: 0..3 = 0\naction A:\n    {line}\n")
    assert (d.code, d.hint) == ("E001", hint)


def test_set_operators_keep_the_generic_hint():
    """`&` and `|` alone are set operators; misplaced, they get the usual "expected" hint."""
    d = syntax_error("var s: set[int] = {}\naction A:\n    s = s & | s\n")
    assert d.code == "E001" and "set intersection" not in (d.hint or "") and "set union" not in (d.hint or "")


# ---------------------------------------------------------------- the grammar cache

def _parse_in_a_child(env: dict) -> subprocess.CompletedProcess:
    code = "from tlacheck.lang.parser import parse_expression\nfrom tlacheck.core.source import Source\n" \
           "print(parse_expression(Source('-D N', '1 + 2')).__class__.__name__)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env})


def test_the_grammar_cache_is_private_to_the_user(tmp_path):
    """The analysed grammar is cached in the user's own folder (a pickle in the shared /tmp,
    Lark's default, could be planted by another user), and a cached parser parses alike."""
    folder = tmp_path / "cache"
    first = _parse_in_a_child({"TLACHECK_CACHE_DIR": str(folder)})
    second = _parse_in_a_child({"TLACHECK_CACHE_DIR": str(folder)})
    assert first.returncode == second.returncode == 0 and first.stdout == second.stdout != ""
    files = list(folder.iterdir())
    assert len(files) == 1 and files[0].name.startswith("grammar-py")
    assert oct(folder.stat().st_mode & 0o777) == oct(0o700)


def test_no_cache_in_a_folder_others_can_write(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    out = _parse_in_a_child({"TLACHECK_CACHE_DIR": str(folder)})
    assert out.returncode == 0 and out.stderr == ""
    assert list(folder.iterdir()) == []  # parsed without writing a cache there


def test_a_corrupt_cache_file_is_rebuilt_silently(tmp_path):
    folder = tmp_path / "cache"
    assert _parse_in_a_child({"TLACHECK_CACHE_DIR": str(folder)}).returncode == 0
    (cache,) = folder.iterdir()
    cache.write_bytes(b"not a grammar\n")
    out = _parse_in_a_child({"TLACHECK_CACHE_DIR": str(folder)})
    assert out.returncode == 0 and out.stderr == ""


# ---------------------------------------------------------------- issue 15: line continuation

def without_positions(node):
    """without_spans, with the name spans of declarations and bound names left out too."""
    shape = without_spans(node)

    def strip(x):
        if isinstance(x, tuple):
            return () if x[:1] == ("Span",) else tuple(map(strip, x))
        return x
    return strip(shape)


@pytest.mark.parametrize("continued, one_line", [
    # `=` at the end of a line, the value on the next
    ("var x: int =\n    0\n", "var x: int = 0\n"),
    ("var x: int = 0\naction A:\n    x =\n        x + 1\n", "var x: int = 0\naction A:\n    x = x + 1\n"),
    # the `->` of a def on the next line
    ("def F(a: int)\n        -> int: a + 1\n", "def F(a: int) -> int: a + 1\n"),
    # a def whose parameter list continues on the next line (inside brackets)
    ("def F(a: int,\n      b: int) -> int: a + b\n", "def F(a: int, b: int) -> int: a + b\n"),
    # a leading `|` of a union chain on continuation lines
    ("var s: set[int] = {1}\n    | {2}\n    | {3}\n", "var s: set[int] = {1} | {2} | {3}\n"),
    ("var s: set[int] = {}\naction A:\n    s = s\n        | {3}\n", "var s: set[int] = {}\naction A:\n    s = s | {3}\n"),
    # a multi-line if-then-else in a def body: leading `then`/`else`, or trailing `then`/`else`
    ("def F(a: int) -> int:\n    if a < 2\n    then a + 1\n    else 0\n", "def F(a: int) -> int: if a < 2 then a + 1 else 0\n"),
    ("def F(a: int) -> int:\n    if a < 2 then\n        a + 1\n    else\n        0\n",
     "def F(a: int) -> int: if a < 2 then a + 1 else 0\n"),
    # after a binary operator, and before one on a line indented as far as the statement
    ("invariant I: 1 +\n    2 == 3\n", "invariant I: 1 + 2 == 3\n"),
    ("invariant I:\n    1 + 2\n    == 3\n", "invariant I: 1 + 2 == 3\n"),
    ("var x: int = 0\naction A:\n    require x\n        < 3\n    x = 1\n", "var x: int = 0\naction A:\n    require x < 3\n    x = 1\n"),
    # a comment between the lines
    ("var x: int =   # the start\n    0\n", "var x: int = 0\n"),
])
def test_issue_15_a_statement_continues_on_the_next_line(continued, one_line):
    assert without_positions(parse_text(continued)) == without_positions(parse_text(one_line))


def test_issue_15_clauses_of_statements_are_not_continuations():
    """`or:`, `else:` and `elif COND:` start a clause, even where a continuation would fit."""
    text = ("var x: int = 0\naction A:\n    if x == 0: x = 1\n    elif x == 1: x = 2\n    else: x = 0\n"
            "action B:\n    either: x = 1\n    or: x = 2\n")
    a, b = parse_text(text).declarations[1:]
    assert [len(a.body[0].branches), a.body[0].orelse is not None] == [2, True]
    assert len(b.body[0].branches) == 2


@pytest.mark.parametrize("text, line, column, got, hint", [
    # a line indented less than the statement ends it: the operator is left without an operand
    ("var x: int = 0\naction A:\n    x = x +\n1\n", 3, 12, "end of line",
     "a line cannot end with `+`: continue on the next line, indented at least as far as the line "
     "the statement starts on"),
    ("var x: int =\n", 1, 13, "end of line",
     "a line cannot end with `=`: continue on the next line, indented at least as far as the line "
     "the statement starts on"),
    # ... and a leading operator there does not continue the statement above
    ("var s: set[int] = {}\naction A:\n    s = s\n| {3}\n", 4, 1, "`|`", None),
    ("def F(a: int) -> int:\n    if a < 2\n  then 1 else 0\n", 2, 13, "end of line", "expected `then`"),
])
def test_issue_15_a_real_dedent_still_ends_the_statement(text, line, column, got, hint):
    d = syntax_error(text)
    assert (d.code, d.span.line, d.span.column, d.message, d.hint) == ("E001", line, column, f"unexpected {got}", hint)


def test_issue_15_an_unfinished_def_header_expects_the_arrow():
    """Lark numbers the terminals it names itself: the hint shows `->`, not another one's text."""
    d = syntax_error("def F(a: int)\nvar x: int = 0\n")
    assert (d.code, d.span.line, d.span.column, d.hint) == ("E001", 1, 14, "expected `->`")


# ---------------------------------------------------------------- issue 15: messages

@pytest.mark.parametrize("text, line, column", [
    ("var x: int = 0\n    var y: int = 0\n", 2, 5),
    ("# a comment\n\n    var x: int = 0\n", 3, 5),
    ("var x: int = 0\naction A:\n    require x < 3\n        x = x + 1\n", 4, 9),
])
def test_issue_15_unexpected_indentation_points_at_the_indented_line(text, line, column):
    d = syntax_error(text)
    assert (d.code, d.span.line, d.span.column, d.message, d.hint) == (
        "E003", line, column, "unexpected indentation", "this line is indented more than the one before it")


@pytest.mark.parametrize("statement, got", [
    ("x < 3", "<"), ("x == 3  # full", "=="), ("x in {1, 2}", "in"), ("x not in {1}", "not"),
])
def test_issue_15_a_guard_without_require_says_to_write_require(statement, got):
    d = syntax_error(f"var x: int = 0\naction A:\n    {statement}\n    x = 1\n")
    assert (d.code, d.span.line, d.span.column, d.message) == ("E001", 3, 7, f"unexpected `{got}`")
    assert d.hint == f"write `require {statement.split('#')[0].strip()}` " \
                     "(a guard: the action is enabled only where it holds)"


@pytest.mark.parametrize("expr, column, hint", [
    ("true == not b", 17, "add parentheses: `true == (not b)`"),
    ("b and (b != not b)", 21, "add parentheses: `b != (not b)`"),
    ("b in {true} | not {b} or b", 23, "add parentheses: `b in {true} | (not {b})`"),
])
def test_issue_15_not_after_an_operator_says_to_add_parentheses(expr, column, hint):
    d = syntax_error(f"var b: bool = true\naction A:\n    b = {expr}\n")
    assert (d.code, d.span.line, d.span.column, d.message, d.hint) == ("E001", 3, column, "unexpected `not`", hint)


# ---------------------------------------------------------------- issue 15: elif in expressions

@pytest.mark.parametrize("with_elif, nested", [
    ("if a then 1 elif b then 2 else 3", "if a then 1 else (if b then 2 else 3)"),
    ("if a then 1 elif b then 2 elif c then 3 else 4", "if a then 1 else (if b then 2 else (if c then 3 else 4))"),
    ("if a then (if b then 1 elif c then 2 else 3) elif d then 4 else 5",
     "if a then (if b then 1 else (if c then 2 else 3)) else (if d then 4 else 5)"),
    ("\n    if a then 1\n    elif b then 2\n    else 3", "if a then 1 else (if b then 2 else 3)"),
])
def test_issue_15_elif_in_an_expression_is_an_if_in_the_else(with_elif, nested):
    def body(expr):
        return parse_text(f"def F(a: bool, b: bool, c: bool, d: bool) -> int: {expr}\n").declarations[0].body
    assert without_positions(body(with_elif)) == without_positions(body(nested))


def test_issue_15_an_elif_spans_from_elif_to_the_end():
    inner = parse_text("invariant I: if true then 1 elif false then 2 else 3 == 3\n").declarations[0].body.orelse
    assert (inner.span.line, inner.span.column, inner.span.end_column) == (1, 29, 58)


def test_issue_15_an_elif_needs_its_then():
    d = syntax_error("def F(a: bool) -> int: if a then 1 elif a 2 else 3\n")
    assert (d.code, d.span.line, d.span.column, d.message) == ("E001", 1, 43, "unexpected `2`")
    assert d.hint == ("an `if` in an expression reads `if c then a else b`, with any number of `elif d then e` "
                      "before the `else`, which is required")


def test_issue_15_the_deadlock_declaration_parses():
    deadlock, x = parse_text("deadlock: allowed\nvar x: int = 0\n").declarations
    assert isinstance(deadlock, S.DeadlockDecl) and deadlock.allowed and deadlock.name == S.DEADLOCK
    assert not parse_text("deadlock: forbidden\n").declarations[0].allowed


def test_issue_15_deadlock_stays_a_name_outside_its_declaration():
    # a soft keyword: only at the start of a line, before `:`
    tree = parse_text("var deadlock: {deadlock: int} = {deadlock: 1}\n"
                      "action A:\n    deadlock = {deadlock: deadlock.deadlock + 1}\n")
    assert [d.name for d in tree.declarations] == ["deadlock", "A"]


def test_issue_15_deadlock_takes_one_of_two_words():
    d = syntax_error("deadlock: ignored\n")
    assert d.code == "E001" and (d.span.line, d.span.column) == (1, 11)
    assert "`deadlock: allowed`" in d.hint and "`deadlock: forbidden`" in d.hint


def test_issue_15_the_init_declaration_and_a_variable_without_a_value_parse():
    x, y, init = parse_text("var x: 0..3\nvar y: int = 1\ninit:\n    let s = x + y\n    s < 3\n").declarations
    assert (x.init, x.choice) == (None, False)  # `var x: 0..3`: no initial value
    assert isinstance(y.init, S.IntLit)
    assert isinstance(init, S.InitDecl) and init.name == S.INIT and isinstance(init.body, S.LetExpr)


def test_issue_15_init_stays_a_name_outside_its_declaration():
    tree = parse_text("var init: {init: bool} = {init: true}\naction A:\n    init = {init: not init.init}\n")
    assert [d.name for d in tree.declarations] == ["init", "A"]


# ---------------------------------------------------------------- recovery (issue 37)

from tlacheck.lang.parser import MAX_SYNTAX_ERRORS, parse_recovering  # noqa: E402

RECOVERY = """\
spec Recover
var x: int = 0
var y: int = = 1

action Inc:
    require x < 3
    x = x +

action Dec:
    x = x - 1

variant Fix:
    action Broken:
        x == 2
invariant Small: x <= 3
"""


def test_issue_37_every_declaration_with_a_syntax_error_is_reported_in_order():
    with pytest.raises(SpecError) as info:
        parse_text(RECOVERY)
    found = [(d.code, d.span.line, d.span.column) for d in info.value.diagnostics]
    assert found == [("E001", 3, 14), ("E001", 7, 12), ("E001", 14, 11)]


def test_issue_37_the_recovered_ast_keeps_the_declarations_without_errors_at_their_lines():
    spec, diagnostics = parse_recovering(Source("p.spec", RECOVERY))
    assert len(diagnostics) == 3
    assert spec.name == "Recover"
    assert [(type(d).__name__, d.name, d.span.line) for d in spec.declarations] == [
        ("VarDecl", "x", 2), ("ActionDecl", "Dec", 9), ("InvariantDecl", "Small", 15)]


def test_issue_37_a_file_without_errors_recovers_nothing():
    spec, diagnostics = parse_recovering(Source("p.spec", FULL))
    assert diagnostics == []
    assert spec == parse_text(FULL)


def test_issue_37_an_unfinished_last_declaration_is_one_error_and_the_rest_parses():
    spec, diagnostics = parse_recovering(Source("p.spec", "spec S\nvar x: int = 0\naction A:\n"))
    assert [d.code for d in diagnostics] == ["E004"]
    assert [d.name for d in spec.declarations] == ["x"]


def test_issue_37_an_error_in_a_line_that_starts_no_declaration_blanks_the_one_before():
    # `x = 1` at column 0 starts a (bad) declaration of its own; the action before it is kept
    spec, diagnostics = parse_recovering(Source("p.spec", "var x: int = 0\naction A:\n    x = 2\nx = 1\n"))
    assert [(d.code, d.span.line) for d in diagnostics] == [("E001", 4)]
    assert [d.name for d in spec.declarations] == ["x", "A"]


def test_issue_37_recovery_stops_after_the_most_errors_it_reports():
    text = "".join(f"var v{i}: int = = {i}\n" for i in range(MAX_SYNTAX_ERRORS + 5))
    spec, diagnostics = parse_recovering(Source("p.spec", text))
    assert spec is None
    assert len(diagnostics) == MAX_SYNTAX_ERRORS
    assert [d.span.line for d in diagnostics] == list(range(1, MAX_SYNTAX_ERRORS + 1))


def test_issue_37_a_bad_character_and_a_bad_indentation_are_both_reported():
    text = "var x: int = 0\naction A:\n    x = 1 ! 2\naction B:\n    x = 1\n      x = 2\ninvariant I: x >= 0\n"
    spec, diagnostics = parse_recovering(Source("p.spec", text))
    assert [(d.code, d.span.line) for d in diagnostics] == [("E002", 3), ("E003", 6)]
    assert [d.name for d in spec.declarations] == ["x", "I"]


# ---------------------------------------------------------------- lexemes (issue 37)

from tlacheck.lang.parser import lexemes  # noqa: E402


def test_issue_37_lexemes_are_the_parsers_tokens_with_comments_and_continuations():
    text = ('type T = int  # a type\nvar x: int = 1 // \\\n    2\ndef f(a: int) -> int: a\nconform:\n    event "a # b" = A\n'
            'invariant I:\n    x > 0\n    and x < 9\n')
    found = [(t.kind, t.text, t.line, t.column, t.continues) for t in lexemes(Source("l.spec", text))]
    assert found[:6] == [("TYPE_KW", "type", 1, 1, False), ("NAME", "T", 1, 6, False), ("EQUAL", "=", 1, 8, False),
                         ("INT_TYPE", "int", 1, 10, False),
                         ("COMMENT", "# a type", 1, 15, False), ("VAR", "var", 2, 1, False)]
    assert ("FLOORDIV", "//", 2, 16, False) in found and ("BACKSLASH", "\\", 2, 19, False) in found
    assert ("ARROW", "->", 4, 15, False) in found
    assert not any(t[0].startswith("__") for t in found)  # no name of Lark's own
    assert ("INT", "2", 3, 5, True) in found  # goes on with the line before (after `\`)
    assert ("STRING", '"a # b"', 6, 11, False) in found  # a `#` inside a string is no comment
    assert not any(t[0] == "COMMENT" and t[2] == 6 for t in found)
    assert [t[4] for t in found if t[2] == 9][0]  # `and` at the start of a line continues the invariant
    assert not [t[4] for t in found if t[2] == 8][0]  # the invariant's body starts a block


def test_issue_37_lexemes_of_a_text_that_does_not_lex_stop_at_the_error_when_partial():
    source = Source("l.spec", "var x: int = 1 $ 2\n# after\n")
    with pytest.raises(Exception):
        lexemes(source)
    found = [(t.kind, t.text) for t in lexemes(source, partial=True)]
    assert found == [("VAR", "var"), ("NAME", "x"), ("COLON", ":"), ("INT_TYPE", "int"), ("EQUAL", "="),
                     ("INT", "1"), ("COMMENT", "# after")]


def test_issue_37_keywords_hold_the_soft_ones():
    from tlacheck.lang.parser import KEYWORDS

    assert {"action", "var", "type", "block", "process", "await", "goto", "import", "conform"} <= KEYWORDS
    assert "len" not in KEYWORDS and "x" not in KEYWORDS
