"""Symmetry reduction (`symmetric const S: set[model]`): one state per orbit, TLC's SYMMETRY
counts, real traces, and what breaks a symmetry refused (E123) or warned about (W212)."""

import textwrap

import pytest

from tlacheck.compile.symmetry import Symmetry
from tlacheck.core.errors import SpecError
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore, symmetry_not_applied
from tlacheck.engine.fingerprints import Fingerprinter
from tlacheck.engine.options import Options, Storage
from tests.conftest import model_of, run
from tests.oracle.symmetric import orbits as _orbits, reachable as _reachable

MUTEX = textwrap.dedent("""
    symmetric const Node: set[model] = {n1, n2, n3}
    var holder: Node? = none
    var waiting: set[Node] = {}
    action Request(n in Node):
        require n not in waiting and holder != n
        waiting = waiting | {n}
    action Grant(n in Node):
        require holder == none and n in waiting
        holder = n
        waiting = waiting - {n}
    action Release:
        require holder != none
        holder = none
    invariant Exclusive: all(not (holder == n and n in waiting) for n in Node)
    """)


@pytest.mark.parametrize("workers", [1, 2])
def test_one_state_is_stored_per_orbit(workers):
    model = model_of(MUTEX)
    reduced = explore(model, Options(check_deadlock=False, workers=workers))
    full = explore(model, Options(check_deadlock=False, symmetry=False))
    states = _reachable(model)
    assert full.distinct_states == len(states) == 20
    assert reduced.distinct_states == _orbits(model, states) == 7
    assert reduced.verdict == full.verdict == Verdict.OK


def test_every_renaming_is_a_state_of_the_same_orbit_and_the_key_is_the_orbits():
    model = model_of(MUTEX)
    symmetry = model.symmetry
    assert len(symmetry.renamings) == 5  # 3! - 1
    key = symmetry.key(Fingerprinter(model.var_types))
    for s in _reachable(model):
        assert len({key(t) for t in symmetry.orbit(s)}) == 1
        assert all(r(s) in _reachable(model) for r in symmetry.renamings)


def test_a_counterexample_under_symmetry_replays_step_by_step_on_the_unreduced_spec():
    buggy = MUTEX.replace("    waiting = waiting - {n}\n", "")  # the granted node stays waiting
    model, reduced = run(buggy, check_deadlock=False)
    full = explore(model, Options(check_deadlock=False, symmetry=False))
    assert reduced.verdict == full.verdict == Verdict.INVARIANT_VIOLATED
    steps = reduced.violation.trace.steps
    assert len(steps) == len(full.violation.trace.steps)  # still a shortest trace
    assert steps[0].state in set(model.init())
    for before, step in zip(steps, steps[1:]):  # each step a real successor by its action and arguments
        assert (step.args, step.state) in set(model.actions[step.action](before.state))
    assert not dict(model.invariants)["Exclusive"](steps[-1].state)


def test_no_symmetry_and_a_singleton_set_give_the_unreduced_counts():
    one = model_of(MUTEX.replace("{n1, n2, n3}", "{n1}"))
    assert not one.symmetry
    model = model_of(MUTEX)
    assert explore(model, Options(check_deadlock=False, symmetry=False)).distinct_states == 20


@pytest.mark.parametrize("options, reason", [
    ({"storage": Storage.EXACT}, "exact storage keeps every state"),
    ({"collect": True}, "collecting every violation explores every state"),
])
def test_searches_that_keep_every_state_say_so_and_are_not_reduced(options, reason):
    model = model_of(MUTEX)
    assert symmetry_not_applied(model, Options(**options)) == reason
    assert explore(model, Options(check_deadlock=False, **options)).distinct_states == 20


