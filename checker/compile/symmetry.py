"""Symmetry reduction: sets of model values whose members are interchangeable.

A `symmetric const S: set[model] = {...}` says that renaming S's members never changes what
the spec can do: permuting them in a state gives a state with the same successors (permuted
the same way) and the same truth values of every check. The search then stores one state per
orbit (the states equal up to such a renaming) and explores the first one it finds; the key a
store keeps is the orbit's: a 64-bit hash of a canonical renaming of the state, the one whose
hash is smallest among those its members' signatures allow (`Symmetry.key`). Traces are
rebuilt by matching these keys (traces.py), so a printed trace is a sequence of real states and
steps of the spec, and it is still a shortest one: a state at depth d has every renaming of
itself at depth d.

The group is the product of the symmetric groups of all the symmetric sets (every
combination of a renaming of each). TLC's SYMMETRY with `Permutations(A) \\cup
Permutations(B)` gives the same counts on the models checked (tests/test_symmetry.py): the
counts of a search by orbits do not depend on which representative is stored.

Soundness rests on the spec being symmetric; the typechecker refuses what breaks it (naming a
member, `choose` over the set, a sequence built from it in canonical order: docs/language.md),
and Model checks that constants and initial states are closed under the renamings.
Temporal properties and exact storage are checked without the reduction (explore.py).
"""

from __future__ import annotations

from functools import reduce
from itertools import permutations, product
from math import factorial
from operator import itemgetter, xor
from typing import Callable, Sequence

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE, canon_key
from tlacheck.ir.symmetry import mentions


def renamer(t: T.Type, perm: dict[str, tuple[int, ...]]) -> Callable | None:
    """The function renaming the members of the sorts in `perm` (sort name -> the image of each
    member) inside a value of type `t`, in the run-time representation (runtime.py); None when
    values of `t` hold none."""
    if not mentions(t, frozenset(perm)):
        return None
    if isinstance(t, T.SortT):
        image = perm[t.name]
        return image.__getitem__
    if isinstance(t, T.SetT):
        f = _per_element(renamer(t.element, perm), t.element)
        return lambda v: frozenset(map(f, v))
    if isinstance(t, T.SeqT):
        f = _per_element(renamer(t.element, perm), t.element)
        return lambda v: tuple(map(f, v))
    if isinstance(t, (T.TupleT, T.RecordT)):
        parts = t.elements if isinstance(t, T.TupleT) else tuple(e for _, e in t.fields)
        fs = tuple((k, f) for k, e in enumerate(parts) if (f := renamer(e, perm)) is not None)

        def fields(v):
            w = list(v)
            for k, f in fs:
                w[k] = f(w[k])
            return tuple(w)
        return fields
    if isinstance(t, T.OptionT):
        f = renamer(t.inner, perm)
        return lambda v: v if v is NONE else f(v)
    if isinstance(t, T.MapT):
        fk, fv = renamer(t.key, perm), renamer(t.value, perm)
        if fk is None:
            return lambda v: (v[0], tuple(map(fv, v[1])))
        if isinstance(t.key, T.SortT):  # keyed by the members themselves: no sorting for a total map
            image = perm[t.key.name]
            n = len(image)
            inverse = [0] * n
            for m, i in enumerate(image):
                inverse[i] = m
            take = itemgetter(*inverse)  # n > 1: a tuple

            def rename_by_member(v):
                keys, values = v
                if fv is not None:
                    values = tuple(map(fv, values))
                if len(keys) == n:  # keys 0..n-1: member m's entry moves to image[m]
                    return (keys, take(values))
                pairs = sorted(zip(map(image.__getitem__, keys), values))
                return (tuple(k for k, _ in pairs), tuple(x for _, x in pairs))

            return rename_by_member

        def rename_map(v):
            keys, values = v
            pairs = sorted(zip(map(fk, keys), values if fv is None else map(fv, values)), key=_key_order)
            new_keys = tuple(k for k, _ in pairs)
            # the same keys (a map over the whole set): keep the interned key tuple
            return (keys if new_keys == keys else new_keys, tuple(x for _, x in pairs))

        return rename_map
    raise AssertionError(f"no renamer for {t}")  # pragma: no cover


