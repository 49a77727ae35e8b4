"""`enabled(A)` (TLA+ ENABLED A) and temporal formulas conditioned on the initial state
(`P implies eventually Q`, `if P then F else G`): hand-worked answers, TLC's verdicts, and the
CoffeeCan port's properties, which TLC checks on CoffeeCan100Beans.cfg."""

import textwrap

import pytest

from tlacheck.core.errors import SpecError
from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tests.conftest import ROOT, SPECS, model_of
from tests.test_liveness import replay_lasso

# The TLA+ form, checked with TLC 2.15 (-workers 1, SPECIFICATION Spec, one PROPERTY each):
#   Init == x \in {0, 1, 2}    Up == x >= 1 /\ x < 5 /\ x' = x + 1    Stay == UNCHANGED x
#   Spec == Init /\ [][Up \/ Stay]_x /\ WF_x(Up)
#   OddGrows == x = 1 => <>(x = 5)                         no error
#   Branch == IF x = 0 THEN <>(x = 0) ELSE <>(x = 5)       no error
#   Wrong == IF x = 0 THEN <>(x = 5) ELSE <>(x = 5)        violated
#   Stops == <>(~ENABLED Up)                               no error
#   UpAgain == []<>(ENABLED Up)                            violated
# each with 13 states generated, 6 distinct.
SPEC = textwrap.dedent("""
    var x: int in {0, 1, 2}
    action Up:
        require x >= 1
        require x < 5
        x = x + 1
    action Stay:
        skip
    fair weak Up
""").lstrip("\n")

TLC_SAYS = [
    ("x == 1 implies eventually x == 5", True),
    ("if x == 0 then eventually x == 0 else eventually x == 5", True),
    ("if x == 0 then eventually x == 5 else eventually x == 5", False),
    ("eventually not enabled(Up)", True),
    ("always eventually enabled(Up)", False),
]


@pytest.mark.parametrize("formula, holds", TLC_SAYS)
@pytest.mark.parametrize("storage, workers", [(Storage.FINGERPRINT, 1), (Storage.EXACT, 1), (Storage.FINGERPRINT, 2)])
def test_verdicts_are_tlcs(formula, holds, storage, workers):
    model = model_of(SPEC + f"property P: {formula}\n")
    r = explore(model, Options(storage=storage, workers=workers))
    assert (r.states_generated, r.distinct_states) == (13, 6)
    assert r.verdict == (Verdict.OK if holds else Verdict.LIVENESS_VIOLATED), r.violation
    if not holds:
        replay_lasso(model, r.violation.trace)


def test_a_condition_selects_the_initial_states_a_counterexample_starts_from():
    """`x == 2 implies eventually x == 0` is false only for behaviours from x = 2: the lasso
    starts there, although x = 1 (also never reaching 0) is the first initial state."""
    model = model_of(SPEC + "property P: x == 2 implies eventually x == 0\n")
    r = explore(model, Options())
    assert r.verdict == Verdict.LIVENESS_VIOLATED
    assert r.violation.trace.steps[0].state == (2,)
    replay_lasso(model, r.violation.trace)


def test_enabled_in_an_invariant_is_the_actions_guard():
    r = explore(model_of(SPEC + "invariant I: enabled(Up) == (x >= 1 and x < 5)\n"
                                "invariant J: enabled(Stay)\n"), Options())
    assert r.verdict == Verdict.OK
    r = explore(model_of(SPEC + "invariant I: enabled(Up)\n"), Options())
    assert r.verdict == Verdict.INVARIANT_VIOLATED and r.violation.trace.steps[-1].state == (0,)


def test_enabled_of_an_action_with_parameters_is_enabled_with_some_argument():
    """TLA+ ENABLED \\E k \\in S : A(k): Set steps from x < 3 with k = 3 - x only."""
    spec = """
        var x: int = 0
        action Set(k in 1..3):
            require x + k == 3
            x = x + k
        invariant SetWhileBelow: enabled(Set) == (x < 3)
        """
    r = explore(model_of(spec), Options(check_deadlock=False))
    assert r.verdict == Verdict.OK and r.distinct_states == 2  # x = 0, then 3
    r = explore(model_of(spec.replace("(x < 3)", "(x > 0)")), Options(check_deadlock=False))
    assert r.verdict == Verdict.INVARIANT_VIOLATED and r.violation.trace.steps[-1].state == (0,)


