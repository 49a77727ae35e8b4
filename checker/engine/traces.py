"""Traces rebuilt by re-execution, whatever a store keeps of each state.

Every store keeps, per stored state, its parent's index (-1: an initial state) and a key:
the state itself (exact storage), its 64-bit fingerprint (fingerprint storage, `--workers`),
and, with symmetry, its orbit's key (the hash of a canonical representative: compile/symmetry.py). The trace to stored
state i follows the parent links from an initial state to i, and finds each state again by
running the spec: the first initial state whose key is the path's first key, then from each
state of the trace the first successor (actions in declaration order, instances in canonical
order: the search's order) whose key is the path's next key.

That successor is the one the search stored: the search stores the first successor it meets
with a new key, and meets them in this order. Nothing depends on where a state stood among
its parent's successors, so a store that keeps canonical representatives still gives real
traces: each step is taken from the trace's own previous state, not from a representative.

Every step of a trace was computed by the search once already, without error; the rebuild
runs them again with more room for recursion (_HEADROOM more frames), since a `def` that
recursed nearly as deep as Python allows in the search may not fit again on the rebuild's
deeper stack (the search stopped at a state further on: a trace ends where it did).
"""

from __future__ import annotations

import sys
from typing import Callable, Sequence

from tlacheck.compile.model import Model
from tlacheck.core.result import Step, Trace
from tlacheck.engine.successors import find_step

_HEADROOM = 2000  # more frames of recursion while a trace is rebuilt (the module docstring)


def path_to(parents: Sequence[int], i: int) -> list[int]:
    """The indices of the stored states from an initial state to state `i` (-1: none)."""
    path = []
    while i >= 0:
        path.append(i)
        i = parents[i]
    path.reverse()
    return path


def rebuild(model: Model, keys: Sequence, key_of: Callable[[tuple], object] | None = None) -> Trace:
    """The trace through the states with these keys, in order. `key_of` None: the keys are the
    states themselves (exact storage), and the trace holds them (an equal copy would double its
    memory)."""
    if not keys:
        return Trace(())
    if key_of is None:
        state = keys[0]
    else:
        state = next((s for s in model.init() if key_of(s) == keys[0]), None)
        if state is None:
            raise AssertionError("no initial state has the stored key")  # pragma: no cover
    steps = [Step(None, (), state)]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + _HEADROOM)
    try:
        for key in keys[1:]:
            step = find_step(model, state, key, key_of)
            steps.append(step)
            state = step.state
    finally:
        sys.setrecursionlimit(limit)
    return Trace(tuple(steps))
