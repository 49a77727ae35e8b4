"""One offline HTML file that explains a counterexample: `check --html`, `simulate --html`,
`render --html` and `verify --html`.

The page holds, for each counterexample, one *viewer*:

- the swimlanes, drawn here as inline SVG (no Graphviz needed): one column per
  actor (render.lanes), one box per step in its actor's column listing what
  the step changed entry by entry (output/diff.py), an arrow to the column of
  a `->` target, the verdict under the last box, a lasso's loop as a dashed
  arrow back to the state it returns to (or "stutters here forever");
- the state-by-state table with the same diffs, and the whole state at the
  cursor;
- the spec's source with line numbers, the step's action and its `require`
  lines highlighted, the violated check (or the expression an evaluation error
  occurred in) marked on the last state;
- the trace as `check --json` and ITF in `<script type="application/json">`
  elements, for tools.

One step cursor is shared by the views: click a box, a row or a button, or
use the keyboard (← → or k j, Home, End). States are numbered from 1, the
initial state being state 1 (TLC's numbers, as in every output): the cursor
says "State 4 of 10", the table's row, the step's box (`4. SendDone`: the step
to state 4) and the elements' `data-state` carry 4, and the location hash
`#v0-s4` names the viewer and that state, so a link can point at a step.

Guarantees: the same inputs give byte-identical HTML (nothing depends on time,
hash order or memory addresses); the file loads nothing from anywhere (no
network, no CDN: CSS and script are inline); text from the spec is escaped
everywhere. Legible on a phone (one column under 900 px) and in print (the
controls hidden, every step's changes listed).
"""

from __future__ import annotations

import html
import json
import textwrap
from dataclasses import dataclass, field

from tlacheck.core.result import Check, Trace, Violation
from tlacheck.core.source import Source, Span
from tlacheck.output import diff, render


# ---------------------------------------------------------------- what a viewer shows

@dataclass(frozen=True)
class TraceDoc:
    """One counterexample to show: the model it belongs to and what to say about it."""

    model: object
    violation: Violation
    source: Source | None
    headline: render.Headline  # its title heads the viewer ("NotifyRace: invariant ... is violated ...")
    facts: tuple[tuple[str, str], ...] = ()  # ("distinct states", "1,234"), shown under the title
    embedded: tuple[tuple[str, object], ...] = ()  # (id suffix, JSON data) embedded for tools
    notes: tuple[tuple[int, str], ...] = ()  # (state number, text): e.g. a fix that blocks the step to that state
    log: tuple[str, ...] = ()  # per state: the log line its step matched (`conform`), shown beside the source
    fault: Span | None = None  # an evaluation error: where it occurred (marked on the last state)
    file: str | None = None  # the spec file's name as the report shows it (None: the source's name)


@dataclass(frozen=True)
class VerifyRow:
    """One expectation of `verify`, as the report shows it."""

    variant: str
    check: str
    expected: str
    got: str
    ok: bool
    note: str = ""
    viewer: int | None = None  # the viewer showing this row's counterexample or witness
    blocked: str | None = None  # a fix: where the base counterexample is now blocked
    blocked_viewer: int | None = None  # the base counterexample's viewer
    blocked_state: int | None = None  # the state whose step the fix blocks, in that viewer
    blocked_line: int | None = None  # the guard's line in the source
    witness: bool = False  # the viewer shows a reachable check's witness, not a counterexample


@dataclass
class _Lines:
    """Source lines to highlight for one state: its action's, its guards', the violated check's."""

    action: list[int] = field(default_factory=list)
    guards: list[int] = field(default_factory=list)
    check: list[int] = field(default_factory=list)  # the violated check, or the line an evaluation error occurred at
    focus: int | None = None  # the line the source pane scrolls to (None: the action's first, else the check's)


# ---------------------------------------------------------------- entry points

def trace_report(doc: TraceDoc) -> str:
    """The page for one counterexample (check, simulate, render)."""
    body = _viewer(doc, 0, heading_level=1)
    return _page(doc.headline.title, body)


@dataclass(frozen=True)
class ConformRun:
    """One run of `conform --html`: its verdict, its viewer (docs[viewer]), and for a run that
    does not conform the events no candidate takes, the candidates (title, (label, value) rows)
    and why each action fails from each ((heading, causes as (where and message, the source
    line), differences as (path, recorded, spec)))."""

    name: str
    verdict: str  # "conforms", "does not conform at run.ndjson:7", ...
    ok: bool
    facts: tuple[tuple[str, str], ...] = ()
    viewer: int | None = None
    events: tuple[str, ...] = ()
    frontier: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    frontier_size: int = 0
    explanations: tuple[tuple[str, tuple[tuple[str, str], ...], tuple[tuple[str, str, str], ...]], ...] = ()
    error: str | None = None
    notes: tuple[str, ...] = ()


