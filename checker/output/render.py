"""Counterexamples and state graphs as Graphviz diagrams. The only module that imports `graphviz`.

Three views, each a pure function returning DOT source:

- `trace_dot`: one node per state listing the variables; what a step
  changed is highlighted entry by entry (output/diff.py, the one diff of
  every output): `pc[c1] | Ready → Waiting`, `waiting | + c2`, `- c1`; the
  last state also shows each changed variable whole. Edges carry the number
  of the state the step leads to (`4. Move(S={c1})` reaches State 4; the
  initial state is State 1, as in TLC and every output), the action and its
  arguments; the initial state hangs off a start
  dot, the violating state is red; a lasso's loop is a dashed blue back edge.
  Values longer than `View.max_width` wrap after a comma, at most MAX_LINES
  lines, then are cut with `…`, the full value in a tooltip (SVG).
  `View.changed_only` hides unchanged variables: each run of consecutive
  unchanged variables becomes one grey row naming them.
- `swimlanes_dot`: a sequence diagram: one column per actor (`action A by
  Runner -> Parent:`), steps going down, each step a box in its actor's
  column listing its changes (`pc[c1]: Ready → Waiting`), a `-> Parent` step
  an arrow to Parent's column. See `lanes` for how
  actors are found when the spec does not name them.
- `state_graph_dot`: the whole reachable graph of a small model, node ids
  from a digest of the state (never memory addresses), the counterexample path
  drawn bold and red.

Guarantee: the same inputs give byte-identical DOT (nothing depends on hash
order, time or memory addresses). `image` runs the `dot` program to turn DOT
into SVG or PNG; those bytes depend on the installed Graphviz version.
"""

from __future__ import annotations

import hashlib
import html
import re
import subprocess
from dataclasses import dataclass

import graphviz

from tlacheck.core.result import Step, Trace
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.core.values import format_value
from tlacheck.output import diff


FONT = "Helvetica"
CHANGED_BG = "#fff1a8"
INITIAL_BG = "#d9f2d9"
VIOLATION_BG = "#f8d0d0"
VIOLATION = "#c62828"
LOOP = "#1565c0"
MUTED = "#6b6b6b"


class DotMissing(Exception):
    """The `dot` program is not installed (Debian/Ubuntu: `apt-get install graphviz`)."""


@dataclass(frozen=True)
class View:
    """How to draw a trace."""

    # list only the variables each step changed (the first and last states list all); None: only
    # when the spec has more than AUTO_CHANGED_ONLY variables
    changed_only: bool | None = None
    max_width: int = 48  # wrap longer values (after MAX_LINES lines cut, the full value in a tooltip)

    def hides_unchanged(self, model) -> bool:
        if self.changed_only is None:
            return len(model.var_names) > AUTO_CHANGED_ONLY
        return self.changed_only


AUTO_CHANGED_ONLY = 6
MAX_LINES = 4  # lines a value may wrap to in a diagram's cell


@dataclass(frozen=True)
class Headline:
    """What went wrong, for titles and the marker on the last state."""

    title: str  # e.g. "DieHard: invariant NotSolved is violated"
    marker: str  # on the last state, e.g. "violates NotSolved"
    detail: str | None = None  # e.g. the property's source text "NotSolved: big != 4"


# ---------------------------------------------------------------- helpers

def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _abbrev(text: str, width: int) -> tuple[str, bool]:
    if len(text) <= width:
        return text, False
    return text[:width - 1] + "…", True


def _wrapped_lines(text: str, width: int, max_lines: int = MAX_LINES) -> tuple[list[str], bool]:
    """`text` wrapped after its commas into lines of at most `width` (diff.wrap), at most `max_lines`
    of them, the last cut with `…` when more would follow; and whether anything was cut."""
    lines = diff.wrap(text, width)
    if len(lines) <= max_lines:
        return lines, False
    lines = lines[:max_lines]
    lines[-1] = _abbrev(lines[-1] + " …", width)[0]
    return lines, True


def _html_lines(lines: list[str]) -> str:
    """Lines for an HTML-like label, each left-aligned."""
    return _esc(lines[0]) if len(lines) == 1 else _br(lines)


def _cell(text: str, width: int, *, bold=False, color=None, bg=None, align="LEFT") -> str:
    lines, cut = _wrapped_lines(text, width)
    body = _html_lines(lines)
    if bold:
        body = f"<B>{body}</B>"
    if color:
        body = f'<FONT COLOR="{color}">{body}</FONT>'
    attrs = f' ALIGN="{align}"'
    if bg:
        attrs += f' BGCOLOR="{bg}"'
    if cut:
        attrs += f' TOOLTIP="{_esc(text)}" HREF="#"'  # Graphviz shows cell tooltips only on links
    return f"<TD{attrs}>{body}</TD>"


