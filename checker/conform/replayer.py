"""Replay a saved counterexample against a spec (possibly a fixed variant) and explain where it stops.

`replay` matches the trace, step by step, with the one candidate-set matcher
(engine/matcher.py), the one `tlacheck conform` uses for logs. The set of
*candidate* current states starts as the model's initial states that agree
with the recorded first state; each step runs the recorded action with the
recorded arguments from every candidate and keeps the successors that agree
with the recorded next state. "Agree" compares the variables both the trace
and the model know, so a variant that adds a variable (a generation counter,
say) can replay a trace saved from the base spec; nondeterministic actions and
several initial states are handled because every matching successor is kept.
A trace from an ITF tool that records no actions is replayed by trying every
action. A lasso also checks the transition from the last state back to the
loop state. Unlike `conform`, replay allows no unlogged step and makes no
check along the way: the trace is the whole behaviour.

What it finds is an output/replay.py ReplayResult, numbered as every output numbers states.

Finding the cause. When a step fails, the report names what is responsible:
the first `require` that is false (step disabled), or the assignment that
wrote a variable to a value other than the recorded one (step diverges), from
the instrumented copy of the actions (compile/instrument.py, through the
matcher's Explainer). Limits: the "first" failing guard is the first along
the first path in canonical order (for an `either`, other branches may fail
elsewhere: their number is reported); an evaluation fault inside a guard is
reported as such.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

from tlacheck.compile.model import Model
from tlacheck.core.errors import EvalError, suggest
from tlacheck.core.events import Call, Event
from tlacheck.core.result import Check, Step, Trace
from tlacheck.core.runtime import EVAL_FAILURES
from tlacheck.engine.matcher import Explainer, Matcher, MatchFault
from tlacheck.output.replay import Cause, Outcome, ReplayResult, recorded_differences
from tlacheck.output.savedtrace import SavedTrace, TraceFileError, decode_args


def replay(model: Model, saved: SavedTrace) -> ReplayResult:
    return _Replayer(model, saved).run()


class _Failure(Exception):
    def __init__(self, result: ReplayResult):
        self.result = result


class _Replayer:
    def __init__(self, model: Model, saved: SavedTrace):
        self.model = model
        self.saved = saved
        self.slots = {n: i for i, n in enumerate(model.var_names)}
        self.matcher = Matcher(model)
        self.explainer = Explainer(model)
        self.replayed = 0
        stutters = saved.closing is None and saved.loop_index == len(saved.steps) - 1
        self.total = len(saved.steps) - 1 + int(saved.loop_index is not None and not stutters)
        notes = []
        if saved.extra_vars:
            notes.append(f"the trace's variables {', '.join(saved.extra_vars)} are not in this spec: ignored")
        if saved.missing_vars:
            notes.append(f"this spec's variables {', '.join(saved.missing_vars)} are not in the trace: "
                         "they take whatever values the spec gives them")
        self.notes = tuple(notes)

    # ---------------------------------------------------------------- driver
    def run(self) -> ReplayResult:
        try:
            return self._run()
        except _Failure as failure:
            return failure.result

    def _fail(self, outcome: Outcome, message: str, k: int, action: str | None = None, causes=(),
              differences=()) -> _Failure:
        """The replay fails at step k (0: the initial state), which leads to state k + 1."""
        return _Failure(ReplayResult(outcome, self.total, self.replayed, message, k + 1, action, tuple(causes),
                                     tuple(differences), None, self.notes))

    def _recorded(self, recorded: dict) -> tuple:
        """The recorded variables the model knows, as the matcher compares them: (slot, value)."""
        return tuple((self.slots[n], v) for n, v in recorded.items() if n in self.slots)

    def _differences(self, state: tuple, recorded: dict) -> list[tuple[str, str, str, str]]:
        """Where `state` (replayed) and the recorded state differ, entry by entry: the recorded
        state is diffed against the replayed one (diff.changes), so an element only the recorded
        state has is "added"."""
        return recorded_differences(self.model, state, self._recorded(recorded))

    def _differing_variables(self, diffs) -> list[str]:
        return list(dict.fromkeys(n for n, _, _, _ in diffs))

    def _run(self) -> ReplayResult:
        model, saved = self.model, self.saved
        first = saved.steps[0].state
        matcher = self.matcher
        try:
            started = matcher.start((Event(None, self._recorded(first), initial=True),))
        except MatchFault as fault:
            raise self._error(fault.error, 0, None) from None
        if not started:
            inits = list(dict.fromkeys(matcher.initial_states()))
            diffs = self._differences(inits[0], first) if inits else []
            causes = [Cause(f"the initial value of `{n}` is declared here", self.model.span_of("variable", n))
                      for n in self._differing_variables(diffs)]
            raise self._fail(Outcome.INITIAL_DIFFERS, "the recorded initial state is not an initial state of "
                             "this spec", 0, None, causes, diffs)
        for k, step in enumerate(saved.steps[1:], start=1):
            self._step(k, step)
            self.replayed = k
        last = matcher.frontier[0]
        closing = None
        if saved.loop_index is not None:
            # the closing transition: the recorded action, or any action; a last state that
            # stutters forever needs none
            stutters = saved.closing is None and saved.loop_index == len(saved.steps) - 1
            if not stutters:
                step = saved.closing or _ClosingStep(saved.steps[saved.loop_index].state)
                self._step(len(saved.steps), step)
                closing = matcher.frontier[0]
                last = closing.parent
            self.replayed = self.total
        try:
            trace, _ = matcher.history(last)
        except EVAL_FAILURES as fault:  # the steps ran once already; a RecursionError need not recur
            raise self._error(self.explainer.error(fault, "rebuilding the replayed trace", None), self.total,
                              None) from None
        trace = Trace(trace.steps, saved.loop_index)
        if closing is not None:
            trace = Trace(trace.steps, saved.loop_index, Step(closing.action, closing.args,
                                                             trace.steps[saved.loop_index].state))
        still = None
        if saved.kind == Check.INVARIANT and saved.name in dict(model.invariants):
            inv = dict(model.invariants)[saved.name]
            try:
                still = not inv(trace.steps[-1].state)
            except EVAL_FAILURES as exc:  # not known: the replay itself succeeded
                _drop_frames(exc)
                still = None
        verb = "replays" if self.total else "replays (it has no steps)"
        return ReplayResult(Outcome.REPLAYS, self.total, self.total, f"the trace {verb}: every step is enabled "
                            "and reaches the recorded state", still_violates=still, notes=self.notes, trace=trace)

    # ---------------------------------------------------------------- one step
    def _step(self, k: int, step) -> None:
        """Match step k (the closing transition of a lasso is step len(steps)); raise a _Failure
        that says why when no candidate takes it."""
        model = self.model
        recorded = step.state
        where = self._where(k)
        candidates = [n.state for n in self.matcher.frontier]
        if not step.action_known:
            event = Event(None, self._recorded(recorded))
            if not self._feed(event, k, None):
                diffs = self._differences(candidates[0], recorded)
                raise self._fail(Outcome.DIVERGES, f"{where}: no action leads to the recorded state", k, None, (),
                                 diffs)
            return
        names = [info.name for info in model.action_info]
        if step.action not in names:
            hint = suggest(step.action, names)
            raise self._fail(Outcome.UNKNOWN_ACTION, f"{where}: the spec has no action `{step.action}`"
                             + (f" (did you mean `{hint}`?)" if hint else ""), k, step.action)
        a = names.index(step.action)
        info = model.action_info[a]
        try:
            args = decode_args(step.args, info, self.saved.format)
        except TraceFileError as exc:
            raise self._fail(Outcome.BAD_ARGUMENTS, f"{where}: {exc}", k, step.action,
                             [Cause(f"`{info.name}` is declared here", info.span)]) from None
        label = model.step_label(a, args)
        call = Call(a, tuple(enumerate(args)))
        if self._feed(Event((call,), self._recorded(recorded)), k, label):
            return
        succs = [(cand, s) for cand in candidates for got, s in model.actions[a](cand) if got == args]
        if not succs:
            raise self._disabled(k, call, candidates, label)
        raise self._diverges(k, call, succs, recorded, label)

    def _feed(self, event: Event, k: int, label: str | None) -> bool:
        try:
            return self.matcher.feed(event)
        except MatchFault as fault:
            name = label or (self.model.action_info[fault.action].name if fault.action is not None else None)
            raise self._error(fault.error, k, name) from None

    # ---------------------------------------------------------------- explanations
    def _where(self, k: int) -> str:
        if k == len(self.saved.steps):
            return f"the step back to state {self.saved.loop_index + 1}"
        return f"state {k + 1}"

    def _error(self, err: EvalError, k: int, label: str | None) -> _Failure:
        """Step `k` failed to evaluate, as `check` reports it (engine/matcher.py evaluation_error)."""
        return self._fail(Outcome.ERROR, f"{self._where(k)}: evaluation error[{err.code}]: {err.message}", k, label,
                          [Cause(err.message, err.span)])

    def _paths(self, k: int, call: Call, state: tuple, label: str):
        info = self.model.action_info[call.action]
        try:
            return self.explainer.paths(call.action, state, call)
        except EVAL_FAILURES as fault:  # explaining the step failed where running it did not
            raise self._error(self.explainer.error(fault, f"computing action {info.name}", info.span), k,
                              label) from None

    def _disabled(self, k: int, call: Call, candidates, label: str) -> _Failure:
        info = self.model.action_info[call.action]
        fails: list[int] = []
        seen_args = False
        for cand in candidates:
            failed, _, fits = self._paths(k, call, cand, label)
            seen_args = seen_args or fits
            fails += failed
        if not seen_args:
            return self._fail(Outcome.BAD_ARGUMENTS,
                              f"{self._where(k)}: {label} is not an instance of `{info.name}` any more: an argument is "
                              "outside its parameter's domain", k, label,
                              [Cause(f"`{info.name}` and its parameters are declared here", info.span)])
        causes = [guard_cause(self.explainer, fails)] if fails else []
        return self._fail(Outcome.DISABLED, f"{self._where(k)}: {label} is disabled in state {k}", k, label, causes)

    def _diverges(self, k: int, call: Call, succs, recorded: dict, label: str) -> _Failure:
        # the successor closest to the recorded state explains the difference best
        best_cand, best = min(succs, key=lambda cs: len(self._differences(cs[1], recorded)))
        diffs = self._differences(best, recorded)
        wrote = next((w for _, s, w in self._paths(k, call, best_cand, label)[1] if s == best), None)
        causes = assignment_causes(self.model, self.explainer, call.action, wrote, self._differing_variables(diffs))
        return self._fail(Outcome.DIVERGES, f"{self._where(k)}: {label} reaches a different state", k, label,
                          causes, diffs)


def guard_cause(explainer: Explainer, failing: list[int]) -> Cause:
    """The first false guard of `failing` (guard numbers of the paths tried, in order), and how
    many other guards other paths stop at."""
    kind, span = explainer.guard(failing[0])
    what = "this `require` is false" if kind == "require" else "this `with` has no value to choose"
    others = sorted(set(failing[1:]) - {failing[0]})
    if others:
        what += f" (other paths through the action stop at {len(others)} other guard"
        what += "s)" if len(others) > 1 else ")"
    return Cause(what, span)


def assignment_causes(model: Model, explainer: Explainer, action: int, wrote, names: list[str]) -> list[Cause]:
    """For each variable in `names` whose value differs after a step of `action`: the assignment
    that wrote it (`wrote`: the path's assignment numbers per variable, None if unknown), or the
    action's declaration when it does not assign it."""
    causes = []
    info = model.action_info[action]
    for name in names:
        slot = model.var_names.index(name)
        j = wrote[slot] if wrote is not None else 0
        if j:
            causes.append(Cause(f"`{name}` gets its value here", explainer.assignment(j)))
        else:
            causes.append(Cause(f"`{info.name}` does not assign `{name}`, so it keeps its value", info.span))
    return causes


def _drop_frames(exc: BaseException) -> None:
    """Free the locals of the frames `exc` went through (a MemoryError's may hold much)."""
    traceback.clear_frames(exc.__traceback__)
    exc.__traceback__ = None


@dataclass(frozen=True)
class _ClosingStep:
    state: dict
    action_known: bool = False
