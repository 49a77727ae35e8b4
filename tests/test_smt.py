"""smt.py and proof.py: every Z3 answer is checked against brute-force enumeration.

The oracle never touches Z3: theorem bodies and functions are compiled by
codegen (the code `tlacheck check` runs) and evaluated on every input
combination of their finite domains, enumerated here independently of
proof.domain_values. Checked: proved/refuted, the counterexample (the least
one), the exact counterexample set of `--all` (the union of the cubes), each
cube's primality and count, the cover's irredundancy, and diffs per
(old, new) result pair; on every spec in specs/ and on random predicates.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import textwrap
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tlacheck.compile import codegen
from tlacheck.ir import nodes as ir
from tlacheck.core import runtime
from tlacheck.pipeline.driver import build_model
from tlacheck.prove import smt
from tlacheck.core import types as T
from tlacheck.app.cli import main
from tlacheck.core.errors import SpecError, UsageError
from tlacheck.lang.parser import parse
from tlacheck.prove.proof import (
    Outcome, condition, cube_minus, cube_size, irredundant, literal, union_size, Input,
)
from tlacheck.core.result import Answer
from tlacheck.core.runtime import NONE
from tlacheck.core.source import Source
from tlacheck.lang.variants import BASE, variants
from tests.conftest import SPECS, spec_files

FORK = SPECS / "fork_teammate.spec"
ALL_SPECS = spec_files()


def model_of(text: str, variant: str = BASE, name: str = "t.spec"):
    return build_model(Source(name, textwrap.dedent(text).lstrip("\n")), None, variant)


# ---------------------------------------------------------------- the brute-force oracle

class Oracle:
    """Functions and theorem bodies of a model, compiled by codegen, and their domains."""

    def __init__(self, model):
        spec = model.ir
        extra = [ir.Function(f"theorem {t.name}", t.params, T.BOOL, t.body, t.span) for t in spec.theorems]
        self.bounds_at: dict[int, int] = {}
        for f in list(spec.functions) + extra:
            for p in f.params:
                if p.bounds is not None and p.id not in self.bounds_at:
                    self.bounds_at[p.id] = len(spec.functions) + len(extra)
                    extra += [ir.Function("lo", (), T.INT, p.bounds[0], None),
                              ir.Function("hi", (), T.INT, p.bounds[1], None)]
        plain = dataclasses.replace(spec, functions=spec.functions + tuple(extra), actions=(), invariants=(),
                                    constraints=(), properties=(), reachables=(), fairness=())
        generated = codegen.generate(plain)
        self.ns = {name: getattr(runtime, target) for name, target in codegen.RUNTIME_NAMES.items()}
        exec(compile(generated.source, "<oracle>", "exec"), self.ns)
        self.ns["_constants"]()
        self.spec = spec
        self.n_functions = len(spec.functions)

    def function(self, name: str):
        names = [f.name for f in self.spec.functions]
        return self.ns[f"f{names.index(name)}"]

    def theorem(self, name: str):
        names = [t.name for t in self.spec.theorems]
        return self.ns[f"f{self.n_functions + names.index(name)}"]

    def values(self, local: ir.Local) -> list:
        t = local.type
        inner = t.inner if isinstance(t, T.OptionT) else t
        if isinstance(inner, T.BoolT):
            vals = [False, True]
        elif isinstance(inner, T.SortT):
            vals = list(range(len(inner.members)))
        else:
            k = self.bounds_at[local.id]
            vals = list(range(self.ns[f"f{k}"](), self.ns[f"f{k + 1}"]() + 1))
        return [NONE] + vals if isinstance(t, T.OptionT) else vals

    def points(self, params) -> list[tuple]:
        """Every input combination, as value indices, in display order."""
        return list(product(*(range(len(self.values(p))) for p in params)))


def cube_points(cube) -> set[tuple]:
    return set(product(*(sorted(s) for s in cube)))


def check_cover(cover, expected: set[tuple], sizes: list[int]) -> None:
    """The cover is exact, its cubes prime and irredundant, its counts right."""
    assert cover.complete
    union = set().union(*(cube_points(c) for c in cover.cubes)) if cover.cubes else set()
    assert union == expected
    assert cover.total == len(expected)
    for i, cube in enumerate(cover.cubes):
        assert cube_size(cube) == len(cube_points(cube))
        others = set().union(*(cube_points(c) for j, c in enumerate(cover.cubes) if j != i))
        assert cube_points(cube) - others, "a cube is covered by the others"
        for k, allowed in enumerate(cube):
            for v in range(sizes[k]):
                if v not in allowed:
                    grown = cube[:k] + (allowed | {v},) + cube[k + 1:]
                    assert not cube_points(grown) <= expected, "a cube is not prime"


def check_theorem(model, oracle: Oracle, theorem: ir.Theorem) -> None:
    report = smt.prove(model, want_all=True, names=[theorem.name], guards=False)
    result = report.theorems[0]
    fn = oracle.theorem(theorem.name)
    domains = [oracle.values(p) for p in theorem.params]
    assert [list(i.values) for i in result.inputs] == domains
    failing = {pt for pt in oracle.points(theorem.params)
               if not fn(*(d[i] for d, i in zip(domains, pt)))}
    if not failing:
        assert result.outcome == Outcome.PROVED
        return
    assert result.outcome == Outcome.REFUTED
    assert result.counterexample == min(failing)
    check_cover(result.cover, failing, [len(d) for d in domains])


def check_diff(old_model, new_model, name: str, old_label="old", new_label="new") -> None:
    result = smt.diff(old_model, new_model, name, old_label, new_label)
    old, new = Oracle(old_model), Oracle(new_model)
    params = old_model.ir.functions[[f.name for f in old_model.ir.functions].index(name)].params
    domains = [old.values(p) for p in params]
    groups: dict[tuple, set] = {}
    for pt in old.points(params):
        args = [d[i] for d, i in zip(domains, pt)]
        a, b = old.function(name)(*args), new.function(name)(*args)
        if a != b:
            groups.setdefault((a, b), set()).add(pt)
    assert result.complete
    assert {(f.old, f.new) for f in result.flips} == set(groups)
    assert len(result.flips) == len(groups)
    for f in result.flips:
        check_cover(f.cover, groups[(f.old, f.new)], [len(d) for d in domains])
    assert result.differing == sum(len(g) for g in groups.values())


# ---------------------------------------------------------------- every spec in specs/

@functools.lru_cache(maxsize=None)
def _variant_models(path: Path):
    """Every variant of a spec file, compiled (models are immutable, so tests share them)."""
    source = Source(str(path), path.read_text())
    names = [BASE] + [v.name for v in variants(parse(source))]
    return {n: build_model(source, None, n) for n in names}


@pytest.mark.parametrize("path", ALL_SPECS, ids=lambda p: str(p.relative_to(SPECS)))
def test_every_theorem_in_specs_agrees_with_brute_force(path):
    for model in _variant_models(path).values():
        if not model.ir.theorems:
            continue
        oracle = Oracle(model)
        for theorem in model.ir.theorems:
            check_theorem(model, oracle, theorem)


def _comparable(f: ir.Function) -> bool:
    finite = (T.BoolT, T.SortT, T.IntT)
    inner = f.returns.inner if isinstance(f.returns, T.OptionT) else f.returns
    return isinstance(inner, finite) and all(
        isinstance(p.type.inner if isinstance(p.type, T.OptionT) else p.type, (T.BoolT, T.SortT))
        or p.bounds is not None for p in f.params)


@pytest.mark.parametrize("path", ALL_SPECS, ids=lambda p: str(p.relative_to(SPECS)))
def test_every_function_diff_in_specs_agrees_with_brute_force(path):
    models = _variant_models(path)
    base = models[BASE]
    for label, other in models.items():
        # A variant that changes a constant set (more model values) changes the inputs of
        # the functions that take it: `--diff` refuses those, so they are not compared.
        signatures = {f.name: ([p.type for p in f.params], f.returns) for f in other.ir.functions}
        for f in base.ir.functions:
            if signatures.get(f.name) == ([p.type for p in f.params], f.returns) and _comparable(f):
                try:
                    check_diff(base, other, f.name, BASE, label)
                except SpecError as exc:  # a refusal (records, state, recursion...) is an answer, not a wrong one
                    assert exc.diagnostics[0].code in ("E115", "E121", "E122"), exc


@pytest.mark.parametrize("path", ALL_SPECS, ids=lambda p: str(p.relative_to(SPECS)))
def test_no_action_in_specs_is_flagged_never_enabled(path):
    for model in _variant_models(path).values():
        assert smt.guard_warnings(model) == []


# ---------------------------------------------------------------- the seed (issue 4)

def test_issue_4_seed_theorems_decide_as_the_seed_describes():
    models = _variant_models(FORK)
    outcomes = {label: {r.name: r.outcome for r in smt.prove(m).theorems} for label, m in models.items()}
    assert outcomes["base"]["TeammateStaysForeground"] == Outcome.REFUTED
    assert outcomes["base"]["ExplicitFalseKeepsForeground"] == Outcome.REFUTED
    assert outcomes["base"]["UnsetEnvKeepsTeammatesForeground"] == Outcome.REFUTED
    assert outcomes["base"]["PinnedOffKeepsTeammatesForeground"] == Outcome.PROVED
    assert outcomes["Fix1"]["TeammateStaysForeground"] == Outcome.PROVED
    assert outcomes["Fix1"]["ExplicitFalseKeepsForeground"] == Outcome.PROVED
    assert outcomes["Fix2"]["NoSilentStall"] == Outcome.PROVED


def test_issue_4_seed_counterexample_is_the_repro():
    """Fork mode on, a teammate, nothing requested: the seed's repro, and the least counterexample."""
    r = smt.prove(_variant_models(FORK)["base"], names=["TeammateStaysForeground"]).theorems[0]
    shown = {i.name: i.format(i.values[v]) for i, v in zip(r.inputs, r.counterexample)}
    assert shown == {"isRemote": "false", "runInBackground": "none", "background": "false",
                     "coordinatorMode": "false", "forkSubagentsEnabled": "true", "isTeammate": "true",
                     "disableBackgroundTasks": "false"}


