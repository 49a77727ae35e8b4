"""levels.py: `--workers 2` gives the same Result as one process (issue 7).

Not timing tests: these compare counts, coverage, verdicts and traces. Speed is
measured by `python -m benchmarks`.
"""

import json
import os
import re
import textwrap

import pytest

from tlacheck.app.cli import EXIT_INTERNAL, main, read_source
from tlacheck.core.result import Verdict
from tlacheck.engine import levels as parallel
from tlacheck.engine import worker
from tlacheck.engine.messages import Copy, Take, halted
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.engine.levels import Coordinator
from tlacheck.pipeline.driver import build_model
from tests.conftest import GROW, ROOT, SPECS, fail_ranges, model_of, spec_runs
from tests.fuzzing import run_cli


pytestmark = pytest.mark.skipif(not Coordinator.available(), reason="needs the fork start method")


def summary(r):
    """Everything a Result says, with errors reduced to their code, message and span (and the
    symmetry statistics to their counts: the time differs from run to run)."""
    err = r.error
    sym = r.symmetry
    return (r.verdict, r.distinct_states, r.states_generated, r.depth, r.queue_left, r.stop_reason,
            [(c.enabled, c.generated, c.distinct) for c in r.coverage], r.violation, r.witnesses,
            (err.code, err.message, err.span) if err is not None else None,
            None if sym is None else (sym.orbits, sym.states))


def assert_same(model, workers=(2,), **options):
    one = explore(model, Options(**options))
    for n in workers:
        assert summary(explore(model, Options(workers=n, **options))) == summary(one), f"{n} workers"
    return one


@pytest.mark.parametrize("spec, variant", spec_runs())
@pytest.mark.parametrize("deadlock", [True, False])
def test_two_workers_match_one_on_every_spec(spec, variant, deadlock):
    model = build_model(read_source(str(SPECS / spec)), None, variant)
    assert_same(model, check_deadlock=deadlock)


@pytest.mark.parametrize("spec, variant", spec_runs())
def test_three_workers_match_one_on_every_spec(spec, variant):
    """With three workers, a worker's candidates are looked up in two earlier workers' sets."""
    model = build_model(read_source(str(SPECS / spec)), None, variant)
    assert_same(model, workers=(3,))


def test_two_phase_with_five_resource_managers():
    model = build_model(read_source(str(SPECS / "classic" / "two_phase.spec")), {"RM": "{r1,r2,r3,r4,r5}"})
    r = assert_same(model)
    assert (r.distinct_states, r.states_generated) == (8832, 58146)


def test_maps_over_a_long_domain_match_one_process():
    """Their key tuples hash through a cached value (runtime.keys_tuple) and are pickled as plain
    tuples when states are handed over: the fingerprints must be the same in every process."""
    model = build_model(read_source(str(ROOT / "benchmarks" / "models" / "flags.spec")), {"N": "9"})
    r = assert_same(model, workers=(2, 3))
    assert (r.distinct_states, r.states_generated) == (2 ** 9 * 7, 2 ** 9 * 7 * 9 + 1)


# Each model below stops at an event in the middle of a level, where one process's partial
# counts (generated, distinct, coverage, depth, queue) must be reproduced exactly.
COUNTERS = """
    const N: int = 6
    var x: int = 0
    var y: int = 0
    action IncX(k in 1..3):
        require x + k <= N
        x = x + k
    action IncY(k in 1..2):
        require y + k <= N
        y = y + k
    """


@pytest.mark.parametrize("extra, options", [
    ("invariant Small: x + y < 7", {}),
    ("invariant Small: x * y != 8", {}),
    ("invariant Div: 12 // (5 - x - y) >= 0", {}),  # an evaluation error in an invariant
    ("constraint Div: 12 // (5 - x - y) >= 0", {}),  # ... in a constraint
    ("constraint Sum: x + y <= 5", {}),
    ("reachable Far: x == 4 and y == 3", {}),
    ("reachable Div: 12 // (5 - x - y) == 0", {}),  # ... in a reachable check
    ("", {"max_states": 20}),
    ("", {"max_states": 1}),
    ("", {"max_depth": 4}),
    ("", {"check_deadlock": True}),
])
def test_mid_level_stops_match_one_process(extra, options):
    model = model_of(textwrap.dedent(COUNTERS) + extra + "\n")
    options = {"check_deadlock": False, **options}
    assert_same(model, workers=(2, 3), **options)


