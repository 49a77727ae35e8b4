"""Issue 35, item 1: the transition cache of the actions that enumerate (compile/codegen.py,
`_Gen._cache_lookup`), keyed by what ir.access says an instance reads. The cache must change
nothing a search reports: counts, coverage, traces, errors; and it must be used."""

import os

import pytest

from tlacheck.app.cli import main
from tlacheck.core import runtime
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.ir import nodes as ir
from tests.conftest import model_of, next_states
from tests.test_corpus import ENTRIES, SUITE_LIMIT, _model


ACCESS = """
    spec access_demo

    const P: set[int] = 1..3

    var m: map[int, int] = {p -> 0 for p in P}
    var n: map[int, int] = {p -> 0 for p in P}
    var x: int = 0
    var y: int = 0

    def busy() -> int:
        sum(1 for q in P if m[q] > 0)

    action A(p in P):
        require m[p] < 2
        m[p] = m[p] + x
        y = 1

    action B(p in P, q in P):
        require n[p] == n[q]
        n[p] = 1

    action C(p in P):
        with q in P:
            m[q] = 1

    action D(p in P):
        require m[p] == 0
        m[p] = busy() % 2 + 1

    action E(p in P):
        with k in {q for q in P if n[q] == n[p]}:
            require k != p
            n[p] = n[p] + 1
            require n[p] < 3

    action F(p in P):
        with k in {q for q in P if q != p}:
            require m[p] < k
            m[p] = k
        x = (x + 1) % 3

    action G:
        with k in {q for q in P if m[q] == y}:
            y = k

    action H(p in P):
        with k in {q for q in P if q > p}:
            if m[p] == 0:
                x = k
        y = 0

    action I(p in P):
        require busy() < 2
        m[p] = 2
"""


def _access(model, name: str) -> tuple:
    """An action's read and write sets, by variable name (entries as `m[p]`)."""
    action = next(a for a in model.ir.actions if a.name == name)
    a = ir.access(action, ir.function_reads(model.ir.functions))
    var = model.var_names

    def entries(table):
        return {f"{var[s]}[{action.params[p][0].name}]" for s, p in table.items()}

    return ({var[s] for s in a.reads} | entries(a.read_entries), {var[s] for s in a.writes} | entries(a.write_entries))


def test_issue_35_read_and_write_sets_at_the_grain_of_entries():
    model = model_of(ACCESS)
    # m read and assigned only at the parameter's entry; x read whole; y written whole, not read
    assert _access(model, "A") == ({"m[p]", "x"}, {"m[p]", "y"})
    # n read at two parameters' entries: the whole variable (read, and written: it is carried over)
    assert _access(model, "B") == ({"n"}, {"n"})
    # assigned at a `with` binder's entry: the rest of m is carried over, so m is read whole
    assert _access(model, "C") == ({"m"}, {"m"})
    # a `def` reads m whole
    assert _access(model, "D") == ({"m"}, {"m"})
    # a read of n at a comprehension's variable: the whole n
    assert _access(model, "E") == ({"n"}, {"n"})
    assert _access(model, "F") == ({"m[p]", "x"}, {"m[p]", "x"})
    assert _access(model, "G") == ({"m", "y"}, {"y"})
    # x assigned on some paths only (the others keep it), y by every successor
    assert _access(model, "H") == ({"m[p]"}, {"x", "y"})
    functions = ir.function_reads(model.ir.functions)
    assert {name: {model.var_names[s] for s in ir.access(a, functions).overwrites}
            for name, a in ((a.name, a) for a in model.ir.actions)} == \
        {"A": {"y"}, "B": set(), "C": set(), "D": set(), "E": set(), "F": {"x"}, "G": set(), "H": {"y"},
         "I": set()}


