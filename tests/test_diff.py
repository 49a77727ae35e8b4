"""output/diff.py: the per-entry changes of a step, on every type, and the rule for showing a value
whole; then the golden outputs of a map-heavy trace (text, JSON, DOT, swimlanes).

Golden files (tests/golden/diffs/) change only when the tests run with TLACHECK_UPDATE_GOLDEN=1;
review the diff (and render the .dot files to look at them) before committing it.
"""

import json

import pytest

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.output import artefacts, diff, render, report
from tlacheck.output.diff import Op, change_json, changes, wrap
from tlacheck.output.report import format_result
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT, golden


TASKS = T.SortT("Tasks", ("alice", "bob", "carol", "dave", "erin"), "model")
ALICE, BOB, CAROL, DAVE, ERIN = range(5)
PC = T.SortT("Pc", ("Ready", "Waiting", "Done"), "enum")
READY, WAITING, DONE = range(3)


def one(old, new, t, name="v"):
    """The changes of one variable `name` of type `t` from `old` to `new`, as (path, op, text)."""
    out = []
    for c in changes((old,), (new,), (name,), (t,)):
        assert c.variable == name
        text = f"{c.old_text} -> {c.new_text}" if c.op is Op.CHANGED else c.element_text
        out.append((c.path, c.op.value, text))
    return out


def pcs(*values):
    return (tuple(range(len(values))), tuple(values))


# ---------------------------------------------------------------- scalars

def test_unchanged_variables_give_no_change():
    assert changes((1, True), (1, True), ("a", "b"), (T.INT, T.BOOL)) == []


@pytest.mark.parametrize("t, old, new, text", [
    (T.INT, 1, 2, "1 -> 2"),
    (T.BOOL, False, True, "false -> true"),
    (PC, READY, DONE, "Ready -> Done"),
    (TASKS, ALICE, BOB, "alice -> bob"),
])
def test_a_scalar_is_changed_whole(t, old, new, text):
    assert one(old, new, t) == [("v", "changed", text)]


def test_only_the_variables_that_changed_in_declaration_order():
    found = changes((1, 2, 3), (1, 5, 4), ("a", "b", "c"), (T.INT,) * 3)
    assert [(c.variable, c.path, c.whole) for c in found] == [("b", "b", True), ("c", "c", True)]
    assert [diff.row_changed(n, n, found) for n in ("a", "b", "c")] == [False, True, True]


# ---------------------------------------------------------------- maps

MAP = T.MapT(TASKS, PC)


def test_map_entry_changed():
    old = pcs(READY, READY, READY, READY, READY)
    new = pcs(WAITING, READY, READY, READY, READY)
    assert one(old, new, MAP, "pc") == [("pc[alice]", "changed", "Ready -> Waiting")]


def test_map_entries_changed_in_key_order():
    old = pcs(READY, READY, READY, READY, READY)
    new = pcs(READY, DONE, READY, WAITING, READY)
    assert one(old, new, MAP, "pc") == [("pc[bob]", "changed", "Ready -> Done"),
                                        ("pc[dave]", "changed", "Ready -> Waiting")]


def test_map_entry_added_and_removed():
    old = ((ALICE, BOB, CAROL), (READY, READY, DONE))
    added = ((ALICE, BOB, CAROL, DAVE), (READY, READY, DONE, WAITING))
    assert one(old, added, MAP, "pc") == [("pc", "added", "dave -> Waiting")]
    removed = ((ALICE, CAROL), (READY, DONE))
    assert one(old, removed, MAP, "pc") == [("pc", "removed", "bob -> Ready")]


def test_map_of_records_diffs_to_the_field():
    rec = T.RecordT((("state", PC), ("tries", T.INT)))
    t = T.MapT(TASKS, rec)
    old = pcs((READY, 0), (READY, 0), (READY, 0))
    new = pcs((READY, 0), (WAITING, 0), (READY, 0))
    assert one(old, new, t, "tasks") == [("tasks[bob].state", "changed", "Ready -> Waiting")]