def _new_graph(name: str, title_lines: list[tuple[str, bool]]) -> graphviz.Digraph:
    g = graphviz.Digraph(name=_graph_id(name))
    g.attr(rankdir="TB", fontname=FONT, labelloc="t", labeljust="l", nodesep="0.5", ranksep="0.45")
    g.attr("node", fontname=FONT, fontsize="11")
    g.attr("edge", fontname=FONT, fontsize="10")
    if title_lines:
        rows = "".join(f'<TR><TD ALIGN="LEFT">{"<B>" + _esc(t) + "</B>" if bold else _esc(t)}</TD></TR>'
                       for t, bold in title_lines)
        g.attr(label=f'<<TABLE BORDER="0" CELLPADDING="2" CELLSPACING="0">{rows}</TABLE>>')
    return g


def _graph_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name) or "trace"


def _title_lines(headline: Headline | None, extra: str | None = None) -> list[tuple[str, bool]]:
    if headline is None:
        return [(extra, False)] if extra else []
    lines = [(headline.title, True)]
    if headline.detail:
        lines.append((headline.detail, False))
    if extra:
        lines.append((extra, False))
    return lines


def _wrapped(first: str, parts: list[str], width: int = 110) -> list[tuple[str, bool]]:
    """Comma-separated parts on as many title lines as needed; a part too long for a line of its
    own is wrapped after its commas (diff.wrap)."""
    lines, line = [], first
    for k, part in enumerate(parts):
        piece = part + ("," if k < len(parts) - 1 else "")
        if len(line) + len(piece) > width and line.strip():
            lines.append((line.rstrip(), False))
            line = "    "
        if len(line) + len(piece) > width:
            *full, piece = diff.wrap(piece, width - len(line))
            lines += [((line if i == 0 else "    ") + text, False) for i, text in enumerate(full)]
            line = "    "
        line += piece + " "
    lines.append((line.rstrip(), False))
    return lines


def step_label(model, step, number: int | None, multiline: bool = True) -> str:
    """`4. Move(S={c1, c2})`: the step to state 4 (`number`, the state it leads to: states are
    numbered from 1, the initial state being state 1, in every output); None: no number (a
    lasso's step back to its loop state). Long argument lists go one per line. A process's step
    is its instance and label (`4. Proc[2]: wait`), as in the text trace."""
    prefix = "" if number is None else f"{number}. "
    if step.action is None:
        return f"{prefix}(action not recorded)"
    info = model.action_info[step.action]
    if info.process is not None:
        return f"{prefix}{model.step_label(step.action, step.args)}"
    if not info.param_names:
        return f"{prefix}{info.name}"
    args = [f"{n}={v}" for n, v in zip(info.param_names, model.format_args(step.action, step.args))]
    one_line = f"{prefix}{info.name}({', '.join(args)})"
    if len(one_line) <= 40 or not multiline:
        return one_line
    return f"{prefix}{info.name}(\n" + ",\n".join("    " + a for a in args) + ")"


def _step_changes(model, before, after) -> list[diff.Change]:
    if before is None:
        return []
    return diff.step_changes(model, before, after)


def _change_row(c: diff.Change, width: int, with_path: bool) -> str:
    """One change as the cell(s) of a row: `path | old → new` (trace diagram) or, `with_path`, one
    cell `path: old → new` (swimlanes); an added or removed element as `+ element`, `- element`."""
    prefix = f"{c.path}: " if with_path else ""
    if c.op is diff.Op.CHANGED:
        cell = _change_cell(c.old_text, c.new_text, width, prefix)
    else:
        cell = _cell(f"{prefix}{c.sign} {c.element_text}", width, bold=True, bg=CHANGED_BG)
    if with_path:
        return cell
    return _cell(c.path, 40, bold=True, align="RIGHT", bg=CHANGED_BG) + cell


# ---------------------------------------------------------------- trace diagram

def trace_dot(model, trace: Trace, headline: Headline | None = None, view: View = View()) -> str:
    """The trace as a top-down chain of state boxes (see the module docstring)."""
    n = len(trace.steps)
    loop_note = None
    if trace.loop_index is not None:
        loop_note = (f"Lasso: after state {n} the behaviour goes back to state {trace.loop_index + 1} "
                     "(dashed blue edge) and repeats forever." if trace.closing is not None else
                     f"Lasso: the behaviour stays in state {n} forever (it stutters).")
    legend = [("Each box is a state; each arrow is a step (its action and arguments).", False),
              ("Yellow rows: what that step changed, entry by entry: old → new; + added, - removed.", False)]
    g = _new_graph(f"{model.name}_trace", _title_lines(headline, loop_note) + legend)
    g.node("start", label="", shape="circle", style="filled", fillcolor="black", width="0.18", fixedsize="true")
    previous = None
    for i, step in enumerate(trace.steps):
        g.node(f"s{i + 1}", label=_state_label(model, trace, i, previous, headline, view),
               shape="plain", tooltip=_state_tooltip(model, step.state, i))
        if i == 0:
            g.edge("start", "s1", label=" initial state", fontcolor=MUTED, color=MUTED)
        else:
            label = step_label(model, step, i + 1)
            g.edge(f"s{i}", f"s{i + 1}", label=_edge_label(label), tooltip=label.replace("\n", " "),
                   penwidth="1.4")
        previous = step.state
    if trace.loop_index is not None and n:
        if trace.closing is not None:
            text = step_label(model, trace.closing, None) + f"\n(back to state {trace.loop_index + 1}: repeats forever)"
        else:
            text = "stutters here forever"
        g.edge(f"s{n}", f"s{trace.loop_index + 1}", label=_edge_label(text), color=LOOP, fontcolor=LOOP,
               style="dashed", penwidth="1.6", constraint="false")
    return g.source


