"""`--ray` outside the suite: the whole agreement campaign, and its scaling.

    python -m benchmarks.cluster --check [--actors 1,2,4] [--max-distinct N]
    python -m benchmarks.cluster --generated A:B [--actors 2,3]
    python -m benchmarks.cluster --scaling [--models a,b] [--runs 2] [--actors 1,2]
    python -m benchmarks.cluster --latency [--actors 1,2,4]

`--check` compares the Result of a search on a local Ray instance (4 logical CPUs) with one
process's, field by field (tests/test_parallel.py's `summary`: verdict, counts, depth, queue,
coverage, the counterexample, witnesses, errors): every spec of specs/ and each of its variants,
with and without deadlock checking, and every model of the TLC corpus (tests/data/tlc_counts,
without symmetry, as TLC's counts; with it too where the counts file has TLC's symmetric counts)
up to `--max-distinct` states, each with every actor count of `--actors`. Exit 1 on a difference.

`--generated A:B` does the same on the random specs of seeds A to B-1 of the differential
oracle (tests/oracle/generate.py: inputs nobody wrote for this code), every check of each
(temporal properties included), with its deadlock setting.

`--latency` measures the fixed cost of one level (the expand and merge calls of every actor,
their batches, the driver's numbering) on a counter of 2,000 levels of one state each.

`--scaling` measures the models of at least 10^5 states (corpus and seed models, as
benchmarks/corpus.py lists them; MultiPaxos only when named): the search in this process
(the model built; one process's explore()), then on Ray with each actor count (actors started
per run, which is included: about half a second), runs alternated, the fastest of `--runs`. It
prints states/s, the ratio to one process, where the driver's time went (waiting for the actors,
numbering the levels) and the states that crossed from one partition to another, with their
pickled size (what the object store moves).
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time

from benchmarks.corpus import entries as corpus_entries, spec_path


def _model(e: dict):
    from tlacheck.core.files import read_source
    from tlacheck.pipeline.driver import build_model

    return build_model(read_source(str(spec_path(e))), e.get("overrides") or None, e.get("variant") or "base")


def _options(e: dict, **more):
    from tlacheck.engine.options import Options

    invariants = tuple(e["only_invariants"]) if e.get("only_invariants") else None
    # without symmetry, as benchmarks/corpus.py runs them (TLC's counts of every state)
    return Options(check_deadlock=e["check_deadlock"], invariants=invariants, symmetry=False, **more)


def check(actors: tuple[int, ...], max_distinct: int) -> int:
    from tlacheck.core.files import read_source
    from tlacheck.engine.explore import explore
    from tlacheck.engine.options import Options
    from tlacheck.pipeline.driver import build_model
    from tests.conftest import SPECS, spec_runs
    from tests.test_parallel import summary

    runs = []  # (name, model, options without ray)
    for spec, variant in spec_runs():
        model = build_model(read_source(str(SPECS / spec)), None, variant)
        for deadlock in (True, False):
            runs.append((f"{spec}:{variant} deadlock={deadlock}", model, {"check_deadlock": deadlock}))
    for e in corpus_entries(None, 0):
        if e["distinct"] > max_distinct or e.get("peers"):
            continue
        model = _model(e)
        runs.append((f"{e['name']} (no symmetry)", model, {"check_deadlock": e["check_deadlock"], "symmetry": False}))
        if "with_symmetry" in e:
            runs.append((f"{e['name']} (symmetry)", model, {"check_deadlock": e["check_deadlock"]}))
    differ = 0
    for name, model, options in runs:
        one = explore(model, Options(**options))
        for n in actors:
            start = time.perf_counter()
            same = summary(explore(model, Options(ray="", ray_actors=n, **options))) == summary(one)
            differ += not same
            print(f"{'same' if same else 'DIFFERENT':9} {name}, {n} actors: {one.verdict.value}, "
                  f"{one.distinct_states:,} states ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"\n{len(runs)} runs x {len(actors)} actor counts: {len(runs) * len(actors) - differ} the same as one "
          f"process, {differ} different")
    return 1 if differ else 0


def generated(seeds: range, actors: tuple[int, ...]) -> int:
    from tlacheck.core.errors import SpecError
    from tlacheck.core.source import Source
    from tlacheck.engine.explore import explore
    from tlacheck.engine.options import Options
    from tlacheck.pipeline.driver import build_model
    from tests.oracle.generate import generate
    from tests.test_parallel import summary

    differ = checked = 0
    verdicts: dict[str, int] = {}
    for seed in seeds:
        g = generate(seed)
        try:
            model = build_model(Source(f"oracle_{seed}.spec", g.text))
        except SpecError:
            continue
        options = {"check_deadlock": g.check_deadlock, "max_states": 50_000}
        one = explore(model, Options(**options))
        checked += 1
        verdicts[one.verdict.value] = verdicts.get(one.verdict.value, 0) + 1
        for n in actors:
            if summary(explore(model, Options(ray="", ray_actors=n, **options))) != summary(one):
                differ += 1
                print(f"DIFFERENT seed {seed}, {n} actors (python -m tests.oracle --seeds {seed}:{seed + 1})", flush=True)
    print(f"{checked} generated specs x {len(actors)} actor counts: {checked * len(actors) - differ} the same as one "
          f"process, {differ} different; one process's verdicts: "
          + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items())))
    return 1 if differ else 0


def scaling(names: list[str] | None, runs: int, actors: tuple[int, ...]) -> int:
    import ray

    from tlacheck.engine.cluster import ClusterSearch
    from tlacheck.engine.explore import explore

    chosen = [e for e in corpus_entries(names, 100_000) if names or e["name"] != "multipaxos_small"]
    print("| model | distinct | one process s | states/s | actors | Ray s | states/s | Ray / one | waiting for "
          "actors s | driver s | levels | sent between partitions | bytes per state sent |")
    print("| --- " * 13 + "|")
    for e in chosen:
        model = _model(e)
        one_s: list[float] = []
        ray_s: dict[int, list[float]] = {n: [] for n in actors}
        timing: dict[int, dict] = {}
        for _ in range(runs):
            start = time.perf_counter()
            one = explore(model, _options(e))
            one_s.append(time.perf_counter() - start)
            for n in actors:
                start = time.perf_counter()
                search = ClusterSearch(model, _options(e), None, 5.0, ray, n)
                r = search.run()
                ray_s[n].append(time.perf_counter() - start)
                assert (r.distinct_states, r.states_generated, r.depth) == \
                    (one.distinct_states, one.states_generated, one.depth), e["name"]
                timing[n] = search.timing
        sample = [s for s, _ in zip(_states(model, e), range(2000))]
        per_state = len(pickle.dumps(sample, pickle.HIGHEST_PROTOCOL)) / max(len(sample), 1) + 18  # + key, fp, act
        for n in actors:
            t = timing[n]
            print(f"| {e['name']} | {one.distinct_states:,} | {min(one_s):.2f} | {one.distinct_states / min(one_s):,.0f} "
                  f"| {n} | {min(ray_s[n]):.2f} | {one.distinct_states / min(ray_s[n]):,.0f} "
                  f"| {min(one_s) / min(ray_s[n]):.2f} | {t['actors_s']:.2f} | {t['driver_s']:.2f} | {t['levels']} "
                  f"| {t['sent']:,} | {per_state:.0f} |", flush=True)
    return 0


def latency(actors: tuple[int, ...], runs: int) -> int:
    import ray

    from tlacheck.engine.cluster import ClusterSearch
    from tests.conftest import model_of

    levels = 2000
    model = model_of(f"var x: int = 0\naction Up:\n    require x < {levels - 1}\n    x = x + 1\n")
    print("| actors | levels | seconds waiting for the actors | per level ms | driver per level ms |")
    print("| --- | --- | --- | --- | --- |")
    for n in actors:
        best = None
        for _ in range(runs):
            search = ClusterSearch(model, _options({"check_deadlock": False}), None, 5.0, ray, n)
            r = search.run()
            assert r.distinct_states == levels
            if best is None or search.timing["actors_s"] < best["actors_s"]:
                best = search.timing
        print(f"| {n} | {best['levels']} | {best['actors_s']:.2f} | {1000 * best['actors_s'] / best['levels']:.2f} "
              f"| {1000 * best['driver_s'] / best['levels']:.2f} |", flush=True)
    return 0


def _states(model, e: dict):
    """Some reachable states, breadth-first from the initial ones (their pickled size)."""
    from itertools import islice

    frontier = list(islice(model.init(), 500))
    seen = set(frontier)
    while frontier:
        yield from frontier
        nxt = []
        for s in frontier:
            for act in model.actions:
                for _, t in act(s):
                    if t not in seen:
                        seen.add(t)
                        nxt.append(t)
        frontier = nxt[:500]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cluster", description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--check", action="store_true", help="the agreement campaign")
    what.add_argument("--generated", metavar="A:B", help="the oracle's random specs of these seeds")
    what.add_argument("--scaling", action="store_true", help="the models of at least 10^5 states, timed")
    what.add_argument("--latency", action="store_true", help="the fixed cost of one level")
    parser.add_argument("--actors", default=None, help="actor counts, comma-separated (default 1,2,4; 1,2 for --scaling)")
    parser.add_argument("--max-distinct", type=int, default=40_000, help="--check: corpus models up to this size")
    parser.add_argument("--models", help="--scaling: these models only")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    default = "1,2,4" if args.check or args.latency else "2,3" if args.generated else "1,2"
    actors = tuple(int(a) for a in (args.actors or default).split(","))
    import ray

    # a cluster of its own, even where one runs already (ray.init would join it, and refuse num_cpus)
    ray.init(address="local", num_cpus=max(4, max(actors)), include_dashboard=False, logging_level="ERROR",
             log_to_driver=False)
    try:
        if args.check:
            return check(actors, args.max_distinct)
        if args.latency:
            return latency(actors, args.runs)
        if args.generated:
            a, b = map(int, args.generated.split(":"))
            return generated(range(a, b), actors)
        return scaling(args.models.split(",") if args.models else None, args.runs, actors)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    sys.exit(main())
