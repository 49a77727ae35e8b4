"""Out of memory (E411) and recursion too deep (E406) are evaluation errors with a position and a
trace, wherever the spec's code runs (issue 8, item 3; docs/errors.md, docs/reliability.md).

Most tests make `1..n` raise MemoryError past a million elements (the `small_ranges` fixture of
conftest.py): instant and deterministic. The tests marked "real" run
`tlacheck check` in a forked child that may add only 256 MiB of address space, so that Python
really runs out of memory, and check what the user sees: exit 4, a located first line, a trace
or a note that it is too large to print, JSON that parses.
"""

from __future__ import annotations

import json

import pytest

from tlacheck.app import cli
from tlacheck.core import types as T
from tlacheck.core.result import Verdict
from tlacheck.core.runtime import Fault
from tlacheck.engine.fingerprints import Fingerprinter
from tlacheck.engine.options import Storage
from tlacheck.engine.successors import until_fault
from tests.conftest import GROW, model_of, next_states, run
from tests.fuzzing import ALLOWED_EXITS, LOCATED_ERROR, check_outcome, run_cli


STORAGES = [Storage.FINGERPRINT, Storage.EXACT]
SMALL_MEMORY = 160 << 20



def where(r) -> str:
    return f"{r.error.span.line}:{r.error.span.column}"


@pytest.mark.parametrize("storage", STORAGES)
def test_issue_8_out_of_memory_in_an_action_is_e411_at_the_statement(small_ranges, storage):
    model, r = run(GROW, storage=storage)
    assert r.verdict == Verdict.ERROR and r.error.code == "E411"
    assert r.error.message == "out of memory (while computing action Grow)"
    assert where(r) == "3:5" and r.error.hint
    assert [s.state for s in r.violation.trace.steps] == [(1,), (1000,), (1000000,)]
    assert r.verdict.exit_code == 4


def test_issue_8_both_storages_agree_on_out_of_memory(small_ranges):
    results = [run(GROW, storage=s)[1] for s in STORAGES]
    a, b = ((r.error.message, where(r), r.violation.trace, r.distinct_states, r.states_generated) for r in results)
    assert a == b


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize("decl, note, at", [
    ("invariant Inv: len(0..n) > 0", "evaluating invariant Inv", "4:11"),
    ("constraint Bound: len(0..n) > 0", "evaluating constraint Bound", "4:12"),
    ("reachable Far: len(0..n) == 0", "evaluating reachable check Far", "4:11"),
])
def test_issue_8_out_of_memory_in_predicates(small_ranges, storage, decl, note, at):
    model, r = run(f"""
        var n: int = 1
        action Grow:
            n = n * 1000
        {decl}
        """, storage=storage)
    assert r.error.code == "E411" and r.error.message == f"out of memory (while {note})"
    assert where(r) == at
    # a constraint is evaluated on a successor before it is stored: the trace ends with it all the same
    assert r.violation.trace.steps[-1].state == (1000000,)


def test_issue_8_out_of_memory_in_the_initial_states(small_ranges):
    _, r = run("""
        var x: int in {0, 1000000}
        var y: int = len(0..x)
        action A:
            y = y
        """)
    assert r.error.code == "E411" and r.error.message == "out of memory (while computing the initial states)"
    assert where(r) == "2:5"  # the variable whose initial value was being computed


def test_issue_8_out_of_memory_in_a_temporal_property(small_ranges):
    _, r = run("""
        var n: int = 1
        action Grow:
            n = (if n < 1000000 then n * 1000 else 1)
        property Live: always eventually len(0..n) > 0
        """)
    assert r.error.code == "E411" and r.error.message == "out of memory (while evaluating property Live)"
    assert where(r) == "4:34"  # the predicate being evaluated
    assert r.violation.trace.steps[-1].state == (1000000,)


def test_issue_8_out_of_memory_in_a_constant_part_is_placed_at_its_statement(small_ranges):
    """`len(0..1000000)` reads no variable: it is computed once, with the constants, before exploring."""
    with pytest.raises(Exception) as info:
        model_of("""
            var x: int = 0
            action A:
                require len(0..1000000) > 0
                x = x + 1
            """)
    err = info.value
    assert err.code == "E411" and err.message == "out of memory (while evaluating the constants)"
    assert str(err.span) == "test.spec:3:5"


def test_issue_8_out_of_memory_in_a_def_is_placed_at_the_def(small_ranges):
    _, r = run("""
        def size(k: int) -> int: len(0..k)
        var n: int = 1
        action Grow:
            n = size(n) * 1000
        """)
    assert r.error.code == "E411" and r.error.message == "out of memory (while computing action Grow)"
    assert where(r) == "1:5"


