"""typecheck.py: every static error code, the warnings, and the IR it builds."""

import dataclasses

import pytest

from tlacheck.core import types as T
from tlacheck.core.errors import UsageError
from tlacheck.lang import syntax as S
from tests.conftest import model_of, spec_error


def test_unknown_name_suggests_the_nearest():
    d = spec_error("""
        var notified: bool = false
        action A:
            require not notifed
            notified = true
        """)
    assert d.code == "E100"
    assert (d.span.line, d.span.column) == (3, 17)
    assert d.hint == "did you mean `notified`?"


def test_unknown_variable_in_assignment():
    d = spec_error("""
        var count: int = 0
        action A:
            cont = count + 1
        """)
    assert d.code == "E100" and "count" in d.hint


def test_unknown_function():
    d = spec_error("""
        var x: int = 0
        action A:
            x = lenn({1})
        """)
    assert d.code == "E100" and d.hint == "did you mean `len`?"


def test_duplicate_declaration():
    d = spec_error("""
        var x: int = 0
        var x: bool = true
        """)
    assert d.code == "E101" and d.span.line == 2


def test_duplicate_enum_member():
    d = spec_error("enum E { a, b, a }\n")
    assert d.code == "E101"


def test_assignment_type_mismatch():
    d = spec_error("""
        var x: int = 0
        action A:
            x = true
        """)
    assert d.code == "E102"
    assert "int" in d.message and "bool" in d.message


def test_initial_value_type_mismatch():
    d = spec_error("var s: set[int] = {true}\n")
    assert d.code == "E102"


def test_comparing_different_types():
    d = spec_error("""
        enum E { a, b }
        var x: int = 0
        invariant I: x == a
        """)
    assert d.code == "E102"


def test_heterogeneous_set_literal():
    d = spec_error("var s: set[int] = {1, true}\n")
    assert d.code == "E102"


def test_wrong_arity_for_def():
    d = spec_error("""
        def f(a: int, b: int) -> int: a + b
        var x: int = f(1)
        """)
    assert d.code == "E103"
    assert "2 arguments" in d.message


def test_wrong_arity_for_builtin():
    d = spec_error("var x: int = len({1}, {2})\n")
    assert d.code == "E103"


def test_quantifier_needs_generator():
    d = spec_error("var x: bool = all({true})\n")
    assert d.code == "E103"


def test_assignment_to_constant():
    d = spec_error("""
        const N: int = 3
        var x: int = 0
        action A:
            N = 4
        """)
    assert d.code == "E104" and "constant" in d.message


def test_assignment_to_parameter():
    d = spec_error("""
        var x: int = 0
        action A(p in 1..2):
            p = 3
        """)
    assert d.code == "E104"


def test_non_boolean_guard():
    d = spec_error("""
        var x: int = 0
        action A:
            require x + 1
            x = 1
        """)
    assert d.code == "E105" and "require" in d.message


def test_non_boolean_invariant():
    d = spec_error("""
        var x: int = 0
        invariant I: x
        """)
    assert d.code == "E105"


def test_unknown_record_field():
    d = spec_error("""
        var r: {count: int, done: bool} = {count: 0, done: false}
        invariant I: r.cuont >= 0
        """)
    assert d.code == "E106" and d.hint == "did you mean `count`?"


def test_unknown_type():
    d = spec_error("""
        enum Phase { idle, busy }
        var p: Phaze = idle
        """)
    assert d.code == "E107" and d.hint == "did you mean `Phase`?"


def test_ambiguous_enum_member_without_context():
    d = spec_error("""
        enum A { on, off }
        enum B { on, broken }
        var x: bool = on in {on}
        """)
    assert d.code == "E108" and "A.on" in d.hint


def test_ambiguous_enum_member_resolved_by_context():
    model = model_of("""
        enum A { on, off }
        enum B { on, broken }
        var a: A = on
        var b: B = on
        action Flip:
            require a == on and b == on
            a = off
        """)
    assert model.var_types[0].name == "A" and model.var_types[1].name == "B"


def test_constant_without_value():
    d = spec_error("const N: int\n")
    assert d.code == "E110"


def test_initial_value_reads_later_variable():
    d = spec_error("""
        var x: int = y
        var y: int = 0
        """)
    assert d.code == "E111"


@pytest.mark.parametrize("line, name, kind", [
    ("action A(N in 1..2):\n    require n + N < 3\n    n = n + 1", "N", "constant"),
    ("action A:\n    require all(n < 3 for n in {1, 2})\n    n = n + 1", "n", "variable"),
    ("action A:\n    let n = N\n    require n > 0 and m < 3\n    m = m + 1", "n", "variable"),
    ("action A:\n    require n < 3\n    n = n + 1\nfair weak A\ninvariant I: len({N for N in {n}}) < 2", "N", "constant"),
    ("action A:\n    with m in {1, 2}:\n        n = m", "m", "variable"),
])
def test_a_bound_name_that_hides_a_variable_or_constant_is_a_warning(line, name, kind):
    model = model_of(f"const N: int = 3\nvar n: 0..3 = 0\nvar m: 0..3 = 0\n{line}\naction B:\n    m = n\n")
    [w] = [w for w in model.warnings if w.code == "W204"]
    assert (w.severity, w.message) == ("warning", f"`{name}` here hides the {kind} `{name}`")


