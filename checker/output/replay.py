"""Replay a saved counterexample against a spec (possibly a fixed variant) and explain where it stops.

`replay` re-executes the trace step by step. The set of *candidate* current
states starts as the model's initial states that agree with the recorded
first state; each step runs the recorded action with the recorded arguments
from every candidate and keeps the successors that agree with the recorded
next state. "Agree" compares the variables both the trace and the model know,
so a variant that adds a variable (a generation counter, say) can replay a
trace saved from the base spec; nondeterministic actions and several initial
states are handled because every matching successor is kept. A trace from an
ITF tool that records no actions is replayed by trying every action. A lasso
also checks the transition from the last state back to the loop state.

Finding the cause. When a step fails, the report names what is responsible:
the first `require` that is false (step disabled), or the assignment that
wrote a variable to a value other than the recorded one (step diverges).
Two approaches were possible: (1) an IR interpreter that evaluates guards
one by one, which would duplicate every operation of the code generator and
could drift from it; (2) compiling an *instrumented variant* of the actions
and reusing the code generator unchanged. This module does (2): an IR-to-IR
rewrite (`_Instrument`) turns each `require c; rest` into
`if c: rest else: __fail = k` (and each `with x in S` into a check that S is
not empty), records after every assignment to variable v which assignment
wrote it last (`__wrote_v = j`), and drops range bounds (a failing path may
hold out-of-range values). The instrumented model therefore yields one
successor per control path and parameter value, never aborts, and its extra
slots say which guard failed or which assignment wrote what. The real model
decides enabledness and successors; the instrumented one only explains.
Limits: the "first" failing guard is the first along the first path in
canonical order (for an `either`, other branches may fail elsewhere: their
number is reported); an evaluation fault inside a guard is reported as such.
"""

from __future__ import annotations

import dataclasses
import traceback
from dataclasses import dataclass
from enum import Enum

from tlacheck.compile.model import Model, compile_spec
from tlacheck.core import types as T
from tlacheck.core.errors import suggest
from tlacheck.core.result import Step, Trace
from tlacheck.core.runtime import EVAL_FAILURES, Fault
from tlacheck.core.source import Span
from tlacheck.ir import nodes as ir
from tlacheck.output import diff
from tlacheck.output.savedtrace import SavedTrace, TraceFileError, decode_args


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
    step: int | None = None  # the failing step: 0 for the initial state, k for the k-th action
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


def replay(model: Model, saved: SavedTrace) -> ReplayResult:
    return _Replayer(model, saved).run()


class _Failure(Exception):
    def __init__(self, result: ReplayResult):
        self.result = result


