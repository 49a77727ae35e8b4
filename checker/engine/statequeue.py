"""The queue of the search: the states of a level, held encoded, and spilled to disk beyond a budget.

A worker holds the level it expands (its frontier) and the states it admits for the next level
(admission.Admission.kept) in a `StateQueue`, the one owner of how queued states are held:
`append` a state, `drain` them in order (each segment freed as it is read), `len`, `[i]` (the
states a worker hands over, in order: --workers).

Encoding. The states are appended to segments of SEGMENT states. The open segment is a list of
tuples. Sealed, it stays that list while the queue holds fewer than ENCODE_FROM states before it
(encoding costs about 0.4 µs a state, which a level that small does not win back in memory
worth having: a few MB), and without a budget; beyond, or with a budget, it is encoded a variable
at a time: the variable's values are numbered in the order
first met, and the segment keeps, per variable, the list of its distinct values and the number of
each state's value, 2 bytes (a segment holds at most 2^16 states, so at most 2^16 distinct values
per variable). Decoding zips the variables' values back into tuples (C iterators, no Python code
per state): the same objects that were appended, so the values the pools share (pools.py) are
shared still. A queued tuple of objects costs 40 bytes + 8 per variable and the list's pointer; an
encoded state 2 bytes per variable, plus, per distinct value of its segment, a pointer (values
shared by many states cost next to nothing; a value no other state of the segment has, as much as
before). The open segment, at most SEGMENT tuples, stays as it is.

Spill (TLC's DiskStateQueue idea). The queues of one process share a `Spill`: a budget in bytes
for the sealed segments they hold in memory (an estimate: their codes, and 64 bytes per distinct
value), and a temporary directory, made on first use. A segment sealed when the budget is full is
written there (pickled: its codes and values) and dropped from memory; it is read back when its
turn comes (the file is removed then), and its states are `restore`d (the model's
canonical_keys: unpickled maps get the interned key tuples, as states handed between workers do).
The order, and so every count and trace, is the same with and without spill. `Spill.close`
removes the directory and what is left in it (after the search, and when it ends on an error).
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from array import array
from itertools import chain, repeat
from operator import itemgetter
from typing import Callable, Iterable, Iterator

SEGMENT = 1 << 13  # states per segment (at most 2^16: a variable's value numbers fit in 16 bits)
ENCODE_FROM = 1 << 16  # without a budget, a queue's first states stay tuples (the module docstring)
VALUE_BYTES = 64  # the estimate of what one distinct value of a sealed segment holds in memory

_index = list.__getitem__
_index_array = array.__getitem__


def make_root() -> str:
    """A temporary directory for the spills of one search's processes (each makes its own in it)."""
    return tempfile.mkdtemp(prefix="tlacheck-queue-")


def remove_root(root: str) -> None:
    """Remove a search's spill directory and everything in it (also what a killed worker left)."""
    shutil.rmtree(root, ignore_errors=True)


class Spill:
    """Where the queues of one process write the segments beyond `budget` bytes (None: never):
    a temporary directory (in `root`, if given), made on first use. `held`: the bytes of the sealed
    segments in memory; `written`: the segments written so far."""

    def __init__(self, budget: int | None = None, root: str | None = None) -> None:
        self.budget = budget
        self.root = root
        self.held = 0
        self.written = 0
        self.dir: str | None = None

    def over(self, size: int) -> bool:
        """Whether a segment of `size` bytes would go beyond the budget."""
        return self.budget is not None and self.held + size > self.budget

    def write(self, data: bytes) -> str:
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="tlacheck-queue-", dir=self.root)
        path = os.path.join(self.dir, f"segment-{self.written}")
        with open(path, "wb") as fh:
            fh.write(data)
        self.written += 1
        return path

    def close(self) -> None:
        """Remove the directory and the segments left in it."""
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


class _Segment:
    """A sealed segment: `count` states, their `codes` (per variable, the number of each state's
    value) and the `values` of each variable, in memory (`size`: the estimate of their bytes,
    counted in the Spill's `held`), or in the file `path`; or, not encoded, the list of its
    `states` (size 0: a queue without budget)."""

    __slots__ = ("count", "codes", "values", "size", "path", "states")

    def __init__(self, count: int, codes: tuple | None, values: tuple | None, size: int,
                 states: list | None = None) -> None:
        self.count, self.codes, self.values, self.size, self.path = count, codes, values, size, None
        self.states = states

    def read(self) -> tuple[tuple, tuple]:
        if self.path is None:
            return self.codes, self.values
        with open(self.path, "rb") as fh:
            return pickle.load(fh)


def _encode(states: list, i: int) -> tuple[array, list]:
    """Variable `i` of `states`: the number of each one's value, and the values by number (numbered
    as first met: the next number is the dict's size; all in C)."""
    numbered: dict = {}
    n = len(states)
    codes = array("H", map(numbered.setdefault, map(itemgetter(i), states), map(len, repeat(numbered, n))))
    return codes, list(numbered)