def test_map_with_int_keys_and_set_values():
    t = T.MapT(T.INT, T.SetT(TASKS))
    old = ((1, 2), (frozenset({ALICE, BOB, CAROL, DAVE}), frozenset()))
    new = ((1, 2), (frozenset({ALICE, BOB, CAROL, DAVE, ERIN}), frozenset()))
    assert one(old, new, t, "m") == [("m[1]", "added", "erin")]


# ---------------------------------------------------------------- sets

SET = T.SetT(TASKS)


def test_set_element_added_and_removed():
    old = frozenset({ALICE, BOB, CAROL, DAVE})
    assert one(old, old | {ERIN}, SET, "waiting") == [("waiting", "added", "erin")]
    assert one(old, old - {BOB}, SET, "waiting") == [("waiting", "removed", "bob")]


def test_set_removed_before_added_each_in_canonical_order():
    old = frozenset({ALICE, BOB, CAROL, DAVE})
    new = frozenset({ALICE, CAROL, DAVE, ERIN})
    assert one(old, new, SET, "s") == [("s", "removed", "bob"), ("s", "added", "erin")]


def test_set_of_records_shows_the_record():
    rec = T.RecordT((("reply", PC), ("to", TASKS)))
    t = T.SetT(rec)
    old = frozenset({(READY, ALICE), (READY, BOB)})
    assert one(old, old | {(DONE, CAROL)}, t, "msgs") == [("msgs", "added", "{reply: Done, to: carol}")]


# ---------------------------------------------------------------- sequences

SEQ = T.SeqT(TASKS)


def test_sequence_append():
    old = (ALICE, BOB, CAROL, DAVE)
    found = changes((old,), (old + (ERIN,),), ("q",), (SEQ,))
    assert [(c.path, c.op, c.element_text, c.index) for c in found] == [("q", Op.ADDED, "erin", 5)]


def test_sequence_element_changed_in_place():
    old = (ALICE, BOB, CAROL, DAVE)
    assert one(old, (ALICE, ERIN, CAROL, DAVE), SEQ, "q") == [("q[2]", "changed", "bob -> erin")]


def test_sequence_shrinks_at_the_end_and_at_the_head():
    old = (ALICE, BOB, CAROL, DAVE, ERIN)
    found = changes((old,), (old[:4],), ("q",), (SEQ,))
    assert [(c.op, c.element_text, c.index) for c in found] == [(Op.REMOVED, "erin", 5)]
    found = changes((old,), (old[1:],), ("q",), (SEQ,))
    assert [(c.op, c.element_text, c.index) for c in found] == [(Op.REMOVED, "alice", 1)]


def test_a_queue_popped_and_pushed_in_one_step():
    """Same length, every position different: the shift explains it with two changes."""
    old = (ALICE, BOB, CAROL, DAVE, ERIN)
    new = (BOB, CAROL, DAVE, ERIN, ALICE)
    found = changes((old,), (new,), ("q",), (SEQ,))
    assert [(c.op, c.element_text, c.index) for c in found] == [(Op.REMOVED, "alice", 1), (Op.ADDED, "alice", 5)]


def test_a_sequence_rewritten_in_the_middle_is_shown_whole():
    old = (ALICE, BOB, CAROL, DAVE, ERIN)
    new = (ALICE, CAROL, BOB, ERIN)
    assert one(old, new, SEQ, "q") == [("q", "changed", "[alice, bob, carol, dave, erin] -> [alice, carol, bob, erin]")]


# ---------------------------------------------------------------- records, tuples, options

REC = T.RecordT((("holder", T.OptionT(TASKS)), ("notifies", T.INT), ("puts", T.INT), ("state", PC)))


def test_record_fields():
    old = (NONE, 0, 0, READY)
    assert one(old, (NONE, 1, 0, READY), REC, "stats") == [("stats.notifies", "changed", "0 -> 1")]
    assert one(old, (NONE, 1, 1, READY), REC, "stats") == [("stats.notifies", "changed", "0 -> 1"),
                                                           ("stats.puts", "changed", "0 -> 1")]


