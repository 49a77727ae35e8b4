"""What every search does besides exploring: the checks, the violations, the Result, the traces.

`Search` is the base of the one search driver (levels.py's `Coordinator`, the only loop over
states): it holds what the search checks (`checks`: admission.Checks, in the order explore.py's
docstring gives: state constraints, invariants, the safety part of the temporal properties, step
properties; and the reachable checks), reports what a check found (a `Failure` of the admission
sequence: a violation, kept in collect mode, `tlacheck verify`; an evaluation error, as the
Result with its trace), rebuilds traces from the store's keys (traces.py), and, once the search is
complete, decides the reachable checks and the temporal properties on the state graph
(liveness.py). The driver re-evaluates every event its workers report through the same Checks,
so a violation and an error are reported by the same code however the states were explored.
"""

from __future__ import annotations

import contextlib
import time
from typing import Callable

from tlacheck.compile.model import Model
from tlacheck.core.result import (ActionCoverage, CacheStats, Check, Result, Step, SymmetryStats, Trace, Verdict,
                                  Violation)
from tlacheck.core.runtime import EVAL_FAILURES, Fault
from tlacheck.engine.admission import Checks, Failure
from tlacheck.engine.limits import MemoryWatch, limit_reached
from tlacheck.engine.liveness import Checker as LivenessChecker
from tlacheck.engine.liveness import (EvaluationFailed, Graph, Plan, Stopped, instantiate, refinement_obligations,
                                     safety_checks)
from tlacheck.engine.options import (Options, Progress, liveness_properties, select, selected_properties,
                                    step_properties)
from tlacheck.engine.successors import find_step, nth_step, until_fault
from tlacheck.engine.traces import path_to, rebuild
from tlacheck.engine.watchdog import StepInterrupted, Watchdog


class _Stop(Exception):
    pass


def temporal_checks(model: Model, options: Options) -> tuple[tuple, tuple, Plan | None]:
    """What the selected temporal properties ask of a search (Options.check_properties on): the
    checks of the initial states and of every state (liveness.safety_checks, with the refinements'
    initial conditions), and the plan of the behaviour graph when the liveness part needs it (None:
    it does not). Pure: a cluster's actors compute it from their own model (engine/cluster.py).
    Raises EvaluationFailed."""
    instantiated = instantiate(model, selected_properties(model, options))
    initially, always = safety_checks(model, instantiated, instantiated)
    initially = tuple(initially) + select(model.refinement_initial, options.properties)
    properties = liveness_properties(model, options)
    if not properties:
        return initially, tuple(always), None
    obligations = {c.name: refinement_obligations(c) for c in model.refinements if c.name in properties}
    return initially, tuple(always), Plan(model, {name: instantiated[name] for name in properties
                                                  if name in instantiated}, obligations)