def _per_element(f: Callable, t: T.Type) -> Callable:
    """The renamer `f` of the elements (of type `t`) of a set or sequence, memoised per element
    when they are compound: an element (a message, a record) occurs in many sets, each renamed
    whole when it changes."""
    if isinstance(t, T.SortT):
        return f
    memo: dict = {}

    def element(v):
        w = memo.get(v)
        if w is None:
            if len(memo) >= _ELEMENT_MEMO:
                memo.clear()
            w = memo[v] = f(v)
        return w
    return element


# The most elements whose renamed values one renaming memoises per set or sequence type
_ELEMENT_MEMO = 1 << 12


def _key_order(pair):
    return canon_key(pair[0])


class Symmetry:
    """The renamings of the symmetric sets `sorts` (SortT) of a spec whose variables have types
    `var_types`, each as a function of a state (identity excluded)."""

    def __init__(self, var_types: Sequence[T.Type], sorts: Sequence[T.SortT]):
        self.sorts = tuple(s for s in sorts if len(s.members) > 1)
        names = frozenset(s.name for s in self.sorts)
        self._all = [list(permutations(range(len(s.members)))) for s in self.sorts]
        self.renamings: list[Callable[[tuple], tuple]] = []
        self.perms: list[dict[str, tuple[int, ...]]] = []  # each renaming: sort name -> member images
        # The slots some renaming moves (their types hold symmetric members), and the others
        self._moved = tuple(i for i, t in enumerate(var_types) if mentions(t, names))
        self._still = tuple(i for i, t in enumerate(var_types) if not mentions(t, names))
        self._identities = tuple(tuple(range(len(s.members))) for s in self.sorts)
        # per-sort images -> each moved slot's renamer
        self._slot_renamers: dict[tuple, tuple] = {}
        self._element_renamers: dict[tuple, tuple] = {}  # and of each moved slot's elements, for sets
        count = 1
        for images in self._all:
            count *= len(images)
        # each renaming's memos: all of them together, about _MEMO_LIMIT
        self._limit = limit = max(_MEMO_LIMIT // count, 256)
        for images in product(*self._all):
            if images == self._identities:
                continue  # the identity
            perm = {s.name: p for s, p in zip(self.sorts, images)}
            self.perms.append(perm)
            slots = tuple(renamer(t, perm) for t in var_types)
            self.renamings.append(_state_renaming(slots, limit))
            self._slot_renamers[images] = tuple(slots[i] for i in self._moved)
            self._element_renamers[images] = tuple(
                renamer(var_types[i].element, perm) if isinstance(var_types[i], T.SetT) else None for i in self._moved)
        # Per sort, its members' signatures in a state (_Signatures), and the slots of every map
        # keyed by it (two members absent elsewhere whose entries there are equal can be swapped
        # without changing the state).
        self._signatures = [_Signatures(var_types, s, names) for s in self.sorts]
        self._keyed = [tuple(i for i, t in enumerate(var_types) if isinstance(t, T.MapT) and t.key == s)
                       for s in self.sorts]
        self._plans = tuple(zip(self._signatures, self._keyed))
        self.order = count  # the number of renamings, the identity included

    def moves(self, value, t: T.Type) -> bool:
        """Whether some renaming changes `value` (of type `t`): a constant that does breaks the
        symmetry."""
        for perm in self.perms:
            rename = renamer(t, perm)
            if rename is not None and rename(value) != value:
                return True
        return False

    def __bool__(self) -> bool:
        return bool(self.renamings)

    def orbit(self, state: tuple) -> set[tuple]:
        """Every renaming of `state`, itself included."""
        return {state, *(r(state) for r in self.renamings)}

    def key(self, fingerprint, sizes: list | None = None) -> Callable[[tuple], int]:
        """The key of a state's orbit, with `fingerprint` a Fingerprinter (engine/fingerprints.py):
        the XOR of the hashes of the slots no renaming moves (as in the state's fingerprint) and
        of the smallest XOR of the other slots' hashes (the fingerprint's, but a set's is the
        XOR of its elements' hashes: fingerprints._ElementMemo) over the renamings that put each
        symmetric set's members in the order of their signatures (`candidates`). The renamings
        that qualify give the same renamed states for every state of an orbit, and the slots
        that never move are the same in all of them, so the key is the orbit's.

        The moved slots' part is cached by the projection of the state onto them (it recurs:
        a state is reached from many parents, and states that differ only in slots that never
        move share it), and each renaming hashes a renamed slot straight from the value,
        memoised per value, without building the renamed state.

        With `sizes`, the key also appends to it the number of states of the orbit: the group's
        order over the order of the stabiliser of the state. A renaming that fixes the state
        keeps every member's signature, so it only permutes members whose signatures tie (the
        group T of those permutations); the orbit of the state under T holds as many states as
        the renamings tried give (those left out give states tried), and it is
        |T| / |stabiliser|."""
        memos = fingerprint.memos
        moved, still = self._moved, self._still
        project = None if len(moved) == len(memos) else _projection(moved)  # None: the state is its projection
        still_memos = tuple(memos[i] for i in still)
        still_values = _projection(still) if still else None
        # Per moved slot, the hash of its value: the slot's own (as in the fingerprint), but for a
        # set the XOR of its elements' hashes (fingerprints._ElementMemo), which a renaming gets
        # from its renamed elements' hashes, memoised per element
        elements = tuple(fingerprint.elements[i] for i in moved)
        moved_memos = tuple(memos[i] if e is None else _SetHashes(e) for i, e in zip(moved, elements))
        hashers: dict[tuple, Callable] = {}  # the images of a renaming -> the hash of a renamed projection
        limit = self._limit

        def identity(part: tuple) -> int:
            return reduce(xor, map(_getitem, moved_memos, part), 0)

        def hasher(images: tuple) -> Callable:
            per_element = self._element_renamers[images]
            slots = tuple((f, memo, {}) if e is None else (_set_hash(per_element[k], e, limit), None, {})
                          for k, (f, memo, e) in enumerate(zip(self._slot_renamers[images], moved_memos, elements)))

            def renamed(part: tuple) -> int:
                h = 0
                for (f, memo, mine), v in zip(slots, part):
                    x = mine.get(v)
                    if x is None:
                        if len(mine) >= limit:
                            mine.clear()
                        x = mine[v] = f(v) if memo is None else memo[f(v)]
                    h ^= x
                return h
            hashers[images] = renamed
            return renamed

        def orbit_part(state: tuple, part: tuple) -> tuple[int, int]:
            """The smallest hash of the renamed projections, and the orbit's size."""
            found, ties = self.candidates(state)
            if ties == 1:  # one renaming, and only the identity fixes the state
                images = found[0]
                h = identity(part) if images is None else (hashers.get(images) or hasher(images))(part)
                return h, order
            hs = {identity(part) if images is None else (hashers.get(images) or hasher(images))(part)
                  for images in found}
            return min(hs), order * len(hs) // ties

        order, cache = self.order, {}
        append = None if sizes is None else sizes.append

        def key(state: tuple) -> int:
            part = state if project is None else project(state)
            hit = cache.get(part)
            if hit is None:
                if len(cache) >= _KEY_CACHE:
                    cache.clear()
                hit = cache[part] = orbit_part(state, part)
            if append is not None:
                append(hit[1])
            h = hit[0]
            if still_values is not None:
                h = reduce(xor, map(_getitem, still_memos, still_values(state)), h)
            return h or 1

        return key

    def candidates(self, state: tuple) -> tuple[list, int]:
        """The renamings the key tries on `state`, each as the images of its members per sort
        (None: the identity): those that put each symmetric set's members in the order of their
        signatures, every order of the members whose signatures tie. A member's signature is
        its entries in the maps keyed by the set whose values hold no symmetric member and how
        often it occurs at each place of the state's type (_Signatures: as the `acceptor` of a
        message, as a map's value, ...); both are unchanged by renaming the member together with
        the state, so the renamed states are the same for every state of an orbit. When the
        signatures differ, one renaming qualifies instead of all n!. Members that tie and can be
        swapped without changing the state (they occur nowhere but as keys of maps keyed by the
        set, with equal entries there) keep one order: the other orders give the same states.
        Also the number of renamings that keep every signature (1: only the identity fixes the
        state)."""
        ties = 1
        choices = []
        for signatures, keyed in self._plans:
            sigs = signatures(state)
            if len(set(sigs)) == signatures.n:  # all told apart: one renaming
                choices.append((_ordering(sigs),))
                continue
            images, tied = _arrangements(state, sigs, signatures, keyed)
            choices.append(images)
            ties *= tied
        identities = self._identities
        if ties == 1:
            images = tuple(c[0] for c in choices)
            return [None if images == identities else images], 1
        return [None if images == identities else images for images in product(*choices)], ties

    def orbit_size(self, state: tuple, fingerprint) -> int:
        """The number of states of the orbit of `state` (as `key` with `sizes` counts it)."""
        sizes: list[int] = []
        self.key(fingerprint, sizes)(state)
        return sizes[0]


_MISSING = (-1,)  # the signature entry of a member a partial map does not hold (canon_key order)

# The most values whose parts of the signatures one slot memoises (_Signatures); emptied when full
_MEMO_LIMIT = 1 << 16

# The most projections whose orbit part one key caches (Symmetry.key); emptied when full
_KEY_CACHE = 1 << 17

_getitem = dict.__getitem__


class _SetHashes(dict):
    """A set -> the XOR of its elements' hashes (`elements`, a fingerprints._ElementMemo),
    computed on first use; bounded as the other memos."""

    __slots__ = ("elements",)

    def __init__(self, elements: dict):
        super().__init__()
        self.elements = elements

    def __missing__(self, v) -> int:
        h = reduce(xor, map(self.elements.__getitem__, v), 0)
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        self[v] = h
        return h


def _set_hash(f: Callable, elements: dict, limit: int) -> Callable:
    """The hash of a set renamed by `f` (its elements' renamer), from the hashes of its renamed
    elements (`elements`), each memoised per element."""
    memo: dict = {}

    def renamed(e) -> int:
        x = memo.get(e)
        if x is None:
            if len(memo) >= limit:
                memo.clear()
            x = memo[e] = elements[f(e)]
        return x

    return lambda v: reduce(xor, map(renamed, v), 0)


def _projection(slots: tuple) -> Callable[[tuple], tuple]:
    """The function giving the values of a state's `slots`, as a tuple."""
    if len(slots) > 1:
        return itemgetter(*slots)
    if slots:
        i = slots[0]
        return lambda state: (state[i],)
    return lambda state: ()


def _plain(t: T.Type) -> bool:
    return isinstance(t, (T.IntT, T.BoolT, T.SortT))


def _sign(n: int, plain: bool) -> Callable:
    """The members' entries in a map keyed by the sort (its values hold no symmetric member), as
    a tuple per member: the value itself when plain (ints, bools), else its canon_key; _MISSING
    where a partial map holds none."""
    def entries(v) -> tuple:
        keys, values = v
        if len(keys) == n:  # the whole set: the keys are 0..n-1, in order
            return tuple(values) if plain else tuple(map(canon_key, values))
        return tuple(canon_key(values[keys.index(m)]) if m in keys else _MISSING for m in range(n))
    return entries


class _Signatures:
    """The signatures of the members of the sort `sort` in a state of types `var_types`
    (Symmetry.key): per member, its entries in each map keyed by the sort whose values hold no
    symmetric member (`names`: the symmetric sorts), and how often it occurs at each place of
    each other variable (_Occurrences). Both are unchanged when a member is renamed together
    with the state. Each variable's part is a function of its value alone, memoised per value:
    a successor shares most of its values with its parent and its siblings, and many states
    share each value."""

    def __init__(self, var_types: Sequence[T.Type], sort: T.SortT, names: frozenset):
        self.n = n = len(sort.members)
        # (slot, the part of a value, its memo (None: a map of plain values, whose values are
        # the part when it holds every member), whether it counts occurrences)
        parts = []
        for i, t in enumerate(var_types):
            if isinstance(t, T.MapT) and t.key == sort and not mentions(t.value, names):
                plain = _plain(t.value)
                parts.append((i, _sign(n, plain), None if plain else {}, False))
                continue
            occurrences = _Occurrences(t, sort)
            if occurrences.walk is not None:
                parts.append((i, occurrences, {}, True))
        self.parts = tuple(parts)
        self.counted = tuple(j for j, part in enumerate(parts) if part[3])

    def __call__(self, state: tuple) -> list[tuple]:
        """Per member, its signature: a tuple of the variables' parts."""
        found = []
        n = self.n
        for slot, part, memo, _ in self.parts:
            v = state[slot]
            if memo is None:
                found.append(v[1] if len(v[0]) == n else part(v))
                continue
            p = memo.get(v)
            if p is None:
                if len(memo) >= _MEMO_LIMIT:
                    memo.clear()
                p = memo[v] = part(v)
            found.append(p)
        return [*zip(*found)] if found else [()] * self.n

    def occurs(self, sig: tuple) -> bool:
        """Whether the member with signature `sig` occurs anywhere but as a key of maps keyed by
        the sort."""
        return any(any(sig[j]) for j in self.counted)


class _Occurrences:
    """How often each member of the sort `sort` occurs at each place of a value of type `t`:
    the places are the positions in the type where a value of the sort stands (an element of a
    set or sequence, a field, a tuple position, an option's value, a map's key or value), except
    the keys of maps keyed by the sort itself (those are signs and `_keyed`). Calling it on a
    value gives one count tuple per member; `walk` is None when the sort stands nowhere but
    there."""

    def __init__(self, t: T.Type, sort: T.SortT):
        self.n = len(sort.members)
        self.places = 0
        self.walk = self._walker(t, sort)

    def _walker(self, t: T.Type, sort: T.SortT):
        """A function (value, counts) adding the value's occurrences of the sort's members to
        `counts` (a list per member of a count per place); None when none can occur."""
        if not mentions(t, frozenset([sort.name])):
            return None
        if t == sort:
            place = self.places
            self.places += 1

            def member(v, counts):
                counts[v][place] += 1
            return member
        if isinstance(t, (T.SetT, T.SeqT)):
            f = self._walker(t.element, sort)

            def each(v, counts):
                for x in v:
                    f(x, counts)
            return each
        if isinstance(t, (T.TupleT, T.RecordT)):
            parts = t.elements if isinstance(t, T.TupleT) else tuple(e for _, e in t.fields)
            fs = tuple((k, f) for k, e in enumerate(parts) if (f := self._walker(e, sort)) is not None)

            def fields(v, counts):
                for k, f in fs:
                    f(v[k], counts)
            return fields
        if isinstance(t, T.OptionT):
            f = self._walker(t.inner, sort)

            def option(v, counts):
                if v is not NONE:
                    f(v, counts)
            return option
        if isinstance(t, T.MapT):
            fk = None if t.key == sort else self._walker(t.key, sort)
            fv = self._walker(t.value, sort)
            if fk is None and fv is None:
                return None

            def entries(v, counts):
                keys, values = v
                if fk is not None:
                    for k in keys:
                        fk(k, counts)
                if fv is not None:
                    for x in values:
                        fv(x, counts)
            return entries
        raise AssertionError(f"no occurrence walker for {t}")  # pragma: no cover

    def __call__(self, value) -> tuple[tuple[int, ...], ...]:
        counts = [[0] * self.places for _ in range(self.n)]
        self.walk(value, counts)
        return tuple(map(tuple, counts))


def _entries(state: tuple, keyed: tuple, m: int) -> tuple:
    """Member m's entries in the maps keyed by its sort (slots `keyed`), as they are."""
    out = []
    for slot in keyed:
        keys, values = state[slot]
        if len(keys) and keys[-1] == len(keys) - 1:  # keys 0..k-1 in order: m's entry is at m
            out.append(values[m] if m < len(keys) else _MISSING)
        else:
            out.append(values[keys.index(m)] if m in keys else _MISSING)
    return tuple(out)


def _ordering(sigs: list) -> tuple[int, ...]:
    """The renaming (the images of the members 0..n-1) that orders the members by their
    signatures `sigs`, no two equal."""
    image = [0] * len(sigs)
    for position, m in enumerate(sorted(range(len(sigs)), key=sigs.__getitem__)):
        image[m] = position
    return tuple(image)


def _arrangements(state: tuple, sigs: list, signatures: _Signatures, keyed: tuple) -> tuple[list[tuple[int, ...]], int]:
    """The renamings (images of the members 0..n-1) that order the members by their signatures
    `sigs` in `state`, some of which tie: every order of the members whose signatures tie (but
    one order of members that swap without changing the state); and the number of renamings
    that keep every signature (the product of the factorials of the ties' sizes)."""
    n = signatures.n
    order = sorted(range(n), key=sigs.__getitem__)
    groups: list[list[int]] = []
    for m in order:
        if groups and sigs[groups[-1][-1]] == sigs[m]:
            groups[-1].append(m)
        else:
            groups.append([m])
    orders = [_orders(g, state, keyed, signatures, sigs) for g in groups]
    out = []
    for arrangement in product(*orders):
        image = [0] * n
        position = 0
        for group in arrangement:
            for m in group:
                image[m] = position
                position += 1
        out.append(tuple(image))
    ties = 1
    for group in groups:
        ties *= factorial(len(group))
    return out, ties


def _orders(group: list[int], state: tuple, keyed: tuple, signatures: _Signatures, sigs: list) -> list[tuple[int, ...]]:
    """The orders to try of a group of members whose signatures tie: every one, except that
    members occurring nowhere but as keys of maps keyed by the sort, with equal entries there,
    stay in one order among themselves (swapping two of them gives the state back)."""
    if len(group) < 2:
        return [tuple(group)]
    idle = [m for m in group if not signatures.occurs(sigs[m])]
    if len(idle) < 2:
        return list(permutations(group))
    by_entries: dict[tuple, list[int]] = {}
    for m in idle:
        by_entries.setdefault(_entries(state, keyed, m), []).append(m)
    classes = [c for c in by_entries.values() if len(c) > 1]
    if not classes:
        return list(permutations(group))
    out = []
    for p in permutations(group):
        # keep only the orders in which each class of interchangeable members is increasing
        if all(_increasing([m for m in p if m in c]) for c in classes):
            out.append(p)
    return out


def _increasing(ms: list[int]) -> bool:
    return all(a < b for a, b in zip(ms, ms[1:]))


def _state_renaming(slots: tuple, limit: int) -> Callable[[tuple], tuple]:
    """The renaming of a state, slot by slot (`slots`: each slot's renamer, None where nothing
    moves), each slot's renamed values memoised per value (at most `limit`, emptied when full),
    as _Signatures memoises its parts."""
    moved = tuple((i, f, {}) for i, f in enumerate(slots) if f is not None)

    def rename(state: tuple) -> tuple:
        values = list(state)
        for i, f, memo in moved:
            v = values[i]
            renamed = memo.get(v)
            if renamed is None:
                if len(memo) >= limit:
                    memo.clear()
                renamed = memo[v] = f(v)
            values[i] = renamed
        return tuple(values)

    return rename
