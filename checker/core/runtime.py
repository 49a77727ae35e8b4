"""Run-time support for generated code: value operations and evaluation faults.

Representation of values (see DESIGN.md "States and values"):
bool, int; enum members and model values as small ints; `none` as the NONE
singleton (CPython 3.11 hashes None by address, which differs between
processes; NONE hashes to a constant); sets as frozensets; sequences, tuples
and records as tuples (records in sorted field order); maps as a pair
(keys, values) of tuples with the keys in canonical order.
"""

from __future__ import annotations

from itertools import combinations, permutations, product


class _NoneValue(complex):
    """The value `none` of an option type. A singleton, also after pickling.

    A complex number so that hashing and comparing it run in C (states holding `none` are
    hashed on every step): no spec value is complex, so it equals nothing else, has no
    order, and its hash is the same in every process."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NONE"

    def __reduce__(self):
        return (_none, ())


NONE = _NoneValue(0, 0x5EED_0B7E)


def _none() -> _NoneValue:
    return NONE


class Fault(Exception):
    """An evaluation error inside generated code. `where` indexes the model's span table."""

    def __init__(self, code: str, where: int, *values):
        super().__init__(code, where, *values)
        self.code = code
        self.where = where
        self.values = values


# What generated code may raise when a spec's expression fails on a state: a Fault (E401-E410),
# a RecursionError (E406: a `def` that recurses too deep) or a MemoryError (E411: a value too large
# for memory). The explorers turn each into an evaluation error (Model.eval_error, Model.limit_error).
EVAL_FAILURES = (Fault, RecursionError, MemoryError)


def canon_key(v):
    """A sort key giving every value a total, process-independent order."""
    t = type(v)
    if t is int or t is bool:
        return (1, v)
    if t is tuple:
        return (2, tuple(map(canon_key, v)))
    if t is frozenset:
        return (3, tuple(sorted(map(canon_key, v))))
    if v is NONE:
        return (0,)
    if isinstance(v, tuple):  # a long domain's key tuple (keys_tuple)
        return (2, tuple(map(canon_key, v)))
    raise TypeError(f"not a tlacheck value: {v!r}")  # pragma: no cover


# The canonical sort key of `none` in an option of ints, bools or members (codegen's typed keys):
# below every int and equal only to itself, as canon_key puts `none` first.
NINF = float("-inf")


_NONE_ONLY = frozenset((NONE,))


def sorted_option(s) -> list:
    """The elements of a set of `T?`, with T naturally ordered, in canonical order: `none` first
    (canon_key puts it before every other value), then the others in their own order."""
    if NONE in s:
        return [NONE, *sorted(s - _NONE_ONLY)]
    return sorted(s)


def canon(s) -> list:
    """The elements of a set in canonical order (works for every element type)."""
    return sorted(s, key=canon_key)


def retry_canonical(fast, canonical):
    """The value of a set or sum comprehension some element of which may fault: `fast()`, which
    iterates the sets as they lie, or, when it fails, `canonical()`, the same in canonical order,
    which raises the fault met first in that order. Both evaluate every element, so with no
    fault they give the same value, and with one the same error as `canonical()` alone."""
    try:
        return fast()
    except EVAL_FAILURES:
        return canonical()


# ---------------------------------------------------------------- maps

# Key tuples of at least this many keys hash faster with their hash computed once (keys_tuple);
# for shorter ones, hashing the ints costs no more than the call that returns a cached hash.
CACHED_HASH_KEYS = 8


def keys_tuple(keys: tuple) -> tuple:
    """A constant domain's canonical tuple, as generated code interns it for map keys. With
    CACHED_HASH_KEYS keys or more, an equal tuple of a subclass made for it, whose hash is the
    tuple's own, computed once and returned by a method in C: a state is hashed at every step,
    and its maps usually share these tuples (flags_16: 16 keys rehashed per successor before).
    Hashes, so fingerprints, are the same as a plain tuple's; it pickles as a plain tuple."""
    if len(keys) < CACHED_HASH_KEYS:
        return keys
    cached = type("Keys", (tuple,), {"__slots__": (), "__hash__": hash(keys).__index__, "__reduce__": _as_tuple})
    return cached(keys)


def _as_tuple(keys: tuple):
    return (tuple, (tuple(keys),))


def mkmap(pairs, natural: bool, where: int, keys_table: dict | None = None):
    """Build a map from (key, value) pairs; the same key twice with two values is a fault.
    `keys_table` interns the key tuple (generated code passes the model's hoisted domains, so
    that a map over a constant domain shares that domain's tuple: codegen's fast path)."""
    d = {}
    for k, v in pairs:
        if k in d and d[k] != v:
            raise Fault("E409", where, k, d[k], v)
        d[k] = v
    keys = tuple(sorted(d) if natural else sorted(d, key=canon_key))
    if keys_table is not None:
        keys = keys_table.get(keys, keys)
    return (keys, tuple(d[k] for k in keys))


def lookup(m, k, where: int):
    try:
        return m[1][m[0].index(k)]
    except ValueError:
        raise Fault("E401", where, m, k) from None


