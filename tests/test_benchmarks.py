"""benchmarks/: the runner works and the small models have their expected counts.

No timing here: `python -m benchmarks` measures speed. This only keeps the
suite runnable (names, spec paths, expected counts, Promela files).
"""

from pathlib import Path

import pytest

from benchmarks import __main__ as runner
from benchmarks.measure import measure
from benchmarks.suite import BENCHMARKS, MODELS_DIR, PEERS_DIR, REFERENCE, ROOT

from tlacheck.app.cli import read_source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.pipeline.driver import build_model
from tlacheck.ir import nodes as ir


def test_every_benchmark_names_existing_files():
    for bench in BENCHMARKS:
        assert bench.spec.exists(), bench.spec
        if bench.spin:
            assert (PEERS_DIR / bench.spin[0]).exists()
        if bench.tla:
            assert (PEERS_DIR / bench.tla).exists() and (PEERS_DIR / bench.tla).with_suffix(".cfg").exists()


def test_measure_reports_the_expected_counts():
    m = measure("two_phase_5", 1, None)
    assert (m["distinct"], m["generated"]) == (8832, 58146)
    assert m["peak_rss"] >= m["rss_before"] > 0 and m["collision"] > 0


def test_runner_asserts_counts_and_prints_the_table(capsys):
    assert runner.main(["two_phase_5", "--no-peers", "--workers", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "two_phase_5" in out and "8,832" in out and "58,146" in out and "2 workers" in out


def test_the_corpus_benchmark_covers_every_port_that_tlc_checks_to_the_end():
    from benchmarks import corpus

    names = {e["name"] for e in corpus.entries(None, 0)}
    pinned = {p.stem for p in corpus.COUNTS.glob("*.json")}
    failures = {"diehard", "missionaries"}  # TLC finds their violation: no counts to compare
    seeds = {b.name for b in BENCHMARKS if b.tla is not None}
    assert len(seeds) == 3 and names == (pinned - failures) | seeds
    assert {e["name"] for e in corpus.entries(None, 100_000)} < names
    with pytest.raises(SystemExit):
        corpus.entries(["no_such_model"], 0)


def test_the_corpus_runs_a_seed_model_as_its_benchmark_does():
    """Its variant and the invariants its TLA+ translation checks, its spec outside specs/."""
    from benchmarks import corpus

    routing, fork = (corpus.entries([n], 0)[0] for n in ("agent_routing_5", "fork_teammate_fix1_5"))
    cmd = corpus.tlacheck_command(routing)
    assert cmd[4] == str(ROOT / "specs" / "agent_routing.spec") and "--deadlock" in cmd
    assert [cmd[i + 1] for i, a in enumerate(cmd) if a == "--invariant"] == [
        "NoBackgroundFromTeammate", "NoTeammateFromTeammate", "NoForkFromFork"]
    cmd = corpus.tlacheck_command(fork)
    assert cmd[cmd.index("--variant") + 1] == "Fix1" and "--invariant" not in cmd
    assert "--no-symmetry" in cmd  # its translation has no SYMMETRY: every state, as TLC
    assert (PEERS_DIR / fork["module"]).is_file() and (PEERS_DIR / fork["cfg"]).is_file()
    # a counts file's `invariants` (what TLC's cfg lists) selects nothing: every check is made
    assert "--invariant" not in corpus.tlacheck_command(corpus.entries(["alternating_bit"], 0)[0])



@pytest.mark.skipif(not REFERENCE.is_dir(), reason="../shared/reference is not present")
def test_issue_35_tlc_runs_a_scaled_configuration_over_a_copy_of_its_folder(tmp_path):
    """A scaled configuration's cfg and MC module are put beside the copy of the model's folder,
    with the community modules and proof stubs its modules extend; tlacheck gets the same
    constants as -D and checks the scaled cfg's invariants only."""
    from benchmarks import corpus

    bridge, yoyo, quicksort = (corpus.entries([n], 0)[0] for n in
                               ("single_lane_bridge_c6", "mc_yoyo_pruning_g11", "mc_quicksort"))
    (tmp_path / "bridge").mkdir()
    corpus.prepare_tlc(bridge, tmp_path / "bridge")
    names = {f.name for f in (tmp_path / "bridge").iterdir()}
    assert {"MC_c6.tla", "MC_c6.cfg", "MC.tla", "SingleLaneBridge.tla"} <= names
    assert '"r3"' in (tmp_path / "bridge" / "MC_c6.tla").read_text()
    cmd = corpus.tlc_command(bridge, Path("tla2tools.jar"), tmp_path / "bridge")
    assert cmd[-3:] == ["-config", "MC_c6.cfg", "MC_c6.tla"] and "-deadlock" not in cmd
    cmd = corpus.tlacheck_command(bridge)
    assert "CarsRight={r1, r2, r3}" in cmd and [cmd[i + 1] for i, a in enumerate(cmd) if a == "--invariant"] == [
        "Invariants"]
    (tmp_path / "yoyo").mkdir()
    corpus.prepare_tlc(yoyo, tmp_path / "yoyo")
    assert "IsStronglyConnected" in (tmp_path / "yoyo" / "UndirectedGraphs.tla").read_text()
    assert "CHECK_DEADLOCK" not in (tmp_path / "yoyo" / yoyo["cfg"]).read_text()
    (tmp_path / "quicksort").mkdir()
    corpus.prepare_tlc(quicksort, tmp_path / "quicksort")
    assert "EmptySeq == TRUE" in (tmp_path / "quicksort" / "SequenceTheorems.tla").read_text()


def _counts(spec, overrides=None, variant="base", invariants=None):
    model = build_model(read_source(str(spec)), overrides or {}, variant)
    result = explore(model, Options(invariants=invariants, properties=(), reachables=(), symmetry=False))
    return result.verdict.value, result.distinct_states, result.states_generated


@pytest.mark.parametrize("seed, scaled, overrides, variant, invariants", [
    ("notify_race.spec", "notify_race_scaled.spec", {"Tasks": "{t1}"}, "base", ("SameResultString",)),
    ("fork_teammate.spec", "fork_teammate_scaled.spec", {"Agent": "{lead, tm1}"}, "Fix1",
     ("TeammateSubagentsForeground", "OwnerIsSpawner")),
])
def test_a_scaled_seed_model_at_size_one_is_the_seed(seed, scaled, overrides, variant, invariants):
    """The scaled copies generalise the seed's one task (one teammate): at that size they explore
    the seed's own state space, state for state in number."""
    want = _counts(ROOT / "specs" / seed, variant=variant, invariants=invariants)
    assert want[0] == "ok"
    assert _counts(MODELS_DIR / scaled, overrides, variant) == want


def test_issue_32_the_task_queue_under_symmetry_stores_its_orbits():
    """benchmarks/models/task_queue.spec (docs/language.md, "When symmetry pays"), with 3 workers
    to stay small: one state per orbit of the reachable states (renamed by every permutation of
    the messages), and the orbits' sizes add up to the unreduced count."""
    from tests.oracle.symmetric import orbits, reachable

    model = build_model(read_source(str(MODELS_DIR / "task_queue.spec")), {"Workers": "{w1, w2, w3}"}, "Fenced")
    reduced = explore(model, Options(check_deadlock=False))
    full = explore(model, Options(check_deadlock=False, symmetry=False))
    states = reachable(model)
    assert full.distinct_states == len(states) == reduced.symmetry.states
    assert reduced.distinct_states == orbits(model, states) == reduced.symmetry.orbits
    assert reduced.verdict == full.verdict and reduced.verdict.name == "OK"


def test_issue_33_the_conformance_benchmark_writes_a_log_that_conforms(tmp_path):
    """benchmarks/conform.py's log (a random behaviour, three variables hidden, every tenth step
    left out) conforms with --max-gap 1 and not without: the benchmark measures what it claims."""
    from benchmarks.conform import SPEC, write_log
    from tlacheck.conform import check

    log = tmp_path / "rounds.ndjson"
    assert write_log(log, 40) == 36
    assert check(SPEC, log, max_gap=1).runs[0].verdict.value == "conforms"
    assert check(SPEC, log).runs[0].verdict.value == "does_not_conform"


def test_issue_35_projections_measure_what_a_transition_cache_could_answer():
    """benchmarks.projections: an action's reads from the IR, at the grain of variables and of the
    entries its parameters index, and the evaluations a cache keyed by them would see."""
    import json

    from benchmarks import corpus, projections

    model = build_model(read_source(str(ROOT / "specs" / "corpus" / "nbacc_ray97.spec")))
    step = model.ir.actions[0]
    a = ir.access(step, ir.function_reads(model.ir.functions))
    whole, entries = a.reads, a.read_entries
    slot = {name: i for i, name in enumerate(model.var_names)}
    # Step(self) reads sent whole (it adds to it) and pc, rcvd, fd only at [self]
    assert whole == {slot["sent"]} and entries == {slot["pc"]: 0, slot["rcvd"]: 0, slot["fd"]: 0}
    r = projections.measure("nbacc_ray97", 10**6)
    pinned = json.loads((corpus.COUNTS / "nbacc_ray97.json").read_text())
    assert r["states"] == pinned["distinct"]
    (row,) = r["actions"]
    # every state is expanded once; every successor is an enabled instance (TLC's generated
    # counts the initial states too)
    assert row["evaluations"] == pinned["distinct"]
    assert row["instances"] + len(set(model.init())) == pinned["generated"]
    # reading every variable, each state is its own projection; by entries, fewer
    assert row["variables_distinct"] == row["evaluations"] and row["entries_distinct"] < row["instances"]


def test_counts_of_a_run_that_stopped_with_an_error_is_none():
    """An error's JSON has no counts: the comparison says what went wrong instead of a KeyError."""
    from benchmarks import corpus

    assert corpus.counts_of('{\n  "distinct_states": 3,\n  "states_generated": 5\n}') == (3, 5)
    assert corpus.counts_of('{\n  "error": "E001",\n  "message": "no such file"\n}') is None
    assert corpus.counts_of("Traceback ...") is None


def test_compare_skips_a_model_that_one_side_does_not_have(tmp_path, capsys):
    from benchmarks import compare, corpus

    e = corpus.entries(["hour_clock"], 0)[0]
    compare._compare_corpus({"base": tmp_path, "new": ROOT}, ["hour_clock"], 1, 10)
    out = capsys.readouterr().out
    assert corpus.spec_path(e, ROOT).exists() and "| hour_clock | | not in base |" in out