def conform_report(title: str, summary: str, runs: list[ConformRun], docs: list[TraceDoc],
                   coverage: tuple[tuple[str, ...], ...], notes: tuple[str, ...]) -> str:
    """The page for `conform`: a table of the runs, then per run its diagnosis (the events no
    candidate takes, the frontier, why each candidate and action fails) and its viewer (the
    matched behaviour or prefix beside the log lines and the spec), then the coverage."""
    out = [f"<h1>{_e(title)}</h1>", f'<p class="summary">{_e(summary)}</p>']
    out += [f'<p class="note">{_e(n)}</p>' for n in notes]
    out.append('<table class="verify"><thead><tr><th>run</th><th>verdict</th><th></th><th>figures</th></tr></thead>'
               "<tbody>")
    for r in runs:
        mark = '<span class="ok">ok</span>' if r.ok else '<span class="bad">FAILED</span>'
        facts = "; ".join(f"{v} {w}" for w, v in r.facts)
        link = f' <a href="#r{runs.index(r)}">details</a>'
        out.append(f"<tr><td>{_e(r.name)}</td><td>{_e(r.verdict)}</td><td>{mark}</td><td>{_e(facts)}{link}</td></tr>")
    out.append("</tbody></table>")
    for k, r in enumerate(runs):
        out.append(f'<h2 id="r{k}">{_e(r.name)}: {_e(r.verdict)}</h2>')
        out += [f'<p class="note">{_e(n)}</p>' for n in r.notes]
        if r.error:
            out.append(f'<pre class="error">{_e(r.error)}</pre>')
        if r.events:
            out.append("<h3>The event no candidate takes</h3>")
            out += [f'<pre class="logline event">{_e(e)}</pre>' for e in r.events]
        if r.frontier:
            shown = f" (the first {len(r.frontier)})" if r.frontier_size > len(r.frontier) else ""
            out.append(f"<h3>The frontier before it: {r.frontier_size:,} candidate "
                       f"state{'s' if r.frontier_size != 1 else ''}{shown}</h3>")
            for head, rows in r.frontier:
                items = "".join(f"<dt>{_e(a)}</dt><dd>{_e(b)}</dd>" for a, b in rows)
                out.append(f'<div class="candidate"><div class="pane-title">{_e(head)}</div>'
                           f'<dl class="state current">{items}</dl></div>')
        if r.explanations:
            out.append("<h3>Why no candidate takes it</h3>")
            for head, causes, diffs in r.explanations:
                out.append(f'<div class="why"><div class="pane-title">{_e(head)}</div>')
                for where, line in causes:
                    out.append(f'<div class="cause">{_e(where)}</div>')
                    if line:
                        out.append(f'<pre class="quote">{_e(line)}</pre>')
                if diffs:
                    out.append('<table class="diffs"><thead><tr><th>variable</th><th>recorded</th><th>spec</th></tr>'
                               "</thead><tbody>" + "".join(f"<tr><td>{_e(p)}</td><td>{_e(a)}</td><td>{_e(b)}</td></tr>"
                                                           for p, a, b in diffs) + "</tbody></table>")
                out.append("</div>")
        if r.viewer is not None:
            out.append(_viewer(docs[r.viewer], r.viewer, heading_level=3))
    if coverage:
        head, *rows = coverage
        out.append("<h2>Coverage</h2>")
        out.append('<table class="verify"><thead><tr>' + "".join(f"<th>{_e(h)}</th>" for h in head) +
                   "</tr></thead><tbody>" + "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>"
                                                    for row in rows) + "</tbody></table>")
    return _page(title, "\n".join(out))


def verify_report(title: str, rows: list[VerifyRow], docs: list[TraceDoc], summary: str) -> str:
    """The page for `verify`: a table of expectations, then one viewer per counterexample; a fix
    that makes a check hold says where it blocks the base counterexample, with a link to that step."""
    out = [f"<h1>{_e(title)}</h1>", f'<p class="summary">{_e(summary)}</p>',
           '<table class="verify"><thead><tr><th>variant</th><th>check</th><th>expected</th><th>got</th>'
           "<th></th><th>evidence</th></tr></thead><tbody>"]
    for r in rows:
        evidence = []
        if r.note:
            evidence.append(_e(r.note))
        if r.viewer is not None:
            what = "a shortest witness" if r.witness else "the counterexample"
            evidence.append(f'<a href="#v{r.viewer}-s1" data-goto="{r.viewer}:1">{what} (below)</a>')
        if r.blocked:
            link = ""
            if r.blocked_viewer is not None and r.blocked_state is not None:
                link = (f' <a href="#v{r.blocked_viewer}-s{r.blocked_state}" data-goto="{r.blocked_viewer}:'
                        f'{r.blocked_state}" data-guard="{r.blocked_line or ""}">show state {r.blocked_state} of the '
                        "base counterexample</a>")
            evidence.append(f'<span class="blocked">{_e(r.blocked)}</span>{link}')
        mark = '<span class="ok">ok</span>' if r.ok else '<span class="bad">FAILED</span>'
        out.append(f"<tr><td>{_e(r.variant)}</td><td>{_e(r.check)}</td><td>{_e(r.expected)}</td>"
                   f"<td>{_e(r.got)}</td><td>{mark}</td><td>{'<br>'.join(evidence)}</td></tr>")
    out.append("</tbody></table>")
    for k, doc in enumerate(docs):
        out.append(_viewer(doc, k, heading_level=2))
    return _page(title, "\n".join(out))


# ---------------------------------------------------------------- the viewer

