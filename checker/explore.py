"""Breadth-first exploration of a Model's state space.

Guarantees: states are explored level by level, so the first invariant
violation found is at minimal depth and its trace is a shortest one; a
deadlock (a state with no successor at all, as in TLC) is reported with a
shortest trace too. Counts have TLC's meanings: `states_generated` counts the
initial states and every successor computed (duplicates included, and
successors failing a state constraint); `distinct_states` counts stored
states; `depth` is the BFS depth with initial states at depth 1.

Deterministic: actions run in declaration order, parameters and choices in
canonical order, so the same model gives the same counts and the same trace.
The seen-set keeps full states (exact; no fingerprint collisions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from array import array

from checker.errors import EvalError
from checker.liveness import Checker as LivenessChecker
from checker.liveness import Graph
from checker.model import Model
from checker.result import ActionCoverage, Result, Step, Trace, Verdict, Violation
from checker.runtime import Fault


@dataclass(frozen=True)
class Options:
    check_deadlock: bool = True
    max_states: int | None = None
    max_depth: int | None = None
    time_limit: float | None = None
    invariants: tuple[str, ...] | None = None  # None: all of the spec's invariants
    properties: tuple[str, ...] | None = None  # None: all temporal properties
    reachables: tuple[str, ...] | None = None  # None: all reachable checks
    check_properties: bool = True  # temporal properties and reachable checks
    # Keep exploring after an invariant violation (each invariant is reported once, with a
    # shortest trace); the result lists every check that failed. For `tlacheck verify`.
    collect: bool = False


@dataclass(frozen=True)
class Progress:
    generated: int
    distinct: int
    queue: int
    depth: int
    elapsed_s: float


ProgressCallback = Callable[[Progress], None]


class _Stop(Exception):
    pass


def explore(model: Model, options: Options = Options(), progress: ProgressCallback | None = None,
            progress_every: float = 5.0) -> Result:
    """Explore every reachable state of `model` and return the first violation, if any."""
    return _Explorer(model, options, progress, progress_every).run()


class _Explorer:
    def __init__(self, model: Model, options: Options, progress, progress_every: float):
        self.model = model
        self.options = options
        self.progress = progress
        self.progress_every = progress_every
        self.invariants = _select(model.invariants, options.invariants)
        self.properties = tuple(p.name for p in model.spec.properties
                                if options.properties is None or p.name in options.properties)
        self.violations: list[Violation] = []
        self.states: list[tuple] = []
        self.parents: list[int] = []
        self.index: dict[tuple, int] = {}
        self.generated = 0
        self.depth = 0
        self.coverage = [ActionCoverage() for _ in model.actions]
        self.start = 0.0
        self.head = 0  # index of the next state to expand
        wants_graph = options.check_properties and bool(self.properties)
        self.graph = Graph() if wants_graph else None
        self.depths = array("i") if wants_graph else None  # BFS depth of each state, initial = 0
        self.reachables = list(_select(model.reachables, options.reachables)) if options.check_properties else []
        self.witnesses: dict[str, int] = {}

    def run(self) -> Result:
        self.start = time.perf_counter()
        try:
            return self._run()
        except _Stop as stop:
            return stop.args[0]

    def _result(self, verdict: Verdict, violation: Violation | None = None, error=None,
                stop_reason: str | None = None, queue_left: int = 0) -> Result:
        if verdict in (Verdict.INVARIANT_VIOLATED, Verdict.DEADLOCK, Verdict.ERROR):
            queue_left = len(self.states) - self.head
        return Result(verdict, len(self.states), self.generated, self.depth,
                      time.perf_counter() - self.start, self.coverage, violation, error, stop_reason, queue_left)

    def _add(self, state: tuple, parent: int) -> int:
        i = len(self.states)
        self.states.append(state)
        self.parents.append(parent)
        self.index[state] = i
        if self.depths is not None:
            self.depths.append(0 if parent < 0 else self.depths[parent] + 1)
        if len(self.witnesses) < len(self.reachables):
            for name, pred in self.reachables:
                if name not in self.witnesses:
                    try:
                        hit = pred(state)
                    except (Fault, RecursionError) as fault:
                        raise self._fault(fault, i, f"evaluating reachable check {name}") from None
                    if hit:
                        self.witnesses[name] = i
        return i

    def _fault(self, fault: Fault | RecursionError, at: int, note: str) -> _Stop:
        if isinstance(fault, RecursionError):
            err = EvalError("E406", f"recursion too deep while {note}", None)
        else:
            err = self.model.eval_error(fault)
            err.message = f"{err.message} (while {note})"
        trace = self.trace_to(at)
        err.trace = trace
        return _Stop(self._result(Verdict.ERROR, Violation("error", err.code, trace, err.message), error=err))

    def _check_invariants(self, i: int) -> None:
        state = self.states[i]
        for name, inv in self.invariants:
            try:
                ok = inv(state)
            except (Fault, RecursionError) as fault:
                raise self._fault(fault, i, f"evaluating invariant {name}") from None
            if not ok:
                trace = self.trace_to(i)
                violation = Violation("invariant", name, trace, "the invariant is false in the last state")
                if self.options.collect:
                    self.violations.append(violation)
                    self.invariants = tuple((n, f) for n, f in self.invariants if n != name)
                    return
                raise _Stop(self._result(Verdict.INVARIANT_VIOLATED, violation))

    def _in_model(self, state: tuple, at: int) -> bool:
        for name, con in self.model.constraints:
            try:
                if not con(state):
                    return False
            except (Fault, RecursionError) as fault:
                raise self._fault(fault, at, f"evaluating constraint {name}") from None
        return True

    def _run(self) -> Result:
        model = self.model
        opts = self.options
        try:
            for state in model.init():
                self.generated += 1
                if state in self.index or not self._in_model(state, -1):
                    continue
                i = self._add(state, -1)
                self.depth = 1
                self._check_invariants(i)
        except (Fault, RecursionError) as fault:
            raise self._fault(fault, -1, "computing the initial states") from None
        actions = list(enumerate(model.actions))
        coverage = self.coverage
        index = self.index
        states = self.states
        constraints = bool(model.constraints)
        graph = self.graph
        head = 0
        level_end = len(states)
        next_report = time.perf_counter() + self.progress_every
        max_states = opts.max_states
        level = 1
        while head < len(states):
            if head == level_end:
                level_end = len(states)
                level += 1
            if opts.max_depth is not None and level >= opts.max_depth:
                return self._result(Verdict.INCOMPLETE, stop_reason="max_depth", queue_left=len(states) - head)
            state = states[head]
            parent = head
            head += 1
            self.head = head
            found = False
            if graph is not None:
                graph.edge_start.append(len(graph.succ))
            for ai, act in actions:
                cov = coverage[ai]
                n = 0  # successors not yet added to self.generated
                total = 0
                try:
                    for args, succ in act(state):
                        n += 1
                        if graph is not None:
                            self._record(graph, ai, args, succ, parent)
                        if succ in index:
                            continue
                        if constraints and not self._in_model(succ, parent):
                            continue
                        self.generated += n
                        total += n
                        n = 0
                        i = self._add(succ, parent)
                        if graph is not None:
                            graph.succ[-1] = i
                        self.depth = level + 1
                        cov.distinct += 1
                        self._check_invariants(i)
                except (Fault, RecursionError) as fault:
                    self.generated += n
                    name = model.action_info[ai].name
                    raise self._fault(fault, parent, f"computing action {name}") from None
                self.generated += n
                total += n
                if total:
                    found = True
                    cov.enabled += 1
                    cov.generated += total
            if not found and opts.check_deadlock:
                violation = Violation("deadlock", None, self.trace_to(parent), "a state with no successor")
                if not opts.collect:
                    return self._result(Verdict.DEADLOCK, violation)
                if not any(v.kind == "deadlock" for v in self.violations):
                    self.violations.append(violation)
            if max_states is not None and len(states) >= max_states and head < len(states):
                return self._result(Verdict.INCOMPLETE, stop_reason="max_states", queue_left=len(states) - head)
            if head & 0x3FF == 0:
                now = time.perf_counter()
                if opts.time_limit is not None and now - self.start > opts.time_limit:
                    return self._result(Verdict.INCOMPLETE, stop_reason="time_limit", queue_left=len(states) - head)
                if self.progress is not None and now >= next_report:
                    next_report = now + self.progress_every
                    self.progress(Progress(self.generated, len(states), len(states) - head, self.depth,
                                           now - self.start))
        return self._finish()

    def _record(self, graph: Graph, action: int, args: tuple, succ: tuple, parent: int) -> None:
        """Append a transition; the successor index is -1 until the state is stored (or for good,
        when it fails a constraint)."""
        graph.succ.append(self.index.get(succ, -1))
        graph.action.append(action)
        graph.args_id.append(graph.intern(args))

    def _finish(self) -> Result:
        """The search is complete: reachable checks, then temporal properties."""
        witnesses = {name: self.trace_to(i) for name, i in self.witnesses.items()}
        found = list(self.violations)
        for name, _ in self.reachables:
            if name not in self.witnesses:
                found.append(Violation("unreachable", name, Trace(()), "no reachable state satisfies it"))
        if self.graph is not None and (self.options.collect or not found):
            checker = LivenessChecker(self.model, self.graph, self.states, self.parents, self.depths)
            for v in checker.check(self.properties, stop_at_first=not self.options.collect):
                kind = "property" if v.kind == "safety" else "liveness"
                found.append(Violation(kind, v.name, v.trace, v.detail))
        verdict = _VERDICTS[found[0].kind] if found else Verdict.OK
        result = self._result(verdict, found[0] if found else None)
        result.witnesses = witnesses
        result.violations = found
        return result

    # ---------------------------------------------------------------- traces
    def trace_to(self, i: int) -> Trace:
        """The path of stored states from an initial state to state `i`, with the actions between them."""
        if i < 0:
            return Trace(())
        path = []
        while i >= 0:
            path.append(i)
            i = self.parents[i]
        path.reverse()
        steps = [Step(None, (), self.states[path[0]])]
        for a, b in zip(path, path[1:]):
            steps.append(_find_step(self.model, self.states[a], self.states[b]))
        return Trace(tuple(steps))


_VERDICTS = {
    "deadlock": Verdict.DEADLOCK, "invariant": Verdict.INVARIANT_VIOLATED, "property": Verdict.INVARIANT_VIOLATED,
    "liveness": Verdict.LIVENESS_VIOLATED, "unreachable": Verdict.UNREACHABLE,
}


def _select(named: tuple, wanted: tuple[str, ...] | None) -> tuple:
    return named if wanted is None else tuple((n, f) for n, f in named if n in wanted)


def _find_step(model: Model, state: tuple, succ: tuple) -> Step:
    """The first action instance (in exploration order) that leads from `state` to `succ`."""
    for ai, act in enumerate(model.actions):
        for args, t in act(state):
            if t == succ:
                return Step(ai, args, t)
    raise AssertionError("no action leads to the stored successor")  # pragma: no cover
