"""liveness.py: temporal properties and fairness, checked against hand-worked answers and TLC.

Every lasso counterexample is replayed independently here: each step must be a
transition of the model, the loop must close, the behaviour must be fair, and
the property must be false on it.
"""

import pytest

from tlacheck.app.cli import read_source
from tlacheck.core.result import Check, Verdict
from tlacheck.engine.explore import explore
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS, model_of


def check(text: str, **opts):
    from tlacheck.engine.options import Options

    model = model_of(text)
    return model, explore(model, Options(**opts))


# ---------------------------------------------------------------- independent lasso replay

def successors(model, state):
    for a, act in enumerate(model.actions):
        for args, succ in act(state):
            yield a, args, succ


def fairness_instances(model):
    """(strong, [(action, (positions, state -> the lists of values there)) ...]) for every fairness
    condition instance."""
    out = []
    for fair, (bind_fn, arg_fns) in zip(model.ir.fairness, model.fairness):
        for binding in bind_fn():
            targets = []
            for target, fn in zip(fair.targets, arg_fns):
                if fn is None:
                    targets.append((target.action, None))
                else:
                    f, positions, some = fn  # with `for some`, f gives a list of the values
                    targets.append((target.action, (positions, lambda s, f=f, b=binding, m=some:
                                                    f(s, *b) if m else [f(s, *b)])))
            out.append((fair.strong, targets))
    return out


def matches(targets, state, action, args):
    for a, fixed in targets:
        if a != action:
            continue
        if fixed is None:
            return True
        positions, values = fixed
        if any(all(args[p] == v for p, v in zip(positions, found)) for found in values(state)):
            return True
    return False


def replay_lasso(model, trace):
    """Check the lasso against the model; return the list of states of the cycle."""
    steps = trace.steps
    assert steps[0].action is None
    assert steps[0].state in list(model.init())
    for prev, step in zip(steps, steps[1:]):
        assert (step.action, step.args, step.state) in list(successors(model, prev.state)), step
    k = trace.loop_index
    assert k is not None and 0 <= k < len(steps)
    cycle_states = [s.state for s in steps[k:]]
    if trace.closing is None:  # stuttering forever in the last state
        assert k == len(steps) - 1
        transitions = []
    else:
        c = trace.closing
        assert (c.action, c.args, steps[k].state) in list(successors(model, steps[-1].state))
        transitions = [(s.state, n.action, n.args, n.state) for s, n in zip(steps[k:], steps[k + 1:])]
        transitions.append((steps[-1].state, c.action, c.args, steps[k].state))
    for strong, targets in fairness_instances(model):
        taken = any(t != s and matches(targets, s, a, args) for s, a, args, t in transitions)
        enabled = [any(t != s and matches(targets, s, a, args) for a, args, t in successors(model, s))
                   for s in cycle_states]
        if not taken:
            if strong:
                assert not any(enabled), "strong fairness violated on the loop"
            else:
                assert not all(enabled), "weak fairness violated on the loop"
    return cycle_states


def pred(model, text_expr):
    """A state predicate from the spec's own invariant named `text_expr` (tests add them)."""
    return dict(model.invariants)[text_expr]


# ---------------------------------------------------------------- small specs with obvious answers

COUNTER = """
    var x: int = 0
    action Inc:
        require x < 3
        x = x + 1
    action Stay:
        require x == 3
        skip
    property Reaches3: eventually x == 3
    """


def test_counter_may_stop_without_fairness():
    model, r = check(COUNTER)
    assert r.verdict == Verdict.LIVENESS_VIOLATED and r.violation.name == "Reaches3"
    trace = r.violation.trace
    assert len(trace.steps) == 1 and trace.closing is None  # stutters in the initial state
    cycle = replay_lasso(model, trace)
    assert all(s != (3,) for s in cycle)


def test_counter_with_weak_fairness_reaches_the_end():
    model, r = check(COUNTER + "fair weak Inc\n")
    assert r.verdict == Verdict.OK


MUTEX = """
    const P: set[model] = {p1, p2}
    enum Pc { idle, waiting, critical }
    var pc: map[P, Pc] = {p -> idle for p in P}
    var lock: P? = none
    action Request(p in P):
        require pc[p] == idle
        pc[p] = waiting
    action Enter(p in P):
        require pc[p] == waiting and lock == none
        pc[p] = critical
        lock = p
    action Leave(p in P):
        require pc[p] == critical
        pc[p] = idle
        lock = none
    property NoStarvation: all(pc[p] == waiting leads_to pc[p] == critical for p in P)
    invariant Waiting1: pc[p1] != waiting
    """


