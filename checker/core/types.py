"""Static types of the spec language.

Every value has one of these types; the typechecker infers them bottom-up with
an expected type passed down where the context knows it (an ambiguous enum
member, an empty `{}` or `[]`, `none`). `AnyType` is the element type of an
empty collection literal and of `none`: it is compatible with every type.
"""

from __future__ import annotations

from dataclasses import dataclass


class Type:
    """Base class of static types. Types are immutable and compared structurally."""

    def __str__(self) -> str:  # pragma: no cover - overridden everywhere
        return self.__class__.__name__


@dataclass(frozen=True)
class BoolT(Type):
    def __str__(self) -> str:
        return "bool"


@dataclass(frozen=True)
class IntT(Type):
    def __str__(self) -> str:
        return "int"


@dataclass(frozen=True)
class AnyT(Type):
    def __str__(self) -> str:
        return "?"


@dataclass(frozen=True)
class SortT(Type):
    """An enum, or a set of model values declared by a `set[model]` constant.

    Values are the ints 0..len(members)-1 at run time; names are for display.
    """

    name: str
    members: tuple[str, ...]
    kind: str  # "enum" or "model"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class SetT(Type):
    element: Type

    def __str__(self) -> str:
        return f"set[{self.element}]"


@dataclass(frozen=True)
class SeqT(Type):
    element: Type

    def __str__(self) -> str:
        return f"seq[{self.element}]"


@dataclass(frozen=True)
class MapT(Type):
    key: Type
    value: Type

    def __str__(self) -> str:
        return f"map[{self.key}, {self.value}]"


@dataclass(frozen=True)
class RecordT(Type):
    """Fields are kept sorted by name; a record value is the tuple of its field values in that order."""

    fields: tuple[tuple[str, Type], ...]

    def __str__(self) -> str:
        return "{" + ", ".join(f"{n}: {t}" for n, t in self.fields) + "}"

    def index_of(self, name: str) -> int | None:
        for i, (n, _) in enumerate(self.fields):
            if n == name:
                return i
        return None


@dataclass(frozen=True)
class TupleT(Type):
    elements: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(str(t) for t in self.elements) + ")"


@dataclass(frozen=True)
class OptionT(Type):
    """`T?`: a value of T, or `none`."""

    inner: Type

    def __str__(self) -> str:
        return f"{self.inner}?"


BOOL = BoolT()
INT = IntT()
ANY = AnyT()


def join(a: Type, b: Type) -> Type | None:
    """The least type containing both `a` and `b`, or None when they are incompatible."""
    if a == b:
        return a
    if isinstance(a, AnyT):
        return b
    if isinstance(b, AnyT):
        return a
    if isinstance(a, OptionT) or isinstance(b, OptionT):
        ia = a.inner if isinstance(a, OptionT) else a
        ib = b.inner if isinstance(b, OptionT) else b
        inner = join(ia, ib)
        if inner is None or isinstance(inner, OptionT):
            return None
        return OptionT(inner)
    if type(a) is not type(b):
        return None
    if isinstance(a, SetT):
        e = join(a.element, b.element)
        return None if e is None else SetT(e)
    if isinstance(a, SeqT):
        e = join(a.element, b.element)
        return None if e is None else SeqT(e)
    if isinstance(a, MapT):
        k = join(a.key, b.key)
        v = join(a.value, b.value)
        return None if k is None or v is None else MapT(k, v)
    if isinstance(a, TupleT):
        if len(a.elements) != len(b.elements):
            return None
        parts = [join(x, y) for x, y in zip(a.elements, b.elements)]
        return None if any(p is None for p in parts) else TupleT(tuple(parts))
    if isinstance(a, RecordT):
        if [n for n, _ in a.fields] != [n for n, _ in b.fields]:
            return None
        parts = [join(x, y) for (_, x), (_, y) in zip(a.fields, b.fields)]
        if any(p is None for p in parts):
            return None
        return RecordT(tuple((n, p) for (n, _), p in zip(a.fields, parts)))
    return None


def assignable(target: Type, source: Type) -> bool:
    """Whether a value of type `source` may be stored where `target` is declared."""
    return join(target, source) == target


def is_concrete(t: Type) -> bool:
    """False when `t` still contains AnyT (e.g. the type of `{}` with no context)."""
    if isinstance(t, AnyT):
        return False
    if isinstance(t, (SetT, SeqT)):
        return is_concrete(t.element)
    if isinstance(t, OptionT):
        return is_concrete(t.inner)
    if isinstance(t, MapT):
        return is_concrete(t.key) and is_concrete(t.value)
    if isinstance(t, TupleT):
        return all(is_concrete(e) for e in t.elements)
    if isinstance(t, RecordT):
        return all(is_concrete(e) for _, e in t.fields)
    return True


def naturally_ordered(t: Type) -> bool:
    """True when Python's `<` on the run-time values of `t` is a total order.

    Sets (frozensets) and options (None mixed with values) are not; the code
    generator then sorts with runtime.canon_key.
    """
    if isinstance(t, (BoolT, IntT, SortT)):
        return True
    if isinstance(t, SeqT):
        return naturally_ordered(t.element)
    if isinstance(t, TupleT):
        return all(naturally_ordered(e) for e in t.elements)
    if isinstance(t, RecordT):
        return all(naturally_ordered(e) for _, e in t.fields)
    if isinstance(t, MapT):
        return naturally_ordered(t.key) and naturally_ordered(t.value)
    return False
