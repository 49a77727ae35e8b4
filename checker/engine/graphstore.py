"""The behaviour graph's arrays on disk beyond --memory-budget (issue 35, item 2).

The liveness checker's graph (liveness.Graph) is a handful of append-only arrays of fixed-size
records: per state, where its transitions start and the bits of its atoms and fairness conditions;
per transition, its successor and the bits it takes. Without a budget they are `array`s in memory.
With one, each is a `Column`: the same records in blocks of BLOCK, appended level by level as
before; a block, once full, stays in memory while the graph's share of the budget (`GraphStore`,
shared by its columns) has room, and is written to the column's file otherwise. The blocks in
memory are the first ones of each column, those on disk follow in order, and the open block (at
most BLOCK records) is in memory.

A column reads as an array does (`c[i]`, `len(c)`, a slice, iteration; `bisect` works on it), so
the checker's passes (SCCs, the fair-cycle search, the prefix and cycle searches, the tableau's
product) read it unchanged: a record on disk is read with its block (os.pread) into a small cache
of the column's blocks (CACHE_BYTES, the oldest dropped first), and the block last read is kept
apart, so that reading a state's transitions one after the other costs one look-up. What a column
holds in memory beyond its share is therefore its open block and its cache: some megabytes,
however large the graph. The price is time: a read is a Python call, not an array's C look-up,
and a block not cached is a system call.

The store's parents and fingerprints (stores.FingerprintStore.to_disk) are Columns too, of a
GraphStore of budget 0, under --memory-budget when the search has no behaviour graph: append-only
like the graph's arrays, read only to rebuild a trace.

`GraphStore.close` closes the files and removes their directory (after the search, also when it
ends on an error or a stop: levels.Coordinator._shutdown).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from array import array

SHIFT = 12
BLOCK = 1 << SHIFT  # records per block
MASK = BLOCK - 1
CACHE_BYTES = 1 << 22  # the blocks read back from disk that a column keeps, at most (per column)


class GraphStore:
    """Where the columns of one graph go beyond `budget` bytes of full blocks held in memory (0:
    every full block to disk): a directory in `root`, made on first use."""

    def __init__(self, budget: int, root: str | None = None) -> None:
        self.budget = budget
        self.root = root
        self.held = 0  # bytes of full blocks in memory
        self.dir: str | None = None
        self.columns: list[Column] = []

    def keep(self, size: int) -> bool:
        """Whether a full block of `size` bytes may stay in memory (then it counts)."""
        if self.held + size > self.budget:
            return False
        self.held += size
        return True

    def open(self, name: str) -> int:
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="tlacheck-graph-", dir=self.root)
        return os.open(os.path.join(self.dir, name), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)

    def column(self, typecode: str, name: str, records=()) -> "Column":
        """A new column of `typecode` records, holding `records` to start with."""
        column = Column(typecode, self, name)
        column.extend(records)
        self.columns.append(column)
        return column

    def on_disk(self) -> int:
        """The bytes written to disk so far, all columns."""
        return sum(c.spilled * c.block_bytes for c in self.columns)

    def close(self) -> None:
        for column in self.columns:
            column.close()
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


class Column:
    """An append-only array of `typecode` records in blocks: the first ones in memory, then those
    on disk, then the open one (module docstring)."""

    def __init__(self, typecode: str, store: GraphStore, name: str) -> None:
        self.typecode = typecode
        self.store = store
        self.name = name
        self.block_bytes = BLOCK * array(typecode).itemsize
        self.memory: list[array] = []  # the first full blocks
        self.spilled = 0  # full blocks on disk, after those in memory
        self.tail = array(typecode)  # the open block
        self.length = 0
        self.fd = -1
        self.cache: dict[int, array] = {}  # block on disk (its place in the file) -> its records
        self.cache_max = max(2, CACHE_BYTES // self.block_bytes)
        self.hot: int | None = None  # the block last read, and its records
        self.hot_block = self.tail

    def __len__(self) -> int:
        return self.length

    def append(self, x: int) -> None:
        self.tail.append(x)
        self.length += 1
        if len(self.tail) == BLOCK:
            self._seal()

    def extend(self, records) -> None:
        if not isinstance(records, array) or records.typecode != self.typecode:
            records = array(self.typecode, records)
        at, n = 0, len(records)
        while at < n:
            room = BLOCK - len(self.tail)
            self.tail.extend(records[at:at + room])
            taken = min(room, n - at)
            at += taken
            self.length += taken
            if len(self.tail) == BLOCK:
                self._seal()

    def _seal(self) -> None:
        """The open block is full: kept in memory (while the budget has room and no block went
        to disk before it) or written to the file; a new block is opened (the full one, read
        still, is left as it is)."""
        block = self.tail
        if not self.spilled and self.store.keep(self.block_bytes):
            self.memory.append(block)
        else:
            if self.fd < 0:
                self.fd = self.store.open(self.name)
            os.pwrite(self.fd, block, self.spilled * self.block_bytes)
            self.spilled += 1
        self.tail = array(self.typecode)

    def _block(self, b: int) -> array:
        held = len(self.memory)
        if b < held:
            return self.memory[b]
        d = b - held
        if d >= self.spilled:
            return self.tail
        found = self.cache.get(d)
        if found is None:
            found = array(self.typecode)
            found.frombytes(os.pread(self.fd, self.block_bytes, d * self.block_bytes))
            cache = self.cache
            if len(cache) >= self.cache_max:
                del cache[next(iter(cache))]
            cache[d] = found
        return found

    def __getitem__(self, i):
        if type(i) is slice:
            return array(self.typecode, map(self.__getitem__, range(*i.indices(self.length))))
        # (the block last read is a full block, or the open one, whose own length bounds i)
        b = i >> SHIFT
        if b == self.hot:
            return self.hot_block[i & MASK]
        if i < 0:
            i += self.length
            b = i >> SHIFT
        if not 0 <= i < self.length:
            raise IndexError("column index out of range")
        self.hot_block = self._block(b)
        self.hot = b
        return self.hot_block[i & MASK]

    def whole(self) -> array | None:
        """Its records as one array, when none is on disk (None otherwise); the column is not
        used after."""
        if self.spilled:
            return None
        out = array(self.typecode)
        for block in self.memory:
            out.extend(block)
        out.extend(self.tail)
        self.memory.clear()
        return out

    def __iter__(self):
        for b in range((self.length + MASK) >> SHIFT):
            yield from self._block(b)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.cache.clear()


class Zeros:
    """`length` zeros, read as a column: the fairness bits of a graph on disk when the spec has no
    fairness condition (in memory: bytes of that length)."""

    def __init__(self, length: int) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i):
        if type(i) is slice:
            return bytes(len(range(*i.indices(self.length))))
        if not -self.length <= i < self.length:
            raise IndexError("index out of range")
        return 0
