"""`tlacheck conform`: the verdicts on recorded runs of a real system, and the reports.

One run is one log (NDJSON or ITF, output/logs.py), or a folder holding one log per process
(merged by logical clock or timestamp). Each run gets one verdict:

- conforms: some behaviour of the spec matches every event (exit 0);
- violation: behaviours match the whole run, and every one of them fails a check along the way
  (an invariant, the safety part of a temporal property, a step property, a refinement): the real
  system showed the bug (exit 12, with the trace);
- does not conform: no behaviour matches; the report says where and why (exit 14);
- malformed: the log cannot be read (exit 2), error: the spec failed to evaluate (exit 4),
  incomplete: a limit stopped the run (exit 5).

Several runs: one verdict each, a summary, coverage across them (which actions and variables the
matched behaviours exercised, which actions none did), and the worst verdict's exit code (in the
order of `Conformance`). Matching is the one matcher's (engine/matcher.py), which conform/runs.py
drives over the events the logs give (output/logs.py); this module holds what it finds (a
`Report` of `RunReport`s) and writes the reports: a mismatch is explained per candidate and per
action with the replay's words (the first false `require`, the assignment that wrote another
value, the differences entry by entry: output/replay.py).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from enum import Enum

from tlacheck import __version__
from tlacheck.compile.model import Model
from tlacheck.core.errors import Diagnostic
from tlacheck.core.events import Event
from tlacheck.core.result import Check, Trace, Violation
from tlacheck.output import artefacts, html, render
from tlacheck.output.replay import Cause, quote_cause
from tlacheck.output.report import format_trace, header, trace_json


# A run whose frontier holds this many candidate states per event on average is "thin": the log
# says too little to tell the spec's behaviours apart.
THIN = 10
FRONTIER_SHOWN = 20  # candidate states listed in a report
PREFIX_SHOWN = 50  # states of a matched prefix kept in a report (its end)
EXPLAINED = 10  # candidates whose attempts are explained


class Conformance(Enum):
    """A run's verdict, in the order of severity (the worst of a batch gives the exit code)."""

    CONFORMS = "conforms"
    VIOLATION = "violation"
    DOES_NOT_CONFORM = "does_not_conform"
    INCOMPLETE = "incomplete"
    ERROR = "error"
    MALFORMED = "malformed"

    @property
    def exit_code(self) -> int:
        return _EXIT[self]

    @property
    def severity(self) -> int:
        return list(Conformance).index(self)


_EXIT = {Conformance.CONFORMS: 0, Conformance.VIOLATION: 12, Conformance.DOES_NOT_CONFORM: 14,
         Conformance.INCOMPLETE: 5, Conformance.ERROR: 4, Conformance.MALFORMED: 2}


@dataclass(frozen=True)
class Settings:
    """How runs are matched: unlogged steps, merging, the checks (the names of the invariants and
    properties checked along the runs; None: all), the limits."""

    max_gap: int = 0
    max_lazy: int = 1
    merge: str = "clock"  # a folder of process logs: "clock" or "time"
    tolerance: float = 0.0  # with merge "time": events closer than this are concurrent
    invariants: tuple[str, ...] | None = None
    properties: tuple[str, ...] | None = None
    time_limit: float | None = None
    memory_limit_mb: int | None = None
    stop: object = None


@dataclass(frozen=True)
class Explained:
    """Why one action, tried from one candidate, does not produce one event."""

    event: int  # which of the Mismatch's events
    candidate: int  # 0-based, in the frontier
    action: str
    step: int  # which step of a composed event (0: the first or only one)
    outcome: str  # "disabled", "differs", "no_instance"
    causes: tuple[Cause, ...] = ()
    differences: tuple[tuple[str, str, str, str], ...] = ()  # (variable, path, recorded, reached)


@dataclass(frozen=True)
class Mismatch:
    """The events no candidate takes (one per stream tried), the candidates before them (the
    first FRONTIER_SHOWN of `frontier_size`), and why not, per candidate and action."""

    events: tuple[Event, ...]
    frontier: tuple[tuple, ...]
    frontier_size: int
    explained: tuple[Explained, ...]
    initial: bool = False  # the recorded initial state is none of the spec's