def _edge_label(text: str) -> str:
    # A leading space keeps the label off the line; `\l` left-justifies every line.
    return " " + text.replace("\n", "\\l ") + ("\\l" if "\n" in text else "")


def _state_label(model, trace: Trace, i: int, previous, headline: Headline | None, view: View) -> str:
    step = trace.steps[i]
    last = i == len(trace.steps) - 1
    found = _step_changes(model, previous, step.state)
    border = "#333333"
    if i == 0:
        header_bg, header = INITIAL_BG, f"State {i + 1} · initial state"
    else:
        header_bg, header = "#eeeeee", f"State {i + 1}"
    if trace.loop_index == i:
        header += " · loop starts here"
    marker = None
    if last and headline is not None:
        header_bg, border = VIOLATION_BG, VIOLATION
        marker = headline.marker
    rows = [f'<TR><TD COLSPAN="2" ALIGN="LEFT" BGCOLOR="{header_bg}"><B>{_esc(header)}</B></TD></TR>']
    if marker:
        rows.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT" BGCOLOR="{header_bg}">'
                    f'<FONT COLOR="{VIOLATION}"><B>{_esc(marker)}</B></FONT></TD></TR>')
    hidden: list[str] = []
    hides_unchanged = view.hides_unchanged(model)

    def flush():
        if hidden:
            text = (f"{len(hidden)} unchanged: " if len(hidden) > 1 else "unchanged: ") + ", ".join(hidden)
            rows.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT">{_cell_body(text, view.max_width, MUTED)}'
                        f'</TD></TR>')
            hidden.clear()

    by_variable: dict[str, list[diff.Change]] = {}
    for c in found:
        by_variable.setdefault(c.variable, []).append(c)
    # one row per variable, and per instance and variable of a process over a set (Model.state_rows)
    for slot, label, text in model.state_rows(step.state):
        name = model.var_names[slot]
        changes = by_variable.get(name, [])
        mine = changes if label == name else [c for c in changes if c.path == label
                                               or c.path.startswith((label + "[", label + "."))]
        whole = label != name and any(c.path == name for c in changes)  # every instance's map changed at once
        if mine or whole:
            flush()
            at_row = len(mine) == 1 and (mine[0].whole or mine[0].path == label and mine[0].op is diff.Op.CHANGED)
            if (last or whole) and not at_row:  # the last state shows every value whole
                rows.append("<TR>" + _cell(label, 40, bold=True, align="RIGHT", bg=CHANGED_BG)
                            + _cell(text, view.max_width, bg=CHANGED_BG) + "</TR>")
            rows += ["<TR>" + _change_row(c, view.max_width, False) + "</TR>" for c in mine]
        elif hides_unchanged and 0 < i < len(trace.steps) - 1:
            hidden.append(label)
        else:
            rows.append("<TR>" + _cell(label, 40, color=MUTED, align="RIGHT")
                        + _cell(text, view.max_width, color="#222222" if i == 0 else MUTED) + "</TR>")
    flush()
    rows += _derived_rows(model, trace, i, view)
    width = "2" if last and headline is not None else "1"
    return (f'<<TABLE BORDER="{width}" COLOR="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="4">'
            + "".join(rows) + "</TABLE>>")


DERIVED = "#5e35b1"  # derived values (`derived NAME: EXPR`) are drawn in this colour, marked `~`


def _derived_rows(model, trace: Trace, i: int, view: View) -> list[str]:
    """The derived values of state i: every one on the first and the last state, else what the
    step changed in them (yellow, as for variables)."""
    if not model.derived:
        return []
    after = model.derived_values(trace.steps[i].state)
    if i == 0 or i == len(trace.steps) - 1:
        return ["<TR>" + _cell(f"~ {d.name}", 40, color=DERIVED, align="RIGHT") + _cell(d.text, view.max_width,
                                                                                       color=DERIVED) + "</TR>"
                for d in after]
    return ["<TR>" + _change_row(c, view.max_width, False) + "</TR>"
            for c in diff.marked_derived_changes(model, trace.steps[i - 1].state, trace.steps[i].state)]


