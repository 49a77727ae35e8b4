"""values.py: display and JSON of values, guided by types."""

from tlacheck.core import types as T
from tlacheck.core import values
from tlacheck.core.runtime import NONE
from tlacheck.core.values import format_value, to_json


RM = T.SortT("RM", ("r1", "r2"), "model")
PHASE = T.SortT("Phase", ("idle", "busy"), "enum")


def test_format_scalars_and_options():
    assert format_value(True, T.BOOL) == "true"
    assert format_value(1, RM) == "r2"
    assert format_value(NONE, T.OptionT(T.INT)) == "none"
    assert format_value(3, T.OptionT(T.INT)) == "3"


def test_format_collections():
    assert format_value(frozenset({1, 0}), T.SetT(RM)) == "{r1, r2}"
    assert format_value((1, 0), T.SeqT(PHASE)) == "[busy, idle]"
    assert format_value(((0, 1), (1, 0)), T.MapT(RM, PHASE)) == "{r1 -> busy, r2 -> idle}"
    rec = T.RecordT((("rm", T.OptionT(RM)), ("type", PHASE)))
    assert format_value((NONE, 1), rec) == "{rm: none, type: busy}"
    assert format_value((1, True), T.TupleT((T.INT, T.BOOL))) == "(1, true)"


def test_json():
    assert to_json(((0, 1), (1, 0)), T.MapT(RM, PHASE)) == {"r1": "busy", "r2": "idle"}
    assert to_json(frozenset({1, 0}), T.SetT(RM)) == ["r1", "r2"]
    rec = T.RecordT((("rm", T.OptionT(RM)), ("type", PHASE)))
    assert to_json((NONE, 1), rec) == {"rm": None, "type": "busy"}
    key = T.TupleT((T.INT, T.INT))
    assert to_json((((1, 2),), (True,)), T.MapT(key, T.BOOL)) == [[[1, 2], True]]


def test_types_join_and_assignable():
    assert T.join(T.SetT(T.ANY), T.SetT(RM)) == T.SetT(RM)
    assert T.join(RM, T.OptionT(T.ANY)) == T.OptionT(RM)
    assert T.join(RM, PHASE) is None
    assert T.assignable(T.OptionT(RM), RM) and not T.assignable(RM, T.OptionT(RM))
    assert T.naturally_ordered(T.SeqT(RM)) and not T.naturally_ordered(T.SetT(RM))


def test_large_collections_are_abbreviated_in_text_but_not_when_exact():
    """A state that doubles a sequence at every step took minutes to print (fuzz campaign 3)."""
    n = values.TEXT_ELEMENTS + 1
    seq, st = T.SeqT(T.INT), T.SetT(T.INT)
    m = T.MapT(T.INT, T.BOOL)
    shown = ", ".join(map(str, range(values.TEXT_SHOWN)))
    assert format_value(tuple(range(n)), seq) == f"[{shown}, ... (1,001 elements)]"
    assert format_value(frozenset(range(n - 1, -1, -1)), st) == "{" + shown + ", ... (1,001 elements)}"
    keys = tuple(range(n))
    assert format_value((keys, (True,) * n), m).startswith("{0 -> true, 1 -> true, ")
    assert format_value((keys, (True,) * n), m).endswith(", ... (1,001 elements)}")
    assert format_value(tuple(range(n)), seq, exact=True) == "[" + ", ".join(map(str, range(n))) + "]"
    assert format_value(tuple(range(n - 1)), seq).endswith(f", {n - 2}]")  # up to the limit: every element