@dataclass
class Counts:
    """Coverage of the actions by matched behaviours: per action, the steps that took it (those
    that matched a logged event, those the search inferred: gaps, lazy steps), and per variable
    how many of them changed it."""

    logged: list[int]
    unlogged: list[int]
    variables: list[dict[str, int]]

    @classmethod
    def empty(cls, model: Model) -> "Counts":
        n = len(model.actions)
        return cls([0] * n, [0] * n, [{} for _ in range(n)])

    def add(self, model: Model, walk) -> None:
        """Count the steps of a behaviour, given as (Step, event) pairs (Matcher.walk)."""
        prev = None
        for step, e in walk:
            a = step.action
            if prev is not None:
                if e >= 0:
                    self.logged[a] += 1
                else:
                    self.unlogged[a] += 1
                for slot, (x, y) in enumerate(zip(prev, step.state)):
                    if x != y:
                        name = model.var_names[slot]
                        self.variables[a][name] = self.variables[a].get(name, 0) + 1
            prev = step.state

    def merge(self, other: "Counts") -> None:
        for a in range(len(self.logged)):
            self.logged[a] += other.logged[a]
            self.unlogged[a] += other.unlogged[a]
            for name, k in other.variables[a].items():
                self.variables[a][name] = self.variables[a].get(name, 0) + k


@dataclass
class RunReport:
    """The verdict on one run and what supports it."""

    name: str
    files: tuple[str, ...]
    verdict: Conformance
    events: int = 0  # events matched
    steps: int = 0  # spec steps of the behaviour reported (the matched one, or the matched prefix)
    # Its states shown: up to the violation; else the last PREFIX_SHOWN (of the behaviour that
    # matches, or of the prefix that did). `trace_start`: the number of the first (0: the initial state).
    trace: Trace | None = None
    trace_start: int = 0
    labels: tuple[str, ...] = ()  # per state of `trace`: the log line it matched ("" for unlogged steps)
    violation: Violation | None = None
    mismatch: Mismatch | None = None
    error: Diagnostic | None = None
    error_text: str | None = None  # a LogError rendered, with its line
    stop_reason: str | None = None
    mean: float = 0.0
    largest: int = 0
    unlogged: int = 0
    warnings: tuple[str, ...] = ()
    counts: Counts | None = None  # coverage of this run (runs that conform, or show a violation)
    refinements: tuple[str, ...] = ()  # the spec's `refines` names (a violated one is named so)


@dataclass
class Report:
    """`tlacheck conform` on a batch of runs."""

    model: Model
    spec_path: str
    variant: str
    defines: dict
    settings: Settings
    runs: list[RunReport] = field(default_factory=list)
    notes: tuple[str, ...] = ()
    sources: dict = field(default_factory=dict)  # the spec files by name (to quote their lines)

    def text(self, full: bool = False) -> str:
        return format_report(self, full)

    def json(self) -> dict:
        return report_json(self)

    @property
    def verdict(self) -> Conformance:
        return max((r.verdict for r in self.runs), key=lambda v: v.severity, default=Conformance.CONFORMS)

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code

    def coverage(self) -> Counts:
        total = Counts.empty(self.model)
        for r in self.runs:
            if r.counts is not None:
                total.merge(r.counts)
        return total


def check_word(kind: Check, name: str | None = None, refinements: tuple = ()) -> str:
    """What failed: "invariant", "property", "step property", or "refinement" (a `refines`)."""
    if name is not None and name in refinements:
        return Check.REFINEMENT.noun
    return kind.noun


# ---------------------------------------------------------------- text

def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def format_report(report: Report, full: bool = False) -> str:
    """The text report: one section per run, coverage across them, the summary."""
    model = report.model
    s = report.settings
    opts = [f"--max-gap {s.max_gap}"] + ([f"--max-lazy {s.max_lazy}"] if model.conform and model.conform.lazy else [])
    out = [f"tlacheck {__version__}: conform {report.spec_path} (spec {model.name}, variant {report.variant}), "
           f"{_plural(len(report.runs), 'run')}, {', '.join(opts)}"]
    out += [f"note: {n}" for n in report.notes]
    for run in report.runs:
        out.append("")
        out += run_lines(model, run, report.sources, full)
    coverage = format_coverage(model, report)
    if coverage:
        out.append("")
        out += coverage
    out.append("")
    out.append(summary_line(report))
    return "\n".join(out) + "\n"


