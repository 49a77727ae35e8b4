"""`assume NAME: P` (TLA+'s ASSUME, issue 38 item 3): a boolean of the constants, checked once when
the model is built; a false one is E133, naming the values of the constants it reads."""

import pytest

from tlacheck.core.errors import UsageError
from tests.conftest import model_of, run, spec_error

SPEC = """
const N: int = 4
const F: int = 1
const Procs: set[int] = 1..N

def quorum() -> int: N - F

assume Resilience: N > 3 * F
assume QuorumFits: quorum() <= len(Procs)

var x: int = 0
action Inc:
    require x < N
    x = x + 1
action Stay:
    skip
"""


def test_issue_38_assumptions_that_hold_change_nothing():
    model, result = run(SPEC)
    assert result.verdict.value == "ok" and result.distinct_states == 5
    assert [p.name for p in model.ir.assumptions] == ["Resilience", "QuorumFits"]


def test_issue_38_a_false_assumption_names_the_constants_it_reads():
    d = spec_error(SPEC, {"N": "3"})
    assert (d.code, d.message) == ("E133", "assumption `Resilience` is false with N = 3, F = 1")
    assert (d.span.line, d.span.column) == (7, 20)
    assert "-D" in d.hint


def test_issue_38_assumptions_read_constants_through_defs():
    # quorum() reads N and F; len(Procs) reads Procs, computed from N
    d = spec_error(SPEC.replace("assume Resilience: N > 3 * F\n", ""), {"F": "-1"})
    assert d.message == "assumption `QuorumFits` is false with N = 4, F = -1, Procs = {1, 2, 3, 4}"


def test_issue_38_every_false_assumption_is_reported():
    with pytest.raises(Exception) as info:
        model_of(SPEC.replace("N - F", "N + F"), {"N": "3"})
    assert [d.message for d in info.value.diagnostics] == [
        "assumption `Resilience` is false with N = 3, F = 1",
        "assumption `QuorumFits` is false with N = 3, F = 1, Procs = {1, 2, 3}"]


def test_issue_38_an_assumption_reading_no_constant():
    d = spec_error("var x: int = 0\naction A:\n    x = 1 - x\nassume Never: 1 > 2\n")
    assert (d.code, d.message) == ("E133", "assumption `Never` is false")
    assert "whatever the constants are" in d.hint


@pytest.mark.parametrize("text,code,message", [
    ("var x: int = 0\naction A:\n    x = 1 - x\nassume Bad: x > 0\n", "E117",
     "assumption `Bad` depends on state variable `x`"),
    ("const N: int = 1\nvar x: int = 0\naction A:\n    x = 1 - x\ndef f() -> int: x\nassume Bad: f() == N\n",
     "E117", "assumption `Bad` depends on state variable `x`"),
    ("const N: int = 1\nvar x: int = 0\naction A:\n    x = 1 - x\nassume Bad: N\n", "E105",
     "assumption `Bad` must be a boolean, not int"),
    ("const N: int = 1\nvar x: int = 0\naction A:\n    x = 1 - x\nassume N: N > 0\n", "E101",
     "`N` is declared twice"),
    ("var x: int = 0\naction A:\n    x = 1 - x\nassume Bad: enabled(A)\n", "E128",
     "`enabled(...)` can be used only in an invariant, a temporal property or an action"),
])
def test_issue_38_assumption_misuse(text, code, message):
    d = spec_error(text)
    assert (d.code, d.message) == (code, message)


def test_issue_38_assume_stays_a_name_elsewhere():
    text = "var assume: int = 0\naction A:\n    require assume < 2\n    assume = assume + 1\naction B:\n    skip\n"
    _, result = run(text)
    assert result.distinct_states == 3


def test_issue_38_an_assumption_fails_on_an_evaluation_error_like_a_constant():
    from tlacheck.core.errors import EvalError

    with pytest.raises(EvalError) as info:
        model_of("const S: set[int] = {}\nvar x: int = 0\naction A:\n    x = 1 - x\nassume M: min(S) > 0\n")
    assert info.value.code == "E404"


def test_issue_38_variants_replace_assumptions_and_a_minus_d_value_is_checked():
    text = SPEC + "variant Wide:\n    replace assume Resilience: N > 2 * F\n"
    from tlacheck.pipeline.driver import build_model
    from tlacheck.core.source import Source

    assert build_model(Source("t.spec", text.lstrip("\n")), {"N": "3"}, "Wide").ir.assumptions
    with pytest.raises(UsageError):
        model_of(SPEC, {"N": "true"})