def test_issue_35_only_the_actions_that_enumerate_are_cached():
    model = model_of(ACCESS)
    cached = {model.action_info[c.action].name for c in model.generated.caches}
    # A, B, C: a few reads and assignments (C's `with` is over a constant set); D calls a def that
    # sums over a comprehension, E, F, G, H choose from a comprehension; I calls the def in its
    # leading guard only, which is evaluated before the cache is looked up: the rest is one assignment
    assert cached == {"D", "E", "F", "G", "H"}
    functions = ir.function_reads(model.ir.functions)
    enumerating = ir.enumerating_functions(model.ir.functions)
    assert enumerating == {0}
    assert [ir.enumerates(a, functions, enumerating) for a in model.ir.actions] == [False] * 3 + [True] * 6
    parts = [ir.cached_part(a) for a in model.ir.actions]
    assert [len(a.body) for a in parts] == [2, 1, 1, 1, 1, 2, 1, 2, 1]
    assert [ir.enumerates(a, functions, enumerating) for a in parts] == [False] * 3 + [True] * 5 + [False]


def _reachable(model) -> set:
    """Every reachable state, breadth first, from the successor functions with the cache off."""
    model.caching(False)
    states, frontier = set(model.init()), list(model.init())
    while frontier:
        frontier = [t for s in frontier for i in range(len(model.actions)) for t in next_states(model, i, s)
                    if t not in states and not states.add(t)]
    model.caching(True)
    return states


def _explore(model, cache: bool, **options):
    return explore(model, Options(cache=cache, **options))


def _same(model, **options):
    """The search with and without the cache: the same result, field by field; returns the cached one."""
    off = _explore(model, False, **options)
    on = _explore(model, True, **options)
    assert off.cache is None
    assert (on.verdict, on.distinct_states, on.states_generated, on.depth, on.queue_left) == \
           (off.verdict, off.distinct_states, off.states_generated, off.depth, off.queue_left)
    assert on.coverage == off.coverage
    if off.violation is None:
        assert on.violation is None
    else:
        assert (on.violation.kind, on.violation.name, on.violation.message) == \
               (off.violation.kind, off.violation.name, off.violation.message)
        assert [(s.action, s.args, s.state) for s in on.violation.trace.steps] == \
               [(s.action, s.args, s.state) for s in off.violation.trace.steps]
        assert on.violation.trace.loop_index == off.violation.trace.loop_index
    assert (on.error is None) == (off.error is None)
    if off.error is not None:
        assert on.error.diagnostic().to_json() == off.error.diagnostic().to_json()
    return on


def test_issue_35_the_cache_changes_no_count_and_is_used():
    model = model_of(ACCESS)
    on = _same(model)
    assert on.verdict == Verdict.OK
    stats = {model.action_info[c.action].name: c for c in on.cache}
    assert set(stats) == {"D", "E", "F", "G", "H"}
    for c in stats.values():
        assert c.hits > 0 and c.misses > 0 and c.clears == 0
    # each key is evaluated once (no clear): F's key is (p, m[p], x), over the reachable states
    slot = {name: i for i, name in enumerate(model.var_names)}
    keys = {(p, runtime.lookup(s[slot["m"]], p, 0), s[slot["x"]]) for s in _reachable(model) for p in (1, 2, 3)}
    assert stats["F"].misses == len(keys) < stats["F"].hits


def test_issue_35_cached_successors_and_fingerprints_are_the_uncached_ones():
    """n{i} on every reachable state, twice (the second answered from the cache), against the
    cache turned off: the same successors in the same order, with the same fingerprints."""
    from tlacheck.engine.fingerprints import Fingerprinter

    model = model_of(ACCESS)
    fpr = Fingerprinter(model.var_types)
    states = _reachable(model)
    for on in (True, True, False):
        model.caching(on)
        got = [model.next_states[i](s, fpr.raw(s), fpr.memos, fpr.entries)
               for s in sorted(states) for i in range(len(model.actions))]
        if on:
            cached = got
    assert cached == got
    assert all(fp == (fpr(t)) for succs, fps in got for t, fp in zip(succs, fps))
    model.caching(True)