def test_mutex_without_fairness_starves():
    model, r = check(MUTEX + "invariant Dummy: true\n")
    model = model_of(MUTEX)
    r = explore(model, __import__("tlacheck.engine.options", fromlist=["Options"]).Options(invariants=()))
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    cycle = replay_lasso(model, r.violation.trace)
    assert all(model.format_state(s)["pc"] != "" for s in cycle)


@pytest.mark.parametrize("strength, verdict", [("weak", Verdict.LIVENESS_VIOLATED), ("strong", Verdict.OK)])
def test_mutex_weak_fairness_starves_strong_does_not(strength, verdict):
    from tlacheck.engine.options import Options

    model = model_of(MUTEX + f"fair {strength} Request(p) or Enter(p) or Leave(p) for p in P\n")
    r = explore(model, Options(invariants=()))
    assert r.verdict == verdict
    if verdict == Verdict.LIVENESS_VIOLATED:
        cycle = replay_lasso(model, r.violation.trace)
        # p1 waits forever in the loop while p2 keeps entering
        assert all(model.format_state(s)["pc"].startswith("{p1 -> waiting") for s in cycle)


TOGGLE = """
    var x: int = 0
    action Flip:
        x = 1 - x
    fair weak Flip
    """


def test_eventually_always_fails_only_on_infinite_alternation():
    model, r = check(TOGGLE + "property Settles: eventually always x == 0\n")
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    trace = r.violation.trace
    assert trace.closing is not None  # a real cycle, not stuttering
    cycle = replay_lasso(model, trace)
    assert {s for s in cycle} == {(0,), (1,)}
    model, r = check(TOGGLE + "property Often: always eventually x == 0\n")
    assert r.verdict == Verdict.OK


def test_eventually_always_holds_when_the_system_settles():
    model, r = check("""
        var x: int = 0
        action Up:
            require x < 2
            x = x + 1
        fair weak Up
        property Settles: eventually always x == 2
        """, check_deadlock=False)
    assert r.verdict == Verdict.OK


def test_always_property_is_a_safety_check_with_a_finite_trace():
    model, r = check(COUNTER.replace("property Reaches3: eventually x == 3", "property Small: always x < 2"))
    assert r.verdict == Verdict.INVARIANT_VIOLATED and r.violation.kind == Check.PROPERTY
    assert r.violation.trace.loop_index is None
    assert r.violation.trace.steps[-1].state == (2,)


def test_leads_to_prefix_is_shortest():
    model, r = check("""
        var x: int = 0
        action Inc:
            require x < 5
            x = x + 1
        property Never: x == 2 leads_to x == 99
        fair weak Inc
        """, check_deadlock=False)
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    trace = r.violation.trace
    replay_lasso(model, trace)
    # prefix 0,1,2,...,5 then stutter at 5 (Inc disabled): the P-state 2 is on the way
    assert [s.state[0] for s in trace.steps] == [0, 1, 2, 3, 4, 5]


def test_reachable_witness_is_shortest():
    model, r = check("""
        var x: int = 0
        var y: int = 0
        action IncX:
            require x < 3
            x = x + 1
        action IncY:
            require y < 3
            y = y + 1
        reachable Corner: x == 2 and y == 1
        action Stay:
            skip
        """)
    assert r.verdict == Verdict.OK
    assert len(r.witnesses["Corner"].steps) == 4
    assert r.witnesses["Corner"].steps[-1].state == (2, 1)


def test_unreachable_check_fails():
    model, r = check("var x: int = 0\naction A:\n    x = 1 - x\nreachable Two: x == 2\n")
    assert r.verdict == Verdict.UNREACHABLE and r.violation.name == "Two"


def test_a_formula_beyond_the_common_forms_is_decided_by_the_tableau():
    # once E114 ("this temporal formula is not supported"); tests/test_tableau.py checks the tableau
    result = explore(model_of(TOGGLE + "property Weird: not always x == 0\n"))
    assert result.verdict == Verdict.OK  # TOGGLE leaves x == 0 (Flip is fair): the formula holds
    model = model_of(TOGGLE + "property Weird: not eventually x != 0\n")  # always x == 0: no
    result = explore(model)
    assert result.verdict == Verdict.LIVENESS_VIOLATED
    cycle = replay_lasso(model, result.violation.trace)
    assert (1,) in [s.state for s in result.violation.trace.steps] or (1,) in cycle


