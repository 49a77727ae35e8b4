"""explore.py: BFS counts with TLC's meanings, shortest traces, deadlock, constraints, evaluation errors."""

import pytest

from tlacheck.core.result import Verdict
from tlacheck.core.runtime import NONE
from tlacheck.engine.options import Storage
from tests.conftest import SPECS, model_of, run, spec_runs


COUNTER = """
    const N: int = 3
    var x: int = 0
    action Inc:
        require x < N
        x = x + 1
    action Reset:
        require x == N
        x = 0
    invariant Small: x <= N
    """


def test_counter_counts():
    model, r = run(COUNTER)
    assert r.verdict == Verdict.OK
    assert (r.distinct_states, r.states_generated, r.depth) == (4, 5, 4)
    assert [(c.enabled, c.generated, c.distinct) for c in r.coverage] == [(3, 3, 3), (1, 1, 0)]


def test_shortest_invariant_violation():
    model, r = run("""
        var x: int = 0
        var y: int = 0
        action IncX:
            x = x + 1
        action IncY:
            y = y + 2
        invariant Small: x + y < 4
        """)
    assert r.verdict == Verdict.INVARIANT_VIOLATED
    assert r.violation.name == "Small"
    steps = r.violation.trace.steps
    assert len(steps) == 3  # two IncY steps: the shortest way to x + y >= 4
    assert [model.action_info[s.action].name for s in steps[1:]] == ["IncY", "IncY"]
    assert steps[-1].state == (0, 4)


def test_deadlock_is_a_state_without_successors():
    model, r = run("""
        var x: int = 0
        action Inc:
            require x < 2
            x = x + 1
        """)
    assert r.verdict == Verdict.DEADLOCK
    assert [s.state for s in r.violation.trace.steps] == [(0,), (1,), (2,)]


def test_self_loop_is_not_a_deadlock():
    model, r = run("""
        var x: int = 0
        action Inc:
            require x < 2
            x = x + 1
        action Stay:
            require x == 2
            x = x
        """)
    assert r.verdict == Verdict.OK
    assert r.states_generated == 1 + 3  # init, two Inc, one Stay


def test_no_deadlock_option():
    model, r = run("var x: int = 0\naction A:\n    require false\n    x = 1\n", check_deadlock=False)
    assert r.verdict == Verdict.OK and r.distinct_states == 1


def test_nondeterministic_initial_states():
    model, r = run("""
        var x: int in 1..3
        var y: int = x * 10
        action Stay:
            skip
        """)
    assert sorted(s for s in [tuple(st) for st in model.init()]) == [(1, 10), (2, 20), (3, 30)]
    assert (r.distinct_states, r.states_generated) == (3, 6)


def test_either_branches_each_generate_a_successor():
    model, r = run("""
        var x: int = 0
        action Choose:
            require x == 0
            either:
                x = 1
            or:
                x = 2
            or:
                x = 1
        """, check_deadlock=False)
    assert (r.distinct_states, r.states_generated) == (3, 4)
    assert r.coverage[0].generated == 3


def test_with_choice_and_empty_domain():
    model, r = run("""
        var x: int = 0
        var s: set[int] = {}
        action Pick:
            with v in s:
                x = v
        action Fill:
            require s == {}
            s = {5, 7}
        """, check_deadlock=False)
    # init; Fill -> s={5,7}; Pick -> x=5, x=7; from those, Pick again
    assert r.distinct_states == 4
    assert r.coverage[0].enabled == 3


def test_sequential_semantics_within_an_action():
    model, r = run("""
        var x: int = 1
        var y: int = 0
        action Step:
            require y == 0
            x = x + 1
            y = x * 10
            x = y + 1
        """, check_deadlock=False)
    assert r.distinct_states == 2
    _, succ = next(model.actions[0]((1, 0)))
    assert succ == (21, 20)


def test_require_inside_a_branch_abandons_only_that_branch():
    model, _ = run("""
        var x: int = 0
        action A:
            either:
                require x > 0
                x = 10
            or:
                x = 20
        """, check_deadlock=False)
    assert [s for _, s in model.actions[0]((0,))] == [(20,)]
    assert [s for _, s in model.actions[0]((1,))] == [(10,), (20,)]


def test_parameters_start_from_the_same_state():
    model = model_of("""
        var x: int = 0
        action Add(k in 1..3):
            x = x + k
        """)
    assert [(a, s) for a, s in model.actions[0]((0,))] == [((1,), (1,)), ((2,), (2,)), ((3,), (3,))]