class _Replayer:
    def __init__(self, model: Model, saved: SavedTrace):
        self.model = model
        self.saved = saved
        self.slots = [(model.var_names.index(n), n) for n in model.var_names]
        self.instrumented: _Instrumented | None = None
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

    def _fail(self, outcome: Outcome, message: str, step: int, action: str | None = None, causes=(),
              differences=()) -> _Failure:
        return _Failure(ReplayResult(outcome, self.total, self.replayed, message, step, action, tuple(causes),
                                     tuple(differences), None, self.notes))

    def _agrees(self, state: tuple, recorded: dict) -> bool:
        return all(state[i] == recorded[n] for i, n in self.slots if n in recorded)

    def _differences(self, state: tuple, recorded: dict) -> list[tuple[str, str, str, str]]:
        """Where `state` (replayed) and the recorded state differ, entry by entry: the recorded
        state is diffed against the replayed one (diff.changes), so an element only the recorded
        state has is "added"."""
        known = [(i, n) for i, n in self.slots if n in recorded]
        replayed = tuple(state[i] for i, _ in known)
        saved = tuple(recorded[n] for _, n in known)
        out = []
        for c in diff.changes(replayed, saved, [n for _, n in known], [self.model.var_types[i] for i, _ in known]):
            if c.op is diff.Op.CHANGED:
                out.append((c.variable, c.path, c.new_text, c.old_text))
            elif c.op is diff.Op.ADDED:
                out.append((c.variable, c.path, c.element_text, "(absent)"))
            else:
                out.append((c.variable, c.path, "(absent)", c.element_text))
        return out

    def _differing_variables(self, diffs) -> list[str]:
        return list(dict.fromkeys(n for n, _, _, _ in diffs))

    def _run(self) -> ReplayResult:
        model, saved = self.model, self.saved
        first = saved.steps[0].state
        try:
            inits = list(dict.fromkeys(model.init()))
        except EVAL_FAILURES as fault:
            raise self._error(fault, 0, None, "computing the initial states", model.span_of("initial")) from None
        candidates = [s for s in inits if self._agrees(s, first)]
        if not candidates:
            diffs = self._differences(inits[0], first) if inits else []
            causes = [Cause(f"the initial value of `{n}` is declared here", self._var_span(n))
                      for n in self._differing_variables(diffs)]
            raise self._fail(Outcome.INITIAL_DIFFERS, "the recorded initial state is not an initial state of "
                             "this spec", 0, None, causes, diffs)
        trace_steps = [Step(None, (), candidates[0])]
        chosen: list[list[tuple]] = [candidates]
        for k, step in enumerate(saved.steps[1:], start=1):
            candidates, made = self._step(k, step, candidates)
            chosen.append(candidates)
            trace_steps.append(made)
            self.replayed = k
        closing_step = None
        if saved.loop_index is not None:
            # the closing transition: the recorded action, or any action; a last state that
            # stutters forever needs none
            stutters = saved.closing is None and saved.loop_index == len(saved.steps) - 1
            if not stutters:
                step = saved.closing or _ClosingStep(saved.steps[saved.loop_index].state)
                _, closing_step = self._step(len(saved.steps), step, candidates)
            self.replayed = self.total
        try:
            trace = _rebuild(model, trace_steps, chosen, saved.loop_index)
        except EVAL_FAILURES as fault:  # the steps ran once already; a RecursionError need not recur
            raise self._error(fault, self.total, None, "rebuilding the replayed trace") from None
        if closing_step is not None:
            trace = Trace(trace.steps, trace.loop_index, Step(closing_step.action, closing_step.args,
                                                             trace.steps[saved.loop_index].state))
        still = None
        if saved.kind == "invariant" and saved.name in dict(model.invariants):
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
    def _step(self, k: int, step, candidates: list[tuple]) -> tuple[list[tuple], Step]:
        model = self.model
        recorded = step.state
        where = self._where(k)
        if not step.action_known:
            return self._any_action(k, recorded, candidates, where)
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
        succs = []
        for cand in candidates:
            try:
                succs += [(cand, s) for got, s in model.actions[a](cand) if got == args]
            except EVAL_FAILURES as fault:
                raise self._error(fault, k, label, f"computing action {info.name}", info.span) from None
        if not succs:
            raise self._disabled(k, a, args, candidates, label)
        matching = list(dict.fromkeys(s for _, s in succs if self._agrees(s, recorded)))
        if not matching:
            raise self._diverges(k, a, args, succs, recorded, label)
        return matching, Step(a, args, matching[0])

    def _any_action(self, k: int, recorded: dict, candidates, where: str) -> tuple[list[tuple], Step]:
        found: list[tuple] = []
        first = None
        for cand in candidates:
            for a, act in enumerate(self.model.actions):
                try:
                    for args, s in act(cand):
                        if self._agrees(s, recorded) and s not in found:
                            found.append(s)
                            first = first or Step(a, args, s)
                except EVAL_FAILURES as fault:
                    info = self.model.action_info[a]
                    raise self._error(fault, k, info.name, f"computing action {info.name}", info.span) from None
        if not found:
            diffs = self._differences(candidates[0], recorded)
            raise self._fail(Outcome.DIVERGES, f"{where}: no action leads to the recorded state", k, None, (),
                             diffs)
        return found, first

    # ---------------------------------------------------------------- explanations
    def _where(self, k: int) -> str:
        return "the transition back to the loop state" if k == len(self.saved.steps) else f"step {k}"

    def _error(self, fault: Fault | RecursionError | MemoryError, k: int, label: str | None, note: str,
               span: Span | None = None, model: Model | None = None) -> _Failure:
        """Step `k` failed to evaluate (runtime.EVAL_FAILURES) while `note` ("computing action A"),
        as `check` reports it: a Fault's own message and place, E406 or E411 at the line being
        computed, else at `span` (Model.limit_error). `model`: the one that raised it (default:
        the spec's; the instrumented copy places errors at the same spec lines)."""
        model = model or self.model
        if isinstance(fault, Fault):
            err = model.eval_error(fault)
        else:
            err = model.limit_error(fault, note, span)
        return self._fail(Outcome.ERROR, f"{self._where(k)}: evaluation error[{err.code}]: {err.message}", k, label,
                          [Cause(err.message, err.span)])

    def _inst(self) -> _Instrumented:
        if self.instrumented is None:
            self.instrumented = _Instrumented(self.model)
        return self.instrumented

    def _disabled(self, k: int, a: int, args: tuple, candidates, label: str) -> _Failure:
        inst = self._inst()
        info = self.model.action_info[a]
        fails: list[int] = []
        seen_args = False
        try:
            for cand in candidates:
                for got, fail, _wrote, _state in inst.run(a, cand):
                    if got == args:
                        seen_args = True
                        fails.append(fail)
        except EVAL_FAILURES as fault:  # explaining the step failed where running it did not
            return self._error(fault, k, label, f"computing action {info.name}", info.span, inst.model)
        if not seen_args:
            return self._fail(Outcome.BAD_ARGUMENTS,
                              f"{self._where(k)}: {label} is not an instance of `{info.name}` any more: an argument is "
                              "outside its parameter's domain", k, label,
                              [Cause(f"`{info.name}` and its parameters are declared here", info.span)])
        failing = [f for f in fails if f]
        causes = []
        if failing:
            kind, span = inst.guards[failing[0] - 1]
            what = "this `require` is false" if kind == "require" else "this `with` has no value to choose"
            others = sorted(set(failing[1:]) - {failing[0]})
            if others:
                what += f" (other paths through the action stop at {len(others)} other guard"
                what += "s)" if len(others) > 1 else ")"
            causes.append(Cause(what, span))
        return self._fail(Outcome.DISABLED, f"{self._where(k)}: {label} is disabled in the state reached after "
                          f"step {k - 1}",
                          k, label, causes)

    def _diverges(self, k: int, a: int, args: tuple, succs, recorded: dict, label: str) -> _Failure:
        # the successor closest to the recorded state explains the difference best
        best_cand, best = min(succs, key=lambda cs: len(self._differences(cs[1], recorded)))
        diffs = self._differences(best, recorded)
        inst = self._inst()
        wrote = None
        n = len(self.model.var_names)
        try:
            for got, fail, w, state in inst.run(a, best_cand):
                if got == args and fail == 0 and state[:n] == best:
                    wrote = w
                    break
        except EVAL_FAILURES as fault:
            info = self.model.action_info[a]
            return self._error(fault, k, label, f"computing action {info.name}", info.span, inst.model)
        causes = []
        for name in self._differing_variables(diffs):
            slot = self.model.var_names.index(name)
            j = wrote[slot] if wrote is not None else 0
            if j:
                causes.append(Cause(f"`{name}` gets its value here", inst.assignments[j - 1]))
            else:
                causes.append(Cause(f"`{self.model.action_info[a].name}` does not assign `{name}`, so it keeps its "
                                    "value", self.model.action_info[a].span))
        return self._fail(Outcome.DIVERGES, f"{self._where(k)}: {label} reaches a different state", k, label,
                          causes, diffs)

    def _var_span(self, name: str):
        for v in self.model.spec.variables:
            if v.name == name:
                return v.span
        return None


