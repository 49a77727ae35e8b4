"""Step properties (`property NAME: always P`, P over x and x'): TLA+'s [][P]_vars, TLC's action
properties."""

import re
from collections import deque

import pytest

from tlacheck.app.cli import main
from tlacheck.core.errors import SpecError
from tlacheck.core.result import Check, Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options, Storage
from tests.conftest import SPECS, model_of, run
from tests.test_parallel import summary

TOGGLE = """
    var x: int = 0
    var y: int = 0
    action Up:
        require x < 3
        x = x + 1
    action Reset:
        require x == 3
        x = 0
    action Bump:
        require y < 2
        y = y + 1
    action Stay:
        skip
    property XGrows: always (x' >= x)
    """


def _shortest_violation(model, name: str) -> int | None:
    """An oracle independent of the explorers: breadth-first over the states, every step of
    every state checked; the number of steps to the first violating one, or None."""
    pred = dict(model.steps)[name]
    depth = {s: 0 for s in model.init()}
    queue = deque(depth)
    best = None
    while queue:
        s = queue.popleft()
        for act in model.actions:
            for _, t in act(s):
                if t != s and not pred(s, t):
                    best = depth[s] + 1 if best is None else min(best, depth[s] + 1)
                if t not in depth:
                    depth[t] = depth[s] + 1
                    queue.append(t)
    return best


def test_a_step_back_to_a_stored_state_violates_with_a_shortest_trace():
    model, result = run(TOGGLE)
    assert result.verdict == Verdict.INVARIANT_VIOLATED
    v = result.violation
    assert (v.kind, v.name) == (Check.STEP, "XGrows")
    steps = v.trace.steps
    assert len(steps) - 1 == _shortest_violation(model, "XGrows") == 4
    assert [model.action_info[s.action].name for s in steps[1:]] == ["Up", "Up", "Up", "Reset"]
    assert steps[-1].state == (0, 0)  # the initial state again: a step to a stored state


def test_a_step_that_changes_nothing_satisfies_every_step_property():
    # Stay is a self-loop in every state; `x' > x` is false on it, but [][P]_vars allows stuttering
    _, result = run(TOGGLE.replace("property XGrows: always (x' >= x)", "property Strict: always (x' > x or y' > y or x' < x)"))
    assert result.verdict == Verdict.OK


@pytest.mark.parametrize("storage", [Storage.FINGERPRINT, Storage.EXACT])
def test_a_property_that_holds_leaves_the_counts_as_they_were(storage):
    holds = TOGGLE.replace("property XGrows: always (x' >= x)", "property Bounded: always (x' - x <= 1 and y' >= y)")
    _, with_steps = run(holds, storage=storage)
    _, without = run(TOGGLE.replace("property XGrows: always (x' >= x)", ""), storage=storage)
    assert with_steps.verdict == without.verdict == Verdict.OK
    assert (with_steps.distinct_states, with_steps.states_generated, with_steps.depth) == (
        without.distinct_states, without.states_generated, without.depth)


def test_step_properties_name_maps_and_records_after_the_step():
    spec = """
        const K: set[model] = {k1, k2}
        var m: map[K, int] = {k -> 0 for k in K}
        var r: {a: int, b: int} = {a: 0, b: 0}
        action Inc(k in K):
            require m[k] < 2
            m[k] = m[k] + 1
            r.a = r.a + 1
        action Drop(k in K):
            require m[k] == 2 and r.b == 0
            m[k] = 0
            r.b = 1
        property Counted: always (r'.a >= r.a and all(m'[k] >= m[k] or r'.b == 1 for k in K))
        property Never: always (r'.b == r.b)
        """
    model, result = run(spec)
    assert (result.verdict, result.violation.name) == (Verdict.INVARIANT_VIOLATED, "Never")
    assert len(result.violation.trace.steps) - 1 == _shortest_violation(model, "Never") == 3
    _, result = run(spec.replace("property Never: always (r'.b == r.b)", ""), check_deadlock=False)
    assert result.verdict == Verdict.OK


def test_collect_mode_reports_each_step_property_once():
    spec = TOGGLE + "property YSteady: always (y' == y)\n"
    _, result = run(spec, collect=True)
    assert sorted(v.name for v in result.violations) == ["XGrows", "YSteady"]


def test_an_evaluation_error_in_a_step_property_has_its_trace():
    _, result = run(TOGGLE.replace("property XGrows: always (x' >= x)", "property Div: always (6 // (x' - 1) >= 0)"))
    assert result.verdict == Verdict.ERROR
    assert result.error.code == "E407"  # division by zero
    assert result.violation.trace.steps[-1].state == (1, 0)


