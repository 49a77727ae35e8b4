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

`load` runs on the syntax tree (it reads the abstract files and completes the mappings);
`checks` on the compiled model (it builds the abstract models and the two predicates).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from tlacheck.core import runtime
from tlacheck.core.errors import SpecError, TlacheckError
from tlacheck.core.files import beside, read_source
from tlacheck.core.source import Source
from tlacheck.core.values import format_value
from tlacheck.lang import syntax as S


def _err(message: str, span, hint: str | None = None) -> SpecError:
    return SpecError.single("E130", message, span, hint)


def load(tree: S.SpecFile, source: Source) -> tuple[S.SpecFile, dict[str, Source]]:
    """The tree with each `refines` completed (the abstract spec's variables and constants, and
    the implicit mappings), and the abstract specs' sources by refinement name."""
    found = [d for d in tree.declarations if isinstance(d, S.RefinesDecl)]
    if not found:
        return tree, {}
    names = _concrete_names(tree)
    sources: dict[str, Source] = {}
    completed: dict[int, S.RefinesDecl] = {}
    for d in found:
        path = beside(d.path_span.file, d.path)  # beside the file that says it
        if os.path.abspath(path) == os.path.abspath(source.name):
            raise _err("a spec cannot refine itself", d.path_span, "name the abstract spec's file")
        try:
            abstract_source = read_source(path)
            abstract = _parse(abstract_source)
        except TlacheckError as exc:
            if isinstance(exc, SpecError):
                raise
            raise _err(f"cannot read the abstract spec {d.path!r}: {exc}", d.path_span,
                       "the path is relative to this spec's file") from None
        variables = tuple(x.name for x in abstract.declarations if isinstance(x, S.VarDecl))
        constants = tuple(x.name for x in abstract.declarations if isinstance(x, S.ConstDecl))
        mapping = list(d.mapping)
        given = set()
        for n, span, _ in d.mapping:
            if n in given:
                raise _err(f"`{n}` is mapped twice", span)
            if n not in variables and n not in constants:
                raise _err(f"the abstract spec has no variable or constant `{n}`", span,
                           "its variables: " + ", ".join(f"`{v}`" for v in variables))
            given.add(n)
        for n in variables + constants:
            if n in given:
                continue
            implicit = names.get(n)
            if implicit is None and n in variables:
                raise _err(f"the abstract variable `{n}` has no mapping", d.name_span,
                           f"add a line `{n} = EXPR` under `refines {d.name}`: what `{n}` is in this spec's state")
            if implicit is not None:
                mapping.append((n, d.name_span, implicit(d.name_span)))
        order = {n: i for i, n in enumerate(variables + constants)}
        mapping.sort(key=lambda m: order[m[0]])
        mapped = {n for n, _, _ in mapping}
        completed[id(d)] = dataclasses.replace(d, mapping=tuple(mapping), variables=variables,
                                               constants=tuple(c for c in constants if c in mapped))
        sources[d.name] = abstract_source
    decls = tuple(completed.get(id(d), d) for d in tree.declarations)
    return dataclasses.replace(tree, declarations=decls), sources


def _parse(source: Source) -> S.SpecFile:
    """The abstract spec's tree with the declarations of the files it imports in front of its own
    (as build_model reads it): their variables and constants are the abstract spec's too."""
    from tlacheck.lang.modules import resolve
    from tlacheck.lang.parser import parse

    return resolve(parse(source), source)


def _concrete_names(tree: S.SpecFile) -> dict:
    """This spec's names an abstract name may map to implicitly: variables, constants, defs
    without parameters (each as a function of the span to give the expression)."""
    out = {}
    for d in tree.declarations:
        if isinstance(d, (S.VarDecl, S.ConstDecl)):
            out[d.name] = lambda span, n=d.name: S.Name(span, n)
        elif isinstance(d, S.DefDecl) and not d.params:
            out[d.name] = lambda span, n=d.name: S.Call(span, n, span, ())
    return out


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
    spec = model.spec
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
