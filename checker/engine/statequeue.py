"""The queue of the search: the states of a level, held encoded, and spilled to disk beyond a budget.

A worker holds the level it expands (its frontier) and the states it admits for the next level
(admission.Admission.kept) in a `StateQueue`, the one owner of how queued states are held:
`append` a state, `drain` them in order (each segment freed as it is read), `len`, `[i]` (the
states a worker hands over, in order: --workers).

Encoding. The states are appended to segments of at most SEGMENT states. Within a segment, each
variable's values are numbered in the order first met (a dict per variable, while the segment is
open; a list per variable once it is sealed), and a state is the numbers of its values: 2 bytes a
variable (a segment holds at most 2^16 states, so at most 2^16 distinct values per variable). A
state is decoded as the tuple of its numbers' values, the same objects that were appended: equal
states, and the objects the pools shared (pools.py) are shared still. A tuple of objects costs 56
+ 8 bytes per variable and the list's pointer; the encoded state 2 bytes per variable, and each
distinct value of a segment a pointer (values shared by many states cost next to nothing; a value
that no other state of the segment has, as much as before).

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
from typing import Callable, Iterable, Iterator

SEGMENT = 1 << 16  # states per segment: a variable's value numbers fit in 16 bits
VALUE_BYTES = 64  # the estimate of what one distinct value of a sealed segment holds in memory

_getitem = dict.__getitem__
_index = list.__getitem__


class _Numbered(dict):
    """One variable's values in the open segment -> their numbers, given in the order first met
    (`values`: the values by number)."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        super().__init__()
        self.values: list = []

    def __missing__(self, v) -> int:
        code = self[v] = len(self.values)
        self.values.append(v)
        return code


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
    """A sealed segment: `count` states, their `codes` and the `values` of each variable, in
    memory (`size`: the estimate of their bytes, counted in the Spill's `held`), or in the file
    `path`."""

    __slots__ = ("count", "codes", "values", "size", "path")

    def __init__(self, count: int, codes: array, values: tuple, size: int) -> None:
        self.count, self.codes, self.values, self.size, self.path = count, codes, values, size, None

    def read(self) -> tuple[array, tuple]:
        if self.path is None:
            return self.codes, self.values
        with open(self.path, "rb") as fh:
            return pickle.load(fh)


class StateQueue:
    """States in order, encoded (the module docstring). `width`: the number of variables; `spill`:
    the process's Spill (None: one of its own, which never spills); `restore`: applied to the
    states read back from disk; `segment`: the states per segment (at most SEGMENT)."""

    __slots__ = ("width", "spill", "restore", "segment", "segments", "count", "_codes", "_numbered", "_open",
                 "_cached")

    def __init__(self, width: int, spill: Spill | None = None, restore: Callable[[tuple], tuple] | None = None,
                 segment: int = SEGMENT) -> None:
        assert 0 < segment <= SEGMENT
        self.width = width
        self.spill = spill if spill is not None else Spill()
        self.restore = restore
        self.segment = segment
        self.segments: list[_Segment] = []
        self.count = 0
        self._cached: tuple = (-1, None, None)  # a spilled segment read back for `[i]`
        self._start()

    def _start(self) -> None:
        self._codes = array("H")
        self._numbered = tuple(_Numbered() for _ in range(self.width))
        self._open = 0  # states in the open segment

    def __len__(self) -> int:
        return self.count

    def append(self, state: tuple) -> None:
        if self._open == self.segment:
            self.seal()
        self._codes.extend(map(_getitem, self._numbered, state))
        self._open += 1
        self.count += 1

    def extend(self, states: Iterable[tuple]) -> None:
        for state in states:
            self.append(state)

    def seal(self) -> None:
        """Close the open segment (if it holds states): it stays in memory, or goes to disk when
        the spill's budget is full."""
        if not self._open:
            return
        codes, values = self._codes, tuple(n.values for n in self._numbered)
        seg = _Segment(self._open, codes, values, 2 * len(codes) + VALUE_BYTES * sum(map(len, values)))
        spill = self.spill
        if spill.over(seg.size):
            seg.path = spill.write(pickle.dumps((codes, values), pickle.HIGHEST_PROTOCOL))
            seg.codes = seg.values = None
        else:
            spill.held += seg.size
        self.segments.append(seg)
        self._start()

    def _release(self, seg: _Segment) -> None:
        """Free a sealed segment: its memory, or its file."""
        if seg.path is None:
            self.spill.held -= seg.size
            seg.codes = seg.values = None
        else:
            try:
                os.unlink(seg.path)
            except FileNotFoundError:
                pass
            seg.path = None

    def _decode(self, codes: array, values: tuple, restore) -> Iterator[tuple]:
        w = self.width
        if not w:
            return
        for i in range(0, len(codes), w):
            state = tuple(map(_index, values, codes[i:i + w]))
            yield state if restore is None else restore(state)

    def drain(self) -> Iterator[tuple]:
        """The states in order; the queue is left empty, and each segment is freed once read (all
        of them if the iteration stops early)."""
        self.seal()
        segments, self.segments, self.count = self.segments, [], 0
        self._cached = (-1, None, None)
        try:
            for seg in segments:
                codes, values = seg.read()
                restore = self.restore if seg.path is not None else None
                self._release(seg)
                if self.width:
                    yield from self._decode(codes, values, restore)
                else:
                    for _ in range(seg.count):
                        yield ()
        finally:
            for seg in segments:
                if seg.codes is not None or seg.path is not None:
                    self._release(seg)

    def __getitem__(self, i: int) -> tuple:
        """State number `i` (0 <= i < len): a spilled segment is read back (and kept until another
        one is needed)."""
        s, j = divmod(i, self.segment)
        if s == len(self.segments):
            codes, values = self._codes, tuple(n.values for n in self._numbered)
            restore = None
        else:
            seg = self.segments[s]
            if seg.path is None:
                codes, values, restore = seg.codes, seg.values, None
            else:
                if self._cached[0] != s:
                    self._cached = (s, *seg.read())
                _, codes, values = self._cached
                restore = self.restore
        w = self.width
        state = tuple(map(_index, values, codes[j * w:(j + 1) * w]))
        return state if restore is None else restore(state)

    def clear(self) -> None:
        """Drop every state (and the files of those spilled)."""
        for seg in self.segments:
            self._release(seg)
        self.segments, self.count, self._cached = [], 0, (-1, None, None)
        self._start()
