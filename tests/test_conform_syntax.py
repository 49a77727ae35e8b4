"""The `conform:` section (issue 33): parsed (lang/parser.py), checked and lowered to ir.Conform
(lang/typecheck.py); every name it gives is checked against the spec (E132, with the nearest
name), its leading words stay usable as names elsewhere, variants replace it."""

import pytest

from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.ir import nodes as ir
from tlacheck.pipeline.driver import build_model


BASE = """spec Jobs
enum Status { Queued, Running, Done }
const Workers: set[model] = {w1, w2}
var status: Status = Queued
var owner: Workers? = none
var tries: int = 0
action Take(w in Workers):
    require status == Queued
    status = Running
    owner = w
action Finish:
    require status == Running
    status = Done
action Retry:
    require status == Running
    status = Queued
    tries = tries + 1
action Tick:
    skip
"""

SECTION = """conform:
    event "job.take" = Take(w = "worker")
    event "job.finish" = Finish
    event "job.retry_done" = Retry then Take then Finish
    event "heartbeat" = skip
    field "state" = status
    values Status: "queued" = Queued, "running" = Running
    values Status: "done" = Done
    values Workers: "worker-1" = w1, "worker-2" = w2
    ignore "ts", "pid"
    silent Tick, Retry
    lazy Finish
"""


def model(text: str, variant: str = "base"):
    return build_model(Source("jobs.spec", text), None, variant)


def error(text: str, variant: str = "base"):
    with pytest.raises(SpecError) as info:
        model(text, variant)
    (d,) = info.value.diagnostics
    return d


