"""Symmetry against `--no-symmetry` on the models that declare `symmetric` sets:
`python -m benchmarks.symmetry [--runs 2] [--models A,B] [--markdown] [--symmetric-only]`.

Per model, runs alternate (symmetric, unreduced, symmetric, ...), each with the model built
afresh (the renamings' memos are the model's) and `explore()` timed in CPU seconds
(time.process_time, the build left out). Printed per model: the counts of each side, the
orbit reduction factor (Result.symmetry), the minimum CPU seconds of each side and their ratio,
and what the orbit keys cost: their seconds (Result.symmetry.keys_s, measured around the keys
alone) and the microseconds per successor keyed. Run with `PYTHONPATH=DIR` where DIR/tlacheck
links to another checkout's checker/ to measure that checkout's code (as compare.py does).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tlacheck.app.cli import read_source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.pipeline.driver import BASE, build_model

ROOT = Path(__file__).resolve().parent.parent

# (name, spec, variant, check deadlocks, max depth): every model of the
# project that declares a symmetric set of more than one member (mc_paxos's sets have one
# member each, so it has no renaming), the whole state space unless a depth bound is given.
MODELS = (
    ("mc_voting", "specs/corpus/mc_voting.spec", None, False, None),
    ("simplified_paxos", "specs/corpus/simplified_paxos.spec", None, True, None),
    ("multipaxos_small_d14", "specs/corpus/multipaxos_small.spec", None, True, 14),
    ("task_queue_fenced", "benchmarks/models/task_queue.spec", "Fenced", False, None),
    ("notify_race_4", "benchmarks/models/notify_race.spec", None, False, None),
    ("notify_race_scaled_3", "benchmarks/models/notify_race_scaled.spec", None, False, None),
)


def run(spec: str, variant: str | None, deadlock: bool, depth: int | None, symmetry: bool):
    """One search: (CPU seconds of explore(), distinct, generated, Result.symmetry)."""
    model = build_model(read_source(str(ROOT / spec)), None, variant or BASE)
    start = time.process_time()
    r = explore(model, Options(check_deadlock=deadlock, max_depth=depth, symmetry=symmetry))
    return time.process_time() - start, r.distinct_states, r.states_generated, r.symmetry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.symmetry")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--models", help="comma-separated names (default: all)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--symmetric-only", action="store_true", help="no unreduced runs (comparing commits)")
    args = parser.parse_args(argv)
    chosen = None if args.models is None else set(args.models.split(","))
    header = ("model", "orbits / generated", "states / generated (unreduced)", "reduction",
              "CPU s symmetric", "CPU s unreduced", "symmetric / unreduced", "keys s", "key us/successor")
    print(("| " + " | ".join(header) + " |\n|" + " --- |" * len(header)) if args.markdown else "\t".join(header),
          flush=True)
    for name, spec, variant, deadlock, depth in MODELS:
        if chosen is not None and name not in chosen:
            continue
        times: dict[bool, list[float]] = {True: [], False: []}
        counts: dict[bool, tuple] = {}
        keys = []
        sym = None
        for _ in range(args.runs):
            for symmetric in (True,) if args.symmetric_only else (True, False):
                t, distinct, generated, stats = run(spec, variant, deadlock, depth, symmetric)
                times[symmetric].append(t)
                assert counts.setdefault(symmetric, (distinct, generated)) == (distinct, generated), name
                if symmetric:
                    sym = stats
                    keys.append(stats.keys_s)
        ts, tu = min(times[True]), min(times[False] or [float("nan")])
        key = statistics.median(keys)
        row = (name, "{:,} / {:,}".format(*counts[True]), "{:,} / {:,}".format(*counts.get(False, (0, 0))),
               f"{sym.reduction:.1f}x", ", ".join(f"{t:.2f}" for t in times[True]),
               ", ".join(f"{t:.2f}" for t in times[False]), f"{ts / tu:.2f}", f"{key:.2f}",
               f"{key / counts[True][1] * 1e6:.1f}")
        print(("| " + " | ".join(row) + " |") if args.markdown else "\t".join(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