_SUMMARY = {Conformance.CONFORMS: ("conforms", "conform"),
            Conformance.VIOLATION: ("conforms but violates a check", "conform but violate a check"),
            Conformance.DOES_NOT_CONFORM: ("does not conform", "do not conform"),
            Conformance.MALFORMED: ("cannot be read", "cannot be read"),
            Conformance.ERROR: ("failed to evaluate", "failed to evaluate"),
            Conformance.INCOMPLETE: ("was stopped at a limit", "were stopped at a limit")}


def summary_line(report: Report) -> str:
    """`Summary: 3 runs: 2 conform, 1 does not conform. Exit code 14.` (the verdicts that occur)."""
    parts = []
    for v in Conformance:
        k = sum(1 for r in report.runs if r.verdict is v)
        if k:
            parts.append(f"{k} {_SUMMARY[v][0 if k == 1 else 1]}")
    return f"Summary: {_plural(len(report.runs), 'run')}: {', '.join(parts) or 'none'}. Exit code {report.exit_code}."


def headline(run: RunReport) -> str:
    v = run.verdict
    if v is Conformance.CONFORMS:
        return f"{run.name}: conforms"
    if v is Conformance.VIOLATION:
        viol = run.violation
        word = check_word(viol.kind, viol.name, run.refinements)
        why = f": {viol.message}" if word == "refinement" and viol.message else ""
        return f"{run.name}: conforms, but {word} {viol.name} is violated along it{why}"
    if v is Conformance.DOES_NOT_CONFORM:
        m = run.mismatch
        if m.initial:
            return f"{run.name}: does not conform: the recorded initial state is not an initial state of the spec"
        where = " or ".join(str(e.origin) for e in m.events if e.origin is not None)
        return f"{run.name}: does not conform at {where}"
    if v is Conformance.MALFORMED:
        return f"{run.name}: cannot be read"
    if v is Conformance.ERROR:
        return f"{run.name}: the spec failed to evaluate"
    return f"{run.name}: stopped ({run.stop_reason.replace('_', ' ') if run.stop_reason else 'a limit'})"


def run_lines(model: Model, run: RunReport, sources: dict, full: bool = False) -> list[str]:
    out = [headline(run)]
    if run.verdict in (Conformance.CONFORMS, Conformance.VIOLATION):
        out.append(f"  {_plural(run.events, 'event')} matched by {_plural(run.steps, 'spec step')}"
                   + (f" ({run.unlogged:,} unlogged)" if run.unlogged else "")
                   + f"; {run.mean:,.1f} candidate states per event (at most {run.largest:,})")
    out += [f"  warning: {w}" for w in run.warnings]
    if run.error_text is not None:  # the whole diagnostic, with the line and a caret, goes to stderr
        out.append("  " + run.error_text.split("\n", 1)[0])
    elif run.error is not None:
        out.append(f"  {run.error.render()}".replace("\n", "\n  "))
    if run.violation is not None:
        word = check_word(run.violation.kind, run.violation.name, run.refinements)
        out.append(f"  The {word} fails in state {len(run.trace.steps)} of the matched "
                   "behaviour:")
        out.append("")
        out += ["  " + line if line else "" for line in format_trace(model, run.trace, full, run.labels).split("\n")]
    if run.mismatch is not None:
        out += mismatch_lines(model, run, sources)
    if run.verdict is Conformance.ERROR and run.trace is not None:
        out.append("  The error occurred in the last state of this behaviour:")
        out.append("")
        out += ["  " + line if line else "" for line in format_trace(model, run.trace, full, run.labels).split("\n")]
    out = [line.rstrip() for line in out]
    while out and not out[-1]:
        out.pop()
    return out


