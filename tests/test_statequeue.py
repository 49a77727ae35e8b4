"""The search's queue (engine/statequeue.py): states held encoded, in segments, spilled to disk
beyond --memory-budget (issue 35, item 2). The search gives the same Result, traces and JSON with
and without spill, and leaves no file behind, also when it ends on an error."""

import json
import os
from array import array
import tempfile
from dataclasses import replace

import pytest

from tlacheck.core.result import Verdict
from tlacheck.core.runtime import NONE, keys_tuple
from tlacheck.core.source import Source
from tlacheck.engine import statequeue
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.engine.fingerprints import FingerprintTable, SortedRun
from tlacheck.engine.statequeue import SEGMENT, Spill, StateQueue
from tlacheck.output.report import result_json
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS, model_of
from tests.oracle.generate import generate
from tlacheck.app.cli import read_source


def _states(n: int) -> list[tuple]:
    """n distinct states of five variables of assorted kinds (ints, bools, none, sets, maps,
    tuples), some values shared between states and some not."""
    keys = keys_tuple(tuple(range(10)))  # a map's interned keys (a tuple subclass)
    return [(i, i % 3 == 0, NONE if i % 2 else i % 5, frozenset({i % 4, 7}), (keys, tuple(range(i % 2, i % 2 + 10))))
            for i in range(n)]


# ---------------------------------------------------------------- the class

@pytest.mark.parametrize("encode_from", [0, 128, None])
def test_issue_35_a_queue_gives_back_its_states_in_order_and_by_position(encode_from):
    states = _states(300)
    queue = StateQueue(5, segment=64, encode_from=encode_from)
    queue.extend(states)
    assert len(queue) == 300
    assert [queue[i] for i in range(300)] == states
    assert len(queue.segments) == 4  # 4 sealed segments of 64, the open one holds the rest
    assert list(queue.drain()) == states
    assert len(queue) == 0 and queue.segments == []


def test_issue_35_a_queue_in_memory_gives_back_the_same_objects():
    shared = frozenset(range(50))
    states = [(i % 3, shared) for i in range(10)]
    queue = StateQueue(2, segment=4, encode_from=0)
    queue.extend(states)
    drained = list(queue.drain())
    assert drained == states
    assert all(s[1] is shared for s in drained)
    assert all(type(x) is type(y) for s, t in zip(drained, states) for x, y in zip(s, t))


def test_issue_35_a_segment_numbers_up_to_2_16_distinct_values_per_variable():
    queue = StateQueue(2, segment=1 << 16, encode_from=0)
    states = [(i, -i) for i in range((1 << 16) + 3)]
    queue.extend(states)
    assert len(queue.segments) == 1 and queue.segments[0].count == 1 << 16
    assert queue[(1 << 16) - 1] == states[(1 << 16) - 1]
    assert list(queue.drain()) == states
    assert SEGMENT <= 1 << 16


@pytest.mark.parametrize("encode_from", [0, None])
def test_issue_35_states_without_variables_are_counted(encode_from):
    queue = StateQueue(0, segment=2, encode_from=encode_from)
    queue.extend([()] * 5)
    assert len(queue) == 5 and queue[4] == ()
    assert list(queue.drain()) == [()] * 5


def test_issue_35_cost_a_small_queue_without_budget_keeps_its_states_as_they_came():
    # Encoding costs time a level of a few thousand states never wins back in memory worth having:
    # the first ENCODE_FROM states of a queue without budget stay the tuples appended.
    states = _states(300)
    queue = StateQueue(5, segment=64)
    queue.extend(states)
    assert queue.encode_from == statequeue.ENCODE_FROM > 300
    assert all(queue[i] is states[i] for i in range(300))
    assert queue.spill.held == 0  # nothing encoded to count
    drained = list(queue.drain())
    assert all(d is s for d, s in zip(drained, states)) and len(drained) == 300
    assert len(queue) == 0 and queue.segments == []