def test_temporal_operator_outside_a_property_is_rejected():
    from tests.conftest import spec_error

    d = spec_error("var x: int = 0\ninvariant I: eventually x == 1\n")
    assert d.code == "E112"


# ---------------------------------------------------------------- classic ports (TLC says: all hold)

CLASSIC = [
    ("dining_philosophers.spec", True, ["NobodyStarves"]),
    ("simple_allocator.spec", True, ["ClientsWillReturn", "ClientsWillObtain", "InfOftenSatisfied"]),
    ("ewd840.spec", False, ["Liveness"]),
    ("coffee_can.spec", True, ["EventuallyTerminates", "TerminationHypothesis"]),
    ("sync_termination_detection.spec", True, ["Liveness"]),
]


@pytest.mark.parametrize("port, deadlock, properties", CLASSIC)
def test_classic_properties_hold_as_tlc_says(port, deadlock, properties):
    from tlacheck.engine.options import Options

    model = build_model(read_source(str(SPECS / "classic" / port)))
    assert sorted(p.name for p in model.ir.properties) == sorted(properties)
    r = explore(model, Options(check_deadlock=deadlock))
    assert r.verdict == Verdict.OK


def without_fairness(text: str, keep=lambda line: False) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("fair ") or keep(line)) + "\n"


@pytest.mark.parametrize("port, deadlock, drop, expect", [
    ("dining_philosophers.spec", True, "fair weak", "NobodyStarves"),
    ("simple_allocator.spec", True, "fair weak Return", "ClientsWillReturn"),
    ("simple_allocator.spec", True, "fair strong Allocate", "ClientsWillObtain"),
    ("ewd840.spec", False, "fair weak", "Liveness"),
    ("coffee_can.spec", True, "fair weak", "EventuallyTerminates"),
    ("sync_termination_detection.spec", True, "fair weak", "Liveness"),
])
def test_removing_fairness_yields_a_replayable_lasso(tmp_path, port, deadlock, drop, expect):
    from tlacheck.engine.options import Options
    from tlacheck.core.source import Source

    text = (SPECS / "classic" / port).read_text()
    text = "\n".join(line for line in text.splitlines() if not line.startswith(drop)) + "\n"
    model = build_model(Source(str(SPECS / "classic" / port), text))  # its own path: `refines` files are beside it
    r = explore(model, Options(check_deadlock=deadlock))
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    assert r.violation.name == expect
    replay_lasso(model, r.violation.trace)


def test_weakening_allocate_to_weak_fairness_breaks_obtain():
    """TLC: ClientsWillObtain needs *strong* fairness of Allocate."""
    from tlacheck.core.source import Source

    text = (SPECS / "classic" / "simple_allocator.spec").read_text().replace("fair strong Allocate", "fair weak Allocate")
    model = build_model(Source("a.spec", text))
    r = explore(model)
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    replay_lasso(model, r.violation.trace)


def test_lasso_output_is_deterministic():
    text = MUTEX + "fair weak Request(p) or Enter(p) or Leave(p) for p in P\n"
    from tlacheck.engine.options import Options

    a = explore(model_of(text), Options(invariants=())).violation.trace
    b = explore(model_of(text), Options(invariants=())).violation.trace
    assert a == b


# ---------------------------------------------------------------- stopping the analysis (issue 8)

RING = """
    var x: int = 0
    var y: int = 0
    action A:
        x = (x + 1) % 10
    action B:
        y = (y + 1) % 10
    fair weak A
    fair weak B
    property XZero: always eventually x == 0
    property YZero: always eventually y == 0
    """


def explored(text):
    """The model and its explored graph, as the explorer hands them to the liveness checker."""
    from tlacheck.engine.levels import Coordinator
    from tlacheck.engine.options import Options

    model = model_of(text)
    explorer = Coordinator(model, Options(), None, 5.0)
    assert explorer.run().verdict == Verdict.OK
    return model, (explorer.graph, explorer.parents, explorer.depths, explorer._state)


