"""64-bit state fingerprints and the one table of them.

The fingerprint (one owner: `Fingerprinter`; every store and `--workers` use it)
-----------------------------------------------------------------------------
A state is a tuple with one value per variable. Each variable's value v in
slot i is hashed on its own:

    H(i, v) = BLAKE2b(encode(v), digest_size=8, salt=i, person="tlacheck.fp.v1")

read as a signed 64-bit int, where `encode` is an injective, canonical byte
encoding of the value (equal values, and only they, encode alike: sets are
sorted, the `Keys` tuples of maps and `none` are replaced by plain forms; see
`_canonical`). A variable of map type is hashed entry by entry instead:
H(i, m) is the XOR over its entries (k, v) of E(i, k, v), the same BLAKE2b of
the encoding of the pair (k, v). The state's fingerprint is the XOR of its
slots' hashes (0 is mapped to 1, the table's empty marker):

    fp(s) = H(0, s[0]) ^ H(1, s[1]) ^ ... ^ H(n-1, s[n-1])

so it is the XOR of the hashes of the state's *facts*: (slot, value) for each
variable, (slot, key, value) for each entry of a map variable.

Why it is a fingerprint (docs/reliability.md, "The fingerprint"): treat
BLAKE2b truncated to 64 bits as a random function, as its design intends.
Two distinct states differ in a non-empty set D of facts (the facts of one
state are a set: one per variable and per key), and their fingerprints are
equal only if the XOR over D of the facts' hashes is 0: an XOR of independent
uniform 64-bit values (distinct facts are distinct inputs, or the same input
under different salts), so the chance is 2^-64 per pair, whatever the
values' structure. The salt keeps slots apart: swapping two variables'
values changes the fingerprint. This is what `collision_probability`
assumes. CPython's `hash()` is not used for fingerprints: `hash(-1) ==
hash(-2)`, ints hash modulo 2^61 - 1, and a frozenset's hash is an XOR of its
elements' shuffled hashes, so distinct states collide systematically.

Speed. BLAKE2b costs about a microsecond, so each slot's hashes are memoised
in a dict keyed by the value itself (a dict compares keys by equality: the
memo cannot confuse two values). A successor differs from its parent only in
the slots its action may assign (codegen's analysis), so the generated
successor functions (`n{i}(s, fp, M, E)`, codegen._Gen._action) compute
fp(succ) = fp(s) ^ H(s's assigned values) ^ H(succ's assigned values)
inline, from these memos: two dict lookups per assigned slot, no call. When
an action assigns entries of a map (`m[k] = v`), the map's hash changes by
E(i, k, old) ^ E(i, k, new) per entry, which the generated code accumulates as
it assigns (entry memos `E`): a large map is not hashed again for a change of
one entry. Memos are bounded (`_MEMO_LIMIT` values per slot, emptied when full).

The results are the same in every process and Python version: the encoding
is defined here (marshal format version 2 over ints, bools, None, bytes and
tuples, which has not changed since Python 2.5; tests/test_fingerprints.py
pins the hashes of sample values), and BLAKE2b is a standard.

The table
---------
FingerprintTable is an open-addressing table of int64 slots (in memory of its
own, or shared with forked workers): linear probing, at most half full, 8 bytes
a slot, so 16 to 32 bytes per fingerprint instead of the ~100 a Python set of
ints takes. Every seen-set is one (one process, `--workers`, a Ray partition's
part). The search's hot loop inlines the probe (engine/levels.py); `find` and
`add` here are for everything else.

Placement is "last come, first served": a new fingerprint takes its home slot
and the one that was there moves to the empty slot the probe ended at (still
reachable: every slot between is full). A breadth-first search looks up the
states it stored last far more often than old ones (most duplicate successors
were found earlier in the same level), so those are found at the first probe:
0.10 extra probes per lookup instead of 0.66 on flags_16, 0.14 instead of
0.66 on two_phase_7, 0.22 instead of 0.75 on notify_race_4, at the same load.

Beyond `--memory-budget` the table spills (TLC's DiskFPSet idea): the coordinator merges its
fingerprints into a `SortedRun`, a sorted file on disk, and empties it (levels.Coordinator._growth,
when no worker reads the table); every worker (forked ones through a reader of the file, sent with
the level's Go) looks a successor up there before taking it as new.
"""

from __future__ import annotations

