"""Processes (lang/processes.py): PlusCal-like `process` declarations desugared into actions.

The oracle for their meaning is PlusCal itself: random process specs are written twice, as
tlacheck processes and as a PlusCal algorithm that TLA+'s own translator turns into TLA+ for
TLC (tests/oracle/processes.py; `python -m tests.oracle.processes 1:300` for a campaign). The
rest pins what users see: the seed model written with processes agrees with the map-based one,
traces and coverage read process by process, and every misuse is an E129 at its place.
"""

from __future__ import annotations

import textwrap

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.app.verify import verify_source
from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.output.render import lanes, trace_dot
from tlacheck.output.report import format_summary, format_trace
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS
from tests.oracle import processes as oracle
from tests.oracle import tlc


needs_tlc = pytest.mark.skipif(tlc.available() is not None, reason=f"TLC cannot run here: {tlc.available()}")


def model_of(text: str):
    return build_model(Source("p.spec", textwrap.dedent(text)))


def run(text: str, **options):
    m = model_of(text)
    return m, explore(m, Options(storage=Storage.EXACT, **options))


PETERSON = """\
    var flag: map[1..2, bool] = {p -> false for p in 1..2}
    var turn: 1..2 = 1

    fair process Proc(self in 1..2):
        ncs:
            while true:
                set_flag:
                    flag[self] = true
                set_turn:
                    turn = 3 - self
                wait:
                    await not flag[3 - self] or turn == self
                cs: skip
                leave:
                    flag[self] = false

    invariant MutualExclusion: not (Proc[1].pc == cs and Proc[2].pc == cs)
    property NoStarvation: all(Proc[p].pc == set_flag leads_to Proc[p].pc == cs for p in 1..2)
    """


# ---------------------------------------------------------------- against PlusCal and TLC

@needs_tlc
@pytest.mark.parametrize("seed", range(1, 9))
def test_random_processes_agree_with_tlc_on_pluscals_translation(seed):
    diffs = oracle.compare(seed)
    spec = oracle.generate(seed)
    assert not diffs, f"seed {seed}: {diffs}\n{spec.tlacheck}\n{spec.pluscal}"


def test_the_oracle_generates_every_construct_it_claims():
    """The generator's seeds of the bounded slice above, and of campaigns, cover loops, gotos,
    both kinds of process, locals chosen from a set, and violated invariants."""
    texts = [oracle.generate(seed).tlacheck for seed in range(1, 60)]
    for construct in ("while ", "goto ", "either:", "if ", "await ", "(self in ", "process P0:", " in {0, 1}",
                      "invariant Inv: not ("):
        assert any(construct in t for t in texts), construct


def test_peterson_counts_and_verdicts():
    # TLC on the PlusCal algorithm (docs/language.md's example): 77 generated, 42 distinct, no error
    m, r = run(PETERSON)
    assert (r.verdict.name, r.states_generated, r.distinct_states) == ("OK", 77, 42)


def test_a_broken_peterson_is_caught():
    # The mutation the docs mention: a process gives the turn to itself.
    m, r = run(PETERSON.replace("turn = 3 - self", "turn = self"))
    assert r.verdict.name == "INVARIANT_VIOLATED" and r.violation.name == "MutualExclusion"
    last = r.violation.trace.steps[-1].state
    shown = dict((label, text) for _, label, text in m.state_rows(last))
    assert shown["Proc[1].pc"] == shown["Proc[2].pc"] == "cs"


# ---------------------------------------------------------------- the seed model, with processes

def _rows(name: str):
    return {(r.variant, r.check): (r.expected.value, r.got.value, r.states, r.trace_length)
            for r in verify_source(read_source(str(SPECS / name)))}


def test_notify_race_with_processes_agrees_with_the_map_based_model():
    maps, processes = _rows("notify_race.spec"), _rows("notify_race_processes.spec")
    assert maps == processes
    assert all(expected == got for expected, got, _, _ in processes.values())


def test_notify_race_trace_reads_process_by_process(capsys):
    code = main(["check", str(SPECS / "notify_race_processes.spec")])
    out = capsys.readouterr().out
    assert code == 12
    steps = [line.split(":", 1)[1].split("    (")[0].strip() for line in out.splitlines()
             if line.startswith("State ") and "initial" not in line]
    assert steps == ["Runner: FinalApiRound", "Runner: TaskFinishes", "Runner: ClassifierGate",
                     "Runner: WorktreeRead", "Sender: SendDone", "FollowOn: StartFollowOn",
                     "Runner: EnqueueStopNotification", "FollowOn: FollowOnAnswers", "FollowOn: FollowOnNotifies"]
    assert "* FollowOn.pc     = Done    (was FollowOnNotifies)" in out