def _drop_frames(exc: BaseException) -> None:
    """Free the locals of the frames `exc` went through (a MemoryError's may hold much)."""
    traceback.clear_frames(exc.__traceback__)
    exc.__traceback__ = None


@dataclass(frozen=True)
class _ClosingStep:
    state: dict
    action_known: bool = False


def _rebuild(model: Model, steps: list[Step], chosen: list[list[tuple]], loop_index) -> Trace:
    """A consistent trace through the candidate sets (the first candidate of each set is not always
    a successor of the first candidate of the previous one when variables are missing)."""
    if all(len(c) == 1 for c in chosen):
        return Trace(tuple(steps), loop_index)
    # walk back from the last set: pick, for each state, a predecessor in the previous set
    out = [chosen[-1][0]]
    for k in range(len(chosen) - 1, 0, -1):
        a, args = steps[k].action, steps[k].args
        for prev in chosen[k - 1]:
            if a is None or any(got == args and s == out[-1] for got, s in model.actions[a](prev)):
                out.append(prev)
                break
        else:  # pragma: no cover - every kept state has a predecessor in the previous set
            out.append(chosen[k - 1][0])
    out.reverse()
    return Trace(tuple(Step(s.action, s.args, st) for s, st in zip(steps, out)), loop_index)


# ---------------------------------------------------------------- instrumentation

