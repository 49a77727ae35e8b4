"""Options where they hold a value (issue 38 item 3): after `require x != none`, inside `if x != none:`,
on the right of `x != none and`, ... `x` reads as its value, of the inner type; an assignment ends
that. Nothing changes at run time: the models equal those written with `??` and a default."""

import pytest

from tlacheck.core.errors import SpecError
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tests.conftest import ROOT, model_of, run, spec_error

HEAD = """
const Node: set[model] = {n1, n2}
var holder: Node? = none
var served: map[Node, int] = {n -> 0 for n in Node}
var rec: {who: Node, times: int}? = none
action Grant(n in Node):
    require holder == none and served[n] < 2
    holder = n
"""


@pytest.mark.parametrize("body", [
    # a require, then the value
    "action Release:\n    require holder != none\n    served[holder] = served[holder] + 1\n    holder = none\n",
    # a conjunct of the require
    "action Release:\n    require served[n1] >= 0 and holder != none\n    served[holder] = served[holder] + 1\n"
    "    holder = none\n",
    # an `if` and its `else`
    "action Release:\n    if holder != none:\n        served[holder] = served[holder] + 1\n    holder = none\n",
    "action Release:\n    if holder == none:\n        skip\n    else:\n        served[holder] = served[holder] + 1\n"
    "    holder = none\n",
    # elif: where the condition before is false
    "action Release:\n    if holder == none:\n        skip\n    elif served[holder] < 9:\n"
    "        served[holder] = served[holder] + 1\n    holder = none\n",
    # a let of a narrowed option is the value; a let of an option narrowed itself
    "action Release:\n    let h = holder\n    require h != none\n    served[h] = served[h] + 1\n    holder = none\n",
    # a `with` and an `either` inside see what holds outside
    "action Release:\n    require holder != none\n    either:\n        served[holder] = served[holder] + 1\n"
    "    or:\n        with k in {1}:\n            served[holder] = served[holder] + k\n    holder = none\n",
])
def test_issue_38_statements_narrow_an_option_to_its_value(body):
    # the same statements with a default where the value is taken: the same model
    written = body.replace("served[holder]", "served[holder ?? n1]").replace("served[h]", "served[h ?? n1]")
    assert written != body
    _, ours = run(HEAD + body, check_deadlock=False)
    _, theirs = run(HEAD + written, check_deadlock=False)
    assert ours.verdict == Verdict.OK and (ours.distinct_states, ours.states_generated) == \
        (theirs.distinct_states, theirs.states_generated)


@pytest.mark.parametrize("check", [
    "not (holder != none and served[holder] > 2)",
    "holder == none or served[holder] <= 2",
    "holder != none implies served[holder] <= 2",
    "not (holder == none) implies served[holder] <= 2",
    "not (holder == none) implies served[holder] <= 2 or holder == none",
    "(if holder != none then served[holder] else 0) <= 2",
    "(if holder == none then 0 else served[holder]) <= 2",
    "all(served[h] <= 2 for h in {holder} if h != none)",
    "rec == none or rec.times >= 0",
])
def test_issue_38_expressions_narrow_an_option_to_its_value(check):
    _, result = run(HEAD + f"invariant I: {check}\n", check_deadlock=False)
    assert result.verdict == Verdict.OK


def test_issue_38_a_def_narrows_its_parameters():
    _, result = run(HEAD + "def count(h: Node?) -> int: if h == none then 0 else served[h]\n"
                           "invariant I: count(holder) <= 2\n", check_deadlock=False)
    assert result.verdict == Verdict.OK


@pytest.mark.parametrize("body,line", [
    # assigned after the require: an option again
    ("action Release:\n    require holder != none\n    holder = none\n    served[holder] = 0\n", 11),
    # assigned in one branch of an either
    ("action Release:\n    require holder != none\n    either:\n        holder = none\n    or:\n        skip\n"
     "    served[holder] = 0\n", 14),
    # assigned by a block called there
    ("block drop():\n    holder = none\naction Release:\n    require holder != none\n    drop()\n"
     "    served[holder] = 0\n", 13),
    # the `then` of `x == none`
    ("action Release:\n    require (if holder == none then served[holder] else 0) >= 0\n    holder = none\n", 9),
    # `or` after `x != none`
    ("invariant I: holder != none or served[holder] >= 0\n", 8),
])
def test_issue_38_an_option_is_an_option_where_it_may_be_none(body, line):
    d = spec_error(HEAD + body)
    assert d.code == "E102" and d.message == "the key should be Node, but this is Node?" and d.span.line == line
    assert "it may be none here" in d.hint and "`x ?? d`" in d.hint


def test_issue_38_a_block_does_not_see_what_its_caller_knows():
    d = spec_error(HEAD + "block bump():\n    served[holder] = 1\naction Release:\n    require holder != none\n"
                          "    bump()\n")
    assert d.code == "E102" and d.span.line == 9  # in the block, checked on its own


def test_issue_38_comparisons_with_none_and_defaults_still_take_the_option():
    _, result = run(HEAD + "action Release:\n    require holder != none\n    require holder != none and (holder ?? n2) == holder\n"
                           "    holder = none\n", check_deadlock=False)
    assert result.verdict == Verdict.OK


def test_issue_38_narrowing_ends_at_a_temporal_operator():
    d = spec_error(HEAD + "action Release:\n    holder = none\nfair weak Release\n"
                          "property P: holder != none and eventually served[holder] > 0\n")
    assert d.code == "E102" and d.span.line == 11


def test_issue_38_under_symmetry_narrowing_names_no_member_where_a_default_does():
    symmetric = HEAD.replace("const Node", "symmetric const Node")
    d = spec_error(symmetric + "action Release:\n    require holder != none\n    served[holder ?? n1] = 1\n"
                               "    holder = none\n")
    assert d.code == "E123"
    model, result = run(symmetric + "action Release:\n    require holder != none\n    served[holder] = 1\n"
                                    "    holder = none\n", check_deadlock=False)
    assert result.verdict == Verdict.OK and result.symmetry is not None
    unreduced = explore(model, Options(check_deadlock=False, symmetry=False))
    assert result.distinct_states < unreduced.distinct_states


def test_issue_38_the_data_spec_under_symmetry_is_the_reference_explorers_without():
    from tests.reference_explorer import reference_counts

    model = model_of((ROOT / "tests" / "data" / "language" / "option_narrowing.spec").read_text())
    ours = explore(model, Options(symmetry=False))
    assert reference_counts(model.ir)[:2] == (ours.distinct_states, ours.states_generated)
