"""render.py: trace diagrams, swimlanes, state graphs; golden DOT; file names; rendering without `dot`.

Golden files (tests/golden/render/*.dot) change only when the tests run with
TLACHECK_UPDATE_GOLDEN=1; review the diff (and render the .dot to look at it).
"""

import os
import re
import subprocess
import sys

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.core.errors import SpecError, UsageError
from tlacheck.core.result import Check, Step, Trace, Violation
from tlacheck.engine import stategraph
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.output import artefacts
from tlacheck.output import render
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT, SPECS, model_of
from tests.conftest import golden as golden_file


GOLDEN = ROOT / "tests" / "golden" / "render"
DIEHARD = str(SPECS / "classic" / "diehard.spec")
HAS_DOT = render.dot_available()

RACE = """
spec Race

enum Phase { Idle, Registered, Done }
enum Reply { Old, Answer }

var phase: Phase = Idle
var running: bool = true
var notified: bool = false
var inbox: seq[Reply] = []

action Register by Parent -> Runner:
    require phase == Idle
    phase = Registered

action Complete by Runner -> Parent:
    require phase == Registered
    phase = Done
    if not notified:
        notified = true
        inbox = inbox + [Answer]

action Stop by Runner -> Parent:
    require running
    running = false
    notified = true
    inbox = inbox + [Old]

action Reset by Scheduler:
    require phase == Done
    phase = Idle

invariant AnswerDelivered: phase == Done implies Answer in elems(inbox)
"""


def golden(name: str, text: str) -> None:
    golden_file(GOLDEN / name, text)


def diehard():
    model = build_model(read_source(DIEHARD))
    result = explore(model, Options(invariants=("NotSolved",)))
    return model, result.violation


def race():
    model = model_of(RACE)
    result = explore(model, Options(check_deadlock=False))
    assert result.violation.name == "AnswerDelivered"
    return model, result.violation


def lasso(model):
    """A hand-built lasso through the race model: Register, Complete, Reset, then back to state 2."""
    s0 = next(model.init())
    steps = [Step(None, (), s0)]
    for name in ("Register", "Complete", "Reset"):
        a = [i.name for i in model.action_info].index(name)
        args, succ = next(iter(model.actions[a](steps[-1].state)))
        steps.append(Step(a, args, succ))
    register = [i.name for i in model.action_info].index("Register")
    closing = Step(register, (), steps[2].state)
    return Trace(tuple(steps), 1, closing)


# ---------------------------------------------------------------- golden DOT

def test_diehard_trace_golden():
    model, v = diehard()
    golden("diehard_trace.dot", render.trace_dot(model, v.trace, artefacts.headline(model, v, read_source(DIEHARD))))


def test_race_swimlanes_golden():
    model, v = race()
    golden("race_swimlanes.dot", render.swimlanes_dot(model, v.trace, artefacts.headline(model, v)))


def test_lasso_trace_and_swimlanes_golden():
    model = model_of(RACE)
    trace = lasso(model)
    head = render.Headline("Race: a hand-built lasso", "loops forever")
    dot = render.trace_dot(model, trace, head)
    golden("race_lasso_trace.dot", dot)
    golden("race_lasso_swimlanes.dot", render.swimlanes_dot(model, trace, head))
    # the loop is a distinct dashed back edge from the last state to the loop state, labelled by its action
    back = [line for line in dot.splitlines() if line.strip().startswith("s4 -> s2")]
    assert len(back) == 1 and "dashed" in back[0] and "Register" in back[0] and "constraint=false" in back[0]


def test_diehard_state_graph_golden():
    model, v = diehard()
    graph = stategraph.build(model)
    golden("diehard_graph.dot", render.state_graph_dot(model, graph, artefacts.headline(model, v), v.trace))


# ---------------------------------------------------------------- trace diagram details