def test_constraint_successors_count_as_generated_but_are_not_stored():
    model, r = run("""
        var x: int = 0
        action Inc:
            x = x + 1
        constraint Bound: x <= 3
        """, check_deadlock=False)
    # x = 0..3 stored; from x=3 the successor x=4 is generated but not stored
    assert (r.distinct_states, r.states_generated) == (4, 5)


@pytest.mark.parametrize("storage", [Storage.FINGERPRINT, Storage.EXACT])
@pytest.mark.parametrize("constraint, code", [
    ("constraint Div: 10 // (x - 2) > -100", "E407"),
    ("constraint Key: {0 -> 1, 1 -> 1}[x] > 0", "E401"),
])
def test_issue_8_a_constraint_failing_on_an_initial_state_shows_that_state(storage, constraint, code):
    """Was an empty trace: the initial state is not stored before its constraints are checked."""
    _, r = run(f"var x: int in {{0, 2, 3}}\naction A:\n    x = x + 1\n{constraint}\n", storage=storage)
    assert r.verdict == Verdict.ERROR and r.error.code == code
    assert [(s.action, s.state) for s in r.violation.trace.steps] == [(None, (2,))]
    assert r.error.trace == r.violation.trace
    assert (r.distinct_states, r.states_generated, r.queue_left) == (1, 2, 1)


@pytest.mark.parametrize("storage, workers", [(Storage.FINGERPRINT, 1), (Storage.EXACT, 1), (Storage.FINGERPRINT, 2)])
def test_a_constraint_failing_on_a_successor_ends_the_trace_with_it(storage, workers):
    """It was the parent's trace, with "the error occurred in the last state of this trace"."""
    _, r = run("var x: int = 0\naction A:\n    x = x + 1\nconstraint C: 10 // (x - 2) > -100\n",
               storage=storage, workers=workers)
    assert r.verdict == Verdict.ERROR and r.error.code == "E407"
    assert [(s.action, s.state) for s in r.violation.trace.steps] == [(None, (0,)), (0, (1,)), (0, (2,))]


def test_evaluation_error_reports_span_and_trace():
    model, r = run("""
        const K: set[model] = {k1, k2}
        var m: map[K, int] = {k1 -> 0}
        var step: int = 0
        action Bump(k in K):
            require step < 1
            step = step + 1
            m[k] = m[k] + 1
        """, check_deadlock=False)
    assert r.verdict == Verdict.ERROR
    assert r.error.code == "E401"
    assert "k2" in r.error.message and "computing action Bump" in r.error.message
    assert r.error.span.line == 7
    assert len(r.violation.trace.steps) == 1


def test_declared_range_is_checked():
    model, r = run("""
        var x: 0..2 = 0
        action Inc:
            x = x + 1
        """)
    assert r.verdict == Verdict.ERROR and r.error.code == "E402"
    assert "0..2" in r.error.message


def test_division_by_zero_and_empty_head():
    _, r = run("var x: int = 0\naction A:\n    x = 1 // x\n")
    assert r.error.code == "E407"
    _, r = run("var s: seq[int] = []\naction A:\n    s = [head(s)]\n")
    assert r.error.code == "E404"


def test_choose_with_no_candidate():
    _, r = run("var x: int = choose(v for v in 1..3 if v > 5)\n")
    assert r.verdict == Verdict.ERROR and r.error.code == "E403"


def test_recursion_is_allowed_when_bounded():
    model, r = run("""
        def fact(n: int) -> int:
            if n <= 1 then 1 else n * fact(n - 1)
        var x: int = fact(5)
        action Stay:
            skip
        """)
    assert model.init().__next__() == (120,)


def test_unbounded_recursion_is_an_evaluation_error():
    _, r = run("""
        def loop(n: int) -> int: loop(n + 1)
        var x: int = 0
        action A:
            x = loop(0)
        """)
    assert r.verdict == Verdict.ERROR and r.error.code == "E406"


def test_max_states_stops_incomplete():
    _, r = run("var x: int = 0\naction A:\n    x = x + 1\n", max_states=10)
    assert r.verdict == Verdict.INCOMPLETE and r.stop_reason == "max_states"
    assert r.distinct_states >= 10


def test_max_depth_stops_incomplete():
    _, r = run("var x: int = 0\naction A:\n    x = x + 1\n", max_depth=5)
    assert r.verdict == Verdict.INCOMPLETE and r.depth == 5


def test_exploration_is_deterministic():
    text = """
        const P: set[model] = {p1, p2, p3}
        var held: set[P] = {}
        var log: seq[P] = []
        action Take(p in P):
            require len(log) < 3
            held = held | {p}
            log = append(log, p)
        invariant NotAll: held != P
        """
    first = run(text)[1]
    second = run(text)[1]
    assert first.violation.trace == second.violation.trace
    assert (first.distinct_states, first.states_generated) == (second.distinct_states, second.states_generated)