import heapq
import marshal
import mmap
import os
import tempfile
from array import array
from bisect import bisect_left, bisect_right
from functools import reduce
from hashlib import blake2b
from operator import xor
from typing import Callable, Sequence

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE


_PERSON = b"tlacheck.fp.v1"  # BLAKE2b personalisation: a new encoding gets a new one
_MEMO_LIMIT = 1 << 16  # values per slot memo; a full memo is emptied and fills again
# Values whose encoding is longer are hashed each time instead: memoising them would keep large
# values alive (and a lookup compares the whole value, about what hashing it again costs).
_MEMO_BYTES = 1 << 12


def _dumps(tree) -> bytes:
    return marshal.dumps(tree, 2)


# ------------------------------------------------------------------ the canonical encoding

Tree = object  # ints, bools, None, bytes and tuples of these: what marshal version 2 writes


def _canonical(t: T.Type) -> Callable[[object], Tree] | None:
    """A function from the values of type `t` to canonical trees (equal trees exactly for equal
    values), or None when every value of `t` is a canonical tree already (ints, bools, enum
    members and model values, and sequences, tuples and records of them).

    Sets become the tuple of their elements in sorted order (natural order where it is total,
    else the order of the elements' encodings); `none` becomes None; a map (keys, values)
    becomes plain tuples (its keys tuple may be runtime.keys_tuple's subclass, which marshal
    refuses)."""
    if isinstance(t, (T.BoolT, T.IntT, T.SortT)):
        return None
    if isinstance(t, T.OptionT):
        inner = _canonical(t.inner)
        if inner is None:
            return lambda v: None if v is NONE else v
        return lambda v: None if v is NONE else inner(v)
    if isinstance(t, T.SetT):
        element = _canonical(t.element)
        if element is None and T.naturally_ordered(t.element):
            return lambda v: tuple(sorted(v))
        if element is None:  # pragma: no cover - every non-natural type has a canonical function
            return lambda v: tuple(sorted(map(_dumps, v)))
        return lambda v: tuple(sorted(map(_dumps, map(element, v))))
    if isinstance(t, T.SeqT):
        element = _canonical(t.element)
        return None if element is None else (lambda v: tuple(map(element, v)))
    if isinstance(t, (T.TupleT, T.RecordT)):
        parts = [_canonical(p) for p in (t.elements if isinstance(t, T.TupleT) else [f for _, f in t.fields])]
        if all(p is None for p in parts):
            return None
        fns = [(lambda x: x) if p is None else p for p in parts]
        return lambda v: tuple(f(x) for f, x in zip(fns, v))
    if isinstance(t, T.MapT):
        key, value = _canonical(t.key), _canonical(t.value)
        keys = tuple if key is None else (lambda ks: tuple(map(key, ks)))
        values = (lambda vs: vs) if value is None else (lambda vs: tuple(map(value, vs)))
        return lambda v: (keys(v[0]), values(v[1]))
    return _any_tree  # AnyT: the element type of an empty literal


def _any_tree(v) -> Tree:
    """The canonical tree of a value of unknown type (every value is tagged by its Python type)."""
    if v is NONE:
        return None
    if isinstance(v, frozenset):
        return tuple(sorted(_dumps(_any_tree(x)) for x in v))
    if isinstance(v, tuple):
        return tuple(map(_any_tree, v))
    return v


def encode(v, t: T.Type) -> bytes:
    """The canonical encoding of value `v` of type `t` (what H hashes)."""
    canonical = _canonical(t)
    return _dumps(v if canonical is None else canonical(v))


def slot_hash(slot: int, data: bytes) -> int:
    """H for the encoding `data` of a value in slot `slot`: a signed 64-bit int."""
    digest = blake2b(data, digest_size=8, salt=slot.to_bytes(16, "little"), person=_PERSON).digest()
    return int.from_bytes(digest, "little", signed=True)


_CHUNK = 1 << 12  # elements of a long tuple encoded at a time


def _large(tree) -> bool:
    """Whether `tree` is a tuple long enough (or holding one, as a map's pair does) to be encoded
    in chunks: encoding a value at once would take about as much memory again as the value."""
    return type(tree) is tuple and (len(tree) > _CHUNK or any(type(x) is tuple and len(x) > _CHUNK for x in tree))