def test_issue_8_liveness_checker_with_a_preset_stop_event_stops_at_once():
    import threading

    from tlacheck.engine.liveness import Checker, Stopped

    model, graph = explored(RING)
    event = threading.Event()
    event.set()
    with pytest.raises(Stopped) as info:
        Checker(model, *graph, stop=lambda: "interrupted" if event.is_set() else None)
    assert info.value.reason == "interrupted"


def test_issue_8_liveness_checker_asks_while_it_evaluates_predicates():
    from tlacheck.engine.liveness import Checker, Stopped

    model, graph = explored(RING)
    calls = []

    def stop():  # once `check` runs, says stop at the fifth question: inside the scan of XZero's predicate
        if checking:
            calls.append(1)
        return "time_limit" if len(calls) == 5 else None

    checking = False
    checker = Checker(model, *graph, stop=stop)
    checking = True
    with pytest.raises(Stopped) as info:
        checker.check()
    assert info.value.reason == "time_limit" and len(calls) == 5
    assert checker.decided == []
    assert [p.name for p in model.ir.properties] == ["XZero", "YZero"]
    assert len(Checker(model, *graph, stop=lambda: None).check()) == 0  # both hold when not stopped


def test_issue_8_explore_reports_undecided_properties_when_stopped_in_the_liveness_phase():
    import threading

    from tlacheck.engine.options import Options

    def stopped_in_the_liveness_phase(**opts):
        """Ctrl-C as the liveness phase starts: its first progress report (due at once) sets it."""
        event = threading.Event()

        def progress(p):
            if p.phase == "liveness":
                event.set()

        model = model_of(RING)
        return model, explore(model, Options(stop=event, **opts), progress, progress_every=0.0)

    model, r = stopped_in_the_liveness_phase()
    assert r.verdict == Verdict.INCOMPLETE and r.stop_reason == "interrupted"
    assert (r.distinct_states, r.queue_left, r.undecided) == (100, 0, ("XZero", "YZero"))
    assert r.verdict.exit_code == 5
    _, r = stopped_in_the_liveness_phase(properties=("YZero",))
    assert r.undecided == ("YZero",)
    assert explore(model, Options()).verdict == Verdict.OK


# ---------------------------------------------------------------- the behaviour graph (issue 18, item 4)

WITH_PROPERTIES = ["fork_teammate.spec", "notify_race.spec", "classic/dining_philosophers.spec",
                   "classic/ewd840.spec", "classic/simple_allocator.spec", "corpus/scheduling_allocator.spec",
                   "classic/coffee_can.spec"]


def _outcome(result):
    v = result.violation
    trace = None if v is None else (v.kind, v.name, [(s.action, s.args, s.state) for s in v.trace.steps],
                                    v.trace.loop_index, None if v.trace.closing is None else
                                    (v.trace.closing.action, v.trace.closing.args, v.trace.closing.state))
    return result.verdict, result.distinct_states, result.states_generated, result.depth, trace


@pytest.mark.parametrize("name", WITH_PROPERTIES)
def test_issue_18_properties_decided_on_fingerprints_agree_with_exact_storage(name):
    """With temporal properties the search stores fingerprints and keeps no state (the behaviour
    graph holds the predicates' values and the successors' numbers; a lasso's states are found
    again by running the spec): the verdict, the counts and the counterexample are those of exact
    storage, which keeps every state and tells them by their ids, with one worker or two."""
    from tlacheck.engine.options import Options, Storage

    model = build_model(read_source(str(SPECS / name)))
    live = tuple(p.name for p in model.ir.properties if p.has_liveness)
    assert live, "a spec with a liveness property"
    for invariants in (None, ()):  # with the invariants, and without them: the liveness checker runs
        on_fingerprints = explore(model, Options(invariants=invariants))
        exact = explore(model, Options(invariants=invariants, storage=Storage.EXACT))
        assert on_fingerprints.fingerprint_collision is not None and exact.fingerprint_collision is None
        assert _outcome(on_fingerprints) == _outcome(exact)
        # two forked workers record the graph in parts: the coordinator puts them together
        assert _outcome(explore(model, Options(invariants=invariants, workers=2))) == _outcome(exact)
    assert on_fingerprints.verdict in (Verdict.OK, Verdict.LIVENESS_VIOLATED, Verdict.DEADLOCK)
    if on_fingerprints.verdict == Verdict.LIVENESS_VIOLATED:
        replay_lasso(model, on_fingerprints.violation.trace)


