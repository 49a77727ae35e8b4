"""`tlacheck tests` (issue 36 item 1): behaviours of the spec chosen to cover every action, every
changed variable or every transition, written as ITF with the action and its arguments per step,
and a summary of what is covered. Coverage is checked here against the reachable graph built
independently (engine/stategraph.py), and every behaviour written is replayed and conformed."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SPECS, model_of
from tlacheck.app.cli import main
from tlacheck.conform import check
from tlacheck.core.files import read_source
from tlacheck.engine import stategraph
from tlacheck.pipeline.driver import build_model
from tlacheck.testing.generate import Cover, Sampling, generate

SEED_SPECS = sorted(p.name for p in SPECS.glob("*.spec"))  # the specs of the seed documents


def written(folder) -> tuple[dict, list[dict]]:
    """tests.json and the ITF behaviours of `folder`."""
    summary = json.loads((folder / "tests.json").read_text())
    return summary, [json.loads((folder / b["file"]).read_text()) for b in summary["behaviours"]]


def actions_of(itf: dict) -> list[str]:
    return [s["#meta"]["action"] for s in itf["states"][1:]]


def model(name: str, variant: str = "base"):
    return build_model(read_source(str(SPECS / name)), {}, variant)


@pytest.mark.parametrize("name", SEED_SPECS)
def test_issue_36_tests_covers_every_action_of_each_seed_spec(tmp_path, capsys, name):
    out = tmp_path / "out"
    assert main(["tests", str(SPECS / name), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    summary, behaviours = written(out)
    every = [i.name for i in model(name).action_info]
    taken = {a for b in behaviours for a in actions_of(b)}
    assert taken == set(every)
    assert summary["coverage"]["actions"] == {"covered": len(every), "total": len(every)}
    assert summary["never_enabled"] == []
    assert f"actions      {len(every)} of {len(every)}  (targeted)" in text
    lengths = [len(b["states"]) for b in behaviours]
    assert lengths == sorted(lengths)  # shortest first
    for b in summary["behaviours"]:  # each is a behaviour of the spec: it conforms (or shows one of its bugs)
        report = check(str(SPECS / name), [str(out / b["file"])])
        assert report.runs[0].verdict.value in ("conforms", "violation"), report.text()


def test_issue_36_each_behaviour_replays_and_carries_quints_mbt_variables(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["tests", str(SPECS / "notify_race.spec"), "--out", str(out), "--cover", "changes"]) == 0
    capsys.readouterr()
    summary, behaviours = written(out)
    for entry, b in zip(summary["behaviours"], behaviours):
        assert b["vars"][-2:] == ["mbt::actionTaken", "mbt::nondetPicks"]
        assert [s["mbt::actionTaken"] for s in b["states"]] == [s["#meta"]["action"] for s in b["states"]]
        assert b["states"][0]["mbt::actionTaken"] == "init"
        assert entry["actions"] == actions_of(b) and entry["steps"] == len(b["states"]) - 1
        assert main(["replay", str(SPECS / "notify_race.spec"), str(out / entry["file"])]) == 0
    capsys.readouterr()


def test_issue_36_nondet_picks_are_the_actions_arguments():
    spec = """
    spec Pick
    const V: set[model] = {v1, v2}
    var got: V? = none
    action Take(v in V):
        require got == none
        got = v
    deadlock: allowed
    """
    suite = generate(model_of(spec), Cover.TRANSITIONS)
    from tlacheck.testing.suite import suite_files

    files = suite_files(suite, "pick.spec", "base", {})
    picks = sorted(json.loads(text)["states"][1]["mbt::nondetPicks"]["v"]["value"]
                   for name, text in files.items() if name.startswith("behaviour-"))
    assert picks == ["v1", "v2"]


def graph_targets(m):
    """(actions, (action, changed variable) pairs, transitions) of the reachable graph."""
    graph = stategraph.build(m, 100_000)
    actions = {a for _, _, a, _ in graph.edges}
    changes = {(a, i) for s, t, a, _ in graph.edges
               for i, (x, y) in enumerate(zip(graph.states[s], graph.states[t])) if x != y}
    transitions = {(graph.states[s], a, args, graph.states[t]) for s, t, a, args in graph.edges}
    return actions, changes, transitions


def suite_targets(suite):
    actions, changes, transitions = set(), set(), set()
    for trace in suite.behaviours:
        for before, step in zip(trace.steps, trace.steps[1:]):
            actions.add(step.action)
            changes |= {(step.action, i) for i, (x, y) in enumerate(zip(before.state, step.state)) if x != y}
            transitions.add((before.state, step.action, step.args, step.state))
    return actions, changes, transitions


@pytest.mark.parametrize("spec", ["classic/diehard.spec", "classic/two_phase.spec", "classic/dining_philosophers.spec",
                                  "lib/at_least_once_queue.spec", "fork_teammate.spec"])
def test_issue_36_each_cover_covers_what_it_says_on_the_reachable_graph(spec):
    m = build_model(read_source(str(SPECS / spec)), {}, "base")
    actions, changes, transitions = graph_targets(m)
    for cover, wanted in ((Cover.ACTIONS, 0), (Cover.CHANGES, 1), (Cover.TRANSITIONS, 2)):
        suite = generate(m, cover)
        got = suite_targets(suite)
        for k, expected in enumerate((actions, changes, transitions)):
            assert got[k] <= expected  # every step is a transition of the model
            if k <= wanted:
                assert got[k] == expected, (cover, k)
        assert suite.coverage.covered["transitions"] == len(got[2])
        assert suite.coverage.total == {"actions": len(m.action_info), "changes": len(changes),
                                        "transitions": len(transitions)}
        for trace in suite.behaviours:  # each starts in an initial state and takes real steps
            assert trace.steps[0].state in set(m.init())
            for before, step in zip(trace.steps, trace.steps[1:]):
                assert (step.args, step.state) in list(m.actions[step.action](before.state))


def test_issue_36_the_greedy_choice_is_smaller_than_one_behaviour_per_target():
    m = model("notify_race.spec", "Generation")
    suite = generate(m, Cover.TRANSITIONS)
    assert 0 < len(suite.behaviours) < suite.coverage.covered["transitions"]
    assert len(generate(m, Cover.ACTIONS).behaviours) == 1  # one behaviour takes every action


def test_issue_36_the_codes_events_are_never_split():
    """follow_on.completed is FollowOnAnswers then FollowOnNotifies in the code: no behaviour takes
    anything between them, and the transitions only reachable between them are reported."""
    m = model("notify_race.spec", "Generation")
    suite = generate(m, Cover.TRANSITIONS)
    names = [i.name for i in m.action_info]
    answers, notifies = names.index("FollowOnAnswers"), names.index("FollowOnNotifies")
    for trace in suite.behaviours:
        taken = [s.action for s in trace.steps[1:]]
        for k, a in enumerate(taken):
            if a == answers:
                assert taken[k + 1] == notifies
        assert taken[-1] != answers
    assert suite.kept_together == (("follow_on.completed", ("FollowOnAnswers", "FollowOnNotifies")),)
    graph = stategraph.build(m, 1000)
    follow = m.var_names.index("follow")
    answered = m.var_types[follow].members.index("Answered")
    # from a state between the two steps, every transition but FollowOnNotifies
    between = sum(1 for s, _, a, _ in graph.edges if graph.states[s][follow] == answered and a != notifies)
    assert len(suite.uncoverable) == between > 0
    assert suite.coverage.covered["transitions"] == len(graph.edges) - between


def test_issue_36_never_enabled_actions_and_max_are_reported(tmp_path, capsys):
    spec = tmp_path / "stuck.spec"
    spec.write_text("""spec Stuck