def _pieces(tree):
    """marshal.dumps(tree, 2), in pieces of about _CHUNK elements: version 2 writes a tuple as "("
    and its length (4 bytes, little-endian), then its elements one after another."""
    yield b"(" + len(tree).to_bytes(4, "little")
    if len(tree) > _CHUNK:
        for i in range(0, len(tree), _CHUNK):
            yield marshal.dumps(tree[i:i + _CHUNK], 2)[5:]
    else:
        for x in tree:
            if type(x) is tuple and len(x) > _CHUNK:
                yield from _pieces(x)
            else:
                yield marshal.dumps(x, 2)


def _remember(memo: dict, key, tree, person: bytes = _PERSON) -> int:
    """H of the canonical tree `tree` under `memo`'s salt (and `person`), kept in `memo` under
    `key` unless its encoding is longer than _MEMO_BYTES (a full memo is emptied first)."""
    if _large(tree):
        hasher = blake2b(digest_size=8, salt=memo.salt, person=person)
        for piece in _pieces(tree):
            hasher.update(piece)
        return int.from_bytes(hasher.digest(), "little", signed=True)
    data = marshal.dumps(tree, 2)
    h = int.from_bytes(blake2b(data, digest_size=8, salt=memo.salt, person=person).digest(), "little", signed=True)
    if len(data) <= _MEMO_BYTES:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        memo[key] = h
    return h


class _SlotMemo(dict):
    """Value -> H(slot, value) for one slot, computed on first use (dict.__getitem__ calls
    __missing__). Bounded: emptied when it holds _MEMO_LIMIT values; values whose encoding is
    longer than _MEMO_BYTES are not kept."""

    __slots__ = ("salt", "canonical")

    def __init__(self, slot: int, t: T.Type):
        super().__init__()
        self.salt = slot.to_bytes(16, "little")
        self.canonical = _canonical(t)

    def __missing__(self, v) -> int:
        canonical = self.canonical
        return _remember(self, v, v if canonical is None else canonical(v))


class _EntryMemo(dict):
    """(key, value) -> E(slot, key, value), the hash of one entry of a map in a slot of map type:
    as _SlotMemo, over the encoding of the pair."""

    __slots__ = ("salt", "key", "value")

    def __init__(self, slot: int, t: T.MapT):
        super().__init__()
        self.salt = slot.to_bytes(16, "little")
        self.key, self.value = _canonical(t.key), _canonical(t.value)

    def __missing__(self, entry: tuple) -> int:
        k, v = entry
        return _remember(self, entry, (k if self.key is None else self.key(k), v if self.value is None else self.value(v)))


# The personalisation of the hashes of a set's elements (_ElementMemo): apart from the slots' and
# the entries' hashes
_ELEMENT_PERSON = b"tlacheck.el.v1"


class _ElementMemo(dict):
    """Element -> its hash as an element of the set in a slot of set type: as _SlotMemo, over the
    element's encoding, personalised apart. The orbit keys of symmetry (compile/symmetry.py) hash
    such a set as the XOR of its elements' hashes, as a map's hash is its entries': a set's
    elements are its facts, so the argument of the module docstring holds, and a renamed set is
    hashed from its renamed elements' hashes without building, sorting and encoding it."""

    __slots__ = ("salt", "canonical")

    def __init__(self, slot: int, t: T.SetT):
        super().__init__()
        self.salt = slot.to_bytes(16, "little")
        self.canonical = _canonical(t.element)

    def __missing__(self, e) -> int:
        canonical = self.canonical
        return _remember(self, e, e if canonical is None else canonical(e), _ELEMENT_PERSON)


_MAP_ENTRIES = 256  # larger maps are not kept in a _MapMemo (their entries are)


class _MapMemo(dict):
    """Map value -> H(slot, map): the XOR of its entries' hashes (an _EntryMemo's), computed on
    first use."""

    __slots__ = ("entries",)

    def __init__(self, entries: _EntryMemo):
        super().__init__()
        self.entries = entries

    def __missing__(self, m) -> int:
        keys, values = m
        h = reduce(xor, map(self.entries.__getitem__, zip(keys, values)), 0)
        if len(keys) <= _MAP_ENTRIES:
            if len(self) >= _MEMO_LIMIT:
                self.clear()
            self[m] = h
        return h


_getitem = dict.__getitem__