def test_trace_marks_initial_violating_and_changed_states():
    model, v = diehard()
    dot = render.trace_dot(model, v.trace, artefacts.headline(model, v))
    assert "State 1 · initial state" in dot and "start -> s1" in dot
    assert "violates NotSolved" in dot and render.VIOLATION in dot
    assert "5 → 4" in dot  # the last step's change of big, old -> new
    # an edge is numbered with the state it leads to, as the text trace numbers states (State 1 the
    # initial state): 6 steps, states 2..7
    assert "8. " not in dot and "1. " not in dot and "7. BigToSmall" in dot and 's6 -> s7 [label=" 7. BigToSmall"' in dot


def test_stuttering_lasso_is_a_self_loop():
    model = model_of(RACE)
    trace = lasso(model)
    stutter = Trace(trace.steps, len(trace.steps) - 1, None)
    dot = render.trace_dot(model, stutter)
    assert re.search(r"s4 -> s4 .*stutters here forever", dot)


def test_long_values_wrap_then_are_abbreviated_with_a_tooltip():
    model = model_of("""
        var xs: seq[int] = []
        action Grow:
            require len(xs) < 30
            xs = xs + [len(xs) + 1000]
        invariant Short: len(xs) < 20
    """)
    v = explore(model).violation
    full = model.format_state(v.trace.steps[-1].state)["xs"]  # 20 numbers, 120 characters
    dot = render.trace_dot(model, v.trace, view=render.View(max_width=30))
    assert "…" not in dot  # four lines of 30 hold it: wrapped after commas, nothing cut
    assert '<TD ALIGN="LEFT" BGCOLOR="#fff1a8">[1000, 1001, 1002, 1003, 1004,<BR ALIGN="LEFT"/>1005,' in dot
    dot = render.trace_dot(model, v.trace, view=render.View(max_width=20))
    assert "…" in dot
    assert f'TOOLTIP="{full}"' in dot  # the full value is kept for the tooltip
    assert "+ 1019" in dot  # the step's change: one element appended


def test_changed_only_groups_unchanged_runs():
    model = model_of("""
        var a: int = 0
        var b: int = 0
        var c: int = 0
        var d: int = 0
        action StepD:
            d = d + 1
        invariant Small: d < 2
    """)
    v = explore(model).violation
    full = render.trace_dot(model, v.trace, view=render.View(changed_only=False))
    short = render.trace_dot(model, v.trace, view=render.View(changed_only=True))
    assert "3 unchanged: a, b, c" in short and "unchanged" not in full
    # the first and the last state still list every variable
    last = short.split("s3 [")[1]
    assert ">a<" in last and ">c<" in last


def test_changed_only_is_automatic_for_many_variables():
    names = [f"v{i}" for i in range(render.AUTO_CHANGED_ONLY + 1)]
    text = "\n".join(f"var {n}: int = 0" for n in names) + "\naction A:\n    v0 = v0 + 1\ninvariant I: v0 < 3\n"
    model = model_of(text)
    v = explore(model).violation
    assert "unchanged" in render.trace_dot(model, v.trace)
    assert "unchanged" not in render.trace_dot(model, v.trace, view=render.View(changed_only=False))


# ---------------------------------------------------------------- swimlanes

def test_swimlanes_columns_follow_by_and_arrows_follow_sends_to():
    model, v = race()
    columns, actors, targets = render.lanes(model, v.trace)
    assert columns == ["Parent", "Runner"]  # Scheduler takes no step in this trace
    dot = render.swimlanes_dot(model, v.trace)
    # Register by Parent -> Runner: an arrow from Parent's column (c0) to Runner's (c1) on row 1
    assert re.search(r"c0_1 -> c1_1 .*Register", dot)


def test_actor_naming_a_parameter_gives_one_column_per_value():
    model = model_of("""
        const Procs: set[model] = {p1, p2}
        var done: set[Procs] = {}
        action Finish(p in Procs) by p:
            require p not in done
            done = done | {p}
        invariant NotAll: len(done) < 2
    """)
    v = explore(model).violation
    columns, actors, _ = render.lanes(model, v.trace)
    assert columns == ["p1", "p2"] and actors[1:] == ["p1", "p2"]