var x: int = 0
action Up:
    require x < 2
    x = x + 1
action Down:
    require x < 0
    x = x - 1
deadlock: allowed
""")
    out = tmp_path / "out"
    assert main(["tests", str(spec), "--out", str(out), "--cover", "transitions", "--max", "1"]) == 0
    text = capsys.readouterr().out
    summary, behaviours = written(out)
    assert summary["never_enabled"] == ["Down"] and "Never enabled: Down." in text
    assert summary["coverage"]["actions"] == {"covered": 1, "total": 2}
    assert len(behaviours) == 1 and not summary["limited"]
    assert summary["coverage"]["transitions"] == {"covered": 2, "total": 2}  # Up, Up: one behaviour takes both
    assert main(["tests", str(SPECS / "notify_race.spec"), "--out", str(out), "--cover", "transitions",
                 "--max", "2"]) == 0
    text = capsys.readouterr().out
    summary, behaviours = written(out)
    assert len(behaviours) == 2 and summary["limited"]
    left = summary["coverage"]["transitions"]["total"] - summary["coverage"]["transitions"]["covered"]
    transitions = [u for u in summary["uncovered"] + summary["uncoverable"] if u.startswith("transition ")]
    assert len(transitions) == left > 0
    assert f"Not covered, {len(summary['uncovered'])}: --max stopped the selection" in text


def test_issue_36_the_output_is_the_same_bytes_every_run(tmp_path, capsys):
    folders = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert main(["tests", str(SPECS / "notify_race.spec"), "--out", str(out), "--cover", "transitions",
                     "--variant", "Generation"]) == 0
        folders.append({p.name: p.read_bytes() for p in out.iterdir()})
    capsys.readouterr()
    assert folders[0] == folders[1] and len(folders[0]) > 10


def test_issue_36_a_large_model_is_sampled_with_a_seed(tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["tests", str(SPECS / "classic" / "coffee_can.spec"), "--out", str(out), "--max-states", "500",
            "--cover", "changes", "--seed", "7", "--traces", "300"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "sampled from 300 random behaviours of at most 50 steps (seed 7): the model has more states than " \
           "--max-states" in text
    assert "of an unknown total: sampled" in text
    summary, behaviours = written(out)
    assert summary["model"] == {"sampled": {"seed": 7, "traces": 300, "depth": 50, "too_large": True}}
    assert summary["coverage"]["actions"]["covered"] == summary["coverage"]["actions"]["total"] == 4
    first = (out / "tests.json").read_bytes()
    assert main(argv) == 0 and (out / "tests.json").read_bytes() == first  # the seed decides
    capsys.readouterr()
    for b in summary["behaviours"]:
        assert check(str(SPECS / "classic" / "coffee_can.spec"), [str(out / b["file"])]).exit_code in (0, 12)


def test_issue_36_sampling_keeps_the_codes_events_whole():
    m = model("notify_race.spec")
    suite = generate(m, Cover.TRANSITIONS, sample=True, sampling=Sampling(seed=3, traces=100, depth=30))
    names = [i.name for i in m.action_info]
    for trace in suite.behaviours:
        taken = [names[s.action] for s in trace.steps[1:]]
        for k, a in enumerate(taken):
            if a == "FollowOnAnswers":
                assert taken[k + 1] == "FollowOnNotifies"
        assert taken[-1] != "FollowOnAnswers"
    assert suite.sampled == Sampling(3, 100, 30) and not suite.too_large


def test_issue_36_tests_replaces_its_own_files_only(tmp_path, capsys):
    out = tmp_path / "out"
    notify = str(SPECS / "notify_race.spec")
    assert main(["tests", notify, "--out", str(out), "--cover", "transitions"]) == 0
    many = len(list(out.glob("behaviour-*.itf.json")))
    assert main(["tests", notify, "--out", str(out)]) == 0
    assert "stale files removed" in capsys.readouterr().out
    assert len(list(out.glob("behaviour-*.itf.json"))) == 1 < many
    mine = out / "notes.txt"
    mine.write_text("mine")
    (out / "behaviour-002.itf.json").write_text("also mine")
    assert main(["tests", notify, "--out", str(out), "--cover", "changes"]) == 2
    err = capsys.readouterr().err
    assert "refusing to overwrite a file" in err and "`tlacheck tests` did not write" in err
    assert "write the behaviours elsewhere with --out DIR" in err
    assert mine.read_text() == "mine" and (out / "behaviour-002.itf.json").read_text() == "also mine"


def test_issue_36_tests_reports_bad_input_as_usual(tmp_path, capsys):
    assert main(["tests", str(SPECS / "notify_race.spec"), "--out", str(tmp_path), "--cover", "paths"]) == 2
    assert "invalid choice: 'paths'" in capsys.readouterr().err
    assert main(["tests", str(SPECS / "notify_race.spec"), "--out", str(tmp_path), "--variant", "Generaton"]) == 2
    assert "Generation" in capsys.readouterr().err
    bad = tmp_path / "bad.spec"
    bad.write_text("spec Bad\nvar x: int = 0\naction A:\n    x = y\n")
    assert main(["tests", str(bad), "--out", str(tmp_path / "o")]) == 3
    assert "bad.spec:4:9: error[E100]: unknown name `y`" in capsys.readouterr().err


def test_issue_36_a_spec_that_fails_to_evaluate_is_an_evaluation_error(tmp_path, capsys):
    spec = tmp_path / "div.spec"
    spec.write_text("spec Div\nvar x: int = 2\naction Halve:\n    x = 10 // (x - 1)\ndeadlock: allowed\n")
    assert main(["tests", str(spec), "--out", str(tmp_path / "o")]) == 4
    err = capsys.readouterr().err
    assert "div.spec:4:9: error[E407]: division by zero: 10 // 0" in err and "Traceback" not in err
