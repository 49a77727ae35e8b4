"""The soundness issue's repros: tlacheck gives TLC's answers (TLC 2.15 was run on a TLA+
translation of each spec; its verdict, counts, depth and trace length are quoted here).

Items 1-4 are here, in every storage and with two workers. Items 5-7 are tested where their fixes
live: 5 (one analysis of state reads) in tests/test_typecheck.py and tests/test_codegen.py
(`test_soundness_5_...`), 6 (linear type checking) in tests/test_typecheck.py, 7 (exit codes on
a closed pipe or a full disk) in tests/test_cli.py.
"""

import pytest

from tlacheck.core.result import Check, Verdict
from tlacheck.engine.options import Storage
from tests.conftest import run


MODES = [pytest.param({"storage": Storage.FINGERPRINT}, id="fingerprint"),
         pytest.param({"storage": Storage.EXACT}, id="exact"),
         pytest.param({"workers": 2}, id="workers")]


def outcome(text: str, **options):
    _, r = run(text, **options)
    v = r.violation
    return (r.verdict, r.distinct_states, r.states_generated, r.depth,
            v.name if v else None, len(v.trace.steps) if v else None)


@pytest.mark.parametrize("mode", MODES)
def test_soundness_1_minus_one_and_minus_two_are_different_states(mode):
    # CPython's hash(-1) == hash(-2): the old fingerprint merged x = -1 and x = -2.
    text = """
        spec HashBug
        var x: int = 0
        action Down:
            require x > -3
            x = x - 1
        invariant NotMinusTwo: x != -2
        """
    # TLC: Invariant NotMinusTwo is violated; 3 states generated, 3 distinct; a trace of 3 states.
    assert outcome(text, check_deadlock=False, **mode) == (Verdict.INVARIANT_VIOLATED, 3, 3, 3, "NotMinusTwo", 3)


@pytest.mark.parametrize("mode", MODES)
def test_soundness_2_a_later_binder_of_with_sees_the_state_before_the_with(mode):
    text = """
        var x: int = 0
        var y: int = 1
        action A:
            require x == 0
            with a in {1, 2}, b in {y}:
                x = b
            y = 10
        invariant NotTen: x != 10
        """
    # TLC (\\E a \\in {1, 2} : \\E b \\in {y} : x' = b /\\ y' = 10): no error, 3 generated, 2 distinct, depth 2.
    assert outcome(text, check_deadlock=False, **mode) == (Verdict.OK, 2, 3, 2, None, None)


@pytest.mark.parametrize("mode", MODES)
def test_soundness_2_every_binder_and_choice_starts_from_the_same_values(mode):
    # Three binders, the later ones reading the state and earlier binders, after an `either`.
    text = """
        var x: int = 0
        var y: int = 1
        var log: seq[int] = []
        action A:
            require log == []
            either:
                y = 2
            or:
                skip
            with a in {y, y + 1}, b in {y + a}, c in {x + b, y}:
                x = x + c
                y = y * 10
                log = append(log, c)
        """
    _, r = run(text, check_deadlock=False, **mode)
    # y = 2: a in {2, 3}, b = 2 + a, c in {b, 2}: x = c in 4, 2, 5, 2 (y = 20);
    # y = 1: a in {1, 2}, b = 1 + a, c in {b, 1}: x = c in 2, 1, 3, 1 (y = 10). Each: 3 new states.
    assert (r.distinct_states, r.states_generated) == (1 + 3 + 3, 1 + 8)


@pytest.mark.parametrize("mode", MODES)
def test_soundness_3_states_failing_a_constraint_are_checked(mode):
    text = """
        var x: int = 0
        action A:
            x = x + 1
        invariant Inv: x != 2
        constraint Con: x < 2
        """
    # TLC: Invariant Inv is violated (x = 2, a trace of 3 states); 3 generated, 2 distinct, depth 2.
    assert outcome(text, check_deadlock=False, **mode) == (Verdict.INVARIANT_VIOLATED, 2, 3, 2, "Inv", 3)