def mismatch_lines(model: Model, run: RunReport, sources: dict) -> list[str]:
    m = run.mismatch
    out = []
    for e in m.events:
        if e.origin is not None:
            out.append(f"  {e.origin.line:>5} | {e.origin.text}")
    if not m.initial:
        out.append(f"  Matched before it: {_plural(run.events, 'event')} of the run, by "
                   f"{_plural(run.steps, 'spec step')}.")
        out.append(f"  The frontier before it: {_plural(m.frontier_size, 'candidate state')}"
                   + (f" (the first {len(m.frontier)} shown)" if m.frontier_size > len(m.frontier) else "") + ":")
        for k, s in enumerate(m.frontier):
            out.append(f"    candidate {k + 1}:")
            rows = model.state_rows(s)
            width = max((len(label) for _, label, _ in rows), default=0)
            out += [f"      {label:<{width}} = {text}" for _, label, text in rows]
    out.append("  Why no candidate takes it:" if not m.initial else "  Why not:")
    for x in m.explained:
        who = f"candidate {x.candidate + 1}, " if not m.initial else f"initial state {x.candidate + 1}: "
        step = f" (step {x.step + 1} of the event)" if x.step else ""
        what = {"disabled": "is disabled", "differs": "reaches a different state",
                "no_instance": "has no instance with the event's arguments"}[x.outcome]
        if m.initial:
            out.append(f"    {who}differs from the recorded one")
        else:
            out.append(f"    {who}{x.action}{step} {what}")
        for c in x.causes:
            out += ["      " + line for line in quote_cause(c, sources)]
        if x.differences:
            rows = [(p, a, b) for _, p, a, b in x.differences]
            width = max(len(p) for p, _, _ in rows + [("variable", "", "")])
            rec = max(len(a) for _, a, _ in rows + [("", "recorded", "")])
            out.append(f"      {'variable':<{width}}  {'recorded':<{rec}}  spec")
            out += [f"      {p:<{width}}  {a:<{rec}}  {b}" for p, a, b in rows]
    if run.trace is not None and not m.initial:
        shown = run.trace.steps[-5:]
        skip = len(run.trace.steps) - len(shown)
        first = run.trace_start + skip
        out.append(f"  The matched prefix{' ends' if first else ''}:")
        for i, step in enumerate(shown):
            label = run.labels[skip + i]
            what = "initial state" if step.action is None else model.step_label(step.action, step.args)
            out.append(f"    state {first + i + 1}: {what}" + (f"    {label}" if label else ""))
    return out


def format_coverage(model: Model, report: Report) -> list[str]:
    counted = [r for r in report.runs if r.counts is not None]
    if not counted or not model.action_info:
        return []
    cov = report.coverage()
    width = max(len("action"), *(len(a.shown) for a in model.action_info))
    which = "the run matched to its end (steps of the behaviour that matches it)" if len(counted) == 1 else \
        f"the {len(counted):,} runs matched to their end (steps of the behaviours that match them)"
    out = [f"Coverage across {which}:",
           f"  {'action':<{width}}  {'logged':>7}  {'unlogged':>8}  variables changed"]
    for a, info in enumerate(model.action_info):
        changed = ", ".join(f"{n} {k}" for n, k in sorted(cov.variables[a].items(), key=lambda x: (-x[1], x[0])))
        out.append(f"  {info.shown:<{width}}  {cov.logged[a]:>7,}  {cov.unlogged[a]:>8,}  {changed}".rstrip())
    never = [info.shown for a, info in enumerate(model.action_info) if cov.logged[a] + cov.unlogged[a] == 0]
    if never:
        out.append(f"  never exercised: {', '.join(never)}")
    return out


# ---------------------------------------------------------------- JSON

def report_json(report: Report) -> dict:
    """The `--json` object (docs/conform.md). Deterministic: no time is recorded."""
    model = report.model
    s = report.settings
    cov = report.coverage()
    counted = any(r.counts is not None for r in report.runs)
    return {
        **header("conform"),
        "spec": model.name, "file": report.spec_path, "variant": report.variant,
        "defines": dict(sorted(report.defines.items())),
        "options": {"max_gap": s.max_gap, "max_lazy": s.max_lazy, "merge": s.merge, "tolerance": s.tolerance},
        "verdict": report.verdict.value, "exit_code": report.exit_code,
        "runs": [run_json(model, r) for r in report.runs],
        "coverage": None if not counted else {
            "actions": {info.name: {"logged": cov.logged[a], "unlogged": cov.unlogged[a],
                                    "variables": dict(sorted(cov.variables[a].items()))}
                        for a, info in enumerate(model.action_info)},
            "never_exercised": [info.name for a, info in enumerate(model.action_info)
                                if cov.logged[a] + cov.unlogged[a] == 0],
        },
        "notes": list(report.notes),
        "summary": {v.value: sum(1 for r in report.runs if r.verdict is v) for v in Conformance},
    }


def _cause_json(c: Cause) -> dict:
    return {"message": c.message, "file": c.span.file if c.span else None, "line": c.span.line if c.span else None,
            "column": c.span.column if c.span else None}


def _event_json(e: Event) -> dict:
    o = e.origin
    return {"file": o.file if o else None, "line": None if o is None or o.itf else o.line,
            "state_index": o.line if o is not None and o.itf else None, "text": o.text if o else None}