def _viewer(doc: TraceDoc, k: int, heading_level: int) -> str:
    model, trace = doc.model, doc.violation.trace
    head = doc.headline
    columns, actors, targets = render.lanes(model, trace)
    waiting = render.waiting(model, trace, columns[0])
    columns = columns + [lane for lane in waiting if lane not in columns]  # a starved actor that never moved
    lines = _highlights(model, doc.violation, doc.source, doc.fault)
    file = doc.file or (doc.source.name if doc.source is not None else None)
    n = len(trace.steps)
    facts = "".join(f"<span><b>{_e(value)}</b> {_e(what)}</span>" for what, value in doc.facts)
    h = f"h{heading_level}"
    parts = [f'<section class="viewer" id="v{k}" data-viewer="{k}" data-states="{n}" tabindex="-1">',
             f"<{h}>{_e(head.title)}</{h}>"]
    if head.detail:
        parts.append(f'<p class="detail"><code>{_e(head.detail)}</code></p>')
    if facts:
        parts.append(f'<p class="facts">{facts}</p>')
    parts.append(_loop_note(trace))
    parts.append(
        '<div class="controls" role="toolbar" aria-label="step through the trace">'
        '<button type="button" data-move="first" aria-label="first state">|◀</button>'
        '<button type="button" data-move="prev" aria-label="previous state">◀</button>'
        f'<span class="position" aria-live="polite">State <b class="cursor">1</b> of {n}</span>'
        '<button type="button" data-move="next" aria-label="next state">▶</button>'
        '<button type="button" data-move="last" aria-label="last state">▶|</button>'
        '<span class="now"></span><span class="keys">keys: ← → (or k j), Home, End; click a box or a row</span>'
        '<div class="notes" aria-live="polite"></div></div>')
    # the stage: the swimlanes, and beside them when they leave room (one or two narrow lanes), else
    # below them, the table, the state and the source
    parts.append('<div class="stage"><div class="lanes-wrap">'
                 + _swimlanes_svg(model, trace, head, columns, actors, targets, waiting, k) + "</div>")
    parts.append('<div class="panes"><div class="left">')
    parts.append(_table(model, trace, head, waiting, doc.notes))
    parts.append('</div><div class="right">')
    parts.append(_state_panel(model, trace))
    if doc.log:
        parts.append(_log_pane(doc.log))
    parts.append(_source_pane(doc.source, file, lines, "where the error occurred" if doc.violation.kind == Check.ERROR
                              else "the violated check"))
    parts.append("</div></div></div>")
    steps_data = [{"label": _now(model, trace, i, file, lines[i]), "action": lines[i].action,
                   "guards": lines[i].guards, "check": lines[i].check, "focus": lines[i].focus,
                   "notes": [text for at, text in doc.notes if at == i + 1]} for i in range(n)]
    parts.append(f'<script type="application/json" class="steps">{_json(steps_data)}</script>')
    for suffix, data in doc.embedded:
        parts.append(f'<script type="application/json" id="v{k}-{_e(suffix)}" class="embedded">{_json(data)}</script>')
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _now(model, trace: Trace, i: int, file: str | None, lines: _Lines) -> str:
    """What the bar says of state i: `StartFollowOn (spec:124)`, `initial state`."""
    if i == 0:
        return "initial state"
    label = _action_label(model, trace.steps[i])
    if file is not None and lines.action:
        label += f" ({file}:{lines.action[0]})"
    return label


def _action_label(model, step) -> str:
    """`Take(c=c2)`: the step's action and arguments, without a number."""
    return "(action not recorded)" if step.action is None else model.step_label(step.action, step.args)


def _loop_note(trace: Trace) -> str:
    if trace.loop_index is None:
        return ""
    n = len(trace.steps)
    if trace.closing is not None:
        text = (f"This is a lasso: after state {n} the behaviour goes back to state {trace.loop_index + 1} and "
                "repeats forever (the dashed arrow).")
    else:
        text = f"This is a lasso: the behaviour stays in state {n} forever (it stutters)."
    return f'<p class="loop-note">{_e(text)}</p>'


# ---------------------------------------------------------------- source lines

def _highlights(model, violation: Violation, source: Source | None, fault: Span | None = None) -> list[_Lines]:
    """For each state of the trace, the source lines of the action that led to it, of that
    action's `require` statements, and (last state) of the violated check; for an evaluation
    error, of the expression that failed (`fault`), which the pane scrolls to."""
    trace = violation.trace
    out = [_Lines() for _ in trace.steps]
    if source is None:
        return out
    for i, step in enumerate(trace.steps):
        if step.action is None or step.action >= len(model.action_info):
            continue
        if model.action_info[step.action].span.file != source.name:
            continue
        lines, guards = model.action_lines(step.action)
        out[i].action = list(lines)
        out[i].guards = list(guards)
    if violation.kind == Check.ERROR:
        if fault is not None and fault.file == source.name and out:
            out[-1].check = list(range(fault.line, max(fault.end_line, fault.line) + 1))
            out[-1].focus = fault.line
        return out
    check = _check_line(model, violation, source)
    if check is not None and out:
        out[-1].check = [check]
    return out


def _check_line(model, violation: Violation, source: Source) -> int | None:
    for kind in ("invariant", "property", "step", "reachable"):
        span = model.span_of(kind, violation.name)
        if span is not None and span.file == source.name:
            return span.line
    return None


def _source_pane(source: Source | None, file: str | None, lines: list[_Lines], check: str) -> str:
    if source is None:
        return ""
    marked = {ln for entry in lines for ln in entry.check}
    rows = []
    for no, text in enumerate(source.text.splitlines(), start=1):
        cls = "line check-line" if no in marked else "line"
        rows.append(f'<span class="{cls}" data-line="{no}"><span class="no">{no}</span>{_e(text) or " "}</span>')
    return (f'<div class="source-wrap"><div class="pane-title">{_e(file)} <span class="legend">'
            '<span class="action">the step\'s action</span> <span class="guard">its require lines</span> '
            f'<span class="check">{_e(check)}</span></span></div>'
            f'<pre class="source">{"".join(rows)}</pre></div>')


# ---------------------------------------------------------------- table and state panel

def _change_text(c: diff.Change) -> str:
    if c.op is diff.Op.CHANGED:
        return f"{c.path}: {c.old_text} → {c.new_text}"
    return f"{c.path}: {c.sign} {c.element_text}"


