"""Successors of one state beyond the fast path: the action instance that leads to a stored
successor (traces.py rebuilds traces with it), the n-th successor (where `--workers` found an
event), and the successors an action yields before an evaluation error."""

from __future__ import annotations

import traceback
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import Step
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.fingerprints import Fingerprinter


def find_step(model: Model, state: tuple, key, key_of: Callable[[tuple], object] | None = None) -> Step:
    """The first action instance (in exploration order) that leads from `state` to a successor
    whose key is `key` (`key_of` None: the successor equal to `key`, which the step then holds:
    an equal copy would double a trace's memory)."""
    for ai, act in enumerate(model.actions):
        for args, t in act(state):
            if key_of is None:
                if t == key:
                    return Step(ai, args, key)
            elif key_of(t) == key:
                return Step(ai, args, t)
    raise AssertionError("no action leads to the stored successor")  # pragma: no cover


def until_fault(act, state: tuple, first: BaseException, fingerprint: Fingerprinter) -> tuple[list, list, BaseException]:
    """The successors an action's generator yields before the evaluation error that its list
    form raised (`first`; the explorer processes those first, as the generator path would), their
    fingerprints, and the error. A MemoryError need not happen again: then every successor, and
    `first`, its frames cleared (also when hashing the successors runs out of memory: then none)."""
    _drop_frames(first)
    succs = []
    try:
        for _, t in act(state):
            succs.append(t)
    except EVAL_FAILURES as fault:
        first = fault
    else:
        if not isinstance(first, MemoryError):
            raise AssertionError("the list and generator forms of an action disagree")  # pragma: no cover
    try:
        return succs, list(map(fingerprint, succs)), first
    except MemoryError as exc:  # hashing a value the action computed: the action's E411
        return [], [], exc


def _drop_frames(exc: BaseException) -> None:
    """Free the locals of the finished frames `exc` went through (a MemoryError's may hold much)."""
    traceback.clear_frames(exc.__traceback__)
    exc.__traceback__ = None


def nth_step(model: Model, state: tuple, ordinal: int) -> Step:
    """The successor number `ordinal` (from 0, every action instance in exploration order): the
    state at a `--workers` event's key (levels.py). Traces do not use it (traces.py)."""
    k = 0
    for ai, act in enumerate(model.actions):
        for args, t in act(state):
            if k == ordinal:
                return Step(ai, args, t)
            k += 1
    raise AssertionError("the stored successor ordinal is out of range")  # pragma: no cover
