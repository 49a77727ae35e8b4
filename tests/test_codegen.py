"""codegen.py: generated code holds generated identifiers and int/bool literals only.

The no-code-execution rule: no text from a spec reaches generated Python except
through repr() of literals. These tests tokenize the generated source of every
spec in specs/ and of hostile specs, and check that nothing from the spec leaks.
"""

import ast
import copy
import io
import keyword
import pickle
import re
import tokenize
from pathlib import Path

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.compile import codegen
from tlacheck.core import runtime
from tlacheck.core.result import Verdict
from tlacheck.core.errors import UsageError
from tlacheck.pipeline.driver import build_model
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tests.conftest import SPECS, model_of, next_states, run


GENERATED_ID = re.compile(r"^((v|l|K|B|f|a|n|w|t|inv|con|reach|step|der|ref|refc|send|tp|td|fb|ck|cc|cs)\d+|fa\d+_\d+)$")
ALLOWED_NAMES = (set(keyword.kwlist) | set(codegen.RUNTIME_NAMES)
                 | {"s", "t", "init", "_constants", "len", "frozenset", "sorted", "all", "any", "sum", "range",
                    "min", "max", "tuple", "enumerate", "map", "key",
                    "append", "get",  # list.append in n{i}, dict.get on the interned map keys
                    "fp", "M", "E"})  # n{i}'s parameters: a state's fingerprint, the fingerprinter's memos


def assert_clean(source: str) -> None:
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING:
            pytest.fail(f"string literal in generated code: {tok.string}")
        if tok.type == tokenize.NAME:
            assert tok.string in ALLOWED_NAMES or GENERATED_ID.match(tok.string), tok.string
        if tok.type == tokenize.NUMBER:
            assert re.fullmatch(r"-?\d+", tok.string), tok.string
        if tok.type == tokenize.COMMENT:
            pytest.fail(f"comment in generated code: {tok.string}")


def all_specs():
    return sorted(str(p.relative_to(SPECS)) for p in SPECS.rglob("*.spec"))


@pytest.mark.parametrize("spec", all_specs())
def test_generated_code_of_every_spec_is_clean(spec):
    model = build_model(read_source(str(SPECS / spec)))
    assert_clean(model.generated.source)


HOSTILE = '''
spec __import__
# __import__("os").system("touch PWNED")
const exec: int = 3
enum eval { __builtins__, os, system }
const open: set[model] = {globals, locals, breakpoint}
var __class__: int = 0
var print: eval = os
def compile(getattr: int) -> int: getattr + exec
action __init__(setattr in open):
    require __class__ < exec
    __class__ = compile(__class__)
    print = system
invariant __subclasses__: __class__ >= 0
'''


