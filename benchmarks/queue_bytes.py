"""The queue's bytes per state: `python -m benchmarks.queue_bytes SPEC [NAME=VALUE ...]`.

The model is searched on exact storage (engine/levels.py's Coordinator, which keeps every state
and its parent); its largest BFS level is then held both ways the search has held a level, under
tracemalloc: as a list of tuples (the queue until issue 35; the tuples are fresh, their values
the stored states' objects, shared as the value pools share them), as an
engine.statequeue.StateQueue every segment of which is encoded (sealed), and as the search's
StateQueue without a budget holds it (its first ENCODE_FROM states the fresh tuples, the rest
encoded). Printed: the bytes per state of each."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections import Counter

from tlacheck.app.cli import read_source
from tlacheck.engine.levels import Coordinator
from tlacheck.engine.options import Options, Storage
from tlacheck.engine.statequeue import StateQueue
from tlacheck.pipeline.driver import build_model


def main(argv: list[str]) -> None:
    spec, *defs = argv
    overrides = dict(d.split("=", 1) for d in defs) or None
    model = build_model(read_source(spec), overrides)
    search = Coordinator(model, Options(check_deadlock=False, symmetry=False, storage=Storage.EXACT), None, 5.0,
                         exact=True)
    result = search.run()
    states, parents = search.store.states, search.store.parents
    depth: list[int] = []
    for p in parents:
        depth.append(0 if p < 0 else depth[p] + 1)
    d, n = Counter(depth).most_common(1)[0]
    level = [s for s, k in zip(states, depth) if k == d]
    tracemalloc.start()
    gc.collect()  # (as _held does)
    start = tracemalloc.get_traced_memory()[0]
    as_list = [tuple(list(s)) for s in level]
    listed = tracemalloc.get_traced_memory()[0] - start
    del as_list
    queued = _held(StateQueue(len(model.var_types), encode_from=0), level)
    default = _held(StateQueue(len(model.var_types)), level)
    print(f"{spec} {overrides or ''}: {len(model.var_types)} variables, {result.distinct_states:,} states, "
          f"largest level {n:,}: tuples {listed / n:.0f} B/state, StateQueue encoded {queued / n:.0f} B/state, "
          f"StateQueue without budget {default / n:.0f} B/state")


def _held(queue: StateQueue, level: list) -> int:
    """The bytes `queue` holds (traced) once it holds fresh tuples of the states of `level`, sealed
    (a full collection before and after empties the interpreter's free lists of tuples, which would
    otherwise give the fresh ones memory traced before, or keep those the encoding freed)."""
    gc.collect()
    start = tracemalloc.get_traced_memory()[0]
    queue.extend(tuple(list(s)) for s in level)
    queue.seal()
    gc.collect()  # (the free lists hold the tuples an encoding freed)
    return tracemalloc.get_traced_memory()[0] - start


if __name__ == "__main__":
    main(sys.argv[1:])