def _changes(model, trace: Trace, i: int) -> list[diff.Change]:
    """What step i changed: its variables, then its derived values (their paths marked `~ `)."""
    if i == 0:
        return []
    before, after = trace.steps[i - 1].state, trace.steps[i].state
    return diff.step_changes(model, before, after) + diff.marked_derived_changes(model, before, after)


def _table(model, trace: Trace, head: render.Headline, waiting: dict[str, list[str]],
           notes: tuple[tuple[int, str], ...] = ()) -> str:
    rows = ['<table class="states"><caption>State by state: what each step changed, entry by entry '
            "(old → new; + added, - removed)</caption>"
            '<colgroup><col class="c-num"><col class="c-act"><col></colgroup>'
            "<thead><tr><th>state</th><th>step</th><th>changes</th></tr></thead><tbody>"]
    n = len(trace.steps)
    for i, step in enumerate(trace.steps):
        if i == 0:
            label = "initial state"
            body = "".join(f"<li>{_e(label)} = {_e(text)}</li>" for _, label, text in model.state_rows(step.state))
            body += "".join(f'<li class="derived">~ {_e(d.name)} = {_e(d.text)}</li>'
                            for d in model.derived_values(step.state))
        else:
            label = _action_label(model, step)
            found = _changes(model, trace, i)
            derived = diff.DERIVED_MARK
            body = "".join(f'<li class="{c.op.value}{" derived" if c.path.startswith(derived) else ""}">'
                           f"{_e(_change_text(c))}</li>" for c in found) or \
                "<li class=\"none\">(no change)</li>"
        extra = ""
        if i == n - 1:
            extra = f'<div class="verdict">{_e(head.marker)}</div>'
        if trace.loop_index == i:
            extra += '<div class="loop-mark">the loop starts here</div>'
        extra += "".join(f'<div class="fixnote">{_e(text)}</div>' for at, text in notes if at == i + 1)
        rows.append(f'<tr data-state="{i + 1}"><td class="num">{i + 1}</td><td class="act">{_breakable(label)}</td>'
                    f"<td><ul>{body}</ul>{extra}</td></tr>")
    if trace.loop_index is not None:
        if trace.closing is not None:
            text = (f"{render.step_label(model, trace.closing, None, multiline=False)}: back to state "
                    f"{trace.loop_index + 1}, and around again forever")
        else:
            text = f"state {n} repeats forever (stuttering)"
        said = [f"{lane} waits forever: {'; '.join(labels)}" for lane, labels in waiting.items()]
        if not said and trace.closing is None:
            said = ["nothing that would change the state is enabled"]
        more = "".join(f'<div class="waits">{_e(w)}</div>' for w in said)
        rows.append(f'<tr class="closing"><td class="num">↻</td><td colspan="2">{_e(text)}{more}</td></tr>')
    rows.append("</tbody></table>")
    return "".join(rows)


def _breakable(label: str) -> str:
    """An action label that may break after its `(`, each `=` and comma on a narrow screen, never
    inside a name (the column is as wide as the longest name: the table lays itself out)."""
    return _e(label).replace("(", "(<wbr>").replace(", ", ", <wbr>").replace("=", "=<wbr>")


def _state_panel(model, trace: Trace) -> str:
    out = ['<div class="state-panel"><div class="pane-title">The whole state at the cursor '
           '<span class="legend"><span class="changed">changed by the step</span></span></div>']
    for i, step in enumerate(trace.steps):
        found = _changes(model, trace, i)
        items = ""
        for slot, label, text in model.state_rows(step.state):
            mark = " class=changed" if diff.row_changed(label, model.var_names[slot], found) else ""
            items += f"<dt{mark}>{_e(label)}</dt><dd{mark}>{_e(text)}</dd>"
        moved = {c.variable for c in found if c.path.startswith(diff.DERIVED_MARK)}
        items += "".join(f'<dt class="derived{" changed" if d.name in moved else ""}">~ {_e(d.name)}</dt>'
                         f'<dd class="derived{" changed" if d.name in moved else ""}">{_e(d.text)}</dd>'
                         for d in model.derived_values(step.state))
        out.append(f'<dl class="state" data-state="{i + 1}">{items}</dl>')
    out.append("</div>")
    return "".join(out)


def _log_pane(log: tuple[str, ...]) -> str:
    """The log line each state's step matched, the one at the cursor shown (`conform --html`)."""
    items = "".join(f'<pre class="logline" data-state="{i + 1}">{_e(text) or "(no log line: the step was not logged)"}'
                    "</pre>" for i, text in enumerate(log))
    return f'<div class="log-pane"><div class="pane-title">The log line of the step</div>{items}</div>'


# ---------------------------------------------------------------- swimlanes as SVG

CHAR_W = 7.4  # px per character of the 12 px monospace font (a little over DejaVu Sans Mono's 7.2)
LINE_H = 16
PAD = 6
LANE_GAP = 28
MIN_CHARS, MAX_CHARS = 22, 44
BUDGET = 1320  # px the lanes may take together before each lane's text is narrowed (down to MIN_CHARS)
HEAD_H = 30
ROW_GAP = 14
LOOP_MARGIN = 180
CUT_LINES = 4  # a change takes at most this many lines in a box (the full text in its tooltip)


def _box_lines(model, trace: Trace, r: int, chars: int) -> tuple[list[tuple[str, str]], str]:
    """The lines of step r's box, each with its class, and the box's full text (its tooltip)."""
    title = render.step_label(model, trace.steps[r], r + 1).split("\n")
    lines = [("title", t) for t in title]
    full = list(title)
    for c in _changes(model, trace, r):
        full.append(_change_text(c))
        wrapped = _wrap_change(c, chars)
        if len(wrapped) > CUT_LINES:
            wrapped = wrapped[:CUT_LINES - 1] + [wrapped[CUT_LINES - 1][:chars - 1] + "…"]
        lines += [(c.op.value, w) for w in wrapped]
    if len(lines) == len(title):
        lines.append(("none", "(no change)"))
        full.append("(no change)")
    return lines, "\n".join(full)