def test_bound_names_of_their_own_and_def_parameters_are_no_warning():
    model = model_of("const N: int = 3\nvar n: 0..3 = 0\ndef f(n: int) -> int: n + 1\naction A(k in 1..2):\n"
                     "    let j = k\n    require all(i < N for i in {j})\n    n = f(n + j) % 4\n")
    assert not [w for w in model.warnings if w.code == "W204"]


def test_unused_variable_is_a_warning():
    model = model_of("""
        var x: int = 0
        var unused: bool = false
        action A:
            require x < 2
            x = x + 1
        """)
    codes = [(w.code, w.severity) for w in model.warnings]
    assert ("W201", "warning") in codes
    assert any("unused" in w.message for w in model.warnings)


def test_override_constant():
    model = model_of("const N: int = 3\nvar x: int = N\naction A:\n    require x > 0\n    x = x - 1\n",
                     {"N": "5"})
    assert model.constants == [5]


def test_override_model_values():
    model = model_of("const RM: set[model] = {r1, r2}\nvar s: set[RM] = RM\n", {"RM": "{a, b, c}"})
    assert model.var_types[0] == T.SetT(T.SortT("RM", ("a", "b", "c"), "model"))
    assert model.constants[0] == frozenset({0, 1, 2})


def test_override_unknown_constant_is_a_usage_error():
    with pytest.raises(UsageError) as info:
        model_of("const N: int = 3\nvar x: int = N\n", {"M": "4"})
    assert "N" in info.value.hint
    with pytest.raises(UsageError) as info:
        model_of("const Count: int = 3\nvar x: int = Count\n", {"Cuont": "4"})
    assert info.value.hint == "did you mean `Count`?"


def test_override_with_wrong_type_is_a_usage_error():
    with pytest.raises(UsageError):
        model_of("const N: int = 3\nvar x: int = N\n", {"N": "true"})


def test_option_types_accept_none_and_values():
    model = model_of("""
        var x: bool? = none
        action A:
            require x == none
            x = true
        """)
    assert model.var_types[0] == T.OptionT(T.BOOL)


def test_qualified_enum_member():
    model = model_of("""
        enum Phase { idle, busy }
        var p: Phase = Phase.busy
        invariant I: p != Phase.idle
        """)
    assert list(model.init()) == [(1,)]


def test_issue_8_def_signature_ranges_may_name_constants():
    """Found by fuzzing: `def f() -> 0..N` failed with "`N` is a const, not a value" because a
    def's signature was resolved before the constants were declared."""
    model = model_of("""
        const N: int = 3
        var x: int = 0
        def f(s: set[0..N], k: 1..N?) -> 0..N + 1: len(s)
        action A:
            require x == 0
            x = f({1, 2}, none)
        invariant I: x <= 2
        """)
    assert [f.name for f in model.ir.functions] == ["f"]
    d = spec_error("""
        const B: bool = true
        def g() -> set[0..B]: {1}
        var x: int = len(g())
        """)
    assert d.code == "E102" and "range bound" in d.message


def test_issue_8_bounded_sequences_are_sequences_to_the_type_checker():
    model = model_of("""
        const N: int = 2
        var q: seq[int, N] = []
        var plain: seq[int] = [1, 2, 3]
        var m: map[1..2, {sent: seq[bool, 1], n: 0..N}] = {k -> {sent: [], n: 0} for k in 1..2}
        action A:
            q = plain             # a seq[int] value may be assigned (and is checked at run time)
            plain = q + q
        invariant I: len(q) <= N and all(len(m[k].sent) <= 1 for k in 1..2)
        """)
    q, plain, m = model.ir.variables
    assert q.type == plain.type == T.SeqT(T.INT)
    assert m.bounds is not None and plain.bounds is None


def test_issue_8_type_bounds_must_be_constant():
    d = spec_error("""
        var n: int = 2
        var q: seq[int, n] = []
        action A:
            q = []
        """)
    assert d.code == "E117" and "bound of a sequence" in d.message and (d.span.line, d.span.column) == (2, 17)
    d = spec_error("var n: int = 3\nvar x: 0..n = 0\naction A:\n    x = n\n")  # was an internal NameError
    assert d.code == "E117" and "range bound" in d.message
    d = spec_error("var q: seq[int, true] = []\naction A:\n    q = []\n")
    assert d.code == "E001"
    d = spec_error("enum E { a }\nvar q: seq[int, a] = []\naction A:\n    q = []\n")
    assert d.code == "E102"


