"""engine/cluster.py: `--ray` gives the same Result as one process (issue 17), on a real local
Ray cluster of two nodes (ray.cluster_utils: a head and a second raylet on this machine) that
every check here joins by its address, as a user joins `ray start --head`.

Not timing tests: they compare verdicts, counts, coverage and traces (tests/test_parallel.py's
`summary`). Skipped when the `ray` extra is not installed; `.ci/run` installs it. The tests of
this module run in one pytest-xdist worker (one cluster): `--dist loadgroup` in pyproject.toml.
"""

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tlacheck.app.cli import read_source
from tlacheck.core.errors import UsageError
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT, SPECS, model_of, spec_runs
from tests.test_corpus import ENTRIES, SUITE_LIMIT
from tests.test_parallel import COUNTERS, FAULTY_ACTION, summary

ray = pytest.importorskip("ray", reason="the Ray extra is not installed: pip install -e '.[ray]'")

pytestmark = pytest.mark.xdist_group("ray")

BIG = str(SPECS / "corpus" / "coffee_can_1000.spec")  # 501,500 states: seconds per level on Ray


def test_the_ray_tests_share_one_worker(request):
    """Under `-n`, `--dist loadgroup` must keep this module on one worker (one cluster, and no test
    killing another's actors): pytest 9.2 broke that silently (pytest-xdist issue 1386)."""
    if getattr(request.config.option, "loadgroup", False):  # set on the workers of `--dist loadgroup`
        assert request.node.nodeid.endswith("@ray"), "pytest-xdist no longer groups tests: pin pytest<9.2"


@pytest.fixture(scope="module")
def cluster():
    """A head node and a worker node, 2 CPUs each; yields the address to join."""
    from ray.cluster_utils import Cluster

    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False})
    try:
        nodes.add_node(num_cpus=2)
        nodes.wait_for_nodes()
        ray.init(address=nodes.address, logging_level="ERROR", log_to_driver=False)
        yield nodes.address
    finally:
        ray.shutdown()
        nodes.shutdown()


def same_on_ray(cluster, model, actors=(1, 2, 4), **options):
    one = explore(model, Options(**options))
    for n in actors:
        assert summary(explore(model, Options(ray=cluster, ray_actors=n, **options))) == summary(one), f"{n} actors"
    return one


def test_the_cluster_has_two_nodes(cluster):
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2


# Every spec of specs/ and each of its variants, each with one of 1, 2 and 4 actors in turn (a
# run costs a second of actors starting, most of it; every count on every spec, with and without
# deadlock checking, and the whole corpus: `python -m benchmarks.cluster --check`, docs/reliability.md)
RUNS = [(spec, variant, (1, 2, 4)[i % 3]) for i, (spec, variant) in enumerate(spec_runs())]


@pytest.mark.parametrize("spec, variant, actors", RUNS)
def test_every_spec_matches_one_process(cluster, spec, variant, actors):
    model = build_model(read_source(str(SPECS / spec)), None, variant)
    same_on_ray(cluster, model, actors=(actors,))


SMALL_CORPUS = [e for e in ENTRIES if e["port"].startswith("corpus/") and (e["distinct"] or 0) <= SUITE_LIMIT]


@pytest.mark.parametrize("entry", SMALL_CORPUS, ids=lambda e: e["_file"].removesuffix(".json"))
def test_the_corpus_matches_one_process_and_tlc(cluster, entry):
    """The corpus models of the suite's size (the others: benchmarks/cluster.py), without and
    with symmetry; their counts are TLC's (tests/test_corpus.py)."""
    model = build_model(read_source(str(SPECS / entry["port"])), entry.get("overrides") or None)
    one = same_on_ray(cluster, model, actors=(3,), check_deadlock=entry["check_deadlock"], symmetry=False)
    if entry.get("expected", "success") == "success":
        assert (one.distinct_states, one.states_generated) == (entry["distinct"], entry["generated"])
    if "with_symmetry" in entry:
        reduced = same_on_ray(cluster, model, actors=(2,), check_deadlock=entry["check_deadlock"])
        assert reduced.distinct_states == entry["with_symmetry"]["distinct"]


@pytest.mark.parametrize("extra, options", [
    ("invariant Small: x + y < 7", {}),
    ("invariant Div: 12 // (5 - x - y) >= 0", {}),  # an evaluation error in an invariant
    ("constraint Div: 12 // (5 - x - y) >= 0", {}),  # ... in a constraint
    ("constraint Sum: x + y <= 5", {}),
    ("reachable Far: x == 4 and y == 3", {}),
    ("reachable Div: 12 // (5 - x - y) == 0", {}),  # ... in a reachable check
    ("property Up: always (x' >= x and y' < 5)", {}),  # a step property, at a state seen before or not
    ("", {"max_states": 20}),
    ("", {"max_states": 1}),
    ("", {"max_depth": 4}),
    ("", {"check_deadlock": True}),
])
def test_stops_in_the_middle_of_a_level_match_one_process(cluster, extra, options):
    """Each stops at an event or a limit inside a level, where one process's partial counts
    (generated, distinct, coverage, depth, queue) must be reproduced exactly."""
    model = model_of(textwrap.dedent(COUNTERS) + extra + "\n")
    same_on_ray(cluster, model, actors=(2, 3), **{"check_deadlock": False, **options})


