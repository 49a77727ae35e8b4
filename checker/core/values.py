"""Display and JSON encoding of run-time values, guided by their static types.

Ints are unbounded, and CPython refuses `str(n)` and `int(text)` past
`sys.get_int_max_str_digits()` digits (4300 by default, at least 640; the
conversion is quadratic). Every int is therefore printed with `format_int`
(text: exact up to TEXT_DIGITS digits, then abbreviated) or `int_text` (exact
at any size, for JSON, ITF and state ids), and read back with `int_from_text`.
`to_json` writes an int of more than `json_digits()` digits as a string of
digits, which every JSON reader reads exactly (a number that long is one that
Python's json refuses to read).
"""

from __future__ import annotations

import decimal
import heapq
import sys

from tlacheck.core import types as T
from tlacheck.core.runtime import NONE, canon, canon_key


# ---------------------------------------------------------------- ints as text

_SAFE_DIGITS = 640  # the lowest limit sys.set_int_max_str_digits accepts: str() and int() always work below
_SAFE = 10 ** _SAFE_DIGITS
TEXT_DIGITS = 100  # longer ints are abbreviated in text (reports, messages, diagrams)
_KEEP = 16  # leading and trailing digits an abbreviation keeps
_TEXT_LIMIT = 10 ** TEXT_DIGITS
TEXT_ELEMENTS = 1000  # larger sets, sequences and maps are abbreviated in text, to their first ...
TEXT_SHOWN = 20  # ... elements in canonical order and their size
JSON_DIGITS = 4300  # Python's default int_max_str_digits: longer ints are JSON strings
_JSON_LIMIT = 10 ** JSON_DIGITS


def int_text(n: int) -> str:
    """The exact decimal text of `n`, at any size (str() refuses long ints), in about
    n log^2 n time: divide and conquer with the decimal module's exact arithmetic."""
    if -_SAFE < n < _SAFE:
        return str(n)
    sign, n = ("-", -n) if n < 0 else ("", n)
    with decimal.localcontext() as ctx:
        ctx.prec = decimal.MAX_PREC
        ctx.Emax = decimal.MAX_EMAX
        ctx.Emin = decimal.MIN_EMIN
        ctx.traps[decimal.Inexact] = True
        powers: dict[int, decimal.Decimal] = {}

        def power(w: int) -> decimal.Decimal:
            p = powers.get(w)
            if p is None:
                p = powers[w] = decimal.Decimal(2) ** w
            return p

        def convert(m: int, width: int) -> decimal.Decimal:  # m < 2**width
            if width <= 1024:
                return decimal.Decimal(m)
            half = width >> 1
            high = m >> half
            return convert(m - (high << half), half) + convert(high, width - half) * power(half)

        return sign + str(convert(n, n.bit_length()))


def int_from_text(text: str) -> int:
    """The int written `text`, an optional sign and decimal digits, of any length (int() refuses
    long text). Raises ValueError for anything else."""
    sign = -1 if text[:1] == "-" else 1
    digits = text[1:] if text[:1] in ("-", "+") else text
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(f"not a decimal integer: {text[:20]!r}")
    if len(digits) <= _SAFE_DIGITS:
        return sign * int(digits)
    powers: dict[int, int] = {}

    def convert(lo: int, hi: int) -> int:
        if hi - lo <= _SAFE_DIGITS:
            return int(digits[lo:hi])
        k = (hi - lo) >> 1
        p = powers.get(k)
        if p is None:
            p = powers[k] = 10 ** k
        return convert(lo, hi - k) * p + convert(hi - k, hi)

    return sign * convert(0, len(digits))


def format_int(n: int, exact: bool = False) -> str:
    """An int for people: exact up to TEXT_DIGITS digits, then its first and last digits and how
    many there are, e.g. `1234567890123456…1234567890123456 (9,864 digits)`. `exact`: always
    every digit (int_text)."""
    if -_TEXT_LIMIT < n < _TEXT_LIMIT:
        return str(n)
    text = int_text(n)
    if exact:
        return text
    sign, digits = (text[0], text[1:]) if text[0] == "-" else ("", text)
    return f"{sign}{digits[:_KEEP]}…{digits[-_KEEP:]} ({len(digits):,} digits)"


def json_digits() -> int:
    """The most digits an int has as a JSON number (JSON_DIGITS, or the interpreter's own lower
    limit, without which json.dumps could not write it)."""
    limit = sys.get_int_max_str_digits()
    return min(JSON_DIGITS, limit) if limit else JSON_DIGITS


def json_int(n: int):
    """An int for JSON: the number itself, or when it has more than json_digits() digits the
    string of its exact digits."""
    digits = json_digits()
    bound = _JSON_LIMIT if digits == JSON_DIGITS else 10 ** digits
    return n if -bound < n < bound else int_text(n)


# ---------------------------------------------------------------- values

