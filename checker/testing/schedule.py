"""Counterexamples as schedules: real asyncio code made to take a trace's steps in the trace's order.

    schedule = Schedule.counterexample("specs/notify_race.spec", "AnswerNotified")
    with Recorder("run.ndjson") as recorder:
        outcome = schedule.run(lambda: NotifyRaceSystem(recorder).run(), recorder=recorder)
    assert outcome.followed, outcome.text()

The code marks its atomic steps (`await step("notify.stop")`, conform/marks.py) and records each
with the conformance recorder. A Schedule reads the trace (a counterexample found here, or any
`--json` or ITF behaviour) through the spec's `conform:` section: each group of spec steps that is
one event of the code is one mark to pass (`follow_on.completed` for FollowOnAnswers then
FollowOnNotifies); steps of `silent` or `lazy` actions that no event of the section names (timers,
crashes, lost messages: nothing the code marks) are not forced, only noted. Then it runs the
program under a Steering (testing/steering.py), letting one task pass one mark at a time, in the
trace's order, and checks each step's recorded line against the trace: the event, its arguments,
the state it shows (as `tlacheck conform` reads a line). The first step the code cannot take as
the trace does ends the run (held tasks are cancelled at their marks), and the outcome says which
and why:

- `never_arrived`: no task reaches the step's mark (each task is then held at another mark, or
  waits for something only a later step would give, and the report says where);
- `out_of_order`: the code recorded another event than the one the trace takes next (a step
  without a mark, or a mark named otherwise than the event it records);
- `diverged`: the code took the step and reached another state than the trace's (per entry, as
  `conform` shows differences);
- `blocked`: the step began and never ended; `raised`: the program raised an exception.

Once every step is followed, marks no longer hold and the program runs to its end (`followed`).
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from enum import Enum

from tlacheck.compile.model import Model
from tlacheck.core.errors import TlacheckError
from tlacheck.core.files import read_source
from tlacheck.core.result import Trace
from tlacheck.output.logs import LogError, Mapping
from tlacheck.output.replay import recorded_differences
from tlacheck.output.savedtrace import TraceFileError, load, to_trace
from tlacheck.pipeline.driver import build_model
from tlacheck.testing import events as ev
from tlacheck.testing.steering import Ended, Held, Passage, Steering, Unsettled


class ScheduleError(TlacheckError):
    """A trace that cannot be made a schedule (the message says why; exit code 2 on a command line)."""

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None):
        self.message = message
        self.hint = hint
        super().__init__(message + (f"\n  = hint: {hint}" if hint else ""))


class Verdict(Enum):
    FOLLOWED = "followed"
    NEVER_ARRIVED = "never_arrived"
    OUT_OF_ORDER = "out_of_order"
    DIVERGED = "diverged"
    BLOCKED = "blocked"
    RAISED = "raised"


@dataclass(frozen=True)
class Planned:
    """Trace steps `first`..`last` (indices into the trace's steps, 1 and up: step i leads to state
    i + 1) taken by the code as one `event`; None: not forced (`note` says why)."""

    first: int
    last: int
    event: ev.EventSteps | None
    note: str | None = None

    @property
    def states(self) -> str:
        return f"state {self.first + 1}" if self.first == self.last else f"states {self.first + 1}-{self.last + 1}"


@dataclass(frozen=True)
class Outcome:
    """How the code followed the schedule: the verdict, how many trace steps it took as the trace
    does (`steps_followed`), where it could not (`failed`, with `detail` lines), the report's lines
    per planned step (`rows`), the program's return value or exception once free."""

    verdict: Verdict
    title: str
    steps_followed: int
    rows: tuple[tuple[str, str, str, str], ...]  # states, actions, the mark, what happened
    failed: Planned | None = None
    detail: tuple[str, ...] = ()
    result: object = None
    error: BaseException | None = None

    @property
    def followed(self) -> bool:
        return self.verdict is Verdict.FOLLOWED

    def text(self) -> str:
        out = [self.title]
        widths = [max((len(r[i]) for r in self.rows), default=0) for i in range(3)]
        out += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths + [0])).rstrip() for r in self.rows]
        if self.followed:
            out.append(f"The code followed all {self.steps_followed} steps; then it ran on freely"
                       + (f" and raised {type(self.error).__name__}: {self.error}" if self.error else "") + ".")
        else:
            out.append(f"The code cannot follow the trace past state {self.steps_followed + 1}:")
            out += ["  " + line for line in self.detail]
        return "\n".join(out) + "\n"


