"""The IR verifier (checker/ir/verify.py) on every lowered spec, and on IR broken on purpose."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tlacheck.core import types as T
from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.core.tree import walk
from tlacheck.ir import nodes as ir
from tlacheck.ir.verify import verify
from tlacheck.lang.parser import parse
from tlacheck.lang.typecheck import check
from tlacheck.lang.variants import BASE, variants
from tlacheck.pipeline.driver import lower
from tests.conftest import ROOT, SPECS, model_of
from tests.oracle.generate import generate

SPEC_FILES = (sorted(SPECS.rglob("*.spec")) + sorted((ROOT / "benchmarks" / "models").glob("*.spec"))
              + sorted((ROOT / "tests" / "data" / "tlc_init").glob("*.spec")))  # `init:` (issue 15)


def lowered(path: Path) -> list[tuple[str, ir.Spec]]:
    source = Source(str(path), path.read_text(encoding="utf-8"))
    tree = parse(source)
    names = [BASE] + [v.name for v in variants(tree)]
    return [(name, lower(source, variant=name)) for name in names]


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.name)
def test_every_variant_of_every_spec_lowers_to_well_formed_ir(path):
    for name, spec in lowered(path):
        assert verify(spec) == [], f"{path.name} ({name})"


def test_generated_specs_lower_to_well_formed_ir():
    """Specs nobody here wrote (the oracle's generator): 150 seeds, all that type check."""
    checked = 0
    for seed in range(1, 151):
        text = generate(seed).text
        source = Source(f"seed{seed}.spec", text)
        try:
            spec = check(parse(source), source)
        except SpecError:
            continue
        assert verify(spec) == [], f"seed {seed}"
        checked += 1
    assert checked > 100


# ---------------------------------------------------------------- it can fail

BASE_SPEC = """
var x: int = 0
var s: set[int] = {}
action Step(p in 0..2):
    require x < 3
    let y = p + 1
    x = y
    s = s | {x}
invariant Small: x < 5
"""


def base_spec() -> ir.Spec:
    return model_of(BASE_SPEC).ir


def with_action_body(spec: ir.Spec, body) -> ir.Spec:
    action = dataclasses.replace(spec.actions[0], body=tuple(body))
    return dataclasses.replace(spec, actions=(action,))


def test_the_base_spec_is_well_formed():
    assert verify(base_spec()) == []


def test_an_unknown_operator_cannot_even_be_built():
    with pytest.raises(ValueError):
        ir.Prim(T.INT, None, "frobnicate", ())


def test_a_wrong_arity_is_reported():
    spec = base_spec()
    inv = spec.invariants[0]
    broken = dataclasses.replace(inv, expr=dataclasses.replace(inv.expr, args=inv.expr.args[:1]))
    problems = verify(dataclasses.replace(spec, invariants=(broken,)))
    assert any("`lt` with 1 arguments, takes 2" in p for p in problems), problems


def test_a_local_read_outside_its_scope_is_reported():
    spec = base_spec()
    body = list(spec.actions[0].body)
    let = next(st for st in body if isinstance(st, ir.LetS))
    body.remove(let)  # `x = y` now reads y unbound
    problems = verify(with_action_body(spec, body))
    assert any("is read outside its scope" in p for p in problems), problems


def test_a_bool_literal_where_an_int_is_meant_is_reported():
    spec = base_spec()
    inv = spec.invariants[0]
    lit = inv.expr.args[1]
    broken = dataclasses.replace(inv, expr=dataclasses.replace(inv.expr, args=(inv.expr.args[0], dataclasses.replace(lit, value=True))))
    problems = verify(dataclasses.replace(spec, invariants=(broken,)))
    assert any("literal True is not a run-time value of type int" in p for p in problems), problems


def test_an_operator_of_the_wrong_type_is_reported():
    spec = base_spec()
    inv = spec.invariants[0]
    broken = dataclasses.replace(inv, expr=dataclasses.replace(inv.expr, type=T.INT))
    problems = verify(dataclasses.replace(spec, invariants=(broken,)))
    assert any("`lt`: type int where bool is expected" in p for p in problems), problems
    assert any("invariant Small: type int where bool is expected" in p for p in problems), problems


def test_an_assignment_to_a_missing_slot_or_of_the_wrong_type_is_reported():
    spec = base_spec()
    body = list(spec.actions[0].body)
    i = next(k for k, st in enumerate(body) if isinstance(st, ir.AssignS) and st.slot == 1)
    wrong_type = body[:i] + [dataclasses.replace(body[i], slot=0)] + body[i + 1:]  # x = s | {x}
    missing = body[:i] + [dataclasses.replace(body[i], slot=7)] + body[i + 1:]
    assert any("the value assigned to `x`" in p for p in verify(with_action_body(spec, wrong_type)))
    assert any("slot 7, out of range" in p for p in verify(with_action_body(spec, missing)))


def test_a_local_bound_twice_is_reported():
    spec = base_spec()
    body = list(spec.actions[0].body)
    let = next(st for st in body if isinstance(st, ir.LetS))
    problems = verify(with_action_body(spec, [let] + body))
    assert any("is bound twice" in p for p in problems), problems


# ---------------------------------------------------------------- the shared walkers

def _naive_statements(body) -> list:
    out = []
    for st in body:
        out.append(st)
        if isinstance(st, ir.IfS):
            for _, b in st.branches:
                out += _naive_statements(b)
            out += _naive_statements(st.orelse)
        elif isinstance(st, ir.EitherS):
            for b in st.branches:
                out += _naive_statements(b)
        elif isinstance(st, ir.WithS):
            out += _naive_statements(st.body)
    return out


def _naive_subexpressions(e) -> list:
    """`e` and the expressions in it, pre-order, by the IR's shapes written out (not CHILDREN)."""
    if isinstance(e, (ir.Prim, ir.CallDef)):
        parts = e.args
    elif isinstance(e, ir.IfE):
        parts = (e.cond, e.then, e.orelse)
    elif isinstance(e, ir.LetE):
        parts = (e.value, e.body)
    elif isinstance(e, ir.Build):
        parts = e.items
    elif isinstance(e, ir.Comp):  # codegen numbers the nodes in this order (generated code stays the same)
        parts = tuple(d for _, d in e.generators) + (e.body,) + tuple(x for x in (e.cond, e.key) if x is not None)
    else:
        parts = ()
    return [e] + [x for c in parts for x in _naive_subexpressions(c)]


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.name)
def test_the_shared_walkers_visit_what_a_recursion_visits(path):
    for _, spec in lowered(path):
        for a in spec.actions:
            assert list(ir.statements(a.body)) == _naive_statements(a.body)
            for st in ir.statements(a.body):
                for e in ir.stmt_exprs(st):
                    assert list(walk(e)) == _naive_subexpressions(e)


def test_issue_15_a_non_boolean_init_predicate_is_caught():
    spec = model_of("var x: 0..3\ninit: x > 0\naction A: skip\n").ir
    broken = dataclasses.replace(spec, initially=dataclasses.replace(
        spec.initially, expr=ir.VarRef(T.INT, spec.initially.span, 0)))
    assert verify(spec) == [] and any("init: predicate" in p for p in verify(broken))