def format_value(v, t: T.Type, exact: bool = False) -> str:
    """A value in the spec language's own syntax, e.g. `{r1 -> working, r2 -> prepared}`. Unless
    `exact`, ints of more than TEXT_DIGITS digits are abbreviated (format_int), and so are sets,
    sequences and maps of more than TEXT_ELEMENTS elements: `[0, 1, ... (4,096 elements)]` (a
    state that doubles a sequence at every step would otherwise take minutes to print)."""
    if not exact and isinstance(t, (T.SetT, T.SeqT, T.MapT)) and len(v[0] if isinstance(t, T.MapT) else v) > TEXT_ELEMENTS:
        return _abbreviated(v, t)
    if isinstance(t, T.OptionT):
        return "none" if v is NONE else format_value(v, t.inner, exact)
    if isinstance(t, T.BoolT):
        return "true" if v else "false"
    if isinstance(t, T.IntT):
        return format_int(v, exact)
    if isinstance(t, T.SortT):
        return t.members[v] if isinstance(v, int) and 0 <= v < len(t.members) else f"<{t.name} #{v}>"
    if isinstance(t, T.SetT):
        return "{" + ", ".join(format_value(x, t.element, exact) for x in canon(v)) + "}"
    if isinstance(t, T.SeqT):
        return "[" + ", ".join(format_value(x, t.element, exact) for x in v) + "]"
    if isinstance(t, T.TupleT):
        return "(" + ", ".join(format_value(x, et, exact) for x, et in zip(v, t.elements)) + ")"
    if isinstance(t, T.RecordT):
        return "{" + ", ".join(f"{n}: {format_value(x, ft, exact)}" for (n, ft), x in zip(t.fields, v)) + "}"
    if isinstance(t, T.MapT):
        keys, vals = v
        if not keys:
            return "{->}"
        return "{" + ", ".join(f"{format_value(k, t.key, exact)} -> {format_value(x, t.value, exact)}"
                               for k, x in zip(keys, vals)) + "}"
    if isinstance(t, T.AnyT):
        if isinstance(v, frozenset):
            return "{}"
        if isinstance(v, tuple):
            return "[]"
        if type(v) is int:
            return format_int(v, exact)
        return "none" if v is NONE else repr(v)
    raise AssertionError(t)  # pragma: no cover


def _abbreviated(v, t: T.Type) -> str:
    """A large set, sequence or map: its first TEXT_SHOWN elements (in canonical order) and its size."""
    if isinstance(t, T.MapT):
        keys, vals = v
        shown = [f"{format_value(k, t.key)} -> {format_value(x, t.value)}" for k, x in zip(keys[:TEXT_SHOWN], vals)]
        brackets, size = "{}", len(keys)
    elif isinstance(t, T.SeqT):
        shown = [format_value(x, t.element) for x in v[:TEXT_SHOWN]]
        brackets, size = "[]", len(v)
    else:
        shown = [format_value(x, t.element) for x in heapq.nsmallest(TEXT_SHOWN, v, key=canon_key)]
        brackets, size = "{}", len(v)
    return f"{brackets[0]}{', '.join(shown)}, ... ({size:,} elements){brackets[1]}"


def _key_text(k, t: T.Type, texts: dict | None) -> str:
    if texts and isinstance(t, T.SortT) and k in texts.get(t.name, ()):
        return texts[t.name][k]
    return format_value(k, t, exact=True)


def _scalar_key(t: T.Type) -> bool:
    return isinstance(t, (T.SortT, T.IntT, T.BoolT))


def to_json(v, t: T.Type, texts: dict | None = None):
    """A JSON value: sets and sequences as arrays, records as objects, maps as objects
    when their keys are enum members, model values, ints or bools, else as [key, value] pairs.
    Ints exactly: numbers, or strings of digits past json_digits() digits (json_int).
    `texts`: per enum or set of model values (its name), member index -> the text to write
    instead of the member's name (a `conform:` section's `values`, read backwards)."""
    if isinstance(t, T.OptionT):
        return None if v is NONE else to_json(v, t.inner, texts)
    if isinstance(t, T.BoolT):
        return v
    if isinstance(t, T.IntT):
        return json_int(v)
    if isinstance(t, T.SortT):
        if texts and v in texts.get(t.name, ()):
            return texts[t.name][v]
        return format_value(v, t)
    if isinstance(t, T.SetT):
        return [to_json(x, t.element, texts) for x in canon(v)]
    if isinstance(t, T.SeqT):
        return [to_json(x, t.element, texts) for x in v]
    if isinstance(t, T.TupleT):
        return [to_json(x, et, texts) for x, et in zip(v, t.elements)]
    if isinstance(t, T.RecordT):
        return {n: to_json(x, ft, texts) for (n, ft), x in zip(t.fields, v)}
    if isinstance(t, T.MapT):
        keys, vals = v
        if _scalar_key(t.key):
            return {_key_text(k, t.key, texts): to_json(x, t.value, texts) for k, x in zip(keys, vals)}
        return [[to_json(k, t.key, texts), to_json(x, t.value, texts)] for k, x in zip(keys, vals)]
    if isinstance(t, T.AnyT):
        return [] if isinstance(v, (frozenset, tuple)) else None
    raise AssertionError(t)  # pragma: no cover
