"""replay.py: saved traces replay, or the first failing step is named with the guard or assignment responsible."""

import json

import pytest

from tlacheck.app.cli import main
from tlacheck.core.result import Check, Step, Trace
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.output import savedtrace
from tlacheck.output.itf import trace_itf
from tlacheck.conform.replayer import replay
from tlacheck.output.replay import Outcome
from tlacheck.output.report import result_json
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS


DIEHARD_TEXT = (SPECS / "classic" / "diehard.spec").read_text()

FIXES = DIEHARD_TEXT + """
variant Guarded:
    replace action BigToSmall:
        require big + small != 7
        require small < 2
        let newSmall = Min(big + small, 3)
        big = big - (newSmall - small)
        small = newSmall

variant Leaky:
    replace action BigToSmall:
        let newSmall = Min(big + small, 3)
        big = big - (newSmall - small) - 1
        small = newSmall

variant NoFill:
    remove action FillBigJug

variant Counted:
    var pours: int = 0
    replace action BigToSmall:
        let newSmall = Min(big + small, 3)
        big = big - (newSmall - small)
        small = newSmall
        pours = pours + 1

variant StartsFull:
    replace var small: int = 3
"""


def line_of(text: str, needle: str, last: bool = False) -> int:
    lines = [i for i, t in enumerate(text.splitlines(), 1) if needle in t]
    return lines[-1] if last else lines[0]


def model(variant="base", text=FIXES):
    return build_model(Source("fixes.spec", text), None, variant)


@pytest.fixture(scope="module")
def saved_json():
    base = model()
    result = explore(base, Options(invariants=("NotSolved",)))
    return json.loads(json.dumps(result_json(base, result, "fixes.spec")))


def load(data, variant="base"):
    m = model(variant)
    return m, savedtrace.load(data, m)


def test_the_trace_replays_against_its_own_spec(saved_json):
    m, saved = load(saved_json)
    r = replay(m, saved)
    assert r.outcome == Outcome.REPLAYS and r.replays and r.total_steps == 6
    assert r.still_violates is True
    assert r.trace.steps[-1].state == (4, 3)


def test_itf_round_trips_through_replay(saved_json):
    base = model()
    trace = savedtrace.to_trace(savedtrace.load(saved_json, base), base)
    data = json.loads(json.dumps(trace_itf(base, trace, source="fixes.spec", status="violation",
                                           kind=Check.INVARIANT, name="NotSolved")))
    r = replay(base, savedtrace.load(data, base))
    assert r.replays and r.still_violates is True and r.trace == trace


def test_a_new_guard_disables_the_step_and_is_named(saved_json):
    m, saved = load(saved_json, "Guarded")
    r = replay(m, saved)
    # the steps to states 3 and 5 pour with big + small = 5 and 2 (both guards hold); the step to
    # state 7 pours from (5, 2), where the first guard is false (the second would be false too: the
    # first one is named)
    assert r.outcome == Outcome.DISABLED and r.state == 7 and r.replayed == 5
    assert "state 7: BigToSmall is disabled in state 6" == r.message
    assert r.causes[0].span.line == line_of(FIXES, "require big + small != 7")
    assert r.causes[0].message == "this `require` is false"


def test_the_first_failing_require_is_reported_not_a_later_one():
    text = """
var x: int = 0
action Up:
    require x < 10
    x = x + 1
invariant Small: x < 2

variant Capped:
    replace action Up:
        require x < 10
        require x < 1
        require x < 0
        x = x + 1
"""
    base = build_model(Source("c.spec", text))
    data = json.loads(json.dumps(result_json(base, explore(base), "c.spec")))
    capped = build_model(Source("c.spec", text), None, "Capped")
    r = replay(capped, savedtrace.load(data, capped))
    assert r.outcome == Outcome.DISABLED and r.state == 2  # x < 0 fails first at x = 0
    assert r.causes[0].span.line == line_of(text, "require x < 0")
    r2 = replay(capped, savedtrace.load(data, capped))
    assert r2 == r  # deterministic


