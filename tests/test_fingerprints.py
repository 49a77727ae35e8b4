"""fingerprints.py and fingerprint storage: a real 64-bit fingerprint (soundness issue, item 1)
with the same results as exact storage (issue 7)."""

import functools
import itertools
import operator
import subprocess
import sys
import textwrap

import pytest

from tlacheck.app.cli import read_source
from tlacheck.core import types as T
from tlacheck.core.runtime import NONE, keys_tuple
from tlacheck.engine.explore import explore
from tlacheck.engine.fingerprints import (Fingerprinter, FingerprintTable, collision_probability, encode,
                                         slot_hash)
from tlacheck.engine.options import Options, Storage
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT, SPECS, model_of, spec_runs
from tests.values_check import state_problems, well_represented


INT, BOOL = T.INT, T.BOOL
INTS = range(-2**16, 2**16 + 1)


def distinct_fingerprints(var_types, states) -> bool:
    """Whether the fingerprints of `states` (distinct values of the given slot types) are distinct."""
    fingerprint = Fingerprinter(var_types)
    states = list(states)
    assert len(set(states)) == len(states)
    return len({fingerprint(s) for s in states}) == len(states)


def test_cpythons_hash_fails_these_checks():
    # What the tests below guard against: hash(-1) == hash(-2), ints modulo 2^61 - 1.
    assert len({hash((i,)) for i in INTS}) < len(INTS)
    assert hash((5,)) == hash((5 + 2**61 - 1,))


@pytest.mark.parametrize("name, var_type, wrap", [
    ("alone", INT, lambda i: i),
    ("in a tuple", T.TupleT((INT, BOOL)), lambda i: (i, i % 3 == 0)),
    ("in a set", T.SetT(INT), lambda i: frozenset({i})),
    ("in a map", T.MapT(INT, INT), lambda i: ((0,), (i,))),
    ("as a map key", T.MapT(INT, BOOL), lambda i: ((i,), (True,))),
    ("in a record", T.RecordT((("a", INT), ("b", T.SeqT(INT)))), lambda i: (i, (i, -i))),
    ("in an option", T.OptionT(INT), lambda i: i),
])
def test_every_int_near_zero_has_its_own_fingerprint(name, var_type, wrap):
    assert distinct_fingerprints([var_type], [(wrap(i),) for i in INTS]), name


def test_ints_apart_by_cpythons_hash_modulus_differ():
    big = 2**61 - 1
    states = [(i,) for i in range(-1000, 1000)] + [(i + big,) for i in range(-1000, 1000)] \
        + [(i - big,) for i in range(-1000, 1000)] + [(i * big,) for i in range(2, 50)] + [(2**64 + i,) for i in range(50)]
    assert distinct_fingerprints([INT], states)


def test_sets_of_the_same_size_differ():
    pairs = [(frozenset(c),) for c in itertools.combinations(range(600), 2)]
    triples = [(frozenset(c),) for c in itertools.combinations(range(-50, 50), 3)]
    assert distinct_fingerprints([T.SetT(INT)], pairs)
    assert distinct_fingerprints([T.SetT(INT)], triples)
    nested = [(frozenset(frozenset(x) for x in c),) for c in itertools.combinations(
        [s for n in range(3) for s in itertools.combinations(range(-3, 4), n)], 2)]
    assert distinct_fingerprints([T.SetT(T.SetT(INT))], nested)


def test_nested_options_and_mixed_structures_differ():
    inner = T.RecordT((("k", T.OptionT(INT)), ("s", T.SetT(T.OptionT(BOOL)))))
    values = [NONE] + [(k, frozenset(s)) for k in [NONE, -2, -1, 0, 1, 2**61 - 2]
                       for n in range(3) for s in itertools.combinations([NONE, False, True], n)]
    t = T.OptionT(inner)
    assert distinct_fingerprints([t, t], itertools.product(values, values))
    seqs = T.SeqT(T.OptionT(T.SeqT(INT)))
    seq_values = [()] + [tuple(x) for n in range(1, 4) for x in itertools.product([NONE, (), (-1,), (-2,), (-1, -2)], repeat=n)]
    assert distinct_fingerprints([seqs], [(v,) for v in seq_values])


def test_slots_are_kept_apart():
    # XOR of per-slot hashes: without the slot in the hash, swapping two values would not change it.
    assert distinct_fingerprints([INT, INT], [(a, b) for a in range(-60, 60) for b in range(-60, 60)])


