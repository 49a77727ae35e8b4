"""Check one benchmark model and print its figures as one JSON object.

Run by the benchmark runner in a fresh subprocess, so that peak RSS belongs to
this model alone: `python -m benchmarks.measure NAME [--workers N] [--storage S]`.

Memory: `rss_before` is the resident size once the model is built (the
interpreter, the checker, the compiled model); `peak_rss` is the peak during
the whole run (getrusage), and with several workers the peak of the sum of
this process and its children (sampled every 20 ms from /proc). Bytes per
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
from checker.cli import read_source
from checker.explore import Options, Storage, explore
from checker.model import build_model

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _children(pid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(name))
    return out


class _TreeSampler(threading.Thread):
    """The peak of the summed RSS of this process and its children."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak = 0
        self.done = threading.Event()

    def run(self):
        me = os.getpid()
        while not self.done.wait(0.02):
            total = _rss(me) + sum(_rss(c) for c in _children(me))
            self.peak = max(self.peak, total)


def measure(name: str, workers: int, storage: str | None) -> dict:
    bench = by_name([name])[0]
    model = build_model(read_source(str(bench.spec)), dict(bench.overrides))
    rss_before = _rss(os.getpid())
    kwargs = {"check_deadlock": bench.check_deadlock}
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