def line_col(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    found = [(i, line.index(needle) + 1) for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return found[nth]


def test_issue_33_the_section_is_lowered_to_the_ir():
    c = model(BASE + SECTION).conform
    assert isinstance(c, ir.Conform)
    take, finish, retry, tick = 0, 1, 2, 3
    assert [(e.name, e.steps) for e in c.events] == [
        ("job.take", ((take, ((0, "worker"),)),)),
        ("job.finish", ((finish, ()),)),
        ("job.retry_done", ((retry, ()), (take, ()), (finish, ()))),
        ("heartbeat", ()),
    ]
    assert c.fields == (("state", 0),)
    # two `values Status:` lines are one table; members by their index in the enum
    assert c.values == (("Status", (("queued", 0), ("running", 1), ("done", 2))),
                        ("Workers", (("worker-1", 0), ("worker-2", 1))))
    assert c.ignore == ("ts", "pid")
    assert c.silent == (tick, retry) and c.lazy == (finish,)
    assert c.events[0].span.line == line_col(BASE + SECTION, '"job.take"')[0]


def test_issue_33_a_spec_without_the_section_has_none_and_silent_defaults_to_every_action():
    assert model(BASE).conform is None
    c = model(BASE + 'conform:\n    field "state" = status\n').conform
    assert c.silent is None and c.lazy == () and c.events == ()


def test_issue_33_the_leading_words_stay_names_elsewhere():
    text = """var event: int = 0
var values: int = 0
var conform: bool = false
var lazy: bool = false
action silent:
    event = event + 1
    values = values + 1
    conform = not conform
    lazy = conform
invariant Small: event < 3 and values < 3 and (lazy or not lazy)
conform:
    field "e" = event
    silent silent
"""
    m = model(text)
    assert m.var_names == ("event", "values", "conform", "lazy")
    assert m.conform.fields == (("e", 0),) and m.conform.silent == (0,)


def test_issue_33_a_variant_replaces_the_section_and_a_second_one_is_refused():
    text = BASE + SECTION + """
variant Plain:
    replace conform:
        field "s" = status
variant Twice:
    conform:
        field "s" = status
"""
    assert model(text, "Plain").conform.fields == (("s", 0),)
    assert model(text).conform.fields == (("state", 0),)
    d = error(text, "Twice")
    assert d.code == "E101" and d.message == "`conform:` is already declared in the base spec"
    assert d.hint == "write `replace conform: ...` to change it"


@pytest.mark.parametrize("old,new,needle,message,hint", [
    ('= Take(w = "worker")', '= Tak(w = "worker")', "Tak(", "the spec has no action `Tak`", "did you mean `Take`?"),
    ('= Take(w = "worker")', '= Take(wk = "worker")', "wk =", "action `Take` has no parameter `wk`",
     "did you mean `w`?"),
    ('field "state" = status', 'field "state" = stat', "= stat", "the spec has no variable `stat`",
     "did you mean `status`?"),
    ("values Status:", "values Statuses:", "Statuses", "the spec has no enum or set of model values `Statuses`",
     "did you mean `Status`?"),
    ('"queued" = Queued', '"queued" = Queue', "Queue,", "`Status` has no member `Queue`", "did you mean `Queued`?"),
    ('"worker-2" = w2', '"worker-2" = w3', "w3", "`Workers` has no member `w3`", "its members: w1, w2"),
    ("silent Tick, Retry", "silent Tick, Retyr", "Retyr", "the spec has no action `Retyr`", "did you mean `Retry`?"),
    ("lazy Finish", "lazy Finish, Tick", "Finish, Tick", "`Tick` is both silent and lazy",
     "a lazy action is an unlogged step already (tried only when nothing else matches): name it in one of the "
     "two lines"),
])
def test_issue_33_every_name_is_checked_with_the_nearest_one(old, new, needle, message, hint):
    text = BASE + SECTION.replace(old, new)
    d = error(text)
    assert d.code == "E132" and d.message == "`conform:`: " + message and d.hint == hint
    name = message.split("`")[-2]  # the name the message is about: the caret is under it
    line, col = line_col(text, needle)
    assert (d.span.line, d.span.column) == (line, col + needle.index(name))


@pytest.mark.parametrize("extra,what", [
    ('    event "job.finish" = Retry\n', 'the event "job.finish"'),
    ('    field "state" = owner\n', 'the field "state"'),
    ('    values Status: "done" = Running\n', 'the text "done" of `Status`'),
    ('    ignore "pid"\n', 'the ignored name "pid"'),
    ("    silent Tick\n", "`silent Tick`"),
    ('    event "x" = Take(w = "a", w = "b")\n', "parameter `w` of `Take`"),
])
def test_issue_33_each_name_and_text_is_given_once(extra, what):
    text = BASE + SECTION + extra
    d = error(text)
    assert d.code == "E132" and d.message == f"`conform:`: {what} is given twice"
    assert d.span.line == len(text.splitlines()) and d.hint.startswith("first given at jobs.spec:")


@pytest.mark.parametrize("line,word,hint", [
    ('    evnt "x" = Tick\n', "evnt", "did you mean `event`? a line of `conform:` is one of: "),
    ('    field "x" = skip\n', "field", 'write `field "NAME" = variable`'),
    ('    values "x", "y"\n', "values", 'write `values Type: "text" = Member, ...`'),
    ('    lazy "Tick"\n', "lazy", "write `lazy Action, ...`"),
])
def test_issue_33_a_line_that_is_none_of_the_shapes_is_a_syntax_error_with_the_shapes(line, word, hint):
    d = error(BASE + SECTION + line)
    assert d.code == "E001" and d.message == f"unexpected `{word}` at the start of a line of `conform:`"
    assert d.hint.startswith(hint) and d.span.line == len((BASE + SECTION).splitlines()) + 1


def test_issue_33_a_field_line_names_one_variable():
    d = error(BASE + SECTION + '    field "x" = status then owner\n')
    assert d.code == "E001" and d.message == "a `field` line names one variable"


def test_issue_33_process_steps_are_actions_the_section_can_name():
    text = """var n: int = 0
process Counter:
    count:
        n = n + 1
        goto count
conform:
    event "tick" = count
"""
    assert model(text).conform.events[0].steps == ((0, ()),)


@pytest.mark.parametrize("line,hint", [
    ('    event "x" -> Tick\n', 'write `event "NAME" = Action` (or `= A then B`, `= A(p = "arg")`, `= skip`)'),
    ("    event x = Tick\n", 'write `event "NAME" = Action` (or `= A then B`, `= A(p = "arg")`, `= skip`)'),
    ('    values Status "x" = Done\n', 'write `values Type: "text" = Member, ...`'),
    ('    field "x" = status.y\n', 'write `field "NAME" = variable`'),
])
def test_issue_33_a_syntax_error_in_a_line_of_the_section_shows_the_lines_shape(line, hint):
    d = error(BASE + SECTION + line)
    assert d.code == "E001" and d.message.startswith("unexpected ") and d.hint == hint
    assert d.span.line == len((BASE + SECTION).splitlines()) + 1


def test_issue_33_the_shape_hint_is_only_for_lines_of_the_section():
    d = error(BASE.replace("    skip\n", "    let event = 1 +\n"))
    assert d.code == "E001" and d.hint.startswith("a line cannot end with `+`")
