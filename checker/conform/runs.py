"""`tlacheck conform` run: recorded runs of a real system matched against a spec by the one
matcher (engine/matcher.py), each given its verdict (output/conformance.py: the verdicts, the
Report and how it is written).

A run is one log (NDJSON or ITF, read by output/logs.py) or a folder of one log per process,
merged by logical clock or timestamp. `check_runs` decides a batch; `RunMatch` one run, from its
files or event by event (`begin`, `feed`, `conclude`: the online monitor, conform/monitor.py).
A mismatch is explained per candidate and per action with the replay's words
(conform/replayer.py: the first false `require`, the assignment that wrote another value).
"""

from __future__ import annotations

import itertools
import os
from array import array

from tlacheck.compile.model import Model
from tlacheck.conform.replayer import assignment_causes, guard_cause
from tlacheck.core.events import GAP, INITIAL, LAZY, Event
from tlacheck.core.result import Check, Trace, Violation
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.matcher import Explainer, MatchFault, Matcher, MatchOptions, MatchStopped, Node
from tlacheck.engine.options import Options
from tlacheck.output.conformance import (EXPLAINED, FRONTIER_SHOWN, PREFIX_SHOWN, THIN, Conformance, Counts, Explained,
                                         Mismatch, Report, RunReport, Settings, check_word)
from tlacheck.output.logs import LogError, Mapping, ordered, precedence, process_files, read_log
from tlacheck.output.replay import Cause, recorded_differences


def match_options(settings: Settings, model: Model) -> MatchOptions:
    """The matcher's options for `settings` and the spec's `conform:` section (its silent and lazy actions)."""
    section = model.conform
    return MatchOptions(max_gap=settings.max_gap, max_lazy=settings.max_lazy,
                        silent=section.silent if section is not None else None,
                        lazy=section.lazy if section is not None else (),
                        checks=Options(invariants=settings.invariants, properties=settings.properties),
                        time_limit=settings.time_limit, memory_limit_mb=settings.memory_limit_mb, stop=settings.stop)


def spec_notes(model: Model, settings: Settings) -> tuple[str, ...]:
    """What conformance does not check of this spec."""
    notes = []
    live = [p.name for p in model.properties if p.has_liveness and
            (settings.properties is None or p.name in settings.properties)]
    if live:
        notes.append(f"the liveness part of {', '.join(live)} is not checked: a finite run cannot refute "
                     "`eventually` or `leads_to`")
    if model.constraints:
        notes.append(f"state constraints ({', '.join(n for n, _ in model.constraints)}) do not restrict what a run "
                     "may reach")
    return tuple(notes)


def check_runs(model: Model, runs: list[str], settings: Settings, spec_path: str, variant: str = "base",
               defines: dict | None = None, sources: dict | None = None) -> Report:
    """Each run (a log file, or a folder of one log per process) against the model (`sources`:
    the spec files by name, for the report to quote)."""
    report = Report(model, spec_path, variant, dict(defines or {}), settings, notes=spec_notes(model, settings),
                    sources=dict(sources or {}))
    mapping = Mapping(model)
    for run in runs:
        report.runs.append(check_run(model, run, settings, mapping))
    return report


def check_run(model: Model, run: str, settings: Settings, mapping: Mapping | None = None,
              files: list[str] | None = None) -> RunReport:
    """One run: a log file, or a folder of logs, one per process (`files`: those logs, else the
    folder's or the file itself)."""
    mapping = mapping or Mapping(model)
    try:
        if files is None:
            files = process_files(run) if os.path.isdir(run) else [run]
    except LogError as exc:
        return RunReport(run, (run,), Conformance.MALFORMED, error=exc.diagnostic, error_text=exc.render())
    return RunMatch(model, run, tuple(files), settings, mapping).run()