class Schedule:
    """A trace of `model` (a core.result.Trace) as a schedule for real code (module docstring).
    `unforced`: more actions whose steps are not forced (the code has no mark for them);
    `patience`: seconds to wait for a timer or I/O once no task can run (testing/steering.py)."""

    def __init__(self, model: Model, trace: Trace, *, title: str, unforced=(), patience: float = 1.0):
        self.model = model
        self.trace = trace
        self.title = title
        self.patience = patience
        self.mapping = Mapping(model)
        names = [i.name for i in model.action_info]
        for name in unforced:
            if name not in names:
                raise ScheduleError(f"unforced: the spec has no action `{name}`")
        self.unforced = frozenset(names.index(n) for n in unforced)
        self.plan = self._plan()

    # ---------------------------------------------------------------- making one
    @classmethod
    def counterexample(cls, spec, check: str | None = None, *, variant: str = "base", defines: dict | None = None,
                       **options) -> "Schedule":
        """The shortest counterexample of `check` (an invariant or a property's safety part; None:
        the first check `tlacheck check` finds violated) of the spec at path `spec`."""
        from tlacheck.engine.explore import explore
        from tlacheck.engine.options import Options

        model = _model(spec, variant, defines)
        if check is None:
            chosen = Options(check_deadlock=not model.deadlock_allowed)
        elif check in [n for n, _ in model.invariants]:
            chosen = Options(check_deadlock=False, invariants=(check,), properties=(), reachables=())
        elif check in [p.name for p in model.properties] + [n for n, _ in model.steps]:
            chosen = Options(check_deadlock=False, invariants=(), properties=(check,), reachables=())
        else:
            raise ScheduleError(f"the spec has no invariant or property `{check}`")
        result = explore(model, chosen)
        if result.violation is None:
            raise ScheduleError(f"{check or 'the spec'} has no counterexample ({result.verdict.value})",
                                "a schedule follows a trace: of a check that fails, or from a file (Schedule.load)")
        name = result.violation.name or result.violation.kind
        steps = len(result.violation.trace.steps) - 1
        return cls(model, result.violation.trace, title=f"Schedule: the {steps} steps of {name}'s counterexample "
                   f"({os.fspath(spec)}, variant {variant})", **options)

    @classmethod
    def load(cls, spec, trace_file, *, variant: str | None = None, defines: dict | None = None,
             **options) -> "Schedule":
        """The behaviour saved in `trace_file` (`tlacheck check --json`, an ITF trace, a behaviour
        of `tlacheck tests`), of the spec at path `spec`, in the variant it was saved from (or
        `variant`)."""
        try:
            with open(trace_file, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            raise ScheduleError(f"{trace_file}: cannot read the trace: {exc}") from None
        saved_variant = data.get("#meta", {}).get("variant") if isinstance(data, dict) else None
        if isinstance(data, dict) and isinstance(data.get("variant"), str):
            saved_variant = data["variant"]
        chosen = variant or saved_variant or "base"
        model = _model(spec, chosen, defines)
        try:
            trace = to_trace(load(data, model), model)
        except TraceFileError as exc:
            raise ScheduleError(f"{trace_file}: {exc}") from None
        return cls(model, trace, title=f"Schedule: the {len(trace.steps) - 1} steps of {trace_file} "
                   f"({os.fspath(spec)}, variant {chosen})", **options)

    def _plan(self) -> tuple[Planned, ...]:
        """The trace's steps grouped into the code's events (module docstring)."""
        section = self.model.conform
        environment = set(section.silent or ()) | set(section.lazy) if section else set()
        all_events = ev.events(self.mapping)
        named = {a for e in all_events if not e.own for a in e.actions}
        bound = ev.bound(self.mapping)[0]
        actions = [s.action for s in self.trace.steps]
        out = []
        i = 1
        while i < len(actions):
            a = actions[i]
            info = self.model.action_info[a]
            if a in self.unforced or a in environment and a not in named:
                why = "not forced: no mark" if a in self.unforced else "not forced: an unlogged step of the environment"
                out.append(Planned(i, i, None, why))
                i += 1
                continue
            found = ev.group(all_events, actions, i, lambda e: not (e.own and e.actions[0] in bound))
            if found is None:
                events = [e.name for e in all_events if a in e.actions]
                raise ScheduleError(f"state {i + 1} ({info.name}): the code takes {info.name} only as part of "
                                    f"{' or '.join(f'`{n}`' for n in events)}, whose other steps the trace "
                                    "does not take next", "the trace splits what the code does in one step")
            out.append(Planned(i, i + len(found.actions) - 1, found))
            i += len(found.actions)
        return tuple(out)

    # ---------------------------------------------------------------- running it
    def run(self, main, recorder=None) -> Outcome:
        """Run `main` (a coroutine, or a function returning one) in a new event loop under the
        schedule (`asyncio.run`); `recorder`: the conformance Recorder the code writes to."""
        return asyncio.run(self.follow(main, recorder))

    async def follow(self, main, recorder=None) -> Outcome:
        """As `run`, in the running event loop."""
        steering = Steering(self.patience)
        if recorder is not None:
            recorder.sinks.append(steering.line)
        try:
            task = steering.start(main() if callable(main) else main)
            return await _Follower(self, steering, task).follow()
        finally:
            if recorder is not None:
                recorder.sinks.remove(steering.line)


def _model(spec, variant: str, defines: dict | None) -> Model:
    return build_model(read_source(os.fspath(spec)), {k: str(v) for k, v in (defines or {}).items()}, variant)


class _Failed(Exception):
    def __init__(self, verdict: Verdict, planned: Planned | None, what: str, lines=()):
        super().__init__(what)
        self.verdict = verdict
        self.planned = planned
        self.what = what
        self.lines = tuple(lines)


class _Follower:
    """One run of a schedule."""

    def __init__(self, schedule: Schedule, steering: Steering, task: asyncio.Task):
        self.schedule = schedule
        self.model = schedule.model
        self.steering = steering
        self.task = task
        self.rows: list[tuple[str, str, str, str]] = []
        self.followed = 0
        self.bad_marks: dict[str, str] = {}

    async def follow(self) -> Outcome:
        s = self.schedule
        try:
            await self.steering.settle()
            self._judge_lines(self.steering.take_lines(), None)
            for planned in s.plan:
                await self._take(planned)
        except _Failed as failed:
            self.steering.stop()
            await asyncio.gather(self.task, return_exceptions=True)
            state = f"at {failed.planned.states} ({self._actions(failed.planned)})" if failed.planned else \
                "before the first step"
            detail = (f"{state}: {failed.what}",) + failed.lines
            return Outcome(failed.verdict, s.title, self.followed, tuple(self.rows), failed.planned, detail)
        except Unsettled as exc:
            self.steering.stop()
            await asyncio.gather(self.task, return_exceptions=True)
            return Outcome(Verdict.BLOCKED, s.title, self.followed, tuple(self.rows), None, (str(exc),))
        self.steering.go_free()
        results = await asyncio.gather(self.task, return_exceptions=True)
        error = results[0] if isinstance(results[0], BaseException) else None
        return Outcome(Verdict.FOLLOWED, s.title, self.followed, tuple(self.rows),
                       result=None if error else results[0], error=error)

    def _actions(self, planned: Planned) -> str:
        steps = self.schedule.trace.steps[planned.first:planned.last + 1]
        return ", ".join(self.model.step_label(st.action, st.args) for st in steps)

    def _row(self, planned: Planned, what: str) -> None:
        mark = f"mark {planned.event.name}" if planned.event is not None else ""
        self.rows.append((planned.states, self._actions(planned), mark, what))

    async def _take(self, planned: Planned) -> None:
        if planned.event is None:
            self._row(planned, planned.note or "not forced")
            self.followed = planned.last
            return
        held = await self.steering.wait_for(lambda h: self._wanted(h, planned))
        self._judge_lines(self.steering.take_lines(), planned)
        if held is None:
            self._row(planned, "never arrives")
            lines = ["the code never reaches this mark (nothing else can run):"]
            lines += ["  " + w for w in self.steering.whereabouts()]
            lines += [f"  mark `{name}`: {why}" for name, why in sorted(self.bad_marks.items())]
            if self.task.done():
                lines.append("  the program returned" if self.task.exception() is None else
                             f"  the program raised {type(self.task.exception()).__name__}: {self.task.exception()}")
            raise _Failed(Verdict.NEVER_ARRIVED, planned, f"no task reaches the mark `{planned.event.name}`", lines)
        passage = await self.steering.let_pass(held)
        self._judge_passage(passage, planned)
        self.followed = planned.last
        self._row(planned, "followed" if passage.ended is Ended.RECORDED else "followed (not recorded)")

    def _wanted(self, held: Held, planned: Planned) -> bool:
        """Whether `held` is the planned step's mark, with arguments that agree with the trace's."""
        if held.name != planned.event.name:
            if held.name not in self.schedule.mapping.events:
                self.bad_marks[held.name] = "not an event of the spec's conform: section nor an action"
            return False
        try:
            event = ev.read_event(self.schedule.mapping, f"mark {held.name}", {"action": held.name, "args": held.args})
        except (LogError, ValueError) as exc:
            self.bad_marks[held.name] = exc.diagnostic.message if isinstance(exc, LogError) else str(exc)
            return False
        steps = self.schedule.trace.steps[planned.first:planned.last + 1]
        return all(call.fits(step.args) for call, step in zip(event.calls, steps))

    def _judge_passage(self, passage: Passage, planned: Planned) -> None:
        if passage.ended is Ended.BLOCKED:
            self._row(planned, "began, never ended")
            raise _Failed(Verdict.BLOCKED, planned, f"the step began at the mark `{planned.event.name}` and never "
                          "ended (its task waits for something no other step gives):",
                          ["  " + w for w in self.steering.whereabouts()])
        if passage.ended is Ended.RAISED:
            self._row(planned, "raised")
            e = passage.error
            raise _Failed(Verdict.RAISED, planned, f"the step raised {type(e).__name__}: {e}")
        self._judge_lines(passage.lines, planned)

    def _judge_lines(self, lines, planned: Planned | None) -> None:
        """Each line recorded: the initial state (before the first step), the planned step's event
        (its state against the trace's), a `skip` line, or out of order."""
        mapping = self.schedule.mapping
        steps = self.schedule.trace.steps
        for text in lines:
            try:
                data = json.loads(text)
                name = data.get("action") if isinstance(data, dict) else None
                if isinstance(data, dict) and "action" in data and name is None:  # the initial state
                    if planned is not None:
                        raise _Failed(Verdict.OUT_OF_ORDER, planned, "the code recorded an initial state again",
                                      ["  " + text])
                    self._compare(ev.read_state(mapping, "the initial state", data.get("state", {})), steps[0].state,
                                  None, "the initial state")
                    continue
                if name is not None and mapping.events.get(name) == ():
                    continue  # a line that is no step of the spec
                if planned is None or planned.event is None or name != planned.event.name:
                    what = f"the code recorded `{name}`, which the trace does not take " + (
                        f"here (it takes `{planned.event.name}`)" if planned is not None and planned.event else
                        "before its first step")
                    raise _Failed(Verdict.OUT_OF_ORDER, planned, what, ["  " + text])
                event = ev.read_event(mapping, f"the code's line for {name}", data)
                last = steps[planned.last]
                if not all(call.fits(step.args) for call, step in zip(event.calls, steps[planned.first:planned.last + 1])):
                    raise _Failed(Verdict.DIVERGED, planned, f"the code recorded `{name}` with other arguments "
                                  "than the trace's", ["  " + text])
                self._compare(event.state, last.state, planned, name)
            except LogError as exc:
                raise _Failed(Verdict.OUT_OF_ORDER, planned, f"a line the spec cannot read: {exc.diagnostic.message}",
                              ["  " + text]) from None

    def _compare(self, recorded: tuple, state: tuple, planned: Planned | None, what: str) -> None:
        differences = recorded_differences(self.model, state, recorded)
        if not differences:
            return
        if planned is not None:
            self._row(planned, "reached another state")
        rows = [(p, a, b) for _, p, a, b in differences]
        width = max(len(p) for p, _, _ in rows + [("variable", "", "")])
        code = max(len(a) for _, a, _ in rows + [("", "code", "")])
        lines = [f"  {'variable':<{width}}  {'code':<{code}}  trace"]
        lines += [f"  {p:<{width}}  {a:<{code}}  {b}" for p, a, b in rows]
        if planned is None:
            raise _Failed(Verdict.DIVERGED, None, "the code's initial state is not the trace's:", lines)
        info = self.model.action_info[self.schedule.trace.steps[planned.last].action]
        raise _Failed(Verdict.DIVERGED, planned, f"the code took `{what}` and reached another state than the "
                      f"trace's ({info.name} at {info.span.file}:{info.span.line}):", lines)