def _change_cell(old: str, new: str, width: int, prefix: str = "") -> str:
    """`old → new` on one line when it fits, else the old value (grey) over `→ new` (bold), each
    wrapped on its own (at most MAX_LINES lines, so the new value stays visible), the full change
    in a tooltip when a part was cut."""
    full = f"{prefix}{old} → {new}"
    attrs = f' ALIGN="LEFT" BGCOLOR="{CHANGED_BG}"'
    if len(full) <= width:
        return f"<TD{attrs}><B>{_esc(full)}</B></TD>"
    old_lines, cut_old = _wrapped_lines(prefix + old, width)
    new_lines, cut_new = _wrapped_lines("→ " + new, width)
    if cut_old or cut_new:
        attrs += f' TOOLTIP="{_esc(full)}" HREF="#"'
    return f'<TD{attrs}><FONT COLOR="{MUTED}">{_br(old_lines)}</FONT><B>{_br(new_lines)}</B></TD>'


def _br(lines: list[str]) -> str:
    """Lines, each ended by a left-aligning break."""
    return "".join(f'{_esc(line)}<BR ALIGN="LEFT"/>' for line in lines)


def _cell_body(text: str, width: int, color: str) -> str:
    shown, _ = _abbrev(text, width)
    return f'<FONT COLOR="{color}"><I>{_esc(shown)}</I></FONT>'


def _state_tooltip(model, state, i: int) -> str:
    return f"State {i + 1}\n" + "\n".join(f"{label} = {text}" for _, label, text in model.state_rows(state))


# ---------------------------------------------------------------- swimlanes

_ACRONYM = re.compile(r"^([A-Z]{2,})(?=[A-Z][a-z0-9])")


def derived_actor(name: str) -> str | None:
    """The actor a process-like action name suggests: `Runner_Stop` -> Runner, `TMCommit` -> TM."""
    if "_" in name.strip("_"):
        return name.strip("_").split("_")[0]
    m = _ACRONYM.match(name)
    return m.group(1) if m else None


def lanes(model, trace: Trace) -> tuple[list[str], list[str | None], list[tuple[str, ...]]]:
    """The swimlane columns, and for each step the column of its actor and the columns of its
    `->` targets (a label, or what `-> EXPR` gives in the state before the step: none, one actor
    or several).

    With `by` annotations: a step's column is its actor; an actor that names one
    of the action's parameters (`action Stop(r in Runners) by r`) gives one
    column per argument value. Actions without `by` in an annotated spec go to
    a column "(other)". Without any annotation, actors are derived from the
    action names (`Runner_Stop`, `TMCommit`) only when every action of the
    spec yields one and at least two differ; otherwise there is one column.
    """
    infos = model.action_info
    annotated = any(info.actor for info in infos)
    derived = {info.name: derived_actor(info.name) for info in infos}
    use_derived = (not annotated and all(derived.values()) and len(set(derived.values())) > 1)

    def resolve(who: str | None, step) -> str | None:
        if who is None:
            return None
        info = infos[step.action]
        if who in info.param_names:
            shown = model.format_args(step.action, step.args)
            return info.who(shown) if info.indexed else shown[info.param_names.index(who)]
        return who

    actors: list[str | None] = [None]
    targets: list[tuple[str, ...]] = [()]
    for before, step in zip(trace.steps, trace.steps[1:]):
        if step.action is None:
            actors.append("(other)" if annotated else model.name)
            targets.append(())
            continue
        info = infos[step.action]
        if annotated:
            actors.append(resolve(info.actor, step) or "(other)")
            if info.sends_computed:
                targets.append(model.send_targets(step.action, step.args, before.state))
            else:
                label = resolve(info.sends_to, step)
                targets.append((label,) if label else ())
            if info.process is not None:  # a process step that writes another one's locals sends to it
                targets[-1] += tuple(w for w in _written_processes(model, before.state, step.state)
                                     if w != actors[-1] and w not in targets[-1])
        elif use_derived:
            actors.append(derived[info.name])
            targets.append(())
        else:
            actors.append(model.name)
            targets.append(())
    columns: list[str] = []
    # declaration order of actors first (stable across traces of one spec), then values as they appear
    for info in infos:
        for who in ((info.actor, info.sends_to) if annotated else (derived[info.name] if use_derived else None,)):
            if who and who not in info.param_names and who not in columns and (
                    who in actors or any(who in ts for ts in targets)):
                columns.append(who)
    for who in [w for actor, ts in zip(actors[1:], targets[1:]) for w in (actor, *ts)]:  # as the steps name them
        if who and who not in columns:
            columns.append(who)
    if not columns:
        columns.append(model.name)
    return columns, actors, targets


def _written_processes(model, before, after) -> list[str]:
    """The process instances whose local variables a step changed (`Task[t1]`, `Runner`), in the
    order of the changes."""
    out: list[str] = []
    for c in diff.step_changes(model, before, after):
        process = model.process_variables.get(c.variable)
        if process is None:
            continue
        if c.path.startswith(process + "["):
            who = c.path.split("]", 1)[0] + "]"
        elif c.path.startswith(process + "."):
            who = process
        else:  # every instance's map changed whole
            continue
        if who not in out:
            out.append(who)
    return out


