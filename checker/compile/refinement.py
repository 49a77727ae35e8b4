"""Refinement: `refines NAME "FILE":` says that this spec implements the abstract spec in FILE
under a mapping of the abstract variables (and constants) to expressions of this spec: TLA+'s
`NAME == INSTANCE M WITH v <- e, ...` with `PROPERTY NAME!Spec`, its safety part.

    refines TD "sync_termination_detection.spec":
        terminationDetected = terminationDetected()
        N = N

An abstract variable or constant that has no mapping line maps to the name it has (TLA+'s
implicit substitution): to this spec's variable or constant of that name, or to its `def` of
that name without parameters; an abstract constant without one keeps its own value. The
abstract spec's variables and constants include those of the files it imports (a constant both
specs import follows this spec's -D overrides).

The check, made during the search like a step property, on every behaviour of this spec:

- every initial state maps to an initial state of the abstract spec;
- every step maps to a step of the abstract spec, or to a step that leaves every abstract
  variable unchanged (a stuttering step: `[Next]_vars`).

The abstract spec's fairness (TLA+'s `WF_vars(A)` inside `M!Spec`) is checked too, after the
search, on the behaviour graph: every fair behaviour of this spec must satisfy each abstract
condition under the mapping (engine/liveness.py `refinement_obligations`, decided by its Checker). Enabledness is
the abstract spec's: a condition is enabled in a state when an instance of its actions can take
a step from the abstract state it maps to. The abstract spec is checked as a spec of its own (type errors are
reported in its file), with its constants set to the values the mapping gives.

The front end's pass `lang/refinement.py` `load` reads the abstract files and completes the
mappings on the syntax tree; `checks`, here, runs on the compiled model (it builds the abstract
models, through the pipeline, and the two predicates).
"""

from __future__ import annotations

from dataclasses import dataclass

from tlacheck.core import runtime
from tlacheck.core.errors import SpecError
from tlacheck.core.source import Source
from tlacheck.core.values import format_value


def _err(message: str, span, hint: str | None = None) -> SpecError:
    return SpecError.single("E130", message, span, hint)


@dataclass(frozen=True)
class Check:
    """One refinement, compiled: the abstract model, and functions of a concrete state."""

    name: str
    abstract: object  # the abstract Model
    state_of: object  # (s) -> the abstract state s maps to

    def initially(self, s) -> bool:
        return self.state_of(s) in self._initial()

    def step(self, s, t) -> bool:
        a, b = self.state_of(s), self.state_of(t)
        if a == b:
            return True
        return any(next_state == b for action in self.abstract.actions for _, next_state in action(a))

    def _initial(self) -> frozenset:
        cached = self.__dict__.get("_inits")
        if cached is None:
            cached = frozenset(self.abstract.init())
            object.__setattr__(self, "_inits", cached)
        return cached

    def describe(self, state) -> str:
        """The abstract state `state` maps to, as `v = value, ...` (for reports)."""
        try:
            mapped = self.state_of(state)
        except runtime.EVAL_FAILURES:
            return "(cannot be computed)"
        m = self.abstract
        return ", ".join(f"{n} = {format_value(v, t)}" for n, v, t in zip(m.var_names, mapped, m.var_types))


def checks(model, sources: dict[str, Source], build) -> tuple[Check, ...]:
    """The refinements of `model`, compiled; `build(source, overrides)` builds the abstract model."""
    out = []
    spec = model.ir
    for r, (state_fn, const_fn) in zip(spec.refinements, model.generated.entries.refinements):
        values = model.namespace[const_fn](None) if r.constants else ()
        types = [x.type for x in r.constants_expr.expr.items]
        overrides = {n: format_value(v, t) for n, v, t in zip(r.constants, values, types)}
        try:
            abstract = build(sources[r.name], overrides)
        except SpecError as exc:
            raise exc from None
        if tuple(abstract.var_names) != tuple(r.variables):  # pragma: no cover (load read the same file)
            raise _err("the abstract spec changed while it was read", r.span)
        for n, t, mapped, span in zip(r.variables, abstract.var_types, r.state.expr.items, r.variable_spans):
            if mapped.type != t:
                raise _err(f"`{n}` is {t} in the abstract spec, but it maps to {mapped.type}", span,
                           "the mapping must give each abstract variable a value of its type")
        out.append(Check(r.name, abstract, model.namespace[state_fn]))
    return tuple(out)