def run_json(model: Model, run: RunReport) -> dict:
    data = {
        "run": run.name, "files": list(run.files), "verdict": run.verdict.value, "exit_code": run.verdict.exit_code,
        "events_matched": run.events,
        "steps": run.steps,
        "unlogged_steps": run.unlogged,
        "candidates": {"mean": round(run.mean, 3), "max": run.largest},
        "violation": None, "mismatch": None, "error": None, "stop_reason": run.stop_reason,
        "warnings": list(run.warnings),
        "trace": trace_json(model, run.trace) if run.trace is not None else None,
        "trace_start": run.trace_start if run.trace is not None else None,
        "trace_log_lines": list(run.labels) if run.trace is not None else None,
    }
    if run.violation is not None:
        data["violation"] = {"kind": run.violation.kind.value, "name": run.violation.name,
                             "message": run.violation.message, "state": len(run.trace.steps)}
    if run.error is not None:
        data["error"] = run.error.to_json()
    m = run.mismatch
    if m is not None:
        data["mismatch"] = {
            "initial": m.initial,
            "events": [_event_json(e) for e in m.events],
            "frontier_size": m.frontier_size,
            "frontier": [model.state_json(s) for s in m.frontier],
            "explanations": [{"event": x.event, "candidate": x.candidate, "action": x.action, "step": x.step,
                              "outcome": x.outcome, "causes": [_cause_json(c) for c in x.causes],
                              "differences": [{"variable": n, "path": p, "recorded": a, "spec": b}
                                              for n, p, a, b in x.differences]}
                             for x in m.explained],
        }
    return data