@pytest.mark.parametrize("mode", MODES)
def test_soundness_3_an_always_property_is_checked_on_an_initial_state_failing_the_constraint(mode):
    text = """
        var x: int = 5
        action A:
            x = x + 1
        constraint Con: x < 2
        property P: always x < 5
        """
    # TLC: "Invariant P is violated by the initial state: x = 5" (TLC checks []P as an invariant).
    _, r = run(text, check_deadlock=False, **mode)
    assert (r.verdict, r.violation.kind, r.violation.name, len(r.violation.trace.steps)) == \
        (Verdict.INVARIANT_VIOLATED, Check.PROPERTY, "P", 1)


@pytest.mark.parametrize("mode", MODES)
def test_soundness_3_an_initial_state_failing_the_constraint_is_checked(mode):
    text = """
        var x: int in {0, 7}
        action A:
            require x < 3
            x = x + 1
        constraint Con: x < 5
        invariant Inv: x != 7
        """
    # TLC: "Invariant Inv is violated by the initial state: x = 7".
    assert outcome(text, check_deadlock=False, **mode)[0::4] == (Verdict.INVARIANT_VIOLATED, "Inv")
    assert outcome(text, check_deadlock=False, **mode)[5] == 1


@pytest.mark.parametrize("mode", MODES)
def test_soundness_3_an_evaluation_error_in_a_state_failing_the_constraint(mode):
    text = """
        var x: int = 0
        action A:
            x = x + 1
        constraint Con: x < 3
        invariant Inv: 10 // (x - 3) > -100
        """
    # TLC: "Evaluating invariant Inv failed. The second argument of \\div is 0", a trace of 4 states.
    _, r = run(text, check_deadlock=False, **mode)
    assert r.verdict == Verdict.ERROR and r.error.code == "E407"
    assert [s.state for s in r.error.trace.steps] == [(0,), (1,), (2,), (3,)]


@pytest.mark.parametrize("mode", MODES)
def test_soundness_4_depth_is_one_when_no_initial_state_is_stored(mode):
    text = """
        var x: int = 5
        action A:
            x = x + 1
        constraint Con: x < 2
        """
    # TLC: 1 state generated, 0 distinct, depth 1 (and depth 1 too with no initial state at all).
    assert outcome(text, check_deadlock=False, **mode) == (Verdict.OK, 0, 1, 1, None, None)
    empty = "var x: int in {}\naction A:\n    x = x + 1\n"
    assert outcome(empty, check_deadlock=False, **mode) == (Verdict.OK, 0, 0, 1, None, None)


def test_soundness_3_a_violated_always_property_is_reported_as_a_property():
    from tlacheck.output.report import format_result

    text = "var x: int = 0\naction A:\n    require x < 3\n    x = x + 1\nproperty P: always x < 2\n"
    model, r = run(text, check_deadlock=False)
    assert format_result(model, r, "test.spec").splitlines()[2] == \
        "Error: property P is violated: a reachable state does not satisfy it."


LEVELS = """
    enum Level { low, high }
    var x: map[Level, bool] = {low -> true, high -> true}
    action Set(k in Level, e in {false, true}):
        x[k] = e
    """


@pytest.mark.parametrize("mode", MODES)
def test_oracle_finding_keys_of_different_types_are_not_interned_as_each_other(mode):
    # Found by the differential oracle: the domain {false, true} and the enum's members (0, 1) are
    # equal tuples, so Level's keys were interned as (False, True); equal states then encoded,
    # so fingerprinted, differently in each worker (6 distinct states with --workers 2).
    # TLC: 4 distinct states, 17 generated.
    assert outcome(LEVELS, check_deadlock=False, **mode)[:4] == (Verdict.OK, 4, 17, 3)


def test_oracle_finding_map_keys_keep_their_type():
    from tests.conftest import model_of

    model = model_of(LEVELS)
    keys = next(model.init())[0][0]
    assert keys == (0, 1) and all(type(k) is int for k in keys)


def test_equal_arguments_of_two_actions_keep_their_types_in_the_state_graph():
    # The state graph interned the arguments of all actions together: B(i=0) was shown as B(i=false).
    text = """
        var x: int = 0
        action A(b in {false}):
            require x == 0 and not b
            x = 1
        action B(i in 0..0):
            require x == 1
            x = i
        fair weak A
        fair weak B
        property Never: eventually x == 5
        """
    model, r = run(text)
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    assert [model.step_label(s.action, s.args) for s in r.violation.trace.steps[1:]] + \
        [model.step_label(r.violation.trace.closing.action, r.violation.trace.closing.args)] == ["A(b=false)", "B(i=0)"]