@pytest.mark.parametrize("text, code, message", [
    ("def f() -> bool:\n    enabled(Up)\ninvariant I: f()", "E128",
     "only in an invariant, a temporal property or an action"),
    ("action Down:\n    x = 0\n    require enabled(Up)", "E128", "in an action must come before its assignments"),
    ("action Down:\n    if x > 1:\n        x = 0\n    require enabled(Up)", "E128", "before its assignments"),
    ("invariant I: enabled(Upp)", "E128", "takes the name of an action"),
    ("invariant I: enabled(Up(1))", "E128", "takes 0 arguments (none), not 1"),
    ("property P: always (x' >= x or enabled(Up))", "E128", "only in an invariant, a temporal property or an action"),
    ("assume A: enabled(Up)", "E128", "only in an invariant, a temporal property or an action"),
])
def test_misuse_is_an_error_at_its_place(text, code, message):
    with pytest.raises(SpecError) as info:  # E114 when the search starts, E128 when the spec is read
        explore(model_of(SPEC + text + "\n"), Options())
    d = info.value.diagnostics[0]
    assert d.code == code and message in d.message and d.span.line > SPEC.count("\n")


# ---------------------------------------------------------------- CoffeeCan (TLC: all four hold)

COFFEE = (SPECS / "classic" / "coffee_can.spec").read_text()


def test_coffee_can_checks_every_property_of_its_cfg():
    model = model_of(COFFEE, name="coffee_can.spec")
    names = {p.name for p in model.ir.properties} | {name for name, _ in model.steps}
    assert names == {"EventuallyTerminates", "TerminationHypothesis", "MonotonicDecrease", "LoopInvariant"}
    r = explore(model, Options())
    assert r.verdict == Verdict.OK and (r.distinct_states, r.states_generated) == (5150, 20002)
    assert not r.undecided


@pytest.mark.parametrize("old, new, broken, start", [
    # TLC on CoffeeCan.tla with ELSE <>(can.black = 1 /\ can.white = 0): violated; from an odd
    # number of white beans the last bean is white
    ("else eventually (can.black == 0 and can.white == 1)", "else eventually (can.black == 1 and can.white == 0)",
     "TerminationHypothesis", lambda can: can["white"] % 2 == 1),
    # TLC with <>(~ENABLED Termination): violated; a can of one bean stays so
    ("eventually enabled(Termination)", "eventually not enabled(Termination)", "EventuallyTerminates",
     lambda can: can["black"] + can["white"] == 1),
])
def test_coffee_can_mutations_break_its_temporal_properties(old, new, broken, start):
    assert old in COFFEE
    model = model_of(COFFEE.replace(old, new), name="coffee_can.spec")
    r = explore(model, Options())
    assert r.verdict == Verdict.LIVENESS_VIOLATED and r.violation.name == broken
    first = r.violation.trace.steps[0].state[0]
    assert start(dict(zip(("black", "white"), first)))
    replay_lasso(model, r.violation.trace)


# ---------------------------------------------------------------- `enabled(A(x, y))`

WITH_ARGS = """
    const Clients: set[model] = {c1, c2}
    var owner: Clients? = none
    var queue: seq[Clients] = []
    action Join(c in Clients):
        require c not in elems(queue) and owner != c
        queue = append(queue, c)
    action Take(c in Clients):
        require owner == none and queue != [] and head(queue) == c
        owner = c
        queue = tail(queue)
    action Leave(c in Clients):
        require owner == c
        owner = none
    # enabled(Take(c)) is Take's guard for c, written out
    invariant TakeGuard: all(enabled(Take(c)) == (owner == none and queue != [] and head(queue) == c) for c in Clients)
    invariant OneTaker: len({c for c in Clients if enabled(Take(c))}) <= 1
"""


def test_enabled_with_arguments_is_the_actions_guard_for_them():
    result = explore(model_of(WITH_ARGS), Options(storage=Storage.EXACT, check_deadlock=False))
    assert result.verdict == Verdict.OK, result.violation
    assert result.distinct_states > 5  # owners and queues of both clients were reached


def test_enabled_with_arguments_fails_when_the_guard_changes():
    # a mutation of Take's guard: any queued client may take
    broken = WITH_ARGS.replace("and head(queue) == c\n        owner = c", "and c in elems(queue)\n        owner = c")
    assert broken != WITH_ARGS
    result = explore(model_of(broken), Options(storage=Storage.EXACT, check_deadlock=False))
    assert result.verdict == Verdict.INVARIANT_VIOLATED and result.violation.name in ("TakeGuard", "OneTaker")


@pytest.mark.parametrize("text, message", [
    ("var x: int = 0\naction Send(k in 1..2):\n    x = k\ninvariant I: enabled(Send(1, 2))\n", "takes 1 argument"),
    ("var x: int = 0\naction Send(k in 1..2):\n    x = k\ninvariant I: enabled(Send(true))\n", "argument `k`"),
])
def test_enabled_with_wrong_arguments(text, message):
    with pytest.raises(SpecError) as info:
        model_of(text)
    d = info.value.diagnostics[0]
    assert d.code in ("E128", "E102") and message in d.message, d


