"""runtime.py: value operations used by generated code."""

import pickle

import pytest

from tlacheck.core import runtime as R


def test_none_is_a_singleton_with_a_stable_hash():
    assert pickle.loads(pickle.dumps(R.NONE)) is R.NONE
    assert hash(R.NONE) == hash(pickle.loads(pickle.dumps((R.NONE, 1)))[0])
    assert R.NONE == R.NONE and R.NONE != 0 and R.NONE != None  # noqa: E711


def test_long_key_tuples_hash_as_plain_tuples_and_pickle_as_them():
    short, long = tuple(range(R.CACHED_HASH_KEYS - 1)), tuple(range(R.CACHED_HASH_KEYS))
    assert type(R.keys_tuple(short)) is tuple
    keys = R.keys_tuple(long)
    assert keys == long and hash(keys) == hash(long) and hash((keys, 1)) == hash((long, 1))
    assert type(pickle.loads(pickle.dumps(keys))) is tuple
    assert R.canon([(keys, 2), (long, 1)]) == [(long, 1), (long, 2)]


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
    assert R.int_range(2, 4, 0) == frozenset({2, 3, 4}) and R.int_range(3, 2, 0) == frozenset()
    assert len(R.all_maps(frozenset({0, 1}), frozenset({True, False}), 0)) == 4
    assert R.in_maps(((0, 1), (True, True)), frozenset({0, 1}), frozenset({True}))
    assert not R.in_maps(((0,), (True,)), frozenset({0, 1}), frozenset({True}))
    assert not R.in_maps(((0, 2), (True, True)), frozenset({0, 1}), frozenset({True}))
    assert not R.in_maps(((0, 1), (True, False)), frozenset({0, 1}), frozenset({True}))
    assert R.in_maps_where(((0, 1), (1, 2)), frozenset({0, 1}), lambda v: v > 0)
    assert not R.in_maps_where(((0, 2), (1, 2)), frozenset({0, 1}), lambda v: v > 0)
    with pytest.raises(R.Fault):
        R.powerset(frozenset(range(R.POWERSET_LIMIT + 1)), 0)


def test_ranges_are_bounded_when_built_or_iterated():
    n = R.RANGE_LIMIT
    assert len(R.int_range(1, n, 0)) == n and list(R.range_domain(-1, 1, 0)) == [-1, 0, 1]
    for f in (R.int_range, R.range_domain):
        with pytest.raises(R.Fault) as caught:
            f(0, n, 7)
        assert (caught.value.code, caught.value.where, caught.value.values) == ("E408", 7, (0, n))
        assert not f(5, -10**40, 0)  # empty, however far apart


def test_products_of_two_variables_are_bounded():
    big = 1 << (R.INT_BITS_LIMIT // 2)
    assert R.mul(big - 1, big - 1, 0) == (big - 1) ** 2 and R.mul(-3, 4, 0) == -12
    with pytest.raises(R.Fault) as caught:
        R.mul(big, -big, 3)
    assert (caught.value.code, caught.value.values) == ("E412", (R.INT_BITS_LIMIT + 1,))


def test_integer_faults():
    with pytest.raises(R.Fault):
        R.div(1, 0, 0)
    assert R.div(-7, 2, 0) == -4 and R.mod(-7, 2, 0) == 1
    assert R.check_bounds(3, (0, 0, 3), 0) == 3
    with pytest.raises(R.Fault):
        R.check_bounds(4, (0, 0, 3), 0)


def fault_of(v, bound):
    with pytest.raises(R.Fault) as info:
        R.check_bounds(v, bound, 7)
    return (info.value.code, *info.value.values)


def test_issue_8_declared_bounds_reach_into_nested_values():
    seq3 = (1, 3, None)
    assert R.check_bounds((1, 2, 3), seq3, 0) == (1, 2, 3)
    assert fault_of((1, 2, 3, 4), seq3) == ("E410", 4, 3, False)
    in_range = (1, None, (0, 0, 3))  # seq[0..3]: no length bound, elements checked
    assert fault_of((1, 5), in_range) == ("E402", 5, 0, 3, True)
    a_map = (3, None, (1, 2, None))  # map[K, seq[int, 2]]
    assert R.check_bounds(((0, 1), ((), (1, 2))), a_map, 0)
    assert fault_of(((0, 1), ((), (1, 2, 3))), a_map) == ("E410", 3, 2, True)
    keys = (3, (0, 1, 2), None)  # map[1..2, int]
    assert fault_of(((1, 3), (0, 0)), keys) == ("E402", 3, 1, 2, True)
    record = (4, (None, (1, 1, None)))  # {a: int, b: seq[int, 1]}
    assert fault_of((9, (1, 2)), record) == ("E410", 2, 1, True)
    option = (5, (0, 0, 3))  # (0..3)?
    assert R.check_bounds(R.NONE, option, 0) is R.NONE
    assert fault_of(4, option) == ("E402", 4, 0, 3, False)
    a_set = (2, (0, 0, 3))  # set[0..3]: the smallest offender in canonical order
    assert fault_of(frozenset({9, 1, 7, 5}), a_set) == ("E402", 5, 0, 3, True)


def test_memo_computes_once():
    calls = []

    def f():
        calls.append(1)
        return 42

    g = R.memo(f)
    assert g() == 42 and g() == 42 and len(calls) == 1


def test_a_set_of_options_sorts_as_canon():
    for s in (frozenset({R.NONE, (1, 2), (0, 5), (1, 0)}), frozenset({(2,), (1, 3)}), frozenset({R.NONE}), frozenset()):
        assert R.sorted_option(s) == R.canon(s)
    assert R.sorted_option(frozenset({3, R.NONE, -1})) == [R.NONE, -1, 3] == R.canon(frozenset({3, R.NONE, -1}))