def test_a_changed_assignment_makes_the_step_diverge(saved_json):
    m, saved = load(saved_json, "Leaky")
    r = replay(m, saved)
    assert r.outcome == Outcome.DIVERGES and r.state == 3
    assert r.differences == (("big", "big", "2", "1"),)
    line = next(i for i, text in enumerate(FIXES.splitlines(), 1) if "- (newSmall - small) - 1" in text)
    assert r.causes[0].span.line == line and "`big` gets its value here" == r.causes[0].message


def test_a_removed_action_is_reported(saved_json):
    m, saved = load(saved_json, "NoFill")
    r = replay(m, saved)
    assert r.outcome == Outcome.UNKNOWN_ACTION and r.state == 2 and "FillBigJug" in r.message


def test_a_variant_with_an_extra_variable_still_replays(saved_json):
    m, saved = load(saved_json, "Counted")
    assert saved.missing_vars == ("pours",)
    r = replay(m, saved)
    assert r.replays and any("pours" in n for n in r.notes)
    assert r.trace.steps[-1].state[m.var_names.index("pours")] == 3


def test_a_different_initial_state_is_reported(saved_json):
    m, saved = load(saved_json, "StartsFull")
    r = replay(m, saved)
    assert r.outcome == Outcome.INITIAL_DIFFERS and r.differences == (("small", "small", "0", "3"),)
    assert r.causes[0].span.line == line_of(FIXES, "var small", last=True)  # the variant's declaration


NONDET = """
const Procs: set[model] = {p1, p2, p3}
var owner: Procs? = none
var count: int = 0
action Take(p in Procs):
    require owner == none
    either:
        owner = p
    or:
        count = count + 1
action Pick:
    require count > 0
    with q in {x for x in Procs if x != owner}:
        owner = q
        count = 0
invariant Free: owner == none

variant Fewer:
    replace const Procs: set[model] = {p1, p2}
variant EmptyWith:
    replace action Pick:
        require count > 0
        with q in {x for x in Procs if false}:
            owner = q
"""


def test_nondeterministic_steps_replay_and_an_empty_with_is_named():
    base = build_model(Source("n.spec", NONDET))
    # a trace that takes the `or` branch of Take, then Pick
    s0 = next(base.init())
    take, pick = 0, 1
    _, s1 = [x for x in base.actions[take](s0) if x[1][1] == 1][0]
    args, s2 = next(iter(base.actions[pick](s1)))
    trace = Trace((Step(None, (), s0), Step(take, (0,), s1), Step(pick, args, s2)))
    data = json.loads(json.dumps({"violation": {"kind": "invariant", "name": "Free",
                                                "trace": _trace_json(base, trace), "loop_index": None}}))
    assert replay(base, savedtrace.load(data, base)).replays
    other = build_model(Source("n.spec", NONDET), None, "EmptyWith")
    r = replay(other, savedtrace.load(data, other))
    assert r.outcome == Outcome.DISABLED and r.state == 3 and "no value to choose" in r.causes[0].message


def test_an_argument_outside_the_domain_is_reported():
    base = build_model(Source("n.spec", NONDET))
    s0 = next(base.init())
    _, s1 = [x for x in base.actions[0](s0) if x[0] == (2,) and x[1][0] == 2][0]
    trace = Trace((Step(None, (), s0), Step(0, (2,), s1)))
    data = {"violation": {"trace": _trace_json(base, trace)}}
    fewer = build_model(Source("n.spec", NONDET), None, "Fewer")
    with pytest.raises(savedtrace.TraceFileError, match="p3"):
        savedtrace.load(data, fewer)  # the recorded state holds p3, which Fewer does not know


def test_an_itf_trace_without_actions_replays_by_trying_every_action(saved_json):
    base = model()
    trace = savedtrace.to_trace(savedtrace.load(saved_json, base), base)
    data = trace_itf(base, trace, source="fixes.spec", status="violation")
    for state in data["states"]:
        del state["#meta"]
    r = replay(base, savedtrace.load(data, base))
    assert r.replays and r.trace.steps[1].action is not None