def test_issue_35_cost_beyond_its_first_states_or_with_a_budget_a_queue_encodes():
    states = _states(300)
    queue = StateQueue(5, segment=64, encode_from=128)
    queue.extend(states)
    queue.seal()
    # the first two segments (128 states) as they came, the three after them encoded
    assert [s.states is not None for s in queue.segments] == [True, True, False, False, False]
    assert queue.spill.held == sum(s.size for s in queue.segments) > 0
    drained = list(queue.drain())
    assert drained == states
    assert all(d is s for d, s in zip(drained[:128], states)) and not any(
        d is s for d, s in zip(drained[128:], states))
    assert queue.spill.held == 0
    budgeted = StateQueue(5, Spill(budget=1 << 30), segment=64)
    budgeted.extend(states)
    assert budgeted.encode_from == 0 and all(s.states is None for s in budgeted.segments)


def test_issue_35_cost_a_drain_stopped_early_or_a_clear_frees_the_segments_kept_as_they_came():
    queue = StateQueue(5, segment=10, encode_from=30)
    queue.extend(_states(100))
    segments = list(queue.segments)
    drain = queue.drain()
    assert next(drain) == _states(1)[0]
    del drain
    assert all(s.states is None and s.codes is None for s in segments)
    queue.extend(_states(25))
    segments = list(queue.segments)
    queue.clear()
    assert len(queue) == 0 and all(s.states is None for s in segments)


def test_issue_35_beyond_the_budget_segments_go_to_disk_and_come_back_restored(tmp_path):
    spill = Spill(budget=0, root=str(tmp_path))
    restored = []

    def restore(state):
        restored.append(state)
        return state

    states = _states(200)
    queue = StateQueue(5, spill, restore, segment=50)
    queue.extend(states)
    queue.seal()
    assert spill.written == 4 and spill.held == 0
    assert len(os.listdir(spill.dir)) == 4
    assert queue[120] == states[120]  # read back, and kept for the next look-up
    assert list(queue.drain()) == states
    assert restored[-200:] == states  # every state read from disk went through `restore`
    assert os.listdir(spill.dir) == []  # each file removed once read
    spill.close()
    assert os.listdir(tmp_path) == []


def test_issue_35_under_the_budget_segments_stay_in_memory_and_are_counted(tmp_path):
    spill = Spill(budget=1 << 30, root=str(tmp_path))
    queue = StateQueue(5, spill, segment=50)
    queue.extend(_states(120))
    queue.seal()
    assert spill.written == 0 and spill.dir is None
    assert spill.held == sum(s.size for s in queue.segments) > 0
    list(queue.drain())
    assert spill.held == 0


def test_issue_35_a_drain_stopped_early_or_a_clear_frees_every_segment(tmp_path):
    spill = Spill(budget=0, root=str(tmp_path))
    queue = StateQueue(5, spill, segment=10)
    queue.extend(_states(100))
    drain = queue.drain()
    assert next(drain) == _states(1)[0]
    del drain  # a level stopped at an event
    assert os.listdir(spill.dir) == []
    queue.extend(_states(30))
    queue.seal()
    assert len(os.listdir(spill.dir)) == 3
    queue.clear()
    assert os.listdir(spill.dir) == [] and len(queue) == 0
    spill.close()


def test_issue_35_a_spill_over_budget_is_decided_on_what_it_holds():
    spill = Spill(budget=100)
    assert not spill.over(100)
    spill.held = 60
    assert spill.over(41) and not spill.over(40)
    assert not Spill().over(1 << 60)  # no budget: never


def test_issue_35_a_sorted_run_holds_what_it_merged_and_nothing_else(tmp_path):
    import random

    rng = random.Random(35)
    fps = list({rng.randrange(-(1 << 63), 1 << 63) for _ in range(5000)})[:4500]
    run = SortedRun(str(tmp_path))
    assert 7 not in run and len(run) == 0
    run.merge(fps[:1200])
    run.merge(fps[1200:1201])
    run.merge(fps[1201:4000])
    assert len(run) == 4000 and len(os.listdir(tmp_path)) == 1  # each merge replaces the file
    assert all(fp in run for fp in fps[:4000])
    assert not any(fp in run for fp in fps[4000:])  # (distinct: a set)
    assert min(fps[:4000]) in run and max(fps[:4000]) in run
    run.close()
    assert os.listdir(tmp_path) == []