def test_issue_8_limit_error_clears_the_frames_it_was_raised_through(small_ranges):
    model = model_of(GROW)
    state = next(model.init())
    for _ in range(2):
        state = next_states(model, 0, state)[0]
    try:
        next_states(model, 0, state)
    except MemoryError as exc:
        err = model.limit_error(exc, "computing action Grow")
        assert exc.__traceback__ is None
    assert (err.code, str(err.span)) == ("E411", "test.spec:3:5")


def test_issue_8_a_memory_error_need_not_happen_again_when_the_successors_are_listed():
    """The fingerprint explorer lists an action's successors again with its generator form after
    its list form failed; a MemoryError may not recur (memory was freed meanwhile)."""
    def act(state):
        yield (), (1,)
        yield (), (2,)

    fingerprint = Fingerprinter([T.INT])
    first = MemoryError()
    succs, fps, fault = until_fault(act, (0,), first, fingerprint)
    assert succs == [(1,), (2,)] and fps == [fingerprint((1,)), fingerprint((2,))] and fault is first
    with pytest.raises(AssertionError):
        until_fault(act, (0,), Fault("E401", 0), fingerprint)


# ---------------------------------------------------------------- E406 with a position

DEEP = "def depth(n: int) -> int: depth(n + 1)\n"


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize("body, note", [
    ("var x: int = 0\naction Deep:\n    x = depth(x)\n", "computing action Deep"),
    ("var x: int = 0\naction A:\n    x = 1 - x\ninvariant Inv: depth(x) > 0\n", "evaluating invariant Inv"),
    ("var x: int = 0\naction A:\n    x = 1 - x\nconstraint C: depth(x) > 0\n", "evaluating constraint C"),
    ("var x: int = 0\naction A:\n    x = 1 - x\nproperty P: always depth(x) > 0\n", "evaluating property P"),
])
def test_issue_8_recursion_too_deep_names_and_points_at_the_def(storage, body, note):
    _, r = run(DEEP + body, storage=storage)
    assert r.error.code == "E406"
    assert r.error.message == f"recursion too deep in `depth` (while {note})"
    assert str(r.error.span) == "test.spec:1:5" and r.error.hint


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize("checked", [
    "invariant Inv: down(n) == 0",
    "constraint C: down(n) == 0",
    "action Deep:\n    require down(n) == 0\n    n = n + 2",
], ids=["invariant", "constraint", "action"])
def test_issue_35_a_recursion_that_gets_too_deep_on_the_way_is_reported_where_the_search_met_it(storage, checked):
    """A bounded recursion whose depth grows with the state: how deep Python lets it go depends on
    the stack it starts from, deeper in the expansion than where the search would evaluate the
    event again, so the search reports it where the worker met it (was an internal error, "the
    event did not happen again", found by test_fuzz on a spec of test_codegen)."""
    text = ("var n: int = 0\ndef down(k: int) -> int:\n    if k <= 0 then 0 else down(k - 1)\n"
            "action Step:\n    n = n + 1\n" + checked + "\n")
    _, r = run(text, storage=storage)
    assert r.verdict == Verdict.ERROR and r.error.code == "E406"
    assert r.error.message.startswith("recursion too deep in `down` (while ")
    assert str(r.error.span) == "test.spec:2:5"
    last = r.violation.trace.steps[-1].state[0]
    assert 100 < last < 10_000  # somewhere down the counter, not at its start


def test_issue_8_recursion_too_deep_in_a_constant():
    with pytest.raises(Exception) as info:
        model_of(DEEP + "const K: int = depth(0)\nvar x: int = K\naction A:\n    x = x\n")
    err = info.value
    assert err.code == "E406" and err.message == "recursion too deep in `depth` (while evaluating the constants)"
    assert str(err.span) == "test.spec:1:5"


def test_issue_8_a_fault_in_a_temporal_property_is_an_evaluation_error():
    """Was an internal error: the liveness checker let Fault escape."""
    _, r = run("""
        var x: 0..3 = 0
        action A:
            x = (x + 1) % 4
        property P: always eventually 10 // (x - 2) == 0
        """)
    assert r.error.code == "E407" and r.error.message.endswith("(while evaluating property P)")
    assert where(r) == "4:31"
    assert r.violation.trace.steps[-1].state == (2,)