def test_temporal_properties_are_checked_on_every_state():
    model = model_of(MUTEX + "property Served: always eventually holder == none\n")
    assert "temporal properties" in symmetry_not_applied(model, Options())
    assert symmetry_not_applied(model, Options(properties=())) is None
    # and the search does explore every state (the behaviour graph is on fingerprints, not orbits)
    every = explore(model, Options(check_deadlock=False, symmetry=False, properties=()))
    for workers in (1, 2):
        r = explore(model, Options(check_deadlock=False, workers=workers))
        assert r.fingerprint_collision is not None
        assert (r.distinct_states, r.states_generated) == (every.distinct_states, every.states_generated)
    reduced = explore(model, Options(check_deadlock=False, properties=()))
    assert reduced.distinct_states < every.distinct_states


@pytest.mark.parametrize("text, message", [
    (MUTEX.replace("holder = n\n", "holder = n1\n"), "`n1` names a member of the symmetric set Node"),
    (MUTEX + "invariant First: holder != n2\n", "`n2` names a member"),
    (MUTEX.replace("var holder: Node? = none", "var holder: Node? = n3"), "`n3` names a member"),
    (MUTEX.replace("symmetric const Node: set[model] = {n1, n2, n3}",
                   "symmetric const Node: set[model] = {n1, n2, n3}\nsymmetric const K: int = 3"),
     "only a set of model values can be symmetric"),
    (MUTEX.replace("symmetric const Node: set[model] = {n1, n2, n3}",
                   "symmetric const Node: set[model] = {n1, n2, n3}\nconst Pair: set[Node] = {n1, n2}"),
     "the value of `Pair` changes when the members of the symmetric set Node are renamed"),
])
def test_what_breaks_the_symmetry_is_an_error(text, message):
    with pytest.raises(SpecError) as exc:
        model_of(text)
    d = exc.value.diagnostics[0]
    assert d.code == "E123" and message in d.message, d.message
    assert d.span is not None


def test_a_constant_the_renamings_give_back_may_name_members():
    text = MUTEX.replace("symmetric const Node: set[model] = {n1, n2, n3}",
                         "symmetric const Node: set[model] = {n1, n2, n3}\n"
                         "const Pairs: set[set[Node]] = {{n1, n2}, {n1, n3}, {n2, n3}}")
    assert model_of(text).symmetry


def test_an_order_dependent_choice_is_a_warning():
    model = model_of(MUTEX + "def first() -> Node: choose(n for n in Node)\ninvariant F: first() in Node\n")
    codes = [w.code for w in model.ir.warnings]
    assert "W212" in codes


def test_two_symmetric_sets_give_the_product_of_their_renamings():
    text = """
        symmetric const A: set[model] = {a1, a2, a3}
        symmetric const B: set[model] = {b1, b2}
        var m: map[A, B?] = {a -> none for a in A}
        action Set(a in A, b in B):
            m[a] = b
        """
    model = model_of(text)
    assert len(model.symmetry.renamings) == 3 * 2 * 2 - 1
    states = _reachable(model)
    result = explore(model, Options(check_deadlock=False))
    assert result.distinct_states == _orbits(model, states) < len(states)


def test_symmetry_keys_are_the_same_object_of_the_compile_stage():
    assert isinstance(model_of(MUTEX).symmetry, Symmetry)


# A model in the shape of the Paxos ports: messages are a set of records naming members of two
# symmetric sets, so no map keyed by a set signs its members and only their occurrences can.
VOTES = textwrap.dedent("""
    symmetric const R: set[model] = {r1, r2, r3}
    symmetric const V: set[model] = {v1, v2, v3}
    var msgs: set[{voter: R, value: V?, round: int}] = {}
    var chosen: V? = none
    var seen: map[R, int] = {r -> 0 for r in R}
    action Vote(r in R, v in V):
        require len(msgs) < 3 and seen[r] < 2
        msgs = msgs | {{voter: r, value: v, round: seen[r]}}
        seen[r] = seen[r] + 1
    action Abstain(r in R):
        require len(msgs) < 3
        msgs = msgs | {{voter: r, value: none, round: seen[r]}}
    action Choose(v in V):
        require chosen == none and len({m for m in msgs if m.value == v}) >= 2
        chosen = v
    """)