def test_issue_8_theorems_do_not_range_over_bounded_sequences():
    d = spec_error("""
        def f(q: seq[bool, 2]) -> bool: len(q) > 0
        theorem T: forall (q: seq[bool, 2]): f(q)
        """)
    assert d.code == "E120" and "sequence" in d.message and "even with a bound" in d.message


@pytest.mark.parametrize("expr, message", [
    ("n ?? 3", "the left side of `??` should be an option, not an int"),
    ("none ?? 3", "the left side of `??` should be an option, not `none`"),
    ("o ?? true", "the right side of `??` should be int, but this is bool"),
    ("o ?? none", "the right side of `??` replaces `none`, so it cannot be `none`"),
])
def test_coalescing_needs_an_option_and_a_value_of_its_type(expr, message):
    d = spec_error(f"var o: int? = none\nvar n: int = 0\naction A:\n    require ({expr}) == 3\n    n = 1\n")
    assert (d.code, d.message) == ("E102", message)


# Soundness issue, item 5: whether an expression reads the state has one answer (ir.reads_state),
# which looks through `def` calls, recursive ones included. The type checker stopped at calls,
# the code generator took every call for a state read: a fairness set or temporal quantifier set
# read through a def passed the first and compiled to code reading a state it did not have
# (`internal error: NameError: name 'v0' is not defined`).
READS_THROUGH = {
    "a def": "def ready() -> set[int]: q",
    "a def calling a def": "def items() -> set[int]: q\ndef ready() -> set[int]: items() | {}",
    "a recursive def": ("def below(n: int) -> set[int]: if n <= 0 then q else below(n - 1)\n"
                        "def ready() -> set[int]: below(3)"),
    "mutually recursive defs": ("def even(n: int) -> set[int]: if n <= 0 then q else odd(n - 1)\n"
                                "def odd(n: int) -> set[int]: if n <= 0 then {} else even(n - 1)\n"
                                "def ready() -> set[int]: even(2)"),
}
TAKE = """var q: set[int] = {1, 2}
DEFS
action Take(p in q):
    q = q - {p}
action Idle:
    skip
"""


@pytest.mark.parametrize("defs", READS_THROUGH.values(), ids=READS_THROUGH)
def test_soundness_5_a_fairness_set_read_through_a_def_is_e116(defs):
    text = TAKE.replace("DEFS", defs) + "fair weak Take(p) for p in ready()\nproperty Empties: eventually q == {}\n"
    d = spec_error(text)
    line = text.splitlines().index("fair weak Take(p) for p in ready()") + 1
    assert (d.code, d.span.line, d.span.column) == ("E116", line, 28)
    assert d.message == "the set a fairness condition ranges over must be constant"
    assert "disabled" in d.hint


@pytest.mark.parametrize("defs", READS_THROUGH.values(), ids=READS_THROUGH)
def test_soundness_5_a_temporal_quantifier_set_read_through_a_def_is_e116(defs):
    text = TAKE.replace("DEFS", defs) + "property Gone: all(eventually p not in q for p in ready())\n"
    d = spec_error(text)
    assert (d.code, d.span.line) == ("E116", len(text.splitlines()))
    assert "a `def` that reads them" in d.hint


@pytest.mark.parametrize("defs", READS_THROUGH.values(), ids=READS_THROUGH)
def test_soundness_5_a_constant_read_through_a_def_is_e117(defs):
    d = spec_error(TAKE.replace("DEFS", defs) + "const K: set[int] = ready()\n")
    assert (d.code, d.message) == ("E117", "constant `K` depends on state variable `q`")


STATE_FREE = {
    "a def": "def ready() -> set[int]: {1, 2}",
    "a def of a constant": "const Items: set[int] = {1, 2}\ndef ready() -> set[int]: Items",
    "a recursive def": "def upto(n: int) -> set[int]: if n <= 0 then {} else upto(n - 1) | {n}\n"
                       "def ready() -> set[int]: upto(2)",
}


@pytest.mark.parametrize("defs", STATE_FREE.values(), ids=STATE_FREE)
def test_soundness_5_a_def_that_reads_no_state_ranges_fairness_and_quantifiers(defs):
    from tests.conftest import run

    text = TAKE.replace("DEFS", defs) + ("fair weak Take(p) for p in ready()\n"
                                         "property Empties: eventually q == {}\n"
                                         "property Gone: all(eventually p not in q for p in ready())\n")
    model, result = run(text, check_deadlock=False)
    assert result.verdict.name == "OK" and result.distinct_states == 4
    model, result = run(text.replace("fair weak Take(p) for p in ready()\n", ""), check_deadlock=False)
    assert result.verdict.name == "LIVENESS_VIOLATED"