def test_an_evaluation_error_in_an_action_matches_one_process(cluster):
    model = model_of(FAULTY_ACTION)
    r = same_on_ray(cluster, model, actors=(2, 4), check_deadlock=False)
    assert r.error.code == "E407"


def test_fairness_and_liveness_match_one_process(cluster):
    """The behaviour graph is recorded by the actors and put in single-process order by the driver."""
    model = model_of("""
        const N: set[model] = {p1, p2, p3}
        var waiting: set[N] = {}
        var done: set[N] = {}
        action Ask(p in N):
            require p not in waiting and p not in done
            waiting = waiting | {p}
        action Serve(p in waiting):
            waiting = waiting - {p}
            done = done | {p}
        action Reset:
            require done == N
            done = {}
        fair weak Serve
        property AllServed: always (len(waiting) > 0 implies eventually len(waiting) == 0)
        property Forever: always eventually len(done) == 3
        """)
    r = same_on_ray(cluster, model, actors=(2, 3))
    assert r.verdict == Verdict.LIVENESS_VIOLATED


def test_the_models_actors_build_read_no_file(cluster, tmp_path, monkeypatch):
    """A spec that imports and refines others, checked from another directory: the actors build
    it from the texts the driver read (compile/model.Recipe)."""
    for name in ("ewd840.spec", "agent_routing.spec"):
        path = next(SPECS.rglob(name))
        model = build_model(read_source(str(path)))
        monkeypatch.chdir(tmp_path)
        same_on_ray(cluster, model, actors=(2,))


def test_exact_storage_and_collect_mode_are_refused(cluster):
    model = model_of(COUNTERS)
    for options in ({"storage": Storage.EXACT}, {"collect": True}):
        with pytest.raises(UsageError, match="one process"):
            explore(model, Options(ray=cluster, ray_actors=2, **options))


def test_without_ray_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(UsageError, match="needs Ray") as info:
        explore(model_of(COUNTERS), Options(ray="", ray_actors=2))
    assert "tlacheck[ray]" in info.value.hint


# ------------------------------------------------------------------ the command line

def cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "tlacheck", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, **kw)


def without_times(data: dict) -> dict:
    """What does not depend on how the search ran: not its times, nor the transition caches'
    counts, which each process keeps to itself (null on the cluster; docs/cli.md)."""
    return {k: v for k, v in data.items() if k not in ("elapsed_s", "states_per_s", "warnings", "transition_cache")}


def test_check_on_the_cluster_prints_what_one_process_prints(cluster):
    spec = str(SPECS / "notify_race.spec")
    one = cli("check", spec, "--json")
    many = cli("check", spec, "--json", "--ray", cluster, "--ray-actors", "3")
    assert many.returncode == one.returncode == 12, many.stderr
    assert without_times(json.loads(many.stdout)) == without_times(json.loads(one.stdout))
    text = cli("check", spec, "--ray", cluster, "--ray-actors", "2", "--quiet")
    assert text.returncode == 12 and "invariant AnswerNotified is violated" in text.stdout, text.stdout


def test_a_bad_address_is_a_clear_error():
    r = cli("check", str(SPECS / "notify_race.spec"), "--ray", "127.0.0.1:1", "--json")
    assert r.returncode == 7
    assert "cannot join the Ray cluster at 127.0.0.1:1" in r.stderr and "Traceback" not in r.stderr
    assert json.loads(r.stdout)["verdict"] == "incomplete"


@pytest.mark.parametrize("args, message", [
    (["--ray-actors", "2"], "--ray-actors needs --ray"),
    (["--ray", "--workers", "2"], "choose one"),
    (["--ray", "--storage", "exact"], "--storage exact runs in one process"),
])
def test_ray_options_that_do_not_go_together(args, message):
    r = cli("check", str(SPECS / "notify_race.spec"), *args)
    assert r.returncode == 2 and message in r.stderr, r.stderr


def _expanding(address: str) -> set[int]:
    """The actors of the cluster at `address` expanding a level now: their process title says so,
    and their parent is one of its raylets (another suite's cluster on the same machine has actors
    of the same title)."""
    out = subprocess.run(["pgrep", "-f", "ray::Partition.expand"], capture_output=True, text=True).stdout
    return {int(p) for p in out.split() if _raylet_of(int(p)) == address}