def test_issue_18_a_predicate_failing_where_the_check_does_not_need_it_is_no_error():
    """The search evaluates every predicate of the properties in every state and records a
    failure as such; the checker reports it only where it reads the value, as a checker that
    evaluates on demand: here `10 // x > 5` fails where x == 0, where the right side holds."""
    _, r = check("""
        var x: 0..3 = 0
        action A:
            x = (x + 1) % 4
        fair weak A
        property L: (10 // x > 2) leads_to x == 0
        """)
    assert r.verdict == Verdict.OK and r.error is None
    _, r = check("""
        var x: 0..3 = 0
        action A:
            x = (x + 1) % 4
        fair weak A
        property L: (10 // x > 2) leads_to x == 3
        """)
    assert r.error is not None and r.error.code == "E407"
    assert r.error.message.endswith("(while evaluating property L)")
    assert r.violation.trace.steps[-1].state == (0,)  # the initial state: the first in number order


def test_issue_18_an_invariant_violated_is_reported_before_a_fairness_error_found_during_the_search():
    """Fairness conditions are evaluated while the search records the graph, but their errors are
    reported where the liveness checker used to meet them: after a search that found nothing."""
    _, r = check("""
        var x: 0..3 = 0
        action A(k in 0..3):
            require k == x
            x = (x + 1) % 4
        fair weak A(10 // (x - 2))
        invariant Small: x < 3
        property P: always eventually x == 0
        """)
    assert r.verdict == Verdict.INVARIANT_VIOLATED and r.violation.name == "Small"


def test_issue_18_a_property_on_a_model_without_any_state_holds():
    """No initial state satisfies the constraint: there is no behaviour, and the empty graph is
    decided as such (the fuzz campaign's find: the search ended before it had a table)."""
    _, r = check("""
        var x: bool in {true}
        action A:
            x = x
        constraint C: not x
        property P: eventually x
        fair weak A
        """)
    assert (r.verdict, r.distinct_states, r.states_generated) == (Verdict.OK, 0, 1)


def test_issue_18_components_are_sorted_alike_small_and_large():
    """A component's states in increasing order, however many (a large one is read back from a
    bytearray of marks instead of sorted as a list)."""
    import random
    from array import array

    from tlacheck.engine.liveness import _sorted

    rng = random.Random(18)
    for size in (0, 1, 5, (1 << 14) - 1, 1 << 14, 50_000):
        states = array("i", rng.sample(range(120_000), size))
        assert list(_sorted(states, 120_000)) == sorted(states)


def test_simple_allocator_inf_often_satisfied_breaks_without_strong_fairness_of_allocate():
    """Each property of SimpleAllocator.cfg is broken by a mutation; InfOftenSatisfied
    (`\\A c : []<>(unsat[c] = {})`) by dropping `fair strong Allocate`: a request stays unsatisfied."""
    from tlacheck.engine.options import Options
    from tlacheck.core.source import Source

    text = (SPECS / "classic" / "simple_allocator.spec").read_text()
    model = build_model(Source("simple_allocator.spec", text))
    assert explore(model, Options(properties=("InfOftenSatisfied",))).verdict == Verdict.OK
    kept = "\n".join(line for line in text.splitlines() if not line.startswith("fair strong Allocate")) + "\n"
    assert kept != text
    model = build_model(Source("simple_allocator.spec", kept))
    r = explore(model, Options(properties=("InfOftenSatisfied",)))
    assert r.verdict == Verdict.LIVENESS_VIOLATED and r.violation.name == "InfOftenSatisfied"
    replay_lasso(model, r.violation.trace)


# ---------------------------------------------------------------- the shortest cycle (issue 32, item 3)

UP_DOWN = """
    var x: bool = false
    var done: bool = false
    action Up:
        require not x
        x = true
    action Down:
        require x
        x = false
    action Finish:
        require not x and not done
        done = true
    fair weak Down
    fair weak Finish
    property EventuallyDone: eventually done
    """


def test_issue_32_a_lassos_cycle_goes_round_once():
    """Weak fairness of Down is met in the initial state (Down is disabled there) and that of
    Finish in the state after Up: `Up, Down` is the whole cycle, not `Up, Down, Up, Down`."""
    model, r = check(UP_DOWN)
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    trace = r.violation.trace
    replay_lasso(model, trace)
    names = [model.ir.actions[s.action].name for s in (*trace.steps[1:], trace.closing)]
    assert (trace.loop_index, names) == (0, ["Up", "Down"])
    assert len({s.state for s in trace.steps}) == len(trace.steps)  # no state twice