def test_the_key_is_the_orbits_when_only_occurrences_sign_the_members():
    """Signatures from occurrences (a member as a message's voter, as its value) must not
    depend on which state of an orbit is keyed: the key of every renaming of every reachable
    state is the same, and the reduced search stores one state per orbit."""
    model = model_of(VOTES)
    symmetry = model.symmetry
    assert len(symmetry.renamings) == 6 * 6 - 1
    key = symmetry.key(Fingerprinter(model.var_types))
    states = _reachable(model)
    for s in states:
        assert len({key(t) for t in symmetry.orbit(s)}) == 1
    reduced = explore(model, Options(check_deadlock=False))
    assert reduced.distinct_states == _orbits(model, states) < len(states)


def test_occurrences_and_interchangeable_members_cut_the_renamings_tried():
    """Members told apart by where they occur need one renaming, not all 3! x 3!; members that
    occur nowhere (v2, v3 before anyone votes for them) are interchangeable and keep one order."""
    model = model_of(VOTES)
    symmetry = model.symmetry
    init = next(iter(model.init()))
    # nobody occurs anywhere, every entry of `seen` is 0: the state is its own renaming
    assert symmetry.candidates(init) == ([None], 6 * 6)
    r = {n: i for i, n in enumerate(("r1", "r2", "r3"))}
    v = {n: i for i, n in enumerate(("v1", "v2", "v3"))}
    msgs = frozenset({(r["r1"], v["v1"], 0), (r["r2"], v["v1"], 0), (r["r2"], v["v2"], 1)})
    state = init[:0] + (msgs,) + init[1:2] + (((0, 1, 2), (1, 2, 0)),)
    assert state[0] == msgs and len(state) == len(init)
    # r1 voted once, r2 twice, r3 never; v1 twice, v2 once, v3 never: all told apart
    (renaming,), ties = symmetry.candidates(state)
    assert ties == 1 and renaming is not None


# ---------------------------------------------------------------- what symmetry costs and saves (issue 32, item 12)

@pytest.mark.parametrize("text", [MUTEX, VOTES], ids=["mutex", "votes"])
def test_issue_32_orbit_sizes_are_those_of_the_orbits(text):
    """orbit_size (from the signatures' ties) is the number of distinct renamings of the state;
    over one state per orbit they add up to the unreduced state count."""
    from tlacheck.engine.fingerprints import Fingerprinter

    model = model_of(text)
    symmetry = model.symmetry
    fingerprint = Fingerprinter(model.var_types)
    states = _reachable(model)
    for s in states:
        assert symmetry.orbit_size(s, fingerprint) == len(symmetry.orbit(s))
    left, total = set(states), 0
    while left:  # one state of each orbit
        s = next(iter(left))
        total += symmetry.orbit_size(s, fingerprint)
        left -= symmetry.orbit(s)
    assert total == len(states)


@pytest.mark.parametrize("workers", [1, 2])
def test_issue_32_the_result_says_how_many_states_the_orbits_stand_for(workers):
    """A complete search: one state per orbit stored, and the orbits' states are those the
    unreduced search stores; the time spent in the keys is measured."""
    model = model_of(MUTEX)
    reduced = explore(model, Options(check_deadlock=False, workers=workers))
    full = explore(model, Options(check_deadlock=False, symmetry=False))
    sym = reduced.symmetry
    assert (sym.orbits, sym.states) == (reduced.distinct_states, full.distinct_states) == (7, 20)
    assert sym.reduction == 20 / 7 and sym.keys_s > 0
    assert full.symmetry is None


