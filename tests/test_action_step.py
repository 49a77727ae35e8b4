"""Actions as predicates of a step (issue 38 item 3): in a step property, `A(x)` is true of a step
that action A takes with argument x, and `A` of one it takes with some arguments (TLA+'s
`[][\\A x : A(x) => B(x)]_vars`), so an action is not written a second time as a `def` of its
successors. Elsewhere an action is not a predicate (E134)."""

import pytest

from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tests.conftest import ROOT, model_of, run, spec_error

HEAD = """
const Clients: set[int] = 1..2
var holder: int = 0
var epoch: int = 0
var written: int = 0
action Acquire(c in Clients):
    require holder == 0 and epoch < 2
    holder = c
    epoch = epoch + 1
action Release(c in Clients):
    require holder == c
    holder = 0
action Write(c in Clients):
    require holder == c
    written = epoch
"""


def _verdict(prop: str):
    _, result = run(HEAD + f"property P: {prop}\n", check_deadlock=False)
    return result.verdict


@pytest.mark.parametrize("action,primed", [
    # the action as a predicate, and the same step written out with primes (the `def` it replaces)
    ("all(Write(c) implies written' == epoch for c in Clients)",
     "all(holder == c and written' == epoch and holder' == holder and epoch' == epoch implies written' == epoch "
     "for c in Clients)"),
    ("(epoch' != epoch implies Acquire)",
     "(epoch' != epoch implies any(holder == 0 and epoch < 2 and holder' == c and epoch' == epoch + 1 "
     "and written' == written for c in Clients))"),
    ("all(Release(c) implies holder == c for c in Clients)",
     "all(holder == c and holder' == 0 and epoch' == epoch and written' == written implies holder == c "
     "for c in Clients)"),
])
def test_issue_38_an_action_as_a_step_predicate_holds_where_its_successors_written_out_hold(action, primed):
    assert _verdict(f"always {action}") == _verdict(f"always {primed}") == Verdict.OK


@pytest.mark.parametrize("prop", [
    # the arguments count: client 2 writes too
    "always all(Write(c) implies c == 1 for c in Clients)",
    # a Release step is not an Acquire step, and epoch does change in some step
    "always (epoch' != epoch implies Release)",
    # every Write step is a Write(1) step: not when client 2 holds the lease
    "always (Write implies Write(1))",
    # a step of the action, whichever branch it takes
    "always (not Write)",
])
def test_issue_38_an_action_as_a_step_predicate_is_violated_by_a_step_of_it(prop):
    assert _verdict(prop) == Verdict.INVARIANT_VIOLATED


def test_issue_38_an_action_step_predicate_takes_every_branch_of_the_action():
    spec = ("var x: int = 0\naction Move:\n    require x < 3\n    either:\n        x = x + 1\n    or:\n"
            "        with d in {2}:\n            x = x + d\naction Back:\n    require x >= 3\n    x = 0\n")
    _, ok = run(spec + "property P: always (Move implies x' > x)\n")
    _, bad = run(spec + "property P: always (Move implies x' == x + 1)\n")
    assert ok.verdict == Verdict.OK
    assert bad.verdict == Verdict.INVARIANT_VIOLATED and bad.violation.name == "P"
    # the violating step is Move's second branch: 0 -> 2
    assert [s.state for s in bad.violation.trace.steps][-1] == (2,)


def test_issue_38_an_action_step_predicate_joins_a_temporal_part():
    _, result = run(HEAD + "fair weak Acquire or Release\n"
                           "property P: eventually epoch == 2 and always (epoch' != epoch implies Acquire)\n",
                    check_deadlock=False)
    assert result.verdict == Verdict.OK


@pytest.mark.parametrize("decl,message,hint", [
    ("invariant I: not Write", "action `Write` can be used as a predicate only in a step property", "enabled(Write)"),
    ("property P: eventually Write(1)", "action `Write` can be used as a predicate only in a step property",
     "enabled(Write(...))"),
    ("def f() -> bool: Write(1)", "action `Write` can be used as a predicate only in a step property",
     "a `def` is a value of one state"),
    ("property P: always all(Write(c, 1) implies true for c in Clients)",
     "action `Write` takes 1 argument (c), not 2", "write `Write` alone"),
])
def test_issue_38_an_action_is_a_predicate_only_of_a_step(decl, message, hint):
    d = spec_error(HEAD + decl + "\n")
    assert (d.code, d.message) == ("E134", message) and hint in d.hint


def test_issue_38_an_action_step_predicate_checks_its_arguments():
    d = spec_error(HEAD + "property P: always (Write(true) implies true)\n")
    assert d.code == "E102" and d.message == "argument `c` of `Write` should be int, but this is bool"


@pytest.mark.parametrize("prop,verdict", [
    ("all(Grant(n) implies holder' == n and n in waiting for n in Node)", Verdict.OK),
    ("all(Grant(n) implies holder != none for n in Node)", Verdict.INVARIANT_VIOLATED),
])
def test_issue_38_an_action_step_predicate_under_symmetry_agrees_with_every_state(prop, verdict):
    text = (ROOT / "tests" / "data" / "language" / "option_narrowing.spec").read_text()
    model = model_of(text + f"property P: always {prop}\n")
    reduced, unreduced = explore(model, Options()), explore(model, Options(symmetry=False))
    assert model.symmetry and reduced.verdict == unreduced.verdict == verdict
