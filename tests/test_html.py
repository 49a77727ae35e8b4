"""The offline HTML report (checker/output/html.py): structure, determinism, safety and the
command line. What it does in a browser is tested in tests/test_browser.py."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from tlacheck.app.cli import main, read_source
from tlacheck.core.source import Source
from tlacheck.engine.explore import explore
from tlacheck.engine.options import Options
from tlacheck.output import artefacts, html
from tlacheck.core.result import Check
from tlacheck.pipeline.driver import build_model
from tests.conftest import ROOT, SPECS, golden, model_of


NOTIFY = "specs/notify_race.spec"
CONDVAR = "tests/golden/diffs/condition_variable.spec"


class _Collect(HTMLParser):
    """Every start tag with its attributes, and the text of each <script>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._script: dict | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "script":
            self._script = attrs

    def handle_data(self, data):
        if self._script is not None:
            self.scripts.append((self._script, data))
            self._script = None

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def parsed(page: str) -> _Collect:
    p = _Collect()
    p.feed(page)
    return p


def report_of(path: str, variant: str = "base", **options):
    source = Source(path, (ROOT / path).read_text(encoding="utf-8"))
    model = build_model(source, None, variant)
    result = explore(model, Options(**options))
    doc = artefacts.html_doc(model, result.violation, source, path, variant, {}, result)
    return model, result, html.trace_report(doc)


@pytest.fixture(scope="module")
def notify():
    return report_of(NOTIFY)


def test_the_page_is_deterministic_and_self_contained(notify):
    model, result, page = notify
    assert report_of(NOTIFY)[2] == page  # byte-identical when built again
    p = parsed(page)
    # nothing is loaded from anywhere: no external script, style sheet, image or frame
    for tag, attrs in p.tags:
        assert not attrs.get("src"), (tag, attrs)
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
    markup = re.sub(r'<script type="application/json"[^>]*>.*?</script>', "", page, flags=re.S)  # data, not loads
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", markup))
    assert urls == {"http://www.w3.org/2000/svg"}, urls  # only the SVG namespace name
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_one_row_box_and_state_per_state_and_the_embedded_json(notify):
    model, result, page = notify
    n = len(result.violation.trace.steps)
    p = parsed(page)
    rows = [a for t, a in p.tags if t == "tr" and "data-state" in a]
    boxes = [a for t, a in p.tags if t == "g" and "data-state" in a and "box" in a.get("class", "")]
    states = [a for t, a in p.tags if t == "dl" and "data-state" in a]
    assert [int(a["data-state"]) for a in rows] == list(range(1, n + 1))  # state 1 is the initial state
    assert [int(a["data-state"]) for a in boxes] == list(range(1, n + 1))
    assert [int(a["data-state"]) for a in states] == list(range(1, n + 1))
    embedded = {a.get("id"): json.loads(text) for a, text in p.scripts if a.get("type") == "application/json"
                and a.get("id")}
    assert embedded["v0-json"] == artefacts.run_json(model, result, NOTIFY, "base", {}, deadlock_checked=True,
                                                     reproducible=True)
    assert embedded["v0-itf"]["#meta"]["source"] == NOTIFY
    assert len(embedded["v0-itf"]["states"]) == n


def test_each_state_highlights_its_action_and_require_lines(notify):
    model, result, page = notify
    steps = json.loads(next(text for a, text in parsed(page).scripts if a.get("class") == "steps"))
    trace = result.violation.trace
    assert steps[0] == {"label": "initial state", "action": [], "guards": [], "check": [], "focus": None,
                        "notes": []}
    lines = (ROOT / NOTIFY).read_text(encoding="utf-8").splitlines()
    for i, step in enumerate(trace.steps[1:], start=1):
        name = model.action_info[step.action].name
        entry = steps[i]
        first = lines[entry["action"][0] - 1]
        assert first.startswith(f"action {name}"), (name, first)
        assert entry["guards"], name  # every action of this spec has a require
        for g in entry["guards"]:
            assert g in entry["action"] and lines[g - 1].strip().startswith("require"), (name, g)
        assert entry["label"].startswith(name) and f"({NOTIFY}:{entry['action'][0]})" in entry["label"]
    # the violated invariant is marked on the last state, on its own line
    check = steps[-1]["check"]
    assert len(check) == 1 and lines[check[0] - 1].strip().startswith("invariant AnswerNotified")


