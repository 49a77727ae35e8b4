"""Simulation: random behaviours of a Model, checked as they go (TLC's `-simulate`, `quint run`).

`simulate(model, SimOptions(seed=...))` runs behaviours one after the other. A behaviour starts
in an initial state chosen uniformly among the distinct initial states that satisfy the state
constraints; at each state it computes every successor (every action, in declaration order,
parameters in canonical order), checks them, and moves to one chosen uniformly among the
successors that satisfy the constraints (each action instance is one choice: an action with
more parameter values is taken more often). A behaviour ends after `depth` steps, at a state
whose successors all fail a constraint, or at a deadlock (no successor at all, a violation
unless `check_deadlock` is off). The run ends after `traces` behaviours, at `time_limit`, at
the first violation or evaluation error, or when stopped (`stop`, `memory_limit_mb`).

What is checked, as `check` checks it (explore.py's docstring): before the first behaviour,
every initial state (also those failing a constraint) against the invariants, the safety part
of the temporal properties and their initial conditions; then every successor computed, also
those failing a constraint and those not chosen, against the invariants and the safety part of
the properties (a state already visited is not checked again); step properties on every step
computed that changes the state. Not checked: the liveness part of temporal properties, and
reachable checks (simulation cannot show that nothing reaches a state). Simulation is never a
proof: a run without violation says only that these behaviours have none.

Deterministic: the only randomness is `random.Random(seed)`, drawn once per initial state and
once per step, so a seed gives the same behaviours, trace and counts on every run (the time
aside; a time limit cuts the run where the clock says).

The trace of a violation is the behaviour that reached it, shortened (`shrink`, the shortest
kept): by cutting the cycles out of the behaviour (a state that occurs twice: the steps between
the two are dropped); by a breadth-first search from the initial states over the states this
run expanded (every successor of them was computed), to the first state, or step, that fails
the same check first; then, from the shortest so far, by a breadth-first search over the
behaviours that take only its action instances (the same action with the same arguments:
other processes' steps interleaved but not needed drop out), or past _INSTANCE_STATES states
by dropping runs of steps and taking the rest again (`_drop_steps`). Every way gives a real
execution of the spec, each step re-executed by the model's actions, ending in the same
violation and meeting no other check before; it is the shortest among the expanded states and
among the behaviours of those instances, not in the whole state space. Evaluation errors keep
the behaviour with its cycles cut.

In collecting mode (`collect`, for `tlacheck verify --simulate`) the run goes on after a
violation: each check is reported once (its trace with the cycles cut) and no longer checked, a
deadlock once; `Result.violations` lists them in the order found.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import ActionCoverage, Check, Result, SimulationStats, Step, Trace, Verdict, Violation
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.admission import Admission, Checks, Failure
from tlacheck.engine.limits import limit_reached
from tlacheck.engine.liveness import EvaluationFailed, safety_checks
from tlacheck.engine.options import Options, select, selected_properties, step_properties
from tlacheck.engine.watchdog import StepInterrupted, Watchdog


DEFAULT_DEPTH = 100  # steps per behaviour, as TLC's -depth
DEFAULT_TRACES = 1000  # behaviours, when no time limit is given
# The most states of the search over the behaviours that take a trace's action instances
# (_Simulator._instances), and the most action instances taken when dropping steps instead
# (_Simulator._drop_steps): shortening a trace stays a matter of seconds
_INSTANCE_STATES = 100_000
_DROP_BUDGET = 200_000


@dataclass(frozen=True)
class SimOptions:
    seed: int
    depth: int = DEFAULT_DEPTH  # steps after the initial state, at most, per behaviour
    traces: int | None = DEFAULT_TRACES  # behaviours at most (None: until time_limit or stop)
    time_limit: float | None = None  # seconds; ends the run normally (it is part of the budget)
    memory_limit_mb: int | None = None  # resident memory; reaching it ends the run as incomplete
    stop: object = None  # a threading.Event (anything with is_set()): the run ends as incomplete
    check_deadlock: bool = True
    invariants: tuple[str, ...] | None = None  # None: all of the spec's invariants
    properties: tuple[str, ...] | None = None  # None: all temporal and step properties
    shrink: bool = True
    # Go on after a violation (each check is reported once, its trace with the cycles cut, and
    # no longer checked; a deadlock once): the result lists every failure. For `tlacheck verify`.
    collect: bool = False
    # Called with each behaviour when it ends (a tuple of core.result.Step, the initial state
    # first): `tlacheck tests` samples behaviours of a model too large to explore this way.
    on_behaviour: Callable[[tuple], None] | None = None

    def __post_init__(self):
        if self.depth < 0 or self.traces is not None and self.traces <= 0 or self.seed < 0:
            raise ValueError(f"SimOptions: depth >= 0, traces > 0 (or None) and seed >= 0, not {self}")


@dataclass(frozen=True)
class SimProgress:
    behaviours: int
    states_visited: int
    distinct: int
    elapsed_s: float


class _Found(Exception):
    """A violation or an evaluation error: the run ends with this Result."""


def simulate(model: Model, options: SimOptions, progress: Callable[[SimProgress], None] | None = None,
             progress_every: float = 5.0) -> Result:
    """Random behaviours of `model` (the module docstring says which, and what is checked).
    The Result has the verdict, the violation with its (shortened) trace, coverage and
    `simulation` (SimulationStats); `distinct_states` counts the distinct states visited,
    `states_generated` the initial states and every successor computed, `depth` the states of
    the longest behaviour (initial state at depth 1, as `check` counts)."""
    return _Simulator(model, options, progress, progress_every).run()


class _Simulator:
    def __init__(self, model: Model, options: SimOptions, progress, progress_every: float):
        self.model = model
        self.options = options
        self.progress = progress
        self.progress_every = progress_every
        self.rng = random.Random(options.seed)
        self.invariants = select(model.invariants, options.invariants)
        self.steps = step_properties(model, Options(properties=options.properties))
        # What is checked, and the admission sequence of a successor (admission.py), which stores
        # nothing here: made by run(), with the safety part of the properties
        self.checks = Checks(model, self.invariants, steps=self.steps, collect=options.collect)
        self.admission = Admission(model, self.checks, keep=False)
        self.visited: set = set()  # distinct states on the behaviours
        self.expanded: set = set()  # states whose successors were all computed (shrinking's graph)
        self.coverage = [ActionCoverage() for _ in model.actions]
        self.taken = [0] * len(model.actions)
        self.check_deadlock = options.check_deadlock
        self.violations: list[Violation] = []  # collect mode
        self.generated = 0
        self.states_visited = 0
        self.behaviours = 0
        self.longest = 0
        self.start = 0.0
        self.limits = Options(time_limit=options.time_limit, memory_limit_mb=options.memory_limit_mb,
                              stop=options.stop)

    # ---------------------------------------------------------------- the run
    def run(self) -> Result:
        self.start = time.perf_counter()
        self.watchdog = Watchdog(lambda: limit_reached(self.limits, self.start, time.perf_counter()),
                                 self.model.code_name, [f.__code__ for f in (_Simulator._fail, _Simulator._end)])
        opts = self.options
        watched = opts.stop is not None or opts.time_limit is not None or opts.memory_limit_mb is not None
        ended = "traces"
        try:
            with self.watchdog if watched else contextlib.nullcontext():
                self._safety_checks()
                initial = self._initial_states()
                if not initial:
                    ended = "no_initial_state"
                else:
                    ended = self._behaviours(initial)
        except _Found as found:
            return self._shrunk(found.args[0])
        except StepInterrupted as stop:
            ended = stop.reason
        return self._end(ended)

    def _behaviours(self, initial: list) -> str:
        """Run behaviours until the budget is spent; returns why the run ended."""
        opts = self.options
        hit = self.watchdog.hit
        next_report = self.start + self.progress_every
        while opts.traces is None or self.behaviours < opts.traces:
            reason = hit[0] or limit_reached(self.limits, self.start, time.perf_counter(),
                                             memory=self.behaviours % 64 == 0)
            if reason is not None:
                return reason
            self.behaviours += 1
            self._behaviour(initial)
            if self.progress is not None and time.perf_counter() >= next_report:
                next_report = time.perf_counter() + self.progress_every
                self.progress(SimProgress(self.behaviours, self.states_visited, len(self.visited),
                                          time.perf_counter() - self.start))
        return "traces"

    def _behaviour(self, initial: list) -> None:
        rng = self.rng
        hit = self.watchdog.hit
        state = initial[rng.randrange(len(initial))]
        path = [Step(None, (), state)]
        self._visit(state)
        for _ in range(self.options.depth):
            if hit[0] is not None:
                raise StepInterrupted(hit[0])
            choices = self._successors(path)
            if not choices:
                break
            step = choices[rng.randrange(len(choices))]
            self.taken[step.action] += 1
            if step.state not in self.visited:
                self.coverage[step.action].distinct += 1
            path.append(step)
            self._visit(step.state)
        self.longest = max(self.longest, len(path) - 1)
        if self.options.on_behaviour is not None:
            self.options.on_behaviour(tuple(path))

    def _visit(self, state: tuple) -> None:
        self.states_visited += 1
        self.visited.add(state)

    def _successors(self, path: list) -> list[Step]:
        """Every successor of the behaviour's last state, each checked; those in the model (the
        choices of the next step). A deadlock ends the run (when checked); so does a violation."""
        model = self.model
        state = path[-1].state
        choices = []
        found = False
        for ai, act in enumerate(model.actions):
            cov = self.coverage[ai]
            total = 0
            try:
                for args, succ in act(state):
                    total += 1
                    self.generated += 1
                    step = Step(ai, args, succ)
                    if self._admitted(path, step, succ not in self.visited):
                        choices.append(step)
            except EVAL_FAILURES as fault:
                info = model.action_info[ai]
                raise self._fail(fault, path, f"computing action {info.name}", info.span) from None
            finally:
                if total:
                    cov.enabled += 1
                    cov.generated += total
            found = found or total > 0
        self.expanded.add(state)
        if not found and self.check_deadlock:
            self._report(Violation(Check.DEADLOCK, None, Trace(tuple(path)), Check.DEADLOCK.violated()))
            self.check_deadlock = False  # collect mode: one deadlock is reported
        return choices

    def _admitted(self, path: list, step: Step, new: bool) -> bool:
        """Admit the successor of `step` (admission.py: the constraints, then, when it is `new` to
        the run, the checks of a state; then the step properties when it changes the state):
        whether it is in the model. A failure ends the run; in collect mode a check found false is
        reported once and the run goes on."""
        admission, state = self.admission, path[-1].state
        try:
            in_model = admission.admit(0, step.action, step.state, 0) if new else self.checks.in_model(step.state)
            self._collected(path, step)
            if self.steps and step.state != state:
                admission.step(state, step.state, 0)
                self._collected(path, step)
        except Failure as failure:
            self._failed(failure, path + [step])
        return in_model

    def _collected(self, path: list, step: Step) -> None:
        """Collect mode: report what the checks of `step`'s state (or step) found false."""
        for _, failure in self.checks.take_collected():
            self._failed(failure, path + [step])

    def _failed(self, failure: Failure, steps: list) -> None:
        """Report `failure`, met in the last state (or step) of `steps`: an evaluation error ends
        the run; a check found false ends it too, or in collect mode is kept once."""
        if failure.error is not None:
            raise self._fail(failure.error, steps, failure.note,
                             self.model.span_of(failure.kind.value, failure.name)) from None
        self._report(Violation(failure.kind, failure.name, Trace(tuple(steps)), failure.kind.violated(failure.initial)))

    def _report(self, violation: Violation) -> None:
        """End the run with `violation`; in collect mode, keep it (its cycles cut) and drop its check."""
        if not self.options.collect:
            raise _Found(self._violation(violation))
        trace = _cut_cycles(violation) if self.options.shrink else violation.trace
        self.violations.append(Violation(violation.kind, violation.name, trace, violation.message))
        self.checks.drop(violation.name)

    def _failing(self, state: tuple, before: tuple | None = None) -> Failure | None:
        """The first state check (with `before`: step property) that `state` (the step from `before`
        to it) fails; an evaluation error is raised (shrinking then gives up)."""
        failure = self.checks.failing(state, self.checks.state, before)
        if failure is not None and failure.error is not None:
            raise failure.error
        return failure

    def _clean(self, before: tuple, step: Step) -> bool:
        """Whether `step`'s state is in the model and fails no check, nor the step from `before` a
        step property, as a state a simulation goes on from (shrinking); an evaluation error is raised."""
        try:
            in_model = self.checks.in_model(step.state)
        except Failure as failure:
            raise failure.error from None
        return (in_model and self._failing(step.state) is None
                and not (self.steps and step.state != before and self._failing(step.state, before) is not None))

    def _safety_checks(self) -> None:
        """The safety part of the selected temporal properties: `always P` joins the checks of
        every state, a property's initial condition those of the initial states."""
        names = selected_properties(self.model, Options(properties=self.options.properties))
        try:
            initially, always = safety_checks(self.model, names)
        except EvaluationFailed as failed:
            raise self._fail(failed.error, [], failed.note, failed.span) from None
        initially += select(self.model.refinement_initial, self.options.properties)
        self.checks = Checks(self.model, self.invariants, always, initially, self.steps, self.options.collect)
        self.admission = Admission(self.model, self.checks, keep=False)

    def _initial_states(self) -> list:
        """Every initial state checked; the distinct ones in the model, in the order init() gives."""
        out: list = []
        seen: set = set()
        try:
            for state in self.model.init():
                self.generated += 1
                if state in seen:
                    continue
                seen.add(state)
                step = Step(None, (), state)
                try:
                    in_model = self.admission.admit_initial(0, state, 0)
                    self._collected([], step)
                except Failure as failure:
                    self._failed(failure, [step])
                if in_model:
                    out.append(state)
        except EVAL_FAILURES as fault:
            raise self._fail(fault, [], "computing the initial states", self.model.span_of("initial")) from None
        return out

    # ---------------------------------------------------------------- results
    def _fail(self, fault, steps: list, note: str, span=None) -> _Found:
        """The run ends with an evaluation error in the last state of `steps` (none: before any
        state) while `note`; `span`: what was being evaluated (Model.limit_error)."""
        if isinstance(fault, MemoryError):
            self.expanded.clear()  # room to report (errors are not shortened by the search)
        if isinstance(fault, (RecursionError, MemoryError)):
            err = self.model.limit_error(fault, note, span)
        else:
            err = self.model.eval_error(fault)
            err.message = f"{err.message} (while {note})"
        trace = _without_cycles(Trace(tuple(steps)))
        err.trace = trace
        result = self._result(Verdict.ERROR, Violation(Check.ERROR, err.code, trace, err.message), "error")
        result.error = err
        return _Found(result)

    def _violation(self, violation: Violation) -> Result:
        return self._result(violation.kind.verdict, violation, "violation")

    def _end(self, ended: str) -> Result:
        found = self.violations
        if ended in ("interrupted", "memory_limit"):
            result = self._result(Verdict.INCOMPLETE, None, ended)
            result.stop_reason = ended
        else:
            result = self._result(found[0].kind.verdict if found else Verdict.OK, found[0] if found else None, ended)
        result.violations = list(found)
        return result

    def _result(self, verdict: Verdict, violation: Violation | None, ended: str) -> Result:
        opts = self.options
        if violation is not None and violation.trace.steps:
            self.longest = max(self.longest, len(violation.trace.steps) - 1)
        stats = SimulationStats(
            seed=opts.seed, behaviours=self.behaviours, states_visited=self.states_visited, longest=self.longest,
            taken=tuple(self.taken), ended=ended, depth_bound=opts.depth, traces_bound=opts.traces,
            found_steps=len(violation.trace.steps) - 1 if ended in ("violation", "error") and violation.trace.steps
            else None)
        return Result(verdict, len(self.visited), self.generated, self.longest + 1, time.perf_counter() - self.start,
                      self.coverage, violation, simulation=stats)

    # ---------------------------------------------------------------- shrinking
    def _shrunk(self, result: Result) -> Result:
        """`result` with its trace shortened (module docstring), when shrinking is on."""
        v = result.violation
        if not self.options.shrink or v is None or len(v.trace.steps) <= 1:
            return result
        trace = _cut_cycles(v)
        method = "cycles"
        if v.kind != Check.ERROR:
            shorter = self._search(v)
            if shorter is not None and len(shorter.steps) < len(trace.steps):
                trace, method = shorter, "search"
            shorter, how = self._instances(v, trace), "instances"
            if shorter is None:  # too many states, or an error: steps dropped one run at a time
                shorter, how = self._drop_steps(v, trace), "steps"
            if len(shorter.steps) < len(trace.steps):
                trace, method = shorter, how
        if len(trace.steps) == len(v.trace.steps):
            return result
        result.violation = Violation(v.kind, v.name, trace, v.message)
        if result.error is not None:
            result.error.trace = trace
        result.simulation = dataclasses.replace(result.simulation, shrunk_steps=len(trace.steps) - 1,
                                                shrink_method=method)
        return result

    def _search(self, v: Violation) -> Trace | None:
        """A shortest path over the expanded states, from the initial ones among them, to a
        state (a step) failing `v`'s check first, or a deadlock; None when there is none or an
        evaluation error (or a stop) interrupts the search."""
        expanded = self.expanded
        if len(v.trace.steps) > 1:  # the state whose expansion met the violation: re-expanded up to it
            expanded = expanded | {v.trace.steps[-2].state}
        return self._bfs(v, self._initial_in(expanded), lambda state, step: step.state in expanded)

    def _instances(self, v: Violation, trace: Trace) -> Trace | None:
        """A shortest behaviour from `trace`'s initial state that takes only the action instances
        `trace` takes (an action with the same arguments) and ends in `v`: the steps of other
        processes, of other arguments, interleaved but unneeded, are left out, and the ones
        needed may come in another order. Its states must satisfy the constraints and every
        other check, as a simulation's would. None when there is none, past _INSTANCE_STATES
        states, or on an evaluation error (or a stop)."""
        instances = {(s.action, s.args) for s in trace.steps[1:]}

        return self._bfs(v, [trace.steps[0].state], self._clean, instances, _INSTANCE_STATES)

    def _bfs(self, v: Violation, starts: list, admit, instances: set | None = None,
             limit: int | None = None) -> Trace | None:
        """A shortest path from the states `starts`, through the successors `admit(state, step)`
        accepts (by the action instances in `instances`; None: any), to a state (a step) failing
        `v`'s check first, or a deadlock; None when there is none, past `limit` states, or when
        an evaluation error (or a stop) interrupts the search."""
        model = self.model
        stop = self.options.stop
        target = v.kind if v.kind in (Check.INVARIANT, Check.PROPERTY) else None
        parents: dict = {}
        queue: deque = deque()
        try:
            for state in starts:
                parents[state] = None
                queue.append(state)
            n = 0
            while queue:
                n += 1
                if n & 0xFF == 0 and stop is not None and stop.is_set() or limit is not None and n > limit:
                    return None
                state = queue.popleft()
                any_successor = False
                for ai, act in enumerate(model.actions):
                    for args, succ in act(state):
                        any_successor = True
                        if instances is not None and (ai, args) not in instances:
                            continue
                        step = Step(ai, args, succ)
                        if self._hits(state, step, v, target):
                            return Trace(tuple(_path(parents, state)) + (step,))
                        if succ not in parents and admit(state, step):
                            parents[succ] = (state, ai, args)
                            queue.append(succ)
                if not any_successor and v.kind == Check.DEADLOCK:
                    return Trace(tuple(_path(parents, state)))
        except (_Found, *EVAL_FAILURES):
            return None
        return None

    def _drop_steps(self, v: Violation, trace: Trace) -> Trace:
        """`trace`, a behaviour ending in `v`, with steps dropped for as long as one can be: runs
        of half its steps, then of a quarter, ... then single steps (again, until none can be)
        are left out in turn, and the rest is taken again from the same initial state, action
        instance by action instance (`_replay`); a shorter behaviour that still ends in `v`
        replaces it. Deterministic:
        nothing random, and the work is bounded by _DROP_BUDGET action instances taken (a stop
        ends it too, with the shortest so far)."""
        first, steps = trace.steps[0], list(trace.steps[1:])
        budget = [_DROP_BUDGET]
        stop = self.options.stop
        chunk = len(steps) // 2
        while chunk >= 1 and budget[0] > 0:
            i = 0
            dropped = False
            while i < len(steps) and budget[0] > 0:
                if stop is not None and stop.is_set():
                    return Trace((first, *steps))
                found = self._replay(first.state, steps[:i] + steps[i + chunk:], v, budget)
                if found is not None:
                    steps = found  # (no longer than the candidate: the same place is tried again)
                    dropped = True
                else:
                    i += chunk
            if chunk > 1:
                chunk = max(1, min(chunk // 2, len(steps) // 2))
            elif not dropped:  # single steps, until none can be dropped
                chunk = 0
        return Trace((first, *steps))

    def _replay(self, state: tuple, steps: list[Step], v: Violation, budget: list) -> list[Step] | None:
        """The behaviour from `state` that takes the action instances of `steps` in turn (where an
        instance has several successors, the step's own state if it is one, else the first), up
        to the first state (step) that fails `v`'s check first, or for a deadlock to a state
        without successor: its steps. None when an instance is not enabled, a state fails a
        constraint or another check before, an evaluation error happens, or the violation is not
        met. Each instance taken costs budget[0] one."""
        model = self.model
        target = v.kind if v.kind in (Check.INVARIANT, Check.PROPERTY) else None
        out: list[Step] = []
        try:
            for step in steps:
                budget[0] -= 1
                succs = [succ for args, succ in model.actions[step.action](state) if args == step.args]
                if not succs:
                    return None
                nxt = Step(step.action, step.args, step.state if step.state in succs else succs[0])
                if self._hits(state, nxt, v, target):
                    return out + [nxt]
                if not self._clean(state, nxt):
                    return None
                out.append(nxt)
                state = nxt.state
            if v.kind == Check.DEADLOCK and not any(True for act in model.actions for _ in act(state)):
                return out
        except (_Found, *EVAL_FAILURES):
            return None
        return None

    def _initial_in(self, states: set) -> list:
        return [s for s in dict.fromkeys(self.model.init()) if s in states]

    def _hits(self, before: tuple, step: Step, v: Violation, target: Check | None) -> bool:
        """Whether `step` from `before` fails `v`'s check as the first check that fails there."""
        if v.kind == Check.DEADLOCK:
            return False
        failed = self._failing(step.state)
        if target is not None:
            return failed is not None and failed.kind == target and failed.name == v.name
        if failed is not None or step.state == before:
            return False
        failed = self._failing(step.state, before)
        return failed is not None and failed.name == v.name


def _path(parents: dict, state: tuple) -> list[Step]:
    """The steps from an initial state to `state` along the search's parent links."""
    out = []
    while True:
        link = parents[state]
        if link is None:
            out.append(Step(None, (), state))
            break
        parent, ai, args = link
        out.append(Step(ai, args, state))
        state = parent
    return out[::-1]


def _cut_cycles(v: Violation) -> Trace:
    """`v`'s trace without cycles; for a step property, the last step (the violation) is kept."""
    if v.kind == Check.STEP:
        return Trace(_without_cycles(Trace(v.trace.steps[:-1])).steps + v.trace.steps[-1:])
    return _without_cycles(v.trace)


def _without_cycles(trace: Trace) -> Trace:
    """The trace with every cycle cut out: when a state occurs again, the steps since its first
    occurrence are dropped, so each state occurs once. Still an execution: the step after the
    second occurrence leaves the same state."""
    out: list[Step] = []
    at: dict = {}
    for step in trace.steps:
        i = at.get(step.state)
        if i is not None:
            for dropped in out[i + 1:]:
                del at[dropped.state]
            del out[i + 1:]
            continue
        at[step.state] = len(out)
        out.append(step)
    return Trace(tuple(out))
