"""The behaviour graph of temporal properties on disk beyond --memory-budget (engine/graphstore.py,
issue 35, item 2): its columns read back as the arrays they replace, and every liveness verdict,
counterexample and JSON is the same with `--memory-budget 0` (every full block on disk) as without,
with one worker and two, on fingerprints and exact storage; no file is left after the run, an
error or a stop."""

import os
import tempfile
import threading
from array import array
from bisect import bisect_right
from dataclasses import replace

import pytest

from tlacheck.core.result import Verdict
from tlacheck.core.source import Source
from tlacheck.engine import graphstore
from tlacheck.engine.explore import explore
from tlacheck.engine.graphstore import Column, GraphStore, Zeros
from tlacheck.engine.options import Options
from tlacheck.pipeline.driver import build_model
from tlacheck.app.cli import read_source
from tests.conftest import SPECS, model_of
from tests.oracle.generate import generate
from tests.test_liveness import MUTEX, replay_lasso
from tests.test_statequeue import _json, generated_model


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 8 records and a cache of two blocks, so that small graphs go to disk and are read
    back (and dropped from the cache) many times."""
    monkeypatch.setattr(graphstore, "SHIFT", 3)
    monkeypatch.setattr(graphstore, "BLOCK", 8)
    monkeypatch.setattr(graphstore, "MASK", 7)
    monkeypatch.setattr(graphstore, "CACHE_BYTES", 1)


# ---------------------------------------------------------------- a column


def test_issue_35_a_column_on_disk_reads_back_as_the_array_it_replaces(tmp_path, small_blocks):
    store = GraphStore(0, str(tmp_path))
    records = array("q", (i * 7919 % 1000 - 500 for i in range(101)))
    column = store.column("q", "succ", records[:3])
    column.extend(records[3:50])
    for x in records[50:]:
        column.append(x)
    assert len(column) == len(records)
    assert column.spilled == 101 // 8 and not column.memory  # every full block went to disk
    assert [column[i] for i in range(101)] == list(records)
    assert [column[i] for i in range(100, -1, -7)] == list(records[100::-7])  # backwards: cache misses
    assert len(column.cache) <= 2
    assert list(column) == list(records) and column[-1] == records[-1]
    assert column[5:30] == records[5:30] and column[97:] == records[97:]
    with pytest.raises(IndexError):
        column[101]
    starts = store.column("q", "edge_start", range(0, 300, 3))
    assert [bisect_right(starts, e) for e in (0, 2, 3, 150, 299)] == [bisect_right(range(0, 300, 3), e)
                                                                      for e in (0, 2, 3, 150, 299)]
    assert sorted(os.listdir(store.dir)) == ["edge_start", "succ"]
    assert store.on_disk() == (101 // 8 + 100 // 8) * 8 * 8
    store.close()
    assert os.listdir(tmp_path) == []


def test_issue_35_a_column_keeps_its_first_blocks_in_memory_while_the_budget_has_room(tmp_path, small_blocks):
    store = GraphStore(3 * 8 * 4, str(tmp_path))  # room for three blocks of "i"
    a = store.column("i", "a", range(20))  # two full blocks: kept
    b = store.column("i", "b", range(100, 140))  # one kept, then the budget is full
    assert (len(a.memory), a.spilled, len(b.memory), b.spilled) == (2, 0, 1, 4)
    assert list(a) == list(range(20)) and [b[i] for i in range(40)] == list(range(100, 140))
    assert a.whole() == array("i", range(20)) and b.whole() is None  # b has blocks on disk
    store.close()
    assert os.listdir(tmp_path) == []


def test_issue_35_zeros_read_as_a_column_of_zero_bits():
    zeros = Zeros(5)
    assert len(zeros) == 5 and [zeros[i] for i in range(5)] == [0] * 5 and zeros[1:3] == bytes(2)
    with pytest.raises(IndexError):
        zeros[5]


# ---------------------------------------------------------------- the search, with and without the graph on disk


@pytest.fixture
def graphs(tmp_path, monkeypatch, small_blocks):
    """The spills' temporary directories go under tmp_path/tmp; the graph's blocks written to
    disk are counted (the graph is the coordinator's: in this process also with --workers)."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    written = []
    seal = Column._seal

    def counted(self):
        before = self.spilled
        seal(self)
        written.append(self.spilled - before)

    monkeypatch.setattr(Column, "_seal", counted)
    return root, written


def _same_on_disk(model, options: Options, written: list) -> dict:
    """The JSON of a run with the graph in memory, after checking that the run with it on disk
    gives the same, and that blocks of it went to disk."""
    plain = _json(model, options, "m.spec")
    del written[:]
    on_disk = _json(model, replace(options, memory_budget_mb=0), "m.spec")
    assert on_disk == plain
    assert sum(written) > 0
    return plain


PORTS = ["classic/dining_philosophers.spec", "classic/ewd840.spec", "classic/simple_allocator.spec",
         "classic/coffee_can.spec", "classic/sync_termination_detection.spec", "corpus/mc_tcp.spec",
         "corpus/scheduling_allocator.spec", "corpus/mc_yoyo_pruning.spec"]


@pytest.mark.parametrize("port", PORTS)
@pytest.mark.parametrize("workers", [1, 2])
def test_issue_35_the_graph_on_disk_gives_the_same_json_on_the_corpus_ports(port, workers, graphs):
    root, written = graphs
    model = build_model(read_source(str(SPECS / port)))
    plain = _same_on_disk(model, Options(workers=workers, check_deadlock=not model.deadlock_allowed), written)
    assert plain["verdict"] == "ok"
    assert os.listdir(root) == []


UNFAIR = [("dining_philosophers.spec", "fair weak", "NobodyStarves"),
          ("simple_allocator.spec", "fair strong Allocate", "ClientsWillObtain"),
          ("ewd840.spec", "fair weak", "Liveness"),
          ("coffee_can.spec", "fair weak", "EventuallyTerminates"),
          ("sync_termination_detection.spec", "fair weak", "Liveness")]


@pytest.mark.parametrize("port, drop, expect", UNFAIR)
@pytest.mark.parametrize("workers", [1, 2])
def test_issue_35_the_graph_on_disk_gives_the_same_counterexamples(port, drop, expect, workers, graphs):
    root, written = graphs
    path = SPECS / "classic" / port
    text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith(drop)) + "\n"
    model = build_model(Source(str(path), text))
    options = Options(workers=workers, check_deadlock=not model.deadlock_allowed)
    plain = _same_on_disk(model, options, written)
    assert plain["verdict"] == "liveness_violated" and plain["violation"]["name"] == expect
    on_disk = explore(model, replace(options, memory_budget_mb=0))
    replay_lasso(model, on_disk.violation.trace)  # a real lasso of the spec
    assert on_disk.violation.trace == explore(model, options).violation.trace
    assert os.listdir(root) == []