def test_issue_8_a_sequence_outgrowing_its_bound_is_e410_at_the_assignment():
    model, r = run("""
        var n: int = 0
        var q: seq[int, 2] = []
        action Send:
            n = n + 1
            q = append(q, n)
        """)
    assert r.verdict == Verdict.ERROR and r.error.code == "E410"
    assert r.error.message == "`q` would hold 3 elements, more than its declared bound 2 (while computing action Send)"
    assert (r.error.span.line, r.error.span.column) == (5, 5)
    assert [s.state for s in r.violation.trace.steps] == [(0, ()), (1, (1,)), (2, (1, 2))]


def test_issue_8_bounds_inside_maps_records_and_sets_are_checked():
    _, r = run("""
        const K: set[model] = {k1, k2}
        var m: map[K, 0..2] = {k -> 0 for k in K}
        action Bump(k in K):
            m[k] = m[k] + 1
        """)
    assert r.error.code == "E402" and "value 3 of `m[k]`" in r.error.message and r.error.span.line == 4
    _, r = run("""
        var m: map[1..2, {open: bool, sent: seq[bool, 1]}] = {k -> {open: true, sent: []} for k in 1..2}
        action Send(k in 1..2):
            m[k].sent = m[k].sent + [true]
        """)
    assert r.error.code == "E410" and "`m[k].sent` would hold 2 elements" in r.error.message
    _, r = run("""
        var s: set[seq[int, 2]] = {[]}
        action Grow:
            s = {append(x, len(x)) for x in s}
        """)
    assert r.error.code == "E410" and r.error.message.startswith("a sequence in `s` would hold 3 elements")
    _, r = run("""
        var m: map[1..2, 0..1] = {k -> 0 for k in 1..2}
        action Reset:
            m = {k -> k for k in 1..2}
        """)
    assert r.error.code == "E402" and "value 2 in `m`" in r.error.message


def test_issue_8_initial_values_are_checked_at_the_declaration():
    _, r = run("var q: seq[int, 1] = [1, 2]\naction A:\n    q = q\n")
    assert r.error.code == "E410" and "initial states" in r.error.message and r.error.span.line == 1
    _, r = run("var x: {n: 0..2} in {{n: v} for v in 0..5}\naction A:\n    x = x\n")
    assert r.error.code == "E402" and "value 3 in `x`" in r.error.message


def test_issue_8_each_assignment_is_checked_when_it_runs():
    # q is at its bound: the append overflows it before the tail shortens it again
    _, r = run("var q: seq[int, 1] = [0]\naction Rotate:\n    q = append(q, 1)\n    q = tail(q)\n")
    assert r.error.code == "E410" and r.error.span.line == 3


def test_issue_8_bounds_that_hold_change_nothing():
    bounded = """
        const Procs: set[model] = {p1, p2}
        var inbox: map[Procs, seq[Procs, 2]] = {p -> [] for p in Procs}
        var credit: map[Procs, 0..2] = {p -> 0 for p in Procs}
        action Send(from in Procs, to in Procs - {from}):
            require len(inbox[to]) < 2
            inbox[to] = append(inbox[to], from)
            credit[to] = len(inbox[to])
        action Receive(p in Procs):
            require inbox[p] != []
            inbox[p] = tail(inbox[p])
            credit[p] = credit[p] - 1
        """
    _, r = run(bounded)
    _, plain = run(bounded.replace("seq[Procs, 2]", "seq[Procs]").replace("0..2", "int"))
    assert r.verdict == plain.verdict == Verdict.OK
    assert (r.distinct_states, r.states_generated) == (plain.distinct_states, plain.states_generated) == (9, 25)
    _, unbounded = run("var q: seq[int] = []\naction A:\n    q = append(q, 0)\n", max_states=50)
    assert unbounded.verdict == Verdict.INCOMPLETE  # unbounded sequences stay allowed


@pytest.mark.parametrize("storage", [Storage.FINGERPRINT, Storage.EXACT])
@pytest.mark.parametrize("spec, variant", spec_runs())
def test_the_coverage_adds_up_to_the_summary(spec, variant, storage):
    """Also when a violation, an error or a deadlock stops the run in the middle of an action
    (an invariant violated by the third successor of an action counts those three). With
    --workers N the coverage is the same (tests/test_parallel.py)."""
    from tlacheck.app.cli import read_source
    from tlacheck.engine.explore import explore
    from tlacheck.engine.options import Options
    from tlacheck.pipeline.driver import build_model

    model = build_model(read_source(str(SPECS / spec)), None, variant)
    r = explore(model, Options(storage=storage, check_properties=False))
    initial = list(model.init())
    assert sum(c.generated for c in r.coverage) + len(initial) == r.states_generated
    assert sum(c.distinct for c in r.coverage) + len(set(initial)) == r.distinct_states
    assert all(c.enabled <= c.generated and c.distinct <= c.generated for c in r.coverage)


