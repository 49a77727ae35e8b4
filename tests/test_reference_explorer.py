"""The compiled explorer agrees with a naive IR interpreter (tests/reference_explorer.py)
on every spec and variant in specs/, and on small hand-written specs."""

from pathlib import Path

import pytest

from tlacheck.app.cli import read_source
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.lang.parser import parse
from tlacheck.lang.variants import BASE, variants
from tlacheck.pipeline.driver import build_model
from tests.conftest import SPECS, model_of, spec_files
from tests.reference_explorer import Interpreter, TooLarge, reference_counts


# The interpreter is slow on purpose; larger models are compared by the TLC oracle instead.
LIMIT = 6000

VERDICT = {Verdict.OK: "ok", Verdict.INVARIANT_VIOLATED: "invariant", Verdict.DEADLOCK: "deadlock"}


def cases():
    out = []
    for path in spec_files():
        source = read_source(str(path))
        names = [BASE] + [v.name for v in variants(parse(source))]
        for name in names:
            out.append(pytest.param(str(path), name, id=f"{path.relative_to(SPECS)}:{name}"))
    return out


def compare(model, deadlock: bool):
    fast = explore(model, Options(check_deadlock=deadlock, check_properties=False))
    if fast.verdict == Verdict.ERROR:
        pytest.skip("evaluation error: compared in tests/test_explore.py")
    if fast.distinct_states > LIMIT:
        pytest.skip(f"{fast.distinct_states} states: too many for the reference interpreter")
    try:
        ref = reference_counts(model.ir, check_deadlock=deadlock, limit=LIMIT)
    except TooLarge:  # pragma: no cover - the fast explorer found fewer states
        pytest.fail("the reference explorer finds more states than the compiled one")
    assert (fast.distinct_states, fast.states_generated, fast.depth, VERDICT[fast.verdict]) == ref


@pytest.mark.parametrize("path, variant", cases())
def test_compiled_explorer_matches_the_reference(path, variant):
    model = build_model(read_source(path), None, variant)
    if model.ir.theorems and not model.ir.actions:
        pytest.skip("predicates only")
    for deadlock in (True, False):
        compare(model, deadlock)


SMALL = [
    """
    var x: int = 0
    var s: set[int] = {}
    action A(k in 1..3):
        require x < 3
        either:
            x = x + k
        or:
            with v in s:
                x = v
        s = s | {x}
    """,
    """
    var q: seq[int] = []
    var m: map[int, bool] = {i -> false for i in 1..3}
    action Push(i in 1..3):
        require len(q) < 3 and not m[i]
        q = append(q, i)
        m[i] = true
    action Pop:
        require q != []
        m[head(q)] = false
        q = tail(q)
    invariant Consistent: all(m[i] == (i in elems(q)) for i in 1..3)
    """,
    """
    # A map whose domain grows and shrinks, updated by a parameter over a constant domain:
    # the update by position applies only while the map's keys are exactly that domain.
    var m: map[int, int] = {i -> 0 for i in 1..2}
    action Bump(i in 1..3):
        require i in domain(m) and m[i] < 2
        m[i] = m[i] + 1
    action Grow:
        require 3 not in domain(m)
        m = {i -> (if i in domain(m) then m[i] else 0) for i in 1..3}
    action Shrink:
        require 3 in domain(m)
        m = {i -> m[i] for i in 1..2}
    """,
    """
    # Record fields and nested maps reached through a map entry updated by position.
    var t: map[int, {n: int, seen: map[int, bool]}] = {i -> {n: 0, seen: {j -> false for j in 1..2}} for i in 1..2}
    action Note(i in 1..2, j in 1..2):
        require not t[i].seen[j]
        t[i].seen[j] = true
        t[i].n = t[i].n + j
    """,
    """
    var r: {a: int, b: bool} = {a: 0, b: false}
    action Flip:
        if r.b:
            r.a = r.a + 1
        elif r.a < 2:
            r.b = true
        else:
            require false
        r.b = not r.b
    """,
    # issue 15: the initial states given by `init:` over variables without initial values
    """
    var x: 0..3
    var n: int = x * 2
    var y: 0..3
    init: x < y and n != 2
    action Up:
        require y < 3
        y = y + 1
    action Down:
        require x > 0
        x = x - 1
    invariant Ordered: x < y
    """,
    """
    enum Mode { lo, hi }
    const K: set[model] = {k1, k2}
    var o: K?
    var s: set[K]
    var t: (0..1, Mode)
    var r: {on: bool, level: 0..2}
    init:
        let held = if o == none then {} else {o ?? k1}
        held & s == {} and (r.on implies r.level > t[1]) and len(s) <= 1
    action Take(k in K):
        require o == none and k in s
        o = k
        s = s - {k}
    action Drop:
        require o != none
        s = s | {o ?? k1}
        o = none
    action Raise:
        require r.level < 2
        r.level = r.level + 1
    """,
]


@pytest.mark.parametrize("text", SMALL)
def test_small_specs(text):
    model = model_of(text)
    for deadlock in (True, False):
        compare(model, deadlock)


INIT_PORTS = sorted((Path(__file__).parent / "data" / "tlc_init").glob("*.spec"))


@pytest.mark.parametrize("path", INIT_PORTS + [pytest.param(None, id="small")], ids=lambda p: getattr(p, "stem", p))
def test_issue_15_the_initial_states_of_an_init_predicate_are_the_references_in_order(path):
    texts = [path.read_text()] if path is not None else [t for t in SMALL if "init:" in t]
    for text in texts:
        model = model_of(text)
        assert list(model.init()) == list(Interpreter(model.ir).initial_states())
        for deadlock in (True, False):
            compare(model, deadlock)
