"""Symmetry reduction: sets of model values whose members are interchangeable.

A `symmetric const S: set[model] = {...}` says that renaming S's members never changes what
the spec can do: permuting them in a state gives a state with the same successors (permuted
the same way) and the same truth values of every check. The search then stores one state per
orbit (the states equal up to such a renaming) and explores the first one it finds; the key a
store keeps is the orbit's: the smallest fingerprint over all renamings of the state
(`Symmetry.key`). Traces are rebuilt by matching these keys (traces.py), so a printed trace is
a sequence of real states and steps of the spec, and it is still a shortest one: a state at
depth d has every renaming of itself at depth d.

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

from itertools import permutations, product
from typing import Callable, Sequence

from checker.core import types as T
from checker.core.runtime import NONE, canon_key
from checker.ir.symmetry import mentions


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
        f = renamer(t.element, perm)
        return lambda v: frozenset(map(f, v))
    if isinstance(t, T.SeqT):
        f = renamer(t.element, perm)
        return lambda v: tuple(map(f, v))
    if isinstance(t, (T.TupleT, T.RecordT)):
        parts = t.elements if isinstance(t, T.TupleT) else tuple(e for _, e in t.fields)
        fs = tuple(renamer(e, perm) for e in parts)
        return lambda v: tuple(x if f is None else f(x) for f, x in zip(fs, v))
    if isinstance(t, T.OptionT):
        f = renamer(t.inner, perm)
        return lambda v: v if v is NONE else f(v)
    if isinstance(t, T.MapT):
        fk, fv = renamer(t.key, perm), renamer(t.value, perm)
        if fk is None:
            return lambda v: (v[0], tuple(map(fv, v[1])))

        def rename_map(v):
            keys, values = v
            pairs = sorted(zip(map(fk, keys), values if fv is None else map(fv, values)), key=_key_order)
            new_keys = tuple(k for k, _ in pairs)
            # the same keys (a map over the whole set): keep the interned key tuple
            return (keys if new_keys == keys else new_keys, tuple(x for _, x in pairs))

        return rename_map
    raise AssertionError(f"no renamer for {t}")  # pragma: no cover


def _key_order(pair):
    return canon_key(pair[0])


class Symmetry:
    """The renamings of the symmetric sets `sorts` (SortT) of a spec whose variables have types
    `var_types`, each as a function of a state (identity excluded)."""

    def __init__(self, var_types: Sequence[T.Type], sorts: Sequence[T.SortT]):
        self.sorts = tuple(s for s in sorts if len(s.members) > 1)
        images = [[(s.name, p) for p in permutations(range(len(s.members)))] for s in self.sorts]
        self.renamings: list[Callable[[tuple], tuple]] = []
        self.perms: list[dict[str, tuple[int, ...]]] = []  # each renaming: sort name -> member images
        for combo in product(*images):
            perm = dict(combo)
            if all(p == tuple(range(len(p))) for p in perm.values()):
                continue  # the identity
            self.perms.append(perm)
            slots = tuple(renamer(t, perm) for t in var_types)
            self.renamings.append(_state_renaming(slots))

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

    def key(self, fingerprint: Callable[[tuple], int]) -> Callable[[tuple], int]:
        """The key of a state's orbit: the smallest fingerprint of its renamings."""
        renamings = self.renamings

        def key(state: tuple) -> int:
            best = fingerprint(state)
            for rename in renamings:
                fp = fingerprint(rename(state))
                if fp < best:
                    best = fp
            return best

        return key


def _state_renaming(slots: tuple) -> Callable[[tuple], tuple]:
    moved = tuple(i for i, f in enumerate(slots) if f is not None)

    def rename(state: tuple) -> tuple:
        values = list(state)
        for i in moved:
            values[i] = slots[i](values[i])
        return tuple(values)

    return rename