def _prose(text: str, chars: int) -> list[str]:
    """A sentence in lines of at most `chars`, broken between words."""
    return textwrap.wrap(text, chars, break_on_hyphens=False) or [""]


def _wrap_change(c: diff.Change, chars: int) -> list[str]:
    """A change in lines of at most `chars`: on one line when it fits, else the old value, then
    `→ new` on lines of its own (values break after a comma)."""
    text = _change_text(c)
    if len(text) <= chars or c.op is not diff.Op.CHANGED:
        return diff.wrap(text, chars)
    return diff.wrap(f"{c.path}: {c.old_text}", chars) + diff.wrap(f"→ {c.new_text}", chars)


def _lane_chars(model, trace: Trace, columns: int) -> int:
    """Characters per line in a lane: the longest line of a box, at most MAX_CHARS, and narrower
    when the lanes would not fit in BUDGET pixels together."""
    longest = MIN_CHARS
    for r in range(1, len(trace.steps)):
        texts = render.step_label(model, trace.steps[r], r + 1).split("\n")
        texts += [_change_text(c) for c in _changes(model, trace, r)]
        longest = max(longest, *(len(t) for t in texts))
    fits = int(((BUDGET - 20 - (columns - 1) * LANE_GAP) / columns - 2 * PAD) / CHAR_W)
    return max(MIN_CHARS, min(longest, MAX_CHARS, fits))


def _swimlanes_svg(model, trace: Trace, head: render.Headline, columns: list[str], actors, targets,
                   waiting: dict[str, list[str]], k: int) -> str:
    chars = _lane_chars(model, trace, len(columns))
    lane_w = round(chars * CHAR_W + 2 * PAD)
    x0 = {c: 10 + j * (lane_w + LANE_GAP) for j, c in enumerate(columns)}
    lanes_w = 10 + len(columns) * (lane_w + LANE_GAP) - LANE_GAP + 10
    n = len(trace.steps)
    loop = trace.loop_index is not None and trace.closing is not None
    width = lanes_w + (LOOP_MARGIN if loop else 0)
    items: list[str] = []
    y = HEAD_H + 10
    mids: dict[int, tuple[float, float, float]] = {}  # state -> (x left, x right, y middle) of its box
    # the initial state: a thin band across every lane
    band = f"State 1 · initial state ({len(model.var_names)} variables: see the table)"
    if len(band) * CHAR_W > lanes_w - 28:
        band = "State 1 · initial state"
    items.append(f'<g class="box initial" data-state="1"><title>{_e(band)}</title>'
                 f'<rect x="6" y="{y}" width="{lanes_w - 12}" height="24" rx="4"/>'
                 f'<text x="{14}" y="{y + 16}">{_e(band)}</text></g>')
    mids[0] = (6, lanes_w - 6, y + 12)
    y += 24 + ROW_GAP
    last_actor = None
    for r in range(1, n):
        lane = actors[r] if actors[r] in x0 else columns[0]
        last_actor = lane
        lines, full = _box_lines(model, trace, r, chars)
        h = 2 * PAD + LINE_H * len(lines)
        x = x0[lane]
        cls = "box last" if r == n - 1 else "box"
        text = "".join(f'<tspan x="{x + PAD}" dy="{LINE_H if j else 0}" class="{c}">{_e(t)}</tspan>'
                       for j, (c, t) in enumerate(lines))
        items.append(f'<g class="{cls}" data-state="{r + 1}"><title>{_e(full)}</title>'
                     f'<rect x="{x}" y="{y}" width="{lane_w}" height="{h}" rx="4"/>'
                     f'<text x="{x + PAD}" y="{y + PAD + 12}">{text}</text></g>')
        mids[r] = (x, x + lane_w, y + h / 2)
        for target in (t for t in targets[r] if t in x0 and t != lane):
            tx = x0[target] + lane_w / 2
            sx = x + lane_w if tx > x else x
            ty = y + h / 2  # several targets on one side: one line, an arrowhead on each target's lifeline
            items.append(f'<line class="send" x1="{sx}" y1="{ty}" x2="{tx}" y2="{ty}" '
                         f'marker-end="url(#arrow{k})"><title>{_e(f"to {target}")}</title></line>')
        y += h + ROW_GAP
    # the verdict, under the last box
    if n:
        lane = last_actor if last_actor is not None else columns[0]
        note = _prose(head.marker, chars)
        h = 2 * PAD + LINE_H * len(note)
        x = x0[lane]
        text = "".join(f'<tspan x="{x + PAD}" dy="{LINE_H if j else 0}">{_e(t)}</tspan>' for j, t in enumerate(note))
        items.append(f'<g class="verdict" data-state="{n}"><rect x="{x}" y="{y}" width="{lane_w}" height="{h}" '
                     f'rx="4"/><text x="{x + PAD}" y="{y + PAD + 12}">{text}</text></g>')
        y += h + ROW_GAP
    # a lasso: who waits forever (render.starved), in their lanes; a stutter says so across the lanes
    if n and trace.loop_index is not None:
        if trace.closing is None:
            band = f"↻ state {n} repeats forever: " + (
                "nothing that would change it is enabled" if not waiting else "what is enabled is never taken")
            items.append(f'<g class="stutter"><rect x="6" y="{y}" width="{lanes_w - 12}" height="24" rx="4"/>'
                         f'<text x="14" y="{y + 16}">{_e(band)}</text></g>')
            y += 24 + ROW_GAP
        tallest = 0
        for lane, labels in waiting.items():
            note = ["waits forever:"] + [w for label in labels for w in _prose(label, chars)]
            h = 2 * PAD + LINE_H * len(note)
            x = x0[lane]
            text = "".join(f'<tspan x="{x + PAD}" dy="{LINE_H if j else 0}">{_e(t)}</tspan>'
                           for j, t in enumerate(note))
            items.append(f'<g class="starved"><title>{_e(" ".join(note))}</title><rect x="{x}" y="{y}" '
                         f'width="{lane_w}" height="{h}" rx="4"/><text x="{x + PAD}" y="{y + PAD + 12}">{text}'
                         "</text></g>")
            tallest = max(tallest, h)
        if tallest:
            y += tallest + ROW_GAP
    if loop and n - 1 in mids:
        _, right, y1 = mids[n - 1]
        target = max(trace.loop_index, 0)
        _, tright, y2 = mids[target]
        bend = lanes_w + 24
        label = f"back to state {trace.loop_index + 1}"
        items.append(f'<path class="loop" d="M {right} {y1} H {bend} V {y2} H {tright + 2}" '
                     f'marker-end="url(#loop{k})"><title>{_e(label + ", forever")}</title></path>'
                     f'<text class="loop-label" x="{bend + 6}" y="{(y1 + y2) / 2}">↻ {_e(label)}</text>')
    height = y + 4
    heads = []
    for c in columns:
        x = x0[c]
        heads.append(f'<line class="lifeline" x1="{x + lane_w / 2}" y1="{HEAD_H}" x2="{x + lane_w / 2}" '
                     f'y2="{height}"/>')
        heads.append(f'<g class="lane-head"><rect x="{x}" y="2" width="{lane_w}" height="{HEAD_H - 6}" rx="4"/>'
                     f'<text x="{x + lane_w / 2}" y="{HEAD_H - 10}" text-anchor="middle">{_e(c)}</text></g>')
    defs = (f'<defs><marker id="arrow{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"/></marker>'
            f'<marker id="loop{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
            f'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="loophead"/></marker></defs>')
    return (f'<svg class="swimlanes" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="swimlanes: one column per actor, '
            f'one box per step">{defs}{"".join(heads)}{"".join(items)}</svg>')