@pytest.mark.parametrize("text, message", [
    ("invariant I: x' >= x", "can be used only in a step property"),
    ("property E: eventually x' > x", "can be used in a property only inside an `always` that is the property or "
     "one of its conjuncts"),
    ("property E: always x >= 0 or always (x' >= x)", "only inside an `always` that is the property or one of its "
     "conjuncts"),
    ("property S: always ((x + 1)' >= x)", "only a state variable or a `def` call can be primed"),
    ("def g(k: int) -> int: x + k\nproperty S: always (g(x)' >= 0)", "the arguments of a primed call of `g` read the state"),
    ("def f() -> int: x'\nproperty S: always (f() >= 0)", "can be used only in a step property"),
])
def test_primes_outside_step_properties_or_on_expressions_are_e118(text, message):
    with pytest.raises(SpecError) as exc:
        model_of("var x: int = 0\naction A:\n    x = 1 - x\n" + text + "\n")
    assert exc.value.diagnostics[0].code == "E118"
    assert message in exc.value.diagnostics[0].message


def test_workers_check_step_properties_without_falling_back(tmp_path, capsys):
    path = tmp_path / "t.spec"
    path.write_text("\n".join(line[4:] for line in TOGGLE.splitlines()))
    outputs = []
    for workers in ("1", "2"):
        assert main(["check", str(path), "--workers", workers]) == 12
        captured = capsys.readouterr()
        assert "one process" not in captured.err
        assert "Error: step property XGrows is violated: the last step does not satisfy it." in captured.out
        outputs.append(re.sub(r"time .*\n", "", captured.out))
    assert outputs[0] == outputs[1]
    # selected away: --invariant alone checks no step property
    assert main(["check", str(path), "--quiet", "--no-deadlock", "--property", "XGrows"]) == 12
    capsys.readouterr()


CONSTRAINED = TOGGLE + "constraint Small: x + y <= 3\n"


@pytest.mark.parametrize("text", [
    TOGGLE,  # violated on a step back to a stored state
    TOGGLE.replace("x' >= x", "x' >= x or x == 3"),  # holds
    TOGGLE.replace("x' >= x", "not (x == 2 and x' == 3)"),  # violated on a step to a new state
    CONSTRAINED.replace("x' >= x", "not (x + y == 3 and x' + y' == 4)"),  # ... to a state failing the constraint
    CONSTRAINED.replace("x' >= x", "x' + y' <= 3"),  # the same, found again after the first one
    TOGGLE.replace("x' >= x", "6 // (x' - 2) >= -6"),  # an evaluation error on a step
    TOGGLE.replace("x' >= x", "y' != 2 or x' != 3") + "invariant I: x + y < 5\n",  # the invariant first
], ids=["back", "holds", "new", "unstored", "unstored-again", "error", "invariant-first"])
def test_fingerprints_and_workers_give_exact_storages_result(text):
    """The same verdict, counts, coverage and trace with every storage and worker count: the
    step is checked where the one-process search on exact storage checks it."""
    model = model_of(text)
    exact = summary(explore(model, Options(storage=Storage.EXACT)))
    for workers in (1, 2, 3):
        assert summary(explore(model, Options(workers=workers))) == exact, f"{workers} workers"


@pytest.mark.parametrize("spec, mutation, broken", [
    # one of each colour: a black bean becomes white (the count stays, white's parity flips)
    ("coffee_can.spec", ("    require can.white >= 1\n    can.black = can.black - 1",
                         "    require can.white >= 1\n    can.black = can.black - 1\n    can.white = can.white + 1"),
     {"MonotonicDecrease", "LoopInvariant"}),
    ("barrier.spec", None, {"BarrierProperty"}),
])
def test_the_classic_ports_action_properties_hold_and_a_mutation_breaks_them(spec, mutation, broken):
    text = (SPECS / "classic" / spec).read_text()
    model = model_of(text, name=spec)
    assert {name for name, _ in model.steps} >= broken
    result = explore(model, Options(storage=Storage.EXACT))
    assert result.verdict == Verdict.OK  # TLC's verdict on the cfg, which checks these properties
    if mutation is None:  # the barrier: let a process leave while another is still at b0
        mutation = ("    require all(pc[p] == Label.b1 for p in ProcSet())", "    require true")
    assert mutation[0] in text
    mutated = explore(model_of(text.replace(mutation[0], mutation[1]), name=spec), Options(collect=True))
    assert broken <= {v.name for v in mutated.violations if v.kind == Check.STEP}