def test_instances_are_shown_by_name_in_traces_swimlanes_and_coverage():
    m, r = run(PETERSON.replace("turn = 3 - self", "turn = self"))
    text = format_trace(m, r.violation.trace)
    words = " ".join(text.split())
    assert "Proc[1].pc = ncs Proc[2].pc = ncs" in words  # the first state, instance by instance
    assert "State 2: Proc[1]: ncs" in words or "State 2: Proc[2]: ncs" in words
    assert "* Proc[2].pc = cs (was wait)" in words
    assert "Proc.pc" not in text  # never the map
    columns, actors, _ = lanes(m, r.violation.trace)
    assert set(columns) == {"Proc[1]", "Proc[2]"} and set(actors[1:]) <= {"Proc[1]", "Proc[2]"}
    report = format_summary(m, r)
    assert "  Proc: set_flag" in report and "Terminating" not in report  # `while true` never ends
    dot = trace_dot(m, r.violation.trace)  # the trace diagram: a row per instance, steps by instance
    assert "Proc[1].pc" in dot and "Proc[2].pc" in dot and "Proc.pc" not in dot
    assert "2. Proc[1]: ncs" in dot or "2. Proc[2]: ncs" in dot  # the step to state 2


# ---------------------------------------------------------------- the desugaring's rules

def test_an_ending_process_is_not_a_deadlock_but_a_stuck_one_is():
    ends = """\
        var x: int = 0
        process P:
            a: x = 1
            b: x = 2
        """
    m, r = run(ends)
    assert r.verdict.name == "OK" and r.distinct_states == 3
    assert [a.name for a in m.action_info] == ["a", "b", "Terminating"]
    m, r = run(ends.replace("b: x = 2", "b: await x == 5"))
    assert r.verdict.name == "DEADLOCK" and len(r.violation.trace.steps) == 2


def test_while_loop_goto_and_labels_in_branches():
    m, r = run("""\
        var log: seq[int] = []
        process P:
            var i: int = 0
            loop:
                while i < 2:
                    i = i + 1
                    inner:
                        log = append(log, i)
                after:
                    if i == 2:
                        either:
                            i = 5
                            fin: skip
                        or:
                            goto loop
        invariant Short: len(log) <= 2
        """)
    # loop(i=0) inner loop(i=1) inner loop(i=2) after, then either fin (i=5) or back to loop, which exits
    assert r.verdict.name == "OK"
    names = {a.name for a in m.action_info}
    assert names == {"loop", "inner", "after", "fin", "Terminating"}


def test_locals_are_per_instance_and_may_start_from_a_set():
    m, r = run("""\
        process W(self in 1..3):
            var x: int in {0, 1}
            step: x = x + self
        """)
    # each of 3 instances: x in {0, 1}, at `step` or Done: (2 * 2)^3 states
    assert r.verdict.name == "OK" and r.distinct_states == 4 ** 3
    init = next(iter(m.init()))
    assert [label for _, label, _ in m.state_rows(init)] == [f"W[{i}].{f}" for i in (1, 2, 3) for f in ("pc", "x")]


def test_a_process_can_write_another_processs_local():
    m, r = run("""\
        process Waiter(self in 1..2):
            var woken: bool = false
            wait: await woken
        process Waker:
            wake:
                with w in 1..2:
                    Waiter[w].woken = true
        invariant OneWoken: len({w for w in 1..2 if Waiter[w].woken}) <= 1
        """)
    # The Waker wakes one waiter and ends; that one ends too; the other waits forever.
    assert r.verdict.name == "DEADLOCK"
    assert [step.action is None or m.step_label(step.action, step.args) for step in r.violation.trace.steps][1] \
        == "Waker: wake"
    last = dict((label, text) for _, label, text in m.state_rows(r.violation.trace.steps[-1].state))
    assert sorted(last[f"Waiter[{w}].pc"] for w in (1, 2)) == ["Done", "wait"] and last["Waker.pc"] == "Done"
    # In the swimlanes the write is a message from the Waker to the waiter it wakes.
    columns, actors, targets = lanes(m, r.violation.trace)
    woken = next(label for label in last if label.endswith(".woken") and last[label] == "true").split(".")[0]
    assert actors[1] == "Waker" and targets[1] == (woken,) and woken in columns