def test_option_to_and_from_none_is_whole():
    assert one((NONE, 0, 0, READY), (ALICE, 0, 0, READY), REC, "stats") == [("stats.holder", "changed", "none -> alice")]
    assert one(ALICE, NONE, T.OptionT(TASKS), "holder") == [("holder", "changed", "alice -> none")]


def test_option_with_a_value_both_times_is_diffed_as_the_value():
    t = T.OptionT(T.MapT(TASKS, PC))
    old = pcs(READY, READY, READY, READY)
    new = pcs(READY, READY, DONE, READY)
    assert one(old, new, t, "pc") == [("pc[carol]", "changed", "Ready -> Done")]


def test_tuple_positions_from_one():
    t = T.TupleT((T.SetT(TASKS), T.INT, T.INT))
    everyone = frozenset(range(5))
    assert one((everyone, 1, 2), (everyone, 1, 3), t, "pair") == [("pair[3]", "changed", "2 -> 3")]


# ---------------------------------------------------------------- the rule for whole values

def test_small_values_are_shown_whole():
    """Both forms print in at most diff.SMALL characters: the whole value is clearer."""
    assert one(frozenset({ALICE}), frozenset({ALICE, BOB}), SET, "s") == [("s", "changed", "{alice} -> {alice, bob}")]
    assert one((), (ALICE,), SEQ, "q") == [("q", "changed", "[] -> [alice]")]


def test_most_of_a_value_changed_is_shown_whole():
    old = pcs(READY, READY, READY, READY, READY)
    new = pcs(DONE, DONE, DONE, READY, READY)  # 3 of 5 entries
    assert one(old, new, MAP, "pc") == [("pc", "changed", "{alice -> Ready, bob -> Ready, carol -> Ready, "
                                         "dave -> Ready, erin -> Ready} -> {alice -> Done, bob -> Done, "
                                         "carol -> Done, dave -> Ready, erin -> Ready}")]
    half = pcs(DONE, DONE, READY, READY)  # 2 of 4: not most
    assert [p for p, _, _ in one(pcs(READY, READY, READY, READY), half, MAP, "pc")] == ["pc[alice]", "pc[bob]"]


def test_more_than_max_changes_lines_is_shown_whole():
    t = T.SetT(T.INT)
    old = frozenset(range(100))
    few = old | set(range(1000, 1000 + diff.MAX_CHANGES))
    assert len(one(old, few, t)) == diff.MAX_CHANGES
    many = old | set(range(1000, 1000 + diff.MAX_CHANGES + 1))
    assert [(p, op) for p, op, _ in one(old, many, t)] == [("v", "changed")]


def test_nesting_is_diffed_to_max_depth():
    """Records in records: three levels below the variable, then the value whole."""
    t = T.RecordT((("deep", T.INT), ("other", T.INT), ("third", T.INT)))
    for _ in range(4):
        t = T.RecordT((("inner", t), ("pad", T.INT), ("pad2", T.INT)))

    def value(x, levels=4):
        return (value(x, levels - 1), 0, 0) if levels else (x, 0, 0)

    assert one(value(0), value(1), t, "r") == [
        ("r.inner.inner.inner", "changed", "{inner: {deep: 0, other: 0, third: 0}, pad: 0, pad2: 0} -> "
                                           "{inner: {deep: 1, other: 0, third: 0}, pad: 0, pad2: 0}")]
    assert diff.MAX_DEPTH == 3


# ---------------------------------------------------------------- JSON and wrapping

def test_change_json():
    old = ((ALICE, BOB, CAROL), (READY, READY, DONE))
    new = ((ALICE, BOB, CAROL, DAVE), (WAITING, READY, DONE, READY))
    found = changes((old,), (new,), ("pc",), (MAP,))
    assert [change_json(c) for c in found] == [
        {"variable": "pc", "path": "pc[alice]", "op": "changed", "old": "Ready", "new": "Waiting"},
        {"variable": "pc", "path": "pc", "op": "added", "key": "dave", "value": "Ready"},
    ]
    seq = changes(((ALICE, BOB, CAROL, DAVE),), ((BOB, CAROL, DAVE),), ("q",), (SEQ,))
    assert [change_json(c) for c in seq] == [{"variable": "q", "path": "q", "op": "removed", "index": 1,
                                              "value": "alice"}]
    json.dumps([change_json(c) for c in found + seq])


