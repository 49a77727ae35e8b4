"""A counterexample explained step by step: `tlacheck explain` and the MCP tool `explain`.

For each state of the trace, numbered as every output numbers them (the initial state is state 1,
a step is named by the state it leads to; docs/cli.md, "Numbering"): the action and its arguments
with the line that declares the action, the `require` guards of that action that the step passed,
each with its line and text, and what the step changed, entry by entry (output/diff.py, the one
diff), each change with the line of the assignment that wrote it. Then the check that fails, with
its line and text, and for a deadlock, why each action is disabled in the last state (its first
false guard). The JSON form (`explain_json`) and the text (`format_explanation`) are built from
one `Explanation`.

Where the guards and assignments come from: the step is run again on the instrumented actions
(compile/instrument.py, through engine/matcher.py's Explainer, the one place that asks them),
which say which assignment last wrote each variable on the path the step took. The guards listed
are the action's `require`s at its top level and inside `with`, which every path passes, and
those inside the branch of an `if` or `either` that the step took, and the condition of each
`if` whose branch is known, with whether it held. A branch was taken when one of its assignments
wrote a value the step kept, and was not when one of them assigns a variable the path never
wrote. Limits: a branch that wrote nothing, or whose values were all overwritten later, is not
told (nor are its guards); a step whose path cannot be run again (an evaluation fault in the
instrumented copy) is shown without guard and assignment lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import Check, Violation
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.core.source import Source, Span
from tlacheck.engine.matcher import Explainer
from tlacheck.ir import nodes as ir
from tlacheck.output import diff
from tlacheck.output.artefacts import property_source
from tlacheck.output.report import change_lines

SourceOf = Callable[[str], "Source | None"]  # the text of a spec file by name (None: unreadable)

_CHECK_WORDS = {Check.LIVENESS: "temporal property", Check.UNREACHABLE: "reachable check"}  # else Check.noun


@dataclass(frozen=True)
class Place:
    """A span of the spec and the source text it covers (on one line; `text` None: unreadable)."""

    span: Span
    text: str | None

    def json(self) -> dict:
        return {"file": self.span.file, "line": self.span.line, "column": self.span.column, "text": self.text}


@dataclass(frozen=True)
class Guard:
    """A guard on the path of a step: a `require` (it held) or the condition of an `if` (`holds`:
    whether the step took its branch)."""

    kind: str  # "require", "label" (a process step's label: its program counter is there) or "if"
    holds: bool
    place: Place

    def json(self) -> dict:
        return {"kind": self.kind, "holds": self.holds, **self.place.json()}


@dataclass(frozen=True)
class ExplainedChange:
    change: diff.Change
    written_at: Place | None  # the assignment that wrote the variable; None: not known


@dataclass
class ExplainedStep:
    """State `number` of the trace and the step that reached it (the initial state: action None)."""

    number: int
    action: int | None
    args: tuple
    state: tuple
    at: Span | None = None  # the action's declaration
    guards: list[Guard] = field(default_factory=list)
    changes: list[ExplainedChange] = field(default_factory=list)


@dataclass(frozen=True)
class Disabled:
    """An action disabled in the last state of a deadlock, and the guards found false there."""

    action: str
    guards: tuple[Place, ...]


@dataclass
class Explanation:
    violation: Violation
    check: Place | None  # the declaration of the check that fails (None: a deadlock, an error)
    steps: list[ExplainedStep]
    closing: ExplainedStep | None  # a lasso's step back to its loop state
    disabled: list[Disabled]


def explain(model: Model, violation: Violation, source_of: SourceOf) -> Explanation:
    """The explanation of one counterexample of `model` (Result.violation)."""
    explainer = Explainer(model)
    trace = violation.trace
    steps = []
    previous = None
    for number, step in enumerate(trace.steps, start=1):
        steps.append(_step(model, explainer, source_of, number, step, previous))
        previous = step.state
    closing = None
    if trace.closing is not None and previous is not None:
        closing = _step(model, explainer, source_of, 0, trace.closing, previous)
    disabled = []
    if violation.kind == Check.DEADLOCK and trace.steps:
        disabled = _disabled(model, explainer, source_of, trace.steps[-1].state)
    return Explanation(violation, _check_place(model, violation, source_of), steps, closing, disabled)


def _step(model: Model, explainer: Explainer, source_of: SourceOf, number: int, step, previous) -> ExplainedStep:
    out = ExplainedStep(number, step.action, step.args, step.state)
    if previous is None or step.action is None:
        return out
    found = diff.step_changes(model, previous, step.state)
    wrote = _wrote(explainer, step.action, step.args, previous, step.state)
    if step.action < len(model.ir.actions):
        action = model.ir.actions[step.action]
        out.at = action.span
        if wrote is not None:
            written = [explainer.assignment(j) for j in wrote if j]
            out.guards = [Guard(_kind(g, action), holds, _place(g.span, source_of))
                          for g, holds in _guards(action.body, wrote, written)]
    slots = {name: i for i, name in enumerate(model.var_names)}
    for c in found:
        j = None if wrote is None else wrote[slots[c.variable]]
        out.changes.append(ExplainedChange(c, _place(explainer.assignment(j), source_of) if j else None))
    return out


def _kind(guard, action: ir.Action) -> str:
    """`require`; `label` for the guard a process step's label stands for (lang/processes.py spans
    it at the label); `if` for a condition."""
    if not isinstance(guard, ir.RequireS):
        return "if"
    return "label" if guard.span == action.span else "require"


def _wrote(explainer: Explainer, action: int, args: tuple, before: tuple, after: tuple) -> tuple | None:
    """Per variable, the number of the assignment that last wrote it on the path of the step
    (0: none); None when no path of the instrumented action gives the step (or it faults)."""
    try:
        _, reached, _ = explainer.paths(action, before)
    except EVAL_FAILURES:
        return None
    for path_args, state, wrote in reached:
        if path_args == args and state == after:
            return wrote
    return None


def _guards(body: tuple, wrote: tuple, written: list[Span]) -> list[tuple[ir.Expr | ir.RequireS, bool]]:
    """The guards of a block on the path of a step, each with its value: its `require`s (true),
    and the conditions of its `if`s whose branch the assignments tell (the module's docstring)."""
    out: list = []
    for s in body:
        if isinstance(s, ir.RequireS):
            out.append((s, True))
        elif isinstance(s, ir.WithS):
            out += _guards(s.body, wrote, written)
        elif isinstance(s, ir.EitherS):
            for block in s.branches:
                if _taken(block, wrote, written) is True:
                    out += _guards(block, wrote, written)
        elif isinstance(s, ir.IfS):
            for cond, block in s.branches:
                taken = _taken(block, wrote, written)
                if taken is None:
                    break
                out.append((cond, taken))
                if taken:
                    out += _guards(block, wrote, written)
                    break
            else:
                out += _guards(s.orelse, wrote, written)
    return out


def _taken(block: tuple, wrote: tuple, written: list[Span]) -> bool | None:
    """Whether the path ran `block`: True when one of its assignments wrote a value the step kept,
    False when one of them assigns a variable the path never wrote, None when the assignments do
    not tell."""
    if any(_within(w, t.span) for w in written for t in block):
        return True
    if any(wrote[a.slot] == 0 for a in _assignments(block)):
        return False
    return None


def _assignments(block: tuple):
    for s in block:
        if isinstance(s, ir.AssignS):
            yield s
        elif isinstance(s, ir.WithS):
            yield from _assignments(s.body)
        elif isinstance(s, ir.IfS):
            for _, b in s.branches:
                yield from _assignments(b)
            yield from _assignments(s.orelse)
        elif isinstance(s, ir.EitherS):
            for b in s.branches:
                yield from _assignments(b)


def _within(inner: Span, outer: Span) -> bool:
    return inner.file == outer.file and (outer.line, outer.column) <= (inner.line, inner.column) \
        and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)