FAULTING = """
    spec faulting

    const P: set[int] = 1..3

    var m: map[int, int] = {p -> 0 for p in P}

    action Up(p in P):
        with k in {q for q in P if q >= m[p]}:
            require k == m[p] + 1
            m[p] = 10 // (3 - k) + k - 10 // (3 - k)
"""


def test_issue_35_a_faulting_instance_reports_the_error_of_the_uncached_search():
    """Up(p) divides by zero from m[p] = 2 (two steps of Up(p) after the initial state): by
    then instances were answered from the cache (Up(2) from m[2] = 0 again, after Up(1)), and the
    faulting one is evaluated (never cached), with the same error and trace."""
    model = model_of(FAULTING)
    on = _same(model)
    assert on.verdict == Verdict.ERROR and on.error.code == "E407"
    assert len(on.violation.trace.steps) == 3
    (stats,) = on.cache
    assert stats.hits > 0


def test_issue_35_the_behaviour_graph_sees_the_same_successors_with_arguments():
    """The w{i} form (fairness with arguments: the behaviour graph) replays the arguments too."""
    model = model_of(ACCESS + """
    fair weak F(p) for p in P
    property Cycles: always eventually x == 0
    """)
    assert model.next_states_with_args[5] is not None
    on = _same(model)  # the same verdict, lasso included
    assert on.violation is not None and on.violation.trace.loop_index is not None
    assert {model.action_info[c.action].name: c.hits for c in on.cache}["F"] > 0


def test_issue_35_no_cache_option_and_json_statistics(tmp_path, capsys):
    import json

    spec = tmp_path / "access_demo.spec"
    spec.write_text("\n".join(line[4:] for line in ACCESS.splitlines()).lstrip("\n"))
    assert main(["check", str(spec), "--json"]) == 0
    on = json.loads(capsys.readouterr().out)
    assert main(["check", str(spec), "--json", "--no-cache"]) == 0
    off = json.loads(capsys.readouterr().out)
    assert off["transition_cache"] is None
    assert set(on["transition_cache"]) == {"D", "E", "F", "G", "H"}
    assert all(c["hits"] > 0 and c["misses"] > 0 for c in on["transition_cache"].values())
    for key in ("distinct_states", "states_generated", "depth", "coverage", "verdict"):
        assert on[key] == off[key]


