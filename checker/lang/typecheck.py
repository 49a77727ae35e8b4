"""Resolve names and check types: AST (syntax.py) to IR (ir.py).

Everything that can be known without exploring a state is checked here, before
any state is explored: unknown names (with a did-you-mean hint), duplicate
declarations, type mismatches, wrong arity, assignment to something that is
not a state variable, non-boolean guards and invariants. Errors are raised as
`SpecError` with the span of the offending text; unused variables are warnings.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from tlacheck.core import types as T
from tlacheck.core.errors import Diagnostic, SpecError, UsageError, Warnings, suggest
from tlacheck.core.runtime import NONE
from tlacheck.core.source import Source, Span
from tlacheck.core.tree import walk
from tlacheck.ir import nodes as ir
from tlacheck.ir.symmetry import breaks as symmetry_breaks
from tlacheck.lang import syntax as S
from tlacheck.lang.parser import parse_expression


# Built-in functions: name -> arity (None: takes a generator argument).
BUILTINS = {
    "len": 1, "head": 1, "tail": 1, "append": 2, "subseq": 3, "elems": 1, "domain": 1,
    "powerset": 1, "bigunion": 1, "min": 1, "max": 1, "maps": 2, "orderings": 1,
    "all": None, "any": None, "sum": None, "choose": None, "enabled": 1,
}


class _Ambiguous(Exception):
    """An enum member name shared by several enums, met with no expected type."""

    def __init__(self, name: str, span: Span, sorts: list[T.SortT]):
        super().__init__(name)
        self.name = name
        self.span = span
        self.sorts = sorts

    def error(self) -> SpecError:
        options = " or ".join(f"`{s.name}.{self.name}`" for s in self.sorts)
        return SpecError.single("E108", f"`{self.name}` is a member of several enums", self.span,
                                f"write {options}")


class _Infinite(Exception):
    """A type with no finite list of values (`type`), and what to do instead (`hint`)."""

    def __init__(self, t: T.Type, hint: str):
        super().__init__(str(t))
        self.type = t
        self.hint = hint


def _err(code: str, message: str, span: Span, hint: str | None = None) -> SpecError:
    return SpecError.single(code, message, span, hint)


@dataclass
class _Def:
    index: int
    decl: S.DefDecl
    params: tuple[ir.Local, ...] = ()
    returns: T.Type = T.BOOL


@dataclass
class _Scope:
    names: dict[str, "ir.Local | _Item"] = field(default_factory=dict)


@dataclass(frozen=True)
class _Item:
    """A name bound to item `index` of a tuple-valued local (`for (a, b) in pairs`): each use
    reads as `local[index + 1]`."""

    local: ir.Local
    index: int
    type: T.Type

    @property
    def id(self) -> int:  # what _infer's memo keys on: the items follow from the local
        return self.local.id


def check(tree: S.SpecFile, source: Source, overrides: dict[str, str] | None = None,
          processes: tuple[ir.Process, ...] = (), notes: tuple[Diagnostic, ...] = ()) -> ir.Spec:
    """Resolve and typecheck a spec, the last pass of the front end (pipeline/driver.py): its tree
    has no imports, variants, processes or type aliases left. `overrides` maps constant names to
    `-D` value texts; `processes` and their `notes` (warnings) are what processes.desugar made of
    the spec's processes, kept in the IR for the outputs."""
    spec = _Checker(tree, source, dict(overrides or {})).run()
    if not processes:
        return spec
    return dataclasses.replace(spec, processes=processes, warnings=spec.warnings + tuple(notes))


def _UNCHECKED(t: T.Type, span: Span) -> ir.Expr:
    """The stand-in for a value whose checking failed: the error is collected, and the spec is
    never compiled, so this never runs."""
    return ir.Lit(t, span, None)