TURN = """
    var x: int = 0
    var y: int = 0
    action Turn:
        x = (x + 1) % 20
    action Pause:
        require y == 0
        y = 1
    fair weak Turn
    """


@pytest.mark.parametrize("text", [
    MUTEX + "fair weak Request(p) or Enter(p) or Leave(p) for p in P\n",  # leads_to, per-value fairness
    TURN + "property Settles: eventually always x == 0\n",
    TURN + "property Often: always eventually x == 0\n",
    TURN + "property Weird: not eventually x != 0\n",  # the tableau's product
    TURN + "property Weird: not always x == 0\n",
    TURN + "property Gets: eventually y == 1\n",  # Pause is not fair
])
@pytest.mark.parametrize("collect", [False, True])  # collect: exact storage, every violation
def test_issue_35_the_graph_on_disk_gives_the_same_verdicts_on_small_specs(text, collect, graphs):
    root, written = graphs
    _same_on_disk(model_of(text), Options(invariants=(), collect=collect), written)
    assert os.listdir(root) == []


def test_issue_35_the_abstract_fairness_is_decided_alike_with_the_graph_on_disk(tmp_path, graphs):
    from tests.test_refinement import unfair_port

    root, written = graphs
    port = tmp_path / "port"
    port.mkdir()
    model = build_model(read_source(str(unfair_port(port))))
    plain = _same_on_disk(model, Options(properties=("TDSpec",), invariants=(), check_deadlock=False), written)
    assert plain["verdict"] == "liveness_violated" and plain["violation"]["name"] == "TDSpec"
    assert os.listdir(root) == []


# The first forty of the oracle's generated specs that declare a temporal property (most of them
# fairness conditions too)
WITH_PROPERTIES = [seed for seed in range(1, 300) if "\nproperty " in "\n" + generate(seed).text][:40]


@pytest.mark.parametrize("seed", WITH_PROPERTIES)
def test_issue_35_the_graph_on_disk_gives_the_same_json_on_generated_specs(seed, graphs):
    root, written = graphs
    g, model = generated_model(seed)
    for workers in (1, 2):
        base = Options(check_deadlock=g.check_deadlock, max_states=20_000, time_limit=60, workers=workers)
        plain = _json(model, base, "g.spec")
        del written[:]
        assert _json(model, replace(base, memory_budget_mb=0), "g.spec") == plain, (workers, g.text)
        if plain["verdict"] in ("ok", "liveness_violated") and plain["distinct_states"] >= 8:
            assert sum(written) > 0  # (the atoms' bits of 8 states or more fill a block)
    assert os.listdir(root) == []


def test_issue_35_the_graph_on_disk_is_removed_after_an_error_in_a_property(graphs):
    root, written = graphs
    model = model_of("""
        var x: int = 0
        action Up:
            x = (x + 1) % 40
        fair weak Up
        property Boom: always eventually 1 // (x - 30) == 0
        """)
    for workers in (1, 2):
        del written[:]
        result = explore(model, Options(workers=workers, memory_budget_mb=0))
        assert result.verdict == Verdict.ERROR and result.error.code == "E407"
        assert sum(written) > 0 and os.listdir(root) == []


def test_issue_35_the_graph_on_disk_is_removed_after_a_stop_in_the_liveness_phase(graphs):
    from tests.test_liveness import RING

    root, written = graphs
    for workers in (1, 2):
        event = threading.Event()

        def progress(p):  # Ctrl-C as the liveness phase starts (its first progress report is due at once)
            if p.phase == "liveness":
                event.set()

        result = explore(model_of(RING), Options(stop=event, workers=workers, memory_budget_mb=0), progress,
                         progress_every=0.0)
        assert result.verdict == Verdict.INCOMPLETE and result.undecided == ("XZero", "YZero")
        assert sum(written) > 0 and os.listdir(root) == []


def test_issue_35_a_graph_within_its_share_stays_in_memory(graphs):
    root, written = graphs
    model = build_model(read_source(str(SPECS / "classic" / "dining_philosophers.spec")))
    plain = _json(model, Options(), "m.spec")
    del written[:]
    assert _json(model, Options(memory_budget_mb=64), "m.spec") == plain
    assert written and sum(written) == 0  # blocks were sealed, none went to disk
    assert os.listdir(root) == []