def map_set(m, k, v, where: int):
    return map_update(m, k, v, where)[0]


def map_update(m, k, v, where: int):
    """(m with key `k` mapped to `v`, the value `k` had); E401 when `k` is not in m's domain. The
    old value is what generated code needs to update the map's hash."""
    keys = m[0]
    try:
        i = keys.index(k)
    except ValueError:
        raise Fault("E401", where, m, k) from None
    vals = m[1]
    return (keys, vals[:i] + (v,) + vals[i + 1:]), vals[i]


# ---------------------------------------------------------------- sequences

def at(s, i, where: int):
    if type(i) is int and 1 <= i <= len(s):
        return s[i - 1]
    raise Fault("E405", where, s, i)


def seq_set(s, i, v, where: int):
    if 1 <= i <= len(s):
        return s[:i - 1] + (v,) + s[i:]
    raise Fault("E405", where, s, i)


def head(s, where: int):
    if s:
        return s[0]
    raise Fault("E404", where, s)


def tail(s, where: int):
    if s:
        return s[1:]
    raise Fault("E404", where, s)


def subseq(s, i, j, where: int):
    if j < i:
        return ()
    if 1 <= i and j <= len(s):
        return s[i - 1:j]
    raise Fault("E405", where, s, (i, j))


# ---------------------------------------------------------------- records

def put(t, i: int, v):
    """The record or tuple `t` with position `i` replaced by `v`."""
    return t[:i] + (v,) + t[i + 1:]


# ---------------------------------------------------------------- sets and ints

POWERSET_LIMIT = 20


def powerset(s, where: int):
    if len(s) > POWERSET_LIMIT:
        raise Fault("E408", where, len(s))
    items = tuple(s)  # the set built does not depend on their order
    return frozenset(frozenset(c) for n in range(len(items) + 1) for c in combinations(items, n))


ORDERINGS_LIMIT = 9  # 9! = 362,880 sequences; 10! is over 2^20


def orderings(s, where: int):
    """`orderings(S)`: every sequence listing each element of `s` once (the set built does not
    depend on the order of `s`)."""
    if len(s) > ORDERINGS_LIMIT:
        raise Fault("E408", where, len(s))
    return frozenset(permutations(tuple(s)))


MAPS_LIMIT = 1 << 20


def all_maps(domain, values, where: int):
    """Every map with exactly this domain and values in `values` (TLA+'s [D -> R])."""
    keys = tuple(canon(domain))  # a map's keys are in canonical order; the set built does not
    vals = tuple(values)  # depend on the order of the values
    if len(vals) ** len(keys) > MAPS_LIMIT:
        raise Fault("E408", where, len(keys), len(vals))
    return frozenset((keys, combo) for combo in product(vals, repeat=len(keys)))


def in_maps(m, domain, values) -> bool:
    """`m in maps(domain, values)` without building the set of all maps (`domain` and `values`
    are frozensets: issuperset tests each key and value in C)."""
    keys, vals = m
    return len(keys) == len(domain) and domain.issuperset(keys) and values.issuperset(vals)


def in_maps_where(m, domain, test) -> bool:
    """`m in maps(domain, R)` where `test(v)` decides `v in R` (R is not built)."""
    keys, vals = m
    return len(keys) == len(domain) and domain.issuperset(keys) and all(map(test, vals))


def in_powerset_where(x, test) -> bool:
    """`x in powerset(S)` where `test(v)` decides `v in S` (S is not built)."""
    return all(map(test, x))


def memo(fn):
    """Cache a function of no arguments (a zero-argument `def` reading no state)."""
    cell = []

    def cached():
        if not cell:
            cell.append(fn())
        return cell[0]

    return cached


# ---------------------------------------------------------------- the transition cache
# Generated successor functions (compile/codegen.py, `_Gen._cache_lookup`) keep, per action, a dict
# from (parameter values, the values the instance reads) to its effects: per successor, the values
# of the slots it writes whole and of the map entries it writes. Bounded: emptied when it holds
# CACHE_LIMIT keys (as the fingerprint memos are).

CACHE_LIMIT = 1 << 16
# After this many misses, a cache that answered fewer instances than it missed is turned off for
# the rest of the search: its keys do not recur (each state its own), and building them costs.
CACHE_TRIAL = 1 << 12
ABSENT = object()  # a key's entry `m[p]` where p is not in m's domain: never cached
SAME = object()  # an effect's entry that the successor did not change


def cache_entry(m, k):
    """The entry of map `m` at key `k` for a cache key, or ABSENT (no fault: the key is built before
    the instance runs, which may test `k in domain(m)` first)."""
    try:
        return m[1][m[0].index(k)]
    except ValueError:
        return ABSENT