def test_soundness_5_state_read_through_a_def_in_a_state_predicate_is_read_in_each_state():
    """Inside a state predicate (here under `eventually`), a def that reads the state is an
    ordinary expression, evaluated in each state."""
    from tests.conftest import run

    text = TAKE.replace("DEFS", READS_THROUGH["a recursive def"]) + (
        "fair weak Take(p) for p in {1, 2}\n"
        "property Drains: eventually all(p > 5 for p in ready())\n")
    model, result = run(text, check_deadlock=False)
    assert result.verdict.name == "OK"


# Soundness issue, item 6: type checking was exponential in the nesting of expressions whose type
# comes from the other side of a pair (`if`'s branches, `|`, `==`): each level inferred its nested
# side again with the other's type, and so every level below it twice over. `if` nested 20 deep in
# its `then` branch took 38-63 s; the parser allows 100 levels.
NESTINGS = {
    "if, nested in then": ("", "(if true then {E} else {{}})"),
    "if, nested in else": ("", "(if true then {{}} else {E})"),
    "if, nested in the condition": ("", "(if {E} == {{}} then {{}} else {{}})"),
    "set operations, nested left": ("", "({E} | {{}})"),
    "set operations, nested right": ("", "({{}} & {E})"),
    "set difference in parentheses": ("", "(({E}) - ({{}}))"),
    "??": ("var o: set[int]? = none\n", "(o ?? {E})"),
    "?? in a branch": ("var o: set[int]? = none\n", "(if true then (o ?? {E}) else {{}})"),
    "comprehension domain": ("", "{{y for x in {{1}} for y in {E}}}"),
    "comprehension body": ("", "{{z for z in {E} if true}}"),
    "comprehension in a branch": ("", "(if true then {{z for x in {{1}} for z in {E}}} else {{}})"),
    "calls": ("def f(s: set[int]) -> set[int]: s\n", "f({E})"),
    "calls in a branch": ("def f(s: set[int]) -> set[int]: s\n", "(if true then f({E}) else {{}})"),
}


def nested_spec(shape: str, depth: int) -> str:
    decls, wrap = NESTINGS[shape]
    e = "{}"
    for _ in range(depth):
        e = wrap.format(E=e)
    return f"var x: int = 0\n{decls}action A:\n    x = 1 - x\ninvariant I: {e} == {{}}\n"


def deepest(shape: str):
    """The parsed spec with `shape` nested as deep as the parser allows (E007 beyond), its source."""
    from tlacheck.core.errors import SpecError
    from tlacheck.lang.parser import parse
    from tlacheck.core.source import Source

    lo, hi = 1, 100  # depth lo parses, hi does not (every level is at least one level of the tree)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            parse(Source("deep.spec", nested_spec(shape, mid)))
            lo = mid
        except SpecError as exc:
            assert exc.diagnostics[0].code == "E007"
            hi = mid
    source = Source("deep.spec", nested_spec(shape, lo))
    return parse(source), source, lo


def syntax_nodes(node) -> int:
    if isinstance(node, tuple):
        return sum(syntax_nodes(x) for x in node)
    if not isinstance(node, S.Node):
        return 0
    return 1 + sum(syntax_nodes(getattr(node, f.name)) for f in dataclasses.fields(node))


@pytest.mark.parametrize("shape", NESTINGS)
def test_soundness_6_type_checking_is_linear_in_the_nesting(shape, monkeypatch):
    import time

    from tlacheck.lang import typecheck

    tree, source, depth = deepest(shape)
    assert depth >= 20  # the deepest the parser allows: 23 to 95 levels of the shape
    # Each node at most once per expected type it is given (none, the other side's, the context's).
    limit = 3 * syntax_nodes(tree)
    inferences = 0

    def counted(method):
        def infer(self, e, expected):
            nonlocal inferences
            inferences += 1
            if inferences > limit:  # fail at once: 2^depth inferences would take hours
                pytest.fail(f"more than {limit} inferences for {limit // 3} syntax nodes")
            return method(self, e, expected)
        return infer

    for name in [n for n in vars(typecheck._Checker) if n.startswith("_e_")]:
        monkeypatch.setattr(typecheck._Checker, name, counted(getattr(typecheck._Checker, name)))
    start = time.perf_counter()
    typecheck.check(tree, source)
    assert time.perf_counter() - start < 2


def test_soundness_6_a_binder_inferred_again_warns_once():
    """The memo's other half: a comprehension inferred again (here with the other branch's type)
    binds the same local and gives its W204 once, not once per inference."""
    model = model_of("""
        var x: int = 0
        action A:
            x = 1 - x
        invariant I: (if true then {y for x in {} for y in {}} else {1}) == {}
        """)
    assert [w.code for w in model.warnings] == ["W204"]


# ---------------------------------------------------------------- every error in one run

def spec_errors(text: str) -> list:
    from tlacheck.core.errors import SpecError

    with pytest.raises(SpecError) as info:
        model_of(text)
    return [(d.code, d.span.line) for d in info.value.diagnostics]