def test_the_counts_at_a_violated_step_property_are_tlcs():
    """TLC 2.15 (-workers 1) on the TLA+ form of TOGGLE, with `PROPERTY XGrows`:

        Up == x < 3 /\\ x' = x + 1 /\\ UNCHANGED y      Reset == x = 3 /\\ x' = 0 /\\ UNCHANGED y
        Bump == y < 2 /\\ y' = y + 1 /\\ UNCHANGED x    Stay == UNCHANGED vars
        Next == Up \\/ Reset \\/ Bump \\/ Stay           XGrows == [][x' >= x]_vars

    reports "Action property XGrows is violated", a behaviour of 5 states (Up, Up, Up, Reset),
    "19 states generated, 9 distinct states found, 2 states left on queue"; with
    `Strict == [][x' > x \\/ y' > y \\/ x' < x]_vars` instead, no error (stuttering steps
    satisfy it), 33 generated, 12 distinct."""
    _, result = run(TOGGLE)
    assert (result.states_generated, result.distinct_states, result.queue_left) == (19, 9, 2)
    assert len(result.violation.trace.steps) == 5
    _, result = run(TOGGLE.replace("property XGrows: always (x' >= x)", "property Strict: always (x' > x or y' > y or x' < x)"))
    assert (result.verdict, result.states_generated, result.distinct_states) == (Verdict.OK, 33, 12)


def test_a_primed_def_call_is_the_function_after_the_step():
    spec = """
        var x: int = 0
        var y: int = 5
        def total() -> int: x + y
        def plus(k: int) -> int: x + y + k
        action Up:
            require x < 3
            x = x + 1
            y = y - DY
        property Shrinks: always total()' < total()
        property ShrinksToo: always plus(1)' < plus(1)
        """
    _, result = run(spec.replace("DY", "2"), check_deadlock=False)
    assert result.verdict == Verdict.OK
    model, result = run(spec.replace("DY", "1"), check_deadlock=False, collect=True)
    assert sorted(v.name for v in result.violations) == ["Shrinks", "ShrinksToo"]
    assert all(len(v.trace.steps) == 2 for v in result.violations)


# ---------------------------------------------------------------- issue 38: state and step parts in one property

MIXED = """
    var x: int = 0
    var y: int = 0
    action Inc:
        require x < 3
        x = x + 1
    action Reset:
        require x == 3 and y == 0
        x = 0
        y = 1
    action Idle:
        skip
    fair weak Inc
    property Mono: always x <= 3 and always (x' >= x)
    property Both: always (y' >= y) and always x <= 3 and always (x' >= x or y' > y)
    property Live: eventually x == 3 and always (y' >= y)
    """


@pytest.mark.parametrize("name,verdict,kind", [
    ("Mono", Verdict.INVARIANT_VIOLATED, Check.STEP),  # Reset lowers x
    ("Both", Verdict.OK, None),
    ("Live", Verdict.OK, None),
])
def test_issue_38_a_property_may_join_state_and_step_parts(name, verdict, kind):
    model = model_of(MIXED)
    # each property is a temporal part and a step part under its name
    assert {p.name for p in model.ir.properties} == {"Mono", "Both", "Live"}
    assert [n for n, _ in model.steps] == ["Mono", "Both", "Live"]
    result = explore(model, Options(properties=(name,)))
    assert result.verdict == verdict
    if kind is not None:
        assert (result.violation.kind, result.violation.name) == (kind, name)
        assert len(result.violation.trace.steps) == 5  # three Inc, then Reset


def test_issue_38_each_part_of_a_joined_property_is_checked():
    # the state part fails, the step part holds
    _, result = run(MIXED.replace("require x < 3", "require x < 4"), properties=("Mono",))
    assert result.verdict == Verdict.INVARIANT_VIOLATED and result.violation.kind != "step"
    # the liveness part fails (no fairness), the step part holds
    _, result = run(MIXED.replace("fair weak Inc", ""), properties=("Live",))
    assert result.verdict == Verdict.LIVENESS_VIOLATED and result.violation.name == "Live"


def test_issue_38_verify_decides_a_joined_property_as_a_property(tmp_path, capsys):
    import json
    import textwrap

    path = tmp_path / "mixed.spec"
    path.write_text(textwrap.dedent(MIXED) + "expect base violates Mono\nexpect base holds Live\n")
    assert main(["verify", str(path), "--json"]) == 0
    assert [r["got"] for r in json.loads(capsys.readouterr().out)["rows"]] == ["violates", "holds"]
    # simulation does not decide liveness: the joined property's liveness part stays unchecked
    main(["verify", str(path), "--json", "--simulate"])
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows[0]["got"] == "violates" and rows[1]["got"] == "unchecked"