class StateQueue:
    """States in order, encoded (the module docstring). `width`: the number of variables; `spill`:
    the process's Spill (None: one of its own, which never spills); `restore`: applied to the
    states read back from disk; `segment`: the states per segment (at most SEGMENT);
    `encode_from`: the states it holds before it encodes the segments it seals (None: ENCODE_FROM,
    0 with a budget, since only an encoded segment is counted against it and spilled).

    The open segment is a list of states, encoded when it is sealed, a variable at a time (kept as
    it is below `encode_from`); a sealed segment is decoded by zipping its variables' values back
    into tuples."""

    __slots__ = ("width", "spill", "restore", "segment", "encode_from", "segments", "_sealed", "_open",
                 "_cached")

    def __init__(self, width: int, spill: Spill | None = None, restore: Callable[[tuple], tuple] | None = None,
                 segment: int = SEGMENT, encode_from: int | None = None) -> None:
        assert 0 < segment <= 1 << 16
        self.width = width
        self.spill = spill if spill is not None else Spill()
        self.restore = restore
        self.segment = segment
        self.encode_from = (0 if self.spill.budget is not None else ENCODE_FROM) if encode_from is None else encode_from
        self.segments: list[_Segment] = []
        self._sealed = 0  # states in the sealed segments
        self._open: list[tuple] = []  # the states of the open segment
        self._cached: tuple = (-1, None, None)  # a spilled segment read back for `[i]`

    def __len__(self) -> int:
        return self._sealed + len(self._open)

    def append(self, state: tuple) -> None:
        self._open.append(state)
        if len(self._open) == self.segment:
            self.seal()

    def extend(self, states: Iterable[tuple]) -> None:
        for state in states:
            self.append(state)

    def seal(self) -> None:
        """Encode the open segment (if it holds states): it stays in memory, or goes to disk when
        the spill's budget is full; below `encode_from` states before it, it is kept as it is."""
        states = self._open
        if not states:
            return
        self._open = []
        if self._sealed < self.encode_from:
            self.segments.append(_Segment(len(states), None, None, 0, states))
            self._sealed += len(states)
            return
        columns = [_encode(states, i) for i in range(self.width)]
        codes, values = tuple(c for c, _ in columns), tuple(v for _, v in columns)
        seg = _Segment(len(states), codes, values, 2 * len(states) * self.width + VALUE_BYTES * sum(map(len, values)))
        del states, columns
        spill = self.spill
        if spill.over(seg.size):
            seg.path = spill.write(pickle.dumps((codes, values), pickle.HIGHEST_PROTOCOL))
            seg.codes = seg.values = None
        else:
            spill.held += seg.size
        self.segments.append(seg)
        self._sealed += seg.count

    def _release(self, seg: _Segment) -> None:
        """Free a sealed segment: its memory, or its file."""
        if seg.states is not None:
            seg.states = None
        elif seg.path is None:
            self.spill.held -= seg.size
            seg.codes = seg.values = None
        else:
            try:
                os.unlink(seg.path)
            except FileNotFoundError:
                pass
            seg.path = None

    def _states(self, segments: list) -> Iterator[Iterator[tuple]]:
        """Per segment, an iterator of its states (decoded in C); each segment is freed once its
        iterator is asked for, all of them if the iteration stops early."""
        try:
            for seg in segments:
                if seg.states is not None:  # not encoded
                    listed = iter(seg.states)
                    seg.states = None
                    yield listed
                    continue
                codes, values = seg.read()
                spilled = seg.path is not None
                self._release(seg)
                if not self.width:
                    yield repeat((), seg.count)
                    continue
                states = zip(*[map(v.__getitem__, c) for v, c in zip(values, codes)])
                yield map(self.restore, states) if spilled and self.restore is not None else states
        finally:
            for seg in segments:
                if seg.codes is not None or seg.path is not None or seg.states is not None:
                    self._release(seg)

    def drain(self) -> Iterator[tuple]:
        """The states in order; the queue is left empty, and each segment is freed once read (all
        of them if the iteration stops early)."""
        self.seal()
        segments, self.segments, self._sealed = self.segments, [], 0
        self._cached = (-1, None, None)
        return chain.from_iterable(self._states(segments))

    def __getitem__(self, i: int) -> tuple:
        """State number `i` (0 <= i < len): a spilled segment is read back (and kept until another
        one is needed)."""
        s, j = divmod(i, self.segment)
        if s == len(self.segments):
            return self._open[j]
        seg = self.segments[s]
        if seg.states is not None:
            return seg.states[j]
        if seg.path is None:
            codes, values, restore = seg.codes, seg.values, None
        else:
            if self._cached[0] != s:
                self._cached = (s, *seg.read())
            _, codes, values = self._cached
            restore = self.restore
        state = tuple(map(_index, values, map(_index_array, codes, repeat(j))))
        return state if restore is None else restore(state)

    def clear(self) -> None:
        """Drop every state (and the files of those spilled)."""
        for seg in self.segments:
            self._release(seg)
        self.segments, self._sealed, self._cached, self._open = [], 0, (-1, None, None), []
