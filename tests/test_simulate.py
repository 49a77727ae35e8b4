"""engine/simulate.py and `tlacheck simulate`: the seed bugs found from a fixed seed, traces that
replay, determinism, the bounds (--depth, --traces, --time-limit), exit codes and outputs."""

import json
import threading
from textwrap import dedent

import pytest

from tlacheck.app.cli import main
from tlacheck.core.result import Answer, Check, Verdict
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.engine.simulate import SimOptions, simulate
from tlacheck.output import savedtrace
from tlacheck.conform.replayer import replay
from tlacheck.output.report import trace_json
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS
from tests.test_steps import TOGGLE


DIEHARD = str(SPECS / "classic" / "diehard.spec")


def model_of(text: str | None = None, path: str | None = None, variant: str = "base"):
    if path is not None:
        text = open(path, encoding="utf-8").read()
    return build_model(Source(path or "t.spec", dedent(text)), {}, variant)


def write(tmp_path, text: str, name: str = "t.spec") -> str:
    p = tmp_path / name
    p.write_text(dedent(text))
    return str(p)


def assert_execution(model, trace) -> None:
    """Independently of the simulator: the trace starts in an initial state and each step is a
    successor that the step's action yields with the step's arguments."""
    steps = trace.steps
    assert steps[0].action is None and steps[0].state in set(model.init())
    for before, step in zip(steps, steps[1:]):
        assert (step.args, step.state) in list(model.actions[step.action](before.state)), \
            f"not a step of {model.action_info[step.action].name}"


def invariant(model, name: str):
    return dict(model.invariants)[name]


COUNTER = """
    var x: int = 0
    action Inc:
        x = x + 1
    action Dec:
        require x > 0
        x = x - 1
    invariant Small: x < 1000
    """

# Inc and Jump from every state: the shortest way to 12 is four jumps.
JUMP = """
    var x: int = 0
    action Inc:
        x = x + 1
    action Jump:
        x = x + 3
    action Dec:
        require x > 0
        x = x - 1
    action Reset:
        x = 0
    invariant Low: x < 12
    """


# ---------------------------------------------------------------- the seed bugs and DieHard

SEED_BUGS = [
    (DIEHARD, "base", "NotSolved"),
    (str(SPECS / "notify_race.spec"), "base", "AnswerNotified"),
    (str(SPECS / "fork_teammate.spec"), "base", "TeammateSubagentsForeground"),
    (str(SPECS / "agent_routing.spec"), "ForkModeAsync", "NoBackgroundFromTeammate"),
]


@pytest.mark.parametrize("path, variant, name", SEED_BUGS)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_seed_bugs_are_found_and_their_traces_replay(path, variant, name, seed):
    model = model_of(path=path, variant=variant)
    result = simulate(model, SimOptions(seed=seed))
    assert result.verdict == Verdict.INVARIANT_VIOLATED
    v = result.violation
    assert (v.kind, v.name) == (Check.INVARIANT, name)
    assert_execution(model, v.trace)
    last = v.trace.steps[-1].state
    assert not invariant(model, name)(last)
    assert all(invariant(model, name)(s.state) for s in v.trace.steps[:-1])
    # the replay machinery agrees (as `tlacheck replay` runs it)
    saved = savedtrace.load({"kind": v.kind.value, "name": v.name, "trace": trace_json(model, v.trace)}, model)
    outcome = replay(model, saved)
    assert outcome.replays and outcome.still_violates is True


def test_the_diehard_solution_ends_with_four_gallons_in_the_big_jug():
    model = model_of(path=DIEHARD)
    v = simulate(model, SimOptions(seed=1)).violation
    big = model.var_names.index("big")
    assert v.trace.steps[-1].state[big] == 4
    # shortened, never below the shortest solution (6 steps, check's breadth-first answer)
    shortest = len(explore(model, Options()).violation.trace.steps) - 1
    assert shortest == 6 <= len(v.trace.steps) - 1


