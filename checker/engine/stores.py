"""The stores of the search: what it keeps of each state it has seen.

Every store numbers its states in the order they are stored (0, 1, ...: breadth-first order)
and keeps, per state, its parent's number (-1: an initial state) and its key, the value that
decides whether a successor is new and by which traces are rebuilt (traces.py):

- `ExactStore`: the key is the state itself (a dict from state to number, and every state);
  no collision is possible. Exact storage and the liveness checker's graph.
- `FingerprintStore`: the key is the state's 64-bit fingerprint (fingerprints.py), in an
  open-addressing table, with an array of parents and one of fingerprints: 8-16 bytes a
  state besides the table. Fingerprint storage: the level-synchronous search (levels.py)
  keeps the parents and fingerprints here, and the table here for the initial states,
  then in its own (shared with the workers, with `--workers`).

A store that keys states by the fingerprint of a canonical representative (symmetry) is a
FingerprintStore whose `key_of` canonicalises first: the search and traces need nothing else.

The loops read the arrays directly (levels.py inlines the table's probe): the store is the owner
of the layout, not a layer of calls on the hot path.
"""

from __future__ import annotations

from array import array
from typing import Callable

from checker.engine.fingerprints import FingerprintSet


class ExactStore:
    key_of = None  # the key of a state is the state

    __slots__ = ("states", "parents", "index")

    def __init__(self) -> None:
        self.states: list[tuple] = []
        self.parents: list[int] = []
        self.index: dict[tuple, int] = {}

    @property
    def count(self) -> int:
        return len(self.states)

    def key(self, i: int) -> tuple:
        return self.states[i]


class FingerprintStore:
    __slots__ = ("seen", "parents", "fps", "key_of")

    def __init__(self, key_of: Callable[[tuple], int]) -> None:
        self.seen = FingerprintSet()  # None when another table replaces it (levels.py)
        self.parents = array("i")
        self.fps = array("q")  # the key of each stored state, by number
        self.key_of = key_of

    @property
    def count(self) -> int:
        return len(self.fps)

    def key(self, i: int) -> int:
        return self.fps[i]