def _corpus():
    return [e for e in ENTRIES if (e["distinct"] or 0) <= SUITE_LIMIT // 4 or os.environ.get("TLACHECK_CORPUS") == "all"]


@pytest.mark.parametrize("entry", _corpus(), ids=lambda e: e["_file"].removesuffix(".json"))
def test_issue_35_each_port_gives_the_same_result_with_and_without_the_cache(entry):
    model = _model(entry)
    if not model.generated.caches:
        pytest.skip("no action enumerates")
    on = _same(model, check_deadlock=entry["check_deadlock"], symmetry=False)
    if entry.get("expected", "success") == "success":
        assert (on.distinct_states, on.states_generated) == (entry["distinct"], entry["generated"])


def test_issue_35_a_cache_that_does_not_pay_turns_itself_off():
    """Every state its own key (the counter is read): after runtime.CACHE_TRIAL misses and no
    hit, the cache is turned off for the rest of the search, which ends as without it."""
    model = model_of("""
        spec counter

        var x: int = 0

        action Step:
            with k in {x + d for d in 1..2}:
                require k < 10000
                x = k
    """)
    on = _same(model)
    (stats,) = on.cache
    assert on.distinct_states == 10000
    assert (stats.hits, stats.misses, stats.gave_up) == (0, runtime.CACHE_TRIAL, True)


def test_issue_35_a_parameter_the_cached_part_does_not_read_is_not_in_the_key():
    """Every car's instance of Enter does the same (it takes the head of the queue): one miss per
    state, the other instances answered from the cache."""
    model = model_of("""
        spec queue

        const Cars: set[int] = 1..4

        var waiting: seq[int] = [1, 2, 3, 4]
        var crossed: set[int] = {}

        action Enter(car in Cars):
            require len(waiting) > 0
            with c in {head(waiting)} | {d for d in crossed if false}:
                crossed = crossed | {c}
                waiting = tail(waiting)
    """)
    on = _same(model)
    (stats,) = on.cache
    assert stats.misses == 4 and stats.hits == 3 * 4


def test_issue_35_the_summary_says_what_each_cache_answered(tmp_path, capsys):
    """The text summary has a `transition cache` row (per cached action, the share of its
    instances answered from it, computed from the counts that --json gives), none with
    --no-cache; a cache that turned itself off says so."""
    import json
    import re

    spec = tmp_path / "access_demo.spec"
    spec.write_text("\n".join(line[4:] for line in ACCESS.splitlines()).lstrip("\n"))
    assert main(["check", str(spec)]) == 0
    text = capsys.readouterr().out
    assert main(["check", str(spec), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)["transition_cache"]
    (row,) = [line for line in text.splitlines() if line.startswith("  transition cache")]
    said = dict(re.findall(r"(\w+): ([\d.]+)% of [\d,]+ instances answered from it", row))
    assert set(said) == set(counts)
    for name, c in counts.items():
        assert abs(float(said[name]) - 100 * c["hits"] / (c["hits"] + c["misses"])) < 0.051
        assert f"{c['hits'] + c['misses']:,} instances" in row
    assert main(["check", str(spec), "--no-cache"]) == 0
    assert "transition cache" not in capsys.readouterr().out

    counter = tmp_path / "counter.spec"
    counter.write_text("spec counter\n\nvar x: int = 0\n\naction Step:\n    with k in {x + d for d in 1..2}:\n"
                       "        require k < 10000\n        x = k\n")
    assert main(["check", str(counter), "--no-deadlock"]) == 0
    assert "Step: 0.0% of 4,096 instances answered from it, then turned off (too few hits)" in capsys.readouterr().out


def test_issue_35_forked_workers_counts_are_gathered_and_summed(tmp_path, capsys):
    """--workers 2: each worker's caches' counts are summed (`transition_cache` and the summary's
    row as with one process). Every state is expanded once, by one process, so the instances
    that reached a cache (hits + misses) are one process's; which of them hit depends on which
    worker expanded which state (each has its own cache)."""
    import json

    spec = tmp_path / "access_demo.spec"
    spec.write_text("\n".join(line[4:] for line in ACCESS.splitlines()).lstrip("\n"))
    runs = {}
    for workers in ("1", "2"):
        assert main(["check", str(spec), "--json", "--quiet", "--workers", workers]) == 0
        runs[workers] = json.loads(capsys.readouterr().out)["transition_cache"]
    one, two = runs["1"], runs["2"]
    assert two is not None and set(two) == set(one) == {"D", "E", "F", "G", "H"}
    for name in one:
        assert not one[name]["gave_up"] and not two[name]["gave_up"]
        assert two[name]["hits"] + two[name]["misses"] == one[name]["hits"] + one[name]["misses"], name
        # no clears: one process misses each key once (or each time, a key never remembered), and
        # the two processes between them meet every key
        assert one[name]["clears"] == 0 and two[name]["misses"] >= one[name]["misses"]
    assert main(["check", str(spec), "--workers", "2"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "transition cache" in line]
    assert len(rows) == 1 and "D: " in rows[0] and "instances answered from it" in rows[0]


def test_issue_35_summed_cache_counts_add_up_and_say_a_cache_turned_off_anywhere():
    from tlacheck.engine.search import summed_cache_counts

    first = {0: (5, 2, 0, False), 3: (0, 4096, 0, True)}
    second = {0: (1, 3, 1, False), 3: (7, 10, 0, False)}
    assert summed_cache_counts([first, second]) == {0: (6, 5, 1, False), 3: (7, 4106, 0, True)}
    assert summed_cache_counts([first]) == first and summed_cache_counts([]) == {}