@dataclass(frozen=True)
class Starved:
    """An action instance that is enabled in a state of a lasso's loop but never taken on it:
    who the liveness failure leaves waiting."""

    action: int
    args: tuple
    actor: str | None  # its column in the swimlanes (None: the spec names no actors)
    label: str  # `ParentReads`, `Take(c=c2)`
    always: bool  # enabled in every state of the loop (weak fairness on it would force it)


def starved(model, trace: Trace) -> list[Starved]:
    """The action instances enabled somewhere on the loop of a lasso `trace` and never taken on
    it, in action order (no lasso: none). A step that would change nothing is not counted: taking
    it is stuttering. An action whose evaluation fails in a loop state counts as not enabled
    there (the search that found the lasso evaluated every successor already)."""
    if trace.loop_index is None or not trace.steps:
        return []
    loop = [s.state for s in trace.steps[trace.loop_index:]]
    taken = {(s.action, s.args) for s in trace.steps[trace.loop_index + 1:]}
    if trace.closing is not None:
        taken.add((trace.closing.action, trace.closing.args))
    columns = _starved_columns(model, trace)
    out: list[Starved] = []
    for a in range(len(model.actions)):
        seen: dict[tuple, int] = {}  # in the order the action generates them: deterministic
        for state in loop:
            try:
                found = dict.fromkeys(args for args, succ in model.actions[a](state) if succ != state)
            except EVAL_FAILURES:
                continue
            for args in found:
                if (a, args) not in taken:
                    seen[args] = seen.get(args, 0) + 1
        for args, count in seen.items():
            step = Step(a, args, loop[-1])
            out.append(Starved(a, args, columns(step), model.step_label(a, args), count == len(loop)))
    return out


def waiting(model, trace: Trace, first_column: str) -> dict[str, list[str]]:
    """Column -> what waits forever there (`starved`), one line per action: `Take(c=c2) enabled at
    times, never taken`, or for several instances of one action `LeadDispatches (6 instances)
    enabled throughout the loop, never taken`. An action of no actor goes to `first_column`."""
    groups: dict[tuple[str, int], list[Starved]] = {}
    for w in starved(model, trace):
        groups.setdefault((w.actor or first_column, w.action), []).append(w)
    out: dict[str, list[str]] = {}
    for (column, a), found in groups.items():
        label = found[0].label if len(found) == 1 else f"{model.action_info[a].name} ({len(found)} instances)"
        when = ("throughout the loop" if all(w.always for w in found) else
                "at times" if not any(w.always for w in found) else "at times or throughout")
        out.setdefault(column, []).append(f"{label} enabled {when}, never taken")
    return out


def _starved_columns(model, trace: Trace):
    """The swimlane column of a step, by the rules of `lanes`."""
    def column(step: Step) -> str | None:
        _, actors, _ = lanes(model, Trace((trace.steps[0], step)))
        return actors[1]
    return column