def test_issue_38_columns_appear_as_the_steps_name_them_targets_included():
    """specs/cases/toolnode_reordering.spec: Dispatch sends to every call, then `type_text` takes the
    first step of its own. The columns came actors first, targets after (type_text, click,
    press_enter): the order of the calls, which the diagram is about, was lost."""
    model = model_of("""
        enum Call { click, type_text, press_enter }
        var sent: bool = false
        var done: set[Call] = {}
        action Dispatch by Node -> Call_set():
            require not sent
            sent = true
        def Call_set() -> set[Call]: {click, type_text, press_enter}
        action Finish(c in Call) by c:
            require sent and c not in done
            done = done | {c}
        invariant Ordered: not (type_text in done and click not in done)
    """)
    v = explore(model).violation
    columns, actors, targets = render.lanes(model, v.trace)
    assert actors[1:] == ["Node", "type_text"] and targets[1] == ("click", "type_text", "press_enter")
    assert columns == ["Node", "click", "type_text", "press_enter"]


NOTIFY_ONE = """
    const Consumer: set[model] = {c1, c2, c3}
    var waiting: seq[Consumer] = [c2, c1, c3]
    var woken: set[Consumer] = {}
    def first_waiter() -> Consumer: head(waiting)
    action Notify by Producer -> first_waiter():
        require waiting != []
        woken = woken | {head(waiting)}
        waiting = tail(waiting)
    action Broadcast by Producer -> elems(waiting):
        require len(waiting) == 2
        woken = woken | elems(waiting)
        waiting = []
    action Wait(c in Consumer) by c -> none_of(c):
        require c in woken
        woken = woken - {c}
    def none_of(c: Consumer) -> Consumer?: none
    invariant NotEveryone: len(woken) < 3
"""


def test_a_target_may_be_any_expression_of_an_actors_type():
    """`-> first_waiter()` is evaluated in the state before the step: notify hands the wake-up to
    c2, the head of the queue; `-> elems(waiting)` gives one arrow per member; `none`, none."""
    model = model_of(NOTIFY_ONE)
    v = explore(model).violation
    columns, actors, targets = render.lanes(model, v.trace)
    names = [model.action_info[s.action].name for s in v.trace.steps[1:]]
    assert names == ["Notify", "Broadcast"]
    assert targets[1:] == [("c2",), ("c1", "c3")]
    assert columns == ["Producer", "c2", "c1", "c3"]
    dot = render.swimlanes_dot(model, v.trace)
    assert re.search(r"c0_1 -> c1_1 .*Notify", dot)
    assert re.search(r"c0_2 -> c1_2 .*Broadcast", dot)  # one line from Producer on, labelled once
    assert _arrowheads(dot) == {(1, 1), (2, 2), (2, 3)}  # at c2 on row 1; at c1 and c3 (not c2) on row 2


def _sends(dot: str) -> list[tuple[int, int, int, str]]:
    """The pieces of the swimlanes' `->` arrows: (row, left column, right column, attributes)."""
    return [(int(r), int(a), int(b), attrs) for a, r, b, r2, attrs
            in re.findall(r"c(\d+)_(\d+) -> c(\d+)_(\d+) \[([^]]*)\]", dot)
            if f'color="{render.LOOP}"' in attrs and "dashed" not in attrs and r == r2]


def _arrowheads(dot: str) -> set[tuple[int, int]]:
    """(row, column) of each arrowhead of the `->` arrows."""
    out = set()
    for row, left, right, attrs in _sends(dot):
        if "dir=back" in attrs:
            if "arrowtail=normal" in attrs:
                out.add((row, left))
        elif "arrowhead=normal" in attrs:
            out.add((row, right))
    return out


TEN_WORKERS = """
    const Workers: set[model] = {w1, w2, w3, w4, w5, w6, w7, w8, w9, w10}
    var done: map[Workers, bool] = {w -> false for w in Workers}
    var acks: int = 0
    action Finish(w in Workers) by w -> Workers:
        require not done[w]
        done[w] = true
        acks = acks + 1
    invariant NotAllDone: acks < 10
"""