class Fingerprinter:
    """The fingerprint function of one model's states (see the module docstring). Pure: the memos
    only cache H. Each process builds its own; all give the same fingerprints.

    `memos[i]`: value -> H(i, value) for slot i; `entries[i]`: for a slot of map type, (key,
    value) -> the hash of that entry (None for other slots), with which the generated code
    updates a map's hash when it assigns one entry."""

    def __init__(self, var_types: Sequence[T.Type]):
        self.entries = tuple(_EntryMemo(i, t) if isinstance(t, T.MapT) else None for i, t in enumerate(var_types))
        self.memos = tuple(_SlotMemo(i, t) if e is None else _MapMemo(e)
                           for i, (t, e) in enumerate(zip(var_types, self.entries)))
        # For a slot of set type, its elements' hashes (_ElementMemo: symmetry's keys); None for others
        self.elements = tuple(_ElementMemo(i, t) if isinstance(t, T.SetT) else None for i, t in enumerate(var_types))

    def __call__(self, state: tuple) -> int:
        return reduce(xor, map(_getitem, self.memos, state), 0) or 1

    def raw(self, state: tuple) -> int:
        """The XOR of the state's per-slot hashes (its fingerprint, unless that is 0)."""
        return reduce(xor, map(_getitem, self.memos, state), 0)


def collision_probability(distinct: int, generated: int) -> float:
    """TLC's optimistic estimate: each of the `generated - distinct` lookups that found a
    stored state could have matched one of `distinct` fingerprints by chance (2^-64 each:
    the module docstring says why that holds for this fingerprint)."""
    return distinct * max(generated - distinct, 0) / 2.0 ** 64


MIN_SLOTS = 1 << 16  # a table's smallest size
_CLEAR = 1 << 20  # slots zeroed at a time by FingerprintTable.clear (zeros for all would double its bytes)


def slots_for(n: int) -> int:
    """A table size for n fingerprints: at most half full."""
    slots = MIN_SLOTS
    while n > slots >> 1:
        slots <<= 1
    return slots


