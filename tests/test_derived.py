"""`derived NAME: EXPR`: values of each state shown along traces, in every output."""

from __future__ import annotations

import json
import textwrap

import pytest

from tlacheck.app.cli import main
from tlacheck.core.source import Source
from tlacheck.core.errors import SpecError
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.output import artefacts, html, itf, render, report
from tlacheck.pipeline.driver import build_model
from tests.conftest import model_of


SPEC = """
spec Queue
enum Who { a, b }
var queue: seq[Who] = []
var holder: Who? = none
var owners: map[Who, int] = {w -> 0 for w in Who}

action Push(w in Who):
    require len(queue) < 2
    queue = queue + [w]

action Grab:
    require holder == none and queue != []
    holder = head(queue)
    owners[head(queue)] = owners[head(queue)] + 1
    queue = tail(queue)

def busy() -> bool: holder != none
derived pending: len(queue)
derived next: head(queue)
derived taken: {w -> owners[w] for w in Who if owners[w] > 0}
derived locked: busy()
invariant NoSecondGrab: not (holder != none and len(queue) == 1 and pending_is_one())
def pending_is_one() -> bool: len(queue) == 1

variant Doubled:
    replace derived pending: 2 * len(queue)
"""


@pytest.fixture(scope="module")
def found():
    model = model_of(SPEC, name="queue.spec")
    result = explore(model, Options(check_deadlock=False))
    assert result.violation is not None and result.violation.name == "NoSecondGrab"
    return model, result


def test_values_per_state_and_errors_are_shown_not_raised(found):
    model, result = found
    first = model.derived_values(result.violation.trace.steps[0].state)
    assert [(d.name, d.text) for d in first] == [
        ("pending", "0"), ("next", "(error: `head` of an empty sequence)"), ("taken", "{->}"), ("locked", "false")]
    last = {d.name: d.text for d in model.derived_values(result.violation.trace.steps[-1].state)}
    assert last["locked"] == "true" and last["pending"] == "1"


def test_the_search_is_the_same_with_or_without_derived_values(found):
    """Derived values are display only: the counts do not move when they are removed."""
    model, result = found
    bare = "\n".join(line for line in SPEC.splitlines() if not line.startswith("derived")
                     and "replace derived" not in line and "variant Doubled" not in line)
    other = explore(model_of(bare), Options(check_deadlock=False))
    assert (other.distinct_states, other.states_generated, other.depth) == \
        (result.distinct_states, result.states_generated, result.depth)
    assert len(other.violation.trace.steps) == len(result.violation.trace.steps)


def test_text_trace_marks_them_and_diffs_them_entry_by_entry(found):
    model, result = found
    text = report.format_trace(model, result.violation.trace)
    blocks = text.split("\n\n")
    assert "  ~ pending = 0" in blocks[0] and "  ~ next    = (error: `head` of an empty sequence)" in blocks[0]
    assert "  ~ pending = 1    (was 0)" in blocks[1]
    assert "  ~ next    = a    (was (error: `head` of an empty sequence))" in blocks[1]
    grab = next(b for b in blocks if "Grab" in b.splitlines()[0])
    assert "  ~ taken   = {a -> 1}    (was {->})" in grab and "  ~ locked  = true    (was false)" in grab
    assert "~ next" not in grab  # `next` is `a` before and after Grab: unchanged derived values are not repeated


def test_json_and_itf_carry_them(found):
    model, result = found
    trace = report.trace_json(model, result.violation.trace)
    assert trace[0]["derived"] == {"pending": 0, "next": {"error": "`head` of an empty sequence"},
                                   "taken": {}, "locked": False}
    assert trace[0]["derived_changes"] == []
    assert {"variable": "pending", "path": "pending", "op": "changed", "old": 0, "new": 1} in trace[1]["derived_changes"]
    data = itf.trace_itf(model, result.violation.trace, source="queue.spec", status="violation")
    assert data["states"][0]["#meta"]["derived"]["pending"] == {"#bigint": "0"}
    assert "next" not in data["states"][0]["#meta"]["derived"]  # not computable there
    assert set(data["vars"]) == {"queue", "holder", "owners"}  # not state


def test_diagrams_and_the_html_report_show_them(found):
    model, result = found
    v = result.violation
    head = artefacts.headline(model, v)
    dot = render.trace_dot(model, v.trace, head)
    assert "~ pending" in dot and "(error: `head` of an empty sequence)" in dot
    lanes = render.swimlanes_dot(model, v.trace, head)
    assert "~ pending: 0 → 1" in lanes
    page = html.trace_report(artefacts.html_doc(model, v, None, "queue.spec", "base", {}, result))
    assert '<li class="changed derived">~ pending: 0 → 1</li>' in page
    assert '<dt class="derived">~ locked</dt>' in page


def test_a_variant_replaces_one():
    model = build_model(Source("queue.spec", textwrap.dedent(SPEC).lstrip("\n")), None, "Doubled")
    result = explore(model, Options(check_deadlock=False))
    first = {d.name: d.text for d in model.derived_values(result.violation.trace.steps[1].state)}
    assert first["pending"] == "2"


@pytest.mark.parametrize("body, code", [("always holder == none", "E112"), ("len(queue')", "E118"),
                                        ("nowhere", "E100")])
def test_what_a_derived_value_cannot_be(body, code):
    with pytest.raises(SpecError) as info:
        model_of(f"var queue: seq[int] = []\nvar holder: int? = none\naction A:\n    queue = queue + [1]\n"
                 f"derived d: {body}\n")
    assert info.value.diagnostics[0].code == code


def test_a_saved_trace_with_derived_values_renders_and_replays(tmp_path, capsys):
    spec = tmp_path / "queue.spec"
    spec.write_text(textwrap.dedent(SPEC).lstrip("\n"), encoding="utf-8")
    assert main(["check", str(spec), "--json", "--no-deadlock", "--quiet"]) == 12
    saved = tmp_path / "trace.json"
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    assert json.loads(saved.read_text())["violation"]["trace"][1]["derived"]["pending"] == 1
    assert main(["render", str(saved), "--html", str(tmp_path / "r.html")]) == 0
    assert main(["replay", str(spec), str(saved)]) == 0