def line_of(text: str, needle: str) -> int:
    """The line of `needle` as the checker numbers them (model_of drops the leading newline)."""
    return text.lstrip("\n").split("\n").index(needle) + 1


MANY_ERRORS = """
var x: int = 0
var b: bool = false

def twice(n: int) -> int: n + true

action Inc:
    x = x + 1
    b = 3

action Dec:
    require x > 0
    x = y

invariant Small: x < 10 and b
invariant Typo: x + 1
"""
BROKEN = {"def twice(n: int) -> int: n + true": ("E102", "def twice(n: int) -> int: n + 1"),
          "    b = 3": ("E102", "    b = true"),
          "    x = y": ("E100", "    x = x - 1"),
          "invariant Typo: x + 1": ("E105", "invariant Typo: x + 1 > 0")}


def test_every_body_with_an_error_is_reported_once_in_source_order():
    expected = sorted((code, line_of(MANY_ERRORS, bad)) for bad, (code, _) in BROKEN.items())
    assert sorted(spec_errors(MANY_ERRORS), key=lambda e: e[1]) == spec_errors(MANY_ERRORS)
    assert sorted(spec_errors(MANY_ERRORS)) == expected


def test_recovery_adds_no_error_of_its_own():
    """Each broken body alone (the others repaired) gives exactly its own diagnostic, the same
    one it gives among the others."""
    for bad, (code, _) in BROKEN.items():
        text = MANY_ERRORS
        for other, (_, repaired) in BROKEN.items():
            if other != bad:
                text = text.replace(other + "\n", repaired + "\n")
        assert spec_errors(text) == [(code, line_of(text, bad))]


PROPERTY_AFTER_A_FAILED_ACTION = """
var x: int = 0
action Take(p in 0..2):
    x = p + false
fair weak Take(p) for p in 0..2
property Eventually: eventually x == 2
invariant Bad: 1
"""


def test_properties_and_fairness_wait_for_the_actions_they_name():
    """A failed action has no parameters to check `fair weak Take(p)` against: its error and the
    other bodies' are reported, not one about the fairness condition, and nothing breaks."""
    text = PROPERTY_AFTER_A_FAILED_ACTION
    assert spec_errors(text) == [("E102", line_of(text, "    x = p + false")), ("E105", line_of(text, "invariant Bad: 1"))]


FAILED_DEF = """
var x: int = 0
def f(n: int) -> int: n and true
action A:
    x = f(x)
invariant I: f(x) >= 0
invariant J: x == true
"""


def test_a_failed_def_does_not_cascade_into_its_callers():
    """Calls are checked against the def's declared signature, which stands although its body
    failed: `f(x)` raises nothing more."""
    assert spec_errors(FAILED_DEF) == [("E105", line_of(FAILED_DEF, "def f(n: int) -> int: n and true")),
                                       ("E102", line_of(FAILED_DEF, "invariant J: x == true"))]


INITIAL_VALUE_ERRORS = """
const N: int = true
var x: int = false
var y: set[int] in 3
action A:
    x = x + N
    y = y | {1}
invariant I: x
"""


def test_an_error_in_an_initial_value_or_a_constant_does_not_hide_the_rest():
    """The constant and the variables are still declared with their declared types: the action,
    which uses them correctly, raises nothing, and the invariant's own error is reported too."""
    text = INITIAL_VALUE_ERRORS
    assert spec_errors(text) == [("E102", line_of(text, "const N: int = true")),
                                 ("E102", line_of(text, "var x: int = false")),
                                 ("E102", line_of(text, "var y: set[int] in 3")),
                                 ("E105", line_of(text, "invariant I: x"))]


@pytest.mark.parametrize("written, meant", [("False", "false"), ("True", "true"), ("TRUE", "true"), ("None", "none")])
def test_issue_15_python_and_tla_spellings_of_literals_suggest_the_keyword(written, meant):
    d = spec_error(f"""
        var b: bool? = none
        action A:
            b = {written}
        """)
    assert (d.code, d.span.line, d.span.column, d.message, d.hint) == (
        "E100", 3, 9, f"unknown name `{written}`", f"did you mean `{meant}`?")


# ---------------------------------------------------------------- issue 15: tuple destructuring

DESTRUCTURED = """
    const Pairs: set[(int, int)] = {(1, 2), (2, 3), (3, 1), (4, 4)}
    var x: 0..9 = 0
    var log: set[int] = {}

    action Move((a, b) in Pairs):
        require (x == a or x == 0) and a != b
        x = b
        log = log | {a * 10 + b}

    action Pick:
        with (a, b) in Pairs:
            require a + b == 5
            x = a

    fair weak Move((a, b)) for (a, b) in Pairs
    invariant Sums: sum(a + b for (a, b) in Pairs) == 20
    invariant Items: all(a != b or a == 4 for (a, b) in Pairs) and any(b == x for (a, b) in Pairs) or x == 0
    invariant Comps: {b -> a for (a, b) in Pairs}[1] == 3 and {a for (a, b) in Pairs if b > 1} == {1, 2, 4}
    invariant Nested: {(a, d) for (a, b) in Pairs for (c, d) in Pairs if b == c} == {(1, 3), (2, 1), (3, 2), (4, 4)}
    invariant Small: len(log) < LIMIT
    """