def test_a_lasso_checks_the_transition_back():
    text = """
var x: int = 0
action Inc:
    require x < 2
    x = x + 1
action Reset:
    require x == 2
    x = 0

variant NoReset:
    replace action Reset:
        require x == 3
        x = 0
"""
    base = build_model(Source("l.spec", text))
    steps = (Step(None, (), (0,)), Step(0, (), (1,)), Step(0, (), (2,)))
    trace = Trace(steps, 0, Step(1, (), (0,)))
    data = json.loads(json.dumps(trace_itf(base, trace, source="l.spec", status="liveness")))
    r = replay(base, savedtrace.load(data, base))
    assert r.replays and r.total_steps == 3 and r.trace.closing == Step(1, (), (0,))
    fixed = build_model(Source("l.spec", text), None, "NoReset")
    r = replay(fixed, savedtrace.load(data, fixed))
    assert r.outcome == Outcome.DISABLED and r.state == 4 and r.causes[0].span.line == line_of(text, "x == 3")
    assert r.message == "the step back to state 1: Reset is disabled in state 3"  # numbered one past the last


def test_cli_exit_codes_and_report(tmp_path, capsys, saved_json):
    spec = tmp_path / "fixes.spec"
    spec.write_text(FIXES)
    saved = tmp_path / "t.json"
    saved.write_text(json.dumps(saved_json))
    assert main(["replay", str(spec), str(saved)]) == 0
    assert "The trace replays" in capsys.readouterr().out
    assert main(["replay", str(spec), str(saved), "--variant", "Leaky"]) == 14
    out = capsys.readouterr().out
    assert "state 3: BigToSmall reaches a different state" in out and "big = big - (newSmall - small) - 1" in out
    assert main(["replay", str(spec), str(saved), "--variant", "Guarded", "--json"]) == 14
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "disabled" and data["causes"][0]["line"] > 0 and not data["replays"]


def test_cli_rejects_files_that_are_not_traces(tmp_path, capsys):
    spec = tmp_path / "fixes.spec"
    spec.write_text(FIXES)
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    assert main(["replay", str(spec), str(bad)]) == 2
    bad.write_text("not json")
    assert main(["replay", str(spec), str(bad)]) == 2
    assert "not JSON" in capsys.readouterr().err


def _trace_json(model, trace):
    from tlacheck.output.report import trace_json

    return trace_json(model, trace)