def _disabled(model: Model, explainer: Explainer, source_of: SourceOf, state: tuple) -> list[Disabled]:
    """For each action, the guards that are false in `state` (the first false one of each path)."""
    out = []
    for a, info in enumerate(model.action_info):
        try:
            failed, _, _ = explainer.paths(a, state)
        except EVAL_FAILURES:
            failed = ()
        spans = dict.fromkeys(explainer.guard(k)[1] for k in failed)
        out.append(Disabled(info.name, tuple(_place(s, source_of) for s in spans)))
    return out


def _check_place(model: Model, violation: Violation, source_of: SourceOf) -> Place | None:
    spec = model.ir
    for items in (spec.invariants, spec.properties, spec.steps, spec.reachables):
        for item in items:
            if item.name == violation.name:
                place = _place(item.span, source_of)
                whole = property_source(model, source_of(item.span.file), item.name)  # the headline's quote
                return Place(place.span, whole or place.text)
    return None


def _place(span: Span, source_of: SourceOf) -> Place:
    """The span and its text: the lines it covers, each stripped, joined by one space (a
    declaration: its first line and the indented body lines under it, as the headline quotes it)."""
    source = source_of(span.file)
    if source is None:
        return Place(span, None)
    lines = source.text.splitlines()
    if not 0 < span.line <= len(lines):
        return Place(span, None)
    first = lines[span.line - 1]
    if span.end_line == span.line:
        return Place(span, first[span.column - 1:span.end_column - 1].strip() or first.strip())
    parts = [first[span.column - 1:].strip()]
    parts += [line.strip() for line in lines[span.line:span.end_line]]
    if span.end_line <= len(lines):
        parts[-1] = lines[span.end_line - 1][:span.end_column - 1].strip()
    return Place(span, " ".join(p.split(" #")[0].strip() for p in parts if p.strip()))