PROJECTED = """
    const Pairs: set[(int, int)] = {(1, 2), (2, 3), (3, 1), (4, 4)}
    var x: 0..9 = 0
    var log: set[int] = {}

    action Move(p in Pairs):
        require (x == p[1] or x == 0) and p[1] != p[2]
        x = p[2]
        log = log | {p[1] * 10 + p[2]}

    action Pick:
        with p in Pairs:
            require p[1] + p[2] == 5
            x = p[1]

    fair weak Move(p) for p in Pairs
    invariant Sums: sum(p[1] + p[2] for p in Pairs) == 20
    invariant Items: all(p[1] != p[2] or p[1] == 4 for p in Pairs) and any(p[2] == x for p in Pairs) or x == 0
    invariant Comps: {p[2] -> p[1] for p in Pairs}[1] == 3 and {p[1] for p in Pairs if p[2] > 1} == {1, 2, 4}
    invariant Nested: {(p[1], q[2]) for p in Pairs for q in Pairs if p[2] == q[1]} == {(1, 3), (2, 1), (3, 2), (4, 4)}
    invariant Small: len(log) < LIMIT
    """


@pytest.mark.parametrize("limit", ["9", "3"])
def test_issue_15_destructuring_binders_count_as_projections(limit):
    """`for (a, b) in S` (generators, `with`, action parameters, fairness) means `for p in S` with
    a = p[1], b = p[2]: the same verdict, counts, coverage and trace length."""
    from tests.conftest import run

    results = [run(text.replace("LIMIT", limit))[1] for text in (DESTRUCTURED, PROJECTED)]
    shape = [(r.verdict.name, r.distinct_states, r.states_generated, r.depth,
              [(c.enabled, c.generated, c.distinct) for c in r.coverage],
              r.violation and len(r.violation.trace.steps)) for r in results]
    assert shape[0] == shape[1]
    assert shape[0][0] == ("OK" if limit == "9" else "INVARIANT_VIOLATED")


def test_issue_15_a_destructured_parameter_is_named_by_its_items_in_traces():
    from tests.conftest import run

    model, result = run(DESTRUCTURED.replace("LIMIT", "1"))
    assert [p.name for p, _ in model.ir.actions[0].params] == ["(a, b)"]


@pytest.mark.parametrize("binder, domain, message", [
    ("for (a, b) in", "{1, 2}", "`(a, b) in ...` needs a set of tuples of 2 items, not set[int]"),
    ("for (a, b) in", "{(1, 2, 3)}", "`(a, b) in ...` needs a set of tuples of 2 items, not set[(int, int, int)]"),
    ("for (a, b, c) in", "{(1, 2)}", "`(a, b, c) in ...` needs a set of tuples of 3 items, not set[(int, int)]"),
])
def test_issue_15_destructuring_needs_tuples_of_that_many_items(binder, domain, message):
    d = spec_error(f"""
        var x: int = 0
        invariant I: all(a > 0 {binder} {domain})
        """)
    column = len("invariant I: all(a > 0 ") + len(binder) + 2
    assert (d.code, d.span.line, d.span.column, d.message, d.hint) == (
        "E102", 2, column, message, "name as many items as each element has, or bind the whole element: `x in ...`")


def test_issue_15_a_destructured_name_twice_is_e101():
    d = spec_error("""
        var x: int = 0
        action A:
            with (a, a) in {(1, 2)}:
                x = a
        """)
    assert (d.code, d.span.line, d.span.column, d.message, d.hint) == (
        "E101", 3, 14, "`a` appears twice in `(a, a)`", "give each item its own name")


def test_issue_15_an_item_of_a_parameter_is_not_an_actor():
    d = spec_error("""
        var x: int = 0
        action A((a, b) in {(1, 2)}) by a:
            x = b
        """)
    assert (d.code, d.span.line, d.span.column, d.message) == (
        "E124", 2, 33, "`by a`: `a` is an item of the parameter `(a, b)`, not a parameter")


# ---------------------------------------------------------------- issue 15: blocks