def test_issue_32_stopped_at_a_violation_the_orbits_are_those_stored():
    buggy = MUTEX.replace("    waiting = waiting - {n}\n", "")
    model = model_of(buggy)
    from tlacheck.engine.fingerprints import Fingerprinter

    result = explore(model, Options(check_deadlock=False))
    assert result.verdict == Verdict.INVARIANT_VIOLATED
    sym = result.symmetry
    assert sym.orbits == result.distinct_states
    # the states stored are, up to renaming, those of the unreduced search's first levels
    assert sym.orbits < sym.states <= len(_reachable(model))
    fingerprint = Fingerprinter(model.var_types)
    assert sym.states >= sum(model.symmetry.orbit_size(s.state, fingerprint) for s in result.violation.trace.steps[:-1])


def test_issue_32_the_summary_and_json_say_what_symmetry_saved_and_cost(tmp_path, capsys):
    from tlacheck.app.cli import main
    import json

    path = tmp_path / "mutex.spec"
    path.write_text(MUTEX)
    assert main(["check", str(path), "--no-deadlock"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("symmetry"))
    assert "7 orbits stored, standing for 20 states (2.9x fewer); orbit keys " in line
    assert main(["check", str(path), "--no-deadlock", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    sym = data["symmetry"]
    assert (sym["orbits"], sym["states"], sym["reduction"]) == (7, 20, 2.86) and sym["keys_s"] >= 0
    assert 0 <= sym["keys_share"] <= 1 and isinstance(sym["pays"], bool)
    assert main(["check", str(path), "--no-deadlock", "--json", "--quiet", "--no-symmetry"]) == 0
    assert json.loads(capsys.readouterr().out)["symmetry"] is None
    assert main(["check", str(path), "--no-deadlock", "--no-symmetry"]) == 0
    assert "symmetry " not in capsys.readouterr().out


# ---------------------------------------------------------------- the key's cost (issue 35, item 3)

# Workers are not symmetric, jobs are: `clock` and `busy` hold no job, so no renaming moves them.
JOBS = textwrap.dedent("""
    symmetric const J: set[model] = {j1, j2, j3}
    enum W { w1, w2 }
    var owner: map[J, W?] = {j -> none for j in J}
    var done: set[J] = {}
    var busy: map[W, bool] = {w -> false for w in W}
    var clock: 0..3 = 0
    action Take(j in J, w in W):
        require owner[j] == none and j not in done and not busy[w]
        owner[j] = w
        busy[w] = true
    action Finish(j in J, w in W):
        require owner[j] == w
        owner[j] = none
        done = done | {j}
        busy[w] = false
    action Tick:
        require clock < 3
        clock = clock + 1
    """)


def test_issue_35_the_orbit_part_is_computed_once_per_projection_on_the_slots_renamings_move():
    """The key's costly part (the signatures, the renamings tried) depends only on the slots some
    renaming moves; states that share them, or a state keyed again, reuse it; the key is still
    the orbit's, and the reduced search stores one state per orbit."""
    model = model_of(JOBS)
    symmetry = model.symmetry
    computed = []
    candidates = symmetry.candidates
    symmetry.candidates = lambda state: computed.append(state) or candidates(state)
    key = symmetry.key(Fingerprinter(model.var_types))
    states = _reachable(model)
    moved = {(s[0], s[1]) for s in states}
    assert len(moved) < len(states)  # `busy` and `clock` vary on their own
    for s in states:
        assert len({key(t) for t in symmetry.orbit(s)}) == 1
    for s in states:
        key(s)
    assert len(computed) == len({(s[0], s[1]) for s in computed}) == len(moved)
    del symmetry.candidates
    reduced = explore(model, Options(check_deadlock=False))
    assert reduced.distinct_states == _orbits(model, states) < len(states)


def test_issue_35_keys_tell_states_apart_by_the_slots_no_renaming_moves():
    model = model_of(JOBS)
    key = model.symmetry.key(Fingerprinter(model.var_types))
    init = next(iter(model.init()))
    later = init[:3] + (2,)
    assert key(init) != key(later)


def test_issue_35_a_symmetric_set_no_variable_holds_keys_by_the_fingerprint():
    model = model_of("symmetric const S: set[model] = {s1, s2}\nvar x: 0..2 = 0\n"
                     "action Up(s in S):\n    require x < 2\n    x = x + 1\n")
    fingerprint = Fingerprinter(model.var_types)
    key = model.symmetry.key(fingerprint)
    assert all(key(s) == fingerprint(s) for s in _reachable(model))
    assert explore(model, Options(check_deadlock=False)).distinct_states == 3


def test_issue_35_what_the_keys_cost_against_what_the_reduction_saves():
    """The keys' share of the search's time (its processes' together), and whether the reduction
    probably paid: without it, the time left outside the keys is spent on `reduction` times as
    many states."""
    from tlacheck.core.result import SymmetryStats

    halved = SymmetryStats(orbits=100, states=200, keys_s=1.0)  # 2x fewer states
    assert halved.keys_share(4.0) == 0.25 and halved.pays(4.0)  # 2 x 0.75 > 1
    assert halved.keys_share(2.0) == 0.5 and not halved.pays(2.0)  # 2 x 0.5: no gain
    assert not halved.pays(1.5)
    two = SymmetryStats(orbits=100, states=200, keys_s=1.0, processes=2)  # keys summed over 2 workers
    assert two.keys_share(2.0) == 0.25 and two.pays(2.0)
    assert SymmetryStats(100, 110, 0.5).keys_share(0.1) == 1.0  # capped
    assert not SymmetryStats(100, 100, 0.0).pays(1.0)  # nothing removed, nothing saved


def _summary(stats, elapsed: float, generated: int) -> str:
    from tlacheck.core.result import Result
    from tlacheck.output.report import format_summary

    model = model_of(MUTEX)
    result = Result(Verdict.OK, stats.orbits, generated, 5, elapsed, symmetry=stats)
    return format_summary(model, result)


def test_issue_35_the_summary_says_the_keys_cost_per_successor_and_share():
    from tlacheck.core.result import SymmetryStats

    text = _summary(SymmetryStats(orbits=1_000, states=5_000, keys_s=0.5), elapsed=2.0, generated=100_000)
    line = next(x for x in text.splitlines() if x.strip().startswith("symmetry"))
    assert line.endswith("1,000 orbits stored, standing for 5,000 states (5.0x fewer); orbit keys 0.50 s "
                         "(5.0 us a successor, 25% of the time)")
    assert "hint" not in text


def test_issue_35_the_summary_hints_when_symmetry_probably_costs_more_than_it_saves():
    from tlacheck.core.result import SymmetryStats

    text = _summary(SymmetryStats(orbits=1_000, states=1_200, keys_s=0.8), elapsed=2.0, generated=40_000)
    lines = text.splitlines()
    at = next(i for i, x in enumerate(lines) if x.strip().startswith("symmetry"))
    assert "(20.0 us a successor, 40% of the time)" in lines[at]
    assert lines[at + 1] == ("  = hint: symmetry probably cost more time than it saved: 1.2x fewer states, but the "
                             "orbit keys took 40% of the time; compare a run with --no-symmetry "
                             "(docs/language.md, \"When symmetry pays\")")


def test_issue_35_a_sets_elements_are_hashed_apart_from_the_slots_values():
    """Orbit keys hash a set as the XOR of its elements' hashes (fingerprints._ElementMemo): the
    same in every process, personalised apart from the slot's own hashes, and the key is still
    the orbit's on a model whose messages are a set of records (VOTES)."""
    model = model_of(VOTES)
    a, b = Fingerprinter(model.var_types), Fingerprinter(model.var_types)
    message = (0, 1, 0)
    assert a.elements[0][message] == b.elements[0][message] != a.memos[0][frozenset({message})]
    assert a.elements[1] is None  # `chosen` is not a set
    key = model.symmetry.key(a)
    for s in _reachable(model):
        assert len({key(t) for t in model.symmetry.orbit(s)}) == 1
