"""Display and JSON encoding of run-time values, guided by their static types."""

from __future__ import annotations

from checker import types as T
from checker.runtime import NONE, canon


def format_value(v, t: T.Type) -> str:
    """A value in the spec language's own syntax, e.g. `{r1 -> working, r2 -> prepared}`."""
    if isinstance(t, T.OptionT):
        return "none" if v is NONE else format_value(v, t.inner)
    if isinstance(t, T.BoolT):
        return "true" if v else "false"
    if isinstance(t, T.IntT):
        return str(v)
    if isinstance(t, T.SortT):
        return t.members[v] if isinstance(v, int) and 0 <= v < len(t.members) else f"<{t.name} #{v}>"
    if isinstance(t, T.SetT):
        return "{" + ", ".join(format_value(x, t.element) for x in canon(v)) + "}"
    if isinstance(t, T.SeqT):
        return "[" + ", ".join(format_value(x, t.element) for x in v) + "]"
    if isinstance(t, T.TupleT):
        return "(" + ", ".join(format_value(x, et) for x, et in zip(v, t.elements)) + ")"
    if isinstance(t, T.RecordT):
        return "{" + ", ".join(f"{n}: {format_value(x, ft)}" for (n, ft), x in zip(t.fields, v)) + "}"
    if isinstance(t, T.MapT):
        keys, vals = v
        if not keys:
            return "{->}"
        return "{" + ", ".join(f"{format_value(k, t.key)} -> {format_value(x, t.value)}"
                               for k, x in zip(keys, vals)) + "}"
    if isinstance(t, T.AnyT):
        if isinstance(v, frozenset):
            return "{}"
        if isinstance(v, tuple):
            return "[]"
        return "none" if v is NONE else repr(v)
    raise AssertionError(t)  # pragma: no cover


def _scalar_key(t: T.Type) -> bool:
    return isinstance(t, (T.SortT, T.IntT, T.BoolT))


def to_json(v, t: T.Type):
    """A JSON value: sets and sequences as arrays, records as objects, maps as objects
    when their keys are enum members, model values, ints or bools, else as [key, value] pairs."""
    if isinstance(t, T.OptionT):
        return None if v is NONE else to_json(v, t.inner)
    if isinstance(t, (T.BoolT, T.IntT)):
        return v
    if isinstance(t, T.SortT):
        return format_value(v, t)
    if isinstance(t, T.SetT):
        return [to_json(x, t.element) for x in canon(v)]
    if isinstance(t, T.SeqT):
        return [to_json(x, t.element) for x in v]
    if isinstance(t, T.TupleT):
        return [to_json(x, et) for x, et in zip(v, t.elements)]
    if isinstance(t, T.RecordT):
        return {n: to_json(x, ft) for (n, ft), x in zip(t.fields, v)}
    if isinstance(t, T.MapT):
        keys, vals = v
        if _scalar_key(t.key):
            return {format_value(k, t.key): to_json(x, t.value) for k, x in zip(keys, vals)}
        return [[to_json(k, t.key), to_json(x, t.value)] for k, x in zip(keys, vals)]
    if isinstance(t, T.AnyT):
        return [] if isinstance(v, (frozenset, tuple)) else None
    raise AssertionError(t)  # pragma: no cover