def _anonymous_file(size: int) -> int:
    """A file descriptor of `size` zero bytes in memory, with no name to clean up."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("tlacheck-fingerprints", os.MFD_CLOEXEC)
    else:  # pragma: no cover - non-Linux
        fd, path = tempfile.mkstemp(prefix="tlacheck-fingerprints-")
        os.unlink(path)
    try:
        os.ftruncate(fd, size)
    except BaseException:
        os.close(fd)
        raise
    return fd


class FingerprintTable:
    """The one set of fingerprints, the seen-set of every search (the store seam): non-zero signed
    64-bit ints (Fingerprinter's values, or exact storage's ids) in an open-addressing table of
    int64 slots (`table`, a memoryview), linear probing, at most half full, last come first served
    (the module docstring). Private to this process, or `shared`: in memory that forked workers
    map too (`fd` is kept only until they have it: forked with it, or sent it after a growth), and
    then only one process writes it, while the others do not read it (levels.py).

    The hot loop of the search (levels.Worker._expand) inlines `find`'s probe: one call per
    successor would cost more than the probe itself. Growing is the owner's decision (a table never
    grows by itself: shared memory cannot): `room`, then `grown` or, a chunk at a time, `copy_into`."""

    __slots__ = ("fd", "mm", "table", "mask", "count")

    def __init__(self, slots: int | None = None, shared: bool = False, fd: int | None = None):
        slots = slots or MIN_SLOTS
        self.fd = _anonymous_file(8 * slots) if fd is None and shared else fd
        self.mm = mmap.mmap(-1 if self.fd is None else self.fd, 8 * slots)
        self.table = memoryview(self.mm).cast("q")
        self.mask = slots - 1
        self.count = 0

    @classmethod
    def attach(cls, slots: int, fd: int) -> "FingerprintTable":
        """The shared table whose descriptor `fd` another process sent (the descriptor is closed)."""
        try:
            table = cls(slots, fd=fd)
        finally:
            os.close(fd)
        table.fd = None
        return table

    def __len__(self) -> int:
        return self.count

    def find(self, fp: int) -> int:
        """The slot holding `fp` (>= 0), or ~slot of the empty slot where it would go (< 0)."""
        table, mask = self.table, self.mask
        j = fp & mask
        x = table[j]
        while x:
            if x == fp:
                return j
            j = (j + 1) & mask
            x = table[j]
        return ~j

    def __contains__(self, fp: int) -> bool:
        return self.find(fp) >= 0

    def put(self, fp: int, slot: int) -> None:
        """Store `fp`, absent, whose probe ended at the empty `slot` (last come, first served:
        `fp` takes its home slot, whose fingerprint moves to `slot`)."""
        table = self.table
        home = fp & self.mask
        table[slot] = table[home]
        table[home] = fp
        self.count += 1

    def add(self, fp: int) -> bool:
        """Store `fp`; False if it was there already. The owner sees to the room (`room`)."""
        j = self.find(fp)
        if j >= 0:
            return False
        self.put(fp, ~j)
        return True

    def insert(self, fps) -> None:
        """Store fingerprints known to be absent and distinct (last come, first served, as `put`:
        the next level's lookups find the newest at the first probe)."""
        table, mask = self.table, self.mask
        for fp in fps:
            h = fp & mask
            x = table[h]
            if x:  # the home slot's fingerprint moves to the end of the run
                j = (h + 1) & mask
                while table[j]:
                    j = (j + 1) & mask
                table[j] = x
            table[h] = fp
        self.count += len(fps)

    def room(self, more: int) -> bool:
        """Whether `more` fingerprints fit with the table at most half full."""
        return self.count + more <= (self.mask + 1) >> 1

    def fingerprints(self) -> array:
        """The fingerprints stored, in slot order."""
        return array("q", filter(None, self.table))

    def copy_into(self, other: "FingerprintTable", chunk: int):
        """Copy the fingerprints into `other`, `chunk` at a time, yielding between chunks (the
        coordinator does other work meanwhile: levels.py)."""
        old = self.fingerprints()
        for i in range(0, len(old), chunk):
            other.insert(old[i:i + chunk])
            yield

    def grown(self, needed: int) -> "FingerprintTable":
        """A table with room for `needed` fingerprints in all, 4x at a time (less rehashing), holding
        these, shared if this one still is; this one is closed. (For a table no other process maps:
        one that workers read grows through `copy_into`.)"""
        grown = FingerprintTable(slots_for(2 * needed), shared=self.fd is not None)
        grown.insert(self.fingerprints())
        self.close()
        return grown

    def clear(self) -> None:
        """Empty the table (its fingerprints spilled: SortedRun)."""
        slots = self.mask + 1
        zeros = memoryview(bytes(8 * min(slots, _CLEAR))).cast("q")
        for i in range(0, slots, len(zeros)):
            self.table[i:i + len(zeros)] = zeros[:slots - i]
        self.count = 0

    def close_fd(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def close(self) -> None:
        self.table.release()
        self.mm.close()
        self.close_fd()


_BLOCK = 512  # fingerprints per block of a SortedRun: one read of 4 KB per look-up
# Fingerprints sorted at a time by a merge: sorting the table's all at once would hold them as
# Python ints (about 40 bytes each: more than the table itself); chunks are sorted into arrays
_SORT_CHUNK = 1 << 20


def _sorted_chunks(fps: array) -> list[memoryview]:
    """`fps` sorted a chunk of at most _SORT_CHUNK at a time, in place (one chunk's list of ints at
    a time, and no second array: the table's fingerprints are hundreds of MB at 10^7 states), and
    the chunks as views of it, for a merge."""
    for i in range(0, len(fps), _SORT_CHUNK):
        fps[i:i + _SORT_CHUNK] = array("q", sorted(fps[i:i + _SORT_CHUNK]))
    view = memoryview(fps)
    return [view[i:i + _SORT_CHUNK] for i in range(0, len(fps), _SORT_CHUNK)]


class SortedRun:
    """Fingerprints spilled from the table (TLC's DiskFPSet idea): sorted, in a file of int64 in
    `directory`, with the first fingerprint of each block of _BLOCK in memory (`index`, 8 bytes per
    512 fingerprints): a look-up bisects the index, reads one block (os.pread) and bisects it.
    `merge` writes a new file with the table's fingerprints merged in (the old one removed).

    Forked workers look the run up too (`--workers`): the coordinator, which owns the file, sends
    `shared()` after a merge, and each worker opens it as a reader (`opened`), which has the same
    `in` and removes nothing (a file the owner has replaced stays readable through the reader's
    descriptor until the reader closes it)."""

    def __init__(self, directory: str | None, owner: bool = True) -> None:
        self.directory = directory
        self.owner = owner  # it writes the file (merge), and removes it (close)
        self.fd: int | None = None
        self.path: str | None = None
        self.index = array("q")
        self.count = 0
        self.files = 0  # merges so far: the version of the file, which `shared` names

    @classmethod
    def opened(cls, shared: tuple) -> "SortedRun":
        """A reader of the run another process merged: `shared` is that run's `shared()`."""
        run = cls(None, owner=False)
        run.path, run.index, run.count, run.files = shared
        run.fd = os.open(run.path, os.O_RDONLY)
        return run

    def shared(self) -> tuple:
        """What a reader in another process needs to look the current file up (`opened`): its
        path, its index of block heads, its count and version."""
        return self.path, self.index, self.count, self.files

    def __len__(self) -> int:
        return self.count

    def __contains__(self, fp: int) -> bool:
        b = bisect_right(self.index, fp) - 1
        if b < 0:
            return False
        block = memoryview(os.pread(self.fd, 8 * _BLOCK, 8 * _BLOCK * b)).cast("q")
        i = bisect_left(block, fp)
        return i < len(block) and block[i] == fp

    def _stored(self):
        """The fingerprints of the file, in order, read a chunk at a time."""
        if self.fd is None:
            return
        offset = 0
        while True:
            data = os.pread(self.fd, 8 * _BLOCK * 64, offset)
            if not data:
                return
            offset += len(data)
            yield from memoryview(data).cast("q")

    def merge(self, fps: array) -> None:
        """Add distinct fingerprints (`fps` is sorted in place); those in the run already are kept
        once (a one-process search puts the candidates into its table before it looks them up
        here: Worker.direct)."""
        assert self.owner, "a reader does not merge"
        if not isinstance(fps, array):
            fps = array("q", fps)
        path = os.path.join(self.directory, f"fingerprints-{self.files}")
        self.files += 1
        index, out, count = array("q"), array("q"), 0
        with open(path, "wb") as fh:
            last = 0  # (0 is no fingerprint: the table's empty mark)
            for fp in heapq.merge(self._stored(), *_sorted_chunks(fps)):
                if fp == last:
                    continue
                last = fp
                if not count % _BLOCK:
                    index.append(fp)
                out.append(fp)
                count += 1
                if len(out) == _BLOCK * 64:
                    out.tofile(fh)
                    out = array("q")
            out.tofile(fh)
        self.close()
        self.fd, self.path, self.index, self.count = os.open(path, os.O_RDONLY), path, index, count

    def close(self) -> None:
        """Close the file, and remove it if this run owns it."""
        if self.fd is not None:
            os.close(self.fd)
            if self.owner:
                os.unlink(self.path)
            self.fd = self.path = None


class NumberTable:
    """The number of each stored state's fingerprint (its position in `fps`, the store's array of
    distinct fingerprints, which grows as the search stores states): the behaviour graph's
    successors become numbers level by level (levels.Coordinator._add_level). An open-addressing
    table of the numbers alone, probing `fps` itself, at most half full: 8 to 16 bytes per state,
    instead of the ~100 of a dict. Works for any distinct ints (the ids of exact storage too)."""

    def __init__(self, fps: array):
        self.fps = fps
        self.count = 0
        self._make(1 << 16)

    def _make(self, slots: int) -> None:
        self.mask = slots - 1
        self.table = array("i", [-1]) * slots if slots < 1 << 31 else array("q", [-1]) * slots
        count, self.count = self.count, 0
        self._insert(count)

    def _insert(self, end: int) -> None:
        fps, table, mask = self.fps, self.table, self.mask
        for i in range(self.count, end):
            h = fps[i] & mask
            while table[h] >= 0:
                h = (h + 1) & mask
            table[h] = i
        self.count = end

    def extend(self) -> None:
        """Take in the states stored since the last call."""
        end = len(self.fps)
        if 2 * end > self.mask + 1:
            slots = self.mask + 1
            while 2 * end > slots:
                slots <<= 2
            self.count = end
            self._make(slots)
        else:
            self._insert(end)

    def number(self, fp: int, default: int = -1) -> int:
        """The number of the state with this fingerprint, or `default`."""
        fps, table, mask = self.fps, self.table, self.mask
        h = fp & mask
        i = table[h]
        while i >= 0:
            if fps[i] == fp:
                return i
            h = (h + 1) & mask
            i = table[h]
        return default