@pytest.mark.parametrize("extra", [
    "constraint Div: 10 // (x - 2) > -100",
    "invariant Div: 10 // (x - 2) > -100",
    "invariant Small: x < 2",
    "reachable Div: 10 // (x - 2) > 100",
])
def test_issue_8_an_event_in_the_initial_states_matches_one_process(extra):
    """The counts were those of the shared table, still empty (0 distinct states, 0 on the queue)."""
    model = model_of(f"var x: 0..5 in {{0, 2, 3}}\naction A:\n    x = (x + 1) % 6\n{extra}\n")
    r = assert_same(model, workers=(2, 3))
    assert [s.state for s in r.violation.trace.steps] == [(2,)]


# An action whose evaluation fails (a division by zero) in the middle of a level
FAULTY_ACTION = """
    var x: int = 0
    var y: int = 0
    action A(k in 1..2):
        x = x + k
    action B:
        require x > 3
        y = 10 // (x - 5)
    """


def test_evaluation_error_in_an_action_matches_one_process():
    model = model_of(FAULTY_ACTION)
    r = assert_same(model, check_deadlock=False)
    assert r.error.code == "E407"


def test_constraint_successors_and_deadlock_match_one_process():
    model = model_of("""
        const K: set[model] = {k1, k2, k3}
        var held: set[K] = {}
        var log: seq[K] = []
        action Take(k in K):
            require k not in held
            held = held | {k}
            log = append(log, k)
        action Drop(k in held):
            held = held - {k}
        constraint Short: len(log) <= 4
        """)
    r = assert_same(model)
    assert r.states_generated > r.distinct_states


def test_more_workers_than_states():
    model = model_of("var x: int = 0\naction A:\n    require x < 2\n    x = x + 1\n")
    one = explore(model, Options(check_deadlock=False))
    assert summary(explore(model, Options(workers=4, check_deadlock=False))) == summary(one)


def test_exact_storage_and_temporal_properties_run_in_one_process():
    model = build_model(read_source(str(SPECS / "classic" / "two_phase.spec")))
    r = explore(model, Options(workers=2, storage=Storage.EXACT))
    assert r.fingerprint_collision is None and r.distinct_states == 288


def test_workers_option_on_the_command_line(capsys):
    spec = str(SPECS / "classic" / "diehard.spec")
    assert main(["check", spec, "--workers", "2", "--quiet"]) == 12
    two = capsys.readouterr().out
    assert main(["check", spec, "--quiet"]) == 12
    one = capsys.readouterr().out
    strip = lambda text: re.sub(r"time .*\n", "", text)  # noqa: E731
    assert strip(two) == strip(one)


def test_states_are_shared_out_evenly_without_changing_the_result(monkeypatch):
    """Each level is split into equal contiguous ranges. The three ways a worker gets a state of
    its range that another worker numbered (it found the state too; an earlier worker hands it
    over; a later worker hands it over) all occur on these specs, with the same Results."""
    seen = {"copy": 0, "copy handed": 0, "take": 0}
    holdings = parallel.Coordinator._holdings

    def spy(self, own, masks, fps, has):
        result = holdings(self, own, masks, fps, has)
        for t, holding in enumerate(result):
            for segment in holding.segments:
                if isinstance(segment, Copy):
                    seen["copy"] += 1
                    seen["copy handed"] += t in result[segment.worker].send
                elif isinstance(segment, Take):
                    seen["take"] += 1
                    assert t in result[segment.worker].send
        return result

    monkeypatch.setattr(parallel.Coordinator, "_holdings", spy)
    for spec in ["classic/two_phase.spec", "classic/prisoners.spec", "classic/alternating_bit.spec"]:
        assert_same(build_model(read_source(str(SPECS / spec))), workers=(2, 3, 4))
    assert all(seen.values()), seen