def test_equal_values_give_equal_fingerprints_whatever_their_form():
    t = T.MapT(INT, T.SetT(INT))
    fingerprint = Fingerprinter([t])
    keys = tuple(range(10))
    a = ((keys, tuple(frozenset(range(k)) for k in keys)),)
    b = ((keys_tuple(keys), tuple(frozenset(reversed(range(k))) | frozenset() for k in keys)),)
    assert type(b[0][0]) is not tuple and a == b
    assert fingerprint(a) == fingerprint(b)
    big = frozenset(range(-500, 500))
    rebuilt = frozenset(x for x in range(499, -501, -1))
    assert Fingerprinter([T.SetT(INT)])((big,)) == Fingerprinter([T.SetT(INT)])((rebuilt,))


def test_the_encoding_and_hash_are_pinned():
    # Fingerprints must be the same in every process and Python version: these values were computed
    # once; a change of the encoding (or of marshal's version 2 format) must bump fingerprints._PERSON.
    assert encode(-1, INT) == b"i\xff\xff\xff\xff"
    assert encode(frozenset({3, -1}), T.SetT(INT)) == b"(\x02\x00\x00\x00i\xff\xff\xff\xffi\x03\x00\x00\x00"
    assert encode(NONE, T.OptionT(INT)) == b"N"
    assert slot_hash(0, encode(-1, INT)) == PINNED_MINUS_ONE
    assert Fingerprinter([INT, T.SetT(INT)])((-1, frozenset({1, 2}))) == PINNED_STATE


PINNED_MINUS_ONE = -2443553722717717235
PINNED_STATE = 2523800740595754114


@pytest.mark.parametrize("var_type, value", [
    (T.SeqT(INT), tuple(range(-5000, 5000))),
    (T.SetT(INT), frozenset(range(-5000, 5000))),
    (T.RecordT((("a", T.SeqT(T.SeqT(INT))), ("b", BOOL))), (tuple((i, -i) for i in range(9000)), True)),
    (T.MapT(INT, T.SeqT(INT)), ((1, 2), (tuple(range(9000)), ()))),
])
def test_large_values_are_hashed_in_pieces_as_if_at_once(var_type, value):
    from tlacheck.engine.fingerprints import _large, _MEMO_BYTES

    fingerprint = Fingerprinter([var_type])
    if isinstance(var_type, T.MapT):  # entry by entry
        entry = T.TupleT((var_type.key, var_type.value))
        expected = functools.reduce(operator.xor, (slot_hash(0, encode(e, entry)) for e in zip(*value)))
        assert fingerprint.raw((value,)) == expected
        assert _large((value[0][0], value[1][0])) and len(fingerprint.entries[0]) == 1  # the small one is kept
    else:
        assert fingerprint.raw((value,)) == slot_hash(0, encode(value, var_type))
        assert len(encode(value, var_type)) > _MEMO_BYTES and not fingerprint.memos[0]  # not kept


def test_a_map_is_hashed_as_the_set_of_its_entries():
    t = T.MapT(INT, T.SetT(INT))
    fingerprint = Fingerprinter([t, t])
    entry = T.TupleT((INT, T.SetT(INT)))
    m = ((1, 2, 3), (frozenset(), frozenset({-1}), frozenset({2, 1})))
    one = functools.reduce(operator.xor, (slot_hash(1, encode(e, entry)) for e in zip(*m)))
    assert fingerprint.raw((((), ()), m)) == one
    # maps as sets of entries: states differing in how entries are spread over two maps differ
    maps = [tuple(zip(*c)) if c else ((), ()) for n in range(4) for c in itertools.combinations(
        [(k, frozenset(v)) for k in range(3) for v in ((), (k,))], n) if len({k for k, _ in c}) == n]
    assert distinct_fingerprints([t, t], itertools.product(maps, maps))


def test_zero_is_never_a_fingerprint(monkeypatch):
    fingerprint = Fingerprinter([INT])
    monkeypatch.setitem(fingerprint.memos[0], 7, 0)
    assert fingerprint((7,)) == 1


def test_the_fingerprint_table_grows_and_keeps_every_member():
    fingerprint = Fingerprinter([INT, INT, T.SetT(INT)])
    fps = FingerprintTable(8)
    values = [fingerprint((i, -i, frozenset({i % 7}))) for i in range(5000)]
    for v in values:
        if not fps.room(1):
            fps = fps.grown(fps.count + 1)
        assert fps.add(v)
    assert len(fps) == 5000 and 2 * fps.count <= fps.mask + 1
    assert all(v in fps for v in values)
    assert not any(fps.add(v) for v in values)
    assert sorted(fps.fingerprints()) == sorted(values)


def test_the_newest_fingerprint_takes_its_home_slot():
    # Last come, first served: a search looks up the states it stored last most often.
    for insert in (False, True):
        fps = FingerprintTable(16)
        clash = [5 + 16 * i for i in range(6)]  # one home slot, 5
        for v in clash:
            fps.insert([v]) if insert else fps.add(v)
            assert fps.table[5] == v
        assert sorted(fps.fingerprints()) == clash and all(v in fps for v in clash)