def test_spec_text_is_escaped_everywhere():
    spec = """
    spec Esc
    # </script><script>alert(1)</script> and <b>bold</b> & more
    enum Who { a, b }
    var x: int = 0
    var log: seq[Who] = []
    action Go by a -> b:
        require x < 2
        x = x + 1
        log = log + [a]
    invariant Small: x < 2
    """
    model = model_of(spec, name="esc.spec")
    result = explore(model, Options())
    source = Source("esc.spec", "\n".join(line[4:] for line in spec.strip("\n").splitlines()))
    page = html.trace_report(artefacts.html_doc(model, result.violation, source, "esc.spec", "base", {}, result))
    assert "<script>alert(1)" not in page and "<b>bold</b>" not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert page.count("<script") == page.count("</script>")
    for a, text in parsed(page).scripts:  # every JSON block parses as JSON (no `</script>` inside)
        if a.get("type") == "application/json":
            json.loads(text)


def test_a_lasso_is_drawn_as_a_loop():
    model = build_model(read_source(str(SPECS / "notify_race.spec")))
    result = explore(model, Options(properties=("ParentHearsBack",), invariants=()))
    v = result.violation
    assert v is not None and v.kind == Check.LIVENESS and v.trace.loop_index is not None
    page = html.trace_report(artefacts.html_doc(model, v, None, NOTIFY, "base", {}, result))
    assert v.trace.closing is None  # it stutters: nothing that changes the state is enabled at the end
    n = len(v.trace.steps)
    assert f"↻ state {n} repeats forever: nothing that would change it is enabled" in page
    assert "This is a lasso" in page and 'class="closing"' in page and 'class="starved"' not in page


STARVE = """
spec Starve
const Consumer: set[model] = {c1, c2}
var waiting: set[Consumer] = {c1, c2}
var token: bool = false
var served: set[Consumer] = {}

action Produce by Producer:
    require not token
    token = true

action Take(c in Consumer) by c:
    require token and c in waiting
    token = false
    waiting = waiting - {c}
    served = served | {c}

action Return(c in Consumer) by c:
    require c in served
    served = served - {c}
    waiting = waiting | {c}

fair weak Produce
fair weak Return(c) for c in Consumer
property C2Served: always eventually c2 in served
"""


def test_a_liveness_failure_blames_the_starved_actor():
    """c1 takes the token on every round of the loop; c2 could take it at times but never does:
    the report puts "waits forever" in c2's lane (added though c2 never moved), not on c1's last box."""
    model = model_of(STARVE)
    result = explore(model, Options(check_deadlock=False))
    v = result.violation
    assert v.kind == Check.LIVENESS and v.trace.closing is not None
    page = html.trace_report(artefacts.html_doc(model, v, None, "starve.spec", "base", {}, result))
    heads = re.findall(r'<g class="lane-head"><rect x="([\d.]+)"[^>]*/><text[^>]*>([^<]+)</text>', page)
    assert [name for _, name in heads] == ["Producer", "c1", "c2"]
    starved = re.findall(r'<g class="starved"><title>([^<]*)</title><rect x="([\d.]+)"', page)
    assert len(starved) == 1
    text, x = starved[0]
    assert x == dict((n, x) for x, n in heads)["c2"]
    assert "Take(c=c2) enabled at times, never taken" in text
    assert 'class="loop"' in page and "back to state" in page
    assert "c2 waits forever: Take(c=c2) enabled at times, never taken" in page  # the table says it too


def test_golden_html_of_a_map_heavy_trace():
    """Per-entry diffs in the HTML report, pinned with the other outputs of the same trace
    (tests/test_diff.py: text, JSON, trace diagram, swimlanes)."""
    source = Source(CONDVAR, (ROOT / CONDVAR).read_text(encoding="utf-8"))
    model = build_model(source)
    result = explore(model, Options(check_deadlock=False))
    page = html.trace_report(artefacts.html_doc(model, result.violation, source, CONDVAR, "base", {}, result))
    # the body, without the page's fixed style sheet and script (their changes are not content)
    body = page[page.index("<body>"):page.rindex("<script>")]
    golden(ROOT / "tests" / "golden" / "diffs" / "condition_variable.html", body + "\n")
    assert '<li class="changed">pc[alice]: Idle → Locked</li>' in page
    assert '<li class="added">lease: + alice -&gt; 0</li>' in page
    assert '<li class="removed">idle: - alice</li>' in page
    assert '<tspan x="' in page and ">task[alice].lock_count: 0 → 1</tspan>" in page  # in the swimlanes too


