"""Fairness of a formula that is not a declared action (issue 38 item 3): `fair weak A(p) for some p
in S if c` is one condition, TLA+'s `WF_vars(\\E p \\in S : c /\\ A(p))`, where Next takes A for
every p (a wider receive); `c` is a predicate of the state before the step."""

import pytest

from tlacheck.core.result import Verdict
from tests.conftest import ROOT, run, spec_error

# process 1 can always receive (its inbox refills); process 2 has one message
SPEC = """
const Procs: set[int] = 1..3
const Correct: set[int] = 1..2
var inbox: map[int, int] = {p -> 1 for p in Procs}
var rounds: int = 0
action Receive(p in Procs):
    require inbox[p] > 0
    if p == 1 and rounds < 2:
        rounds = rounds + 1
    elif p == 1:
        rounds = 0
    else:
        inbox[p] = inbox[p] - 1
action Idle:
    skip
property TwoDone: eventually inbox[2] == 0
"""


def _verdict(fair: str, prop: str = "") -> Verdict:
    _, result = run(SPEC + fair + "\n" + prop)
    return result.verdict


def test_issue_38_for_some_is_one_condition_not_one_per_value():
    # one per value: process 2 receives; one for the whole set: process 1's steps satisfy it
    assert _verdict("fair weak Receive(p) for p in Correct") == Verdict.OK
    assert _verdict("fair weak Receive(p) for some p in Correct") == Verdict.LIVENESS_VIOLATED
    # (and over every process, process 3 would satisfy it too: the same as `fair weak Receive`)
    assert _verdict("fair weak Receive(p) for some p in Procs") == _verdict("fair weak Receive") \
        == Verdict.LIVENESS_VIOLATED


def test_issue_38_the_filter_of_for_some_reads_the_state_before_the_step():
    # where process 1 is not counted once it went round twice, process 2 must receive
    assert _verdict("fair weak Receive(p) for some p in Correct if p != 1 or rounds < 2") == Verdict.LIVENESS_VIOLATED
    assert _verdict("fair weak Receive(p) for some p in Correct if p != 1") == Verdict.OK
    assert _verdict("fair weak Receive(p) for some p in Correct if inbox[p] > 0 and p != 1") == Verdict.OK


def test_issue_38_for_some_over_a_set_of_the_state_and_with_stars():
    spec = SPEC.replace("action Idle:", "action Pair(p in Procs, q in 1..2):\n    require inbox[p] > 5\n"
                                        "    inbox[p] = q\naction Idle:")
    _, result = run(spec + "fair weak Receive(p) or Pair(p, *) for some p in {q for q in Correct if inbox[q] > 0} "
                           "if p != 1\n")
    assert result.verdict == Verdict.OK


def test_issue_38_for_some_inside_one_per_value():
    # one condition per q; inside it, some p of the pair
    _, result = run(SPEC + "fair weak Receive(p) for q in Correct for some p in {q} if inbox[p] > 0\n")
    assert result.verdict == Verdict.OK


@pytest.mark.parametrize("fair,code,message", [
    ("fair weak Receive(p) for somee p in Correct", "E001",
     "unexpected `somee` after `for` in a fairness condition"),
    ("fair weak Receive(p) for some p in Correct if inbox[p]", "E105", None),
    ("fair weak Receive(p) for some p in Correct if inbox'[p] > 0", "E118", None),
    ("fair weak Receive(p) for some p in Correct if inbx[p] > 0", "E100", "unknown name `inbx`"),
    ("fair weak Receive(p) for some p in 3", "E102", "`p in ...` needs a set, not int"),
])
def test_issue_38_for_some_errors(fair, code, message):
    d = spec_error(SPEC + fair + "\n")
    assert d.code == code and (message is None or d.message == message)


def test_issue_38_the_language_data_spec_meets_its_expectations():
    from tlacheck.app.cli import main

    assert main(["verify", str(ROOT / "tests" / "data" / "language" / "fair_some.spec")]) == 0