def test_a_fix_variant_shows_no_violation_and_says_it_is_no_proof(capsys):
    code = main(["simulate", str(SPECS / "notify_race.spec"), "--variant", "Generation", "--seed", "1",
                 "--traces", "200", "--invariant", "AnswerNotified", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "No violation found in 200 behaviours" in out
    assert "not a proof" in out


# ---------------------------------------------------------------- determinism

def fingerprint(result):
    """Everything a run reports but the time."""
    sim = result.simulation
    return (result.verdict, result.violation, result.distinct_states, result.states_generated, result.depth,
            [(c.enabled, c.generated, c.distinct) for c in result.coverage],
            (sim.behaviours, sim.states_visited, sim.longest, sim.taken, sim.found_steps, sim.shrunk_steps))


def test_the_same_seed_gives_the_same_run_and_other_seeds_other_ones():
    model = model_of(JUMP)
    runs = {seed: fingerprint(simulate(model, SimOptions(seed=seed, depth=30))) for seed in range(1, 6)}
    assert runs[3] == fingerprint(simulate(model, SimOptions(seed=3, depth=30)))
    assert len({str(r) for r in runs.values()}) > 1


def test_the_seed_is_printed_and_reproduces_the_run(capsys):
    assert main(["simulate", DIEHARD, "--json", "--quiet"]) == 12
    first = json.loads(capsys.readouterr().out)
    seed = first["seed"]
    assert isinstance(seed, int) and seed >= 0
    assert main(["simulate", DIEHARD, "--json", "--quiet", "--seed", str(seed)]) == 12
    again = json.loads(capsys.readouterr().out)
    assert again["violation"] == first["violation"]
    assert again["simulation"]["behaviours"] == first["simulation"]["behaviours"]
    main(["simulate", DIEHARD, "--quiet", "--seed", str(seed)])
    assert f"seed {seed}" in capsys.readouterr().out


def test_successors_are_chosen_uniformly():
    # two actions always enabled, one instance each: each is taken about half the time
    model = model_of("""
        var x: int = 0
        action A:
            x = (x + 1) % 7
        action B:
            x = (x + 2) % 7
        """)
    sim = simulate(model, SimOptions(seed=5, depth=100, traces=100)).simulation
    a, b = sim.taken
    assert a + b == 10_000
    assert 4_500 < a < 5_500


# ---------------------------------------------------------------- the bounds

def test_depth_bounds_every_behaviour():
    result = simulate(model_of(COUNTER), SimOptions(seed=1, depth=5, traces=50))
    sim = result.simulation
    assert result.verdict == Verdict.OK and sim.ended == "traces"
    assert sim.longest == 5 and result.depth == 6
    assert sim.states_visited == 50 * 6  # Inc is always enabled: every behaviour runs its 5 steps
    assert result.distinct_states <= 6


def test_traces_bounds_the_number_of_behaviours():
    sim = simulate(model_of(COUNTER), SimOptions(seed=1, depth=3, traces=17)).simulation
    assert sim.behaviours == 17


def test_a_time_limit_ends_an_unbounded_run_normally():
    result = simulate(model_of(COUNTER), SimOptions(seed=1, traces=None, time_limit=0.05))
    assert result.verdict == Verdict.OK and result.simulation.ended == "time_limit"
    assert result.simulation.traces_bound is None


def test_a_stop_ends_the_run_as_incomplete():
    stop = threading.Event()
    stop.set()
    result = simulate(model_of(COUNTER), SimOptions(seed=1, stop=stop))
    assert result.verdict == Verdict.INCOMPLETE and result.stop_reason == "interrupted"
    assert result.verdict.exit_code == 5


def test_time_limit_on_the_command_line(tmp_path, capsys):
    path = write(tmp_path, COUNTER)
    code = main(["simulate", path, "--time-limit", "0.05", "--seed", "1", "--json", "--quiet"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verdict"] == "ok"
    assert data["simulation"]["ended"] == "time_limit" and data["simulation"]["traces_bound"] is None


def test_successors_failing_a_constraint_are_checked_but_never_taken(tmp_path):
    text = COUNTER.replace("invariant Small: x < 1000", "constraint Bound: x <= 3\n    invariant I: x <= LIMIT")
    within = simulate(model_of(text.replace("LIMIT", "4")), SimOptions(seed=1, traces=50))
    assert within.verdict == Verdict.OK and within.distinct_states == 4  # x = 0..3 visited, never 4
    beyond = model_of(text.replace("LIMIT", "3"))
    result = simulate(beyond, SimOptions(seed=1))
    # as `check`: a state failing the constraint is still checked
    assert explore(beyond, Options()).verdict == result.verdict == Verdict.INVARIANT_VIOLATED
    assert result.violation.trace.steps[-1].state == (4,)
    assert_execution(beyond, result.violation.trace)


def test_no_initial_state_in_the_model_is_nothing_to_simulate(capsys, tmp_path):
    path = write(tmp_path, "var x: int = 0\naction A:\n    x = x + 1\nconstraint C: x > 0\n")
    assert main(["simulate", path, "--seed", "1", "--quiet"]) == 0
    assert "No initial state satisfies the state constraints" in capsys.readouterr().out


# ---------------------------------------------------------------- violations of each kind

def test_a_deadlock_is_found_unless_deadlock_checking_is_off(tmp_path, capsys):
    path = write(tmp_path, "var x: int = 0\naction A:\n    require x < 3\n    x = x + 1\n")
    assert main(["simulate", path, "--seed", "1", "--json", "--quiet"]) == 11
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "deadlock" and data["violation"]["kind"] == "deadlock"
    assert [s["state"]["x"] for s in data["violation"]["trace"]] == [0, 1, 2, 3]
    assert main(["simulate", path, "--seed", "1", "--no-deadlock", "--quiet"]) == 0


def test_an_evaluation_error_is_reported_with_its_place_and_trace(tmp_path, capsys):
    path = write(tmp_path, "var s: seq[int] = [1, 2]\naction A:\n    s = tail(s)\n")
    assert main(["simulate", path, "--seed", "1", "--json", "--quiet"]) == 4
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["verdict"] == "error" and data["error"]["code"] == "E404"
    assert (data["error"]["line"], data["error"]["column"]) == (3, 9)
    assert [s["state"]["s"] for s in data["violation"]["trace"]] == [[1, 2], [2], []]
    assert f"{path}:3:9: error[E404]" in captured.err and "Traceback" not in captured.err


def test_an_initial_state_that_violates_is_found_before_the_first_behaviour(tmp_path, capsys):
    path = write(tmp_path, "var x: int in {0, 5}\naction A:\n    x = x\ninvariant I: x < 5\n")
    assert main(["simulate", path, "--seed", "1", "--quiet"]) == 12
    assert "Found among the initial states" in capsys.readouterr().out


def test_a_step_property_is_checked_on_every_step():
    model = model_of(TOGGLE)
    result = simulate(model, SimOptions(seed=1))
    v = result.violation
    assert (v.kind, v.name) == (Check.STEP, "XGrows")
    assert_execution(model, v.trace)
    (before, after) = v.trace.steps[-2:]
    assert after.state < before.state and model.action_info[after.action].name == "Reset"


def test_liveness_and_reachable_checks_are_said_to_be_unchecked(capsys):
    code = main(["simulate", str(SPECS / "notify_race.spec"), "--seed", "1", "--json", "--quiet"])
    captured = capsys.readouterr()
    assert code == 12
    assert "temporal property ParentHearsBack: simulate checks no liveness" in captured.err
    assert "simulate does not decide reachable checks" in captured.err
    notes = [w for w in json.loads(captured.out)["warnings"] if w["severity"] == "note"]
    assert len(notes) == 2


# ---------------------------------------------------------------- shrinking

def test_shrinking_gives_a_shorter_real_execution_with_the_same_violation():
    model = model_of(JUMP)
    for seed in range(1, 8):
        raw = simulate(model, SimOptions(seed=seed, depth=30, shrink=False))
        short = simulate(model, SimOptions(seed=seed, depth=30))
        assert raw.simulation.found_steps == len(raw.violation.trace.steps) - 1
        assert len(short.violation.trace.steps) <= len(raw.violation.trace.steps)
        assert short.violation.name == raw.violation.name == "Low"
        assert short.violation.trace.steps[-1].state == (12,) or not invariant(model, "Low")(
            short.violation.trace.steps[-1].state)
        assert_execution(model, short.violation.trace)
        states = [s.state for s in short.violation.trace.steps]
        assert len(states) == len(set(states))  # no cycle left
    # seed 2's behaviour wanders for 10 steps; the search over what the run expanded finds four jumps,
    # the shortest trace (check's breadth-first answer)
    short = simulate(model, SimOptions(seed=2, depth=30))
    assert short.simulation.shrink_method == "search"
    assert len(short.violation.trace.steps) == len(explore(model, Options()).violation.trace.steps) == 5


def test_no_shrink_reports_the_behaviour_as_it_was(capsys):
    assert main(["simulate", DIEHARD, "--seed", "1", "--no-shrink", "--json", "--quiet"]) == 12
    data = json.loads(capsys.readouterr().out)
    assert len(data["violation"]["trace"]) - 1 == data["simulation"]["found_steps"]
    assert data["simulation"]["shrunk_steps"] is None


# ---------------------------------------------------------------- outputs and exit codes

def test_json_shape(capsys):
    assert main(["simulate", DIEHARD, "--seed", "1", "--json", "--quiet"]) == 12
    data = json.loads(capsys.readouterr().out)
    assert data["command"] == "simulate" and data["seed"] == 1
    assert data["verdict"] == "invariant_violated" and data["violation"]["name"] == "NotSolved"
    assert set(data["simulation"]) == {"behaviours", "states_visited", "longest_behaviour", "behaviours_per_s",
                                       "depth_bound", "traces_bound", "ended", "found_steps", "shrunk_steps",
                                       "shrink_method"}
    assert set(data["coverage"]["FillBigJug"]) == {"enabled", "generated", "distinct", "taken"}
    steps = len(data["violation"]["trace"]) - 1
    assert data["simulation"]["shrunk_steps"] in (None, steps)
    assert sum(c["generated"] for c in data["coverage"].values()) + 1 == data["states_generated"]


def test_the_text_report(capsys):
    assert main(["simulate", DIEHARD, "--seed", "1", "--quiet"]) == 12
    out = capsys.readouterr().out
    assert out.startswith("tlacheck ") and "simulating" in out and "seed 1" in out
    assert "Error: invariant NotSolved is violated." in out
    for row in ("behaviours", "states generated", "states visited", "longest behaviour", "behaviours/s"):
        assert row in out
    assert "taken" in out


def test_the_json_and_itf_files_replay_and_render(tmp_path, capsys):
    saved = tmp_path / "run.json"
    itf = tmp_path / "run.itf.json"
    code = main(["simulate", DIEHARD, "--seed", "4", "--json", "--quiet", "--itf", str(itf),
                 "--render", str(tmp_path / "out")])
    saved.write_text(capsys.readouterr().out)
    assert code == 12
    assert json.loads(itf.read_text())["states"][-1]["big"] == {"#bigint": "4"}
    assert (tmp_path / "out" / "diehard.base.NotSolved.dot").exists()
    assert main(["replay", DIEHARD, str(saved)]) == 0
    assert main(["replay", DIEHARD, str(itf)]) == 0


@pytest.mark.parametrize("args", [
    ["--depth", "0"], ["--depth", "-3"], ["--traces", "0"], ["--traces", "many"], ["--seed", "-1"],
    ["--time-limit", "0"], ["--invariant", "NoSuch"], ["--variant", "NoSuch"], ["--max-states", "3"],
])
def test_bad_options_are_usage_errors(args, capsys):
    assert main(["simulate", DIEHARD, *args]) == 2
    err = capsys.readouterr().err
    assert "tlacheck: error:" in err and "Traceback" not in err


def test_a_spec_error_is_reported_with_its_place(tmp_path, capsys):
    path = write(tmp_path, "var x: int = 0\naction A:\n    x = y\n")
    assert main(["simulate", path]) == 3
    err = capsys.readouterr().err
    assert f"{path}:3:9: error[E100]" in err and "Traceback" not in err


# ---------------------------------------------------------------- expectations by simulation

def test_verify_by_simulation_meets_violations_and_leaves_what_it_cannot_decide():
    from tlacheck.app.cli import read_source
    from tlacheck.app.verify import verify_source

    rows = {(r.variant, r.check): r for r in verify_source(read_source(str(SPECS / "notify_race.spec")),
                                                           simulation=SimOptions(seed=1, traces=200))}
    found = rows["base", "AnswerNotified"]
    assert found.ok and found.got == Answer.VIOLATES
    assert_execution(found.model, found.evidence.trace)
    held = rows["Generation", "AnswerNotified"]
    assert held.ok and "not a proof" in held.note
    for check in ("ParentHearsBack", "TwoNotifications", "Stranded"):  # liveness, reachable checks
        assert rows["base", check].unchecked and not rows["base", check].ok


def test_verify_simulate_on_the_command_line(tmp_path, capsys):
    assert main(["verify", "--simulate", "--traces", "100", str(SPECS / "notify_race.spec")]) == 0
    out = capsys.readouterr().out
    assert "Decided by simulation (seed 1" in out and "not decided by simulation" in out
    wrong = write(tmp_path, open(DIEHARD, encoding="utf-8").read().replace("expect base violates NotSolved",
                                                                           "expect base holds NotSolved"))
    assert main(["verify", "--simulate", wrong]) == 10
    assert "expected `base` holds NotSolved, but it violates." in capsys.readouterr().out


def test_the_pytest_plugin_simulates_and_skips_what_it_cannot_decide(pytester):
    from tests.test_verify import SMALL

    pytester.makefile(".spec", small=SMALL)
    result = pytester.runpytest("-q", "-p", "no:randomly", "--tlacheck-simulate", "--tlacheck-seed", "3", "-rs")
    result.assert_outcomes(passed=2, skipped=1)  # `Capped violates Two`: a reachable check
    assert "simulation does not decide reachable checks" in result.stdout.str()


def test_collect_mode_reports_each_failing_check_once():
    model = model_of(COUNTER.replace("invariant Small: x < 1000", "invariant A: x < 2\n    invariant B: x < 3"))
    result = simulate(model, SimOptions(seed=1, traces=20, collect=True))
    assert [(v.kind, v.name) for v in result.violations] == [(Check.INVARIANT, "A"), (Check.INVARIANT, "B")]
    assert result.simulation.behaviours == 20  # the run went on after the first violation
    for v in result.violations:
        assert_execution(model, v.trace)
        assert not invariant(model, v.name)(v.trace.steps[-1].state)


# ---------------------------------------------------------------- shortening a trace (issue 32, item 9)

TASK_QUEUE = str(SPECS.parent / "benchmarks" / "models" / "task_queue.spec")


def assert_ends_in(model, trace, name: str) -> None:
    """The trace breaks the invariant `name` in its last state, and no check before it."""
    states = [s.state for s in trace.steps]
    assert not invariant(model, name)(states[-1])
    assert all(check(s) for s in states[:-1] for _, check in model.invariants)


@pytest.mark.parametrize("seed", range(1, 9))
def test_issue_32_a_trace_padded_with_other_processes_steps_is_shortened(seed):
    """The task queue's behaviours meet the double processing after 8 to 16 steps, with other
    workers' and messages' steps in between; the trace reported takes only the steps needed:
    as short as check's breadth-first one, and a real execution of the spec."""
    model = model_of(path=TASK_QUEUE)
    options = SimOptions(seed=seed, check_deadlock=False)
    raw = simulate(model, SimOptions(seed=seed, check_deadlock=False, shrink=False))
    short = simulate(model, options)
    shortest = explore(model, Options(check_deadlock=False)).violation.trace
    sim = short.simulation
    assert sim.found_steps == len(raw.violation.trace.steps) - 1 > len(shortest.steps) - 1
    assert sim.shrunk_steps == len(short.violation.trace.steps) - 1 == len(shortest.steps) - 1
    assert sim.shrink_method == "instances"
    assert_execution(model, short.violation.trace)
    assert_ends_in(model, short.violation.trace, "ProcessedOnce")
    # (the steps taken are among those of the behaviour found)
    assert {(s.action, s.args) for s in short.violation.trace.steps[1:]} <= \
        {(s.action, s.args) for s in raw.violation.trace.steps[1:]}
    again = simulate(model, options)
    assert again.violation == short.violation and again.simulation == sim


def test_issue_32_past_its_bound_steps_are_dropped_instead(monkeypatch):
    """When the search over the trace's action instances gives up (here at once), steps are
    dropped, runs of them then single ones, each shorter trace taken again by the model: still
    a real execution that ends in the same violation."""
    from tlacheck.engine import simulate as module

    monkeypatch.setattr(module, "_INSTANCE_STATES", 0)
    model = model_of(path=TASK_QUEUE)
    shortened = 0
    for seed in range(1, 9):
        r = simulate(model, SimOptions(seed=seed, check_deadlock=False))
        trace, sim = r.violation.trace, r.simulation
        assert_execution(model, trace)
        assert_ends_in(model, trace, "ProcessedOnce")
        if sim.shrunk_steps is not None:
            assert sim.shrink_method in ("steps", "search", "cycles") and sim.shrunk_steps < sim.found_steps
            shortened += sim.shrink_method == "steps"
    assert shortened >= 4


def test_issue_32_a_step_property_and_a_deadlock_are_shortened_too(tmp_path):
    """Three counters: the step property's violation needs A's steps only."""
    text = """
        var a: int = 0
        var b: int = 0
        var c: int = 0
        action A:
            require a < 4
            a = a + 1
        action B:
            require b < 3
            b = b + 1
        action C:
            require c < 3
            c = c + 1
        property AStaysLow: always (a' <= 3)
        """
    model = model_of(text)
    shortest = explore(model, Options(check_deadlock=False)).violation.trace
    for seed in range(1, 6):
        r = simulate(model, SimOptions(seed=seed, check_deadlock=False))
        assert r.violation.kind == Check.STEP and r.violation.name == "AStaysLow"
        assert len(r.violation.trace.steps) == len(shortest.steps) == 5  # four steps of A
        assert_execution(model, r.violation.trace)
    # B wanders until A has run twice and Stop ends everything: the deadlock needs A, A, Stop
    stopping = model_of("""
        var a: int = 0
        var b: int = 0
        var stopped: bool = false
        action A:
            require not stopped and a < 2
            a = a + 1
        action B:
            require not stopped
            b = (b + 1) % 5
        action Stop:
            require not stopped and a == 2
            stopped = true
        """)
    assert len(explore(stopping, Options()).violation.trace.steps) == 4
    found = []
    for seed in range(1, 6):
        r = simulate(stopping, SimOptions(seed=seed))
        assert r.violation.kind == Check.DEADLOCK and len(r.violation.trace.steps) == 4
        assert_execution(stopping, r.violation.trace)
        found.append(r.simulation.found_steps)
    assert max(found) > 3