def test_the_shared_table_grows(monkeypatch):
    """The fingerprint table starts small here, so it grows (and is handed to the workers) many
    times."""
    from tlacheck.engine import fingerprints

    monkeypatch.setattr(fingerprints, "MIN_SLOTS", 1 << 4)
    model = build_model(read_source(str(SPECS / "classic" / "two_phase.spec")), {"RM": "{r1,r2,r3,r4}"})
    assert_same(model, workers=(2, 3))


def test_the_workers_pools_are_reviewed_between_states(monkeypatch):
    """A worker interns the values an action writes (pools.ValuePools). Here every state is a
    review, and windows and bounds are tiny, so pools are emptied and given up (the counter's
    values never repeat) in the middle of a level: the results stay those of one process."""
    from tlacheck.engine import pools as pools

    monkeypatch.setattr(worker, "HALT_EVERY", 0)
    monkeypatch.setattr(pools, "POOL_WINDOW", 4)
    monkeypatch.setattr(pools, "POOL_LIMIT", 8)
    dropped = []
    review = pools.ValuePools.review

    def spy(self, stored):
        changed = review(self, stored)
        dropped.append(changed)
        return changed

    monkeypatch.setattr(pools.ValuePools, "review", spy)
    text = ("var n: int = 0\nvar log: seq[0..3] = []\nvar seen: set[0..3] = {}\n"
            "action Step(k in 0..3):\n    require n < 6\n    n = n + 1\n    log = log + [k]\n"
            "    seen = seen | {k}\n")
    assert_same(model_of(text), workers=(2, 3), check_deadlock=False)
    two_phase = build_model(read_source(str(SPECS / "classic/two_phase.spec")), None, "base")
    assert_same(two_phase, workers=(2,))
    assert any(dropped), "no pool was given up"


def test_progress_with_workers_counts_the_expansion_in_flight(monkeypatch):
    """Progress lines come while the workers expand, with what they found so far (from their
    shared counters, updated every state here): counts that only grow, up to the final ones."""
    monkeypatch.setattr(worker, "HALT_EVERY", 0)
    monkeypatch.setattr(parallel, "_WATCH_S", 0.0)
    lines = []
    model = model_of(SLOW_GRID)  # slow guards: many readings in every level
    r = explore(model, Options(workers=2, check_deadlock=False), progress=lines.append, progress_every=0.0)
    assert r.distinct_states == explore(model, Options(check_deadlock=False)).distinct_states
    # level by level alone, the counts would change at most twice a level
    assert len({p.generated for p in lines}) > 3 * (r.depth + 1), "no progress while the workers expanded"
    for a, b in zip(lines, lines[1:]):
        assert a.generated <= b.generated and a.distinct <= b.distinct
    assert lines[-1].generated <= r.states_generated


