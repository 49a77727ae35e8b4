"""Temporal formulas of any nesting (engine/tableau.py): the automaton of the negated formula,
its product with the behaviour graph, a fair accepting cycle.

Three oracles, none of them the code under test: TLC on the same model and formula (a TLA+
module written here beside each case); a direct evaluation of the formula on the lasso tlacheck
reports (an ultimately periodic behaviour: positions 0..n-1, then back to the loop's start);
and the dedicated searches for the common forms, which must agree with the tableau on the
same property written in an equivalent form that only the tableau decides.
"""

from __future__ import annotations

import subprocess

import pytest

from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.engine.tableau import FALSE, TRUE, automaton, lit, release, until
from tests.conftest import model_of
from tests.oracle import tlc
from tests.oracle.compare import check_seed
from tests.oracle.generate import generate
from tests.test_liveness import replay_lasso

needs_tlc = pytest.mark.skipif(tlc.available() is not None, reason=f"TLC cannot run here: {tlc.available()}")

# A counter that climbs to 3 and may reset to 0 or stop at 3; Up is weakly fair, Reset is not.
SPEC = """
    var x: int = 0
    action Up:
        require x < 3
        x = x + 1
    action Reset:
        require x == 3
        x = 0
    fair weak Up
    property P: {formula}
"""
TLA = """---- MODULE Counter ----
EXTENDS Integers
VARIABLE x
Init == x = 0
Up == x < 3 /\\ x' = x + 1
Reset == x = 3 /\\ x' = 0
Spec == Init /\\ [][Up \\/ Reset]_x /\\ WF_x(Up)
P == {formula}
====
"""

# (tlacheck's formula, TLA+'s, the formula as a function of a lasso: see holds_on)
G, F, NOT, AND, OR, IMP = "G", "F", "not", "and", "or", "implies"
CASES = {
    "once three, always three": ("always (x == 3 implies always x == 3)", "[](x = 3 => [](x = 3))",
                                 (G, (IMP, ("x", 3), (G, ("x", 3))))),
    "not infinitely often two": ("not always eventually x == 2", "~[]<>(x = 2)", (NOT, (G, (F, ("x", 2))))),
    "settles or keeps resetting": ("eventually always x == 3 or always eventually x == 0",
                                   "<>[](x = 3) \\/ []<>(x = 0)", (OR, (F, (G, ("x", 3))), (G, (F, ("x", 0))))),
    "a reset implies infinitely many": ("(eventually x == 3) implies always eventually x == 1",
                                        "(<>(x = 3)) => []<>(x = 1)", (IMP, (F, ("x", 3)), (G, (F, ("x", 1))))),
    "one leads to settling": ("always (x == 1 implies eventually always x >= 1)",
                              "[](x = 1 => <>[](x >= 1))", (G, (IMP, ("x", 1), (F, (G, ("ge", 1)))))),
    "not eventually three": ("not eventually x == 3", "~<>(x = 3)", (NOT, (F, ("x", 3)))),
}


def holds_on(f, states: list[int], loop: int) -> bool:
    """f at position 0 of the behaviour states[0..], which goes on at position `loop` after the
    last (each state is x's value)."""
    n = len(states)

    def at(f, i) -> bool:
        op = f[0]
        if op == "x":
            return states[i] == f[1]
        if op == "ge":
            return states[i] >= f[1]
        if op == NOT:
            return not at(f[1], i)
        if op == AND:
            return at(f[1], i) and at(f[2], i)
        if op == OR:
            return at(f[1], i) or at(f[2], i)
        if op == IMP:
            return not at(f[1], i) or at(f[2], i)
        positions = range(loop, n) if i >= loop else range(i, n)  # every position from i on, forever
        if op == G:
            return all(at(f[1], j) for j in positions)
        if op == F:
            return any(at(f[1], j) for j in positions)
        raise AssertionError(op)

    return at(f, 0)


def run(formula: str):
    model = model_of(SPEC.format(formula=formula))
    return model, explore(model, Options(storage=Storage.EXACT))


def tlc_verdict(tmp_path, formula: str) -> str:
    (tmp_path / "Counter.tla").write_text(TLA.format(formula=formula))
    (tmp_path / "Counter.cfg").write_text("SPECIFICATION Spec\nPROPERTY P\n")
    proc = subprocess.run(tlc.command(tmp_path, "Counter.cfg", "Counter.tla"),
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    return tlc.parse(proc.stdout + proc.stderr, proc.returncode).verdict


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_counterexample_is_a_fair_behaviour_that_violates_the_formula(case):
    formula, _, f = CASES[case]
    model, result = run(formula)
    if result.verdict == Verdict.OK:
        return  # holds: TLC's verdict is compared below
    assert result.verdict == Verdict.LIVENESS_VIOLATED, result.violation
    trace = result.violation.trace
    replay_lasso(model, trace)
    states = [int(model.format_state(s.state)["x"]) for s in trace.steps]
    assert not holds_on(f, states, trace.loop_index)


@needs_tlc
@pytest.mark.parametrize("case", sorted(CASES))
def test_verdicts_agree_with_tlc(tmp_path, case):
    formula, tla, _ = CASES[case]
    _, result = run(formula)
    ours = "ok" if result.verdict == Verdict.OK else "temporal"
    assert tlc_verdict(tmp_path, tla) == ours


def test_the_cases_cover_both_verdicts():
    verdicts = {run(formula)[1].verdict for formula, _, _ in CASES.values()}
    assert verdicts == {Verdict.OK, Verdict.LIVENESS_VIOLATED}


# The common forms, and an equivalent form only the tableau decides.
EQUIVALENT = [
    ("eventually x == 3", "not always x != 3"),
    ("always eventually x == 0", "not eventually always x != 0"),
    ("eventually always x == 3", "not always eventually x != 3"),
    ("x == 1 leads_to x == 3", "always (x != 1 or eventually x == 3)"),
]


@pytest.mark.parametrize("common, nested", EQUIVALENT)
@pytest.mark.parametrize("fairness", ["fair weak Up", "fair weak Up\n    fair weak Reset", ""])
def test_the_tableau_agrees_with_the_dedicated_searches(common, nested, fairness):
    def verdict(formula):
        text = SPEC.format(formula=formula).replace("fair weak Up", fairness)
        result = explore(model_of(text), Options(storage=Storage.EXACT))
        return result.verdict, result.distinct_states

    assert verdict(common) == verdict(nested)


def test_automaton_of_a_simple_formula():
    # not (always p): true U not p; its automaton reads a not-p state at some point
    auto = automaton(until(TRUE, lit(0, False)))
    assert auto.initial and len(auto.accepting) == 1
    # always p with p false at once: the initial states must all read p
    auto = automaton(release(FALSE, lit(0)))
    assert all(auto.labels[q] == ((0, True),) for q in auto.initial)


@needs_tlc
def test_generated_nested_formulas_agree_with_tlc_and_the_reference():
    seeds = [s for s in range(1, 400) if "temporal-nested" in generate(s).features][:5]
    assert len(seeds) == 5
    for seed in seeds:
        o = check_seed(seed, tlc=True)
        assert o.status in ("agree", "error"), (seed, o.status, o.reason, o.diffs)


def test_the_tableau_decides_alike_with_two_workers():
    for formula, _, _ in CASES.values():
        model = model_of(SPEC.format(formula=formula))
        one = explore(model, Options())
        two = explore(model, Options(workers=2))
        assert one.verdict == two.verdict, formula
        if one.violation is not None:
            assert [s.state for s in one.violation.trace.steps] == [s.state for s in two.violation.trace.steps]