def test_issue_8_a_fault_in_a_fairness_condition_is_an_evaluation_error():
    _, r = run("""
        var x: 0..3 = 0
        action A(k in 0..3):
            require k == x
            x = (x + 1) % 4
        fair weak A(10 // (x - 2))
        property P: always eventually x == 0
        """)
    assert r.error.code == "E407" and r.error.message.endswith("(while evaluating a fairness condition)")
    assert r.violation.trace.steps[-1].state == (2,)


# ---------------------------------------------------------------- the command line

def test_issue_8_out_of_memory_outside_the_spec_code_is_a_limit(tmp_path, monkeypatch, capsys):
    def build_model(*args, **kwargs):
        raise MemoryError

    (tmp_path / "x.spec").write_text("var x: int = 0\naction A:\n    x = x\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "build_model", build_model)
    assert cli.main(["check", "x.spec"]) == 5
    err = capsys.readouterr().err
    assert err.startswith("tlacheck: out of memory") and "internal error" not in err
    assert cli.main(["check", "x.spec", "--json"]) == 5
    assert json.loads(capsys.readouterr().out)["verdict"] == "incomplete"


@pytest.mark.parametrize("as_json", [False, True])
def test_issue_8_a_trace_too_large_to_print_leaves_the_report_and_the_error(small_ranges, tmp_path, monkeypatch,
                                                                           capsys, as_json):
    def too_large(*args, **kwargs):
        raise MemoryError

    (tmp_path / "grow.spec").write_text("var n: int = 1\naction Grow:\n    require len(0..n) > 0\n    n = n * 1000\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "run_json" if as_json else "format_result", too_large)
    assert cli.main(["check", "grow.spec", *(["--json"] if as_json else [])]) == 4
    out, err = capsys.readouterr()
    assert err.startswith("grow.spec:3:5: error[E411]: out of memory (while computing action Grow)")
    if as_json:
        data = json.loads(out)
        assert data["verdict"] == "error" and data["errors"][0]["code"] == "E411"
    else:
        assert "The trace is too large to print" in out and "states generated" in out


# ---------------------------------------------------------------- really out of memory

def _real(tmp_path, text: str, *flags: str):
    (tmp_path / "x.spec").write_text(text)
    outcome = run_cli(["check", "x.spec", "--quiet", *flags], tmp_path, SMALL_MEMORY)
    check_outcome(outcome, text.encode(), flags)  # what the fuzz suite asks of every run
    assert outcome.code in ALLOWED_EXITS
    return outcome


@pytest.mark.parametrize("storage", ["fingerprint", "exact"])
def test_issue_8_a_huge_range_in_a_step_is_a_located_error(tmp_path, storage):
    """Before E408 applied to ranges, `len(0..10^9)` ran out of memory (E411) or, without an
    address-space limit, ran until killed."""
    outcome = _real(tmp_path, "var n: int = 1\naction Grow:\n    require len(0..n) > 0\n    n = n * 1000\n",
                    "--storage", storage)
    assert outcome.code == 4
    assert outcome.first_error.startswith("x.spec:3:17: error[E408]: the range 0..1000000000 has 1,000,000,001 "
                                          "elements")
    assert "State 4: Grow" in outcome.stdout and "n = 1000000000" in outcome.stdout


@pytest.mark.parametrize("storage, as_json", [("fingerprint", False), ("exact", True)])
def test_issue_8_real_out_of_memory_doubling_a_sequence(tmp_path, storage, as_json):
    """Each step doubles `s`: the process runs out of memory after about 25 steps, with states
    too large to print. The error is still reported, and the JSON still parses."""
    flags = ("--storage", storage, *(("--json",) if as_json else ()))
    outcome = _real(tmp_path, "var s: seq[int] = [0]\naction Double:\n    s = s + s\n", *flags)
    assert outcome.code == 4
    assert outcome.first_error.startswith("x.spec:3:5: error[E411]: out of memory (while computing action Double)")
    if as_json:
        data = json.loads(outcome.stdout)
        assert data["verdict"] == "error"


def test_issue_8_a_huge_parameter_range(tmp_path):
    """The fuzz campaign's `action A(k in 0..10^30)` ran until killed (it was first E411 under an
    address-space limit): the range is constant, so it is E408 before exploring."""
    outcome = _real(tmp_path, "var x: int = 0\naction A(k in 0.." + "9" * 30 + "):\n    x = k\n")
    assert outcome.code == 4
    assert LOCATED_ERROR.match(outcome.first_error)
    assert outcome.first_error.startswith("x.spec:2:15: error[E408]: the range 0..999999999999999999999999999999 has")
