"""The online monitor and `check`: conformance from Python, through the one matcher.

    monitor = Monitor("specs/notify_race.spec", variant="Generation")
    recorder = Recorder("run.ndjson")
    recorder.sinks.append(monitor.line)        # or call monitor.event(...) directly
    ...
    if not monitor.ok: print(monitor.report())  # the first event no behaviour explains

A Monitor matches each event when it arrives (runtime monitoring, as P's PObserve): `event`
returns False at the first event that no behaviour of the spec explains, and the monitor keeps
that verdict (later events are ignored). `finish()` gives the run's verdict, with the checks along
the matched behaviour (a conforming run that violates an invariant, exit 12 on the command line).
Thread-safe (one lock around each event). Cost: an event is encoded as its NDJSON line and read
back as the command line reads it, then matched: tens of microseconds plus the matching, which
grows with the frontier (benchmarks/conform.py).
"""

from __future__ import annotations

import os
import threading

from tlacheck.conform import runs
from tlacheck.conform.recorder import line as encode_line
from tlacheck.core.files import read_source
from tlacheck.engine.matcher import MatchFault, MatchStopped
from tlacheck.output import conformance
from tlacheck.output.logs import LogError, Mapping, event_from_line
from tlacheck.pipeline.driver import build_model


def _settings(max_gap: int, max_lazy: int, invariants, properties, **more) -> conformance.Settings:
    return conformance.Settings(max_gap=max_gap, max_lazy=max_lazy,
                                invariants=tuple(invariants) if invariants is not None else None,
                                properties=tuple(properties) if properties is not None else None, **more)


def _model(spec, variant: str, defines: dict | None):
    source = read_source(os.fspath(spec))
    return source, build_model(source, {k: str(v) for k, v in (defines or {}).items()}, variant)


def check(spec, logs, *, variant: str = "base", defines: dict | None = None, max_gap: int = 0, max_lazy: int = 1,
          merge: str = "clock", tolerance: float = 0.0, invariants=None, properties=None,
          time_limit: float | None = None) -> conformance.Report:
    """`tlacheck conform SPEC LOG...` from Python: the Report (`exit_code`, `runs` with a
    `verdict` each, `text()`, `json()`). Raises the spec's errors (tlacheck.core.errors.SpecError,
    UsageError for an unknown variant) as exceptions; a log that cannot be read is a run's
    verdict (`malformed`)."""
    source, model = _model(spec, variant, defines)
    settings = _settings(max_gap, max_lazy, invariants, properties, merge=merge, tolerance=tolerance,
                         time_limit=time_limit)
    paths = [os.fspath(p) for p in ([logs] if isinstance(logs, (str, os.PathLike)) else logs)]
    return runs.check_runs(model, paths, settings, os.fspath(spec), variant, dict(defines or {}),
                                  {source.name: source})


class Monitor:
    """Checks a run's events as they arrive against `spec` (a path), its `variant`, with the
    `conform:` mapping of the spec. `max_gap`, `max_lazy`, `invariants`, `properties` as for
    `tlacheck conform`."""

    def __init__(self, spec, *, variant: str = "base", defines: dict | None = None, max_gap: int = 0,
                 max_lazy: int = 1, invariants=None, properties=None, name: str = "monitor"):
        self.source, self.model = _model(spec, variant, defines)
        self.spec_path = os.fspath(spec)
        self.variant = variant
        self.defines = dict(defines or {})
        self.settings = _settings(max_gap, max_lazy, invariants, properties)
        self.name = name
        self.mapping = Mapping(self.model)
        self.run = runs.RunMatch(self.model, name, (name,), self.settings, self.mapping)
        self.lines = 0
        self.started = False
        self.result: conformance.RunReport | None = None  # set at the first failure, or by finish()
        self._lock = threading.Lock()

    @property
    def ok(self) -> bool:
        """No event so far failed to match (and the spec did not fail to evaluate)."""
        return self.result is None or self.result.verdict in (conformance.Conformance.CONFORMS,
                                                              conformance.Conformance.VIOLATION)

    def initial(self, state=None) -> bool:
        return self.line(encode_line(None, None, state, initial=True))

    def event(self, action: str | None, args=None, state=None) -> bool:
        """Match one event (as Recorder.event takes it); False once the run does not conform."""
        return self.line(encode_line(action, args, state))

    def line(self, text: str) -> bool:
        """Match one NDJSON line (a Recorder's sink)."""
        with self._lock:
            if self.result is not None:
                return self.ok
            self.lines += 1
            try:
                event = event_from_line(self.name, self.lines, text, self.mapping)
                if event is None:
                    return True
                if not self.started:
                    self.started = True
                    if not self.run.begin(event if event.initial else None):
                        self.result = self.run.conclude(False)
                        return False
                    if event.initial:
                        return True
                if not self.run.feed(event):
                    self.result = self.run.conclude(False)
                    return False
            except (LogError, MatchFault, MatchStopped) as exc:
                self.result = self.run.failed(exc)
                return False
            return True

    def finish(self) -> conformance.RunReport:
        """The run's verdict: the first failure, or once every event matched, conforms (or a
        check fails along the matched behaviour)."""
        with self._lock:
            if self.result is None:
                try:
                    if not self.started:
                        self.started = True
                        if not self.run.begin(None):
                            self.result = self.run.conclude(False)
                            return self.result
                    self.result = self.run.conclude(True)
                except (MatchFault, MatchStopped) as exc:
                    self.result = self.run.failed(exc)
            return self.result

    def report(self) -> str:
        """The text report of the run so far (finishing it)."""
        result = self.finish()
        report = conformance.Report(self.model, self.spec_path, self.variant, self.defines, self.settings,
                                    [result], runs.spec_notes(self.model, self.settings),
                                    {self.source.name: self.source})
        return report.text()