def test_issue_32_a_broadcast_to_ten_workers_is_drawn_straight():
    """Issue 32 item 6: `by w -> Workers` with ten workers drew nine labelled edges per row, each
    from the box straight to a far column: Graphviz printed "Something is probably seriously
    wrong" warnings and bent the lifelines around the boxes. An arrow is now one line of pieces
    between neighbouring columns, with an arrowhead on each target's lifeline and the action's
    name once; Graphviz lays it out without a warning and every lifeline stays straight."""
    model = model_of(TEN_WORKERS)
    trace = explore(model).violation.trace
    dot = render.swimlanes_dot(model, trace)
    sends = _sends(dot)
    assert sends and all(right == left + 1 for _, left, right, _ in sends)
    for row in range(1, 11):  # row r: worker r's column is c(r-1); every other column gets an arrowhead
        assert {c for r, c in _arrowheads(dot) if r == row} == set(range(10)) - {row - 1}, row
        assert sum(1 for r, _, _, attrs in sends if r == row and "Finish" in attrs) == (2 if 1 < row < 10 else 1)
    if not HAS_DOT:
        pytest.skip("needs Graphviz's `dot` to lay the diagram out")
    laid = subprocess.run(["dot", "-Tplain"], input=dot, capture_output=True, text=True, check=True)
    assert laid.stderr == ""
    xs: dict[str, set[float]] = {}
    for line in laid.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["node"] and re.fullmatch(r"c\d+_\d+", parts[1]):
            column = parts[1].split("_")[0]
            box = not parts[1].endswith("_0") and parts[1] != f"{column}_{int(column[1:]) + 1}"
            if box:  # a lifeline's points (a step's box, wider, is centred on it too)
                xs.setdefault(column, set()).add(round(float(parts[2]), 2))
    assert len(xs) == 10 and all(len(found) == 1 for found in xs.values()), xs


@pytest.mark.parametrize("actor, message, hint", [
    ("by q", "unknown actor `q`", "did you mean `p`?"),
    ("by Procs", "`by Procs`: `Procs` is a set, not one actor", "an actor is one value"),
    ("by done", "`by done`: `done` is a var, not one actor", "an actor is one value"),
    ("by p -> len(done)", "the target of `->` must be an actor (a model value or enum member) or a set of them, "
                          "not int", "name a label"),
    ("by p -> sink", "unknown actor `sink`", "an actor label starts with a capital letter"),
])
def test_actors_are_checked(actor, message, hint):
    with pytest.raises(SpecError) as info:
        model_of(f"""
            const Procs: set[model] = {{p1, p2}}
            var done: set[Procs] = {{}}
            action Finish(p in Procs) {actor}:
                require p not in done
                done = done | {{p}}
        """)
    d = info.value.diagnostics[0]
    assert d.code == "E124" and d.message == message and hint in (d.hint or ""), d


@pytest.mark.parametrize("names, expected", [
    (("TM_Commit", "RM_Prepare"), ["TM", "RM"]),  # underscores: unambiguous
    (("TMCommit", "RMPrepare"), ["TM", "RM"]),  # leading acronyms
    (("TMCommit", "Prepare"), None),  # one action has no actor: one column
    (("TM_Commit", "TM_Abort"), None),  # one actor only: one column
])
def test_actors_derived_from_names_only_when_unambiguous(names, expected):
    actions = "\n".join(f"action {n}:\n    x = x + 1\n" for n in names)
    model = model_of(f"spec Derived\nvar x: int = 0\n{actions}invariant I: x < 2\n")
    v = explore(model).violation
    columns, _, _ = render.lanes(model, v.trace)
    if expected is None:
        assert columns == ["Derived"]
    else:
        assert set(columns) <= set(expected) and columns


# ---------------------------------------------------------------- state graph