def test_boxes_stay_inside_their_lane(notify):
    """Every box of the swimlanes lies within its lane's column, and no text line is wider than
    the lane's characters (so boxes never spill into a neighbour)."""
    _, _, page = notify
    heads = [tuple(float(v) for v in m) for m in re.findall(
        r'<g class="lane-head"><rect x="([\d.]+)" y="2" width="([\d.]+)"', page)]
    assert len(heads) >= 2
    boxes = re.findall(r'<g class="box(?: last)?" data-state="\d+"><title>[^<]*</title><rect x="([\d.]+)" '
                       r'y="[\d.]+" width="([\d.]+)"', page)
    assert boxes
    for x, w in boxes:
        assert any(abs(float(x) - hx) < 0.01 and abs(float(w) - hw) < 0.01 for hx, hw in heads), (x, w)
    chars = int((float(heads[0][1]) - 2 * html.PAD) / html.CHAR_W)
    for line in re.findall(r'<tspan x="[\d.]+" dy="\d+" class="\w+">([^<]*)</tspan>', page):
        assert len(line.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")) <= chars, line


# ---------------------------------------------------------------- the command line

def test_check_simulate_and_render_write_the_report(tmp_path, capsys):
    out = tmp_path / "r" / "report.html"
    assert main(["check", NOTIFY, "--html", str(out), "--quiet"]) == 12
    page = out.read_text(encoding="utf-8")
    assert "invariant AnswerNotified is violated" in page and page.startswith("<!DOCTYPE html>")
    saved = tmp_path / "trace.json"
    capsys.readouterr()
    assert main(["check", NOTIFY, "--json", "--quiet"]) == 12
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    again = tmp_path / "again.html"
    assert main(["render", str(saved), "--html", str(again)]) == 0
    rendered = again.read_text(encoding="utf-8")
    assert rendered.count('<tr data-state="') == page.count('<tr data-state="')
    sim = tmp_path / "sim.html"
    assert main(["simulate", NOTIFY, "--seed", "1", "--html", str(sim), "--quiet"]) == 12
    assert "invariant AnswerNotified is violated" in sim.read_text(encoding="utf-8")


def test_issue_32_check_html_is_the_same_bytes_on_every_run(tmp_path):
    """Issue 32 item 6: `check --html` embedded the run's elapsed time in its JSON, so two runs
    gave different files, against docs/rendering.md ("the same run gives the same bytes")."""
    pages = []
    for k in range(2):
        out = tmp_path / f"r{k}.html"
        assert main(["check", NOTIFY, "--html", str(out), "--quiet"]) == 12
        pages.append(out.read_text(encoding="utf-8"))
    embedded = {a.get("id"): json.loads(text) for a, text in parsed(pages[0]).scripts if a.get("id")}
    assert embedded["v0-json"]["elapsed_s"] is None
    assert pages[0] == pages[1]


DIVIDE = ("spec Divide\nvar x: int = 2\nvar y: int = 0\n\naction Down:\n    require x > 0\n    x = x - 1\n\n"
          "action Compute:\n    require x == 0\n    y = 10 // x\n\ninvariant Fine: y >= 0\n")


def _steps_data(page: str, viewer: int = 0) -> list[dict]:
    return json.loads([text for a, text in parsed(page).scripts if a.get("class") == "steps"][viewer])


def test_issue_32_an_evaluation_error_marks_the_line_that_failed(tmp_path, capsys, monkeypatch):
    """Issue 32 item 6: the report of an evaluation error highlighted the action of the last step
    (Down) and left the faulting line (`y = 10 // x`, in Compute) plain. Now its last state
    marks that line, the source pane scrolls to it and the legend says what the mark means; the
    same from `render --html` of the saved `check --json`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "divide.spec").write_text(DIVIDE)
    faulting = DIVIDE.splitlines().index("    y = 10 // x") + 1
    assert main(["check", "divide.spec", "--html", "check.html", "--quiet"]) == 4
    capsys.readouterr()
    assert main(["check", "divide.spec", "--json", "--quiet"]) == 4
    (tmp_path / "run.json").write_text(capsys.readouterr().out)
    assert main(["render", "run.json", "--html", "render.html"]) == 0
    for name in ("check.html", "render.html"):
        page = (tmp_path / name).read_text(encoding="utf-8")
        last = _steps_data(page)[-1]
        assert last["check"] == [faulting] and last["focus"] == faulting, name
        assert f'<span class="line check-line" data-line="{faulting}">' in page
        assert '<span class="check">where the error occurred</span>' in page
        assert all(step["check"] == [] for step in _steps_data(page)[:-1])


def test_issue_32_an_absolute_spec_path_stays_out_of_the_report(tmp_path, monkeypatch):
    """Issue 32 item 6: a spec given by absolute path put that path (a home folder's name) into the
    title, the source pane and the embedded JSON of a report meant for public bug threads. Now the
    report names the file relative to the working directory when it lies below it, else by its
    name alone."""
    home = tmp_path / "home" / "alice-private" / "work"
    (home / "specs").mkdir(parents=True)
    spec = home / "specs" / "notify_race.spec"
    spec.write_text((ROOT / NOTIFY).read_text(encoding="utf-8"), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for cwd, shown in ((elsewhere, "notify_race.spec"), (home, "specs/notify_race.spec")):
        monkeypatch.chdir(cwd)
        assert main(["check", str(spec), "--html", "check.html", "--quiet"]) == 12
        assert main(["verify", str(spec), "--html", "verify.html"]) == 0
        for name in ("check.html", "verify.html"):
            page = (cwd / name).read_text(encoding="utf-8")
            assert "alice-private" not in page and str(tmp_path) not in page, (cwd, name)
            embedded = {a.get("id"): json.loads(text) for a, text in parsed(page).scripts if a.get("id")}
            assert embedded["v0-itf"]["#meta"]["source"] == shown
            assert f'<div class="pane-title">{shown} <span class="legend">' in page
            if name == "check.html":  # verify's viewers embed no run
                assert embedded["v0-json"]["file"] == shown
        assert f"<title>tlacheck verify: {shown}</title>" in page


def test_public_path():
    assert artefacts.public_path("specs/x.spec", "/w") == "specs/x.spec"
    assert artefacts.public_path("/w/specs/x.spec", "/w") == "specs/x.spec"
    assert artefacts.public_path("/home/alice/x.spec", "/w") == "x.spec"
    assert artefacts.public_path("../../alice/x.spec", "/w") == "x.spec"
    assert artefacts.public_path("/w/../alice/x.spec", "/w") == "x.spec"


def test_issue_32_the_verdict_is_in_words(notify, tmp_path, monkeypatch):
    """Issue 32 item 6: the facts under the title showed the raw `invariant_violated`."""
    _, _, page = notify
    assert "<span><b>invariant violated</b> verdict</span>" in page and "invariant_violated</b>" not in page
    monkeypatch.chdir(tmp_path)
    (tmp_path / "divide.spec").write_text(DIVIDE)
    assert main(["check", "divide.spec", "--html", "check.html", "--quiet"]) == 4
    assert "<span><b>evaluation error</b> verdict</span>" in (tmp_path / "check.html").read_text(encoding="utf-8")


def test_issue_32_a_broadcast_is_one_line_with_an_arrowhead_per_target():
    """The HTML swimlanes drew one line per target, 6 px apart: a broadcast to nine workers was a
    band of nine lines. Now it is one line (the pieces overlap) with an arrowhead on each target's
    lifeline, as in the DOT swimlanes (tests/test_render.py)."""
    from tests.test_render import TEN_WORKERS

    model = model_of(TEN_WORKERS)
    result = explore(model)
    page = html.trace_report(artefacts.html_doc(model, result.violation, None, "workers.spec", "base", {}, result))
    sends = re.findall(r'<line class="send" x1="[\d.]+" y1="([\d.]+)" x2="([\d.]+)" y2="([\d.]+)"', page)
    assert len(sends) == 10 * 9
    rows: dict[str, set[str]] = {}
    for y1, x2, y2 in sends:
        assert y1 == y2
        rows.setdefault(y1, set()).add(x2)
    assert len(rows) == 10 and all(len(ends) == 9 for ends in rows.values())  # one line per step, nine heads


def test_render_needs_out_or_html(tmp_path, capsys):
    saved = tmp_path / "trace.json"
    assert main(["check", NOTIFY, "--json", "--quiet"]) == 12
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["render", str(saved)]) == 2
    assert "render needs --out DIR (diagrams) or --html FILE" in capsys.readouterr().err


def test_verify_report_links_each_fix_to_the_step_it_blocks(tmp_path, capsys):
    out = tmp_path / "verify.html"
    assert main(["verify", NOTIFY, "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    links = re.findall(r'data-goto="(\d+):(\d+)" data-guard="(\d*)">show state (\d+) of the base counterexample', page)
    assert links, "no fix links to the base counterexample"
    viewers = len(re.findall(r'<section class="viewer"', page))
    lines = (ROOT / NOTIFY).read_text(encoding="utf-8").splitlines()
    for viewer, step, guard, shown in links:
        assert int(viewer) < viewers and step == shown
        assert guard and 1 <= int(guard) <= len(lines)
    # the text report names the same steps
    text = capsys.readouterr().out
    assert sorted({s for _, s, _, _ in links}) == sorted(set(re.findall(r"is blocked at state (\d+)", text)))