def test_issue_4_rollout_gate_forks_a_teammate_with_the_env_unset():
    r = smt.prove(_variant_models(FORK)["base"], names=["UnsetEnvKeepsTeammatesForeground"]).theorems[0]
    shown = {i.name: i.format(i.values[v]) for i, v in zip(r.inputs, r.counterexample)}
    assert (shown["forkEnv"], shown["rolloutGate"], shown["isTeammate"]) == ("Unset", "true", "true")


def test_issue_4_fix1_changes_only_teammate_inputs():
    models = _variant_models(FORK)
    for name in ("async_launch", "launches_async"):
        d = smt.diff(models["base"], models["Fix1"], name, "base", "Fix1")
        assert d.complete and d.flips
        teammate = [i.name for i in d.inputs].index("isTeammate")
        for f in d.flips:
            assert (f.old, f.new) == (True, False)
            for cube in f.cover.cubes:
                assert cube[teammate] == frozenset({1})  # isTeammate = true
    d = smt.diff(models["base"], models["Fix1"], "async_launch", "base", "Fix1")
    assert d.differing == 6


def test_issue_4_enum_valued_diff_names_old_and_new_values():
    models = _variant_models(FORK)
    d = smt.diff(models["base"], models["Fix2"], "completion_owner", "base", "Fix2")
    owner = models["base"].ir.functions[[f.name for f in models["base"].ir.functions]
                                          .index("completion_owner")].returns
    assert [(owner.members[f.old], owner.members[f.new]) for f in d.flips] == [("MainSession", "Spawner")]
    assert condition(d.inputs, d.flips[0].cover.cubes[0]) == "isTeammate"