def test_coalescing_takes_the_value_out_of_an_option():
    """`x ?? d`: x's value, or d when x is none; tighter than comparisons, looser than `+`;
    d is evaluated only when x is none (here it would divide by zero)."""
    model, r = run("""
        enum Agent { Lead, Mate }
        var owner: Agent? = none
        var n: int? = none
        var log: seq[int] = []
        action Step:
            require len(log) < 3
            log = append(log, n ?? 0 + 10)
            n = (n ?? 0) + 1
            owner = owner ?? Mate
        action Check:
            require n != none and n ?? 0 < 2 and (n ?? 1 // 0) > 0 and owner ?? Lead == Mate
            log = log
        invariant Counted: (n ?? 0) == len(log)
        """, check_deadlock=False)
    assert r.verdict == Verdict.OK and r.distinct_states == 4
    _, succ = next(model.actions[0]((NONE, NONE, ())))
    assert succ == (1, 1, (10,))  # `n ?? 0 + 10` is `n ?? (0 + 10)`: n is none; Mate is member 1
    _, succ = next(model.actions[0](succ))
    assert succ == (1, 2, (10, 1))


def test_coalescing_an_error_on_the_right_only_when_the_left_is_none():
    _, r = run("""
        var n: int? = none
        action Step:
            require (n ?? 1 // 0) > 0
            n = 1
        """, check_deadlock=False)
    assert r.verdict == Verdict.ERROR and r.error.code == "E407"


NESTED_MEMBERSHIP = """
    const A: set[model] = {a1, a2}
    var m: map[int, map[A, int]] = {i -> {a -> 0 for a in A} for i in 1..2}
    var s: set[map[A, int]] = {}
    var n: int = 0
    action Step(i in 1..2, a in A, v in 0..4):
        require n < 3
        n = n + 1
        m[i][a] = v
        s = s | {m[i]}
    invariant Nested: m in maps(1..2, maps(A, 0..VMAX))
    invariant Flat: domain(m) == 1..2 and all(domain(m[i]) == A and all(m[i][a] in 0..VMAX for a in A) for i in 1..2)
    invariant SubsetsNested: s in powerset(maps(A, 0..VMAX))
    invariant SubsetsFlat: all(domain(f) == A and all(f[a] in 0..VMAX for a in A) for f in s)
    """


@pytest.mark.parametrize("vmax", [4, 3, 0])
def test_nested_membership_in_maps_and_powerset_agrees_with_the_flat_form(vmax):
    """`m in maps(D, maps(E, R))` and `s in powerset(maps(E, R))` are decided without building
    the inner sets (codegen's _member); the verdicts, counts and traces equal the flat forms'."""
    spec = NESTED_MEMBERSHIP.replace("VMAX", str(vmax))
    nested = spec.replace("invariant Flat:", "# ").replace("invariant SubsetsFlat:", "# ")
    flat = spec.replace("invariant Nested:", "# ").replace("invariant SubsetsNested:", "# ")
    _, a = run(nested, storage=Storage.EXACT, check_deadlock=False)
    _, b = run(flat, storage=Storage.EXACT, check_deadlock=False)
    assert (a.verdict, a.distinct_states, a.states_generated) == (b.verdict, b.distinct_states, b.states_generated)
    if vmax == 4:
        assert a.verdict == Verdict.OK
    else:
        assert a.verdict == Verdict.INVARIANT_VIOLATED
        assert a.violation.trace == b.violation.trace
        assert {"Nested": "Flat", "SubsetsNested": "SubsetsFlat"}[a.violation.name] == b.violation.name


def test_membership_in_a_nested_set_of_maps_too_large_to_build_is_decided():
    """maps(A, 0..200) has 201^3 maps (over the 2^20 that maps() builds): the membership test
    builds none of them."""
    _, result = run("""
        const A: set[model] = {a1, a2, a3}
        var m: map[int, map[A, int]] = {i -> {a -> 0 for a in A} for i in 1..2}
        action Set(a in A):
            require m[1][a] == 0
            m[1][a] = 200
        invariant Typed: m in maps(1..2, maps(A, 0..200))
        invariant Small: m in maps(1..2, maps(A, 0..199))
        """, check_deadlock=False)
    assert result.verdict == Verdict.INVARIANT_VIOLATED and result.violation.name == "Small"
    assert len(result.violation.trace.steps) == 2