def swimlanes_dot(model, trace: Trace, headline: Headline | None = None, view: View = View()) -> str:
    """The trace as a sequence diagram: columns are actors, time goes down."""
    columns, actors, targets = lanes(model, trace)
    waits = waiting(model, trace, columns[0])  # a lasso: who waits forever, by column
    columns = columns + [c for c in waits if c not in columns]
    initial = model.state_rows(trace.steps[0].state) if trace.steps else []
    loop_note = None
    if trace.loop_index is not None:
        loop_note = (f"Lasso: after state {len(trace.steps)} the behaviour goes back to state "
                     f"{trace.loop_index + 1} (dashed blue edge) and repeats forever." if trace.closing is not None
                     else "Lasso: the behaviour stays in the last state forever (it stutters).")
    g = _new_graph(f"{model.name}_swimlanes", _title_lines(headline, loop_note) + _wrapped(
        "Initial state: ", [f"{label} = {_abbrev(text, 2 * view.max_width)[0]}" for _, label, text in initial]))
    g.attr(nodesep="0.35", ranksep="0.25", newrank="true")
    col_id = {c: f"c{k}" for k, c in enumerate(columns)}
    rows = len(trace.steps)  # row r (1..rows-1) is step r; one more row for the verdict
    with g.subgraph(name="heads") as head:
        head.attr(rank="same")
        for c in columns:
            head.node(f"{col_id[c]}_0", label=c, shape="box", style="filled,bold", fillcolor="#e3e8f0",
                      fontsize="12")
    for a, b in zip(columns, columns[1:]):
        g.edge(f"{col_id[a]}_0", f"{col_id[b]}_0", style="invis")
    previous = trace.steps[0].state if trace.steps else None
    last_row = rows  # the verdict row
    for r in range(1, rows + 1):
        with g.subgraph(name=f"row{r}") as row:
            row.attr(rank="same")
            for c in columns:
                nid = f"{col_id[c]}_{r}"
                if r < rows and actors[r] == c:
                    step = trace.steps[r]
                    row.node(nid, label=_lane_box(model, step, r, previous, r == rows - 1 and headline, view),
                             shape="plain")
                elif r == last_row and headline is not None and rows > 1 and actors[rows - 1] == c:
                    extra = "".join(f"<BR/>{_esc(t)}" for t in (["waits forever:"] + waits[c] if c in waits else []))
                    row.node(nid, label=f"<<FONT COLOR=\"{VIOLATION}\"><B>{_esc(headline.marker)}</B></FONT>{extra}>",
                             shape="note", color=VIOLATION, fillcolor=VIOLATION_BG, style="filled")
                elif r == last_row and c in waits:
                    text = "<BR/>".join(_esc(t) for t in ["waits forever:"] + waits[c])
                    row.node(nid, label=f"<{text}>", shape="note", color="#e08a00", fillcolor="#fff4e0",
                             style="filled,dashed")
                else:
                    row.node(nid, label="", shape="point", width="0.04", color="#9e9e9e")
            if r < rows:
                previous = trace.steps[r].state
    for c in columns:
        for r in range(rows):
            g.edge(f"{col_id[c]}_{r}", f"{col_id[c]}_{r + 1}", arrowhead="none", style="dashed", color="#9e9e9e",
                   weight="100")
    for r in range(1, rows):
        _send_edges(g, columns, col_id, r, actors[r], targets[r], model.action_info[trace.steps[r].action].name
                    if trace.steps[r].action is not None else "")
    if trace.loop_index is not None and rows > 1:
        target_row = max(trace.loop_index, 1)
        if trace.closing is not None:
            text = f" {step_label(model, trace.closing, None, multiline=False)}: back to state {trace.loop_index + 1} "
        else:
            text = " stutters here forever "
        g.edge(f"{col_id[actors[rows - 1]]}_{rows - 1}", f"{col_id[actors[target_row]]}_{target_row}",
               color=LOOP, style="dashed", constraint="false", fontcolor=LOOP, label=text)
    return g.source


def _send_edges(g, columns: list[str], col_id: dict[str, str], r: int, actor: str | None, targets, name: str) -> None:
    """The arrows of row r's `->` targets, as a line from the actor's box across the lifelines
    with an arrowhead at each target's. The line is drawn piece by piece between neighbouring
    columns, each piece from left to right (`dir=back` where it points left): Graphviz draws an
    edge between neighbours of one rank straight, whereas an edge that skips columns is routed
    around the nodes between them, bending the lifelines (and, with labels, a broadcast to ten
    workers made it warn "Something is probably seriously wrong"). The action's name labels the
    piece next to the box."""
    if actor not in col_id:
        return
    here = columns.index(actor)
    wanted = {columns.index(t) for t in targets if t in col_id and t != actor}
    for side in (1, -1):
        reach = [j for j in wanted if (j - here) * side > 0]
        if not reach:
            continue
        far = max(reach) if side > 0 else min(reach)
        for j in range(here + side, far + side, side):
            left, right = sorted((j - side, j))
            attrs = {"color": LOOP, "penwidth": "1.6", "constraint": "false", "arrowsize": "0.8"}
            head = "normal" if j in wanted else "none"
            if side > 0:
                attrs.update(arrowhead=head)
            else:
                attrs.update(dir="back", arrowtail=head)
            if j == here + side:
                attrs.update(label=f" {name} ", fontcolor=LOOP)
            g.edge(f"{col_id[columns[left]]}_{r}", f"{col_id[columns[right]]}_{r}", **attrs)


def _lane_box(model, step, r: int, previous, is_last, view: View) -> str:
    label = step_label(model, step, r + 1).split("\n")  # row r: the step to state r + 1
    border, bg = ("#333333", "#ffffff")
    if is_last:
        border, bg = VIOLATION, VIOLATION_BG
    rows = [f'<TR><TD ALIGN="LEFT" BGCOLOR="{bg}"><B>{_esc(line)}</B></TD></TR>' for line in label]
    found = _step_changes(model, previous, step.state)
    rows += ["<TR>" + _change_row(c, view.max_width, True) + "</TR>" for c in found]
    if previous is not None:
        rows += ["<TR>" + _change_row(c, view.max_width, True) + "</TR>"
                 for c in diff.marked_derived_changes(model, previous, step.state)]
    if not found:
        rows.append("<TR>" + _cell("(no change)", view.max_width) + "</TR>")
    return (f'<<TABLE BORDER="1" COLOR="{border}" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3">'
            + "".join(rows) + "</TABLE>>")


# ---------------------------------------------------------------- state graph