def dumps(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"




# ---------------------------------------------------------------- HTML

def html_report(report: Report) -> str:
    """`conform --html`: the runs, each diagnosis, each behaviour in a viewer beside its log lines
    and the spec (output/html.py), the coverage. Deterministic, offline, as every report."""
    model = report.model
    source = report.sources.get(model.file)
    wanted = {loc for run in report.runs for loc in map(_location, run.labels) if loc is not None}
    texts = _log_lines(wanted)
    runs, docs = [], []
    for run in report.runs:
        viewer = None
        if run.trace is not None and run.trace_start == 0:
            viewer = len(docs)
            docs.append(_trace_doc(model, source, run, texts, report))
        runs.append(html.ConformRun(
            name=run.name, verdict=headline(run).removeprefix(f"{run.name}: "), ok=run.verdict is Conformance.CONFORMS,
            facts=tuple((w, v) for w, v in (("events matched", f"{run.events:,}"), ("spec steps", f"{run.steps:,}"),
                                            ("candidate states per event", f"{run.mean:,.1f}"))),
            viewer=viewer, **_mismatch_html(model, run, report.sources),
            error=run.error_text if run.error_text is not None else run.error.render() if run.error else None,
            notes=run.warnings + ((f"the behaviour's last {len(run.trace.steps)} states are shown in the table "
                                   "below (the earlier ones are left out)",) if run.trace is not None and
                                  run.trace_start else ())))
        if run.trace is not None and run.trace_start:
            runs[-1] = dataclasses.replace(runs[-1], notes=runs[-1].notes + tuple(_prefix_lines(model, run)))
    title = f"tlacheck conform: {report.spec_path} (spec {model.name}, variant {report.variant})"
    page = html.conform_report(title, summary_line(report), runs, docs, _coverage_rows(model, report), report.notes)
    return _published(page, (report.spec_path, *(f for run in report.runs for f in (run.name, *run.files))))


def _published(page: str, paths) -> str:
    """`page` with each of `paths` (the spec's, the logs') named as `artefacts.public_path` says,
    as `check --html` names its spec: no folder above the working directory (a home folder's
    name) in a report meant to be shared. The page names a file in many places (title, facts,
    verdicts, log lines, embedded JSON); it is written once and published here, in one place.
    Longest first, so a path is never rewritten inside a longer one."""
    for path in sorted({p for p in paths if p}, key=len, reverse=True):
        shown = artefacts.public_path(path)
        if shown != path:
            for old, new in {(path, shown), (html.escape_text(path), html.escape_text(shown)),
                             (html.json_text(path), html.json_text(shown))}:
                page = page.replace(old, new)
    return page


def _location(label: str) -> tuple[str, int] | None:
    """(file, line) of a label `log FILE:LINE`."""
    if not label.startswith("log "):
        return None
    path, _, line = label[4:].rpartition(":")
    return (path, int(line)) if line.isdigit() else None


def _log_lines(wanted: set) -> dict:
    """The text of each (file, line) wanted, read back from the logs ("" when it cannot be)."""
    out: dict = {}
    for path in sorted({p for p, _ in wanted}):
        lines = {n for p, n in wanted if p == path}
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for number, text in enumerate(fh, start=1):
                    if number in lines:
                        out[(path, number)] = text.rstrip("\r\n")
                    if number >= max(lines):
                        break
        except OSError:
            pass
    return out


def _trace_doc(model: Model, source, run: RunReport, texts: dict, report: Report) -> html.TraceDoc:
    n = len(run.trace.steps)
    log = tuple(f"{lab[4:]}: {texts.get(loc, '')}" if (loc := _location(lab)) else lab for lab in run.labels)
    notes: tuple = ()
    if run.violation is not None:
        violation = run.violation
        head = artefacts.headline(model, violation, source)
    else:
        violation = Violation(Check.TRACE, None, run.trace)
        if run.mismatch is not None:
            m = run.mismatch
            head = render.Headline(f"{run.name}: the prefix that matched ({run.steps:,} spec steps)",
                                   "the next event matches no step", None)
            notes = ((n, f"The frontier: {_plural(m.frontier_size, 'candidate state')} (this one first); the "
                             f"next event, {' or '.join(str(e.origin) for e in m.events if e.origin)}, matches none "
                             "of them: see above."),)
        elif run.verdict is Conformance.ERROR:
            head = render.Headline(f"{run.name}: the behaviour to the state the spec failed to evaluate in",
                                   "evaluation error", None)
        else:
            head = render.Headline(f"{run.name}: the behaviour that matches it ({run.steps:,} spec steps)",
                                   "the end of the run", None)
    facts = (("spec", report.spec_path), ("variant", report.variant), ("run", run.name))
    return html.TraceDoc(model, violation, source, head, facts, (("json", run_json(model, run)),), notes, log)


def _mismatch_html(model: Model, run: RunReport, sources: dict) -> dict:
    m = run.mismatch
    if m is None:
        return {}
    frontier = tuple((f"candidate {k + 1}", tuple((label, text) for _, label, text in model.state_rows(s)))
                     for k, s in enumerate(m.frontier))
    explanations = []
    for x in m.explained:
        what = {"disabled": "is disabled", "differs": "reaches a different state",
                "no_instance": "has no instance with the event's arguments"}[x.outcome]
        step = f" (step {x.step + 1} of the event)" if x.step else ""
        heading = (f"initial state {x.candidate + 1} differs from the recorded one" if m.initial else
                   f"candidate {x.candidate + 1}: {x.action}{step} {what}")
        causes = tuple((lines[0], "\n".join(lines[1:2])) for lines in (quote_cause(c, sources) for c in x.causes))
        explanations.append((heading, causes, tuple((p, a, b) for _, p, a, b in x.differences)))
    return {"events": tuple(f"{e.origin}: {e.origin.text}" for e in m.events if e.origin is not None),
            "frontier": () if m.initial else frontier, "frontier_size": m.frontier_size,
            "explanations": tuple(explanations)}


def _prefix_lines(model: Model, run: RunReport) -> list[str]:
    """A long prefix's last states, one line each (the viewer shows prefixes from the initial state)."""
    out = []
    for i, step in enumerate(run.trace.steps):
        what = "initial state" if step.action is None else model.step_label(step.action, step.args)
        out.append(f"state {run.trace_start + i + 1}: {what}    {run.labels[i]}".rstrip())
    return out


def _coverage_rows(model: Model, report: Report) -> tuple[tuple[str, ...], ...]:
    if not any(r.counts is not None for r in report.runs):
        return ()
    cov = report.coverage()
    rows = [("action", "logged", "unlogged", "variables changed")]
    for a, info in enumerate(model.action_info):
        changed = ", ".join(f"{n} {k}" for n, k in sorted(cov.variables[a].items(), key=lambda x: (-x[1], x[0])))
        rows.append((info.shown, f"{cov.logged[a]:,}", f"{cov.unlogged[a]:,}",
                     changed or ("never exercised" if cov.logged[a] + cov.unlogged[a] == 0 else "")))
    return tuple(rows)
