"""An E411 report whose trace was left out says so, in text and JSON (issue 8, item 3;
docs/errors.md "E411", docs/cli.md "JSON output"). It used to print the error with no trace and no
word about it, as if the error had happened before any state.

Two places leave the trace out: the explorer, when rebuilding the trace after the MemoryError runs
out of memory too (it marks the error `trace_omitted = "out of memory"`; report.trace_omitted),
and `check`, when formatting the states does (cli._report_without_trace).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from tlacheck.app import cli
from tlacheck.core.result import Trace
from tlacheck.engine import search
from tlacheck.engine.options import Storage
from tlacheck.output.report import format_result, result_json, trace_omitted
from tests.conftest import GROW, run


OMITTED = "The trace to the state where the error occurred could not be rebuilt: out of memory; it is left out."


def without_trace(result):
    """`result` as the explorer gives it when rebuilding the trace ran out of memory."""
    result.error.trace_omitted = "out of memory"
    result.error.trace = Trace(())
    result.violation = dataclasses.replace(result.violation, trace=Trace(()))
    return result


def test_the_text_report_says_the_trace_was_left_out(small_ranges):
    model, r = run(GROW)
    assert trace_omitted(r) is None and OMITTED not in format_result(model, r, "x.spec")
    text = format_result(model, without_trace(r), "x.spec")
    assert OMITTED in text and "State 1" not in text


def test_the_json_report_says_the_trace_was_left_out(small_ranges):
    model, r = run(GROW)
    assert result_json(model, r, "x.spec")["violation"]["trace_omitted"] is None
    data = result_json(model, without_trace(r), "x.spec")
    assert data["violation"]["trace"] == [] and data["violation"]["trace_omitted"] == "out of memory"
    json.dumps(data)


def test_other_violations_have_no_trace_omitted_key():
    """Counterexamples (invariants, deadlocks) keep the JSON they had."""
    model, r = run("var x: int = 0\naction A:\n    x = x + 1\ninvariant I: x < 2\n")
    assert "trace_omitted" not in result_json(model, r, "x.spec")["violation"]


def test_the_json_report_without_a_printable_trace_says_so(small_ranges, tmp_path, monkeypatch, capsys):
    def too_large(*args, **kwargs):
        raise MemoryError

    (tmp_path / "grow.spec").write_text("var n: int = 1\naction Grow:\n    require len(0..n) > 0\n    n = n * 1000\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "run_json", too_large)
    assert cli.main(["check", "grow.spec", "--json"]) == 4
    data = json.loads(capsys.readouterr().out)
    assert data["trace"] is None and data["trace_omitted"] == "out of memory"


@pytest.mark.parametrize("storage", [Storage.FINGERPRINT, Storage.EXACT])
def test_the_explorer_marks_a_trace_it_could_not_rebuild(small_ranges, monkeypatch, storage):
    def out_of_memory(self, i):
        raise MemoryError

    monkeypatch.setattr(search.Search, "trace_to", out_of_memory)
    model, r = run(GROW, storage=storage)
    assert r.error.code == "E411" and r.violation.trace.steps == ()
    assert OMITTED in format_result(model, r, "x.spec")