def state_id(model, state) -> str:
    """A node id from a digest of the state's printed values (every digit of an int, not the
    abbreviation shown: two states must not share an id): the same in every run and process."""
    text = "\x1f".join(f"{n}={format_value(v, t, exact=True)}"
                        for n, v, t in zip(model.var_names, state, model.var_types))
    return "s" + hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


def shape_text(graph, shape, merged: tuple[tuple[str, ...], int] | None = None) -> str:
    """`12 states, 30 transitions; 4 strongly connected components, 1 terminal` (stategraph.shape);
    `merged` (the variables and the number of states) for a merged graph: `5 nodes for 12 states
    (those that agree on a, b), ...`."""
    if merged is None:
        text = f"{len(graph.states):,} states, {len(graph.edges):,} transitions"
    else:
        text = (f"{len(graph.states):,} nodes for {merged[1]:,} states (those that agree on "
                f"{', '.join(merged[0])}), {len(graph.edges):,} transitions")
    if shape is None:
        return text
    if shape.components == 1:
        return text + "; strongly connected (every state can reach every other)"
    n = len(shape.terminal)
    where = "where every behaviour ends up" if n == 1 else "each behaviour ends up in one of them"
    return text + f"; {shape.components} strongly connected components, {n} terminal ({where})"


@dataclass(frozen=True)
class GraphView:
    """How to draw a state graph (`tlacheck graph`)."""

    variables: tuple[str, ...] | None = None  # the variables node labels show (None: all)
    # "full": every shown variable; "changes": initial states in full, every other state what differs
    # from the state it was first reached from (parents); "none": the state's number only;
    # "auto": full up to AUTO_FULL_LABELS states, else changes
    labels: str = "auto"
    group_by: str | None = None  # one dashed cluster per value of this variable
    sizes: tuple[int, ...] | None = None  # a merged graph (stategraph.merge): the states each node stands for
    node_of: dict | None = None  # a merged graph: state -> node, to place the counterexample on it

    def label_mode(self, graph) -> str:
        if self.labels == "auto":
            return "full" if len(graph.states) <= AUTO_FULL_LABELS else "changes"
        return self.labels


AUTO_FULL_LABELS = 20
GRAPH_VALUE_WIDTH = 40  # node labels wrap values at this width, MAX_GRAPH_VALUE_LINES lines each
MAX_GRAPH_VALUE_LINES = 2
MAX_EDGE_NAMES = 4  # an edge standing for more actions lists this many and the count of the others


def parents(graph) -> tuple[int | None, ...]:
    """For each state of a state graph (engine/stategraph.py), the state it was first reached from
    (the source of the first transition into it: transitions are kept in the order of the
    search); None for an initial state. The tree `--labels changes` labels states along."""
    out: list[int | None] = [None] * len(graph.states)
    initial = set(graph.initial)
    for src, dst, _, _ in graph.edges:
        if out[dst] is None and dst not in initial and src != dst:
            out[dst] = src
    return tuple(out)


def graph_labels(model, graph, view: GraphView = GraphView()) -> list[list[str]]:
    """The lines of each node's label (see GraphView); their total is the drawing's size that
    `tlacheck graph` limits."""
    names = view.variables if view.variables is not None else model.var_names
    slots = [model.var_names.index(n) for n in names]
    types = [model.var_types[k] for k in slots]
    mode = view.label_mode(graph)
    tree = parents(graph) if mode == "changes" else None
    out = []
    for i, state in enumerate(graph.states):
        shown = model.format_state(state)
        header = f"#{i + 1}"
        if view.sizes is not None:
            header += f" ({view.sizes[i]:,} state{'s' if view.sizes[i] != 1 else ''})"
        parent = tree[i] if tree is not None else None
        if mode == "none":
            out.append([header])
            continue
        if parent is None:
            lines = [] if mode == "full" and view.sizes is None else [header]
            for n in names:
                lines += _wrapped_lines(f"{n} = {shown[n]}", GRAPH_VALUE_WIDTH, MAX_GRAPH_VALUE_LINES)[0]
            out.append(lines)
            continue
        lines = [f"{header} from #{parent + 1}"]
        before = graph.states[parent]
        found = diff.changes(tuple(before[k] for k in slots), tuple(state[k] for k in slots), names, types)
        for c in found:
            text = f"{c.path} = {c.new_text}" if c.op is diff.Op.CHANGED else f"{c.path} {c.sign} {c.element_text}"
            lines.append(_abbrev(text, GRAPH_VALUE_WIDTH)[0])
        if not found:
            lines.append("(no variable shown changed)")
        out.append(lines)
    return out