def test_hostile_identifiers_never_reach_generated_code(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    model = model_of(HOSTILE)
    assert_clean(model.generated.source)
    for word in ("__import__", "exec", "eval", "os", "system", "open", "print", "compile", "getattr",
                 "__class__", "__builtins__", "globals", "breakpoint"):
        assert not re.search(rf"\b{word}\b", model.generated.source), word
    spec_path = tmp_path / "hostile.spec"
    spec_path.write_text(HOSTILE)
    assert main(["check", str(spec_path), "--quiet", "--no-deadlock"]) == 0
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("value", [
    "__import__('os').system('touch PWNED')",
    "1; import os",
    "exec",
    "{r1, __import__}",
])
def test_define_values_cannot_run_code(tmp_path, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    spec = "const N: int = 1\nconst RM: set[model] = {r1}\nvar x: int = N\naction A:\n    require x < N\n    x = x + 1\n"
    with pytest.raises(Exception) as info:
        model_of(spec, {"N": value})
    assert isinstance(info.value, (UsageError,)) or "E" in str(info.value)
    assert not (tmp_path / "PWNED").exists()


def test_generated_namespace_has_no_dangerous_builtins():
    model = model_of("var x: int = 0\naction A:\n    require x < 1\n    x = 1\n")
    ns = model.init.__globals__
    assert set(ns["__builtins__"]) <= ALLOWED_NAMES
    assert "__import__" not in ns["__builtins__"] and "open" not in ns["__builtins__"]


def test_model_values_are_small_ints_in_states():
    model = model_of("const P: set[model] = {p1, p2}\nenum E { a, b }\nvar x: P = p2\nvar y: E = b\n")
    assert list(model.init()) == [(1, 1)]


def test_issue_6_a_later_parameter_set_reads_the_unchanged_state():
    """Found modelling specs/agent_routing.spec: `Spawn(caller in alive, child in AGENT - alive)`
    evaluated the second set after the previous caller's body had assigned `alive`, so an agent
    spawned by main could never spawn in turn (the Deep state below was unreachable)."""
    text = """
        const AGENT: set[model] = {main, a1, a2}
        var alive: set[AGENT] = {main}
        var depth: map[AGENT, int] = {a -> 0 for a in AGENT}
        action Spawn(caller in alive, child in AGENT - alive):
            depth[child] = depth[caller] + 1
            alive = alive | {child}
        action Work:
            skip
        invariant Shallow: all(depth[a] < 2 for a in alive)
    """
    model, result = run(text)
    assert result.violation is not None and result.violation.name == "Shallow"
    main_, a1, a2 = 0, 1, 2  # model values are small ints in states and arguments
    assert [step.args for step in result.violation.trace.steps[1:]] == [(main_, a1), (a1, a2)]
    model, result = run(text.replace("invariant Shallow: all(depth[a] < 2 for a in alive)", ""))
    # {main}; {main, a1}, {main, a2}; all three with depths (1, 1), (1, 2), (2, 1)
    assert result.distinct_states == 6


def unread_parameters(path: str) -> list[str]:
    """`function(parameter)` for each parameter a function of the module never reads (`self`,
    `cls` and names starting with `_` aside)."""
    found = []
    for node in ast.walk(ast.parse(Path(path).read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            params = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p]
            read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
            found += [f"{node.name}({p})" for p in params
                      if p not in read and p not in ("self", "cls") and not p.startswith("_")]
    return found


def test_issue_8_the_code_generator_reads_every_parameter():
    """`_Gen._finish` took the slots an action assigns, and every statement emitter passed them
    down to it, unread."""
    assert unread_parameters(codegen.__file__) == []


def test_expressions_independent_of_the_parameters_are_computed_before_the_loops():
    model = model_of("""
        var x: int = 0
        var y: int = 0
        var z: int = 0
        action Step(p in 0..2):
            x = x + p
            y = (x + 1) % 7
            z = (z + 1) % 7
    """)
    source = model.generated.source
    n0 = source[source.index("def n0"):]
    head, loop = n0[:n0.index("\n\n")].split("for ", 1)
    # z's update reads nothing the action assigned before it: once per state, before the loop.
    # y's reads x, assigned just before: once per parameter value.
    assert head.count("% 7") == 1 and loop.count("% 7") == 1
    assert next_states(model, 0, next(model.init())) == [(0, 1, 1), (1, 2, 1), (2, 3, 1)]


def test_an_expression_that_may_fail_is_not_computed_before_the_guards():
    # 10 // d fails (d is 0), but no parameter value passes the guard: nothing is computed.
    model, result = run("""
        var d: int = 0
        var x: int = 0
        action Never(p in 0..2):
            require p > 5
            x = 10 // d
        action Tick:
            require x == 0
            x = 1
    """, check_deadlock=False)
    assert result.error is None and result.distinct_states == 2


def test_what_a_comprehension_in_an_invariant_computes_for_each_element_without_it_is_computed_once():
    model = model_of("""
        const Ids: set[int] = 1..3
        var q: seq[int] = [1, 2, 2]
        invariant Few: all(len([x for x in elems(q) if x >= i]) <= 1 for i in Ids)
    """)
    source = model.generated.source
    inv = source[source.index("def inv0"):]
    head, ret = inv[:inv.index("\n\n")].split("return ")
    # the inner list's (sorted) set of elements does not depend on i: before the `all`, once
    assert "frozenset(v0)" in head and "frozenset" not in ret
    check = dict(model.invariants)["Few"]
    assert check(next(model.init())) is False and check(((3,),)) is True


# Soundness issue, item 5: codegen asks ir.reads_state, as typecheck does (tests/test_typecheck.py).
def test_soundness_5_zero_argument_defs_are_memoised_only_when_they_read_no_state():
    model, result = run("""
        var q: set[int] = {1, 2, 3}
        def below(n: int) -> int: if n <= 0 then len(q) else below(n - 1)
        def size() -> int: below(3)
        def upto(n: int) -> set[int]: if n <= 0 then {} else upto(n - 1) | {n}
        def all3() -> set[int]: upto(3)
        action Take(p in q):
            q = q - {p}
        invariant Size: size() == len(q) and q subset all3()
        """, check_deadlock=False)
    assert result.violation is None and result.distinct_states == 8
    source = model.generated.source
    assert "f1 = _memo(f1)" not in source and "def f1(v0):" in source  # size() reads q, through below
    assert "f3 = _memo(f3)" in source and "def f3():" in source  # all3() reads nothing


def test_soundness_5_a_later_parameter_set_through_a_def_reads_the_unchanged_state():
    """test_issue_6 with the second parameter's set computed by a def that reads the state."""
    model, result = run("""
        const AGENT: set[model] = {main, a1, a2}
        var alive: set[AGENT] = {main}
        var depth: map[AGENT, int] = {a -> 0 for a in AGENT}
        def unborn() -> set[AGENT]: AGENT - alive
        action Spawn(caller in alive, child in unborn()):
            depth[child] = depth[caller] + 1
            alive = alive | {child}
        action Work:
            skip
        """)
    assert result.distinct_states == 6


def test_soundness_5_a_def_that_reads_no_state_is_a_static_factor():
    """`_mul` guards products whose factors may both grow; a call that reads no state and no bound
    name is as static as a constant, with or without the call."""
    model = model_of("""
        var x: int = 1
        def two() -> int: 2
        action Double:
            require x < 100
            x = x * two()
        """)
    n0 = model.generated.source[model.generated.source.index("def n0"):]
    assert "_mul(" not in n0.split("\n\n")[0]


# ---------------------------------------------------------------- issue 15: `init:`

def test_issue_15_an_init_conjunct_is_tested_before_the_later_variables_get_values():
    # x == 0 drops x = 1 before y's set is built (for x = 1 it would be E408: over 2^20 ints)
    model = model_of("""
        var x: 0..1
        var y: int in 0..(x * 2097152)
        var z: int = 12 // (x + 1)
        init: x == 0 and z % 4 == 0
        action A: skip
        """)
    assert list(model.init()) == [(0, 0, 12)]


def test_issue_15_init_conjuncts_are_tested_left_to_right_as_and_evaluates():
    # `y % 4 == 0` reads y, so `x > 0` after it is tested there too: y = 12 // x fails for x = 0
    _, result = run("""
        var x: 0..3
        var y: int = 12 // x
        init: y % 4 == 0 and x > 0
        action A: skip
        """)
    assert result.error is not None and result.error.code == "E407"
    _, guarded = run("""
        var x: 0..3
        var y: int = 12 // x
        init: x > 0 and y % 4 == 0
        action A: skip
        """)
    assert (guarded.verdict.value, guarded.distinct_states, guarded.states_generated) == ("ok", 2, 4)


def test_issue_15_the_init_predicate_can_rule_out_every_initial_state():
    for text in ("init: false\nvar x: bool\naction A: skip\n", "var x: 0..2 = 1\ninit: x != 1\naction A: skip\n"):
        _, result = run(text)
        assert (result.verdict.value, result.distinct_states, result.states_generated) == ("ok", 0, 0)


def test_sets_are_iterated_in_canonical_order_by_the_typed_sort_keys():
    """The generated sort keys (`ck{n}`: `none` as -infinity, tuples of the parts' keys, sorted
    tuples for sets) order the values of each type exactly as runtime.canon does: parameters,
    choices and traces depend on that order."""
    model = model_of("""
        const A: set[int?] = {none, -2, 3}
        const Q: set[seq[int?]] = {[], [none], [none, 1], [1], [-1, none]}
        const P: set[set[(int, bool?)]] = {{}, {(1, none)}, {(1, true), (0, none)}, {(0, false)}}
        const M: set[map[int, set[int]?]] = {{0 -> none}, {1 -> none}, {1 -> {}}, {1 -> {2}, 2 -> none}, {0 -> {1, 2}}}
        const E: set[(int, bool?)?] = {none, (1, none), (0, true), (-1, false)}
        var S: set[{a: int?, b: seq[int?], c: set[(int, bool?)]?, d: map[int, set[int]?], e: (int, bool?)?}] = (
            {{a: x, b: q, c: p, d: m, e: y} for x in A for q in Q for p in P for m in M for y in E}
            | {{a: none, b: [], c: none, d: {0 -> {}}, e: none}})
        var n: int = 0
        var O: set[(int, bool)?] = {none, (1, true), (0, false), (-1, true)}
        action Pick(r in S):
            n = n + 1
        action PickOption(o in O):
            n = n + 1
    """)
    assert "key=ck" in model.generated.source and "_sorted_option(v2)" in model.generated.source
    state = next(model.init())
    assert len(state[0]) == 3 * 5 * 4 * 5 * 4 + 1
    assert [args[0] for args, _ in model.actions[0](state)] == runtime.canon(state[0])
    assert [args[0] for args, _ in model.actions[1](state)] == runtime.canon(state[2])


def test_a_constant_expression_that_may_fault_is_computed_once_when_first_needed():
    """`powerset(...)` may fault (E408), so it is not computed with the constants; it is memoised
    where it is first evaluated, and a fault is raised again at every evaluation, as before."""
    text = """
        const Big: set[int] = 1..21
        var x: int = 0
        action Step:
            require x < 2
            x = x + 1
        action Never:
            require x > 5
            x = len(powerset(Big))
        invariant Small: x <= 2 and {1} in powerset({1, 2}) - {{}}
    """
    model, result = run(text)
    assert "_memo(lambda: len(_powerset(" in model.generated.source
    assert result.verdict == Verdict.DEADLOCK and result.distinct_states == 3
    _, result = run(text.replace("require x > 5", "require x == 1"))
    assert result.error is not None and result.error.code == "E408"
    assert len(result.error.trace.steps) == 2  # the initial state, then Step: x == 1 enables Never


def test_comparisons_with_none_are_identity_tests():
    """`none` is a singleton, also after pickling (--workers) and copying: `x == none` is
    `x is NONE`."""
    model, result = run("""
        var x: int? = none
        action Set:
            require x == none
            x = 1
        action Back:
            require none != x
            x = none
    """)
    source = model.generated.source
    assert "(v0 is NONE)" in source and "(v0 is not NONE)" in source and "== NONE" not in source
    assert result.verdict == Verdict.OK and result.distinct_states == 2
    assert copy.deepcopy(runtime.NONE) is runtime.NONE and pickle.loads(pickle.dumps(runtime.NONE)) is runtime.NONE


def test_a_let_of_a_name_and_a_small_def_are_written_where_they_are_used():
    """No function call for `p[2] ?? 0` (a `let` of a part of a name) nor for the small `def`
    around it; a def that recurses stays a call."""
    model, result = run("""
        var q: set[(int, int?)] = {(1, none), (2, 3)}
        var n: int = 0
        def second(p: (int, int?)) -> int:
            p[2] ?? 0
        def down(k: int) -> int:
            if k <= 0 then 0 else down(k - 1)
        action Step:
            require n < 2
            n = n + 1
        invariant Seconds: sum(second(p) for p in q) == 3 and down(n) == 0
    """)
    source = model.generated.source
    inv = source[source.index("def inv0"):]
    assert "f0(" not in inv and "lambda" not in inv and "f1(" in inv
    assert result.verdict == Verdict.DEADLOCK and result.distinct_states == 3


def test_a_set_built_as_its_set_lies_reports_the_first_fault_in_canonical_order():
    """A set comprehension whose condition may fault is built from the set as it lies, and built
    again in canonical order only when an element faults: the fault reported is still the first
    in canonical order (key 3, although 65 comes first as the set lies)."""
    model, result = run("""
        var m: map[int, int] = {1 -> 10, 2 -> 20}
        var s: set[int] = {65, 33, 3, 1}
        invariant Keys: len({x for x in s if m[x] > 0}) >= 0
    """)
    assert "_retry_canonical(" in model.generated.source and list(frozenset((65, 33, 3, 1)))[0] == 65
    assert result.verdict == Verdict.ERROR and result.error.code == "E401"
    assert result.error.message.startswith("key 3 is not in the domain")
    _, result = run("""
        var m: map[int, int] = {1 -> 10, 2 -> 20, 3 -> 0}
        var s: set[int] = {3, 2, 1}
        invariant Keys: len({x for x in s if m[x] > 0}) == 2
    """, check_deadlock=False)
    assert result.verdict == Verdict.OK


# ---------------------------------------------------------------- issue 32, item 13: the order of `_constants()`

def test_issue_32_a_constant_computed_by_a_recursive_def_reads_its_hoisted_literal():
    """`{0, 7}` is hoisted (computed once, in `_constants()`): it must be computed before the
    constant whose value calls F, not after every constant."""
    model, result = run("""
        def F(n: int) -> set[int]: if n == 0 then {0, 7} else F(n - 1)
        const S: set[int] = F(1)
        var x: int = 0
        action Step:
            skip
        """)
    assert model.constants == [frozenset({0, 7})]
    assert result.verdict == Verdict.OK and result.distinct_states == 1


def test_issue_32_a_hoisted_value_reading_a_constant_comes_between_the_constants():
    """`{N, 7}` reads N and is read (through F) by S: after N, before S."""
    model, _ = run("""
        const N: int = 3
        def F(n: int) -> set[int]: if n == 0 then {N, 7} else F(n - 1)
        const S: set[int] = F(2)
        const Size: int = len(S)
        var x: int = 0
        action Step:
            skip
        """)
    assert model.constants == [3, frozenset({3, 7}), 2]


def test_issue_32_a_hoisted_call_of_a_later_def_comes_after_that_defs_own_values():
    """H calls G(2), computed once with the constants; G (too large to be written where it is
    called) reads its own hoisted sets, which must exist when G(2) is computed."""
    branches = " else ".join(f"(if n == {i} then {{{i}, {i + 7}}}" for i in range(4)) + " else {n, n + 1, n + 2}" + ")" * 4
    model = model_of(f"""
        def H(n: int) -> set[int]: G(2) | {{n}}
        def G(n: int) -> set[int]: {branches}
        var x: int = 0
        action Step:
            require x < 2
            x = x + len(H(x))
        """)
    assert "= f1(2)" in model.generated.source  # the call is computed once, with the constants
    assert [s for _, s in model.actions[0]((0,))] == [(3,)]  # H(0) = {2, 9} | {0}


# ---------------------------------------------------------------- guards out of the loops (issue 35, cost)

HOIST = """
    spec hoist_demo

    const P: set[int] = 1..3

    var pc: map[int, int] = {p -> 0 for p in P}
    var got: map[int, int] = {p -> 0 for p in P}
    var part: map[int, int] = {p -> 0 for p in 1..2}

    action Step(p in P, a in {1, 2}, b in {false, true}):
        require pc[p] == 0
        pc[p] = a
        if b:
            got[p] = a

    action Reset(p in P, a in {false, true}):
        require pc[p] == 2 and got[p] == 2
        pc[p] = 0
        got[p] = if a then 0 else 1

    action Part(p in P, a in {false, true}):
        require part[p] == 0 and pc[p] > 0
        part[p] = if a then 1 else 2
"""


def _function_lines(model, name: str) -> list[str]:
    lines = model.generated.source.splitlines()
    start = lines.index(next(x for x in lines if x.startswith(f"def {name}(")))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("def ")), len(lines))
    return [x.strip() for x in lines[start:end]]


def test_issue_35_a_guard_reading_an_assigned_map_at_the_first_parameter_leaves_the_other_loops():
    # `pc[p] == 0` reads pc, which Step assigns, and may fault (a map look-up): it is evaluated
    # once per p, before the loops over a and b (constant sets), not once per (p, a, b)
    model = model_of(HOIST)
    for name in ("n0", "a0"):
        lines = _function_lines(model, name)
        fors = [i for i, x in enumerate(lines) if x.startswith("for ")]
        guard = next(i for i, x in enumerate(lines) if x.startswith("if ") and "_lookup(" in x)
        assert len(fors) == 3 and fors[0] < guard < fors[1], "\n".join(lines)
        # pc read as the parent's (reset after the combination before assigned it)
        assert any(x.startswith("v0 = s[0]") for x in lines[fors[0]:guard])


def test_issue_35_guards_out_of_the_loops_give_the_reference_explorers_counts():
    from tests.reference_explorer import reference_counts

    model = model_of(HOIST.split("    action Part")[0])
    for deadlock in (True, False):
        result = explore(model, Options(check_deadlock=deadlock))
        assert result.verdict in (Verdict.OK, Verdict.DEADLOCK)
        ref = reference_counts(model.ir, check_deadlock=deadlock)
        assert (result.distinct_states, result.states_generated, result.depth) == ref[:3]


def test_issue_35_a_guard_out_of_the_loops_faults_where_it_did_and_not_over_an_empty_set():
    # Part's guard faults at p = 3 (not in part's domain), once pc[3] > 0: the same error as when
    # it was evaluated per combination
    model = model_of(HOIST)
    result = explore(model, Options(check_deadlock=False))
    assert result.verdict == Verdict.ERROR and result.violation.name == "E401", result
    # over an empty set of a later parameter the guard is never evaluated: no error
    empty = model_of(HOIST.replace("action Part(p in P, a in {false, true})",
                                   "action Part(p in P, a in {x for x in {false, true} if x and not x})"))
    assert explore(empty, Options(check_deadlock=False)).verdict == Verdict.OK