def test_generated_specs_with_enabled_arguments_agree_with_tlc_and_the_reference():
    from tests.oracle import tlc
    from tests.oracle.compare import check_seed
    from tests.oracle.generate import generate

    seeds = [s for s in range(1, 200) if "enabled-args" in generate(s).features][:4]
    assert len(seeds) == 4
    use_tlc = tlc.available() is None
    for seed in seeds:
        o = check_seed(seed, tlc=use_tlc)
        assert o.status in ("agree", "error"), (seed, o.status, o.reason, o.diffs)


# ---------------------------------------------------------------- issue 38: enabled(A(x)) in an action's guard

GIVE_UP = (ROOT / "tests" / "data" / "language" / "enabled_guard.spec").read_text()


def _reference(model):
    from tests.reference_explorer import reference_counts

    return reference_counts(model.ir, check_deadlock=False)


def test_issue_38_enabled_in_a_guard_is_the_other_actions_guard_written_out():
    """GiveUp(p)'s `not enabled(Enter(p))` is `not (owner == none and p in waiting)`, and, with p in
    waiting, `owner != none`: the three give the same model, and the reference explorer agrees."""
    asked = model_of(GIVE_UP)
    written = model_of(GIVE_UP.replace("not enabled(Enter(p))", "not (owner == none and p in waiting)"))
    simplified = model_of(GIVE_UP.replace("not enabled(Enter(p))", "owner != none"))
    counts = [(r.distinct_states, r.states_generated, r.verdict) for r in
              (explore(m, Options(check_deadlock=False)) for m in (asked, written, simplified))]
    assert counts[0] == counts[1] == counts[2] and counts[0][2] == Verdict.OK
    assert _reference(asked)[:2] == counts[0][:2]


def test_issue_38_enabled_in_a_guard_with_workers_and_exact_storage():
    runs = [explore(model_of(GIVE_UP), Options(check_deadlock=False, storage=storage, workers=workers))
            for storage, workers in ((Storage.FINGERPRINT, 1), (Storage.EXACT, 1), (Storage.FINGERPRINT, 2))]
    assert len({(r.distinct_states, r.states_generated) for r in runs}) == 1


def test_issue_38_an_action_cannot_ask_whether_it_is_enabled_itself():
    text = SPEC + "action Down:\n    require not enabled(Back)\n    x = 0\naction Back:\n    require enabled(Down)\n    x = 1\n"
    with pytest.raises(SpecError) as info:
        model_of(text)
    d = info.value.diagnostics[0]
    assert (d.code, d.message) == ("E128", "action `Down` asks whether it is enabled itself (Down -> Back -> Down)")
    with pytest.raises(SpecError) as info:
        model_of(SPEC + "action Down:\n    require not enabled(Down)\n    x = 0\n")
    assert info.value.diagnostics[0].message == "action `Down` asks whether it is enabled itself (Down -> Down)"


def test_issue_38_enabled_in_a_block_and_of_an_action_declared_later():
    text = SPEC + "block careful():\n    require not enabled(Later(1))\naction Down:\n    careful()\n    x = 0\n" \
        "action Later(k in 1..2):\n    require x == k\n    x = x + 1\n"
    result = explore(model_of(text), Options(check_deadlock=False))
    assert result.verdict == Verdict.OK
    with pytest.raises(SpecError) as info:  # the block's statements run after an assignment there
        model_of(text.replace("    careful()\n    x = 0\n", "    x = 0\n    careful()\n"))
    assert "before its assignments" in info.value.diagnostics[0].message


def test_issue_38_a_step_refused_after_an_enabled_guard_names_the_guard_that_failed():
    """The explanation of a disabled step runs instrumented actions, which have a step on every path;
    `enabled(Enter(p))` must still ask the real Enter, or a true guard is named as the one that failed."""
    from tlacheck.output import savedtrace
    from tlacheck.conform.replayer import Outcome, replay
    from tlacheck.output.report import result_json
    from tlacheck.core.source import Source
    from tlacheck.pipeline.driver import build_model
    import json

    text = GIVE_UP + "invariant OneGivesUp: len(gaveUp) < 2\n" + \
        "variant Once:\n    extend action GiveUp:\n        after:\n            require len(gaveUp) == 1\n"
    base = build_model(Source("g.spec", text))
    found = explore(base, Options(invariants=("OneGivesUp",), check_deadlock=False))
    data = json.loads(json.dumps(result_json(base, found, "g.spec")))
    once = build_model(Source("g.spec", text), variant="Once")
    r = replay(once, savedtrace.load(data, once))
    assert r.outcome == Outcome.DISABLED
    assert r.causes[0].span.line == text.splitlines().index("            require len(gaveUp) == 1") + 1