def _in_source_order(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics by position (those without a span last), each once."""
    unique = list({(d.code, d.message, d.span): d for d in diagnostics}.values())
    return sorted(unique, key=lambda d: (d.span is None, (d.span.line, d.span.column) if d.span else (0, 0)))


class _Checker:
    def __init__(self, tree: S.SpecFile, source: Source, overrides: dict[str, str]):
        self.tree = tree
        self.source = source
        self.overrides = overrides
        self.override_names = set(overrides)
        self.warnings = Warnings()
        self.defer_bounds = False
        self.sorts: dict[str, T.SortT] = {}
        self.symmetric: list[str] = []  # the sets of model values declared `symmetric`
        self.atoms: dict[str, list[tuple[T.SortT, int]]] = {}
        self.consts: dict[str, tuple[int, T.Type]] = {}
        self.constants: list[ir.Constant] = []
        self.vars: dict[str, tuple[int, T.Type]] = {}
        self.variables: list[ir.Variable] = []
        self.var_bounds: list[ir.Bound | None] = []  # per slot: checked on every assignment
        self.defs: dict[str, _Def] = {}
        self.blocks: dict[str, S.BlockDecl] = {}
        self.scopes: list[_Scope] = []
        self.next_local = 0
        self.reads: set[int] = set()
        self.var_init_limit: int | None = None  # while checking var inits: slots readable
        self.in_def = False
        self.no_state = False  # inside a theorem: state variables cannot be read
        self.in_step = False  # checking a step property: x' is the next state's x
        self.in_property = False  # checking a temporal property's formula (not its step part)
        self.enabled_ok = False  # checking an invariant or a temporal property: enabled(A) allowed
        self.in_action = False  # checking an action's (or a block's) statements: enabled(A) allowed too
        self.assigned = False  # ... and some path to this point has assigned a variable
        # The options known to hold a value here (`require x != none` before, `if x != none:` around,
        # `x != none and ...` on the left): ("var", slot) and ("local", id). A name among them reads
        # as its value, of the option's inner type (_narrowing).
        self.narrowed: frozenset = frozenset()
        self.action_index: dict[str, int] = {}
        self.action_params: list = []
        # ir.function_reads of the checked functions (None until every def body is checked), and
        # the bounds in types, whose state reads are checked then (_check_evaluation_order).
        self.function_reads: list | None = None
        self.type_bounds: list[tuple[ir.Expr, Span, str]] = []
        # While an expression is inferred (_infer): the results so far, and the local each binder
        # in it was given; emptied when the outermost inference returns.
        self.inferring = 0
        self.inferred: dict[tuple, object] = {}
        self.binders: dict[tuple, ir.Local] = {}
        self.hidden: set[Span] = set()  # spans already given a W204
        # Errors collected so far (_recover): every declaration's first, raised together at the end.
        self.errors: list[Diagnostic] = []

    # ---------------------------------------------------------------- driver
    def run(self) -> ir.Spec:
        decls = [d for d in self.tree.declarations if not isinstance(d, (S.VariantDecl, S.ExpectDecl))]
        self._check_duplicates(decls)
        for d in decls:
            if isinstance(d, S.EnumDecl):
                self._declare_sort(d.name, tuple(m for m, _ in d.members), "enum", d.members)
            elif isinstance(d, S.ConstDecl) and self._is_model_set(d.type):
                self._declare_model_const(d)
        self._check_atom_clashes(decls)
        for d in decls:
            if isinstance(d, S.DefDecl):
                self._declare_def(d)
        for d in decls:
            if isinstance(d, S.ConstDecl) and not self._is_model_set(d.type):
                self._declare_const(d)
        self._check_overrides_exist()
        self.initially = next((d for d in decls if isinstance(d, S.InitDecl)), None)
        for d in decls:
            if isinstance(d, S.VarDecl):
                self._declare_var(d)
        self.blocks = {d.name: d for d in decls if isinstance(d, S.BlockDecl)}
        self._check_block_cycles()
        # The bodies, each declaration on its own: an error in one is collected and checking goes
        # on with the next, so that one run reports every body's first error (_recover). What
        # needs every def body (the functions' reads) or every action's parameters (properties,
        # fairness) is checked only when those all checked.
        errors = self.errors  # the initial values' and constants' errors are in already
        functions = [self._recover(errors, self._check_def, self.defs[d.name]) for d in decls if isinstance(d, S.DefDecl)]
        if None not in functions:
            self.function_reads = ir.function_reads(functions)
        action_decls = [d for d in decls if isinstance(d, S.ActionDecl)]
        self.action_index = {d.name: i for i, d in enumerate(action_decls)}
        # the parameters of each action (None where they have an error), for `enabled(A(x))` in the
        # guards of actions declared before A; their errors are reported when the action is checked
        self.action_params = [self._recover([], self._signature, d) for d in action_decls]
        for d in self.blocks.values():  # on their own, once: an error in a block is reported at it
            self._recover(errors, self._check_block, d)
        actions = [self._recover(errors, self._check_action, d) for d in action_decls]
        # the parameters of each action as checked (None where it has an error): `enabled(A(x))` in invariants
        self.action_params = [a.params if a is not None else None for a in actions]
        if None not in actions:
            self._recover(errors, self._check_enabled_cycles, actions)
        assumptions = [self._recover(errors, self._check_predicate, d, "assumption") for d in decls if isinstance(d, S.AssumeDecl)]
        invariants = [self._recover(errors, self._check_predicate, d, "invariant") for d in decls if isinstance(d, S.InvariantDecl)]
        constraints = [self._recover(errors, self._check_predicate, d, "constraint") for d in decls if isinstance(d, S.ConstraintDecl)]
        reachables = [self._recover(errors, self._check_predicate, d, "reachable check") for d in decls if isinstance(d, S.ReachableDecl)]
        derived = [self._recover(errors, self._check_derived, d) for d in decls if isinstance(d, S.DerivedDecl)]
        refinements = [self._recover(errors, self._check_refinement, d) for d in decls if isinstance(d, S.RefinesDecl)]
        conform = next((d for d in decls if isinstance(d, S.ConformDecl)), None)
        if conform is not None and None not in actions:
            conform = self._recover(errors, self._check_conform, conform, actions)
        initially = self._recover(errors, self._check_initially, self.initially) if self.initially else None
        theorems = [self._recover(errors, self._check_theorem, d) for d in decls if isinstance(d, S.TheoremDecl)]
        if errors and (self.function_reads is None or None in actions):
            raise SpecError(_in_source_order(errors))
        checked = [self._recover(errors, self._check_property, d) for d in decls if isinstance(d, S.PropertyDecl)]
        parts = [part for p in checked if p is not None for part in p]
        properties = [p for p in parts if not isinstance(p, ir.Predicate)]
        steps = [p for p in parts if isinstance(p, ir.Predicate)]
        fairness = [self._recover(errors, self._check_fairness, d) for d in decls if isinstance(d, S.FairDecl)]
        if errors:
            raise SpecError(_in_source_order(errors))
        self._check_evaluation_order()
        self._check_assumptions(assumptions)
        for slot, var in enumerate(self.variables):
            if slot not in self.reads:
                self.warnings.add("W201", f"variable `{var.name}` is never read", var.span,
                                  "remove it, or use it in a guard, an invariant or an expression")
        if constraints and any(p.has_liveness for p in properties):
            self.warnings.add("W203", "temporal properties are checked on the state space cut by "
                              f"constraint `{constraints[0].name}`", constraints[0].span,
                              "behaviours that leave the constrained states are not considered (as in TLC): "
                              "a property that holds here may still fail without the constraint")
        deadlock = next((d for d in decls if isinstance(d, S.DeadlockDecl)), None)
        # A spec without variables and actions (a file of declarations that others import) has one
        # empty state, which no step could leave: that is not a deadlock of anything.
        deadlock_allowed = deadlock.allowed if deadlock is not None else not actions and not self.variables
        if not actions and self.variables and not deadlock_allowed:
            self.warnings.add("W202", "the spec declares no action", self.tree.span,
                              "the initial state will be reported as a deadlock (declare `deadlock: allowed` "
                              "to check only the initial states, or use `tlacheck prove` for theorems)")
        spec = ir.Spec(
            name=self.tree.name or _stem(self.source.name),
            file=self.source.name,
            sorts=tuple(self.sorts.values()),
            constants=tuple(self.constants),
            variables=tuple(self.variables),
            functions=tuple(functions),
            actions=tuple(actions),
            invariants=tuple(invariants),
            constraints=tuple(constraints),
            properties=tuple(properties),
            reachables=tuple(reachables),
            fairness=tuple(fairness),
            steps=tuple(steps),
            theorems=tuple(theorems),
            derived=tuple(derived),
            warnings=tuple(self.warnings.items),
            symmetric=tuple(self.symmetric),
            deadlock_allowed=deadlock_allowed,
            initially=initially,
            refinements=tuple(refinements),
            conform=conform if isinstance(conform, ir.Conform) else None,
            assumptions=tuple(assumptions),
        )
        broken = symmetry_breaks(spec)
        errors = [Diagnostic("E123", message, span, hint) for kind, span, message, hint in broken if kind == "error"]
        if errors:
            raise SpecError(errors)
        if broken:
            warnings = Warnings()
            for _, span, message, hint in broken:
                warnings.add("W212", message, span, hint)
            spec = dataclasses.replace(spec, warnings=spec.warnings + tuple(warnings.items))
        return spec

    def _recover(self, errors: list[Diagnostic], check, *args):
        """`check(*args)`, or None after adding its error to `errors` and putting the checker back
        as it was before (scopes, inference tables, the flags a declaration sets)."""
        saved = (len(self.scopes), self.in_def, self.no_state, self.var_init_limit, self.defer_bounds, self.in_step,
                 self.enabled_ok, self.in_property, self.in_action, self.assigned, self.narrowed)
        try:
            return check(*args)
        except SpecError as exc:
            errors.extend(exc.diagnostics)
            del self.scopes[saved[0]:]
            (self.in_def, self.no_state, self.var_init_limit, self.defer_bounds, self.in_step,
             self.enabled_ok, self.in_property, self.in_action, self.assigned, self.narrowed) = saved[1:]
            self.inferring = 0
            self.inferred.clear()
            self.binders.clear()
            return None

    def _check_evaluation_order(self) -> None:
        """Constants and the bounds in types are computed once, in order, before any state
        exists; initial values in declaration order. Calls to functions must respect that too."""
        fr = self.function_reads
        for bound, span, what in self.type_bounds:
            if ir.reads_state(bound, fr):
                raise _err("E117", f"{what} must be a constant, but this depends on the state", span,
                           "use int literals and constants (`0..N`, `seq[int, N + 1]`)")
        for i, c in enumerate(self.constants):
            slots, consts = ir.reads(c.value, fr)
            if slots:
                name = self.variables[min(slots)].name
                raise _err("E117", f"constant `{c.name}` depends on state variable `{name}`", c.value.span,
                           "constants are computed before any state exists; use a `def` instead")
            later = [j for j in consts if j >= i]
            if later:
                raise _err("E111", f"constant `{c.name}` depends on `{self.constants[min(later)].name}`, "
                           "declared at or after it", c.value.span, "declare constants before the ones that use them")
        for i, v in enumerate(self.variables):
            slots, _ = ir.reads(v.init, fr)
            later = [j for j in slots if j >= i]
            if later:
                raise _err("E111", f"the initial value of `{v.name}` depends on "
                           f"`{self.variables[min(later)].name}`, not yet initialised", v.init.span,
                           "initial values may read constants and variables declared above")

    def _check_assumptions(self, assumptions: list[ir.Predicate]) -> None:
        """An assumption is about the constants: it is checked once, before any state exists."""
        for p in assumptions:
            slots, _ = ir.reads(p.expr, self.function_reads)
            if slots:
                name = self.variables[min(slots)].name
                raise _err("E117", f"assumption `{p.name}` depends on state variable `{name}`", p.expr.span,
                           "an assumption is about the constants, checked once before exploring: for a fact about "
                           "every state, write an `invariant`")

    def _check_duplicates(self, decls) -> None:
        seen: dict[str, S.Decl] = {}
        for d in decls:
            if d.name in BUILTINS and isinstance(d, (S.DefDecl, S.BlockDecl)):
                raise _err("E101", f"`{d.name}` is a built-in function", d.name_span, "choose another name")
            if isinstance(d, S.FairDecl):
                continue
            if d.name in seen:
                first = seen[d.name].name_span
                raise _err("E101", f"`{d.name}` is declared twice", d.name_span,
                           f"first declared at {first.file}:{first.line}:{first.column}")
            seen[d.name] = d
        self.top_names = seen

    def _check_atom_clashes(self, decls) -> None:
        for d in decls:
            if isinstance(d, (S.VarDecl, S.ConstDecl, S.DefDecl)) and d.name in self.atoms and d.name not in self.sorts:
                raise _err("E101", f"`{d.name}` is both declared here and an enum member or model value",
                           d.name_span, "rename one of them")

    # ---------------------------------------------------------------- sorts and constants
    @staticmethod
    def _is_model_set(t: S.TypeExpr) -> bool:
        return isinstance(t, S.SetType) and isinstance(t.element, S.ModelType)

    def _declare_sort(self, name: str, members: tuple[str, ...], kind: str, member_spans) -> T.SortT:
        sort = T.SortT(name, members, kind)
        seen = set()
        for m, mspan in member_spans:
            if m in seen:
                raise _err("E101", f"`{m}` appears twice in `{name}`", mspan)
            seen.add(m)
            self.atoms.setdefault(m, []).append((sort, members.index(m)))
        self.sorts[name] = sort
        return sort

    def _declare_model_const(self, d: S.ConstDecl) -> None:
        if d.name in self.overrides:
            text = self.overrides.pop(d.name)
            src = Source(f"-D {d.name}", text)
            expr = self._parse_override(src, d.name)
        else:
            expr = d.default
        if expr is None:
            raise _err("E110", f"constant `{d.name}` has no value", d.name_span,
                       f"give it a default (`= {{a, b}}`) or pass -D {d.name}={{a,b}}")
        if not isinstance(expr, S.SetLit) or not all(isinstance(e, S.Name) for e in expr.elements):
            if d.name in self.override_names:
                raise UsageError(f"-D {d.name}: the value must be a set of model-value names, like {{r1, r2}}",
                                 f"quote it for the shell: -D '{d.name}={{r1,r2}}'")
            raise _err("E102", f"the value of `{d.name}` must be a set of model-value names like {{r1, r2}}",
                       expr.span)
        members = tuple(e.name for e in expr.elements)
        for e in expr.elements:
            if e.name in self.top_names and e.name != d.name:
                raise _err("E101", f"model value `{e.name}` has the name of a declaration", e.span, "rename one of them")
        sort = self._declare_sort(d.name, members, "model", [(e.name, e.span) for e in expr.elements])
        if d.symmetric:
            self.symmetric.append(d.name)
        index = len(self.constants)
        value = ir.Build(T.SetT(sort), d.span, "set", tuple(ir.Lit(sort, e.span, i) for i, e in enumerate(expr.elements)))
        self.constants.append(ir.Constant(d.name, T.SetT(sort), value, d.span))
        self.consts[d.name] = (index, T.SetT(sort))

    def _parse_override(self, src: Source, name: str) -> S.Expr:
        try:
            return parse_expression(src)
        except SpecError as exc:
            diag = exc.diagnostics[0]
            raise UsageError(f"-D {name}={src.text}: {diag.message}",
                             "the value is an expression of the spec language, e.g. 3, true, {r1, r2}") from None

    def _declare_const(self, d: S.ConstDecl) -> None:
        if d.symmetric:
            raise _err("E123", f"only a set of model values can be symmetric; `{d.name}` is not one", d.name_span,
                       f"declare it `symmetric const {d.name}: set[model] = {{a, b, c}}`, or drop `symmetric`")
        ctype = self._plain_type(d.type)
        if d.name in self.overrides:
            text = self.overrides.pop(d.name)
            src = Source(f"-D {d.name}", text)
            expr = self._parse_override(src, d.name)
            try:
                value = self._expect(self.infer(expr, ctype), ctype, f"constant `{d.name}`")
            except SpecError as exc:
                raise UsageError(f"-D {d.name}={text}: {exc.diagnostics[0].message}",
                                 exc.diagnostics[0].hint) from None
        elif d.default is not None:
            value = self._recover(self.errors, lambda: self._expect(self.infer(d.default, ctype), ctype,
                                                                   f"constant `{d.name}`"))
            value = value if value is not None else _UNCHECKED(ctype, d.default.span)
        else:
            raise _err("E110", f"constant `{d.name}` has no value", d.name_span,
                       f"give it a default (`= ...`) or pass -D {d.name}=VALUE")
        index = len(self.constants)
        self.constants.append(ir.Constant(d.name, ctype, value, d.span))
        self.consts[d.name] = (index, ctype)

    def _check_overrides_exist(self) -> None:
        for name in self.overrides:
            hint = suggest(name, [c for c in self.consts])
            known = ", ".join(self.consts) or "none"
            raise UsageError(f"-D {name}: the spec has no constant named `{name}`",
                             f"did you mean `{hint}`?" if hint else f"the spec's constants: {known}")

    # ---------------------------------------------------------------- types
    def _declared(self, t: S.TypeExpr) -> tuple[T.Type, ir.Bound | None]:
        """The Type of a type expression, and the ranges and sequence bounds inside it (checked
        at run time for variables). Inside a def's signature (`defer_bounds`) bounds are not
        read yet: they may name constants declared later (_check_def reads them)."""
        if isinstance(t, S.BoolType):
            return T.BOOL, None
        if isinstance(t, S.IntType):
            return T.INT, None
        if isinstance(t, S.RangeType):
            if self.defer_bounds:
                return T.INT, None
            return T.INT, ir.RangeBound(self._type_bound(t.low, "a range bound"),
                                        self._type_bound(t.high, "a range bound"))
        if isinstance(t, S.ModelType):
            raise _err("E107", "`model` is only allowed as `const NAME: set[model] = {a, b}`", t.span)
        if isinstance(t, S.NamedType):
            if t.name in self.sorts:
                return self.sorts[t.name], None
            hint = suggest(t.name, list(self.sorts) + ["bool", "int"])
            raise _err("E107", f"unknown type `{t.name}`", t.span,
                       f"did you mean `{hint}`?" if hint else "declare it as an enum or as `const NAME: set[model] = {...}`")
        if isinstance(t, S.SetType):
            element, eb = self._declared(t.element)
            return T.SetT(element), (ir.SetBound(eb) if eb else None)
        if isinstance(t, S.SeqType):
            element, eb = self._declared(t.element)
            limit = None
            if t.limit is not None and not self.defer_bounds:
                limit = self._type_bound(t.limit, "the bound of a sequence")
            return T.SeqT(element), (ir.SeqBound(limit, eb) if limit is not None or eb else None)
        if isinstance(t, S.MapType):
            (key, kb), (value, vb) = self._declared(t.key), self._declared(t.value)
            return T.MapT(key, value), (ir.MapBound(kb, vb) if kb or vb else None)
        if isinstance(t, S.TupleType):
            parts = [self._declared(e) for e in t.elements]
            bounds = tuple(b for _, b in parts)
            return T.TupleT(tuple(p for p, _ in parts)), (ir.PartsBound(bounds) if any(bounds) else None)
        if isinstance(t, S.RecordType):
            names = [n for n, _ in t.fields]
            for n in names:
                if names.count(n) > 1:
                    raise _err("E101", f"field `{n}` appears twice in the record type", t.span)
            fields = sorted((n, self._declared(ft)) for n, ft in t.fields)
            bounds = tuple(b for _, (_, b) in fields)
            return (T.RecordT(tuple((n, ft) for n, (ft, _) in fields)),
                    ir.PartsBound(bounds) if any(bounds) else None)
        if isinstance(t, S.ElementType):
            members = self.infer(t.set)
            if not isinstance(members.type, T.SetT) or _has_local(members):
                raise _err("E129", f"a process runs once per member of a constant set, not over {members.type}",
                           t.set.span, "write `process P(self in S):` with S a constant set (`Procs`, `1..N`)")
            self.type_bounds.append((members, t.set.span, "the set a process runs over"))
            return members.type.element, None
        if isinstance(t, S.OptionType):
            inner, ib = self._declared(t.inner)
            if isinstance(inner, T.OptionT):
                raise _err("E107", "an option of an option is not allowed", t.span)
            return T.OptionT(inner), (ir.OptionBound(ib) if ib else None)
        raise AssertionError(t)  # pragma: no cover

    def _type_bound(self, e: S.Expr, what: str) -> ir.Expr:
        """A range bound or sequence bound: an int that does not depend on the state (whether it
        reads the state is known once every def is checked: _check_evaluation_order)."""
        bound = self._expect(self.infer(e), T.INT, what)
        if _has_local(bound):
            raise _err("E117", f"{what} must be a constant, but this depends on the state", e.span,
                       "use int literals and constants (`0..N`, `seq[int, N + 1]`)")
        self.type_bounds.append((bound, e.span, what))
        return bound

    def _plain_type(self, t: S.TypeExpr) -> T.Type:
        return self._declared(t)[0]

    # ---------------------------------------------------------------- variables
    def _declare_var(self, d: S.VarDecl) -> None:
        vtype, bounds = self._declared(d.type)
        slot = len(self.variables)
        self.var_init_limit = slot
        # An error in the initial value is collected (_recover): the variable is still declared,
        # with its declared type, so that the rest of the spec is checked against it.
        # A variable declared without one is a choice among every value of its type (`init:` filters).
        choice = d.choice or d.init is None
        if d.init is None:
            init = self._recover(self.errors, self._every_value, d, vtype, bounds)
        else:
            init = self._recover(self.errors, self._var_init, d, vtype)
        init = init if init is not None else _UNCHECKED(T.SetT(vtype) if choice else vtype, (d.init or d.type).span)
        self.var_init_limit = None
        self.variables.append(ir.Variable(d.name, vtype, init, choice, bounds, d.name_span))
        self.vars[d.name] = (slot, vtype)
        self.var_bounds.append(bounds)

    def _var_init(self, d: S.VarDecl, vtype: T.Type) -> ir.Expr:
        if not d.choice:
            return self._expect(self.infer(d.init, vtype), vtype, f"the initial value of `{d.name}`")
        init = self.infer(d.init, T.SetT(vtype))
        if not isinstance(init.type, T.SetT):
            raise _err("E102", f"`var {d.name}: T in S` needs a set S, not {init.type}", d.init.span,
                       "use `= value` for a single initial value")
        if not T.assignable(vtype, init.type.element):
            raise _err("E102", f"initial values of `{d.name}` are {init.type.element}, but it is declared {vtype}",
                       d.init.span)
        return init

    def _every_value(self, d: S.VarDecl, vtype: T.Type, bounds: ir.Bound | None) -> ir.Expr:
        """The initial values of `var NAME: T` without a value: every value of T within its declared
        ranges (E126 without an `init:` predicate to choose among them, E127 when T is not finite)."""
        if self.initially is None:
            raise _err("E126", f"variable `{d.name}` has no initial value", d.name_span,
                       f"give it one (`var {d.name}: T = VALUE`, or `in SET` for several), or declare "
                       f"`init: PREDICATE`: `{d.name}` then takes each value of its type that the predicate allows "
                       "(`init: true` allows every one)")
        try:
            return self._values(vtype, bounds, d.type.span)
        except _Infinite as exc:
            part = "" if exc.type == vtype else f" ({exc.type} in it)"
            raise _err("E127", f"`{d.name}` has no initial value, so it takes every value of its type, but "
                       f"{vtype}{part} has no finite list of values", d.type.span, exc.hint) from None

    def _values(self, t: T.Type, bound: ir.Bound | None, span: Span) -> ir.Expr:
        """Every value of type `t` within `bound`, as a set expression; _Infinite for a type with
        unboundedly many (an int without a range, a sequence, a map)."""
        if isinstance(t, T.BoolT):
            return ir.Build(T.SetT(t), span, "set", (ir.Lit(t, span, False), ir.Lit(t, span, True)))
        if isinstance(t, T.IntT) and isinstance(bound, ir.RangeBound):
            return ir.Prim(T.SetT(t), span, "range", (bound.lo, bound.hi))
        if isinstance(t, T.SortT) and t.name in self.consts:  # a set of model values: its constant
            index, ctype = self.consts[t.name]
            return ir.ConstRef(ctype, span, index)
        if isinstance(t, T.SortT):
            return ir.Build(T.SetT(t), span, "set", tuple(ir.Lit(t, span, i) for i in range(len(t.members))))
        if isinstance(t, T.OptionT):
            inner = self._values(t.inner, bound.inner if bound is not None else None, span)
            return ir.Prim(T.SetT(t), span, "union", (ir.Build(T.SetT(t), span, "set", (ir.Lit(t, span, NONE),)), inner))
        if isinstance(t, T.SetT):
            element = self._values(t.element, bound.element if bound is not None else None, span)
            return ir.Prim(T.SetT(t), span, "powerset", (element,))
        if isinstance(t, (T.TupleT, T.RecordT)):
            parts = t.elements if isinstance(t, T.TupleT) else tuple(ft for _, ft in t.fields)
            part_bounds = bound.parts if bound is not None else (None,) * len(parts)
            items = [self._new_local(f"item{k + 1}", pt) for k, pt in enumerate(parts)]
            generators = tuple((local, self._values(pt, pb, span)) for local, pt, pb in zip(items, parts, part_bounds))
            body = ir.Build(t, span, "tuple" if isinstance(t, T.TupleT) else "record",
                            tuple(ir.LocalRef(local.type, span, local) for local in items))
            return ir.Comp(T.SetT(t), span, "set", generators, None, body)
        if isinstance(t, T.IntT):
            raise _Infinite(t, "declare a range (`0..3`), or give the variable an initial value (`= 0`) or a set of "
                               "them (`in 0..3`)")
        raise _Infinite(t, "give the variable a set of initial values (`in maps(K, V)` for every map from K to V, "
                           "`in {[], [1]}` for sequences); a variable without one may be of type bool, a range, an "
                           "enum, a set of model values, or options, sets, tuples and records of those")

    # ---------------------------------------------------------------- defs
    def _declare_def(self, d: S.DefDecl) -> None:
        index = len(self.defs)
        params = []
        seen = set()
        # Range bounds may name constants, declared after defs: they are read in _check_def.
        self.defer_bounds = True
        try:
            for name, span, ptype in d.params:
                if name in seen:
                    raise _err("E101", f"parameter `{name}` appears twice", span)
                seen.add(name)
                params.append(self._new_local(name, self._param_type(ptype, bounded=False)[0]))
            returns = self._plain_type(d.returns)
        finally:
            self.defer_bounds = False
        self.defs[d.name] = _Def(index, d, tuple(params), returns)

    def _param_type(self, t: S.TypeExpr, bounded: bool = True) -> tuple[T.Type, tuple | None]:
        """The type of a def parameter or theorem binder, and its range `(lo, hi)` when
        it is declared `lo..hi` or `(lo..hi)?` (None when `bounded` is false)."""
        inner = t.inner if isinstance(t, S.OptionType) else t
        if not isinstance(inner, S.RangeType):
            return self._plain_type(t), None
        bounds = None
        if bounded:
            rb = self._declared(inner)[1]
            bounds = (rb.lo, rb.hi)
        return (T.INT if inner is t else T.OptionT(T.INT)), bounds

    def _check_def(self, info: _Def) -> ir.Function:
        d = info.decl
        for ptype in [ptype for _, _, ptype in d.params] + [d.returns]:
            self._plain_type(ptype)  # the range bounds _declare_def deferred
        info.params = tuple(dataclasses.replace(p, bounds=self._param_type(ptype)[1])
                            for p, (_, _, ptype) in zip(info.params, d.params))
        self.scopes.append(_Scope({p.name: p for p in info.params}))
        self.in_def = True
        body = self._expect(self.infer(d.body, info.returns), info.returns, f"the result of `{d.name}`")
        self.in_def = False
        self.scopes.pop()
        return ir.Function(d.name, info.params, info.returns, body, d.name_span)

    # ---------------------------------------------------------------- actions and predicates
    def _signature(self, d: S.ActionDecl) -> tuple[tuple[ir.Local, ir.Expr], ...]:
        """The action's parameters, checked on their own."""
        self.scopes.append(_Scope())
        try:
            return tuple(self._generator(g) for g in d.params)
        finally:
            self.scopes.pop()

    def _check_action(self, d: S.ActionDecl) -> ir.Action:
        self.scopes.append(_Scope())
        self.in_action, self.assigned = True, False
        try:
            params = []
            for g in d.params:
                local, domain = self._generator(g)
                params.append((local, domain))
            body = self._block(d.body)
        finally:
            self.in_action = False
        actor = self._actor(d)
        label, target = self._target(d)
        self.scopes.pop()
        return ir.Action(d.name, tuple(params), body, d.name_span, actor, label, target)

    def _check_enabled_cycles(self, actions: list[ir.Action]) -> None:
        """E128 when an action's guard asks whether it is enabled itself, directly or through the
        guards of other actions: deciding it would never end (TLA+ refuses such a definition too)."""
        asks: list[list[tuple[int, Span]]] = []
        for a in actions:
            exprs = [domain for _, domain in a.params]
            exprs += [e for st in ir.statements(a.body) for e in ir.stmt_exprs(st)]
            asks.append([(x.info[0], x.span) for e in exprs for x in walk(e)
                         if isinstance(x, ir.Prim) and x.op == "enabled"])
        done: set[int] = set()

        def visit(i: int, path: tuple[int, ...]) -> None:
            for j, span in asks[i]:
                if j in path + (i,):
                    chain = path + (i,)
                    names = [actions[k].name for k in chain[chain.index(j):]] + [actions[j].name]
                    raise _err("E128", f"action `{actions[j].name}` asks whether it is enabled itself "
                               f"({' -> '.join(names)})", span,
                               "an action's guard may ask about other actions, but whether it is enabled is "
                               "what its guard decides: write the condition itself")
                if j not in done:
                    visit(j, path + (i,))
            done.add(i)

        for i in range(len(actions)):
            visit(i, ())

    def _actor(self, d: S.ActionDecl) -> str | None:
        """`by NAME`: a parameter (a lane per argument), a model value or enum member, or a label
        (capitalised, `by Runner`; an enum's name too); a constant, variable, set of model values
        or function is not one actor."""
        name = d.actor
        item = self._lookup_local(name) if name is not None else None
        if isinstance(item, _Item):  # a lane is one argument: an item of one is not
            raise _err("E124", f"`by {name}`: `{name}` is an item of the parameter `{item.local.name}`, not a parameter",
                       d.actor_span, f"name the whole parameter: `action {d.name}(p in ...) by p`")
        if name is None or self._lookup_local(name) is not None or name in self.atoms:
            return name
        self._not_a_declaration(name, d.actor_span, "by")
        return self._label(name, d.actor_span)

    def _target(self, d: S.ActionDecl) -> tuple[str | None, ir.Expr | None]:
        """`-> TARGET`: a label (a capitalised name that names nothing else), or an expression whose
        value is an actor or a set of actors (a model value or enum member: a parameter,
        `first_waiter()`, `waiting`)."""
        e = d.sends_to
        if e is None:
            return None, None
        if isinstance(e, S.Name) and self._lookup_local(e.name) is None and e.name not in self.atoms \
                and (e.name not in self.top_names or self._enum_name(e.name)):
            return self._label(e.name, e.span), None
        expr = self.infer(e)
        t = expr.type
        inner = t.element if isinstance(t, T.SetT) else t.inner if isinstance(t, T.OptionT) else t
        if not isinstance(inner, T.SortT):
            raise _err("E124", f"the target of `->` must be an actor (a model value or enum member) or a set of "
                       f"them, not {t}", e.span,
                       "name a label (`-> Parent`), a parameter (`-> c`), or a def returning an actor "
                       "(`-> first_waiter()`)")
        return None, expr

    def _enum_name(self, name: str) -> bool:
        """An enum's name: a label too (`enum Runner {...}` lists the states of the actor Runner)."""
        return name in self.sorts and self.sorts[name].kind == "enum"

    def _not_a_declaration(self, name: str, span, where: str) -> None:
        if (name in self.top_names or name in self.sorts) and not self._enum_name(name):
            decl = self.top_names.get(name)
            kind = "set" if decl is None or name in self.sorts else type(decl).__name__.replace("Decl", "").lower()
            raise _err("E124", f"`{where} {name}`: `{name}` is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not "
                       "one actor", span, "an actor is one value: name a parameter (`action A(x in S) by x`), "
                       "a model value, or a label (`by Runner`)")

    def _label(self, name: str, span) -> str:
        """A free actor label: a name that does not start with a lowercase letter (`Runner`), so
        that a mistyped parameter is caught."""
        if not name[:1].islower():
            return name
        params = list(self.scopes[-1].names)  # the action's parameters
        hint = suggest(name, params + list(self.atoms)) or (params[0] if len(params) == 1 and len(name) <= 2 else None)
        raise _err("E124", f"unknown actor `{name}`", span,
                   f"did you mean `{hint}`?" if hint else
                   "a parameter is declared in the action's `(...)`; an actor label starts with a capital letter "
                   "(`by Runner`)")

    def _check_property(self, d: S.PropertyDecl) -> list[ir.Property | ir.Predicate]:
        """A temporal property, a step property (`always P` where P reads the next state, x':
        TLA+'s [][P]_vars, an ir.Predicate of two states: see _check_step), or a conjunction of
        both (`always P and always (x' >= x)`): the conjuncts that are step properties are one
        ir.Predicate, the others one ir.Property, both under the property's name."""
        conjuncts = _conjuncts(d.body)
        steps = [c.left for c in conjuncts if _is_step(c, self.action_index)]
        rest = [c for c in conjuncts if not _is_step(c, self.action_index)]
        out: list[ir.Property | ir.Predicate] = []
        if steps:
            body = steps[0]
            for more in steps[1:]:
                body = S.BinOp(more.span, "and", body, more)
            out.append(self._check_step(d, body))
        if rest:
            body = rest[0]
            for more in rest[1:]:
                body = S.BinOp(Span(more.span.file, body.span.line, body.span.column, more.span.end_line,
                                    more.span.end_column), "and", body, more)
            self.enabled_ok = self.in_property = True
            try:
                out.append(ir.Property(d.name, self._formula(body if steps else d.body), d.name_span))
            finally:
                self.enabled_ok = self.in_property = False
        return out

    def _formula(self, e: S.Expr) -> ir.Formula:
        """A temporal formula: state predicates combined with always, eventually, leads_to,
        and, or, not, implies and all/any over constant sets."""
        if not _has_temporal(e):
            return ir.TPred(e.span, self._bool(e, "a state predicate in a property"))
        if isinstance(e, S.Temporal):
            if e.op == "leads_to":
                return ir.TBinary(e.span, "leads_to", self._formula(e.left), self._formula(e.right))
            return ir.TUnary(e.span, e.op, self._formula(e.left))
        if isinstance(e, S.Not):
            return ir.TUnary(e.span, "not", self._formula(e.operand))
        if isinstance(e, S.IfExpr) and not _has_temporal(e.cond):
            # `if P then F else G` (TLA+ IF P THEN F ELSE G, P of the initial state):
            # (P implies F) and (not P implies G)
            cond = ir.TPred(e.cond.span, self._bool(e.cond, "the condition of `if`"))
            return ir.TBinary(e.span, "and", ir.TBinary(e.span, "implies", cond, self._formula(e.then)),
                              ir.TBinary(e.span, "implies", ir.TUnary(e.cond.span, "not", cond),
                                         self._formula(e.orelse)))
        if isinstance(e, S.BinOp) and e.op in ("and", "or", "implies"):
            return ir.TBinary(e.span, e.op, self._formula(e.left), self._formula(e.right))
        if isinstance(e, S.Call) and e.name in ("all", "any") and e.comprehension is not None:
            c = e.comprehension
            if c.cond is not None or len(c.generators) != 1:
                # `all(f for x in S for y in T if c)`: nest one quantifier per generator
                pass
            self.scopes.append(_Scope())
            bound = []
            for g in c.generators:
                local, domain = self._generator(g)
                if self._reads_state(domain):
                    raise _err("E116", "a quantifier over temporal formulas needs a constant set", g.domain.span,
                               "quantify over constants, enums or ranges, not state variables "
                               "(nor a `def` that reads them)")
                bound.append((local, domain))
            body = self._formula(c.element)
            if c.cond is not None:
                cond = ir.TPred(c.cond.span, self._bool(c.cond, "the `if` filter"))
                body = ir.TBinary(c.span, "implies" if e.name == "all" else "and", cond, body)
            self.scopes.pop()
            for local, domain in reversed(bound):
                body = ir.TQuant(e.span, e.name, local, domain, body)
            return body
        raise _err("E112", "temporal operators can only be combined with and, or, not, implies and all/any",
                   e.span, "move `always`/`eventually`/`leads_to` to the top of the property")

    def _reads_state(self, e: ir.Expr) -> bool:
        """Whether `e` reads the state, through the defs it calls too (after the defs are checked)."""
        assert self.function_reads is not None
        return ir.reads_state(e, self.function_reads)

    def _check_fairness(self, d: S.FairDecl) -> ir.Fairness:
        self.scopes.append(_Scope())
        gens = []
        for g in d.generators:
            local, domain = self._generator(g)
            if self._reads_state(domain):
                raise _err("E116", "the set a fairness condition ranges over must be constant", g.domain.span,
                           "range over a constant set with every value it can hold: fairness asks nothing of an "
                           "action while it is disabled")
            gens.append((local, domain))
        some = []
        for clause in d.some:  # evaluated in the state before the step: it may read the state
            if clause.cond is not None and _has_prime(clause.cond):
                raise _err("E118", "the `if` filter of `for some` is a condition of the state before the step: "
                                   "`'` cannot be used there", clause.cond.span,
                           "a condition on the step itself belongs in the action: a `require` there, or an action "
                           "of its own for the steps that fairness is about")
            local, domain = self._generator(clause.generator)
            some.append((local, domain, self._bool(clause.cond, "the `if` filter of `for some`")
                         if clause.cond is not None else None))
        targets = []
        for t in d.targets:
            if t.action not in self.action_index:
                hint = suggest(t.action, self.action_index)
                raise _err("E100", f"unknown action `{t.action}`", t.span,
                           f"did you mean `{hint}`?" if hint else "fairness names actions declared with `action`")
            index = self.action_index[t.action]
            params = self.action_params[index]
            if t.args is None:
                targets.append(ir.FairTarget(index, None))
                continue
            if len(t.args) != len(params):
                raise _err("E103", f"action `{t.action}` has {len(params)} parameter{'s' if len(params) != 1 else ''}, "
                           f"not {len(t.args)}", t.span, "use `*` for a parameter that may take any value")
            args = []
            for a, (local, _) in zip(t.args, params):
                if a is None:
                    args.append(None)
                else:
                    args.append(self._expect(self.infer(a, local.type), local.type,
                                             f"argument `{local.name}` of `{t.action}`"))
            targets.append(ir.FairTarget(index, tuple(args)))
        self.scopes.pop()
        return ir.Fairness(d.strong, tuple(targets), tuple(gens), d.span, tuple(some))

    def _check_theorem(self, d: S.TheoremDecl) -> ir.Theorem:
        inferred = _infer_binder_types(d, self.defs)
        params = []
        for name, span, ptype in d.params:
            if ptype is not None:
                t, bounds = self._param_type(ptype)
            elif name in inferred:
                t, bounds = inferred[name]
            else:
                raise _err("E113", f"cannot infer the type of `{name}`", span,
                           f"annotate it: `forall ({name}: bool, ...): ...`")
            _check_finite_binder(name, t, bounds, span)
            params.append(self._new_local(name, t, bounds))
        self.scopes.append(_Scope({p.name: p for p in params}))
        self.no_state = True
        try:
            body = self._bool(d.body, f"theorem `{d.name}`")
        finally:
            self.no_state = False
            self.scopes.pop()
        return ir.Theorem(d.name, tuple(params), body, d.name_span)

    def _check_step(self, d: S.PropertyDecl, body: S.Expr) -> ir.Predicate:
        """A step property's P: a boolean of the variables before (x) and after (x') the step;
        in its IR, VarRef slot n + i is variable i after the step."""
        self.in_step = True
        try:
            return self._check_predicate(d, "step property", body)
        finally:
            self.in_step = False

    def _e_Primed(self, e: S.Primed, expected):
        if not self.in_step and self.in_property:
            raise _err("E118", "`'` (the value after a step) can be used in a property only inside an `always` "
                       "that is the property or one of its conjuncts", e.span,
                       "`always (x' >= x)` is a step property (TLA+'s `[][x' >= x]_vars`); join it to a temporal "
                       "formula with `and` at the top: `property P: always x >= 0 and always (x' >= x)`")
        if not self.in_step:
            raise _err("E118", "`'` (the value after a step) can be used only in a step property", e.span,
                       "a step property compares each state with the next: `property NAME: always (x' >= x)`")
        if isinstance(e.target, S.Call) and e.target.name in self.defs:
            # `f(a)'`: f evaluated in the state after the step; its arguments must not read the
            # state (TLA+ would prime them too: write them with primed variables instead)
            call = self.infer(e.target, expected)
            if not isinstance(call, ir.CallDef):  # pragma: no cover - a def call infers to a CallDef
                raise _err("E118", "only a state variable or a `def` call can be primed", e.span)
            if any(self._reads_state(a) for a in call.args):
                raise _err("E118", f"the arguments of a primed call of `{e.target.name}` read the state", e.span,
                           f"prime the variables in the arguments instead: `{e.target.name}(x')'`")
            return dataclasses.replace(call, shift=len(self.vars))
        if not (isinstance(e.target, S.Name) and e.target.name in self.vars and self._lookup_local(e.target.name) is None):
            raise _err("E118", "only a state variable or a `def` call can be primed", e.span,
                       "prime the variables inside the expression instead, e.g. `m'[k]` or `x' + y'`")
        slot, t = self.vars[e.target.name]
        self.reads.add(slot)
        return ir.VarRef(t, e.span, len(self.vars) + slot)

    def _check_predicate(self, d, kind: str, body: S.Expr | None = None) -> ir.Predicate:
        """The declaration's boolean (`body`, when given, instead of its whole body)."""
        body = d.body if body is None else body
        self.enabled_ok = kind == "invariant"
        try:
            expr = self.infer(body, T.BOOL)
        finally:
            self.enabled_ok = False
        if expr.type != T.BOOL:
            raise _err("E105", f"{kind} `{d.name}` must be a boolean, not {expr.type}", body.span)
        return ir.Predicate(d.name, expr, d.name_span)

    def _check_initially(self, d: S.InitDecl) -> ir.Predicate:
        """`init: P`: a boolean of the variables (of the state, as an invariant's)."""
        return ir.Predicate("init", self._bool(d.body, "the `init:` predicate"), d.name_span)

    def _check_derived(self, d: S.DerivedDecl) -> ir.Predicate:
        """A derived value: any expression of the state (not temporal, not of the next state)."""
        return ir.Predicate(d.name, self.infer(d.body), d.name_span)

    def _check_refinement(self, d: S.RefinesDecl) -> ir.Refinement:
        """The mapping of `refines`: an expression of one state per abstract variable, and one of
        constants only per abstract constant it sets (the abstract spec is checked on its own:
        compile/refinement.py compares the types)."""
        mapping = {n: e for n, _, e in d.mapping}

        def tuple_of(names) -> ir.Predicate:
            exprs = tuple(self.infer(mapping[n]) for n in names)
            return ir.Predicate(d.name, ir.Build(T.TupleT(tuple(x.type for x in exprs)), d.name_span, "tuple", exprs),
                                d.name_span)

        constants = tuple_of(d.constants)
        for n, x in zip(d.constants, constants.expr.items):
            if self.function_reads is None or ir.reads_state(x, self.function_reads):
                raise _err("E130", f"the value of the abstract constant `{n}` must be a constant, but this "
                           "depends on the state", mapping[n].span,
                           "map a constant to an expression of this spec's constants (`N = N`, `N = 3`)")
        return ir.Refinement(d.name, d.name_span, d.path, d.variables, tuple(mapping[n].span for n in d.variables),
                             tuple_of(d.variables), d.constants, constants)

    # ---------------------------------------------------------------- conform:
    def _check_conform(self, d: S.ConformDecl, actions: list[ir.Action]) -> ir.Conform:
        """The `conform:` section lowered to ir.Conform: every action, parameter, variable, type
        and member it names exists (E132, with the nearest name), and each log name, text, silent
        or lazy action is given once."""
        def unknown(what: str, name: str, span: Span, known, where: str = "the spec") -> SpecError:
            close = suggest(name, known)
            return _err("E132", f"`conform:`: {where} has no {what} `{name}`", span,
                        f"did you mean `{close}`?" if close else f"its {what}s: {', '.join(sorted(known)) or 'none'}")

        def once(seen: dict, key, what: str, span: Span) -> None:
            if key in seen:
                first = seen[key]
                raise _err("E132", f"`conform:`: {what} is given twice", span,
                           f"first given at {first.file}:{first.line}:{first.column}")
            seen[key] = span

        def action_of(name: str, span: Span) -> int:
            if name not in self.action_index:
                raise unknown("action", name, span, self.action_index)
            return self.action_index[name]

        events: list[ir.ConformEvent] = []
        fields: list[tuple[str, int]] = []
        values: dict[str, list[tuple[str, int]]] = {}
        ignore: list[str] = []
        silent: list[int] | None = None
        lazy: list[int] = []
        seen: dict = {}
        marked: dict[int, tuple[str, Span]] = {}  # action -> (silent or lazy, where)
        for line in d.lines:
            if line.word == "event":
                text, span = line.texts[0]
                once(seen, ("event", text), f'the event "{text}"', span)
                steps = []
                for step in line.steps:
                    a = action_of(step.action, step.action_span)
                    params = [local.name for local, _ in actions[a].params]
                    given: dict = {}
                    where: dict = {}
                    for param, pspan, arg, _ in step.args:
                        if param not in params:
                            raise unknown("parameter", param, pspan, params, f"action `{step.action}`")
                        once(where, param, f"parameter `{param}` of `{step.action}`", pspan)
                        given[param] = arg
                    steps.append((a, tuple((params.index(p), arg) for p, arg in given.items())))
                events.append(ir.ConformEvent(text, tuple(steps), line.span))
            elif line.word == "field":
                text, span = line.texts[0]
                once(seen, ("field", text), f'the field "{text}"', span)
                step = line.steps[0]
                if step.action not in self.vars:
                    raise unknown("variable", step.action, step.action_span, self.vars)
                fields.append((text, self.vars[step.action][0]))
            elif line.word == "values":
                sort_name, sort_span = line.names[0]
                sort = self.sorts.get(sort_name)
                if sort is None:
                    raise unknown("enum or set of model values", sort_name, sort_span, self.sorts)
                for text, tspan, member, mspan in line.pairs:
                    once(seen, ("value", sort_name, text), f'the text "{text}" of `{sort_name}`', tspan)
                    if member not in sort.members:
                        raise unknown("member", member, mspan, sort.members, f"`{sort_name}`")
                    values.setdefault(sort_name, []).append((text, sort.members.index(member)))
            elif line.word == "ignore":
                for text, span in line.texts:
                    once(seen, ("ignore", text), f'the ignored name "{text}"', span)
                    ignore.append(text)
            else:  # silent, lazy
                chosen = lazy if line.word == "lazy" else (silent if silent is not None else [])
                if line.word == "silent":
                    silent = chosen
                for name, span in line.names:
                    a = action_of(name, span)
                    if a in marked:
                        kind, first = marked[a]
                        if kind == line.word:
                            once({a: first}, a, f"`{line.word} {name}`", span)
                        raise _err("E132", f"`conform:`: `{name}` is both silent and lazy", span,
                                   "a lazy action is an unlogged step already (tried only when nothing else "
                                   "matches): name it in one of the two lines")
                    marked[a] = (line.word, span)
                    chosen.append(a)
        return ir.Conform(tuple(events), tuple(fields), tuple((n, tuple(v)) for n, v in values.items()),
                          tuple(ignore), None if silent is None else tuple(silent), tuple(lazy), d.span)

    # ---------------------------------------------------------------- blocks
    def _check_block_cycles(self) -> None:
        """E125 when a block calls itself, directly or through other blocks: blocks are expanded
        where they are called, so a cycle would never end. Reported at the call that closes it."""
        done: set[str] = set()

        def visit(name: str, path: tuple[str, ...]) -> None:
            for call in _block_calls(self.blocks[name].body):
                if call.name not in self.blocks or call.name in done:
                    continue
                chain = path + (name,)
                if call.name in chain:
                    cycle = " -> ".join(chain[chain.index(call.name):] + (call.name,))
                    raise _err("E125", f"block `{call.name}` calls itself ({cycle})", call.name_span,
                               "a block is expanded where it is called, so it cannot recurse: repeat with "
                               "`with x in S`, or let an action take one step at a time")
                visit(call.name, path + (name,))
            done.add(name)

        for name in self.blocks:
            visit(name, ())

    def _block_params(self, d: S.BlockDecl) -> list[tuple[str, T.Type]]:
        seen = set()
        out = []
        for name, span, ptype in d.params:
            if name in seen:
                raise _err("E101", f"parameter `{name}` appears twice", span)
            seen.add(name)
            out.append((name, self._plain_type(ptype)))
        return out

    def _check_block(self, d: S.BlockDecl) -> None:
        """A block's body, checked on its own, with its parameters in scope. Each call checks it
        again (with the caller's locals out of sight, so the result is the same) to give the
        statements fresh locals: each binding in the IR is bound once."""
        params = [self._new_local(name, t) for name, t in self._block_params(d)]
        self.in_action, self.assigned = True, False  # its statements run in actions
        try:
            self._block_body(d, params)
        finally:
            self.in_action = False

    def _block_body(self, d: S.BlockDecl, params: list[ir.Local]) -> tuple[ir.Stmt, ...]:
        """The block's statements in a scope of its parameters alone: hygienic, a name in the block
        means what it means at the block (never a `let` or parameter of the caller), and its `let`
        names are not seen by the caller."""
        saved, narrowed = self.scopes, self.narrowed
        self.scopes = [_Scope({p.name: p for p in params})]
        self.narrowed = frozenset()  # what the caller knows of its options is not the block's
        try:
            return self._block(d.body)
        finally:
            self.scopes, self.narrowed = saved, narrowed

    def _call_block(self, s: S.BlockCall) -> tuple[ir.Stmt, ...]:
        """`name(args)`: each argument evaluated where the call stands and bound to its parameter
        (a `let`), then the block's statements."""
        d = self.blocks.get(s.name)
        if d is None:
            if s.name in self.defs or s.name in BUILTINS:
                raise _err("E103", f"`{s.name}` is a function: a statement can only call a block", s.name_span,
                           "use the function in an expression (`require ...`, `x = ...`), or declare the "
                           "statements as `block`")
            if s.name in self.top_names:
                kind = type(self.top_names[s.name]).__name__.replace("Decl", "").lower()
                raise _err("E103", f"`{s.name}` is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not a block",
                           s.name_span, "a statement `NAME(...)` calls a block declared with `block`")
            hint = suggest(s.name, self.blocks)
            raise _err("E100", f"unknown block `{s.name}`", s.name_span,
                       f"did you mean `{hint}`?" if hint else "declare it with `block NAME(p: T):` and statements")
        if len(s.args) != len(d.params):
            n = len(d.params)
            raise _err("E103", f"`{s.name}` takes {n} argument{'s' if n != 1 else ''}, not {len(s.args)}", s.span,
                       f"declared at {d.name_span}")
        lets = []
        for arg, (name, t) in zip(s.args, self._block_params(d)):
            value = self._expect(self.infer(arg, t), t, f"argument `{name}` of `{s.name}`")
            lets.append(ir.LetS(arg.span, self._new_local(name, t), value))
        return tuple(lets) + self._block_body(d, [let.local for let in lets])

    # ---------------------------------------------------------------- statements
    def _block(self, stmts, facts: frozenset = frozenset()) -> tuple[ir.Stmt, ...]:
        """The statements, with the options `facts` known to hold a value at their start. What a
        `require` establishes holds for the statements after it in the block, until the variable is
        assigned; after the block, what held before it, but for the variables it assigns."""
        self.scopes.append(_Scope())
        entry = self.narrowed
        self.narrowed = entry | facts
        out = []
        for s in stmts:
            if isinstance(s, S.BlockCall):
                out += self._call_block(s)
            elif isinstance(s, S.Scoped):
                out += self._block(s.body)
            else:
                out.append(self._stmt(s))
            if isinstance(s, S.Require):
                self.narrowed |= self._facts(s.cond, True)
            self.narrowed -= _assigned_keys(out[-1:] if not isinstance(s, (S.BlockCall, S.Scoped)) else out)
        self.narrowed = entry - _assigned_keys(out)
        self.scopes.pop()
        return tuple(out)

    def _stmt(self, s: S.Stmt) -> ir.Stmt:
        if isinstance(s, S.Require):
            return ir.RequireS(s.span, self._bool(s.cond, "a `require` guard"))
        if isinstance(s, S.Skip):
            return ir.IfS(s.span, (), ())
        if isinstance(s, S.Let):
            value = self.infer(s.value)
            local = self._new_local(s.name, value.type)
            self._hides(s.name, s.name_span)
            self.scopes[-1].names[s.name] = local
            return ir.LetS(s.span, local, value)
        if isinstance(s, S.Assign):
            return self._assign(s)
        if isinstance(s, S.If):
            conditions, facts, otherwise = [], [], frozenset()
            for c, _ in s.branches:  # a branch runs where its condition holds and those before it do not
                conditions.append(self._infer_knowing(otherwise, c, T.BOOL))
                if conditions[-1].type != T.BOOL:
                    raise _err("E105", f"an `if` condition must be a boolean, not {conditions[-1].type}", c.span)
                facts.append(otherwise | self._facts(c, True))
                otherwise |= self._facts(c, False)
            bodies = self._branches([b for _, b in s.branches] + [s.orelse or ()], facts + [otherwise])
            return ir.IfS(s.span, tuple(zip(conditions, bodies[:-1])), bodies[-1])
        if isinstance(s, S.Either):
            return ir.EitherS(s.span, self._branches(s.branches))
        if isinstance(s, S.With):
            self.scopes.append(_Scope())
            binders = tuple(self._generator(g) for g in s.binders)
            body = self._block(s.body)
            self.scopes.pop()
            return ir.WithS(s.span, binders, body)
        raise AssertionError(s)  # pragma: no cover

    def _branches(self, bodies, facts=None) -> tuple[tuple[ir.Stmt, ...], ...]:
        """The branches of an `if` or `either`, each after the statements before it (`assigned`: some
        path assigns a variable before this point; after them, if one of them does), each knowing
        its `facts` (the options that hold a value where it runs)."""
        before, after = self.assigned, False
        out = []
        for i, body in enumerate(bodies):
            self.assigned = before
            out.append(self._block(body, facts[i] if facts is not None else frozenset()))
            after = after or self.assigned
        self.assigned = after
        return tuple(out)

    def _assign(self, s: S.Assign) -> ir.AssignS:
        target = s.target
        name = target.name
        if self._lookup_local(name) is not None:
            raise _err("E104", f"cannot assign to `{name}`: it is a bound name, not a state variable",
                       target.name_span, "only variables declared with `var` can be assigned")
        if name not in self.vars:
            if name in self.consts:
                raise _err("E104", f"cannot assign to constant `{name}`", target.name_span,
                           "declare it with `var` if it changes")
            if name in self.atoms or name in self.sorts:
                raise _err("E104", f"cannot assign to `{name}`: it is an enum member or model value", target.name_span)
            hint = suggest(name, self.vars)
            raise _err("E100", f"unknown variable `{name}`", target.name_span,
                       f"did you mean `{hint}`?" if hint else "declare it with `var`")
        slot, t = self.vars[name]
        steps = []
        for step, span in zip(target.steps, target.step_spans):
            if isinstance(step, str):
                if not isinstance(t, T.RecordT):
                    raise _err("E106", f"`.{step}` needs a record, but the target is {t}", span)
                pos = t.index_of(step)
                if pos is None:
                    hint = suggest(step, [n for n, _ in t.fields])
                    raise _err("E106", f"record {t} has no field `{step}`", span,
                               f"did you mean `{hint}`?" if hint else None)
                steps.append(ir.PathStep("field", pos, span))
                t = t.fields[pos][1]
            elif isinstance(t, T.MapT):
                key = self._expect(self.infer(step, t.key), t.key, "the key")
                steps.append(ir.PathStep("map", key, span, t))
                t = t.value
            elif isinstance(t, T.SeqT):
                pos = self._expect(self.infer(step, T.INT), T.INT, "a sequence index")
                steps.append(ir.PathStep("seq", pos, span, t))
                t = t.element
            else:
                raise _err("E102", f"cannot index into {t}", span, "only maps and sequences can be updated by `[...]`")
        value = self._expect(self.infer(s.value, t), t, f"the value assigned to `{name}`")
        self.assigned = True  # `enabled(...)` after this would not ask about the state the step starts from
        bound = ir.bound_at(self.var_bounds[slot], steps)
        if bound is not None:  # checked where it is assigned: E402, E410 point at this statement
            value = ir.Prim(value.type, s.span, "check_bounds", (value, ir.bound_value(bound, s.span)),
                            info=self._target_text(target))
        return ir.AssignS(s.span, slot, tuple(steps), value)

    def _target_text(self, target: S.LValue) -> str:
        """The assignment target as written (`q`, `inbox[p]`, `conn[c].sent`), for messages."""
        out = target.name
        for step, span in zip(target.steps, target.step_spans):
            if isinstance(step, str):
                out += f".{step}"
                continue
            text = self.source.line_text(span.line)[span.column - 1:span.end_column - 1]
            out += text if span.line == span.end_line and text.startswith("[") else "[...]"
        return out

    # ---------------------------------------------------------------- scopes
    def _new_local(self, name: str, t: T.Type, bounds: tuple | None = None, binder: object = None) -> ir.Local:
        """A fresh local; inside an expression, the same one each time `binder` (the syntax node that
        binds it) is inferred again with the same type, so that what was inferred under it stays valid
        (_infer's memo)."""
        if binder is not None and self.inferring:
            key = (id(binder), name, t)
            local = self.binders.get(key)
            if local is None:
                local = self.binders[key] = self._new_local(name, t, bounds)
            return local
        self.next_local += 1
        return ir.Local(self.next_local, name, t, bounds)

    def _lookup_local(self, name: str) -> ir.Local | None:
        for scope in reversed(self.scopes):
            if name in scope.names:
                return scope.names[name]
        return None

    def _generator(self, g: S.Generator) -> tuple[ir.Local, ir.Expr]:
        domain = self.infer(g.domain)
        if not isinstance(domain.type, T.SetT):
            raise _err("E102", f"`{g.name} in ...` needs a set, not {domain.type}", g.domain.span,
                       "use a set, a range `a..b`, an enum name or `domain(m)`")
        local = self._new_local(g.name, domain.type.element, binder=g)
        if not g.parts:
            self._hides(g.name, g.span)
            self.scopes[-1].names[g.name] = local
            return local, domain
        element = domain.type.element
        if not (isinstance(element, T.TupleT) and len(element.elements) == len(g.parts)):
            raise _err("E102", f"`{g.name} in ...` needs a set of tuples of {len(g.parts)} items, "
                               f"not {domain.type}", g.domain.span,
                       f"name as many items as each element has, or bind the whole element: `x in ...`")
        for index, (name, span) in enumerate(g.parts):
            if name in [n for n, _ in g.parts[:index]]:
                raise _err("E101", f"`{name}` appears twice in `{g.name}`", span, "give each item its own name")
            self._hides(name, span)
            self.scopes[-1].names[name] = _Item(local, index, element.elements[index])
        return local, domain

    def _hides(self, name: str, span: Span) -> None:
        """W204 when a bound name hides a state variable or a constant: inside its scope the name
        means the bound value, which is rarely what a reader expects. Not for the parameters of a
        `def`: they are its interface, declared with their types, and often named after what the
        caller passes."""
        kind = "variable" if name in self.vars else "constant" if name in self.consts else None
        if kind is not None and span not in self.hidden:  # once, however often the binder is inferred
            self.hidden.add(span)
            self.warnings.add("W204", f"`{name}` here hides the {kind} `{name}`", span,
                              f"inside this scope `{name}` is the bound value, not the {kind}: rename one of them")

    # ---------------------------------------------------------------- expressions
    def _expect(self, e: ir.Expr, t: T.Type, what: str) -> ir.Expr:
        if not T.assignable(t, e.type):
            hint = None
            if isinstance(e.type, T.OptionT) and T.assignable(t, e.type.inner):
                hint = ("it may be none here: check that it is not none first (`require x != none`, `if x != none:`, "
                        "`x != none and ...`), then it is a value; or give a default, `x ?? d`")
            raise _err("E102", f"{what} should be {t}, but this is {e.type}", e.span, hint)
        return e

    def _bool(self, e: S.Expr, what: str) -> ir.Expr:
        r = self.infer(e, T.BOOL)
        if r.type != T.BOOL:
            raise _err("E105", f"{what} must be a boolean, not {r.type}", e.span)
        return r

    def _int(self, e: S.Expr, what: str) -> ir.Expr:
        r = self.infer(e, T.INT)
        if r.type != T.INT:
            raise _err("E102", f"{what} must be an int, not {r.type}", e.span)
        return r

    def _set(self, e: S.Expr, what: str, expected: T.Type | None = None) -> ir.Expr:
        r = self.infer(e, expected)
        if not isinstance(r.type, T.SetT):
            raise _err("E102", f"{what} must be a set, not {r.type}", e.span)
        return r

    def infer(self, e: S.Expr, expected: T.Type | None = None) -> ir.Expr:
        """The IR of `e`. `expected`, when given, only disambiguates; callers check the result."""
        try:
            return self._infer(e, expected)
        except _Ambiguous as amb:
            raise amb.error() from None

    def _infer(self, e: S.Expr, expected: T.Type | None) -> ir.Expr:
        """The IR of `e`, inferred at most once per expected type and locals in scope.

        Inference is a function of the node, the expected type and the locals its names may
        resolve to (binders get the same local each time: _new_local), so a result is reused.
        _pair infers a side again with the type of the other; without the memo a chain of such
        pairs (`if c then (if c then ... else {}) else {}`, `(... | {}) | {}`) inferred the inner
        ones once per enclosing level and per expected type, 2^depth times. With it, each node
        costs at most once per distinct expected type it is given. An `_Ambiguous` outcome is
        remembered too (callers catch it and try another expected type)."""
        key = (id(e), expected, tuple(local.id for scope in self.scopes for local in scope.names.values()),
               self.narrowed)
        known = self.inferred.get(key)
        if known is not None:
            if isinstance(known, _Ambiguous):
                raise known
            return known
        method = getattr(self, "_e_" + type(e).__name__)
        self.inferring += 1
        try:
            known = method(e, expected)
        except _Ambiguous as amb:
            known = amb
        finally:
            self.inferring -= 1
        if self.inferring:
            self.inferred[key] = known
        else:  # the nodes of one expression stay alive while it is inferred: ids are not reused
            self.inferred.clear()
            self.binders.clear()
        if isinstance(known, _Ambiguous):
            raise known
        return known

    def _e_IntLit(self, e: S.IntLit, expected):
        return ir.Lit(T.INT, e.span, e.value)

    def _e_BoolLit(self, e: S.BoolLit, expected):
        return ir.Lit(T.BOOL, e.span, e.value)

    def _e_NoneLit(self, e: S.NoneLit, expected):
        t = expected if isinstance(expected, T.OptionT) else T.OptionT(T.ANY)
        return ir.Lit(t, e.span, NONE)

    def _e_Name(self, e: S.Name, expected):
        name = e.name
        local = self._lookup_local(name)
        if isinstance(local, _Item):
            whole = ir.LocalRef(local.local.type, e.span, local.local)
            return ir.Prim(local.type, e.span, "item", (whole,), local.index)
        if local is not None:
            return self._narrowing(("local", local.id), ir.LocalRef(local.type, e.span, local))
        if name in self.vars and self.no_state:
            raise _err("E115", f"a theorem cannot read state variable `{name}`", e.span,
                       "theorems are about functions of their `forall` variables; use an invariant for states")
        if name in self.vars:
            slot, t = self.vars[name]
            if self.var_init_limit is not None and slot >= self.var_init_limit:
                raise _err("E111", f"the initial value cannot read `{name}`, declared later", e.span,
                           "initial values may read constants and variables declared above")
            self.reads.add(slot)
            return self._narrowing(("var", slot), ir.VarRef(t, e.span, slot))
        if name in self.vars or (self.var_init_limit is not None and name in self.top_names
                                 and isinstance(self.top_names[name], S.VarDecl)):
            raise _err("E111", f"the initial value cannot read `{name}`, declared later", e.span,
                       "initial values may read constants and variables declared above")
        if name in self.consts:
            index, t = self.consts[name]
            return ir.ConstRef(t, e.span, index)
        if name in self.sorts:
            sort = self.sorts[name]
            return ir.Build(T.SetT(sort), e.span, "set",
                            tuple(ir.Lit(sort, e.span, i) for i in range(len(sort.members))))
        if name in self.atoms:
            return self._atom(name, e.span, expected)
        if name in self.defs:
            raise _err("E103", f"`{name}` is a function: call it with arguments", e.span,
                       f"write `{name}(...)`")
        if name in BUILTINS:
            raise _err("E103", f"`{name}` is a built-in function: call it with arguments", e.span)
        if name in self.action_index:
            return self._action_step(e, None)
        if name in self.top_names:
            kind = type(self.top_names[name]).__name__.replace("Decl", "").lower()
            raise _err("E100", f"`{name}` is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not a value", e.span)
        if name in self.consts or name in self.top_names:
            raise _err("E100", f"`{name}` cannot be used here", e.span)
        candidates = list(self.vars) + list(self.consts) + list(self.atoms) + list(self.sorts)
        for scope in self.scopes:
            candidates += list(scope.names)
        hint = name.lower() if name.lower() in ("true", "false", "none") else suggest(name, candidates)
        raise _err("E100", f"unknown name `{name}`", e.span, f"did you mean `{hint}`?" if hint else None)

    def _narrowing(self, key: tuple, ref: ir.Expr) -> ir.Expr:
        """A read of an option known to hold a value here (`narrowed`): its value, of the inner type."""
        if key in self.narrowed and isinstance(ref.type, T.OptionT):
            return ir.Prim(ref.type.inner, ref.span, "unwrap", (ref,))
        return ref

    def _key(self, e: S.Expr) -> tuple | None:
        """The narrowing key of `e` when it names an option variable or bound name (not an item)."""
        if not isinstance(e, S.Name):
            return None
        local = self._lookup_local(e.name)
        if isinstance(local, ir.Local):
            return ("local", local.id) if isinstance(local.type, T.OptionT) else None
        if local is None and e.name in self.vars and isinstance(self.vars[e.name][1], T.OptionT):
            return ("var", self.vars[e.name][0])
        return None

    def _facts(self, cond: S.Expr, holds: bool) -> frozenset:
        """The options known to hold a value where `cond` is true (`holds`) or false: `x != none`,
        `x == none` (false), and combinations of these by and, or, not and implies."""
        if isinstance(cond, S.Not):
            return self._facts(cond.operand, not holds)
        if isinstance(cond, S.BinOp):
            if cond.op in ("==", "!=") and (isinstance(cond.left, S.NoneLit) or isinstance(cond.right, S.NoneLit)):
                key = self._key(cond.right if isinstance(cond.left, S.NoneLit) else cond.left)
                return frozenset([key]) if key is not None and holds == (cond.op == "!=") else frozenset()
            if cond.op == "and" and holds or cond.op == "or" and not holds:
                return self._facts(cond.left, holds) | self._facts(cond.right, holds)
            if cond.op == "implies" and not holds:
                return self._facts(cond.left, True) | self._facts(cond.right, False)
        return frozenset()

    def _infer_knowing(self, facts: frozenset, e: S.Expr, expected=None) -> ir.Expr:
        """`e` inferred where the options `facts` are known to hold a value too."""
        saved = self.narrowed
        self.narrowed = saved | facts
        try:
            return self.infer(e, expected)
        finally:
            self.narrowed = saved

    def _atom(self, name: str, span: Span, expected) -> ir.Expr:
        options = self.atoms[name]
        if len(options) == 1:
            sort, i = options[0]
            return ir.Lit(sort, span, i)
        want = expected.inner if isinstance(expected, T.OptionT) else expected
        for sort, i in options:
            if sort == want:
                return ir.Lit(sort, span, i)
        raise _Ambiguous(name, span, [s for s, _ in options])

    def _e_IfExpr(self, e: S.IfExpr, expected):
        cond = self._bool(e.cond, "the condition of `if ... then ... else`")
        if self._facts(e.cond, True) or self._facts(e.cond, False):
            then = self._infer_knowing(self._facts(e.cond, True), e.then, expected)
            orelse = self._infer_knowing(self._facts(e.cond, False), e.orelse, then.type if expected is None else expected)
        else:
            then, orelse = self._pair(e.then, e.orelse, expected)
        t = T.join(then.type, orelse.type)
        if t is None:
            raise _err("E102", f"the branches of `if` have different types: {then.type} and {orelse.type}", e.span)
        return ir.IfE(t, e.span, cond, then, orelse)

    def _pair(self, a: S.Expr, b: S.Expr, expected=None) -> tuple[ir.Expr, ir.Expr]:
        """Infer two expressions that must agree, letting each disambiguate the other."""
        try:
            left = self._infer(a, expected)
        except _Ambiguous:
            right = self._infer(b, expected)
            left = self._infer(a, right.type)
            return left, right
        right = self._infer(b, left.type if expected is None else expected)
        if isinstance(left.type, T.AnyT) or not T.is_concrete(left.type):
            try:
                left = self._infer(a, right.type)
            except _Ambiguous:
                pass
        return left, right

    def _e_Temporal(self, e: S.Temporal, expected):
        raise _err("E112", f"`{e.op}` is a temporal operator: it is only allowed in a `property`", e.span)

    def _e_Not(self, e: S.Not, expected):
        return ir.Prim(T.BOOL, e.span, "not", (self._bool(e.operand, "the operand of `not`"),))

    def _e_Neg(self, e: S.Neg, expected):
        return ir.Prim(T.INT, e.span, "neg", (self._int(e.operand, "the operand of `-`"),))

    def _coalesce(self, e: S.BinOp, expected) -> ir.Expr:
        """`x ?? d`: x's value, or d when x is none; d is evaluated only then. As IR:
        `let t = x in (if t == none then d else unwrap(t))`, where unwrap is x's value as a `T`."""
        hint = "`??` takes the value out of an option `T?`, with a value to use when it is none"
        want = T.OptionT(expected) if expected is not None and not isinstance(expected, (T.OptionT, T.AnyT)) else None
        saved, self.narrowed = self.narrowed, frozenset()  # `x ?? d` takes the option itself
        try:
            left = self.infer(e.left, want)
        finally:
            self.narrowed = saved
        if not isinstance(left.type, T.OptionT) or isinstance(left.type.inner, T.AnyT):
            what = "`none`" if isinstance(left.type, T.OptionT) else _article(left.type)
            raise _err("E102", f"the left side of `??` should be an option, not {what}", e.left.span, hint)
        inner = left.type.inner
        if isinstance(e.right, S.NoneLit):
            raise _err("E102", "the right side of `??` replaces `none`, so it cannot be `none`", e.right.span,
                       f"give a value of type {inner}")
        right = self._expect(self.infer(e.right, inner), inner, "the right side of `??`")
        local = self._new_local("coalesced", left.type, binder=e)
        ref = ir.LocalRef(left.type, e.span, local)
        test = ir.Prim(T.BOOL, e.span, "eq", (ref, ir.Lit(left.type, e.span, NONE)))
        value = ir.IfE(inner, e.span, test, right, ir.Prim(inner, e.span, "unwrap", (ref,)))
        return ir.LetE(inner, e.span, local, left, value)

    def _e_BinOp(self, e: S.BinOp, expected):
        op = e.op
        if op in ("and", "or", "implies"):
            left = self._bool(e.left, f"the left side of `{op}`")
            # the right side is evaluated only where the left one is true (and, implies) or false (or)
            right = self._infer_knowing(self._facts(e.left, op != "or"), e.right, T.BOOL)
            if right.type != T.BOOL:
                raise _err("E105", f"the right side of `{op}` must be a boolean, not {right.type}", e.right.span)
            return ir.Prim(T.BOOL, e.span, op, (left, right))
        if op in ("==", "!=") and (isinstance(e.left, S.NoneLit) or isinstance(e.right, S.NoneLit)):
            # `x != none` asks about the option itself, also where x is known to hold a value
            saved, self.narrowed = self.narrowed, frozenset()
            try:
                left, right = self._pair(e.left, e.right)
            finally:
                self.narrowed = saved
        elif op in ("==", "!="):
            left, right = self._pair(e.left, e.right)
        if op in ("==", "!="):
            if T.join(left.type, right.type) is None:
                raise _err("E102", f"cannot compare {left.type} with {right.type}", e.span)
            for a, b in ((left, right), (right, left)):
                if isinstance(a, ir.Lit) and a.value is NONE and not isinstance(b.type, (T.OptionT, T.AnyT)):
                    raise _err("E102", f"{_article(b.type)} is never `none`", e.span,
                               "only option types (`T?`) have the value none")
            return ir.Prim(T.BOOL, e.span, "eq" if op == "==" else "ne", (left, right))
        if op == "??":
            return self._coalesce(e, expected)
        if op in ("<", "<=", ">", ">="):
            left = self._int(e.left, f"the left side of `{op}`")
            right = self._int(e.right, f"the right side of `{op}`")
            return ir.Prim(T.BOOL, e.span, {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}[op], (left, right))
        if op in ("in", "notin"):
            try:
                left = self._infer(e.left, None)
                right = self._set(e.right, f"the right side of `{'in' if op == 'in' else 'not in'}`",
                                  T.SetT(left.type))
            except _Ambiguous:
                right = self._set(e.right, "the right side of `in`")
                left = self._infer(e.left, right.type.element)
            if T.join(left.type, right.type.element) is None:
                raise _err("E102", f"a {left.type} is never in a {right.type}", e.span)
            return ir.Prim(T.BOOL, e.span, op, (left, right))
        if op == "subset":
            left, right = self._pair(e.left, e.right)
            for side in (left, right):
                if not isinstance(side.type, T.SetT):
                    raise _err("E102", f"`subset` compares sets, not {side.type}", side.span)
            if T.join(left.type, right.type) is None:
                raise _err("E102", f"cannot compare {left.type} with {right.type}", e.span)
            return ir.Prim(T.BOOL, e.span, "subset", (left, right))
        if op == "..":
            left = self._int(e.left, "the start of a range")
            right = self._int(e.right, "the end of a range")
            return ir.Prim(T.SetT(T.INT), e.span, "range", (left, right))
        if op in ("|", "&"):
            left, right = self._pair(e.left, e.right, expected)
            for side in (left, right):
                if not isinstance(side.type, T.SetT):
                    raise _err("E102", f"`{op}` combines sets, not {side.type}", side.span,
                               "use `or`/`and` for booleans" if side.type == T.BOOL else None)
            t = T.join(left.type, right.type)
            if t is None:
                raise _err("E102", f"cannot combine {left.type} with {right.type}", e.span)
            return ir.Prim(t, e.span, "union" if op == "|" else "inter", (left, right))
        if op in ("+", "-"):
            left, right = self._pair(e.left, e.right, expected)
            if left.type == T.INT and right.type == T.INT:
                return ir.Prim(T.INT, e.span, "add" if op == "+" else "sub", (left, right))
            t = T.join(left.type, right.type)
            if op == "+" and isinstance(t, T.SeqT):
                return ir.Prim(t, e.span, "concat", (left, right))
            if op == "-" and isinstance(t, T.SetT):
                return ir.Prim(t, e.span, "diff", (left, right))
            what = "ints or sequences" if op == "+" else "ints or sets"
            raise _err("E102", f"`{op}` works on {what}, not {left.type} and {right.type}", e.span,
                       "use `|` for set union" if op == "+" and isinstance(left.type, T.SetT) else None)
        if op in ("*", "//", "%"):
            left = self._int(e.left, f"the left side of `{op}`")
            right = self._int(e.right, f"the right side of `{op}`")
            return ir.Prim(T.INT, e.span, {"*": "mul", "//": "div", "%": "mod"}[op], (left, right))
        raise AssertionError(op)  # pragma: no cover

    def _e_Index(self, e: S.Index, expected):
        target = self.infer(e.target)
        t = target.type
        if isinstance(t, T.MapT):
            key = self._expect(self.infer(e.index, t.key), t.key, "the key")
            return ir.Prim(t.value, e.span, "lookup", (target, key))
        if isinstance(t, T.SeqT):
            pos = self._int(e.index, "a sequence index")
            return ir.Prim(t.element, e.span, "at", (target, pos))
        if isinstance(t, T.TupleT):
            if not isinstance(e.index, S.IntLit):
                raise _err("E102", "a tuple index must be a number literal", e.index.span)
            n = e.index.value
            if not 1 <= n <= len(t.elements):
                raise _err("E102", f"tuple index {n} is out of range 1..{len(t.elements)}", e.index.span,
                           "tuple positions count from 1")
            return ir.Prim(t.elements[n - 1], e.span, "item", (target,), n - 1)
        raise _err("E102", f"cannot index into {t}", e.span, "only maps, sequences and tuples can be indexed")

    def _e_Field(self, e: S.Field, expected):
        if isinstance(e.target, S.Name) and e.target.name in self.sorts and self._lookup_local(e.target.name) is None:
            sort = self.sorts[e.target.name]
            if e.name not in sort.members:
                hint = suggest(e.name, sort.members)
                raise _err("E100", f"`{sort.name}` has no member `{e.name}`", e.span,
                           f"did you mean `{hint}`?" if hint else None)
            return ir.Lit(sort, e.span, sort.members.index(e.name))
        target = self.infer(e.target)
        t = target.type
        if isinstance(t, T.OptionT) and isinstance(t.inner, T.RecordT):
            raise _err("E102", f"`{e.name}` is read from a {t}, which may be none", e.span,
                       f"check that it is not none first (`require x != none`, `x != none and x.{e.name} ...`): "
                       "then it is the record")
        if not isinstance(t, T.RecordT):
            raise _err("E106", f"`.{e.name}` needs a record, not {t}", e.span)
        pos = t.index_of(e.name)
        if pos is None:
            hint = suggest(e.name, [n for n, _ in t.fields])
            raise _err("E106", f"record {t} has no field `{e.name}`", e.span,
                       f"did you mean `{hint}`?" if hint else None)
        return ir.Prim(t.fields[pos][1], e.span, "item", (target,), pos)

    def _e_TupleLit(self, e: S.TupleLit, expected):
        exp = expected.elements if isinstance(expected, T.TupleT) and len(expected.elements) == len(e.elements) else None
        items = tuple(self.infer(x, exp[i] if exp else None) for i, x in enumerate(e.elements))
        return ir.Build(T.TupleT(tuple(i.type for i in items)), e.span, "tuple", items)

    def _elements(self, elements, element_expected, what: str) -> tuple[tuple[ir.Expr, ...], T.Type]:
        t: T.Type = element_expected if element_expected is not None else T.ANY
        items = []
        pending = []
        for x in elements:
            try:
                item = self._infer(x, t if not isinstance(t, T.AnyT) else None)
            except _Ambiguous:
                pending.append((len(items), x))
                items.append(None)
                continue
            j = T.join(t, item.type)
            if j is None:
                raise _err("E102", f"the elements of a {what} must have one type: {item.type} does not fit {t}",
                           x.span)
            t = j
            items.append(item)
        for i, x in pending:
            item = self.infer(x, t)
            j = T.join(t, item.type)
            if j is None:
                raise _err("E102", f"the elements of a {what} must have one type", x.span)
            t = j
            items[i] = item
        return tuple(items), t

    def _e_SeqLit(self, e: S.SeqLit, expected):
        items, t = self._elements(e.elements, expected.element if isinstance(expected, T.SeqT) else None, "sequence")
        return ir.Build(T.SeqT(t), e.span, "seq", items)

    def _e_SetLit(self, e: S.SetLit, expected):
        items, t = self._elements(e.elements, expected.element if isinstance(expected, T.SetT) else None, "set")
        return ir.Build(T.SetT(t), e.span, "set", items)

    def _e_MapLit(self, e: S.MapLit, expected):
        kexp = expected.key if isinstance(expected, T.MapT) else None
        vexp = expected.value if isinstance(expected, T.MapT) else None
        keys, kt = self._elements([k for k, _ in e.entries], kexp, "map's keys")
        vals, vt = self._elements([v for _, v in e.entries], vexp, "map's values")
        items = tuple(x for pair in zip(keys, vals) for x in pair)
        return ir.Build(T.MapT(kt, vt), e.span, "map", items)

    def _e_RecordLit(self, e: S.RecordLit, expected):
        names = [n for n, _, _ in e.fields]
        for n, span, _ in e.fields:
            if names.count(n) > 1:
                raise _err("E101", f"field `{n}` appears twice", span)
        fexp = dict(expected.fields) if isinstance(expected, T.RecordT) else {}
        values = {n: self.infer(v, fexp.get(n)) for n, _, v in e.fields}
        order = sorted(values)
        rtype = T.RecordT(tuple((n, values[n].type) for n in order))
        return ir.Build(rtype, e.span, "record", tuple(values[n] for n in order))

    def _comprehension(self, c: S.Comprehension, body_expected=None, key: S.Expr | None = None,
                       key_expected=None):
        self.scopes.append(_Scope())
        gens = tuple(self._generator(g) for g in c.generators)
        cond = self._bool(c.cond, "the `if` filter") if c.cond is not None else None
        facts = self._facts(c.cond, True) if c.cond is not None else frozenset()
        k = self._infer_knowing(facts, key, key_expected) if key is not None else None
        body = self._infer_knowing(facts, c.element, body_expected)
        self.scopes.pop()
        return gens, cond, body, k

    def _e_SetComp(self, e: S.SetComp, expected):
        gens, cond, body, _ = self._comprehension(e.comprehension,
                                                  expected.element if isinstance(expected, T.SetT) else None)
        return ir.Comp(T.SetT(body.type), e.span, "set", gens, cond, body)

    def _e_SeqComp(self, e: S.SeqComp, expected):
        gens, cond, body, _ = self._comprehension(e.comprehension,
                                                  expected.element if isinstance(expected, T.SeqT) else None)
        return ir.Comp(T.SeqT(body.type), e.span, "seq", gens, cond, body)

    def _e_MapComp(self, e: S.MapComp, expected):
        kexp = expected.key if isinstance(expected, T.MapT) else None
        vexp = expected.value if isinstance(expected, T.MapT) else None
        gens, cond, body, key = self._comprehension(e.comprehension, vexp, e.key, kexp)
        return ir.Comp(T.MapT(key.type, body.type), e.span, "map", gens, cond, body, key)

    def _e_LetExpr(self, e: S.LetExpr, expected):
        self.scopes.append(_Scope())
        bound = []
        for name, span, value in e.bindings:
            v = self.infer(value)
            local = self._new_local(name, v.type, binder=value)
            self.scopes[-1].names[name] = local
            bound.append((local, v))
        body = self.infer(e.body, expected)
        self.scopes.pop()
        for local, v in reversed(bound):
            body = ir.LetE(body.type, e.span, local, v, body)
        return body

    def _e_Call(self, e: S.Call, expected):
        name = e.name
        if name in self.defs and self._lookup_local(name) is None:
            return self._call_def(e)
        if name in self.action_index and self._lookup_local(name) is None:
            return self._action_step(e, e.args)
        if isinstance(self.top_names.get(name), S.ActionDecl) and self._lookup_local(name) is None:
            raise _err("E134", f"action `{name}` can be used as a predicate only in a step property", e.span,
                       f"a `def` is a value of one state; a step property asks it of each step: "
                       f"`property P: always ({name}(...) implies ...)`")
        if name in self.blocks:
            raise _err("E103", f"`{name}` is a block: it is called as a statement, not in an expression",
                       e.name_span, f"write `{name}(...)` on a line of its own, or declare a `def` for a value")
        if name not in BUILTINS:
            hint = suggest(name, list(self.defs) + list(BUILTINS))
            raise _err("E100", f"unknown function `{name}`", e.name_span,
                       f"did you mean `{hint}`?" if hint else "declare it with `def`")
        arity = BUILTINS[name]
        if arity is None:
            if e.comprehension is None:
                raise _err("E103", f"`{name}` takes a generator, e.g. `{name}(p(x) for x in S)`", e.span)
            return self._call_quantifier(e, expected)
        if e.comprehension is not None:
            raise _err("E103", f"`{name}` does not take a generator", e.span)
        if len(e.args) != arity:
            raise _err("E103", f"`{name}` takes {arity} argument{'s' if arity > 1 else ''}, not {len(e.args)}", e.span)
        return getattr(self, "_b_" + name)(e, expected)

    def _call_def(self, e: S.Call) -> ir.Expr:
        info = self.defs[e.name]
        if e.comprehension is not None:
            raise _err("E103", f"`{e.name}` takes arguments, not a generator", e.span)
        if len(e.args) != len(info.params):
            n = len(info.params)
            raise _err("E103", f"`{e.name}` takes {n} argument{'s' if n != 1 else ''}, not {len(e.args)}", e.span,
                       f"declared at {info.decl.name_span}")
        args = tuple(self._expect(self.infer(a, p.type), p.type, f"argument `{p.name}` of `{e.name}`")
                     for a, p in zip(e.args, info.params))
        return ir.CallDef(info.returns, e.span, info.index, args)

    def _call_quantifier(self, e: S.Call, expected) -> ir.Expr:
        c = e.comprehension
        kind = e.name
        if kind in ("all", "any"):
            gens, cond, body, _ = self._comprehension(c, T.BOOL)
            if body.type != T.BOOL:
                raise _err("E105", f"`{kind}(...)` needs a boolean condition, not {body.type}", c.element.span)
            return ir.Comp(T.BOOL, e.span, kind, gens, cond, body)
        if kind == "sum":
            gens, cond, body, _ = self._comprehension(c, T.INT)
            if body.type != T.INT:
                raise _err("E102", f"`sum(...)` adds ints, not {body.type}", c.element.span)
            return ir.Comp(T.INT, e.span, kind, gens, cond, body)
        gens, cond, body, _ = self._comprehension(c, expected)
        return ir.Comp(body.type, e.span, "choose", gens, cond, body)

    def _arg(self, e: S.Call, i: int, expected=None) -> ir.Expr:
        return self.infer(e.args[i], expected)

    def _seq_arg(self, e: S.Call, i: int = 0, expected=None) -> ir.Expr:
        a = self._arg(e, i, expected)
        if not isinstance(a.type, T.SeqT):
            raise _err("E102", f"`{e.name}` needs a sequence, not {a.type}", a.span)
        return a

    def _set_arg(self, e: S.Call, i: int = 0, expected=None) -> ir.Expr:
        a = self._arg(e, i, expected)
        if not isinstance(a.type, T.SetT):
            raise _err("E102", f"`{e.name}` needs a set, not {a.type}", a.span)
        return a

    def _b_len(self, e, expected):
        a = self._arg(e, 0)
        if isinstance(a.type, T.SeqT):
            return ir.Prim(T.INT, e.span, "len", (a,))
        if isinstance(a.type, T.SetT):
            return ir.Prim(T.INT, e.span, "card", (a,))
        raise _err("E102", f"`len` needs a sequence or a set, not {a.type}", a.span)

    def _b_enabled(self, e, expected):
        """`enabled(A)`: whether action A can take a step from the state, with some arguments
        (TLA+ `ENABLED A`, `ENABLED \\E p \\in S : A(p)` for an action with parameters)."""
        if not (self.enabled_ok or self.in_action) or self.in_def:
            raise _err("E128", "`enabled(...)` can be used only in an invariant, a temporal property or an action",
                       e.span, "write it in the `invariant`, `property` or action itself, not in a `def`")
        if self.in_action and self.assigned:
            raise _err("E128", "`enabled(...)` in an action must come before its assignments", e.span,
                       "it asks about the state the step starts from (TLA+'s `ENABLED` in a guard): move the "
                       "`require` above the first assignment")
        a = e.args[0]
        if isinstance(a, S.Call) and a.name in self.action_index and a.comprehension is None:
            return self._enabled_with(a)
        if not (isinstance(a, S.Name) and a.name in self.action_index):
            hint = suggest(a.name, list(self.action_index)) if isinstance(a, S.Name) else None
            raise _err("E128", "`enabled(...)` takes the name of an action", a.span,
                       f"did you mean `{hint}`?" if hint else
                       f"actions: {', '.join(self.action_index)}" if self.action_index else None)
        slots = frozenset(range(len(self.vars)))
        self.reads.update(slots)
        return ir.Prim(T.BOOL, e.span, "enabled", (), info=(self.action_index[a.name], slots))

    def _enabled_with(self, a: S.Call) -> ir.Expr:
        """`enabled(A(x, y))`: whether A can take a step with these arguments (TLA+ `ENABLED A(x, y)`);
        one argument per parameter of A, of its type."""
        index = self.action_index[a.name]
        params = self.action_params[index] if index < len(self.action_params) else None
        if params is None:  # the action has an error of its own, reported at it
            raise _err("E128", f"`enabled({a.name}(...))`: action `{a.name}` has an error", a.span)
        if len(a.args) != len(params):
            names = ", ".join(local.name for local, _ in params)
            raise _err("E128", f"`enabled({a.name}(...))` takes {len(params)} argument"
                       f"{'s' if len(params) != 1 else ''} ({names or 'none'}), not {len(a.args)}", a.span,
                       f"give one value per parameter of `{a.name}`, or write `enabled({a.name})` for any of them")
        args = tuple(self._expect(self.infer(x, local.type), local.type, f"argument `{local.name}` of `{a.name}`")
                     for x, (local, _) in zip(a.args, params))
        slots = frozenset(range(len(self.vars)))
        self.reads.update(slots)
        return ir.Prim(T.BOOL, a.span, "enabled", args, info=(index, slots))

    def _action_step(self, e: S.Call | S.Name, given) -> ir.Expr:
        """`A(x, y)` or `A` in a step property: whether the step is a step of action A (with these
        arguments; `A` alone, with some), TLA+'s action `A(x, y)` used as a predicate of a step
        (`[][A(x) => B(x)]_vars`). The successors of A from the state before the step are computed
        and the state after it looked for among them."""
        name = e.name
        if not self.in_step:
            raise _err("E134", f"action `{name}` can be used as a predicate only in a step property", e.span,
                       f"a step property asks it of each step: `property P: always ({name}{'(...)' if given else ''}"
                       " implies ...)`; in a state, ask whether it can take a step: "
                       f"`enabled({name}{'(...)' if given else ''})`")
        if isinstance(e, S.Call) and e.comprehension is not None:
            raise _err("E134", f"`{name}` takes arguments, not a generator", e.span)
        index = self.action_index[name]
        slots = frozenset(range(2 * len(self.vars)))
        if given is None:
            self.reads.update(slots)
            return ir.Prim(T.BOOL, e.span, "step_of", (), info=(index, slots))
        params = self.action_params[index] if index < len(self.action_params) else None
        if params is None:  # the action has an error of its own, reported at it
            raise _err("E134", f"`{name}(...)`: action `{name}` has an error", e.span)
        if len(given) != len(params):
            names = ", ".join(local.name for local, _ in params)
            raise _err("E134", f"action `{name}` takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                       f"({names or 'none'}), not {len(given)}", e.span,
                       f"give one value per parameter, or write `{name}` alone for a step with any of them")
        args = tuple(self._expect(self.infer(x, local.type), local.type, f"argument `{local.name}` of `{name}`")
                     for x, (local, _) in zip(given, params))
        self.reads.update(slots)
        return ir.Prim(T.BOOL, e.span, "step_of", args, info=(index, slots))

    def _b_head(self, e, expected):
        s = self._seq_arg(e)
        return ir.Prim(s.type.element, e.span, "head", (s,))

    def _b_tail(self, e, expected):
        s = self._seq_arg(e, 0, expected)
        return ir.Prim(s.type, e.span, "tail", (s,))

    def _b_append(self, e, expected):
        s = self._seq_arg(e, 0, expected)
        x = self._arg(e, 1, s.type.element if not isinstance(s.type.element, T.AnyT) else None)
        t = T.join(s.type.element, x.type)
        if t is None:
            raise _err("E102", f"cannot append a {x.type} to a {s.type}", x.span)
        return ir.Prim(T.SeqT(t), e.span, "append", (s, x))

    def _b_subseq(self, e, expected):
        s = self._seq_arg(e, 0, expected)
        lo = self._expect(self._arg(e, 1), T.INT, "the start of `subseq`")
        hi = self._expect(self._arg(e, 2), T.INT, "the end of `subseq`")
        return ir.Prim(s.type, e.span, "subseq", (s, lo, hi))

    def _b_elems(self, e, expected):
        s = self._seq_arg(e)
        return ir.Prim(T.SetT(s.type.element), e.span, "elems", (s,))

    def _b_domain(self, e, expected):
        m = self._arg(e, 0)
        if not isinstance(m.type, T.MapT):
            raise _err("E102", f"`domain` needs a map, not {m.type}", m.span)
        return ir.Prim(T.SetT(m.type.key), e.span, "domain", (m,))

    def _b_powerset(self, e, expected):
        s = self._set_arg(e)
        return ir.Prim(T.SetT(s.type), e.span, "powerset", (s,))

    def _b_orderings(self, e, expected):
        """`orderings(S)`: every sequence that lists each element of S once (a queue built from a
        set without an order of its own: sound under symmetry, as the set of them is)."""
        s = self._set_arg(e, 0, T.SetT(expected.element.element) if isinstance(expected, T.SetT)
                          and isinstance(expected.element, T.SeqT) else None)
        return ir.Prim(T.SetT(T.SeqT(s.type.element)), e.span, "orderings", (s,))

    def _b_maps(self, e, expected):
        d = self._set_arg(e, 0, T.SetT(expected.element.key) if isinstance(expected, T.SetT)
                          and isinstance(expected.element, T.MapT) else None)
        r = self._set_arg(e, 1)
        return ir.Prim(T.SetT(T.MapT(d.type.element, r.type.element)), e.span, "maps", (d, r))

    def _b_bigunion(self, e, expected):
        s = self._set_arg(e)
        if not isinstance(s.type.element, T.SetT):
            raise _err("E102", f"`bigunion` needs a set of sets, not {s.type}", s.span)
        return ir.Prim(s.type.element, e.span, "bigunion", (s,))

    def _b_min(self, e, expected):
        s = self._set_arg(e)
        if s.type.element != T.INT:
            raise _err("E102", f"`{e.name}` needs a set of ints, not {s.type}", s.span)
        return ir.Prim(T.INT, e.span, e.name, (s,))

    _b_max = _b_min


def _has_temporal(e: S.Node) -> bool:
    """Whether an AST expression contains always/eventually/leads_to."""
    return any(isinstance(x, S.Temporal) for x in walk(e))


def _conjuncts(e: S.Expr) -> list[S.Expr]:
    """The operands of the `and`s at the top of `e`."""
    if isinstance(e, S.BinOp) and e.op == "and":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _is_step(e: S.Expr, actions=()) -> bool:
    """`always P` with P a predicate of a step (it reads x' or names one of the `actions` as a
    step, and has no temporal operator)."""
    return (isinstance(e, S.Temporal) and e.op == "always" and _has_prime(e.left, actions)
            and not _has_temporal(e.left))


def _has_prime(e: S.Node, actions=()) -> bool:
    """Whether an AST expression contains `x'` (or, with `actions`, names one of them: `A(x)`, `A`,
    a step of that action, reads the state after the step too)."""
    if isinstance(e, S.Primed):
        return True
    if isinstance(e, S.Call) and e.name == "enabled":
        return False  # `enabled(A(x))` asks about the state before the step
    if isinstance(e, (S.Call, S.Name)) and e.name in actions:
        return True
    return any(_has_prime(c, actions) for c in e.children())


def _assigned_keys(stmts) -> frozenset:
    """The narrowing keys of the variables the IR statements `stmts` may assign."""
    return frozenset(("var", st.slot) for st in ir.statements(stmts) if isinstance(st, ir.AssignS))


def _has_local(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.LocalRef) for x in walk(e))