def test_state_graph_node_ids_are_stable_digests():
    model, v = diehard()
    graph = stategraph.build(model)
    assert len(graph.states) == 16
    dot = render.state_graph_dot(model, graph, None, v.trace)
    ids = set(re.findall(r"^\t(s[0-9a-f]{12}) \[", dot, re.M))
    assert len(ids) == 16
    assert "0x" not in dot  # never a memory address
    assert render.state_id(model, (0, 0)) == render.state_id(model, (0, 0))


def test_state_graph_refuses_large_models_with_the_number(tmp_path, capsys):
    model = build_model(read_source(str(SPECS / "classic" / "two_phase.spec")))
    with pytest.raises(stategraph.TooLarge) as info:
        stategraph.build(model, max_states=50)
    assert info.value.exact and info.value.count == 288
    code = main(["graph", str(SPECS / "classic" / "two_phase.spec"), "--out", str(tmp_path), "--max-states", "50"])
    err = capsys.readouterr().err
    assert code == 5 and "288 reachable states" in err and "at most 50" in err
    assert not list(tmp_path.iterdir())


def test_graph_command_writes_dot_and_svg(tmp_path, capsys):
    assert main(["graph", DIEHARD, "--out", str(tmp_path)]) == 0
    assert (tmp_path / "diehard.base.graph.dot").exists()
    if HAS_DOT:
        assert (tmp_path / "diehard.base.graph.svg").read_text().startswith("<?xml")


# ---------------------------------------------------------------- files and names

@pytest.mark.parametrize("text, expected", [
    ("../../x", "x"), ("a/b\\c", "a_b_c"), ("..", "_"), ("", "_"), ("Not Solved!", "Not_Solved"),
    ("x" * 100, "x" * 64),
])
def test_file_name_parts_are_sanitised(text, expected):
    assert artefacts.safe_part(text) == expected


def test_no_name_escapes_the_output_directory(tmp_path):
    name = artefacts.stem("../../spec", "../v", "../../x")
    assert "/" not in name and name.startswith("spec.")
    assert artefacts.inside(tmp_path, name + ".dot").parent == tmp_path.resolve()
    for bad in ("../x.dot", "/etc/x.dot", "a/../../x.dot", ""):
        with pytest.raises(UsageError):
            artefacts.inside(tmp_path, bad)


