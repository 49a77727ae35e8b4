"""The stores of the search: what it keeps of each state it has seen.

Every store numbers its states in the order they are stored (0, 1, ...: breadth-first order)
and keeps, per state, its parent's number (-1: an initial state) and its key, the value that
decides whether a successor is new and by which traces are rebuilt (traces.py). The search
(levels.py) tells new states by a non-zero 64-bit int per state, in its seen-set
(fingerprints.FingerprintTable, shared with the workers):

- `FingerprintStore`: that int is the state's 64-bit fingerprint (fingerprints.py), and it is
  the key: an array of parents and one of fingerprints, 8-16 bytes a state besides the table.
  Two states with the same fingerprint would be merged (explore.py gives the probability).
- `ExactStore`: that int is the state's number in a dict of every state seen (`id_of`), so
  no two states share one, and the store keeps every state: the key is the state itself.
  Exact storage, collect mode, and the state graph of the temporal properties.

A store that keys states by their orbit's key (symmetry: the hash of a canonical representative,
compile/symmetry.py) is a FingerprintStore whose `key_of` is that key: the search and traces need nothing else.

The loops read the arrays directly (levels.py inlines the table's probe): the store is the owner
of the layout, not a layer of calls on the hot path.
"""

from __future__ import annotations

from array import array
from itertools import count
from typing import Callable


class ExactStore:
    key_of = None  # the key of a state is the state

    __slots__ = ("parents", "fps", "states", "ids", "_next")

    def __init__(self) -> None:
        self.parents = array("i")
        self.fps = array("q")  # each stored state's id
        self.states: list[tuple] = []  # each stored state, by number
        # Every state seen -> its id: distinct positive ints, increasing in the order first seen
        # (not consecutive: a look-up of a state seen before draws a number too, which keeps it
        # one C call, `dict.setdefault`, per successor).
        self.ids: dict[tuple, int] = {}
        self._next = count(1).__next__

    def id_of(self) -> Callable[[tuple], int]:
        """The function giving a state its id, a new one the first time it is seen."""
        ids, draw = self.ids, self._next
        return lambda state: ids.setdefault(state, draw())

    def draw(self) -> tuple:
        """id_of for a list of states, for a loop that inlines it, one C call a state: with
        `setdefault, numbers = draw()`, `[*map(setdefault, states, numbers)]` are their ids."""
        return self.ids.setdefault, iter(self._next, 0)

    @property
    def count(self) -> int:
        return len(self.fps)

    def key(self, i: int) -> tuple:
        return self.states[i]

    def release(self) -> None:
        """Free what only tells new states (the ids); the states and parents stay, for traces."""
        self.ids.clear()


class FingerprintStore:
    __slots__ = ("parents", "fps", "key_of")

    def __init__(self, key_of: Callable[[tuple], int]) -> None:
        self.parents = array("i")
        self.fps = array("q")  # the key of each stored state, by number
        self.key_of = key_of

    @property
    def count(self) -> int:
        return len(self.fps)

    def key(self, i: int) -> int:
        return self.fps[i]

    def to_disk(self, columns) -> None:
        """Keep the parents and fingerprints as graphstore.Columns of `columns` (a GraphStore):
        under --memory-budget a search without a behaviour graph reads them only to rebuild a
        trace, so their blocks go to disk as they fill (levels.Coordinator._search)."""
        self.parents = columns.column("i", "parents", self.parents)
        self.fps = columns.column("q", "fingerprints", self.fps)

    def release(self) -> None:
        """Nothing to free: every table it has is needed for traces."""