def test_a_failing_worker_is_reported_in_one_line(monkeypatch, capsys):
    def boom(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(worker.Worker, "_expand", boom)  # the workers are forked: they inherit it
    model = model_of(COUNTERS)
    with pytest.raises(parallel.WorkerError, match=r"^worker process \d failed: RuntimeError: boom$") as info:
        explore(model, Options(workers=2))
    assert "Traceback" in info.value.details
    spec = str(SPECS / "classic" / "diehard.spec")
    assert main(["check", spec, "--workers", "2", "--quiet"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "internal error: WorkerError: worker process" in err and "Traceback" not in err


def test_a_worker_that_dies_is_reported(monkeypatch):
    import os

    monkeypatch.setattr(worker.Worker, "_lookup", lambda self, others: os._exit(3))
    model = model_of(COUNTERS)
    with pytest.raises(parallel.WorkerError, match=r"worker process \d stopped unexpectedly \(exit code 3\)"):
        explore(model, Options(workers=2, check_deadlock=False))


SLOW_GRID = """
    var x: int = 0
    var y: int = 0
    var z: int = 0
    action IncX:
        require x < 12 and len([j + x for j in 1..3000]) > 0
        x = x + 1
    action IncY:
        require y < 12 and len([j + y for j in 1..3000]) > 0
        y = y + 1
    action IncZ:
        require z < 12 and len([j + z for j in 1..3000]) > 0
        z = z + 1
    """


def test_a_limit_reached_while_the_workers_expand_stops_at_the_level_boundary(monkeypatch):
    """The coordinator watches the limits while the workers expand; when one is reached they
    drop the level. The Result is then that of a search stopped by --max-depth before it."""
    monkeypatch.setattr(parallel, "_WATCH_S", 0.001)
    monkeypatch.setattr(worker, "HALT_EVERY", 0)  # the workers look at every state
    watching = {"queue": 0}
    replies = parallel.Coordinator._replies
    dropped = []

    def spy(self, queue, *rest):
        watching["queue"] = queue
        try:
            answers = replies(self, queue, *rest)
        finally:
            watching["queue"] = 0
        dropped.append(any(expansion is None for expansion in answers))
        return answers

    class StopDuringABigLevel:  # Options.stop: set once a large level is being expanded
        def is_set(self):
            return watching["queue"] >= 60

    monkeypatch.setattr(parallel.Coordinator, "_replies", spy)
    model = model_of(SLOW_GRID)
    r = explore(model, Options(workers=2, check_deadlock=False, stop=StopDuringABigLevel()))
    assert any(dropped), "no worker dropped its level"
    assert (r.verdict, r.stop_reason) == (Verdict.INCOMPLETE, "interrupted")
    one = explore(model, Options(check_deadlock=False, max_depth=r.depth))
    assert summary(r)[:5] + summary(r)[6:] == summary(one)[:5] + summary(one)[6:]


def test_an_event_before_the_halted_workers_is_reported_as_one_process_does(monkeypatch):
    """A limit halts worker 1 in the level where worker 0, which expanded all its states, found
    the first violation: everything before it in key order was explored, so the violation is
    reported, as one process that got that far reports it (it used to be dropped: incomplete)."""
    import os
    import time

    text = ("var x: 0..9 = 0\nvar y: 0..9 = 0\naction A:\n    require x < 9\n    x = x + 1\n"
            "action B:\n    require y < 9\n    y = y + 1\ninvariant Small: x < 5\n")
    watching = {"queue": 0}
    replies = parallel.Coordinator._replies

    def spy(self, queue, *rest):
        watching["queue"] = queue
        try:
            return replies(self, queue, *rest)
        finally:
            watching["queue"] = 0

    class StopInTheBigLevel:  # the level of the states with x + y == 4 holds five
        def is_set(self):
            return watching["queue"] >= 5

    expand = worker.Worker._expand

    def worker_1_waits_for_the_halt(self):
        parent = os.getppid()
        with open(f"/proc/{parent}/task/{parent}/children") as fh:
            if os.getpid() != min(map(int, fh.read().split())):  # forked second: worker 1
                deadline = time.monotonic() + 0.2
                while self.frontier and time.monotonic() < deadline:
                    if self.halt[0]:
                        self.frontier = []
                        return halted("halted", len(self.successors)), None
                    time.sleep(0.001)
        return expand(self)

    monkeypatch.setattr(parallel, "_WATCH_S", 0.001)
    monkeypatch.setattr(parallel.Coordinator, "_replies", spy)
    monkeypatch.setattr(worker.Worker, "_expand", worker_1_waits_for_the_halt)
    model = model_of(text)
    r = explore(model, Options(workers=2, stop=StopInTheBigLevel()))
    one = explore(model, Options())
    assert r.verdict == one.verdict == Verdict.INVARIANT_VIOLATED
    assert summary(r) == summary(one)


@pytest.mark.parametrize("shares", [(0.85, 0.15), (0.1, 0.9), (0.2, 0.2, 0.6)])
def test_uneven_shares_give_the_same_result(monkeypatch, shares):
    """The shares follow the workers' measured speed; whatever they are, the Result is the same."""
    holdings = parallel.Coordinator._holdings

    def fixed(self, *args):
        if self.workers == len(shares):  # not the one-process run it is compared with
            self.shares = list(shares)
        return holdings(self, *args)

    monkeypatch.setattr(parallel.Coordinator, "_holdings", fixed)
    for spec in ["classic/two_phase.spec", "classic/prisoners.spec", "classic/missionaries.spec"]:
        assert_same(build_model(read_source(str(SPECS / spec))), workers=(len(shares),))


# ---------------------------------------------------------------- out of memory, recursion (issue 8)

GROWING = "var n: int = 1\naction Grow:\n    n = (if n < 1000000000 then n * 1000 else n)\n"
OUT_OF_MEMORY = {
    "action": GROW,
    "invariant": GROWING + "invariant Inv: len(0..n) > 0\n",
    "constraint": GROWING + "constraint Bound: len(0..n) > 0\n",
    "reachable": GROWING + "reachable Far: len(0..n) == 0\n",
}


@pytest.mark.parametrize("text", [*OUT_OF_MEMORY.values(),
                                  "def size(k: int) -> int: len(0..k)\n" + GROWING + "invariant Inv: size(n) > 0\n"],
                         ids=[*OUT_OF_MEMORY, "def"])
def test_issue_8_out_of_memory_in_the_spec_matches_one_process(small_ranges, text):
    """A MemoryError in a worker was `internal error: worker process 2 failed: MemoryError`."""
    r = assert_same(model_of(text), workers=(2, 3), check_deadlock=False)
    assert r.error.code == "E411" and r.violation.trace.steps


@pytest.mark.parametrize("text", OUT_OF_MEMORY.values(), ids=OUT_OF_MEMORY)
def test_issue_8_out_of_memory_only_in_a_worker_matches_one_process(monkeypatch, text):
    """A MemoryError need not recur when the coordinator evaluates the event again (it holds
    other data): the worker places it, as one process would, and the coordinator reports that."""
    everywhere = [True]
    parent = os.getpid()
    fail_ranges(monkeypatch, 1000, lambda: everywhere[0] or os.getpid() != parent)
    model = model_of(text)
    one = explore(model, Options(check_deadlock=False))
    assert one.error.code == "E411"
    everywhere[0] = False
    assert summary(explore(model, Options(workers=2, check_deadlock=False))) == summary(one)


DEEP = "def depth(n: int) -> int: depth(n + 1)\nvar x: 0..2 = 0\naction A:\n    x = (x + 1) % 3\n"


@pytest.mark.parametrize("extra", [
    "action Deep:\n    require x == 2\n    x = depth(x)\n",
    "invariant Inv: x < 2 or depth(x) > 0\n",
    "constraint C: x < 2 or depth(x) > 0\n",
    "reachable R: x == 2 and depth(x) > 0\n",
], ids=["action", "invariant", "constraint", "reachable"])
def test_issue_8_recursion_too_deep_matches_one_process(extra):
    r = assert_same(model_of(DEEP + extra), workers=(2, 3), check_deadlock=False)
    assert r.error.code == "E406" and r.error.message.startswith("recursion too deep in `depth`")


def test_issue_8_out_of_memory_outside_the_spec_in_a_worker_is_a_limit(monkeypatch, capsys):
    """As in one process: `tlacheck: out of memory`, exit 5, not an internal error."""
    def lookup(self, others):
        raise MemoryError

    monkeypatch.setattr(worker.Worker, "_lookup", lookup)
    spec = str(SPECS / "classic" / "diehard.spec")
    assert main(["check", spec, "--workers", "2", "--quiet"]) == 5
    err = capsys.readouterr().err
    assert err.startswith("tlacheck: out of memory") and "internal error" not in err
    assert main(["check", spec, "--workers", "2", "--json"]) == 5
    assert json.loads(capsys.readouterr().out)["verdict"] == "incomplete"


@pytest.mark.parametrize("text", [
    "var n: int = 1\naction Grow:\n    require len({i * 1000 + j for i in 0..n for j in 0..999}) > 0\n    n = n * 10\n",
    "var s: seq[int] = [0]\naction Double:\n    s = s + s\n",
], ids=["set", "doubling"])
def test_issue_8_real_out_of_memory_matches_one_process(tmp_path, text):
    """Really out of memory, in a forked child with 160 MiB of address space to add: the same
    error, position, trace and summary with --workers 2 as with one process."""
    (tmp_path / "x.spec").write_text(text)
    outcomes = [run_cli(["check", "x.spec", "--workers", w, "--quiet"], tmp_path, 160 << 20) for w in ("1", "2")]
    strip = lambda text: re.sub(r"time .*\n", "", text)  # noqa: E731
    one, two = ((o.code, o.stderr, strip(o.stdout)) for o in outcomes)
    assert two == one
    assert one[0] == 4 and one[1].startswith("x.spec:3:5: error[E411]: out of memory (while computing action")
