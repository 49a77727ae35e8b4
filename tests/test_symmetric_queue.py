"""A bounded queue of members of a symmetric set (issue 38 item 3): `orderings(S)` is every sequence
that lists each element of S once, a set that renaming the members maps to itself, so a queue built
from a set with `with q in orderings(S)` keeps the reduction sound (where `[w for w in S]`, in the
canonical order, is W212). The symmetric and the unreduced runs agree on every verdict."""

import contextlib
import io
import json

import pytest

from tlacheck.app.cli import main

from tlacheck.core.result import Verdict
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tests.conftest import ROOT, model_of, run, spec_error

SPEC = (ROOT / "tests" / "data" / "language" / "symmetric_queue.spec").read_text()


def test_issue_38_orderings_lists_each_element_once_in_every_order():
    _, result = run("var x: int = 0\naction Stay:\n    skip\n"
                    "invariant I: orderings({1, 2, 3}) == {[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], "
                    "[3, 2, 1]} and orderings({}) == {[]} and len(orderings(1..5)) == 120\n"
                    "    and all(len(q) == 4 and elems(q) == 1..4 for q in orderings(1..4))\n")
    assert result.verdict == Verdict.OK


def test_issue_38_a_queue_built_in_every_order_is_no_warning_and_keeps_the_reduction():
    model = model_of(SPEC)
    assert not [w for w in model.ir.warnings if w.code == "W212"]
    assert model.symmetry


def _verdicts(variant):
    out = {}
    for flags in ([], ["--no-symmetry"]):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = main(["check", str(ROOT / "tests" / "data" / "language" / "symmetric_queue.spec"), "--json",
                         *(["--variant", variant] if variant else []), *flags])
        report = json.loads(buffer.getvalue())
        out[bool(flags)] = (code, report["verdict"], (report.get("violation") or {}).get("name"),
                            report["distinct_states"])
    return out


@pytest.mark.parametrize("variant,verdict", [(None, "ok"), ("Twice", "invariant_violated")])
def test_issue_38_symmetric_and_unreduced_runs_agree_on_the_verdict(variant, verdict):
    runs = _verdicts(variant)
    reduced, unreduced = runs[False], runs[True]
    assert reduced[:3] == unreduced[:3] and reduced[1] == verdict
    if verdict == "ok":
        assert reduced[3] < unreduced[3]  # the orbits: fewer states stored


def test_issue_38_the_queue_spec_is_the_reference_explorers_without_symmetry():
    from tests.reference_explorer import reference_counts

    model = model_of(SPEC)
    ours = explore(model, Options(symmetry=False))
    assert reference_counts(model.ir)[:2] == (ours.distinct_states, ours.states_generated)


def test_issue_38_a_queue_in_the_canonical_order_is_still_a_warning():
    model = model_of(SPEC.replace("with q in orderings(waiting):\n        queue = queue + q",
                                  "queue = queue + [w for w in waiting]", 1))
    assert [w.code for w in model.ir.warnings] == ["W212"]


def test_issue_38_orderings_of_too_large_a_set_is_E408():
    _, result = run("var x: int = 0\naction Step:\n    require x == 0\n    x = len(orderings(1..10))\n",
                    check_deadlock=False)
    assert result.error is not None and result.error.code == "E408"
    assert result.error.message == ("`orderings` of a set of 10 elements would build 10! sequences, more than the "
                                    "2^20 a set may have (at most 9 elements) (while computing action Step)")


def test_issue_38_orderings_needs_a_set():
    d = spec_error("var x: int = 0\naction Step:\n    with q in orderings([1, 2]):\n        x = len(q)\n")
    assert d.code == "E102" and d.message == "`orderings` needs a set, not seq[int]"