# A condition variable: "notify one waiter" in three actions, pasted, then as a block. The block
# has a `let` (named like a `let` of one caller), an `either`, a `with` and a `require`.
WAITERS = """
const Consumer: set[model] = {c1, c2, c3}
var waiting: set[Consumer] = Consumer
var woken: set[Consumer] = {}
var items: int = 0
var last: int = 0
var first: int = 0
{decls}
action Put:
    require items < 2
    let pick = items
    items = items + 1
    {notify}
    first = pick
action Cancel(c in Consumer):
    require c in waiting and items > 0
    {notify}
action Take(c in woken):
    require items > 0
    items = items - 1
    woken = woken - {c}
    waiting = waiting | {c}
    either:
        skip
    or:
        {notify}
invariant Bits: last in 0..1 and first in 0..2
"""
PASTED = """\
let pick0 = items % 2
require waiting != {}
with w in waiting:
    either:
        waiting = waiting - {w}
        woken = woken | {w}
    or:
        require len(waiting) > 1
        waiting = waiting - {w}
last = pick0
"""
BLOCK = """
block notify_one(n: int):
    let pick = n % 2
    require waiting != {}
    with w in waiting:
        either:
            waiting = waiting - {w}
            woken = woken | {w}
        or:
            require len(waiting) > 1
            waiting = waiting - {w}
    last = pick
"""


def waiters(block: bool) -> str:
    """The spec with `notify_one(items)` or, pasted in its place, the block's statements (its `let`
    renamed, as a careful paste would: the caller Put has a `pick` of its own)."""
    import re

    def paste(match):
        indent = match.group(1)
        return "\n".join(indent + line for line in PASTED.splitlines())

    text = WAITERS.replace("{decls}", BLOCK if block else "")
    if block:
        return text.replace("{notify}", "notify_one(items)")
    return re.sub(r"^( *)\{notify\}$", paste, text, flags=re.M)


def test_issue_15_a_block_gives_the_counts_of_its_statements_pasted():
    from tests.conftest import run

    results = []
    for block in (False, True):
        model, r = run(waiters(block), check_deadlock=False)
        results.append((r.verdict, r.distinct_states, r.states_generated, r.depth,
                        [(c.enabled, c.generated, c.distinct) for c in r.coverage]))
    assert results[0] == results[1]
    assert results[0][1:4] == (170, 745, 6)  # the pasted spec's counts


def test_issue_15_a_block_is_hygienic():
    """The block's names mean what they mean at the block: a caller's `let` or parameter named
    like a variable does not capture it, and the block's `let` names do not leak to the caller."""
    from tests.conftest import run

    model, r = run("""
        var x: int = 0
        var y: int = 0
        block bump(amount: int):
            let step = amount + 1
            x = x + step
        action A(step in {10}):
            let x = 100
            require y == 0
            bump(x)
            y = step
        """)
    assert (r.distinct_states, r.states_generated) == (2, 2)
    from tests.conftest import next_states

    # x is the variable in the block (0 + 100 + 1), not the caller's `let x`; the caller's `step`
    # after the call is its parameter (10), not the block's `let step`
    assert next_states(model, 0, (0, 0)) == [(101, 10)]


def test_issue_15_block_parameters_are_values_taken_at_the_call():
    from tests.conftest import next_states

    model = model_of("""
        var x: int = 1
        var y: int = 0
        block set_y(v: int):
            y = v
        action A:
            require y == 0
            let before = x
            x = x + 1
            set_y(x * 10)
            x = x + before
        """)
    assert next_states(model, 0, (1, 0)) == [(3, 20)]


@pytest.mark.parametrize("text, code, message, where", [
    ("""
        var n: int = 0
        block a():
            n = n + 1
            b()
        block b():
            require n < 3
            a()
        action Step:
            a()
        """, "E125", "block `a` calls itself (a -> b -> a)", (7, 5)),
    ("""
        var n: int = 0
        block a():
            a()
        action Step:
            n = 1
        """, "E125", "block `a` calls itself (a -> a)", (3, 5)),
    ("""
        var n: int = 0
        block bump(k: int):
            n = n + k
        action Step:
            bmup(1)
        """, "E100", "unknown block `bmup`", (5, 5)),
    ("""
        var n: int = 0
        block bump(k: int):
            n = n + k
        action Step:
            bump(1, 2)
        """, "E103", "`bump` takes 1 argument, not 2", (5, 5)),
    ("""
        var n: int = 0
        block bump(k: int):
            n = n + k
        action Step:
            bump(true)
        """, "E102", "argument `k` of `bump` should be int, but this is bool", (5, 10)),
    ("""
        var n: int = 0
        def f(k: int) -> int: k
        action Step:
            f(1)
        """, "E103", "`f` is a function: a statement can only call a block", (4, 5)),
    ("""
        var n: int = 0
        block bump(k: int):
            k = n
        action Step:
            bump(1)
        """, "E104", "cannot assign to `k`: it is a bound name, not a state variable", (3, 5)),
    ("""
        var n: int = 0
        block bump(k: int):
            n = n + j
        action Step:
            bump(1)
        """, "E100", "unknown name `j`", (3, 13)),
    ("""
        var n: int = 0
        block bump(k: int):
            n = k + c
        action Step(c in 1..2):
            bump(c)
        """, "E100", "unknown name `c`", (3, 13)),
    ("""
        var n: int = 0
        block bump():
            n = n + 1
        action Step:
            require bump()
        """, "E103", "`bump` is a block: it is called as a statement, not in an expression", (5, 13)),
    ("""
        var n: int = 0
        block len(k: int):
            n = k
        action Step:
            len(1)
        """, "E101", "`len` is a built-in function", (2, 7)),
])
def test_issue_15_block_errors(text, code, message, where):
    d = spec_error(text)
    assert (d.code, d.message, (d.span.line, d.span.column)) == (code, message, where)


