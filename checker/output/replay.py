"""What a replay found (`tlacheck replay`; conform/replayer.py replays), and a cause quoted.

Numbering, as in every output (docs/cli.md): the states of the trace are numbered from 1, the
initial state being state 1 (TLC's numbers); a step is named by the state it leads to, so the
k-th step is "state k+1" and a report reads "state 8: EnqueueStopNotification reaches a
different state". A lasso's step back to the loop state is "the step back to state k", numbered
one past the last state (TLC's "Back to state k").

`recorded_differences` says where a state the spec reaches differs from a recorded one, entry by
entry, in the words of both replay and conform (output/diff.py); `quote_cause` shows the place
responsible (a guard, an assignment, a declaration) with its source line.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tlacheck.compile.model import Model
from tlacheck.core.result import Trace
from tlacheck.core.source import Span
from tlacheck.output import diff


class Outcome(Enum):
    REPLAYS = "replays"
    INITIAL_DIFFERS = "initial_state_differs"
    UNKNOWN_ACTION = "unknown_action"
    BAD_ARGUMENTS = "bad_arguments"
    DISABLED = "disabled"
    DIVERGES = "diverges"
    ERROR = "error"


@dataclass(frozen=True)
class Cause:
    """A place in the spec responsible for the failure: a guard, an assignment, a declaration."""

    message: str
    span: Span | None


@dataclass(frozen=True)
class ReplayResult:
    outcome: Outcome
    total_steps: int  # steps after the initial state (plus one for a lasso's closing transition)
    replayed: int  # steps that replayed before the failing one
    message: str
    state: int | None = None  # the state the failing step leads to: 1 the initial state, k+1 the k-th step
    action: str | None = None
    causes: tuple[Cause, ...] = ()
    # (variable, path, recorded, replayed), entry by entry (output/diff.py): ("pc", "pc[c1]", "Waiting",
    # "Ready"); an element only one side has is "(absent)" on the other
    differences: tuple[tuple[str, str, str, str], ...] = ()
    still_violates: bool | None = None  # the recorded invariant on the last replayed state
    notes: tuple[str, ...] = ()
    trace: Trace | None = None  # the replayed trace, in this model's states, when it replays

    @property
    def replays(self) -> bool:
        return self.outcome == Outcome.REPLAYS


def recorded_differences(model: Model, state: tuple, recorded: tuple) -> list[tuple[str, str, str, str]]:
    """Where a state the spec reaches differs from what was recorded ((slot, value) pairs), entry
    by entry (output/diff.py): (variable, path, recorded, reached); the recorded values are
    diffed against the state's, so an element only the recorded state has is "added", and shown
    as "(absent)" on the other side."""
    slots = [i for i, _ in recorded]
    reached = tuple(state[i] for i in slots)
    saved = tuple(v for _, v in recorded)
    out = []
    for c in diff.changes(reached, saved, [model.var_names[i] for i in slots], [model.var_types[i] for i in slots]):
        if c.op is diff.Op.CHANGED:
            out.append((c.variable, c.path, c.new_text, c.old_text))
        elif c.op is diff.Op.ADDED:
            out.append((c.variable, c.path, c.element_text, "(absent)"))
        else:
            out.append((c.variable, c.path, "(absent)", c.element_text))
    return out


def quote_cause(cause: Cause, sources: dict) -> list[str]:
    """`file:line:col: message`, then the source line (from `sources`, by file name) with a caret
    under the place."""
    span = cause.span
    if span is None:
        return [cause.message]
    out = [f"{span}: {cause.message}"]
    src = sources.get(span.file)
    text = src.line_text(span.line) if src else ""
    if text:
        gutter = f"{span.line:>4} | "
        width = span.end_column - span.column if span.end_line == span.line and span.end_column > span.column else 1
        out.append(gutter + text.rstrip())
        out.append(" " * (len(gutter) + span.column - 1) + "^" * max(1, width))
    return out
