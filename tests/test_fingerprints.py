"""fingerprints.py and fingerprint storage: the same results as exact storage (issue 7)."""

import subprocess
import sys
import textwrap

import pytest

from checker.cli import read_source
from checker.explore import Options, Storage, explore
from checker.fingerprints import FingerprintSet, collision_probability, fingerprint
from checker.model import build_model
from tests.conftest import ROOT, SPECS, model_of, spec_runs


def test_fingerprint_set_grows_and_keeps_every_member():
    fps = FingerprintSet(log2_slots=3)
    values = [fingerprint((i, -i, frozenset({i % 7}))) for i in range(5000)]
    assert all(fps.add(v) for v in values)
    assert len(fps) == 5000 and fps.count <= fps.limit
    assert all(v in fps for v in values)
    assert not any(fps.add(v) for v in values)


def test_the_newest_fingerprint_takes_its_home_slot():
    # Last come, first served: a search looks up the states it stored last most often.
    fps = FingerprintSet(log2_slots=4)
    clash = [5 + 16 * i for i in range(6)]  # one home slot, 5
    for v in clash:
        fps.add(v)
        assert fps.table[5] == v
    assert sorted(x for x in fps.table if x) == clash and all(v in fps for v in clash)


def test_zero_is_never_a_fingerprint():
    class Zero(tuple):
        def __hash__(self):
            return 0

    assert fingerprint(Zero()) == 1


def test_collision_probability_is_tlcs_optimistic_estimate():
    # TLC prints 3.9E-8 for TwoPhase with 7 resource managers.
    assert f"{collision_probability(296_448, 2_744_706):.1e}" == "3.9e-08"


def test_fingerprints_do_not_depend_on_the_hash_seed():
    code = textwrap.dedent("""
        from checker.cli import read_source
        from checker.model import build_model
        m = build_model(read_source("specs/notify_race.spec"))
        s = next(m.init())
        print([hash(t) for act in m.actions for _, t in act(s)], hash(s))
        """)
    outputs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                              env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout for seed in ("0", "1", "4242")}
    assert len(outputs) == 1 and outputs.pop().strip()


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
    from checker.cli import main

    assert main(["check", str(SPECS / "classic" / "two_phase.spec"), "--quiet"]) == 0
    assert "probability of a collision" in capsys.readouterr().out
    assert main(["check", str(SPECS / "classic" / "two_phase.spec"), "--quiet", "--storage", "exact"]) == 0
    assert "stored exactly" in capsys.readouterr().out


def test_list_and_generator_forms_of_actions_agree():
    model = build_model(read_source(str(SPECS / "classic" / "ewd840.spec")))
    frontier = list(model.init())[:50]
    for state in frontier:
        for act, nexts in zip(model.actions, model.next_states):
            assert nexts(state) == [t for _, t in act(state)]


def test_queued_values_are_shared_and_pools_stay_bounded():
    # 40 x 1,000 states: the variable `n` takes more distinct values than a pool keeps
    # (explore._POOL_LIMIT), so its pool is emptied during the search; `m` repeats its values.
    from checker import explore as explore_module
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
    assert explore_module._POOL_LIMIT < 40001
    exact = explore(model, Options(storage=Storage.EXACT))
    assert summary(explore(model, Options())) == summary(exact)
    assert exact.distinct_states == 40001 * 9


def test_a_pool_of_queued_values_that_rarely_repeat_is_given_up():
    from checker.explore import _POOL_WINDOW, _Pools

    model = model_of("""
        var fresh: seq[int] = []
        var count: int = 0
        var few: set[int] = {}
    """)
    pools = _Pools(model)
    assert pools.share is None  # every pool, in C
    for i in range(_POOL_WINDOW):
        pools.pools[0].setdefault((i,), (i,))  # always new
        pools.pools[1].setdefault(i % 7, i % 7)
        pools.pools[2].setdefault(frozenset({i % 5}), frozenset({i % 5}))
    assert not pools.review(_POOL_WINDOW - 1) and pools.share is None
    assert pools.review(_POOL_WINDOW)
    # `fresh` goes, and `count` with it (an int: Python shares small ints already); `few` stays
    assert pools.share == (2,) and pools.pools[:2] == [None, None]


def test_giving_up_a_pool_changes_no_result(monkeypatch):
    # flags with 10 processes: 1,024 maps of flags, each in 7 states; a pool bounded to 128 of them
    # keeps losing them, so it is given up (flags_16's 65,536 maps do that to the usual bound)
    import checker.explore as E

    monkeypatch.setattr(E, "_POOL_LIMIT", 128)
    monkeypatch.setattr(E, "_POOL_WINDOW", 512)
    given_up = []
    review = E._Pools.review

    def spy(self, stored):
        changed = review(self, stored)
        given_up.extend([self.share] if changed else [])
        return changed

    monkeypatch.setattr(E._Pools, "review", spy)
    model = build_model(read_source(str(ROOT / "benchmarks" / "models" / "flags.spec")), {"N": "10"})
    fp, exact = (explore(model, Options(storage=s)) for s in (Storage.FINGERPRINT, Storage.EXACT))
    assert summary(fp) == summary(exact) and given_up == [()]  # and `shared`'s pool (an int) with it
    assert (fp.distinct_states, fp.states_generated) == (2 ** 10 * 7, 2 ** 10 * 7 * 10 + 1)