def test_recorded_constant_overrides_are_used_unless_given_again(tmp_path, capsys):
    spec = tmp_path / "c.spec"
    spec.write_text("const N: int = 3\nvar x: int = 0\naction Inc:\n    x = x + 1\ninvariant Small: x < N\n")
    main(["check", str(spec), "-D", "N=5", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert data["defines"] == {"N": "5"} and data["variant"] == "base" and len(data["violation"]["trace"]) == 6
    saved = tmp_path / "t.json"
    saved.write_text(json.dumps(data))
    assert main(["replay", str(spec), str(saved)]) == 0
    assert "still violates invariant Small" in capsys.readouterr().out
    assert main(["replay", str(spec), str(saved), "-D", "N=7"]) == 0
    assert "no longer violates invariant Small" in capsys.readouterr().out


MAPS = """
const Procs: set[model] = {alice, bob, carol, dave}
enum Pc { Idle, Busy, Done }
var pc: map[Procs, Pc] = {p -> Idle for p in Procs}
var done: set[Procs] = {}

action Start(p in Procs):
    require pc[p] == Idle
    pc[p] = Busy

action Finish(p in Procs):
    require pc[p] == Busy
    pc[p] = Done
    done = done | {p}

invariant NobodyDone: done == {}

variant Forgetful:
    replace action Finish(p in Procs):
        require pc[p] == Busy
        pc[p] = Idle
"""


def test_a_diverging_step_shows_the_differences_entry_by_entry(tmp_path, capsys):
    """Issue 16: the map entry and the set element that differ, not the whole values."""
    base = build_model(Source("maps.spec", MAPS))
    data = json.loads(json.dumps(result_json(base, explore(base), "maps.spec")))
    fixed = build_model(Source("maps.spec", MAPS), None, "Forgetful")
    r = replay(fixed, savedtrace.load(data, fixed))
    assert r.outcome == Outcome.DIVERGES and r.state == 3
    assert r.differences == (("pc", "pc[alice]", "Done", "Idle"), ("done", "done", "{alice}", "{}"))
    assert [c.message for c in r.causes] == ["`pc` gets its value here",
                                             "`Finish` does not assign `done`, so it keeps its value"]
    (tmp_path / "maps.spec").write_text(MAPS)
    (tmp_path / "t.json").write_text(json.dumps(data))
    assert main(["replay", str(tmp_path / "maps.spec"), str(tmp_path / "t.json"), "--variant", "Forgetful"]) == 14
    out = capsys.readouterr().out
    assert "  variable   recorded  replayed\n  pc[alice]  Done      Idle\n  done       {alice}   {}\n" in out


def test_issue_32_one_number_for_one_step_in_every_output(tmp_path, capsys, monkeypatch):
    """Issue 32 item 5: the step the Generation fix blocks in the notify race was "step 7" in
    verify and replay, "State 8" in the text trace, "8." in the HTML box, "7." in the DOT/PNG
    swimlanes box and `#v0-s7` in the URL. One scheme now, TLC's: the initial state is state 1,
    and the step to state k is numbered k in text, JSON, HTML, DOT and anchors."""
    import re

    monkeypatch.chdir(SPECS.parent)
    spec = "specs/notify_race.spec"
    assert main(["check", spec, "--render", str(tmp_path / "dot"), "--html", str(tmp_path / "check.html")]) == 12
    text = capsys.readouterr().out
    number = int(re.search(r"^State (\d+): EnqueueStopNotification ", text, re.M).group(1))
    assert number == 8  # 7 steps after the initial state, state 1
    assert main(["check", spec, "--json", "--quiet"]) == 12
    (tmp_path / "run.json").write_text(capsys.readouterr().out)
    assert main(["replay", spec, str(tmp_path / "run.json"), "--variant", "Generation"]) == 14
    assert f"The trace does not replay: state {number}: EnqueueStopNotification reaches" in capsys.readouterr().out
    assert main(["replay", spec, str(tmp_path / "run.json"), "--variant", "Generation", "--json"]) == 14
    data = json.loads(capsys.readouterr().out)
    assert data["state"] == number and data["action"] == "EnqueueStopNotification" and "step" not in data
    assert main(["verify", spec, "--html", str(tmp_path / "verify.html")]) == 0
    assert f"Generation / AnswerNotified: the base counterexample (9 steps) is blocked at state {number} " \
           "(EnqueueStopNotification)" in capsys.readouterr().out
    page = (tmp_path / "verify.html").read_text(encoding="utf-8")
    assert re.search(rf'href="#v\d+-s{number}" data-goto="\d+:{number}" data-guard="\d+">show state {number} of the '
                     "base counterexample", page)
    page = (tmp_path / "check.html").read_text(encoding="utf-8")
    assert f'<tr data-state="{number}"><td class="num">{number}</td><td class="act">EnqueueStopNotification' in page
    assert re.search(rf'<g class="box" data-state="{number}"><title>{number}\. EnqueueStopNotification', page)
    lanes = next((tmp_path / "dot").glob("*.swimlanes.dot")).read_text(encoding="utf-8")
    assert f"<B>{number}. EnqueueStopNotification</B>" in lanes
    trace = next(p for p in (tmp_path / "dot").glob("*.dot") if ".swimlanes." not in p.name).read_text(encoding="utf-8")
    assert re.search(rf's{number - 1} -> s{number} \[label=" {number}\. EnqueueStopNotification"', trace)
    assert f"<B>State {number}</B>" in trace