def test_render_command_keeps_a_hostile_property_name_inside(tmp_path, capsys):
    main(["check", DIEHARD, "--json", "--quiet"])
    data = capsys.readouterr().out.replace('"name": "NotSolved"', '"name": "../../evil"')
    saved = tmp_path / "trace.json"
    saved.write_text(data)
    out = tmp_path / "out"
    assert main(["render", str(saved), "--out", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert "diehard.base.evil.dot" in written
    assert not (tmp_path / "evil.dot").exists() and not list(tmp_path.parent.glob("evil*"))


def test_check_render_writes_dot_and_image(tmp_path, capsys):
    assert main(["check", DIEHARD, "--render", str(tmp_path), "--quiet"]) == 12
    assert (tmp_path / "diehard.base.NotSolved.dot").exists()
    if HAS_DOT:
        assert (tmp_path / "diehard.base.NotSolved.svg").exists()
        assert main(["check", DIEHARD, "--render", str(tmp_path / "png"), "--format", "png", "--swimlanes",
                     "--quiet"]) == 12
        assert (tmp_path / "png" / "diehard.base.NotSolved.swimlanes.png").read_bytes()[:4] == b"\x89PNG"


def test_without_dot_only_dot_files_are_written_and_one_line_says_how(tmp_path, capsys, monkeypatch):
    def missing(source, fmt):
        raise render.DotMissing("no dot")

    monkeypatch.setattr(render, "image", missing)
    assert main(["check", DIEHARD, "--render", str(tmp_path), "--quiet"]) == 12
    assert sorted(p.name for p in tmp_path.iterdir()) == ["diehard.base.NotSolved.dot"]
    notes = [line for line in capsys.readouterr().err.splitlines() if "graphviz" in line.lower()]
    assert len(notes) == 1 and "apt-get install graphviz" in notes[0]


def test_render_of_a_saved_trace_equals_check_render(tmp_path, capsys):
    assert main(["check", DIEHARD, "--render", str(tmp_path / "a"), "--quiet"]) == 12
    capsys.readouterr()
    main(["check", DIEHARD, "--json", "--quiet"])
    saved = tmp_path / "t.json"
    saved.write_text(capsys.readouterr().out)
    assert main(["render", str(saved), "--out", str(tmp_path / "b")]) == 0
    a = (tmp_path / "a" / "diehard.base.NotSolved.dot").read_text()
    assert a == (tmp_path / "b" / "diehard.base.NotSolved.dot").read_text()


def test_output_is_byte_identical_across_processes(tmp_path):
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / seed
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run([sys.executable, "-m", "tlacheck", "check", DIEHARD, "--render", str(out), "--quiet",
                        "--itf", str(out / "t.itf.json")], env=env, capture_output=True, cwd=ROOT)
        outs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outs[0] == outs[1] and "diehard.base.NotSolved.dot" in outs[0]


def test_violation_without_trace_writes_nothing(tmp_path, capsys):
    model, _ = diehard()
    files = artefacts.diagrams(model, Violation(Check.INVARIANT, "X", Trace((Step(None, (), (0, 0)),))), None)
    assert set(files) == {".dot"}


def _components_by_reachability(graph) -> tuple[int, list[tuple[int, ...]]]:
    """The strongly connected components and the terminal ones, from the reachability closure
    (an oracle independent of networkx): i and j share a component iff each reaches the other."""
    n = len(graph.states)
    succ = [set() for _ in range(n)]
    for src, dst, _, _ in graph.edges:
        succ[src].add(dst)
    reach = []
    for i in range(n):
        seen, todo = {i}, [i]
        while todo:
            for j in succ[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        reach.append(seen)
    comps = {tuple(sorted(j for j in reach[i] if i in reach[j])) for i in range(n)}
    terminal = sorted(c for c in comps if all(reach[i] <= set(c) for i in c))
    return len(comps), terminal


@pytest.mark.parametrize("name,defines", [("diehard", {}), ("two_phase", {"RM": "{r1, r2}"}),
                                          ("dining_philosophers", {}), ("alternating_bit", {}), ("tcommit", {})])
def test_state_graph_shape_agrees_with_the_reachability_closure(name, defines):
    model = build_model(read_source(str(SPECS / "classic" / f"{name}.spec")), defines)
    graph = stategraph.build(model)
    shape = stategraph.shape(graph)
    components, terminal = _components_by_reachability(graph)
    assert (shape.components, list(shape.terminal)) == (components, terminal)
    assert terminal  # a finite graph always has one


def test_state_graph_frames_a_terminal_component_and_says_how_many():
    model = build_model(read_source(str(SPECS / "classic" / "dining_philosophers.spec")))
    graph = stategraph.build(model)
    shape = stategraph.shape(graph)
    dot = render.state_graph_dot(model, graph, shape=shape)
    assert dot.count("subgraph cluster_terminal") == sum(1 for c in shape.terminal if len(c) > 1) == 1
    assert f"{shape.components} strongly connected components, 1 terminal" in dot
    one = stategraph.build(build_model(read_source(DIEHARD)))  # every state reaches every other: no frame
    one_dot = render.state_graph_dot(build_model(read_source(DIEHARD)), one, shape=stategraph.shape(one))
    assert "cluster" not in one_dot and "strongly connected (every state can reach every other)" in one_dot


# ---------------------------------------------------------------- mid-sized state graphs (issue 16, item 6)

DINING = str(SPECS / "classic" / "dining_philosophers.spec")
ALTERNATING = str(SPECS / "classic" / "alternating_bit.spec")
NOTIFY = str(SPECS / "notify_race.spec")


def test_parents_is_the_bfs_tree():
    model = build_model(read_source(DINING))
    graph = stategraph.build(model)
    tree = render.parents(graph)
    assert [i for i, p in enumerate(tree) if p is None] == list(graph.initial)
    for i, p in enumerate(tree):
        if p is not None:
            assert p < i and any(src == p and dst == i for src, dst, _, _ in graph.edges)


def test_merge_collapses_states_that_agree_on_the_variables():
    model = build_model(read_source(NOTIFY))
    graph = stategraph.build(model)
    slots = (model.var_names.index("runner"), model.var_names.index("follow"))
    merged = stategraph.merge(graph, slots)
    keys = {tuple(s[k] for k in slots) for s in graph.states}
    assert len(merged.graph.states) == len(keys) < len(graph.states)
    assert sorted(i for m in merged.members for i in m) == list(range(len(graph.states)))
    for node, members in enumerate(merged.members):
        assert {tuple(graph.states[i][k] for k in slots) for i in members} == {
            tuple(merged.graph.states[node][k] for k in slots)}
        assert all(merged.node_of[i] == node for i in members)
    for src, dst, a, args in graph.edges:
        assert (merged.node_of[src], merged.node_of[dst], a, args) in merged.graph.edges


def test_graph_labels_changes_list_what_differs_from_the_parent():
    model = build_model(read_source(DINING))
    graph = stategraph.build(model)
    labels = render.graph_labels(model, graph, render.GraphView(labels="changes"))
    assert labels[0][0] == "#1" and labels[0][1].startswith("forks = ")
    assert labels[1][0] == "#2 from #1" and labels[1][1:] == ["forks[1] = {clean: true, holder: 5}"]
    assert all(len(line) <= render.GRAPH_VALUE_WIDTH for label in labels for line in label)
    auto = render.graph_labels(model, graph)  # 67 states: auto is changes
    assert auto == labels
    only = render.graph_labels(model, graph, render.GraphView(variables=("pc",), labels="full"))
    assert all(line.startswith("pc = ") or line.startswith("   ") or "->" in line for line in only[5])
    assert not any("forks" in line or "hungry" in line for label in only for line in label)


def test_graph_refuses_a_drawing_too_large_to_read_with_advice(tmp_path, capsys):
    code = main(["graph", ALTERNATING, "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 5 and "240 nodes" in err and "too large to read" in err
    assert "--vars A,B --merge" in err and "--labels none" in err and "msgQ, ackQ, sBit" in err
    assert not list(tmp_path.iterdir())
    assert main(["graph", ALTERNATING, "--out", str(tmp_path), "--max-nodes", "10", "--vars", "sBit,rBit",
                 "--merge", "--labels", "none"]) == 0  # 4 nodes
    assert "4 nodes for 240 states (those that agree on sBit, rBit)" in capsys.readouterr().out


def test_graph_merge_and_group_by_keep_the_counterexample(tmp_path, capsys):
    assert main(["graph", NOTIFY, "--out", str(tmp_path), "--vars", "runner,follow", "--merge",
                 "--group-by", "runner"]) == 0
    dot = (tmp_path / "notify_race.base.graph.dot").read_text()
    assert dot.count("subgraph cluster_group") == 6 and "runner = Stopped" in dot
    assert "#1 (2 states)\\lrunner = Running\\lfollow = NotStarted\\l" in dot
    assert "notified" not in dot.split("tooltip")[0]
    # the 9 steps of the counterexample on merged nodes: SendDone changes neither runner nor follow, a
    # step inside one node (not drawn), the 8 others are edges between nodes
    assert dot.count('penwidth=2.4') == 8


@pytest.mark.parametrize("args, message", [
    (["--vars", "runer"], "NotifyRace has no variable `runer` (did you mean `runner`?)"),
    (["--group-by", "folow"], "no variable `folow` (did you mean `follow`?)"),
    (["--merge"], "--merge needs --vars"),
    (["--vars", ","], "--vars names no variable"),
    (["--vars", "runner", "--merge", "--group-by", "follow"], "--group-by follow must be one of the --vars"),
    (["--labels", "some"], "invalid choice: 'some'"),
])
def test_graph_bad_options_are_clear_usage_errors(tmp_path, capsys, args, message):
    assert main(["graph", NOTIFY, "--out", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
