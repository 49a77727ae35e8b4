"""Traces rebuilt from stored keys (checker/engine/traces.py): real traces whatever the key,
including keys of canonical representatives (what a symmetry-reduced store keeps)."""

from tlacheck.core.errors import SpecError
from tlacheck.core.result import Verdict
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.fingerprints import Fingerprinter
from tlacheck.engine.options import Options, Storage
from tlacheck.engine.traces import path_to, rebuild
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS, model_of, spec_runs

# Two symmetric counters: swapping a and b maps behaviours to behaviours.
TWO = """
    var a: int = 0
    var b: int = 0
    action IncA:
        require a < 3
        a = a + 1
    action IncB:
        require b < 3
        b = b + 1
    action Move:
        require a > 0
        a = a - 1
        b = b + 1
    invariant NotBoth: not (a == 2 and b == 2)
    """


def _successors(model, state):
    return [(ai, args, t) for ai, act in enumerate(model.actions) for args, t in act(state)]


def _is_real(model, trace) -> bool:
    """Every step is a successor of the previous state by the action and arguments it names."""
    first = trace.steps[0].state
    if first not in list(model.init()):
        return False
    for before, step in zip(trace.steps, trace.steps[1:]):
        if (step.action, step.args, step.state) not in _successors(model, before.state):
            return False
    return True


def test_path_to_follows_the_parent_links():
    parents = [-1, -1, 0, 2, 1]
    assert path_to(parents, 3) == [0, 2, 3]
    assert path_to(parents, 4) == [1, 4]
    assert path_to(parents, -1) == []


def test_keys_of_canonical_representatives_give_a_real_trace():
    model = model_of(TWO)
    canonical = lambda s: tuple(sorted(s))  # noqa: E731 - the representative's key
    # A path of representatives: (0,0) -> (0,1) -> (1,1) -> (1,2) -> (2,2). From the real state
    # (1, 0) (IncA first), the representative (0, 1) is reached by IncA, not by IncB.
    keys = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)]
    trace = rebuild(model, keys, canonical)
    assert [canonical(s.state) for s in trace.steps] == keys
    assert _is_real(model, trace)
    # The first successor in the search's order with each key: IncA (action 0) from (0, 0).
    assert trace.steps[1].action == 0 and trace.steps[1].state == (1, 0)


def test_the_step_taken_is_the_first_successor_with_the_key():
    model = model_of(TWO)
    fp = Fingerprinter(model.var_types)
    # (1, 0) -> (0, 1) is Move; (0, 1) is also reachable from (0, 0) by IncB, but not from (1, 0).
    trace = rebuild(model, [fp((0, 0)), fp((1, 0)), fp((0, 1))], fp)
    assert [s.state for s in trace.steps] == [(0, 0), (1, 0), (0, 1)]
    assert [model.action_info[s.action].name for s in trace.steps[1:]] == ["IncA", "Move"]


def test_exact_keys_are_the_stored_states_themselves():
    model = model_of(TWO)
    states = [(0, 0), (0, 1), (1, 1)]
    trace = rebuild(model, states)
    assert all(step.state is stored for step, stored in zip(trace.steps, states))
    assert _is_real(model, trace)


def test_fingerprint_and_exact_storage_rebuild_the_same_real_traces_on_the_bundled_specs():
    checked = 0
    for name, variant in spec_runs():
        path = SPECS / name
        try:
            model = build_model(Source(str(path), path.read_text()), variant=variant)
        except SpecError:
            continue
        if model.ir.properties:
            continue
        options = dict(max_states=20_000, check_properties=False)
        exact = explore(model, Options(storage=Storage.EXACT, **options))
        fingerprint = explore(model, Options(storage=Storage.FINGERPRINT, **options))
        if exact.verdict not in (Verdict.INVARIANT_VIOLATED, Verdict.DEADLOCK):
            continue
        assert fingerprint.violation.trace == exact.violation.trace, (name, variant)
        assert _is_real(model, exact.violation.trace), (name, variant)
        checked += 1
    assert checked >= 5, checked


def test_each_store_rebuilds_its_traces_from_its_own_keys():
    from tlacheck.engine.levels import Coordinator
    from tlacheck.engine.stores import ExactStore, FingerprintStore

    model = model_of(TWO)
    for exact, store_type in ((True, ExactStore), (False, FingerprintStore)):
        explorer = Coordinator(model, Options(), None, 5.0, exact=exact)
        result = explorer.run()
        store = explorer.store
        assert isinstance(store, store_type)
        assert store.count == result.distinct_states
        for i in range(store.count):
            trace = explorer.trace_to(i)
            last = trace.steps[-1].state
            assert (last if store.key_of is None else store.key_of(last)) == store.key(i)
            assert len(trace.steps) == len(path_to(store.parents, i))
            assert _is_real(model, trace)