def cache_store(cache: dict, stats: list, key: tuple, s: tuple, succs: list, start: int, fixed: tuple,
                free: tuple, entries: tuple, M, E) -> None:
    """Remember under `key` the effects of the instance of parent `s` whose successors are
    `succs[start:]`: per successor, the change of the fingerprint that the key decides (the
    entries `entries` ((slot, key) pairs) and the whole slots `fixed`, whose old values the key
    holds: their old hashes out, their new ones in), then the new values of the slots `fixed`
    and `free` (written whole), then of the entries (SAME where unchanged). A key with an
    ABSENT entry is not remembered. `stats`: [hits, misses, clears, on, gave up] (CACHE_TRIAL);
    M, E: the fingerprint memos."""
    stats[1] += 1
    if stats[1] == CACHE_TRIAL and stats[0] < stats[1]:
        stats[3], stats[4] = 0, 1
        cache.clear()
        return
    if ABSENT in key:
        return
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
        stats[2] += 1
    effects = []
    for t in succs[start:]:
        delta = 0
        for i in fixed:
            delta ^= M[i][s[i]] ^ M[i][t[i]]
        values = [t[i] for i in fixed + free]
        for m, k in entries:
            old, new = s[m][1][s[m][0].index(k)], t[m][1][t[m][0].index(k)]
            if new is old or new == old:
                values.append(SAME)
            else:
                delta ^= E[m][(k, old)] ^ E[m][(k, new)]
                values.append(new)
        effects.append((delta, *values))
    cache[key] = tuple(effects)


def bigunion(s):
    return frozenset().union(*s)


RANGE_LIMIT = 1 << 20  # elements of a range `a..b` that is built or iterated


def range_domain(a: int, b: int, where: int):
    """a..b in canonical order, for a loop over it (parameters, `with`, comprehensions); E408
    past RANGE_LIMIT elements (`x in a..b` is compiled to a comparison and has no limit)."""
    if b - a >= RANGE_LIMIT:
        raise Fault("E408", where, a, b)
    return range(a, b + 1)


def int_range(a: int, b: int, where: int):
    """The set a..b (E408 past RANGE_LIMIT elements, as range_domain)."""
    return frozenset(range_domain(a, b, where))


INT_BITS_LIMIT = 1 << 16  # about 19,700 decimal digits


def mul(a: int, b: int, where: int) -> int:
    """a * b where neither factor is a constant: a value squared at every step would double its
    size each time, and one multiplication of ints of millions of digits outlasts any time limit."""
    r = a * b
    if r.bit_length() > INT_BITS_LIMIT:
        raise Fault("E412", where, r.bit_length())
    return r


def set_min(s, where: int):
    if not s:
        raise Fault("E404", where, s)
    return min(s)


def set_max(s, where: int):
    if not s:
        raise Fault("E404", where, s)
    return max(s)


def div(a: int, b: int, where: int) -> int:
    if b == 0:
        raise Fault("E407", where, a, b)
    return a // b


def mod(a: int, b: int, where: int) -> int:
    if b == 0:
        raise Fault("E407", where, a, b)
    return a % b


def choose(values, where: int):
    for v in values:
        return v
    raise Fault("E403", where)


# ---------------------------------------------------------------- declared bounds

def check_bounds(v, bound, where: int):
    """`v`, when it is within `bound`, the declared ranges and sequence bounds of its type in the
    form ir.bound_value gives them. Otherwise Fault E402 (value, lo, hi, nested) for an int
    outside its range, or E410 (length, limit, nested) for a sequence longer than its bound;
    `nested` says whether the offending value is a part of `v` rather than `v` itself. A set's
    elements are searched in canonical order, so the same value is reported in every run."""
    _within(v, bound, where, False)
    return v


def _within(v, bound, where: int, nested: bool) -> None:
    kind = bound[0]
    if kind == 0:
        if not bound[1] <= v <= bound[2]:
            raise Fault("E402", where, v, bound[1], bound[2], nested)
    elif kind == 1:
        if bound[1] is not None and len(v) > bound[1]:
            raise Fault("E410", where, len(v), bound[1], nested)
        if bound[2] is not None:
            for x in v:
                _within(x, bound[2], where, True)
    elif kind == 2:
        try:
            for x in v:
                _within(x, bound[1], where, True)
        except Fault:
            for x in canon(v):
                _within(x, bound[1], where, True)
    elif kind == 3:
        if bound[1] is not None:
            for x in v[0]:
                _within(x, bound[1], where, True)
        if bound[2] is not None:
            for x in v[1]:
                _within(x, bound[2], where, True)
    elif kind == 4:
        for x, part in zip(v, bound[1]):
            if part is not None:
                _within(x, part, where, True)
    elif v is not NONE:
        _within(v, bound[1], where, nested)


def enabled(action, state) -> bool:
    """`enabled(A)`: whether `action` (a generated `a{i}`, yielding (arguments, successor) in
    canonical order) has a step from `state`; its statements run until the first step is found."""
    for _ in action(state):
        return True
    return False


def step_of(action, state, succ, args: tuple | None) -> bool:
    """`A(x, y)` (`args`) or `A` (None) in a step property: whether `succ` is a successor of
    `state` by `action` (with those arguments), TLA+'s action used as a predicate of a step."""
    for found, t in action(state):
        if t == succ and (args is None or found == args):
            return True
    return False


def enabled_with(action, state, args: tuple) -> bool:
    """`enabled(A(x, y))`: whether `action` has a step from `state` with the arguments `args`."""
    for found, _ in action(state):
        if found == args:
            return True
    return False