def test_issue_34_a_shared_table_is_read_by_a_process_it_is_sent_to():
    """One table class serves every seen-set: a growth copies a shared table chunk by chunk into a
    new shared one, which another process attaches by its descriptor and reads."""
    import os

    table = FingerprintTable(16, shared=True)
    table.insert([3, 19, 35])
    grown = FingerprintTable(64, shared=True)
    assert list(table.copy_into(grown, 2)) == [None, None]  # two chunks
    table.close()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other process: the descriptor as a forked worker inherits or receives it
        other = FingerprintTable.attach(64, os.dup(grown.fd))
        os.write(write, bytes([all(x in other for x in (3, 19, 35)) and 51 not in other]))
        os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 1) == b"\x01"
    grown.close()


def test_collision_probability_is_tlcs_optimistic_estimate():
    # TLC prints 3.9E-8 for TwoPhase with 7 resource managers.
    assert f"{collision_probability(296_448, 2_744_706):.1e}" == "3.9e-08"


def test_fingerprints_do_not_depend_on_the_hash_seed():
    code = textwrap.dedent("""
        from tlacheck.app.cli import read_source
        from tlacheck.engine.fingerprints import Fingerprinter
        from tlacheck.pipeline.driver import build_model
        m = build_model(read_source("specs/notify_race.spec"))
        f = Fingerprinter(m.var_types)
        s = next(m.init())
        print([f(t) for act in m.actions for _, t in act(s)], f(s))
        """)
    outputs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("0", "1", "4242")}
    assert len(outputs) == 1 and outputs.pop().strip()


def reachable(model, limit: int):
    """Up to `limit` reachable states of `model`, breadth-first (no constraint, no check)."""
    states = list(dict.fromkeys(model.init()))
    seen = set(states)
    for state in states:
        if len(states) >= limit:
            break
        for act in model.actions:
            for _, succ in act(state):
                if succ not in seen:
                    seen.add(succ)
                    states.append(succ)
    return states[:limit]


@pytest.mark.parametrize("spec, variant", spec_runs())
def test_successor_fingerprints_from_the_written_slots_are_the_whole_fingerprints(spec, variant):
    # The generated successor functions hash only the slots an action may assign (codegen's
    # analysis): check the analysis (every other slot keeps its value) and their fingerprints.
    model = build_model(read_source(str(SPECS / spec)), None, variant)
    fingerprint = Fingerprinter(model.var_types)
    for state in reachable(model, 400):
        for nexts, writes in zip(model.next_states, model.action_writes):
            try:
                succs, fps = nexts(state, fingerprint.raw(state), fingerprint.memos, fingerprint.entries)
            except Exception:  # an evaluation error: the explorers stop there
                continue
            for succ in succs:
                assert all(succ[i] == state[i] for i in range(len(state)) if i not in writes)
            assert fps == list(map(fingerprint, succs))


def summary(r):
    err = r.error
    return (r.verdict, r.distinct_states, r.states_generated, r.depth, r.queue_left, r.stop_reason,
            [(c.enabled, c.generated, c.distinct) for c in r.coverage], r.violation, r.witnesses,
            r.violations, (err.code, err.message, err.span) if err is not None else None)


@pytest.mark.parametrize("spec, variant", spec_runs())
@pytest.mark.parametrize("options", [{"check_deadlock": True}, {"check_deadlock": False}, {"collect": True}])
def test_fingerprint_and_exact_storage_agree_on_every_spec(spec, variant, options):
    model = build_model(read_source(str(SPECS / spec)), None, variant)
    exact = explore(model, Options(storage=Storage.EXACT, **options))
    fingerprints = explore(model, Options(storage=Storage.FINGERPRINT, **options))
    assert summary(fingerprints) == summary(exact)


@pytest.mark.parametrize("extra", [
    "invariant Div: 12 // (5 - x - y) >= 0",
    "constraint Div: 12 // (5 - x - y) >= 0",
    "reachable Div: 12 // (5 - x - y) == 0",
    "constraint Sum: x + y <= 5",
])
def test_fingerprint_and_exact_storage_agree_on_evaluation_errors(extra):
    model = model_of(textwrap.dedent("""
        var x: int = 0
        var y: int = 0
        action IncX(k in 1..3):
            require x + k <= 6
            x = x + k
        action IncY(k in 1..2):
            require y + k <= 6
            y = y + k
        """) + extra + "\n")
    exact = explore(model, Options(storage=Storage.EXACT, check_deadlock=False))
    assert summary(explore(model, Options(check_deadlock=False))) == summary(exact)