def state_graph_dot(model, graph, headline: Headline | None = None, path: Trace | None = None,
                    bad: frozenset = frozenset(), self_loops: bool = False, shape=None,
                    view: GraphView = GraphView()) -> str:
    """The reachable state graph (a stategraph.StateGraph, or a merged one with `view.sizes`).
    Parallel edges are merged into one edge listing the actions (at most MAX_EDGE_NAMES); `path`
    (a counterexample) is drawn bold red; `bad` holds the indices of states violating an invariant;
    nodes are labelled as `view` says (graph_labels); with `view.group_by`, one dashed cluster per
    value of that variable; else with `shape` (stategraph.shape), each terminal component of more
    than one state, when there are others, is framed as a dashed cluster."""
    loops = sum(1 for src, dst, _, _ in graph.edges if src == dst)
    extra = shape_text(graph, shape, None if view.sizes is None else (view.variables, sum(view.sizes)))
    title = _title_lines(headline, extra)
    if loops and not self_loops:
        title.append((f"({loops} transitions that leave the {'node' if view.sizes else 'state'} unchanged are "
                      "not drawn)", False))
    mode = view.label_mode(graph)
    if mode == "changes":
        title.append(("Each state lists what differs from the state it was first reached from (#n from #m); "
                      "initial states list every variable.", False))
    g = _new_graph(f"{model.name}_graph", title)
    g.attr(nodesep="0.3", ranksep="0.5")
    ids = [state_id(model, s) for s in graph.states]
    on_path_states = set()
    on_path_edges = set()
    if path is not None and path.steps:
        index = view.node_of if view.node_of is not None else {s: i for i, s in enumerate(graph.states)}
        chain = [index.get(step.state) for step in path.steps]
        on_path_states = {c for c in chain if c is not None}
        on_path_edges = {(a, b) for a, b in zip(chain, chain[1:]) if a is not None and b is not None}
    initial = set(graph.initial)
    labels = graph_labels(model, graph, view)
    if view.group_by is not None:
        groups: dict[str, list[int]] = {}
        for i, state in enumerate(graph.states):
            groups.setdefault(model.format_state(state)[view.group_by], []).append(i)
        framed = [(f"{view.group_by} = {value}", members) for value, members in groups.items()]
    else:
        terminal = [c for c in shape.terminal if len(c) > 1] if shape is not None and shape.components > 1 else []
        framed = [("terminal: never left once entered", list(c)) for c in terminal]
    inside = {i for _, c in framed for i in c}

    def node(target, i: int) -> None:
        state = graph.states[i]
        tooltip = _state_tooltip(model, state, i)
        if view.sizes is not None and view.sizes[i] > 1:
            names = view.variables
            shown = model.format_state(state)
            tooltip = f"#{i + 1}: {view.sizes[i]:,} states with\n" + "\n".join(f"{n} = {shown[n]}" for n in names)
        attrs = {"shape": "box", "style": "rounded", "tooltip": tooltip}
        if i in initial:
            attrs.update(style="rounded,filled,bold", fillcolor=INITIAL_BG)
        if i in bad:
            attrs.update(style="rounded,filled,bold", fillcolor=VIOLATION_BG, color=VIOLATION)
        if i in on_path_states:
            attrs.update(color=VIOLATION, penwidth="2.2")
        target.node(ids[i], label="\\l".join(labels[i]) + "\\l", **attrs)

    for i in range(len(graph.states)):
        if i not in inside:
            node(g, i)
    for k, (label, members) in enumerate(framed):
        with g.subgraph(name=f"cluster_{'group' if view.group_by else 'terminal'}{k}") as c:
            c.attr(label=label, style="dashed,rounded", color="#777777", fontcolor="#555555", fontsize="10")
            for i in members:
                node(c, i)
    merged: dict[tuple[int, int], list[str]] = {}
    for src, dst, action, args in graph.edges:
        if src == dst and not self_loops:
            continue
        name = model.step_label(action, args)
        names = merged.setdefault((src, dst), [])
        if name not in names:
            names.append(name)
    for (src, dst), names in merged.items():
        attrs = {"color": "#555555"}
        if (src, dst) in on_path_edges:
            attrs = {"color": VIOLATION, "penwidth": "2.4", "fontcolor": VIOLATION}
        if src == dst:
            attrs["style"] = "dotted"
        if len(names) > MAX_EDGE_NAMES:
            names = names[:MAX_EDGE_NAMES - 1] + [f"… ({len(names) - MAX_EDGE_NAMES + 1} more)"]
        g.edge(ids[src], ids[dst], label=" " + "\\n ".join(names), **attrs)
    return g.source


# ---------------------------------------------------------------- images

def image(dot_source: str, fmt: str) -> bytes:
    """Render DOT to `svg` or `png` bytes with the `dot` program. Raises DotMissing without it."""
    if fmt not in ("svg", "png"):
        raise ValueError(f"unknown image format {fmt!r}")
    try:
        return graphviz.Source(dot_source).pipe(format=fmt, engine="dot")
    except graphviz.ExecutableNotFound:
        raise DotMissing("the `dot` program is not installed") from None


def dot_available() -> bool:
    try:
        graphviz.version()
    except (graphviz.ExecutableNotFound, subprocess.CalledProcessError, RuntimeError):
        return False
    return True