class Search:
    def __init__(self, model: Model, options: Options, progress, progress_every: float):
        self.model = model
        self.options = options
        self.progress = progress
        self.progress_every = progress_every
        self.invariants = select(model.invariants, options.invariants)
        self.properties = liveness_properties(model, options)  # decided on the graph after the search
        # The safety part of the selected properties, (name, predicate) (set by run()): checked on
        # the initial states, and on every state, after the invariants.
        self.initially: tuple = ()
        self.always: tuple = ()
        self.violations: list[Violation] = []
        self.store = self._new_store()
        self.generated = 0
        self.depth = 1
        self.coverage = [ActionCoverage() for _ in model.actions]
        self.start = 0.0
        # The behaviour graph, for the temporal properties (made by run(): liveness.Graph): the
        # driver records in it what the liveness checker needs of every state and transition.
        self.graph: Graph | None = None
        self.states: list[tuple] = []  # the stored states, by number, when the store keeps them
        self.depths = None  # BFS depth of each stored state (initial: 0), for the liveness checker
        self.reachables = list(select(model.reachables, options.reachables)) if options.check_properties else []
        # The selected step properties: checked on every step computed, after the invariants of
        # its new state (as TLC checks action properties).
        self.steps = step_properties(model, options)
        # What the search checks, in order (admission.py): made by run(), with the properties
        self.checks = Checks(model, self.invariants, steps=self.steps, collect=options.collect)
        self.witnesses: dict[str, int] = {}
        self.watch = MemoryWatch(options)
        # Freed on a MemoryError in the spec's code, so that the error can still be reported.
        self._reserve: bytearray | None = bytearray(1 << 20)

    def run(self) -> Result:
        self.start = time.perf_counter()
        opts = self.options
        self.model.caching(opts.cache)  # empty and counting from zero (forked workers inherit it)
        watched = opts.stop is not None or opts.time_limit is not None or opts.memory_limit_mb is not None
        self.watchdog = Watchdog(lambda: limit_reached(opts, self.start, time.perf_counter()), self.model.code_name,
                                 self._protected())
        try:
            with self.watchdog if watched else contextlib.nullcontext():
                self._safety_checks()
                return self._run()
        except _Stop as stop:
            return stop.args[0]
        except StepInterrupted as stop:  # a limit reached inside one long step
            distinct, left = self._counts()
            if distinct > left:  # a state was being expanded (not the initial states): it is left too
                left += 1
            return self._result(Verdict.INCOMPLETE, stop_reason=stop.reason, queue_left=left)

    def _safety_checks(self) -> None:
        """Instantiate the safety part of the selected temporal properties (self.initially and
        self.always), and the behaviour graph when the liveness part needs it, before the search."""
        if not self.options.check_properties:
            return
        try:
            self.initially, self.always, plan = temporal_checks(self.model, self.options)
        except EvaluationFailed as failed:
            raise self._fault(failed.error, -1, failed.note, failed.span) from None
        self.checks = Checks(self.model, self.invariants, self.always, self.initially, self.steps,
                             self.options.collect)
        if plan is not None:
            self.graph = Graph(plan)

    def _protected(self) -> list:
        """Code the watchdog never interrupts: rebuilding a trace and reporting what was found."""
        return [f.__code__ for f in (Search._finish, Search._fault, Search._deadlock, Search.trace_to,
                                     type(self).trace_to, until_fault, find_step, nth_step, rebuild)]

    def _new_store(self):
        raise NotImplementedError

    def _result(self, verdict: Verdict, violation: Violation | None = None, error=None,
                stop_reason: str | None = None, queue_left: int = 0) -> Result:
        distinct, left = self._counts()
        if verdict in (Verdict.INVARIANT_VIOLATED, Verdict.DEADLOCK, Verdict.ERROR):
            queue_left = left
        result = Result(verdict, distinct, self.generated, self.depth,
                        time.perf_counter() - self.start, self.coverage, violation, error, stop_reason, queue_left)
        result.fingerprint_collision = self._collision()
        result.symmetry = self._symmetry()
        result.cache = self._cache()
        return result

    def _cache(self) -> tuple[CacheStats, ...] | None:
        """What the transition caches did, in the processes that expanded states (None: caching was off)."""
        if not self.options.cache:
            return None
        return tuple(CacheStats(i, *counts) for i, counts in sorted(self._cache_counts().items()))

    def _cache_counts(self) -> dict[int, tuple[int, int, int, bool]]:
        """Per action with a transition cache, (hits, misses, clears, turned off): this process's."""
        return self.model.cache_counts()

    def _symmetry(self) -> SymmetryStats | None:
        """What the symmetry reduction did (None: the search stores every state)."""
        return None

    def _counts(self) -> tuple[int, int]:
        """Distinct states stored, and how many of them are not expanded yet."""
        raise NotImplementedError

    def _collision(self) -> float | None:
        """The probability that two states shared a key (None: none could)."""
        raise NotImplementedError

    def _check_reachables(self, i: int, state: tuple) -> None:
        for name, pred in self.reachables:
            if name not in self.witnesses:
                try:
                    hit = pred(state)
                except EVAL_FAILURES as fault:
                    raise self._fault(fault, i, f"evaluating {Check.REACHABLE.noun} {name}",
                                      self.model.span_of(Check.REACHABLE.value, name)) from None
                if hit:
                    self.witnesses[name] = i

    def _fault(self, fault: Fault | RecursionError | MemoryError, at: int, note: str, span=None,
               unstored: tuple | None = None, message: str | None = None) -> _Stop:
        """End the run with an evaluation error in stored state `at` (-1: before any state) while
        `note`, or in `unstored`, a successor of `at` (or an initial state, when `at` is -1) that
        was not stored: its constraint failed; the trace then ends with it. `span`: what was being
        evaluated, where a RecursionError or MemoryError is placed when no line of generated code
        says better (Model.limit_error); `message`: its message, when a worker placed it
        (admission.placement: the error here has no traceback to name the `def` from)."""
        if isinstance(fault, Fault):
            err = self.model.eval_error(fault)
            err.message = f"{err.message} (while {note})"
        else:
            if isinstance(fault, MemoryError):  # room to rebuild the trace and report
                self._reserve = None
                self.store.release()  # what the store keeps only to tell new states
            err = self.model.limit_error(fault, note, span)
            if message is not None:
                err.message = message
        try:
            trace = self.trace_to(at) if unstored is None else self._trace_through(at, unstored)
        except MemoryError:  # rebuilding the trace needs as much memory as its largest step: report without it
            trace = Trace(())
            err.trace_omitted = "out of memory"
        err.trace = trace
        return _Stop(self._result(Verdict.ERROR, Violation(Check.ERROR, err.code, trace, err.message), error=err))

    def _trace_through(self, at: int, unstored: tuple) -> Trace:
        """The trace to stored state `at` (-1: none), then the step to `unstored`, a successor of
        it (or an initial state) that was not stored."""
        trace = self.trace_to(at)
        last = find_step(self.model, trace.steps[-1].state, unstored) if trace.steps else Step(None, (), unstored)
        return Trace(trace.steps + (last,))

    def _failed(self, failure: Failure, at: int, state: tuple, step: Step | None = None) -> None:
        """Report `failure` (admission.py), met in `state`: stored state number `at`, or a successor
        of it (-1: an initial state) that is not stored: one failing a constraint, a step property's
        (`step`, the step from `at` to `state`). An evaluation error ends the run; so does a check
        found false (in collect mode, the violation is kept and the check dropped)."""
        through = failure.unstored or failure.kind in (Check.CONSTRAINT, Check.STEP)
        if failure.error is not None:
            raise self._fault(failure.error, at, failure.note, self.model.span_of(failure.kind.value, failure.name),
                              state if through else None) from None
        if failure.kind == Check.STEP:
            self._step_violated(at, step, failure.name)
        else:
            self._violated(at, state, failure.unstored, failure.kind, failure.name, failure.initial)

    def _violated(self, i: int, state: tuple, unstored: bool, kind: Check, name: str, initial: bool = False) -> None:
        """Check `name` (of _check's `kind`) is false in `state`: end the run, or keep the
        violation in collect mode."""
        trace = self._trace_through(i, state) if unstored else self.trace_to(i)
        violation = Violation(kind, name, trace, kind.violated(initial))
        if not self.options.collect:
            raise _Stop(self._result(Verdict.INVARIANT_VIOLATED, violation))
        self._keep(violation)

    def _keep(self, violation: Violation) -> None:
        """Collect mode: keep the violation and check its property no more (each is reported
        with its first counterexample); a deadlock is kept once."""
        if violation.kind == Check.DEADLOCK:
            if not any(v.kind == Check.DEADLOCK for v in self.violations):
                self.violations.append(violation)
            return
        self.violations.append(violation)
        self.checks.drop(violation.name)

    def _step_violated(self, parent: int, step: Step, name: str) -> None:
        """Step property `name` is false on `step`, from stored state `parent`: end the run, or
        keep the violation in collect mode."""
        trace = Trace(self.trace_to(parent).steps + (step,))
        violation = Violation(Check.STEP, name, trace, Check.STEP.violated())
        if not self.options.collect:
            raise _Stop(self._result(Verdict.INVARIANT_VIOLATED, violation))
        self._keep(violation)

    def _deadlock(self, parent: int) -> Violation:
        return Violation(Check.DEADLOCK, None, self.trace_to(parent), Check.DEADLOCK.violated())

    def _finish(self) -> Result:
        """The search is complete: reachable checks, then temporal properties."""
        witnesses = {name: self.trace_to(i) for name, i in self.witnesses.items()}
        found = list(self.violations)
        for name, _ in self.reachables:
            if name not in self.witnesses:
                found.append(Violation(Check.UNREACHABLE, name, Trace(()), Check.UNREACHABLE.violated()))
        if self.graph is not None and (self.options.collect or not found):
            checker = None
            try:
                checker = LivenessChecker(self.model, self.graph, self.parents, self.depths, self._state,
                                          stop=self._liveness_stop())
                for v in checker.check(self.properties, stop_at_first=not self.options.collect):
                    found.append(Violation(Check.LIVENESS, v.name, v.trace, v.detail))
            except EvaluationFailed as failed:  # a spec expression of a property or a fairness condition
                checker = None  # its tables are not needed for the trace
                raise self._fault(failed.error, failed.state, failed.note, failed.span) from None
            except Stopped as stop:  # the search is complete, some properties are not decided
                decided = checker.decided if checker is not None else []
                result = self._result(Verdict.INCOMPLETE, stop_reason=stop.reason)
                result.undecided = tuple(p for p in self.properties if p not in decided)
                result.witnesses = witnesses
                result.violations = found
                return result
        verdict = found[0].kind.verdict if found else Verdict.OK
        result = self._result(verdict, found[0] if found else None)
        result.witnesses = witnesses
        result.violations = found
        return result

    def _liveness_stop(self) -> Callable[[], str | None]:
        """limit_reached for the liveness analysis, which asks often (every eight predicates it
        evaluates): the resident memory is read at most ten times a second. It also reports
        progress, every `progress_every` seconds of the analysis."""
        now = time.perf_counter()
        next_reading, next_report = [now], [now + self.progress_every]

        def stop() -> str | None:
            now = time.perf_counter()
            memory = now >= next_reading[0]
            if memory:
                next_reading[0] = now + 0.1
            if self.progress is not None and now >= next_report[0]:
                next_report[0] = now + self.progress_every
                self.progress(Progress(len(self.graph.succ), len(self.parents), 0, self.depth,
                                       now - self.start, phase="liveness"))
            return limit_reached(self.options, self.start, now, memory)

        return stop

    # ---------------------------------------------------------------- traces
    def trace_to(self, i: int) -> Trace:
        """The path of stored states from an initial state to state `i`, with the actions between
        them, found again by their keys in the store (traces.py)."""
        store = self.store
        return rebuild(self.model, [store.key(j) for j in path_to(store.parents, i)], store.key_of)


def summed_cache_counts(counts: list[dict]) -> dict[int, tuple[int, int, int, bool]]:
    """The transition caches' counts of several processes (Model.cache_counts each), in process
    order: per action, the hits, misses and clears summed, and whether any process turned its
    cache off."""
    total: dict[int, tuple[int, int, int, bool]] = {}
    for one in counts:
        for action, (hits, misses, clears, gave_up) in one.items():
            h, m, c, g = total.get(action, (0, 0, 0, False))
            total[action] = (h + hits, m + misses, c + clears, g or gave_up)
    return total