def test_issue_35_a_merge_sorts_its_fingerprints_in_chunks_and_keeps_the_file_in_order(tmp_path, monkeypatch):
    import random

    from tlacheck.engine import fingerprints

    monkeypatch.setattr(fingerprints, "_SORT_CHUNK", 100)  # several chunks per merge
    rng = random.Random(135)
    fps = list({rng.randrange(-(1 << 63), 1 << 63) for _ in range(3000)})
    run = SortedRun(str(tmp_path))
    run.merge(array("q", fps[:1234]))
    run.merge(array("q", fps[1234:2500]))
    stored = list(run._stored())
    assert stored == sorted(fps[:2500])  # one sorted run of exactly what was merged
    assert all(fp in run for fp in fps[:2500]) and not any(fp in run for fp in fps[2500:])
    run.close()


@pytest.mark.parametrize("at_a_time", [1 << 20, 100])
def test_issue_35_a_cleared_table_is_empty(at_a_time, monkeypatch):
    from tlacheck.engine import fingerprints

    monkeypatch.setattr(fingerprints, "_CLEAR", at_a_time)  # (100: zeroed in 11 slices)
    table = FingerprintTable(1 << 10)
    table.insert([5, 1029, -3, 1023])
    table.clear()
    assert len(table) == 0 and not any(table.table) and 1023 not in table and table.room(512)
    assert table.add(1029) and 1029 in table


def test_issue_35_a_merge_keeps_a_fingerprint_once(tmp_path):
    """A one-process search puts a candidate into its table before it looks it up in the run
    (Worker.direct): a merge may bring fingerprints the run holds already."""
    run = SortedRun(str(tmp_path))
    run.merge(array("q", [9, -4, 300, 7]))
    run.merge(array("q", [300, 8, -4, 1 << 62]))
    assert list(run._stored()) == [-4, 7, 8, 9, 300, 1 << 62] and len(run) == 6
    run.close()


# ---------------------------------------------------------------- the search, with and without spill

def _json(model, options: Options, path: str) -> dict:
    data = result_json(model, explore(model, options), path)
    data.pop("elapsed_s")
    return data