class RunMatch:
    """One run matched: from its log files (`run`), or event by event (`begin`, `feed`, then
    `conclude`: the online monitor, conform/monitor.py)."""

    def __init__(self, model: Model, name: str, files: tuple[str, ...], settings: Settings, mapping: Mapping):
        self.model = model
        self.name = name
        self.files = files
        self.settings = settings
        self.mapping = mapping
        self.matcher = Matcher(model, match_options(settings, model))
        self.lines = [array("q") for _ in files]  # per process: the line of each of its events
        self.offsets = [0] * len(files)  # per process: 1 when its log starts with an initial state

    def run(self) -> RunReport:
        try:
            if len(self.files) == 1:
                done = self._single(read_log(self.files[0], self.mapping))
            else:
                done = self._merged()
        except (LogError, MatchFault, MatchStopped) as exc:
            return self.failed(exc)
        return self.conclude(done)

    def failed(self, exc: LogError | MatchFault | MatchStopped) -> RunReport:
        """The report of a run that could not be decided: a log that cannot be read, the spec
        failing to evaluate (with the behaviour to the state it failed in), a limit."""
        if isinstance(exc, LogError):
            return self._report(Conformance.MALFORMED, error=exc.diagnostic, error_text=exc.render())
        if isinstance(exc, MatchStopped):
            return self._report(Conformance.INCOMPLETE, stop_reason=exc.reason)
        report = self._report(Conformance.ERROR, error=exc.error.diagnostic())
        if exc.node is not None:
            self._describe(report, exc.node)
        return report

    def conclude(self, done: bool) -> RunReport:
        """The verdict after the last event (`done`), or after the event that matched nothing."""
        return self._matched() if done else self._mismatch()

    # ---------------------------------------------------------------- feeding
    def begin(self, initial: Event | None) -> bool:
        """Start from the spec's initial states, or those that agree with `initial`."""
        if initial is not None:
            self._seen(0, initial)
            self.offsets[0] = 1
        return self.matcher.start((initial,) if initial is not None else ())

    def feed(self, event: Event) -> bool:
        """Match the next event (False: no candidate takes it)."""
        if event.initial:
            raise _misplaced_initial(event)
        if not self.matcher.feed(event):
            return False
        self._seen(0, event)
        return True

    def _single(self, events) -> bool:
        first = next(events, None)
        initial = first if first is not None and first.initial else None
        if not self.begin(initial):
            return False
        rest = events if initial is not None or first is None else itertools.chain([first], events)
        return all(self.feed(e) for e in rest)

    def _seen(self, p: int, e: Event) -> None:
        self.lines[p].append(e.origin.line if e.origin is not None else 0)

    def _merged(self) -> bool:
        merge = self.settings.merge
        streams = [ordered(read_log(f, self.mapping), merge, f) for f in self.files]
        heads = []
        initial = []
        for p, s in enumerate(streams):
            first = next(s, None)
            if first is not None and first.initial:
                initial.append(first)
                self._seen(p, first)
                self.offsets[p] = 1
                heads.append(s)
            else:
                heads.append(itertools.chain([first], s) if first is not None else s)
        if not self.matcher.start(tuple(initial)):
            return False
        kinds: dict = {}

        def tagged(p: int, events):
            for e in events:
                if e.initial:
                    raise _misplaced_initial(e)
                kind = type(e.order)
                first = kinds.setdefault("kind", (kind, self.files[p]))
                if first[0] is not kind:
                    raise LogError("E506", f"the logs mix Lamport and vector clocks ({first[1]} has the other kind)",
                                   self.files[p], e.origin.line, e.origin.text)
                self._seen(p, e)
                yield e

        return self.matcher.run_merged([tagged(p, s) for p, s in enumerate(heads)],
                                       precedence(merge, self.settings.tolerance))

    # ---------------------------------------------------------------- verdicts
    def _report(self, verdict: Conformance, **more) -> RunReport:
        stats = self.matcher.stats
        return RunReport(self.name, self.files, verdict, events=stats.events, mean=stats.mean,
                         largest=stats.largest, **more)

    def _labels(self, events: tuple[int, ...]) -> tuple[str, ...]:
        """Per state of a behaviour: the log line its step matched (event e of a run of P logs is
        the (e // P)-th event of log e % P; the initial state's is the first initial line)."""
        n = len(self.files)
        out = []
        for e in events:
            if e == GAP:
                out.append("(unlogged)")
            elif e == LAZY:
                out.append("(unlogged, lazy)")
            elif e == INITIAL:
                logged = [p for p in range(n) if self.offsets[p]]
                out.append(self._where(logged[0], 0) if logged else "")
            else:
                p, k = e % n, e // n
                out.append(self._where(p, k + self.offsets[p]))
        return tuple(out)

    def _where(self, p: int, k: int) -> str:
        lines = self.lines[p]
        if k >= len(lines):
            return ""
        return f"log {self.files[p]}:{lines[k]}" if lines[k] else f"log {self.files[p]}"

    def _describe(self, report: RunReport, node: Node, cut: int | None = None, last: int | None = None) -> None:
        """The behaviour to `node` in the report: its length and unlogged steps, and as its trace
        the states up to number `cut` (a violation's), or the `last` ones, or all; walked once, so
        a long run is never held whole."""
        steps: list = []
        events: list[int] = []
        total = unlogged = 0
        for step, e in self.matcher.walk(node):
            total += 1
            unlogged += e in (GAP, LAZY)
            if cut is None or total <= cut + 1:
                steps.append(step)
                events.append(e)
                if last is not None and len(steps) > 2 * last + 1:
                    del steps[:-last], events[:-last]
        if last is not None:
            steps, events = (steps[-last:], events[-last:]) if last else ([], [])
        report.steps = total - 1
        report.unlogged = unlogged
        report.trace_start = total - len(steps) if cut is None else 0
        report.trace = Trace(tuple(steps)) if steps else None
        report.labels = self._labels(tuple(events))

    def _matched(self) -> RunReport:
        best = self.matcher.best()
        counts = Counts.empty(self.model)
        counts.add(self.model, self.matcher.walk(best))
        if best.broken is None:
            report = self._report(Conformance.CONFORMS, counts=counts)
            self._describe(report, best, last=PREFIX_SHOWN)
        else:
            kind, name, depth = best.broken
            report = self._report(Conformance.VIOLATION, counts=counts)
            self._describe(report, best, depth)
            report.violation = Violation(kind, name, report.trace, _violation_message(self.model, kind, name))
            report.refinements = tuple(c.name for c in self.model.refinements)
        report.warnings = self._warnings()
        return report

    def _warnings(self) -> tuple[str, ...]:
        stats = self.matcher.stats
        if stats.events and stats.mean >= THIN:
            return (f"the log pins the spec's state down loosely: {stats.mean:,.1f} candidate states per event on "
                    f"average (at most {stats.largest:,}); record more variables, actions or arguments",)
        return ()

    def _mismatch(self) -> RunReport:
        matcher = self.matcher
        failure = matcher.failure
        report = self._report(Conformance.DOES_NOT_CONFORM)
        if not matcher.frontier:  # the recorded initial state is none of the spec's
            inits = list(dict.fromkeys(matcher.initial_states()))
            explained = []
            for k, s in enumerate(inits[:EXPLAINED]):
                recorded = tuple(pair for e in failure.events for pair in e.state)
                diffs = recorded_differences(self.model, s, recorded)
                names = list(dict.fromkeys(n for n, _, _, _ in diffs))
                causes = tuple(Cause(f"the initial value of `{n}` is declared here", self.model.span_of("variable", n))
                               for n in names)
                explained.append(Explained(0, k, "initial state", 0, "differs", causes, tuple(diffs)))
            report.mismatch = Mismatch(failure.events, tuple(inits[:FRONTIER_SHOWN]), len(inits), tuple(explained),
                                       initial=True)
            return report
        states = [n.state for n in matcher.frontier]
        explainer = Explainer(self.model)
        explained: list[Explained] = []
        try:
            for i, event in enumerate(failure.events):
                actions = matcher.ordinary + matcher.lazy
                for at in explainer.attempts(states, event, actions, EXPLAINED):
                    explained.append(self._explain(explainer, i, at, event))
        except EVAL_FAILURES as fault:
            report.verdict = Conformance.ERROR
            report.error = explainer.error(fault, "explaining the mismatch", None).diagnostic()
        report.mismatch = Mismatch(failure.events, tuple(states[:FRONTIER_SHOWN]), len(states), tuple(explained))
        self._describe(report, matcher.best(), last=PREFIX_SHOWN)
        broken = matcher.best().broken
        if broken is not None:
            kind, name, _ = broken
            report.warnings = (f"the matched prefix already violates {check_word(kind, name)} {name}",)
        return report

    def _explain(self, explainer: Explainer, i: int, at, event: Event) -> Explained:
        model = self.model
        label = model.action_info[at.action].name
        if not at.fits:
            return Explained(i, at.candidate, label, at.call, "no_instance", (Cause(
                f"no instance of `{label}` has the event's arguments", model.action_info[at.action].span),))
        if at.disabled:
            causes = (guard_cause(explainer, list(at.failed)),) if at.failed else ()
            return Explained(i, at.candidate, label, at.call, "disabled", causes)
        recorded = event.state
        best_args, best, wrote = min(at.reached, key=lambda r: len(recorded_differences(model, r[1], recorded)))
        diffs = recorded_differences(model, best, recorded)
        names = list(dict.fromkeys(n for n, _, _, _ in diffs))
        causes = tuple(assignment_causes(model, explainer, at.action, wrote, names))
        return Explained(i, at.candidate, model.step_label(at.action, best_args), at.call, "differs", causes,
                         tuple(diffs))


def _misplaced_initial(e: Event) -> LogError:
    o = e.origin
    return LogError("E506", "an initial state may only be the first line of a log", o.file if o else "?",
                    o.line if o else 0, o.text if o else "",
                    hint="drop `\"init\": true` (or `\"action\": null`) here, or start a new log")


def _violation_message(model: Model, kind: Check, name: str) -> str | None:
    if any(c.name == name for c in model.refinements):
        return "a step is not a step of the abstract spec" if kind == Check.STEP else \
            "the initial state is not one of the abstract spec's"
    if kind == Check.PROPERTY:
        return "a state of the run violates it"
    if kind == Check.STEP:
        return "a step of the run violates it"
    return None