class _Instrumented:
    """The spec's actions rewritten so every control path yields a state that records which guard
    failed (`__fail`, 0 if none) and which assignment last wrote each variable (`__wrote_v`)."""

    def __init__(self, model: Model):
        spec = model.spec
        n = len(spec.variables)
        self.n = n
        rewrite = _Instrument(n)
        span = spec.variables[0].span if spec.variables else None
        zero = ir.Lit(T.INT, span, 0)
        extra = [ir.Variable("__fail", T.INT, zero, False, None, span)]
        extra += [ir.Variable(f"__wrote_{i}", T.INT, zero, False, None, span) for i in range(n)]
        variables = tuple(dataclasses.replace(v, bounds=None) for v in spec.variables) + tuple(extra)
        actions = tuple(dataclasses.replace(a, body=rewrite.block(list(a.body))) for a in spec.actions)
        instrumented = dataclasses.replace(spec, variables=variables, actions=actions, invariants=(),
                                           constraints=(), properties=(), reachables=(), fairness=(),
                                           theorems=())
        self.model = compile_spec(instrumented)
        self.guards = rewrite.guards
        self.assignments = rewrite.assignments

    def run(self, action: int, state: tuple):
        """(args, failed guard number or 0, wrote numbers per variable, full state) for each path."""
        extended = tuple(state) + (0,) * (self.n + 1)
        for args, s in self.model.actions[action](extended):
            yield args, s[self.n], s[self.n + 1:], s


class _Instrument:
    def __init__(self, n: int):
        self.fail_slot = n
        self.guards: list[tuple[str, Span]] = []  # (kind, span), numbered from 1
        self.assignments: list[Span] = []  # numbered from 1

    def _lit(self, value: int, span) -> ir.Lit:
        return ir.Lit(T.INT, span, value)

    def _set_fail(self, kind: str, span) -> ir.AssignS:
        self.guards.append((kind, span))
        return ir.AssignS(span, self.fail_slot, (), self._lit(len(self.guards), span))

    def _ok(self, span) -> ir.Expr:
        return ir.Prim(T.BOOL, span, "eq", (ir.VarRef(T.INT, span, self.fail_slot), self._lit(0, span)))

    def block(self, stmts: list) -> tuple:
        out: list = []
        for i, st in enumerate(stmts):
            rest = stmts[i + 1:]
            if isinstance(st, ir.RequireS):
                fail = self._set_fail("require", st.span)
                out.append(ir.IfS(st.span, ((st.cond, self.block(rest)),), (fail,)))
                return tuple(out)
            if isinstance(st, ir.AssignS):
                self.assignments.append(st.span)
                out.append(st)
                out.append(ir.AssignS(st.span, self.fail_slot + 1 + st.slot, (),
                                      self._lit(len(self.assignments), st.span)))
                continue
            guards_before = len(self.guards)
            if isinstance(st, ir.IfS):
                new = ir.IfS(st.span, tuple((c, self.block(list(b))) for c, b in st.branches),
                             self.block(list(st.orelse)))
            elif isinstance(st, ir.EitherS):
                new = ir.EitherS(st.span, tuple(self.block(list(b)) for b in st.branches))
            elif isinstance(st, ir.WithS):
                new = self._with(st.span, list(st.binders), list(st.body))
            else:  # LetS, and statement kinds this rewrite does not know: unchanged
                out.append(st)
                continue
            out.append(new)
            if rest and len(self.guards) > guards_before:
                out.append(ir.IfS(st.span, ((self._ok(st.span), self.block(rest)),), ()))
                return tuple(out)
        return tuple(out)

    def _with(self, span, binders: list, body: list) -> ir.Stmt:
        (local, domain), more = binders[0], binders[1:]
        inner = (self._with(span, more, body),) if more else self.block(body)
        fail = self._set_fail("with", span)
        nonempty = ir.Prim(T.BOOL, span, "gt", (ir.Prim(T.INT, span, "card", (domain,)), self._lit(0, span)))
        return ir.IfS(span, ((nonempty, (ir.WithS(span, ((local, domain),), inner),)),), (fail,))