def test_summary_reports_the_collision_probability(capsys):
    from tlacheck.app.cli import main

    assert main(["check", str(SPECS / "classic" / "two_phase.spec"), "--quiet"]) == 0
    assert "probability of a collision" in capsys.readouterr().out
    assert main(["check", str(SPECS / "classic" / "two_phase.spec"), "--quiet", "--storage", "exact"]) == 0
    assert "stored exactly" in capsys.readouterr().out


def test_list_and_generator_forms_of_actions_agree():
    model = build_model(read_source(str(SPECS / "classic" / "ewd840.spec")))
    frontier = list(model.init())[:50]
    for state in frontier:
        fingerprint = Fingerprinter(model.var_types)
        for act, nexts in zip(model.actions, model.next_states):
            succs, fps = nexts(state, fingerprint.raw(state), fingerprint.memos, fingerprint.entries)
            assert succs == [t for _, t in act(state)] and fps == list(map(fingerprint, succs))


def test_queued_values_are_shared_and_pools_stay_bounded():
    # 40 x 1,000 states: the variable `n` takes more distinct values than a pool keeps
    # (pools.POOL_LIMIT), so its pool is emptied during the search; `m` repeats its values.
    from tlacheck.engine import pools

    model = model_of(textwrap.dedent("""
        var n: int = 0
        var m: map[int, int] = {i -> 0 for i in 0..1}
        action Count:
            require n < 40000
            n = n + 1
        action Turn(i in 0..1):
            m[i] = (m[i] + 1) % 3
        invariant Small: m[0] < 3 and n <= 40000
        """))
    assert pools.POOL_LIMIT < 40001
    exact = explore(model, Options(storage=Storage.EXACT))
    assert summary(explore(model, Options())) == summary(exact)
    assert exact.distinct_states == 40001 * 9


def test_a_pool_of_queued_values_that_rarely_repeat_is_given_up():
    from tlacheck.engine.pools import POOL_WINDOW, ValuePools

    model = model_of("""
        var fresh: seq[int] = []
        var count: int = 0
        var few: set[int] = {}
    """)
    pools = ValuePools(model)
    assert pools.share is None  # every pool, in C
    for i in range(POOL_WINDOW):
        pools.pools[0].setdefault((i,), (i,))  # always new
        pools.pools[1].setdefault(i % 7, i % 7)
        pools.pools[2].setdefault(frozenset({i % 5}), frozenset({i % 5}))
    assert not pools.review(POOL_WINDOW - 1) and pools.share is None
    assert pools.review(POOL_WINDOW)
    # `fresh` goes, and `count` with it (an int: Python shares small ints already); `few` stays
    assert pools.share == (2,) and pools.pools[:2] == [None, None]


def test_giving_up_a_pool_changes_no_result(monkeypatch):
    # flags with 10 processes: 1,024 maps of flags, each in 7 states; a pool bounded to 128 of them
    # keeps losing them, so it is given up (flags_16's 65,536 maps do that to the usual bound)
    from tlacheck.engine import pools as E

    monkeypatch.setattr(E, "POOL_LIMIT", 128)
    monkeypatch.setattr(E, "POOL_WINDOW", 512)
    given_up = []
    review = E.ValuePools.review

    def spy(self, stored):
        changed = review(self, stored)
        given_up.extend([self.share] if changed else [])
        return changed

    monkeypatch.setattr(E.ValuePools, "review", spy)
    model = build_model(read_source(str(ROOT / "benchmarks" / "models" / "flags.spec")), {"N": "10"})
    fp, exact = (explore(model, Options(storage=s)) for s in (Storage.FINGERPRINT, Storage.EXACT))
    assert summary(fp) == summary(exact) and given_up == [()]  # and `shared`'s pool (an int) with it
    assert (fp.distinct_states, fp.states_generated) == (2 ** 10 * 7, 2 ** 10 * 7 * 10 + 1)


def test_the_representation_check_sees_a_bool_for_an_int():
    assert well_represented(((0, 1), (True, False)), T.MapT(T.INT, T.BOOL))
    assert not well_represented(((False, True), (True, False)), T.MapT(T.INT, T.BOOL))
    assert not well_represented(((1, 0), (True, False)), T.MapT(T.INT, T.BOOL))  # keys out of order
    assert well_represented(frozenset({(0, 1)}), T.SetT(T.SeqT(T.INT)))
    assert not well_represented(frozenset({(0, True)}), T.SetT(T.SeqT(T.INT)))
    assert not well_represented([0], T.SeqT(T.INT))
    assert well_represented(NONE, T.OptionT(T.INT)) and not well_represented(None, T.OptionT(T.INT))


@pytest.mark.parametrize("spec, variant", spec_runs())
def test_every_reachable_state_is_well_represented(spec, variant):
    model = build_model(read_source(str(SPECS / spec)), None, variant)
    assert state_problems(model, 400) == []