def _raylet_of(pid: int) -> str | None:
    """The GCS address of the raylet that started process `pid`; None if it is gone or not one."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        parent = next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
        args = Path(f"/proc/{parent}/cmdline").read_bytes().split(b"\0")
    except (OSError, StopIteration):
        return None
    flags = [a.decode(errors="replace") for a in args if a.startswith(b"--gcs-address=")]
    return flags[0].split("=", 1)[1] if flags else None


def _alive(pids: set[int]) -> set[int]:
    return {p for p in pids if subprocess.run(["kill", "-0", str(p)], capture_output=True).returncode == 0}


def _start_and_wait_for_actors(cluster):
    """A check of BIG on 2 actors, once both are expanding; returns the process and their pids.

    Actors of an earlier test may still be expanding while Ray reaps them: only new ones count,
    or the signal reaches a run that has not yet installed its handler (exit -15, not 5).
    """
    earlier = _expanding(cluster)
    proc = subprocess.Popen([sys.executable, "-m", "tlacheck", "check", BIG, "--json", "--quiet", "--ray", cluster,
                             "--ray-actors", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    deadline = time.time() + 120
    while len(_expanding(cluster) - earlier) < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    return proc, _expanding(cluster) - earlier


def test_an_actor_killed_ends_the_run_with_a_clear_error_not_a_verdict(cluster):
    proc, actors = _start_and_wait_for_actors(cluster)
    victim = min(actors)
    subprocess.run(["kill", "-9", str(victim)])
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 7, err
    assert "a partition actor died" in err and f"process {victim}" in err and "Traceback" not in err
    data = json.loads(out)
    assert data["verdict"] == "incomplete" and data["errors"][0]["code"] == "cluster"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_run_cleanly(cluster, sig):
    proc, actors = _start_and_wait_for_actors(cluster)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 5, err
    data = json.loads(out)
    assert (data["verdict"], data["stop_reason"]) == ("incomplete", "interrupted")
    deadline = time.time() + 10
    while _alive(actors) and time.time() < deadline:  # the actors are killed with the run
        time.sleep(0.2)
    assert not _alive(actors)


def test_a_time_limit_stops_the_run_cleanly(cluster):
    r = cli("check", BIG, "--json", "--ray", cluster, "--ray-actors", "2", "--time-limit", "4")
    assert r.returncode == 5, r.stderr
    data = json.loads(r.stdout)
    assert (data["verdict"], data["stop_reason"]) == ("incomplete", "time_limit")


def test_the_memory_limit_is_each_actors():
    """An actor past --memory-limit (its own resident memory) drops the level, which ends the run
    as a limit does; here the actor's class runs in this process, without Ray."""
    from tlacheck.engine.cluster import Partition
    from tlacheck.engine.messages import Setup

    model = model_of(COUNTERS)
    actor = Partition(model.recipe, Setup(0, 1, Options(memory_limit_mb=1), False))
    initial = list(model.init())
    actor.start(initial, [actor.fingerprint(s) for s in initial], [0])
    expansion = actor.expand(None, ())[0]
    assert expansion.halted == "memory_limit" and not expansion.events


def test_a_limit_reached_while_the_actors_start(cluster):
    """Even before the first level: verdict incomplete, every initial state still to expand."""
    model = model_of(COUNTERS)
    stop = type("Stop", (), {"is_set": lambda self: True})()
    r = explore(model, Options(ray=cluster, ray_actors=2, stop=stop))
    assert (r.verdict, r.stop_reason, r.distinct_states, r.queue_left) == (Verdict.INCOMPLETE, "interrupted", 1, 1)


@pytest.mark.parametrize("seed", range(1, 9))
def test_generated_specs_match_one_process(cluster, seed):
    """The differential oracle's random specs (inputs nobody wrote for this code), every check of
    each; more seeds: `python -m benchmarks.cluster --generated A:B`."""
    from tlacheck.core.source import Source
    from tests.oracle.generate import generate

    g = generate(seed)
    model = build_model(Source(f"oracle_{seed}.spec", g.text))
    same_on_ray(cluster, model, actors=(2,), check_deadlock=g.check_deadlock, max_states=50_000)


def test_an_actor_on_other_code_refuses_to_start(cluster, monkeypatch):
    """Same version number, other code (a node not upgraded): a clear error, not a wrong answer."""
    from tlacheck.core.errors import ClusterError
    from tlacheck.engine import cluster as engine

    monkeypatch.setattr(engine, "code_id", lambda: "other code")  # the driver's digest, not the actors'
    with pytest.raises(ClusterError, match="could not start: .*other tlacheck code than the driver") as info:
        explore(model_of(COUNTERS), Options(ray=cluster, ray_actors=2))
    assert "same tlacheck" in info.value.hint


def test_issue_35_the_actors_transition_cache_counts_are_summed(cluster, tmp_path):
    """Each actor has its own caches: their counts are summed (not null); every state is expanded
    by one actor, so the instances that reached a cache are one process's."""
    from tests.test_transition_cache import ACCESS

    spec = tmp_path / "access_demo.spec"
    spec.write_text("\n".join(line[4:] for line in ACCESS.splitlines()).lstrip("\n"))
    one = cli("check", str(spec), "--json", "--quiet")
    many = cli("check", str(spec), "--json", "--quiet", "--ray", cluster, "--ray-actors", "2")
    assert one.returncode == many.returncode == 0, many.stderr
    one, many = json.loads(one.stdout)["transition_cache"], json.loads(many.stdout)["transition_cache"]
    assert many is not None and set(many) == set(one) and one
    for name, c in one.items():
        assert many[name]["hits"] + many[name]["misses"] == c["hits"] + c["misses"], name
