"""runtime.py: value operations used by generated code."""

import pickle

import pytest

from checker import runtime as R


def test_none_is_a_singleton_with_a_stable_hash():
    assert pickle.loads(pickle.dumps(R.NONE)) is R.NONE
    assert hash(R.NONE) == hash(pickle.loads(pickle.dumps((R.NONE, 1)))[0])
    assert R.NONE == R.NONE and R.NONE != 0 and R.NONE != None  # noqa: E711


def test_canonical_order_is_total_over_mixed_values():
    values = [frozenset({2, 1}), frozenset(), frozenset({1})]
    assert R.canon(values) == [frozenset(), frozenset({1}), frozenset({1, 2})]
    assert R.canon({R.NONE, 3, 1}) == [R.NONE, 1, 3]
    assert R.canon({(2, R.NONE), (1, 5)}) == [(1, 5), (2, R.NONE)]


def test_maps_build_lookup_update():
    m = R.mkmap([(2, "b"), (1, "a")], True, 0)
    assert m == ((1, 2), ("a", "b"))
    assert R.lookup(m, 2, 0) == "b"
    assert R.map_set(m, 1, "z", 0) == ((1, 2), ("z", "b"))
    with pytest.raises(R.Fault) as info:
        R.lookup(m, 3, 7)
    assert (info.value.code, info.value.where) == ("E401", 7)
    with pytest.raises(R.Fault):
        R.map_set(m, 3, "x", 0)


def test_map_with_conflicting_values_faults():
    with pytest.raises(R.Fault) as info:
        R.mkmap([(1, 1), (1, 2)], True, 0)
    assert info.value.code == "E409"
    assert R.mkmap([(1, 1), (1, 1)], True, 0) == ((1,), (1,))


def test_sequences_are_one_based():
    s = (10, 20, 30)
    assert R.at(s, 1, 0) == 10 and R.at(s, 3, 0) == 30
    for bad in (0, 4):
        with pytest.raises(R.Fault):
            R.at(s, bad, 0)
    assert R.seq_set(s, 2, 99, 0) == (10, 99, 30)
    assert R.subseq(s, 2, 3, 0) == (20, 30) and R.subseq(s, 3, 2, 0) == ()
    assert R.head(s, 0) == 10 and R.tail(s, 0) == (20, 30)
    with pytest.raises(R.Fault):
        R.tail((), 0)


def test_sets():
    assert R.powerset(frozenset({1, 2}), 0) == frozenset({frozenset(), frozenset({1}), frozenset({2}),
                                                          frozenset({1, 2})})
    assert R.bigunion(frozenset({frozenset({1}), frozenset({2, 3})})) == frozenset({1, 2, 3})
    assert R.int_range(2, 4) == frozenset({2, 3, 4}) and R.int_range(3, 2) == frozenset()
    assert len(R.all_maps(frozenset({0, 1}), frozenset({True, False}), 0)) == 4
    assert R.in_maps(((0, 1), (True, True)), frozenset({0, 1}), frozenset({True}))
    assert not R.in_maps(((0,), (True,)), frozenset({0, 1}), frozenset({True}))
    with pytest.raises(R.Fault):
        R.powerset(frozenset(range(R.POWERSET_LIMIT + 1)), 0)


def test_integer_faults():
    with pytest.raises(R.Fault):
        R.div(1, 0, 0)
    assert R.div(-7, 2, 0) == -4 and R.mod(-7, 2, 0) == 1
    assert R.check_range(3, 0, 3, 0) == 3
    with pytest.raises(R.Fault):
        R.check_range(4, 0, 3, 0)


def test_memo_computes_once():
    calls = []

    def f():
        calls.append(1)
        return 42

    g = R.memo(f)
    assert g() == 42 and g() == 42 and len(calls) == 1