# ---------------------------------------------------------------- random predicates

COLORS = ("R", "G", "B")
PARAMS = "a: bool, b: bool, o: bool?, c: Color, n: 0..3"
HEADER = "enum Color { R, G, B }\n"


def _bool_exprs():
    atoms = st.sampled_from(["a", "b", "true", "false", "o == true", "o != false", "o == none", "c == R",
                             "c != G", "c in {R, B}", "n < 2", "n == 3", "n in {0, 2}", "n in 1..2",
                             "n * n > n + 1", "n % 2 == 0", "n // 2 == 1", "o == a", "-n < -1"])

    def grow(inner):
        return st.one_of(
            inner.map(lambda x: f"not ({x})"),
            st.tuples(inner, st.sampled_from(["and", "or", "implies"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
            st.tuples(inner, inner).map(lambda t: f"((if {t[0]} then none else {t[1]}) == o)"),
            inner.map(lambda x: f"any(({x}) and x <= n for x in 0..2)"),
            inner.map(lambda x: f"all(y == n or ({x}) for y in {{1, 3}})"),
            inner.map(lambda x: f"({x} or n + 1 > 3)"),
        )

    return st.recursive(atoms, grow, max_leaves=6)


def _spec(body: str, other: str | None = None, ret: str = "bool") -> str:
    text = HEADER + f"def f({PARAMS}) -> {ret}:\n    {body}\n"
    text += f"theorem T: forall a, b, o, c, n: f(a, b, o, c, n) {'' if ret == 'bool' else '!= R'}\n"
    if other is not None:
        text += f"variant V:\n    replace def f({PARAMS}) -> {ret}:\n        {other}\n"
    return text


SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(_bool_exprs())
def test_random_predicates_agree_with_brute_force(body):
    model = build_model(Source("random.spec", _spec(body)))
    check_theorem(model, Oracle(model), model.ir.theorems[0])


@SETTINGS
@given(_bool_exprs(), _bool_exprs())
def test_random_diffs_agree_with_brute_force(old, new):
    source = Source("random.spec", _spec(old, new))
    check_diff(build_model(source), build_model(source, None, "V"), "f")


def _color_expr():
    return st.tuples(_bool_exprs(), _bool_exprs(), st.sampled_from(COLORS), st.sampled_from(COLORS + ("c",))).map(
        lambda t: f"if {t[0]} then {t[2]} else if {t[1]} then {t[3]} else G")


@settings(max_examples=12, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(_color_expr(), _color_expr())
def test_random_enum_valued_diffs_agree_with_brute_force(old, new):
    source = Source("random.spec", _spec(old, new, ret="Color"))
    old_model, new_model = build_model(source), build_model(source, None, "V")
    check_diff(old_model, new_model, "f")
    check_theorem(old_model, Oracle(old_model), old_model.ir.theorems[0])


# ---------------------------------------------------------------- cubes (proof.py)

def _random_cubes(sizes):
    one = st.tuples(*(st.sets(st.integers(0, n - 1), min_size=1).map(frozenset) for n in sizes))
    return st.lists(one, max_size=6)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(_random_cubes((2, 3, 4)))
def test_cube_algebra_agrees_with_point_sets(cubes):
    points = set().union(*(cube_points(c) for c in cubes)) if cubes else set()
    assert union_size(cubes) == len(points)
    kept = irredundant(list(cubes))
    assert (set().union(*(cube_points(c) for c in kept)) if kept else set()) == points
    if len(cubes) >= 2:
        pieces = cube_minus(cubes[0], cubes[1])
        rest = cube_points(cubes[0]) - cube_points(cubes[1])
        assert (set().union(*(cube_points(p) for p in pieces)) if pieces else set()) == rest
        assert sum(cube_size(p) for p in pieces) == len(rest)  # the pieces are disjoint


def test_literals_read_like_spec_conditions():
    rib = Input("runInBackground", T.OptionT(T.BOOL), (NONE, False, True))
    assert literal(rib, frozenset({0, 1})) == "runInBackground != true"
    assert literal(rib, frozenset({0})) == "runInBackground == none"
    assert literal(rib, frozenset({0, 1, 2})) is None
    flag = Input("isTeammate", T.BOOL, (False, True))
    assert literal(flag, frozenset({1})) == "isTeammate" and literal(flag, frozenset({0})) == "not isTeammate"
    color = Input("c", T.SortT("Color", COLORS, "enum"), (0, 1, 2))
    assert literal(color, frozenset({0, 2})) == "c != G"
    n = Input("n", T.INT, (0, 1, 2, 3, 4))
    assert literal(n, frozenset({1, 2, 3})) == "n in 1..3" and literal(n, frozenset({0, 2})) == "n in {0, 2}"
    assert condition((flag, rib), (frozenset({1}), frozenset({0, 1}))) == "isTeammate and runInBackground != true"
    assert condition((flag,), (frozenset({0, 1}),)) == "true"


# ---------------------------------------------------------------- bounded ints, large domains

def test_large_int_ranges_are_searched_by_bisection_and_grown_as_intervals():
    model = model_of("""
        def f(x: 0..999, y: 0..99) -> bool: x < 300 or x > 700 or y != 7
        theorem T: forall x, y: f(x, y)
    """)
    r = smt.prove(model, want_all=True).theorems[0]
    assert r.outcome == Outcome.REFUTED
    assert r.counterexample == (300, 7)  # the least one
    assert [condition(r.inputs, c) for c in r.cover.cubes] == ["x in 300..700 and y == 7"]
    assert r.cover.total == 401


def test_range_bounds_may_name_constants_issue_4():
    model = model_of("""
        const N: int = 4
        def f(x: 1..N, y: 0..N - 2?) -> bool: y == none or y != x
        theorem T: forall x, y: f(x, y)
    """)
    th = model.ir.theorems[0]
    assert [smt.local_bounds(p, model) for p in th.params] == [(1, 4), (0, 2)]
    r = smt.prove(model, want_all=True).theorems[0]
    assert r.domain_size == 4 * 4
    check_theorem(model, Oracle(model), th)


def test_constants_and_enum_sets_in_theorems():
    model = model_of("""
        const RM: set[model] = {r1, r2, r3}
        const Limit: int = 2
        def small(r: RM, k: 0..3) -> bool: r in {r1, r2} and k <= Limit
        theorem T: forall r, k: small(r, k) or r == r3 or k > Limit
        theorem Sum: forall (k: 0..3): sum(x for x in 0..3 if x <= k) <= 6
        theorem Any: forall (r: RM): any(r == s for s in RM)
    """)
    oracle = Oracle(model)
    for th in model.ir.theorems:
        check_theorem(model, oracle, th)
    assert {r.name: r.outcome for r in smt.prove(model).theorems} == {
        "T": Outcome.PROVED, "Sum": Outcome.PROVED, "Any": Outcome.PROVED}


# ---------------------------------------------------------------- errors

def test_unbounded_int_theorem_variable_is_E120():
    with pytest.raises(SpecError) as info:
        model_of("""
            def pos(n: int) -> bool: n > 0
            theorem T: forall n: pos(n) or not pos(n)
        """)
    d = info.value.diagnostics[0]
    assert d.code == "E120" and "without bounds" in d.message and (d.span.line, d.span.column) == (2, 19)


def test_infinite_theorem_variable_type_is_E120():
    with pytest.raises(SpecError) as info:
        model_of("theorem T: forall (s: set[bool]): s == s\n")
    assert info.value.diagnostics[0].code == "E120"


def test_recursion_is_refused_with_E121():
    model = model_of("""
        def even(n: 0..5) -> bool: if n == 0 then true else not even(n - 1)
        theorem T: forall (n: 0..5): even(n) or not even(n)
    """)
    with pytest.raises(SpecError) as info:
        smt.prove(model)
    d = info.value.diagnostics[0]
    assert d.code == "E121" and "recursive" in d.message and d.span.line == 1


def test_untranslatable_construct_is_E122_with_its_span():
    model = model_of("""
        def f(s: set[bool]) -> bool: len(s) > 0
        theorem T: forall (b: bool): f({b})
    """)
    with pytest.raises(SpecError) as info:
        smt.prove(model)
    d = info.value.diagnostics[0]
    assert d.code == "E122" and "`len`" in d.message and (d.span.line, d.span.column) == (1, 30)


def test_function_reading_state_from_a_theorem_is_E115():
    model = model_of("""
        var x: int = 0
        def f(b: bool) -> bool: b and x > 0
        theorem T: forall (b: bool): not f(b)
        action A:
            require x < 1
            x = x + 1
    """)
    with pytest.raises(SpecError) as info:
        smt.prove(model)
    assert info.value.diagnostics[0].code == "E115"


def test_unknown_theorem_and_function_names_are_usage_errors():
    model = _variant_models(FORK)["base"]
    with pytest.raises(UsageError) as info:
        smt.prove(model, names=["TeammateStaysForegrund"])
    assert info.value.hint == "did you mean `TeammateStaysForeground`?"
    with pytest.raises(UsageError) as info:
        smt.diff(model, model, "async_lunch", "base", "base")
    assert info.value.hint == "did you mean `async_launch`?"


# ---------------------------------------------------------------- vacuity

VACUOUS = """
    const N: int = 2
    enum Color { Red, Green }
    var x: int = 0
    def ok(c: Color, k: 0..3) -> bool: c == Red and k > N
    theorem T: forall c, k: (ok(c, k) and k < 2) implies c == Green
    theorem Fine: forall c, k: ok(c, k) implies k == 3
    action Paint(c in Color, k in 0..N):
        require ok(c, k)
        x = k
    action Tick:
        require N > 5
        x = x + 1
    action Empty(k in 1..0):
        x = k
    action ReadsState(k in 0..N):
        require k > x
        require k < 0 or x >= 0
        x = k
    invariant Small: x < 10
"""


def test_unsatisfiable_hypothesis_is_W210():
    report = smt.prove(model_of(VACUOUS))
    w210 = [w for w in report.warnings if w.code == "W210"]
    assert [(w.span.line, "`T`" in w.message) for w in w210] == [(5, True)]
    assert {r.name: r.outcome for r in report.theorems} == {"T": Outcome.PROVED, "Fine": Outcome.PROVED}


def test_action_that_can_never_be_taken_is_W211_and_the_warning_is_sound():
    model = model_of(VACUOUS)
    flagged = [w.message.split("`")[1] for w in smt.guard_warnings(model)]
    assert flagged == ["Paint", "Tick", "Empty"]
    # Independent evidence: the explorer never enables a flagged action in any reachable state.
    from tlacheck.engine.explore import explore
    from tlacheck.engine.options import Options

    result = explore(model, Options(check_deadlock=False))
    names = [a.name for a in model.ir.actions]
    assert all(result.coverage[names.index(n)].enabled == 0 for n in flagged)
    assert result.coverage[names.index("ReadsState")].enabled > 0


# ---------------------------------------------------------------- timeouts

def test_exhausted_budget_is_unknown_never_proved():
    model = model_of("theorem Easy: forall (x: 0..3): x >= 0\n")
    r = smt.prove(model, timeout_s=1e-9).theorems[0]
    assert r.outcome == Outcome.UNKNOWN and "timeout" in r.reason


def test_hard_theorem_stops_at_the_timeout():
    model = model_of("theorem Fermat: forall (x: 1..100000, y: 1..100000, z: 1..100000): "
                     "x*x*x + y*y*y != z*z*z\n")
    r = smt.prove(model, timeout_s=0.3).theorems[0]
    assert r.outcome in (Outcome.UNKNOWN, Outcome.PROVED)  # there is no counterexample
    assert r.elapsed_s < 3


def test_verify_expectations_use_decide():
    decision = smt.decide(_variant_models(FORK)["Fix1"], "NoSilentStall")
    assert decision.verdict == Answer.VIOLATES and decision.summary.startswith("refuted: isRemote = true")
    assert smt.decide(_variant_models(FORK)["Fix2"], "NoSilentStall").verdict == Answer.HOLDS


# ---------------------------------------------------------------- the prove command

def test_prove_exit_codes(tmp_path, capsys):
    assert main(["prove", str(FORK)]) == 12
    assert main(["prove", str(FORK), "--theorem", "PinnedOffKeepsTeammatesForeground"]) == 0
    assert main(["prove", str(FORK), "--variant", "Fix2", "--theorem", "NoSilentStall"]) == 0
    assert main(["prove", str(FORK), "--diff", "async_launch", "--against", "Fix1"]) == 0
    hard = tmp_path / "hard.spec"
    hard.write_text("theorem Easy: forall (x: 0..3): x >= 0\n")
    assert main(["prove", str(hard), "--timeout", "1e-9"]) == 5
    bad = tmp_path / "bad.spec"
    bad.write_text("def pos(n: int) -> bool: n > 0\ntheorem T: forall n: pos(n)\n")
    assert main(["prove", str(bad)]) == 3
    assert main(["prove", str(FORK), "--diff", "async_launch"]) == 2
    assert main(["prove", str(FORK), "--theorem", "Nope"]) == 2
    assert main(["prove", str(FORK), "--timeout", "0"]) == 2
    capsys.readouterr()


def test_prove_text_output_is_readable(capsys):
    main(["prove", str(FORK), "--all", "--theorem", "TeammateStaysForeground"])
    out = capsys.readouterr().out
    assert "Theorem TeammateStaysForeground: refuted" in out
    assert ("counterexample: isRemote = false, runInBackground = none, background = false, "
            "coordinatorMode = false, forkSubagentsEnabled = true, isTeammate = true, "
            "disableBackgroundTasks = false") in out
    assert "fails on 6 of 192 input combinations" in out
    assert "not isRemote and runInBackground != true and not background and isTeammate and " \
           "not disableBackgroundTasks\n    and one of:\n      4  coordinatorMode\n      4  forkSubagentsEnabled" in out


def test_prove_json(capsys):
    assert main(["prove", str(FORK), "--all", "--json"]) == 12
    data = json.loads(capsys.readouterr().out)
    assert (data["command"], data["verdict"], data["variant"]) == ("prove", "refuted", "base")
    th = {t["name"]: t for t in data["theorems"]}
    t = th["TeammateStaysForeground"]
    assert t["outcome"] == "refuted" and t["input_combinations"] == 192
    assert t["counterexample"]["runInBackground"] is None and t["counterexample"]["forkSubagentsEnabled"] is True
    assert t["counterexamples"]["total"] == 6 and t["counterexamples"]["complete"] is True
    cube = t["counterexamples"]["cubes"][0]
    assert cube["count"] == 4 and cube["inputs"]["runInBackground"] == [None, False]
    assert th["PinnedOffKeepsTeammatesForeground"]["outcome"] == "proved"
    assert th["PinnedOffKeepsTeammatesForeground"]["counterexamples"] is None


def test_prove_diff_json(capsys):
    assert main(["prove", str(FORK), "--diff", "completion_owner", "--against", "Fix2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["mode"], data["old"], data["new"], data["differing"]) == ("diff", "base", "Fix2", 1)
    assert [(f["old"], f["new"], f["total"]) for f in data["flips"]] == [("MainSession", "Spawner", 1)]
    assert data["flips"][0]["cubes"][0]["condition"] == "isTeammate"


def test_prove_output_is_deterministic(capsys):
    main(["prove", str(FORK), "--all"])
    first = capsys.readouterr().out
    main(["prove", str(FORK), "--all"])
    assert capsys.readouterr().out == first


# ---------------------------------------------------------------- docs/predicates.md

def _quoted_runs():
    """(command, expected lines) for every ``` block of docs/predicates.md that starts with `$ tlacheck prove`."""
    text = (SPECS.parent / "docs" / "predicates.md").read_text()
    runs = []
    for block in text.split("```")[1::2]:
        lines = block.strip("\n").split("\n")
        if lines[0].startswith("$ tlacheck prove "):
            args = lines[0][len("$ tlacheck "):].split()
            runs.append(pytest.param(args, [ln for ln in lines[1:] if ln != "..."], id=" ".join(args[2:])))
    return runs


@pytest.mark.parametrize("args, expected", _quoted_runs())
def test_outputs_quoted_in_the_docs_are_current(args, expected, capsys, monkeypatch):
    monkeypatch.chdir(SPECS.parent)
    main(args)
    out = capsys.readouterr().out.split("\n")
    it = iter(out)
    for line in expected:  # in order, allowing the lines the docs leave out
        assert any(line == o for o in it), f"not in the output (in order): {line!r}"


def test_large_optional_int_ranges():
    model = model_of("""
        def f(x: 0..99?, y: bool) -> bool: x == none or x not in 40..60 or y
        theorem T: forall x, y: f(x, y)
        theorem U: forall x, y: x != none or y or f(x, y)
    """)
    check_theorem(model, Oracle(model), model.ir.theorems[0])
    r = smt.prove(model, want_all=True).theorems
    assert [condition(r[0].inputs, c) for c in r[0].cover.cubes] == ["x in 40..60 and not y"]
    assert r[1].outcome == Outcome.PROVED


BIG = """
    def f(x: 0..1000000, y: 0..1000000) -> bool: x * y % 7 == 3
    theorem T: forall x, y: not f(x, y)
    variant V:
        replace def f(x: 0..1000000, y: 0..1000000) -> bool: x * y % 7 == 3 or x == y * y
"""


def _small_cube_points(cube, limit=64):
    return cube_points(cube) if cube_size(cube) <= limit else set()


def test_cover_cut_short_by_the_timeout_is_marked_incomplete_and_sound():
    model = model_of(BIG)
    oracle = Oracle(model)
    r = smt.prove(model, timeout_s=0.5, want_all=True).theorems[0]
    assert r.outcome in (Outcome.REFUTED, Outcome.UNKNOWN)  # never proved: (1, 3) is a counterexample
    if r.outcome == Outcome.REFUTED:
        assert not r.cover.complete and r.cover.cubes
        f = oracle.function("f")
        assert f(*(i.values[v] for i, v in zip(r.inputs, r.counterexample)))
        for cube in r.cover.cubes:
            assert all(f(*(i.values[v] for i, v in zip(r.inputs, pt))) for pt in _small_cube_points(cube))


def test_diff_cut_short_by_the_timeout_is_marked_incomplete_and_sound():
    old, new = model_of(BIG), model_of(BIG, "V")
    d = smt.diff(old, new, "f", "base", "V", timeout_s=0.5)
    assert not d.complete and d.reason
    f_old, f_new = Oracle(old).function("f"), Oracle(new).function("f")
    for flip in d.flips:
        for cube in flip.cover.cubes:
            for pt in _small_cube_points(cube):
                args = [i.values[v] for i, v in zip(d.inputs, pt)]
                assert (f_old(*args), f_new(*args)) == (flip.old, flip.new)


def test_option_and_int_valued_diffs_agree_with_brute_force():
    text = """
        enum Color { R, G, B }
        def pick(c: Color, o: bool?, n: 0..3) -> bool?:
            let twice = n + n
            if c == R then none else if twice > 2 then o else true
        def score(c: Color, n: 0..3) -> int: if c == G then n * 2 else n - 1
        variant V:
            replace def pick(c: Color, o: bool?, n: 0..3) -> bool?: if n == 0 then none else o
            replace def score(c: Color, n: 0..3) -> int: n - 1
    """
    old, new = model_of(text), model_of(text, "V")
    check_diff(old, new, "pick")
    check_diff(old, new, "score")


def test_coalescing_agrees_with_brute_force():
    model = build_model(Source("c.spec", "enum Agent { Lead, Mate, Other }\n"
                                         "def owner_or(a: Agent?, b: Agent) -> Agent: a ?? b\n"
                                         "theorem T: forall (a: Agent?, b: Agent, n: (0..3)?): "
                                         "owner_or(a, b) == Lead implies (n ?? 2) < 3 or a != none\n"
                                         "theorem U: forall (a: Agent?, b: Agent): owner_or(a, b) == b or a != none\n"))
    oracle = Oracle(model)
    outcomes = []
    for theorem in model.ir.theorems:
        check_theorem(model, oracle, theorem)
        outcomes.append(smt.prove(model, names=[theorem.name]).theorems[0].outcome)
    assert outcomes == [Outcome.REFUTED, Outcome.PROVED]