def test_fair_process_makes_each_instance_fair():
    text = """\
        var hits: set[1..2] = {}
        process P(self in 1..2):
            hit: hits = hits | {self}
        property AllHit: eventually hits == {1, 2}
        """
    _, unfair = run(text)
    _, fair = run(text.replace("process P", "fair process P"))
    assert unfair.verdict.name == "LIVENESS_VIOLATED" and fair.verdict.name == "OK"


def test_variant_replaces_a_process_whole():
    text = textwrap.dedent("""\
        var x: int = 0
        process P:
            a: x = x + 1
        invariant Small: x <= 1
        variant Twice "two steps":
            replace process P:
                a: x = x + 1
                b: x = x + 1
        expect base holds Small
        expect Twice violates Small
        """)
    rows = verify_source(Source("v.spec", text))
    assert [(r.variant, r.got.value) for r in rows] == [("base", "holds"), ("Twice", "violates")]


@pytest.mark.parametrize("word", ["await", "while", "goto", "process"])
def test_the_new_words_stay_usable_as_names(word):
    m, r = run(f"""\
        var {word}: int = 0
        action Inc:
            require {word} < 2
            {word} = {word} + 1
        invariant Small: {word} <= 2
        """, check_deadlock=False)
    assert r.verdict.name == "OK" and r.distinct_states == 3


MISUSES = {
    "label in an action": ("var x: int = 0\naction A:\n    l: x = 1\n", (3, 5), "can only be in a process"),
    "while in an action": ("var x: int = 0\naction A:\n    while x < 1:\n        x = 1\n", (3, 5),
                           "`while` can only be in a process"),
    "goto in a block": ("block b():\n    goto l\n", (2, 5), "`goto` can only be in a process"),
    "no first label": ("var x: int = 0\nprocess P:\n    x = 1\n", (3, 5), "must begin with a label"),
    "unknown goto": ("process P:\n    l: goto m\n", (2, 13), "has no label `m`"),
    "while not first": ("process P:\n    var n: int = 0\n    l:\n        n = 1\n        while n < 2:\n            n = 2\n",
                        (5, 9), "first statement of a label's block"),
    "label twice": ("process P:\n    l: skip\nprocess Q:\n    l: skip\n", (4, 5), "label `l` is used twice"),
    "Done as a label": ("process P:\n    Done: skip\n", (2, 5), "cannot be a label"),
    "local bound again": ("process P:\n    var n: int = 0\n    l: n = sum(n for n in 1..2)\n", (3, 18),
                          "local variable of process `P`"),
    "label in with": ("process P:\n    l:\n        with k in 1..2:\n            m: skip\n", (4, 13),
                      "cannot be inside `with`"),
    "after goto": ("process P:\n    l:\n        goto l\n        skip\n", (4, 9), "after `goto` are never run"),
    "after while true": ("process P:\n    l:\n        while true:\n            m: skip\n        skip\n", (5, 9),
                         "after `while true` are never run"),
    "local without value": ("process P:\n    var n: int\n    l: skip\n", (2, 9), "has no initial value"),
    "over a variable": ("var s: set[1..2] = {1}\nprocess P(self in s):\n    l: skip\n", (2, 19), "must be a constant"),
}


@pytest.mark.parametrize("case", sorted(MISUSES))
def test_misuse_is_reported_at_its_place(case):
    text, (line, column), message = MISUSES[case]
    with pytest.raises(SpecError) as info:
        build_model(Source("p.spec", text))
    d = info.value.diagnostics[0]
    assert message in d.message, d.message
    assert (d.span.line, d.span.column) == (line, column), d


def test_a_variant_that_drops_a_processs_fairness_is_warned_about():
    text = textwrap.dedent("""\
        var x: int = 0
        fair process P:
            a: x = 1
        invariant Small: x <= 1
        variant Loose "not fair":
            replace process P:
                a: x = 1
        variant Kept "still fair":
            replace fair process P:
                a: x = 1
        """)
    codes = {v: [w.code for w in build_model(Source("v.spec", text), variant=v).warnings] for v in ("base", "Loose", "Kept")}
    assert codes == {"base": [], "Loose": ["W213"], "Kept": []}
