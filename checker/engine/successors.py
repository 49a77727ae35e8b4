"""Successors of one state beyond the fast path: the action instance that leads to a stored
successor, the n-th successor (traces rebuilt from ordinals), and the successors an action
yields before an evaluation error."""

from __future__ import annotations

import traceback

from checker.compile.model import Model
from checker.core.result import Step
from checker.core.runtime import EVAL_FAILURES
from checker.engine.fingerprints import Fingerprinter


def find_step(model: Model, state: tuple, succ: tuple) -> Step:
    """The first action instance (in exploration order) that leads from `state` to `succ`."""
    for ai, act in enumerate(model.actions):
        for args, t in act(state):
            if t == succ:
                return Step(ai, args, succ)  # the stored state: an equal copy would double the trace's memory
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
    """The successor number `ordinal` (from 0, every action instance in exploration order)."""
    k = 0
    for ai, act in enumerate(model.actions):
        for args, t in act(state):
            if k == ordinal:
                return Step(ai, args, t)
            k += 1
    raise AssertionError("the stored successor ordinal is out of range")  # pragma: no cover