def _check_finite_binder(name: str, t: T.Type, bounds, span: Span) -> None:
    """Theorem binders range over finite domains, so that Z3 (and brute force) can decide them."""
    inner = t.inner if isinstance(t, T.OptionT) else t
    if isinstance(inner, T.IntT) and bounds is None:
        raise _err("E120", f"theorem variable `{name}` is an int without bounds", span,
                   f"give it a range: `forall ({name}: 0..3, ...)`, or declare the def parameter "
                   f"it is passed to as `{name}: 0..3`")
    if isinstance(inner, T.SeqT):
        raise _err("E120", f"theorem variable `{name}` is a sequence ({t}), which theorems cannot range over, "
                   "even with a bound", span,
                   "theorems range over bool, enums, model values, bounded ints (`0..3`) and options of these")
    if not isinstance(inner, (T.BoolT, T.IntT, T.SortT)):
        raise _err("E120", f"theorem variable `{name}` has type {t}, which is not finite", span,
                   "theorems range over bool, enums, model values, bounded ints (`0..3`) and options of these")


def _infer_binder_types(d: S.TheoremDecl, defs: dict) -> dict[str, tuple[T.Type, tuple | None]]:
    """Types (and ranges) of untyped theorem binders, from the parameters of the functions
    they are passed to."""
    names = {n for n, _, t in d.params if t is None}
    found: dict[str, tuple[T.Type, tuple | None]] = {}

    for node in walk(d.body):
        if isinstance(node, S.Call) and node.name in defs:
            info = defs[node.name]
            for arg, param in zip(node.args, info.params):
                if isinstance(arg, S.Name) and arg.name in names and arg.name not in found:
                    found[arg.name] = (param.type, param.bounds)
        if isinstance(node, S.BinOp) and node.op in ("and", "or", "implies"):
            for side in (node.left, node.right):
                if isinstance(side, S.Name) and side.name in names and side.name not in found:
                    found[side.name] = (T.BOOL, None)
        if isinstance(node, S.Not) and isinstance(node.operand, S.Name) and node.operand.name in names:
            found.setdefault(node.operand.name, (T.BOOL, None))
    return found


def _article(t: T.Type) -> str:
    text = str(t)
    return ("an " if text[:1] in "aeiou" else "a ") + text


def _block_calls(stmts):
    """The block calls among `stmts` and inside their nested blocks."""
    return (s for s in walk(stmts) if isinstance(s, S.BlockCall))


def _stem(path: str) -> str:
    import os

    return os.path.splitext(os.path.basename(path))[0]