def test_issue_15_an_error_in_a_block_is_reported_once_at_the_block_even_unused():
    from tlacheck.core.errors import SpecError
    from tests.conftest import model_of as build

    for calls in ("", "    bump(1)\n    bump(2)\n"):
        with pytest.raises(SpecError) as info:
            build("var n: int = 0\nblock bump(k: int):\n    n = n + true\naction Step:\n    n = 0\n" + calls)
        assert [(d.code, d.span.line) for d in info.value.diagnostics] == [("E102", 3)]


# ---------------------------------------------------------------- issue 15: `deadlock:`

def test_issue_15_deadlock_allowed_reaches_the_ir_and_silences_w202():
    allowed = model_of("deadlock: allowed\nvar x: int in 1..2\ninvariant P: x > 0\n")
    assert allowed.ir.deadlock_allowed and allowed.deadlock_allowed
    assert not [w for w in allowed.warnings if w.code == "W202"]  # checking the initial states is the point
    plain = model_of("var x: int in 1..2\ninvariant P: x > 0\n")
    assert not plain.deadlock_allowed
    [w] = [w for w in plain.warnings if w.code == "W202"]
    assert "deadlock: allowed" in w.hint
    assert not model_of("deadlock: forbidden\nvar x: int = 0\naction A: skip\n").deadlock_allowed


def test_issue_15_deadlock_is_declared_once():
    d = spec_error("var x: bool = true\ndeadlock: allowed\ndeadlock: forbidden\n")
    assert d.code == "E101" and d.span.line == 3 and "declared twice" in d.message


# ---------------------------------------------------------------- issue 15: `init:`

def test_issue_15_init_is_declared_once():
    d = spec_error("var x: bool\ninit: x\ninit: not x\n")
    assert d.code == "E101" and d.span.line == 3 and "declared twice" in d.message


def test_issue_15_a_variable_without_an_initial_value_needs_an_init_predicate():
    d = spec_error("var x: 0..3\naction A:\n    x = 0\n")
    assert d.code == "E126" and (d.span.line, d.span.column) == (1, 5)
    assert "`init: PREDICATE`" in d.hint and "= VALUE`" in d.hint


@pytest.mark.parametrize("decl, shown", [
    ("var n: int", "int has no finite list of values"),
    ("var n: seq[bool, 2]", "seq[bool] has no finite list of values"),
    ("var n: map[0..1, bool]", "map[int, bool] has no finite list of values"),
    ("var n: {a: bool, b: int}", "{a: bool, b: int} (int in it) has no finite list of values"),
    ("var n: set[int?]", "set[int?] (int in it) has no finite list of values"),
])
def test_issue_15_a_variable_without_an_initial_value_needs_a_finite_type(decl, shown):
    d = spec_error(f"{decl}\ninit: true\naction A: skip\n")
    assert d.code == "E127" and (d.span.line, d.span.column) == (1, 8)  # the type
    assert d.message.endswith(shown), d.message
    assert d.hint


@pytest.mark.parametrize("body, code", [
    ("x + 1", "E105"),  # not a boolean
    ("x' > 0", "E118"),  # no next state
    ("eventually x > 0", "E112"),  # no temporal operator
    ("z > 0", "E100"),  # unknown name
])
def test_issue_15_the_init_predicate_is_a_state_predicate(body, code):
    d = spec_error(f"var x: 0..3\ninit: {body}\naction A: skip\n")
    assert d.code == code and d.span.line == 2


def test_issue_15_the_init_predicate_may_not_name_a_member_of_a_symmetric_set():
    d = spec_error("symmetric const N: set[model] = {n1, n2}\nvar h: N?\ninit: h != n1\naction A: skip\n")
    assert d.code == "E123" and d.span.line == 3


def test_issue_15_a_variable_without_a_value_is_a_choice_among_its_type():
    model = model_of("const K: set[model] = {k1, k2}\nenum E { a, b }\nvar x: (0..1)?\nvar e: E\nvar k: K\n"
                     "var r: {f: bool, g: 0..1}\nvar s: set[E]\nvar t: (bool, K)\ninit: true\naction A: skip\n")
    assert all(v.choice for v in model.ir.variables)
    assert len(list(model.init())) == 3 * 2 * 2 * 4 * 4 * 4