# ---------------------------------------------------------------- JSON and text

def explain_json(model: Model, x: Explanation) -> dict:
    """The `explanation` of `tlacheck explain --json` (the schema's `explanation`)."""
    v = x.violation
    return {
        "kind": v.kind.value,
        "name": v.name,
        "message": v.message,
        "check": None if x.check is None else x.check.json(),
        "steps": [_step_json(model, s) for s in x.steps],
        "loop_index": v.trace.loop_index,
        "closing": None if x.closing is None else _step_json(model, x.closing),
        "disabled": [{"action": d.action, "guards": [g.json() for g in d.guards]} for d in x.disabled],
    }


def _step_json(model: Model, s: ExplainedStep) -> dict:
    return {"state": s.number or None,
                 "action": None if s.action is None else model.action_info[s.action].name,
                 "args": {} if s.action is None else model.args_json(s.action, s.args),
                 "file": None if s.at is None else s.at.file,
                 "line": None if s.at is None else s.at.line,
                 "guards": [g.json() for g in s.guards],
                 "changes": [{"change": diff.change_json(c.change),
                              "written_at": None if c.written_at is None else c.written_at.json()}
                             for c in s.changes]}
    return out


def format_explanation(model: Model, x: Explanation) -> str:
    """The text of `tlacheck explain`: the check, then one block per state."""
    v = x.violation
    n = len(v.trace.steps) - 1
    kind = _CHECK_WORDS.get(v.kind, v.kind.noun)
    head = {Check.DEADLOCK: "Deadlock", Check.ERROR: f"Evaluation error {v.name}"}.get(v.kind, f"The {kind} {v.name} is violated")
    lines = [f"{head} after {n} step{'s' if n != 1 else ''}."]
    if x.check is not None:
        lines.append(f"  {x.check.text or v.name}    ({x.check.span.file}:{x.check.span.line})")
    if v.message:
        lines.append(f"  {v.message}")
    lines.append("")
    for s in x.steps:
        lines += _step_lines(model, s, f"State {s.number}: ")
    if x.closing is not None:
        lines += _step_lines(model, x.closing, f"Back to state {v.trace.loop_index + 1}: ")
    elif v.trace.loop_index is not None:
        lines.append(f"The behaviour stays in state {n + 1} forever (it stutters).")
        lines.append("")
    if x.disabled:
        lines.append(f"No action is enabled in state {n + 1}:")
        width = max(len(d.action) for d in x.disabled)
        for d in x.disabled:
            why = "; ".join(f"{g.text}  (line {g.span.line})" for g in d.guards) or "no successor"
            lines.append(f"  {d.action:<{width}}  {why}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _step_lines(model: Model, s: ExplainedStep, heading: str) -> list[str]:
    if s.action is None:
        out = [heading + "initial state"]
        rows = model.state_rows(s.state)
        width = max((len(label) for _, label, _ in rows), default=0)
        out += [f"    {label:<{width}} = {text}" for _, label, text in rows]
        return out + [""]
    where = f"    ({s.at.file}:{s.at.line})" if s.at is not None else ""
    out = [f"{heading}{model.step_label(s.action, s.args)}{where}"]
    for g in s.guards:
        text = {"require": g.place.text, "label": f"at label {g.place.text}",
                "if": f"if {g.place.text}: {'taken' if g.holds else 'not taken'}"}[g.kind]
        out.append(f"    {text}    (line {g.place.span.line})")
    for c in s.changes:
        text: list[str] = []
        change_lines(text, c.change, 0)
        if c.written_at is not None:
            text[-1] += f"    (line {c.written_at.span.line})"
        out += text
    if not s.changes:
        out.append("    (no variable changed)")
    return out + [""]