# Liveness violations of the specs of specs/ (as they are, or with a fairness condition dropped or
# weakened), each a (file, property, text replaced, its replacement, variant)
LASSOS = {
    "up-down": (None, "EventuallyDone", "", "", "base"),
    "notify-race": ("notify_race.spec", "ParentHearsBack", "", "", "base"),
    "fork-teammate": ("fork_teammate.spec", "DispatchReachesTeammate", "", "", "base"),
    "fork-teammate-rollout": ("fork_teammate.spec", "DispatchReachesTeammate", "", "", "RolloutGate"),
    "allocator-weak-obtain": ("classic/simple_allocator.spec", "ClientsWillObtain", "fair strong Allocate",
                              "fair weak Allocate", "base"),
    "allocator-weak-often": ("classic/simple_allocator.spec", "InfOftenSatisfied", "fair strong Allocate",
                             "fair weak Allocate", "base"),
    "allocator-unfair-obtain": ("classic/simple_allocator.spec", "ClientsWillObtain", "fair strong Allocate",
                                "# (no fairness of Allocate)", "base"),
    "allocator-unfair-often": ("classic/simple_allocator.spec", "InfOftenSatisfied", "fair strong Allocate",
                               "# (no fairness of Allocate)", "base"),
    "scheduling-no-schedule": ("corpus/scheduling_allocator.spec", "ClientsWillObtain", "fair weak Schedule",
                               "# (no fairness of Schedule)", "base"),
    "dining-unfair": ("classic/dining_philosophers.spec", "NobodyStarves", "fair weak", "# (no fairness)", "base"),
}


def lasso_model(case: str):
    from tlacheck.core.source import Source

    file, prop, old, new, variant = LASSOS[case]
    if file is None:
        return model_of(UP_DOWN), prop
    path = SPECS / file
    text = path.read_text()
    assert old in text
    return build_model(Source(str(path), text.replace(old, new)), None, variant), prop


@pytest.mark.skipif(__import__("tests.oracle.tlc", fromlist=["tlc"]).available() is not None,
                    reason="TLC cannot run here")
@pytest.mark.parametrize("case", sorted(LASSOS))
def test_issue_32_lassos_are_never_longer_than_tlcs(case):
    """TLC, on the translation of the same spec (tests/oracle/tla.py), finds a counterexample too,
    and ours has no more states than its: the prefix and the cycle's states (TLC prints stuttering
    forever as one more state, `Stuttering`)."""
    import dataclasses

    from tlacheck.engine.options import Options
    from tests.oracle import tlc
    from tests.oracle.tla import translate

    model, prop = lasso_model(case)
    r = explore(model, Options(check_deadlock=False, invariants=(), properties=(prop,)))
    assert r.verdict == Verdict.LIVENESS_VIOLATED and r.violation.name == prop
    replay_lasso(model, r.violation.trace)
    spec = dataclasses.replace(model.ir, invariants=(), properties=tuple(
        p for p in model.ir.properties if p.name == prop))
    theirs = tlc.run(translate(spec), check_deadlock=False)
    assert theirs.verdict == "temporal", theirs.output[-2000:]
    their_states = theirs.trace_length - ("\nState %d: Stuttering" % theirs.trace_length in theirs.output)
    assert len(r.violation.trace.steps) <= their_states


@pytest.mark.parametrize("case", sorted(LASSOS))
def test_issue_32_a_cycle_built_a_requirement_at_a_time_is_a_fair_counterexample(monkeypatch, case):
    """Where the shortest cycle would cost too much to find (liveness._EXACT pairs), the cycle
    walks to the nearest state meeting a requirement not met yet, again and again: still a fair
    behaviour that violates the property, and no shorter cycle than that search gives."""
    from tlacheck.engine import liveness
    from tlacheck.engine.options import Options

    model, prop = lasso_model(case)
    options = Options(check_deadlock=False, invariants=(), properties=(prop,))
    shortest = explore(model, options).violation.trace
    monkeypatch.setattr(liveness, "_EXACT", 0)
    greedy = explore(model, options).violation.trace
    replay_lasso(model, greedy)
    assert greedy.steps[:shortest.loop_index + 1] == shortest.steps[:shortest.loop_index + 1]
    assert len(greedy.steps) >= len(shortest.steps)
