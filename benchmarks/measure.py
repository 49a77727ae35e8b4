"""Check one benchmark model and print its figures as one JSON object.

Run by the benchmark runner in a fresh subprocess, so that peak RSS belongs to
this model alone: `python -m benchmarks.measure NAME [--workers N] [--storage S]`.

Memory: `rss_before` is the resident size once the model is built (the
interpreter, the checker, the compiled model); `peak_rss` is the peak during
the whole run (getrusage), and with several workers the peak of the summed
proportional set size (PSS) of this process and its children, sampled every
100 ms from /proc: the pages they share (the table of fingerprints in shared
memory, the forked interpreter and model) count once, not once per process. Bytes per
distinct state are (peak - before) / distinct: everything exploration added,
the seen-set, parent links and the BFS queue included.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import threading
import time

from benchmarks.suite import by_name

from tlacheck.app.cli import read_source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tlacheck.pipeline.driver import build_model


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _pss(pid: int) -> int:
    """The proportional set size: pages shared by n processes count 1/n in each, so the sum over
    a process and its forked children counts each page once."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    """The processes the main thread of `pid` forked (the workers)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(c) for c in fh.read().split()]
    except (OSError, ValueError):
        return []


class _TreeSampler(threading.Thread):
    """The peak of the summed proportional set size of this process and its children."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak = 0
        self.done = threading.Event()

    def run(self):
        me = os.getpid()
        while not self.done.wait(0.1):  # reading smaps_rollup costs about 1 ms a process
            total = _pss(me) + sum(_pss(c) for c in _children(me))
            self.peak = max(self.peak, total)


def measure(name: str, workers: int, storage: str | None) -> dict:
    bench = by_name([name])[0]
    model = build_model(read_source(str(bench.spec)), dict(bench.overrides), bench.variant)
    rss_before = _rss(os.getpid())
    # Every state, as the peers explore them (a model may declare its sets `symmetric`)
    kwargs = {"check_deadlock": bench.check_deadlock, "symmetry": False}
    if bench.invariants is not None:  # these alone, as the peer checks them (tlacheck check --invariant)
        kwargs.update(invariants=bench.invariants, properties=(), reachables=())
    if workers != 1:
        kwargs["workers"] = workers
    if storage is not None:
        kwargs["storage"] = Storage(storage)
    sampler = _TreeSampler() if workers > 1 else None
    if sampler:
        sampler.start()
    start = time.perf_counter()
    cpu_start = time.process_time()
    result = explore(model, Options(**kwargs))
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    # ru_maxrss and /proc's resident size count slightly differently: the peak is the largest
    # of the readings, so it can never be below the size measured before the search.
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, rss_before, _rss(os.getpid()))
    if sampler:
        sampler.done.set()
        sampler.join()
        peak = max(peak, sampler.peak)
    return {
        "name": name,
        "verdict": result.verdict.value,
        "distinct": result.distinct_states,
        "generated": result.states_generated,
        "depth": result.depth,
        "wall_s": wall,
        "cpu_s": cpu,  # this process only: with workers, the coordinator's share
        "rss_before": rss_before,
        "peak_rss": peak,
        "collision": result.fingerprint_collision,
        "workers": workers,
        "storage": storage,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.measure")
    parser.add_argument("name")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--storage", default=None)
    args = parser.parse_args()
    print(json.dumps(measure(args.name, args.workers, args.storage)))


if __name__ == "__main__":
    main()