@pytest.fixture
def spills(tmp_path, monkeypatch):
    """The spills' temporary directories go under tmp_path/tmp; the segments written are
    counted in tmp_path/written, one line each (forked workers too)."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    log = tmp_path / "written"
    real = Spill.write

    def write(self, data):
        with open(log, "a") as fh:
            fh.write("segment\n")
        return real(self, data)

    monkeypatch.setattr(Spill, "write", write)
    merge = SortedRun.merge

    def merged(self, fps):
        with open(tmp_path / "merged", "a") as fh:
            fh.write(f"{len(fps)}\n")
        return merge(self, fps)

    monkeypatch.setattr(SortedRun, "merge", merged)
    return root, log


def _written(log) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


PORTS = ["classic/diehard.spec", "classic/two_phase.spec", "corpus/mc_internal_memory.spec",
         "corpus/voucher_cancel.spec", "corpus/mc_tcp.spec"]


def _but_caches(data: dict) -> dict:
    """The JSON but the transition caches' counts, which depend on the processes that searched
    (each has its caches: which states a worker expands decides its hits)."""
    return {k: v for k, v in data.items() if k != "transition_cache"}


@pytest.mark.parametrize("port", PORTS)
@pytest.mark.parametrize("workers", [1, 2])
def test_issue_35_spilling_the_queue_gives_the_same_json_on_the_corpus_ports(port, workers, spills):
    root, log = spills
    model = build_model(read_source(str(SPECS / port)))
    # (a time limit: a worker that missed the spilled fingerprints would find old states again forever)
    plain = _json(model, Options(time_limit=120), port)  # one process, no budget
    spilled = _json(model, Options(workers=workers, memory_budget_mb=0, time_limit=120), port)
    assert _but_caches(spilled) == _but_caches(plain)
    if workers == 1:
        assert spilled == plain
    assert _written(log) >= plain["depth"] - 1  # every level but the last (empty) one went to disk
    merged = log.parent / "merged"
    if plain["distinct_states"] > 1024:  # the table's fingerprints went to disk too (forked workers too)
        assert merged.exists() and sum(map(int, merged.read_text().split())) >= 512
    assert os.listdir(root) == []  # every file and directory removed after the run


def generated_model(seed: int):
    """The oracle's generated spec of `seed` and its model; the test is skipped for the generator's
    rare spec that does not build (the oracle's business: tests/test_oracle.py)."""
    g = generate(seed)
    try:
        return g, build_model(Source(f"oracle_{seed}.spec", g.text))
    except Exception:
        pytest.skip("the generator's spec does not build")


@pytest.mark.parametrize("seed", range(1, 41))
def test_issue_35_spilling_the_queue_gives_the_same_json_on_generated_specs(seed, spills):
    root, _ = spills
    g, model = generated_model(seed)
    base = Options(check_deadlock=g.check_deadlock, max_states=20_000, time_limit=60)
    plain = _json(model, base, "g.spec")  # one process, no budget
    for workers, budget in ((1, 0), (2, None), (2, 0)):
        data = _json(model, replace(base, workers=workers, memory_budget_mb=budget), "g.spec")
        assert _but_caches(data) == _but_caches(plain), (workers, budget, g.text)
    assert os.listdir(root) == []


def test_issue_35_spilled_segments_are_removed_when_the_search_ends_on_an_error(spills):
    root, log = spills
    model = model_of("""
        var x: int = 0
        var y: int = 0
        action Up:
            require x < 30
            x = x + 1
        action Side:
            require y < 30
            y = y + 1
        action Boom:
            require x == 20
            y = 1 // (x - 20)
        """)
    for workers in (1, 2):
        result = explore(model, Options(workers=workers, memory_budget_mb=0))
        assert result.verdict == Verdict.ERROR and result.error.code == "E407"
        assert os.listdir(root) == []
    assert _written(log) > 0


_GRID = """
    var x: int = 0
    var y: int = 0
    var z: int = 0
    action X:
        x = (x + 1) % 16
    action Y:
        y = (y + 1) % 16
    action Z:
        z = (z + 1) % 16
    invariant Far: not (x == 14 and y == 13 and z == 12)
    """


@pytest.mark.parametrize("limit", [{}, {"max_states": 3000}, {"max_depth": 30}])
def test_issue_35_forked_workers_look_the_spilled_table_up_to_a_violation_or_a_stop(limit, spills):
    """--workers 2 with a table of 1,024 slots (4,096 states, and from depth 16 on successors that
    wrap around to states of early levels, now on disk): the table spills to the sorted file, the
    workers look it up, and the counterexample, the counts and the stops are one process's."""
    root, _ = spills
    model = model_of(_GRID)
    plain = _json(model, Options(time_limit=120, **limit), "grid.spec")
    spilled = _json(model, Options(workers=2, memory_budget_mb=0, time_limit=120, **limit), "grid.spec")
    assert _but_caches(spilled) == _but_caches(plain)
    assert plain["verdict"] == ("invariant_violated" if not limit else "incomplete")
    merged = root.parent / "merged"
    assert merged.exists() and sum(map(int, merged.read_text().split())) >= 512
    assert os.listdir(root) == []  # the file the workers read too: removed


def test_issue_35_one_process_puts_its_candidates_into_the_table_and_grows_it_within_a_level(monkeypatch):
    """The in-process worker puts each candidate into the table as it finds it (Worker.direct;
    forked workers keep a level's candidates in a set). From a table of 16 slots it asks for room
    in the middle of levels (Coordinator._room, the table half full), and the JSON is the same as
    with two forked workers and as with the usual table, on the grid (a violation) and on the
    corpus ports (their whole state spaces)."""
    from tlacheck.engine import fingerprints, levels

    rooms = []
    real = levels.Coordinator._room
    monkeypatch.setattr(levels.Coordinator, "_room", lambda self: rooms.append(self.table.count) or real(self))
    for name, model in [("grid.spec", model_of(_GRID))] + [(p, build_model(read_source(str(SPECS / p))))
                                                          for p in PORTS]:
        usual = _json(model, Options(time_limit=120), name)
        assert not rooms or name != "grid.spec"  # (65,536 slots: room for the grid's 4,096 states)
        with monkeypatch.context() as small:
            small.setattr(fingerprints, "MIN_SLOTS", 16)
            rooms.clear()
            direct = _json(model, Options(time_limit=120), name)
            forked = _json(model, Options(workers=2, time_limit=120), name)
        assert direct == usual, name
        assert _but_caches(forked) == _but_caches(usual), name
        assert rooms and all(r & (r - 1) == 0 for r in rooms), name  # each time half full (a power of 2)


_BIG_GRID = _GRID.replace("% 16", "% 20")  # 8,000 states, the violation at depth 51


def test_issue_35_under_a_budget_the_store_is_on_disk_and_traces_are_read_back(spills):
    """Under --memory-budget, a search without a behaviour graph writes the store's parents and
    fingerprints to disk (FingerprintStore.to_disk, blocks of 4,096): the counterexample is
    rebuilt from there, the same as from memory; the files are removed after."""
    from tlacheck.engine import graphstore

    root, _ = spills
    model = model_of(_BIG_GRID)
    plain = _json(model, Options(time_limit=120), "grid.spec")
    opened = []
    real = graphstore.GraphStore.open
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(graphstore.GraphStore, "open", lambda self, name: opened.append(name) or real(self, name))
        spilled = _json(model, Options(memory_budget_mb=0, time_limit=120), "grid.spec")
    assert plain["verdict"] == "invariant_violated" and plain["distinct_states"] > 4096
    assert spilled == plain
    assert sorted(opened) == ["fingerprints", "parents"]
    assert os.listdir(root) == []


def test_issue_35_the_cli_takes_a_memory_budget(tmp_path, capsys, monkeypatch):
    from tlacheck.app.cli import main

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    spec = str(SPECS / "classic" / "diehard.spec")
    outputs = []
    for extra in ([], ["--memory-budget", "0"]):
        code = main(["check", spec, "--json", "--quiet", *extra])
        data = json.loads(capsys.readouterr().out)
        data.pop("elapsed_s")
        outputs.append((code, data))
    assert outputs[0] == outputs[1]
    assert os.listdir(tmp_path) == []
    assert main(["check", spec, "--memory-budget", "-1"]) != 0
    assert "--memory-budget: expected a number of 0 or more, not -1" in capsys.readouterr().err


def test_issue_35_the_queue_bytes_benchmark_measures_both_ways(capsys):
    import re

    from benchmarks.queue_bytes import main

    main([str(SPECS / "corpus" / "mc_internal_memory.spec")])
    out = capsys.readouterr().out
    m = re.search(r"4 variables, 4,408 states, largest level ([\d,]+): tuples (\d+) B/state, StateQueue encoded "
                  r"(\d+) B/state, StateQueue without budget (\d+) B/state", out)
    assert m, out
    assert int(m.group(3)) < int(m.group(2))
    assert int(m.group(3)) < int(m.group(4))  # a level of a few hundred states is kept as tuples


def test_issue_35_a_budget_with_ray_is_a_note_not_an_error(capsys, monkeypatch):
    """The partition actors spill nothing: --memory-budget with --ray says so (a note, before the
    search; here Ray is missing, so the search itself then fails as it does without a budget)."""
    import sys

    from tlacheck.app.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    spec = str(SPECS / "classic" / "diehard.spec")
    code = main(["check", spec, "--ray", "--memory-budget", "8"])
    err = capsys.readouterr().err
    assert "note: --memory-budget has no effect with --ray" in err and "spill to disk" in err
    assert code == main(["check", spec, "--ray"])  # the note changes nothing else
    assert "--memory-budget" not in capsys.readouterr().err