def test_wrap_breaks_after_commas_and_cuts_what_has_none():
    assert wrap("{a, b}", 10) == ["{a, b}"]
    text = ", ".join(f"item{i}" for i in range(20))
    lines = wrap(text, 30)
    assert all(len(line) <= 30 for line in lines) and len(lines) > 3
    assert " ".join(lines) == text
    assert all(line.endswith(",") for line in lines[:-1])
    assert wrap("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]


# ---------------------------------------------------------------- golden outputs of a map-heavy trace

GOLDEN_DIR = ROOT / "tests" / "golden" / "diffs"
CONDVAR = "tests/golden/diffs/condition_variable.spec"


@pytest.fixture(scope="module")
def condvar():
    source = Source(CONDVAR, (ROOT / CONDVAR).read_text(encoding="utf-8"))  # the trace prints the relative name
    model = build_model(source)
    result = explore(model, Options(check_deadlock=False))
    assert result.violation.name == "ServedGotAnItem" and len(result.violation.trace.steps) == 7
    return model, result, source


def test_golden_text_trace(condvar):
    model, result, _ = condvar
    text = format_result(model, result, CONDVAR).split("\nSummary:\n")[0] + "\n"  # no timings
    golden(GOLDEN_DIR / "condition_variable.txt", text)
    assert "  * pc[alice]              = Locked    (was Idle)\n" in text
    assert "  * lease                  + alice -> 0\n" in text
    assert "  * idle                   - alice\n" in text
    assert "  * log                    + {event: Waits, who: alice}\n" in text
    assert max(len(line) for line in text.splitlines()) <= diff.WIDTH


def test_golden_json_changes(condvar):
    model, result, _ = condvar
    trace = report.trace_json(model, result.violation.trace)
    golden(GOLDEN_DIR / "condition_variable.trace.json", json.dumps(trace, indent=2, ensure_ascii=False) + "\n")
    assert trace[0]["changes"] == []
    assert {"variable": "lease", "path": "lease", "op": "added", "key": "alice", "value": 0} in trace[1]["changes"]


def test_golden_trace_diagram(condvar):
    model, result, source = condvar
    v = result.violation
    dot = render.trace_dot(model, v.trace, artefacts.headline(model, v, source))
    golden(GOLDEN_DIR / "condition_variable.dot", dot)
    assert '<B>pc[alice]</B></TD><TD ALIGN="LEFT" BGCOLOR="#fff1a8"><B>Idle → Locked</B>' in dot


def test_golden_swimlanes(condvar):
    model, result, source = condvar
    v = result.violation
    dot = render.swimlanes_dot(model, v.trace, artefacts.headline(model, v, source))
    golden(GOLDEN_DIR / "condition_variable.swimlanes.dot", dot)
    assert "<B>task[alice].lock_count: 0 → 1</B>" in dot and "<B>idle: - alice</B>" in dot


def test_a_large_value_changed_in_many_places_is_shown_whole_at_its_level():
    """More than MAX_CHANGES changed entries: whole at that path, the rest still per entry; the diff
    stops counting there (a value of 100,000 positions is not walked into 100,000 changes)."""
    t = T.RecordT((("big", T.SeqT(T.INT)), ("n", T.INT), ("tag", T.INT)))
    n = 100_000
    old = (tuple(range(n)), 0, 0)
    new = (tuple(x + 1 if x % 3 == 0 else x for x in range(n)), 0, 0)  # a third of the positions
    found = changes((old,), (new,), ("r",), (t,))
    assert [(c.path, c.op) for c in found] == [("r.big", Op.CHANGED)]