# ---------------------------------------------------------------- the page

def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


def _json(data) -> str:
    """JSON safe inside a <script> element (no `</script>`, no `<!--`)."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def escape_text(text: str) -> str:
    """`text` as the page writes it in HTML."""
    return _e(text)


def json_text(text: str) -> str:
    """The string `text` as the page writes it inside embedded JSON (without its quotes)."""
    return _json(text)[1:-1]


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f'<meta name="generator" content="tlacheck"><title>{_e(title)}</title>'
            f"<style>{_CSS}</style></head><body>\n{body}\n<script>{_JS}</script></body></html>\n")


_CSS = """
:root{--ink:#1d1d1f;--muted:#666;--line:#d0d0d0;--changed:#fff1a8;--added:#d9f2d9;--removed:#f8d8d8;
--bad:#c62828;--badbg:#f8d0d0;--loop:#1565c0;--cursor:#1565c0;--cursorbg:#e3eefc;--actbg:#e3eefc;--guardbg:#ffe0a3}
*{box-sizing:border-box}
body{margin:0;padding:16px 20px 40px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;
color:var(--ink);background:#fff}
h1{font-size:20px;margin:0 0 6px}h2{font-size:17px;margin:28px 0 6px;padding-top:12px;border-top:2px solid var(--line)}
code,pre,.mono,svg text{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace}
.detail code{background:#f4f4f4;padding:2px 6px;border-radius:4px;overflow-wrap:anywhere}
.facts span{margin-right:16px;color:var(--muted);white-space:nowrap;display:inline-block}.facts b{color:var(--ink)}
.loop-note{color:var(--loop)}
.controls{position:sticky;top:0;z-index:2;background:#fff;padding:6px 0;border-bottom:1px solid var(--line);
display:flex;gap:6px;align-items:center;flex-wrap:wrap}
.controls button{font-size:16px;min-width:40px;min-height:36px;border:1px solid #999;border-radius:6px;
background:#f7f7f7;cursor:pointer}
.controls button:focus-visible{outline:3px solid var(--cursor)}
.notes{flex-basis:100%;white-space:pre-line;color:#7a4a00;font-weight:bold}.notes:empty{display:none}
.fixnote{color:#7a4a00;font-weight:bold;margin-top:4px}
.position{margin:0 8px}.now{font-weight:bold;margin:0 10px;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;
font-size:13px}.keys{color:var(--muted);font-size:12px}
.stage{display:flex;flex-wrap:wrap;align-items:flex-start;gap:10px 16px;margin-top:10px}
.panes{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;flex:1 1 760px;min-width:0}
.box,tr[data-state]{scroll-margin-top:64px;scroll-margin-bottom:16px}
.right{position:sticky;top:56px;align-self:start;max-height:calc(100vh - 70px);display:flex;flex-direction:column;
gap:10px}
.lanes-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:6px;padding:4px;flex:0 1 auto;min-width:0;
max-width:100%}
svg.swimlanes{display:block}
svg text{font-size:12px;fill:var(--ink);white-space:pre}
.lane-head rect{fill:#e3e8f0;stroke:#8a94a6}.lane-head text{font-weight:bold}
.lifeline{stroke:#aaa;stroke-dasharray:4 4}
.box{cursor:pointer}.box rect{fill:#fff;stroke:#555}.box.initial rect{fill:#d9f2d9}
.box.last rect{fill:var(--badbg);stroke:var(--bad);stroke-width:2}
.box tspan.title{font-weight:bold}.box tspan.changed{fill:#5c4a00}.box tspan.added{fill:#1b5e20}
.box tspan.removed{fill:#8e0000}.box tspan.none{fill:var(--muted);font-style:italic}
.box.current rect{stroke:var(--cursor);stroke-width:3;fill:var(--cursorbg)}
.verdict rect{fill:var(--badbg);stroke:var(--bad)}.verdict text{fill:var(--bad);font-weight:bold}
.stutter rect{fill:#e3eefc;stroke:var(--loop);stroke-dasharray:4 3}.stutter text{fill:var(--loop)}
.starved rect{fill:#fff4e0;stroke:#e08a00;stroke-dasharray:5 3}.starved text{fill:#7a4a00}
.send{stroke:var(--loop);stroke-width:1.6}.arrowhead{fill:var(--loop)}
.loop{fill:none;stroke:var(--loop);stroke-width:1.6;stroke-dasharray:6 4}.loophead{fill:var(--loop)}
.loop-label{fill:var(--loop)!important}
table.states{border-collapse:collapse;width:100%;margin-top:4px}
table.states caption{text-align:left;color:var(--muted);padding-bottom:4px}
table.states th,table.states td{border-top:1px solid var(--line);padding:4px 6px;text-align:left;vertical-align:top}
table.states tr[data-state]{cursor:pointer}
table.states tr.current{background:var(--cursorbg);outline:2px solid var(--cursor)}
col.c-num{width:3.5em}
table.states td.num{color:var(--muted)}table.states td.act{font-weight:bold;overflow-wrap:break-word;min-width:8em}
table.states ul{margin:0;padding:0;list-style:none;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;
font-size:12.5px;white-space:pre-wrap;overflow-wrap:anywhere}
li.changed{background:var(--changed)}li.added{background:var(--added)}li.removed{background:var(--removed)}
li.none{color:var(--muted);font-style:italic}li.derived,dl.state .derived{color:#5e35b1}
.verdict{color:var(--bad);font-weight:bold}.loop-mark,tr.closing{color:var(--loop)}
.pane-title{font-weight:bold;font-size:13px;margin-bottom:4px}.legend{font-weight:normal;font-size:12px}
.legend span{padding:0 4px;border-radius:3px;margin-left:4px}.legend .action{background:var(--actbg)}
.legend .guard{background:var(--guardbg)}.legend .check{outline:2px solid var(--bad)}
.legend .changed{background:var(--changed)}
.state-panel{border:1px solid var(--line);border-radius:6px;padding:6px 8px;overflow:auto;max-height:38vh}
dl.state{display:none;margin:0;grid-template-columns:max-content minmax(0,1fr);gap:2px 10px;
font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
dl.state.current{display:grid}dl.state dt{font-weight:bold;text-align:right}
dl.state dd{margin:0;white-space:pre-wrap;word-break:break-word}dl.state .changed{background:var(--changed)}
.source-wrap{border:1px solid var(--line);border-radius:6px;padding:6px 0 6px 0;min-height:0;display:flex;
flex-direction:column}
.source-wrap .pane-title{padding:0 8px}
pre.source{margin:0;overflow:auto;font-size:12.5px;line-height:1.4;flex:1;min-height:120px;max-height:50vh}
pre.source .line{display:block;padding-right:8px;white-space:pre}
pre.source .no{display:inline-block;width:3.5em;padding-right:8px;text-align:right;color:#999;user-select:none}
pre.source .line.action{background:var(--actbg)}pre.source .line.guard{background:var(--guardbg)}
pre.source .line.check-line.shown{outline:2px solid var(--bad);outline-offset:-2px;background:#fdecec}
pre.source .line.flash{background:var(--guardbg);outline:2px solid #e08a00;outline-offset:-2px}
.log-pane{border:1px solid var(--line);border-radius:6px;padding:6px 8px}
pre.logline{display:none;margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12.5px}
pre.logline.current,pre.logline.event{display:block}pre.logline.event{background:var(--badbg);padding:6px 8px;
border-radius:6px}
.candidate,.why{border:1px solid var(--line);border-radius:6px;padding:6px 8px;margin:6px 0}
.cause{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px;color:#7a4a00}
pre.quote{margin:2px 0 6px 16px;background:var(--guardbg);padding:2px 6px;white-space:pre-wrap}
pre.error{background:var(--badbg);padding:6px 8px;white-space:pre-wrap}.note{color:var(--muted)}
table.diffs{border-collapse:collapse;margin:4px 0}table.diffs th,table.diffs td{border:1px solid var(--line);
padding:2px 8px;text-align:left;font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
table.verify{border-collapse:collapse;margin:10px 0}
table.verify th,table.verify td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
.ok{color:#1b5e20;font-weight:bold}.bad{color:var(--bad);font-weight:bold}.blocked{color:#333}
@media (max-width:900px){body{padding:10px}.panes{grid-template-columns:minmax(0,1fr)}
.right{position:static;max-height:none}.keys{display:none}pre.source{max-height:40vh}}
@media (max-width:600px){table.states thead{display:none}
table.states tr[data-state]{display:grid;grid-template-columns:2.5em minmax(0,1fr)}
table.states tr[data-state] td:last-child{grid-column:2;border-top:none;padding-top:0}}
@media print{.controls{display:none}.stage,.panes{display:block}.right{position:static;max-height:none}
.state-panel{display:none}pre.source{max-height:none;overflow:visible;font-size:10px}
.lanes-wrap{overflow:visible;border:none}svg.swimlanes{max-width:100%;height:auto}
.box.current rect{stroke:#555;stroke-width:1;fill:#fff}.box.last rect{fill:var(--badbg)}
table.states tr.current{background:none;outline:none}h2{break-before:page}tr{break-inside:avoid}}
"""

_JS = r"""
(function () {
  "use strict";
  var viewers = Array.prototype.slice.call(document.querySelectorAll("section.viewer"));
  var state = [];
  var active = 0;
  // i: a state's number, 1 for the initial state (as the page shows it and #v0-s4 names it)
  function clamp(v, i) { return Math.max(1, Math.min(+v.dataset.states, i)); }
  function select(k, i, scroll) {
    var v = viewers[k];
    if (!v) { return; }
    i = clamp(v, i);
    state[k].cursor = i;
    active = k;
    v.querySelectorAll("[data-state]").forEach(function (el) {
      el.classList.toggle("current", +el.dataset.state === i);
    });
    v.querySelector(".cursor").textContent = String(i);
    var lines = state[k].steps[i - 1] || {label: "", action: [], guards: [], check: [], notes: []};
    v.querySelector(".now").textContent = lines.label;
    v.querySelector(".notes").textContent = (lines.notes || []).join("\n");
    var source = v.querySelector("pre.source");
    if (source) {
      source.querySelectorAll(".line").forEach(function (el) {
        var n = +el.dataset.line;
        el.classList.toggle("action", lines.action.indexOf(n) >= 0);
        el.classList.toggle("guard", lines.guards.indexOf(n) >= 0);
        el.classList.toggle("shown", lines.check.indexOf(n) >= 0);
        el.classList.remove("flash");
      });
      var first = lines.focus || (lines.action.length ? lines.action[0] : (lines.check.length ? lines.check[0] : null));
      if (first !== null) { reveal(source, first); }
    }
    if (scroll) {
      var box = v.querySelector("svg [data-state='" + i + "']");
      var row = v.querySelector("tr[data-state='" + i + "']");
      var wrap = v.querySelector(".lanes-wrap");
      if (box && wrap && box.getBBox) {
        var b = box.getBBox();
        if (b.x < wrap.scrollLeft || b.x + b.width > wrap.scrollLeft + wrap.clientWidth) {
          wrap.scrollLeft = Math.max(0, b.x - 20);
        }
      }
      var target = wrap && visible(wrap) ? box : row;
      if (target && target.scrollIntoView) { target.scrollIntoView({block: "nearest"}); }
    }
    if (history.replaceState) { history.replaceState(null, "", "#v" + k + "-s" + i); }
  }
  function visible(el) {
    var r = el.getBoundingClientRect();
    return r.bottom > 60 && r.top < window.innerHeight;
  }
  function reveal(source, n) {
    var el = source.querySelector(".line[data-line='" + n + "']");
    if (!el) { return; }
    var top = el.offsetTop - source.offsetTop;
    if (top < source.scrollTop || top > source.scrollTop + source.clientHeight - 40) {
      source.scrollTop = Math.max(0, top - source.clientHeight / 3);
    }
  }
  viewers.forEach(function (v, k) {
    var data = v.querySelector("script.steps");
    state[k] = {cursor: 1, steps: data ? JSON.parse(data.textContent) : []};
    v.addEventListener("click", function (ev) {
      var move = ev.target.closest("[data-move]");
      if (move) {
        var c = state[k].cursor, n = +v.dataset.states;
        var to = {first: 1, prev: c - 1, next: c + 1, last: n}[move.dataset.move];
        select(k, to, true);
        return;
      }
      var hit = ev.target.closest("[data-state]");
      if (hit && v.contains(hit)) { select(k, +hit.dataset.state, true); }
    });
  });
  document.addEventListener("click", function (ev) {
    var go = ev.target.closest("[data-goto]");
    if (!go) { return; }
    ev.preventDefault();
    var parts = go.dataset.goto.split(":");
    var k = +parts[0];
    select(k, +parts[1], true);
    if (viewers[k]) { viewers[k].scrollIntoView({block: "start"}); }
    var guard = +go.dataset.guard;
    var source = viewers[k] && viewers[k].querySelector("pre.source");
    if (guard && source) {
      var el = source.querySelector(".line[data-line='" + guard + "']");
      if (el) { el.classList.add("flash"); reveal(source, guard); }
    }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || !viewers.length) { return; }
    var t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA")) { return; }
    var c = state[active].cursor, n = +viewers[active].dataset.states, to = null;
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown" || ev.key === "j") { to = c + 1; }
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp" || ev.key === "k") { to = c - 1; }
    else if (ev.key === "Home") { to = 1; }
    else if (ev.key === "End") { to = n; }
    if (to === null) { return; }
    ev.preventDefault();
    select(active, to, true);
  });
  window.addEventListener("hashchange", function () {
    var h = /^#v(\d+)-s(\d+)$/.exec(location.hash);
    if (h && viewers[+h[1]]) { select(+h[1], +h[2], true); }
  });
  var m = /^#v(\d+)-s(\d+)$/.exec(location.hash);
  viewers.forEach(function (v, k) { select(k, 1, false); });
  if (m && viewers[+m[1]]) { select(+m[1], +m[2], true); } else if (viewers.length) { active = 0; }
  if (!m && history.replaceState) { history.replaceState(null, "", location.pathname + location.search); }
})();
"""
